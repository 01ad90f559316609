//! What a command handler touches (Redis's `server.h` structures): `node` is the state a
//! node's connections share ([`Node`](node::Node): databases, the append-only log,
//! counters, the random stream) with the operations handlers call on it (WATCH, SCAN
//! cursors, SCRIPT KILL, settling a command's changes, logging a transaction); `ctx` the
//! handler's context ([`Ctx`](ctx::Ctx)) and what a handler leaves for the node (effects
//! to log, a request to block); `blocked` the clients blocked on keys (`blocked.c`);
//! `watch` the WATCH bookkeeping (`multi.c`); `script_cache` and `rand48` what a node
//! keeps for scripting between commands (the script cache, `math.random`'s generator);
//! `script_watch` what other connections see of a running script without the node's lock.
//!
//! Handlers import this room, never the execution above them (`server::execute`).
//!
//! May import: `protocol`, `persistence`, `data`, `setup`.

pub(crate) mod blocked;
pub(crate) mod ctx;
pub(crate) mod evict;
pub(crate) mod memory;
pub(crate) mod node;
pub(crate) mod rand48;
pub(crate) mod script_cache;
pub(crate) mod script_watch;
pub(crate) mod watch;
