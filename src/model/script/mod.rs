//! Lua scripting as Redis 7.0 embeds it (Lua 5.1 through `mlua`; Redis's `script_lua.c`,
//! `eval.c`): the engine that runs a script against the node, the reply conversions both
//! ways, the `cjson` and `bit` libraries. The commands (EVAL, EVALSHA, SCRIPT ...) are in
//! `commands::cmd::scripting`; the script cache and `math.random`'s generator are node
//! state (`state::script_cache`, `state::rand48`).
//!
//! Layout: `engine` builds a fresh Lua state per script run (globals, `redis.*`, global
//! protection, the instruction budget) and runs it; `convert` holds the reply <-> Lua
//! value rules; `cjson` and `bit` the libraries (C's `%g` is `data::number`); `raise` the
//! C closure that raises a raw function's error. A new `redis.*` function goes in
//! `engine`.
//!
//! May import: `state`, `protocol`, `data`, `setup`; and, the one import upward, the
//! command table from `engine` for `redis.call` (the dispatch circle, see `commands`).

pub(crate) mod bit;
pub(crate) mod cjson;
pub(crate) mod convert;
pub(crate) mod engine;
pub(crate) mod raise;
