//! Server.

pub(crate) mod connection;
