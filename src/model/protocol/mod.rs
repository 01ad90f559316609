//! RESP in and out, and what a connection carries (Redis's `networking.c`, and the
//! argument parsing of `object.c`): `request` cuts requests out of a connection's input
//! with Redis's limits and errors; `args` reads a command's arguments (integers, floats,
//! keywords) with Redis's error replies; `reply` is what a command answers (`Reply`) and
//! its RESP2/RESP3 encoding; `client` a connection's state between requests (database,
//! protocol, auth, the MULTI queue).
//!
//! It sits low, below the node, because every handler reads its arguments and builds a
//! reply; the bytes themselves are read and written by `server`.
//!
//! May import: `data`, `setup`.

pub(crate) mod args;
pub mod client;
pub(crate) mod reply;
pub mod request;
