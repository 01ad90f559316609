//! `tokio` for a `--cfg madsim` build of amnesia's madsim engine.
//!
//! A store written without amnesia in mind calls `tokio::net::TcpStream::connect`,
//! `tokio::time::sleep` and `tokio::spawn` from inside its dependencies (the `redis` crate,
//! `backon`, `tokio-util`). madsim replaces `tokio` only for crates that name
//! `madsim-tokio` themselves, and `madsim-tokio` cannot be patched in for `tokio` (it is
//! another package, and it depends on `tokio`). This crate can: a user's
//! `[patch.crates-io]` points `tokio` here, every crate of the graph compiles against it,
//! and it is tokio 1.37 (as the renamed `madsim-real-tokio` package) everywhere except
//! where a simulation is running on the calling thread: there the network, the timers and
//! spawned tasks go to the [`simulation::Simulator`] amnesia installs. The choice is made
//! per call, so the same binary runs amnesia's event engine, its real tier and madsim seeds.
//!
//! What is simulated: `net::{TcpStream, lookup_host}` (connect, read, write, addresses,
//! `set_nodelay`), `time::{sleep, sleep_until, timeout, timeout_at, interval, interval_at}`
//! and `task::{spawn, spawn_blocking, JoinHandle, AbortHandle, JoinSet}`. Everything else is
//! tokio's own: `sync` and `io` need no runtime; a runtime-only API (`fs`, `process`,
//! `signal`, `UdpSocket`, a `TcpListener`) called inside a simulation fails as tokio does
//! without a runtime, or with [`simulation::unsupported`]'s error.

pub use real::*;

pub mod simulation;

#[cfg(feature = "net")]
pub mod net;
#[cfg(feature = "rt")]
pub mod task;
#[cfg(feature = "time")]
pub mod time;

#[cfg(feature = "rt")]
pub use task::spawn;
