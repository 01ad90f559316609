//! Lua scripting as Redis 7.0 embeds it (Lua 5.1 through `mlua`): the engine that runs a
//! script against the node, the reply conversions both ways, the `cjson` and `bit`
//! libraries, `math.random`'s generator and the script cache. The commands (EVAL,
//! EVALSHA, SCRIPT ...) are in `cmd::scripting`.
//!
//! Layout: `engine` builds a fresh Lua state per script run (globals, `redis.*`, global
//! protection, the instruction budget) and runs it; `convert` holds the reply <-> Lua
//! value rules; `cjson` and `bit` the libraries (C's `%g` is `model::data::number`); `rand48` the PRNG; `raise`
//! the C closure that raises a raw function's error;
//! `cache` the state a node keeps between scripts.

pub(crate) mod bit;
pub(crate) mod cjson;
pub(crate) mod convert;
pub(crate) mod engine;
pub(crate) mod raise;
