//! Command handlers, one file per command family.

pub mod blocking;
pub mod collection_scan;
pub mod config;
pub mod connection;
pub mod databases;
pub mod hashes;
pub mod keys;
pub mod lists;
pub mod memory;
pub mod scripting;
pub mod server;
pub mod sets;
pub mod strings;
pub mod transactions;
pub mod zset_algebra;
pub mod zsets;
