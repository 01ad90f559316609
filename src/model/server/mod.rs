//! Server.

pub(crate) mod connection;
pub(crate) mod execute;
