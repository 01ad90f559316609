//! Where the real tier's Redis runs: a container (testcontainers) or a local process, and
//! what the fault schedule does to it (kill, start, pause). Both run the same
//! `redis-server` flags, the plan's persistence among them.

use crate::contract::Backend;
use crate::domain::Persistence;
use crate::real::docker::{ContainerSpec, DockerServer};
use std::net::SocketAddr;
use std::time::Duration;

/// The port Redis listens on inside its container.
pub const REDIS_PORT: u16 = 6379;
/// How long a started server may take to answer `PING`.
const READY_MS_MAX: u64 = 20_000;

/// A failure of the real tier, by what the user must do about it.
#[derive(Debug, thiserror::Error)]
pub enum RealError {
    /// Something the real tier needs is not installed or not running (exit 4).
    #[error("{0}")]
    Environment(String),
    /// The server did not do what it was asked (start, stop, pause).
    #[error("{0}")]
    Server(String),
    /// The plan asks for what the real tier does not reproduce (exit 2).
    #[error("{0}")]
    Unsupported(String),
}

/// What runs Redis for the real tier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provider {
    /// A container of `image` on the local Docker engine, through testcontainers; its
    /// port published on 127.0.0.1 only.
    Docker {
        /// `name:tag`, from `AMNESIA_REDIS_IMAGE` (default [`DEFAULT_IMAGE`]).
        image: String,
    },
    /// A `redis-server` child process on 127.0.0.1 (`AMNESIA_REAL_PROVIDER=process`).
    Process {
        /// The binary, from `AMNESIA_REDIS_SERVER` (default `redis-server` on `PATH`).
        binary: String,
    },
}

/// The image the Docker provider runs unless `AMNESIA_REDIS_IMAGE` names another: the
/// local, offline build of the host's `redis-server` that `docker/build-redis-image.sh`
/// makes (as `scripts/setup` does), like the pgvector image. A registry image (the
/// official `redis:7.0.15`, the version the model mirrors) only when asked for by name.
pub const DEFAULT_IMAGE: &str = "amnesia-redis:local";

impl Provider {
    /// The provider the environment asks for: `AMNESIA_REAL_PROVIDER` = `docker`
    /// (default) or `process`.
    ///
    /// ```
    /// use amnesia::real::Provider;
    /// assert!(matches!(Provider::parse("process", None, None), Ok(Provider::Process { .. })));
    /// assert!(Provider::parse("podman", None, None).is_err());
    /// ```
    pub fn from_env() -> Result<Provider, RealError> {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        let kind = var("AMNESIA_REAL_PROVIDER").unwrap_or_else(|| "docker".into());
        Provider::parse(
            &kind,
            var("AMNESIA_REDIS_IMAGE"),
            var("AMNESIA_REDIS_SERVER"),
        )
    }

    /// A provider by name, with its image or binary (defaults where `None`).
    pub fn parse(
        kind: &str,
        image: Option<String>,
        binary: Option<String>,
    ) -> Result<Provider, RealError> {
        match kind {
            "docker" => Ok(Provider::Docker {
                image: image.unwrap_or_else(|| DEFAULT_IMAGE.into()),
            }),
            "process" => Ok(Provider::Process {
                binary: binary.unwrap_or_else(|| "redis-server".into()),
            }),
            other => Err(RealError::Environment(format!(
                "unknown AMNESIA_REAL_PROVIDER '{other}' (known: docker, process)"
            ))),
        }
    }

    /// `docker amnesia-redis:local` or `process redis-server` (for pgvector, the
    /// PostgreSQL image or binaries), for reports.
    pub fn describe(&self, backend: Backend) -> String {
        let servers = backend.servers().iter();
        servers
            .map(|&server| self.describe_one(server))
            .collect::<Vec<_>>()
            .join(" + ")
    }

    fn describe_one(&self, backend: Backend) -> String {
        match (self, backend) {
            (Provider::Docker { image }, Backend::Redis) => format!("docker {image}"),
            (Provider::Process { binary }, Backend::Redis) => format!("process {binary}"),
            (Provider::Docker { .. }, Backend::Pgvector) => {
                format!("docker {}", crate::real::pg::image_from_env())
            }
            (Provider::Process { .. }, Backend::Pgvector) => {
                let bin = crate::real::pg::bin_from_env();
                format!("process {}", bin.join("postgres").display())
            }
            (_, Backend::RedisThenPgvector) => unreachable!("described server by server"),
        }
    }

    /// What the provider needs for `backend` is there: a Docker engine with the image, or
    /// the binaries. Every failure is one line naming what to install or set.
    pub fn check(&self, backend: Backend) -> Result<(), RealError> {
        backend
            .servers()
            .iter()
            .try_for_each(|&server| self.check_one(server))
    }

