//! Setup.

pub mod clock;
pub mod config;
pub(crate) mod params;
