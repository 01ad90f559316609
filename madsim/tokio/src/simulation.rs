//! The seam a simulator plugs into: [`install`] once per process, then every simulated
//! item asks [`current`] whether the calling thread is inside a simulation.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

/// A boxed future a simulator runs or returns.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A byte stream of the simulated network.
pub trait SimStream: crate::io::AsyncRead + crate::io::AsyncWrite + Send + Sync + Unpin {
    /// The stream's own address.
    fn local_addr(&self) -> io::Result<SocketAddr>;
    /// The address the stream is connected to.
    fn peer_addr(&self) -> io::Result<SocketAddr>;
}

/// A task running on the simulator's executor.
pub trait SimTask: Send + Sync {
    /// Cancel the task: it is dropped at its next poll and never polled again.
    fn abort(&self);
    /// Whether the task has finished (completed or aborted).
    fn is_finished(&self) -> bool;
}

/// What a simulator provides in place of tokio's runtime.
pub trait Simulator: Send + Sync + 'static {
    /// Whether the calling thread runs inside a simulation right now.
    fn active(&self) -> bool;
    /// Run `task` on the simulation's executor.
    fn spawn(&self, task: BoxFuture<()>) -> Arc<dyn SimTask>;
    /// A future that completes at `deadline` of the simulation's clock (which is the
    /// clock `std::time::Instant::now()` reads inside it).
    fn sleep_until(&self, deadline: std::time::Instant) -> BoxFuture<()>;
    /// The addresses `host` resolves to inside the simulation.
    fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<SocketAddr>>;
    /// Open a stream to `addr` on the simulated network.
    fn connect(&self, addr: SocketAddr) -> BoxFuture<io::Result<Box<dyn SimStream>>>;
}

static SIMULATOR: OnceLock<&'static dyn Simulator> = OnceLock::new();

/// Install the process's simulator; `false` if one was installed already (the first stays).
pub fn install(simulator: &'static dyn Simulator) -> bool {
    SIMULATOR.set(simulator).is_ok()
}

/// The simulator, when the calling thread is inside a simulation.
pub fn current() -> Option<&'static dyn Simulator> {
    SIMULATOR
        .get()
        .copied()
        .filter(|simulator| simulator.active())
}

/// The error of an API a simulation does not provide.
pub fn unsupported(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("{what} is not simulated by amnesia's madsim engine (docs/madsim.md)"),
    )
}

/// `Ok` outside a simulation; inside one, the error of a call it cannot answer
/// deterministically (files, processes: tokio runs them on real threads, on state no seed
/// decides), naming the call and the simulation.
pub fn refuse(what: &str) -> io::Result<()> {
    match current() {
        None => Ok(()),
        Some(_) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "{what} called inside a simulation: amnesia's madsim engine runs no files or \
                 processes (docs/madsim.md)"
            ),
        )),
    }
}
