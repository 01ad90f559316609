//! Protocol.

pub(crate) mod args;
pub mod client;
pub(crate) mod reply;
pub mod request;
