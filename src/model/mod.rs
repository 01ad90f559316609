//! A Redis 7.0 server model for the commands memory stores use, on the clock it is given.
//!
//! [`Model`] serves any tokio byte stream. Inside the simulator its clock is virtual, so TTLs
//! expire on simulated time; `amnesia serve-model` serves it on a real port with the real
//! clock, which is how the differential tests compare it with a real `redis-server`.

pub mod commands;
pub(crate) mod data;
pub(crate) mod persistence;
pub mod protocol;
pub(crate) mod script;
pub(crate) mod server;
pub mod setup;
pub(crate) mod state;

pub use protocol::reply::{Protocol, Reply};
pub use server::connection::{Journaled, Model, JOURNAL_ENTRIES_MAX};
pub use setup::clock::ModelClock;
pub use setup::config::{ModelConfig, Persistence};
pub use state::node::{Node, NodeStats};
