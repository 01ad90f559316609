//! A Redis 7.0 server model for the commands memory stores use, on the clock it is given.
//!
//! [`Model`] serves any tokio byte stream. Inside the simulator its clock is virtual, so TTLs
//! expire on simulated time; `amnesia serve-model` serves it on a real port with the real
//! clock, which is how the differential tests compare it with a real `redis-server`.
//!
//! # Rooms
//!
//! The model is a stack of rooms, each a folder whose `mod.rs` says what it owns and what
//! it may import. Imports run downward only, which `sim-tests/layers.rs` holds them to
//! (`MODEL_ROOMS`). A request travels down the stack and its reply back up:
//!
//! - `server` (top; Redis's `server.c`, `networking.c`'s reading): the connection loop
//!   ([`Model`]) and where a request executes (admission, MULTI queueing, blocking, the
//!   append-only log), with the expiry cycle and a restart.
//! - `commands` (`t_*.c`, `db.c`, `multi.c`, `config.c`): the command table, the handlers
//!   by family, and running one handler.
//! - `script` (`script_lua.c`, `eval.c`): the Lua engine behind EVAL.
//! - `state` (`server.h`, `blocked.c`, `multi.c`'s WATCH): what a handler touches, the
//!   node's state and the handler's context.
//! - `protocol` (`networking.c`'s RESP, `object.c`'s argument parsing): requests cut out of
//!   the input, arguments read, replies and their encoding, a connection's state.
//! - `persistence` (`aof.c`, `rdb.c`): what a restart keeps.
//! - `data` (`db.c`, `object.c`, `expire.c`, `util.c`): the keyspace and its values.
//! - `setup` (floor; `config.c`): the configuration, the CONFIG parameters kept, the clock.
//!
//! A new command: its handler in `commands/cmd/<family>.rs`, its row in
//! `commands/table.rs`. A new value kind or encoding: `data/value.rs`. A new `redis.*`
//! function: `script/engine.rs`. A new CONFIG parameter: `commands/cmd/config.rs`.
//!
//! One circle is allowed, the command dispatch: a command may run commands (EXEC, a
//! script's `redis.call`) back through the table; see `commands`.
//!
//! Only the entry points are public: [`Model`], [`Node`], [`ModelConfig`], [`Reply`], and
//! the request cutter, command table and client state the fuzzers and differential tests
//! drive directly.

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
