//! Commands.

pub(crate) mod cmd;
pub(crate) mod dispatch;
pub mod table;