    fn check_one(&self, backend: Backend) -> Result<(), RealError> {
        match (self, backend) {
            (_, Backend::RedisThenPgvector) => unreachable!("checked server by server"),
            (Provider::Docker { image }, _) => {
                let (image, hint) = match backend {
                    Backend::Redis | Backend::RedisThenPgvector => {
                        (image.clone(), REDIS_BUILD_HINT)
                    }
                    Backend::Pgvector => {
                        let image = crate::real::pg::image_from_env();
                        (image, crate::real::pg::container_spec("").build_hint)
                    }
                };
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| RealError::Environment(format!("cannot build a runtime: {e}")))?
                    .block_on(crate::real::docker::preflight(&image, hint))
                    .map(|_| ())
            }
            (Provider::Process { binary }, Backend::Redis) => crate::real::process::check(binary),
            (Provider::Process { .. }, Backend::Pgvector) => {
                crate::real::pg::check(&crate::real::pg::bin_from_env())
            }
        }
    }

    /// Start a `backend` server (Redis with `persistence`); it answers when this returns.
    pub(crate) async fn start(
        &self,
        backend: Backend,
        persistence: Persistence,
    ) -> Result<Box<dyn Server>, RealError> {
        // What runs killed by SIGKILL left: their local servers and folders (a container
        // start sweeps containers too).
        crate::real::owner::remove_local(crate::real::owner::Whose::Dead);
        let server: Box<dyn Server> = match (self, backend) {
            (Provider::Docker { image }, Backend::Redis) => {
                let mut cmd = ["--bind", "0.0.0.0", "--protected-mode", "no"]
                    .map(String::from)
                    .to_vec();
                cmd.extend(server_flags(persistence));
                let spec = ContainerSpec {
                    image,
                    port: REDIS_PORT,
                    cmd,
                    ready_line: "Ready to accept connections",
                    ready_on_stderr: false,
                    build_hint: REDIS_BUILD_HINT,
                };
                Box::new(DockerServer::start(spec).await?)
            }
            (Provider::Process { binary }, Backend::Redis) => Box::new(
                crate::real::process::ProcessServer::start(binary, &server_flags(persistence))?,
            ),
            (Provider::Docker { .. }, Backend::Pgvector) => {
                let image = crate::real::pg::image_from_env();
                Box::new(DockerServer::start(crate::real::pg::container_spec(&image)).await?)
            }
            (Provider::Process { .. }, Backend::Pgvector) => Box::new(
                crate::real::pg::PgProcessServer::start(&crate::real::pg::bin_from_env())?,
            ),
            (_, Backend::RedisThenPgvector) => {
                return Err(RealError::Server(
                    "a migration run starts its servers one by one".into(),
                ))
            }
        };
        wait_ready(server.as_ref(), backend).await?;
        Ok(server)
    }
}

const REDIS_BUILD_HINT: &str = "build it offline with docker/build-redis-image.sh (or \
                                scripts/setup), or name another in AMNESIA_REDIS_IMAGE";

/// The `redis-server` flags of a run: no RDB snapshots (a restart keeps exactly what the
/// plan's persistence keeps), and the append-only file as the plan says.
pub fn server_flags(persistence: Persistence) -> Vec<String> {
    let mut flags = vec!["--save".to_string(), String::new()];
    let aof: &[&str] = match persistence {
        Persistence::None => &["--appendonly", "no"],
        Persistence::AofEverysec => &["--appendonly", "yes", "--appendfsync", "everysec"],
        Persistence::AofAlways => &["--appendonly", "yes", "--appendfsync", "always"],
    };
    flags.extend(aof.iter().map(|flag| flag.to_string()));
    flags
}

/// A running (or killed) Redis server of the real tier.
#[async_trait::async_trait]
pub(crate) trait Server: Send + Sync {
    /// Where it listens now on 127.0.0.1 (a restarted container may get a new port).
    async fn address(&self) -> Result<SocketAddr, RealError>;
    /// The process dies at once (SIGKILL): no shutdown, no final fsync.
    async fn kill(&self) -> Result<(), RealError>;
    /// Start the killed process again on the same data directory.
    async fn start_again(&self) -> Result<(), RealError>;
    /// Freeze (`docker pause`, SIGSTOP) or thaw the process.
    async fn set_paused(&self, paused: bool) -> Result<(), RealError>;
    /// Stop and remove it, its data included.
    async fn remove(&self);
}

/// Wait until the server answers (`PING`, `SELECT 1`), bounded by [`READY_MS_MAX`].
pub(crate) async fn wait_ready(server: &dyn Server, backend: Backend) -> Result<(), RealError> {
    let deadline = tokio::time::Instant::now() + Duration::from_millis(READY_MS_MAX);
    let mut last = String::from("no answer");
    while tokio::time::Instant::now() < deadline {
        let answer = match backend {
            Backend::Redis | Backend::RedisThenPgvector => ping(server).await,
            Backend::Pgvector => match server.address().await {
                Ok(address) => crate::real::pg::ping(address).await,
                Err(error) => Err(error.to_string()),
            },
        };
        match answer {
            Ok(()) => return Ok(()),
            Err(error) => last = error,
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err(RealError::Server(format!(
        "{} did not answer within {READY_MS_MAX} ms: {last}",
        backend.name()
    )))
}

async fn ping(server: &dyn Server) -> Result<(), String> {
    let mut connection = connect(server).await?;
    redis::cmd("PING")
        .query_async::<String>(&mut connection)
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A direct connection to the server (not through the proxy), for the harness itself.
pub(crate) async fn connect(
    server: &dyn Server,
) -> Result<redis::aio::MultiplexedConnection, String> {
    let address = server.address().await.map_err(|e| e.to_string())?;
    let stream = tokio::net::TcpStream::connect(address)
        .await
        .map_err(|e| e.to_string())?;
    let config = redis::AsyncConnectionConfig::new()
        .set_response_timeout(Some(Duration::from_millis(2_000)));
    let (connection, driver) = redis::aio::MultiplexedConnection::new_with_config(
        &redis::RedisConnectionInfo::default(),
        stream,
        config,
    )
    .await
    .map_err(|e| e.to_string())?;
    tokio::spawn(driver);
    Ok(connection)
}
