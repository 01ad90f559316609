//! Redis as a local child process (`AMNESIA_REAL_PROVIDER=process`): the same flags as
//! the container, on a free port of 127.0.0.1, its data in a directory of its own. A kill
//! is SIGKILL, a pause SIGSTOP; a restart starts the binary again on the same directory
//! and port, so the append-only file is recovered as a container's would be.

use crate::real::server::{RealError, Server};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

/// A `redis-server` child process.
pub(crate) struct ProcessServer {
    binary: String,
    flags: Vec<String>,
    port: u16,
    dir: PathBuf,
    child: ChildSlot,
}

/// The child process of a local server, signalled alone or with its children (a server
/// whose workers are processes of their own: a pause stops them all, a kill kills them
/// all, as a container's would).
pub(crate) struct ChildSlot {
    child: Mutex<Option<Child>>,
    /// The program, for errors.
    name: &'static str,
    /// Signal the child's children too.
    group: bool,
}

impl ChildSlot {
    pub(crate) fn new(name: &'static str, group: bool) -> ChildSlot {
        ChildSlot {
            child: Mutex::new(None),
            name,
            group,
        }
    }

    /// The process started last.
    pub(crate) fn set(&self, child: Child) {
        *self.child.lock().expect("never poisoned") = Some(child);
    }

    fn send(&self, pid: u32, signal: Signal) -> nix::Result<()> {
        if self.group {
            crate::real::owner::signal_with_children(pid, signal)
        } else {
            kill(Pid::from_raw(pid as i32), signal)
        }
    }

    pub(crate) fn signal(&self, signal: Signal) -> Result<(), RealError> {
        let child = self.child.lock().expect("never poisoned");
        let Some(child) = child.as_ref() else {
            return Err(RealError::Server(format!("{} is not running", self.name)));
        };
        self.send(child.id(), signal)
            .map_err(|e| RealError::Server(format!("{signal} to {} failed: {e}", self.name)))
    }

    /// True while the process started last still runs.
    pub(crate) fn running(&self) -> bool {
        let mut child = self.child.lock().expect("never poisoned");
        child
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(None)))
    }

    /// Kill (group and all) and wait for the process, if one runs.
    pub(crate) fn reap(&self) {
        if let Some(mut child) = self.child.lock().expect("never poisoned").take() {
            let _ = self.send(child.id(), Signal::SIGKILL);
            let _ = child.wait();
        }
    }
}

impl ProcessServer {
    pub(crate) fn start(binary: &str, flags: &[String]) -> Result<ProcessServer, RealError> {
        let port = free_port()?;
        let dir = std::env::temp_dir().join(format!("amnesia-real-{}-{port}", std::process::id()));
        crate::real::owner::create_server_folder(&dir)
            .map_err(|e| RealError::Server(format!("cannot create {}: {e}", dir.display())))?;
        let server = ProcessServer {
            binary: binary.to_string(),
            flags: flags.to_vec(),
            port,
            dir,
            child: ChildSlot::new("redis-server", false),
        };
        server.spawn()?;
        Ok(server)
    }

    fn spawn(&self) -> Result<(), RealError> {
        let child = Command::new(&self.binary)
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--dir", &self.dir.to_string_lossy()])
            .args(&self.flags)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| missing(&self.binary, &e))?;
        crate::real::owner::record_server_pid(&self.dir, child.id());
        self.child.set(child);
        Ok(())
    }
}

fn missing(binary: &str, error: &dyn std::fmt::Display) -> RealError {
    RealError::Environment(format!(
        "cannot run {binary} ({error}): install redis-server (Debian: apt-get install \
         redis-server) or set AMNESIA_REDIS_SERVER"
    ))
}

/// `binary --version` runs.
pub(crate) fn check(binary: &str) -> Result<(), RealError> {
    let status = Command::new(binary)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| missing(binary, &e))?;
    if !status.success() {
        return Err(missing(binary, &format!("--version exited with {status}")));
    }
    Ok(())
}

/// A port of 127.0.0.1 free at this instant.
pub(crate) fn free_port() -> Result<u16, RealError> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|e| RealError::Environment(format!("no free port on 127.0.0.1: {e}")))
}

#[async_trait::async_trait]
impl Server for ProcessServer {
    async fn address(&self) -> Result<SocketAddr, RealError> {
        Ok(SocketAddr::from(([127, 0, 0, 1], self.port)))
    }

    async fn kill(&self) -> Result<(), RealError> {
        self.child.signal(Signal::SIGKILL)?;
        self.child.reap();
        Ok(())
    }

    async fn start_again(&self) -> Result<(), RealError> {
        self.spawn()
    }

    async fn set_paused(&self, paused: bool) -> Result<(), RealError> {
        self.child.signal(if paused {
            Signal::SIGSTOP
        } else {
            Signal::SIGCONT
        })
    }

    async fn remove(&self) {
        self.child.reap();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for ProcessServer {
    fn drop(&mut self) {
        self.child.reap();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
