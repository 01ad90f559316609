//! The commands (Redis's `t_string.c`, `t_list.c`, `t_hash.c`, `t_set.c`, `t_zset.c`,
//! `db.c`, `multi.c`, `config.c`, ...): `table` lists every command with Redis 7.0's arity
//! and flags and its handler; `cmd` holds the handlers, one file per family (strings,
//! lists, hashes, sets, zsets, keys, transactions, scripting, ...); `dispatch` runs one
//! handler (Redis's `call`). A new command: its handler in `cmd/<family>.rs`, its row in
//! `table`.
//!
//! # The dispatch circle
//!
//! The one circle the model keeps. The table names every handler, and two handlers come
//! back through it: EXEC runs its queued commands (`cmd::transactions`), and EVAL runs a
//! script (`cmd::scripting` → `script::engine`) whose `redis.call` looks its command up
//! in the table and runs it through `dispatch`. So `table` and `cmd` import each other,
//! and `script::engine` → `table` is the one import from a room to a room above it. It
//! stays because commands that run commands are part of Redis; cutting it would only hide
//! the table behind a function pointer handed down. `sim-tests/layers.rs` declares it
//! (`MODEL_DISPATCH`) and allows no other.
//!
//! May import: `script`, `state`, `protocol`, `persistence`, `data`, `setup`.

pub(crate) mod cmd;
pub(crate) mod dispatch;
pub mod table;
