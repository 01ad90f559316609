//! Persistence.

pub(crate) mod aof;
