//! A Redis 7.0 server model for the commands memory stores use, on the clock it is given.
//!
//! [`Model`] serves any tokio byte stream. Inside the simulator its clock is virtual, so TTLs
//! expire on simulated time; `amnesia serve-model` serves it on a real port with the real
//! clock, which is how the differential tests compare it with a real `redis-server`.
//!
//! Layout: [`request`] cuts requests out of the input (Redis's limits in front of
//! `redis-protocol`'s framing), [`command`] is the table, [`node`] executes (auth, MULTI
//! queueing, WATCH, the append-only log), [`cmd`] holds one file per command family,
//! [`keyspace`] and [`value`] the data, [`persistence`] what survives a restart, and
//! [`reply`] the RESP2/RESP3 encoding.

pub mod args;
pub mod client;
pub mod clock;
pub mod cmd;
pub mod command;
pub mod config;
pub mod glob;
pub mod keyspace;
pub mod node;
pub mod persistence;
pub mod reply;
pub mod request;
pub mod server;
pub mod value;

pub use clock::ModelClock;
pub use config::{ModelConfig, Persistence};
pub use node::{Node, NodeStats};
pub use reply::{Protocol, Reply};
pub use server::Model;
