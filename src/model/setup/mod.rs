//! The floor: what a node is set up with (Redis's `config.c`). `config` holds
//! [`ModelConfig`](config::ModelConfig), the settings a test or `serve-model` gives, and
//! the persistence mode; `params` the CONFIG parameters a node keeps without acting on
//! them; `clock` the time the model reads.
//!
//! May import: nothing of the model (only `crate::domain` and `crate::clock`).

pub mod clock;
pub mod config;
pub mod eviction;
pub(crate) mod params;
