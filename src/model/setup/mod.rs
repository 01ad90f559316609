//! Setup.

pub mod clock;
pub mod config;
