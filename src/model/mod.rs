//! A Redis 7.0 server model for the commands memory stores use, on the clock it is given.
//!
//! [`Model`] serves any tokio byte stream. Inside the simulator its clock is virtual, so TTLs
//! expire on simulated time; `amnesia serve-model` serves it on a real port with the real
//! clock, which is how the differential tests compare it with a real `redis-server`.
//!
//! Layout: [`request`] cuts requests out of the input (Redis's limits in front of
//! `redis-protocol`'s framing), [`command`] is the table, `node` executes (auth, MULTI
//! queueing, WATCH, the append-only log), `cmd` holds one file per command family,
//! `keyspace` and `value` the data, `script` the Lua
//! engine behind EVAL, `persistence` what survives a restart, and `reply`
//! the RESP2/RESP3 encoding. Only the entry points are public: [`Model`], [`Node`],
//! [`ModelConfig`], [`Reply`], and the request cutter and client state the fuzzers and
//! differential tests drive directly.

pub(crate) mod args;
pub(crate) mod blocked;
pub mod client;
pub mod clock;
pub(crate) mod cmd;
pub mod command;
pub mod config;
pub(crate) mod glob;
pub(crate) mod keyspace;
pub(crate) mod long_double;
pub(crate) mod node;
pub(crate) mod number;
pub(crate) mod persistence;
pub(crate) mod reply;
pub mod request;
pub(crate) mod script;
pub(crate) mod server;
pub(crate) mod value;
pub(crate) mod watch;

pub use clock::ModelClock;
pub use config::{ModelConfig, Persistence};
pub use node::{Node, NodeStats};
pub use reply::{Protocol, Reply};
pub use server::{Journaled, Model, JOURNAL_ENTRIES_MAX};
