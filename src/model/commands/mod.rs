//! Commands.

pub(crate) mod cmd;
pub mod table;
