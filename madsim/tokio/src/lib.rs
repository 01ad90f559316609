//! `tokio` for a `--cfg madsim` build of amnesia's madsim engine.
//!
//! A store written without amnesia in mind calls `tokio::net::TcpStream::connect`,
//! `tokio::time::sleep` and `tokio::spawn` from inside its dependencies (the `redis` crate,
//! `backon`, `tokio-util`). madsim replaces `tokio` only for crates that name
//! `madsim-tokio` themselves, and `madsim-tokio` cannot be patched in for `tokio` (it is
//! another package, and it depends on `tokio`). This crate can: a user's
//! `[patch.crates-io]` points `tokio` here, every crate of the graph compiles against it,
//! and it is crates.io's tokio (1.54 and later, as the renamed `real`: Cargo.toml says how
//! cargo takes both) everywhere except where a simulation is running on the calling
//! thread: there the network, the timers and spawned tasks go to the
//! [`simulation::Simulator`] amnesia installs. The choice is made per call, so the same
//! binary runs amnesia's event engine, its real tier and madsim seeds.
//!
//! What is simulated: `net::{TcpStream, lookup_host}` (connect, read, write, readiness
//! and `try_` calls, addresses, `set_nodelay`, a stand-in file descriptor for socket
//! options), `time::{sleep, sleep_until, timeout, timeout_at, interval, interval_at}`,
//! `task::{spawn, spawn_blocking, JoinHandle, AbortHandle, JoinSet}` and
//! `runtime::Handle::{spawn, spawn_blocking}`. What refuses
//! inside a simulation, naming it: `fs` (every function, `File`, `OpenOptions`,
//! `DirBuilder`) and `process::Command` ([`simulation::refuse`]), a `TcpListener` and a
//! `TcpSocket` connect ([`simulation::unsupported`]). `io`'s extension traits are tokio's
//! but for their `bytes` buffers (see [`io`]). Everything else is tokio's own: `sync` and
//! `io` need no runtime; `signal`, `UdpSocket` and `Runtime::spawn` called inside a
//! simulation reach a runtime that is never driven.

pub use real::*;

pub mod io;
#[cfg(feature = "net")]
mod readiness;
pub mod simulation;

#[cfg(feature = "fs")]
pub mod fs;
#[cfg(feature = "net")]
pub mod net;
#[cfg(feature = "process")]
pub mod process;
#[cfg(feature = "rt")]
pub mod runtime;
#[cfg(feature = "rt")]
pub mod task;
#[cfg(feature = "time")]
pub mod time;

#[cfg(feature = "rt")]
pub use task::spawn;
