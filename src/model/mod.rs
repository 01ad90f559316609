//! The Redis model.
