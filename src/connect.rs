//! How a store reaches Redis without knowing which tier or engine it runs in.
//!
//! A [`Dialer`] opens a raw byte stream to the Redis node: an in-memory stream through the
//! simulator's in-memory network, or a TCP socket in the real tier. The [`Connector`] turns that
//! stream into a real `redis::aio::MultiplexedConnection` (spawning its driver), keeps it,
//! and replaces it after a timeout or a broken stream: a black-holed connection never
//! recovers by itself, so the connector must not wait for it to.

use crate::contract::StoreError;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

/// A byte stream to a Redis node.
pub trait Stream: AsyncRead + AsyncWrite + Send + Unpin + 'static {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Stream for T {}

/// An owned, type-erased stream, as a dialer hands it out.
pub type BoxStream = Box<dyn Stream>;
/// What [`Dialer::dial`] returns: a future of a new stream.
pub type DialFuture<'a> = Pin<Box<dyn Future<Output = std::io::Result<BoxStream>> + Send + 'a>>;

/// Opens new byte streams to the Redis node.
pub trait Dialer: Send + Sync {
    /// Opens one new stream to the Redis node; an error fails the connect.
    fn dial(&self) -> DialFuture<'_>;
}

/// Timeouts of a connector; virtual time inside a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectorConfig {
    /// A command without a reply after this long fails with an unknown outcome. The redis
    /// crate's 500 ms default is too short for latency tails; set it deliberately.
    pub response_timeout: Duration,
    /// Dialing plus the handshake must finish within this.
    pub connect_timeout: Duration,
}

impl Default for ConnectorConfig {
    fn default() -> Self {
        Self {
            response_timeout: Duration::from_millis(2_000),
            connect_timeout: Duration::from_millis(1_000),
        }
    }
}

/// Hands out a live `MultiplexedConnection`, reconnecting when the last one broke.
pub struct Connector {
    dialer: Arc<dyn Dialer>,
    info: redis::RedisConnectionInfo,
    config: ConnectorConfig,
    current: Mutex<Option<Live>>,
}

/// A connection and whether its driver still runs: once the stream is closed (a reset, a
/// crashed server) the driver ends, and the next caller dials instead of failing on it.
struct Live {
    connection: redis::aio::MultiplexedConnection,
    driver_running: Arc<AtomicBool>,
}

impl Connector {
    /// A connector that dials through `dialer` and handshakes with `info` (database,
    /// credentials, protocol); nothing is dialed until the first connection is asked for.
    pub fn new(
        dialer: Arc<dyn Dialer>,
        info: redis::RedisConnectionInfo,
        config: ConnectorConfig,
    ) -> Self {
        Self {
            dialer,
            info,
            config,
            current: Mutex::new(None),
        }
    }

    /// The current connection, or a new one.
    pub async fn connection(&self) -> Result<redis::aio::MultiplexedConnection, StoreError> {
        if let Some(live) = self.current.lock().expect("never poisoned").as_ref() {
            if live.driver_running.load(Ordering::Relaxed) {
                return Ok(live.connection.clone());
            }
        }
        let live = self.open().await?;
        let connection = live.connection.clone();
        *self.current.lock().expect("never poisoned") = Some(live);
        Ok(connection)
    }

    /// A connection of its own, for state that belongs to one connection (`WATCH` …
    /// `EXEC`, `SELECT`): on the shared one, other tasks' commands interleave, and another
    /// task's `EXEC` would clear this task's `WATCH`. Closed when the last clone drops.
    pub async fn dedicated(&self) -> Result<redis::aio::MultiplexedConnection, StoreError> {
        Ok(self.open().await?.connection)
    }

    async fn open(&self) -> Result<Live, StoreError> {
        let config = redis::AsyncConnectionConfig::new()
            .set_response_timeout(Some(self.config.response_timeout));
        let handshake = async {
            let stream = self
                .dialer
                .dial()
                .await
                .map_err(|e| StoreError::Unavailable(e.to_string()))?;
            redis::aio::MultiplexedConnection::new_with_config(&self.info, stream, config)
                .await
                .map_err(|e| StoreError::Unavailable(e.to_string()))
        };
        match tokio::time::timeout(self.config.connect_timeout, handshake).await {
            Ok(Ok((connection, driver))) => {
                let driver_running = Arc::new(AtomicBool::new(true));
                let running = driver_running.clone();
                crate::task::spawn(async move {
                    driver.await;
                    running.store(false, Ordering::Relaxed);
                });
                Ok(Live {
                    connection,
                    driver_running,
                })
            }
            Ok(Err(error)) => Err(error),
            Err(_) => Err(StoreError::Unavailable("connect timed out".into())),
        }
    }

    /// Forget the current connection so the next call dials anew.
    pub fn discard(&self) {
        *self.current.lock().expect("never poisoned") = None;
    }

    /// Run `command` on a live connection and classify its failure. A failure that may
    /// leave the connection unusable (timeout, broken stream) discards it.
    pub async fn run<T, F, Fut>(&self, command: F) -> Result<T, StoreError>
    where
        F: FnOnce(redis::aio::MultiplexedConnection) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        let connection = self.connection().await?;
        command(connection).await.map_err(|error| {
            let failure = classify(&error);
            if failure.is_indeterminate() {
                self.discard();
            }
            failure
        })
    }

    /// [`Connector::run`] on a [`Connector::dedicated`] connection, closed afterwards.
    pub async fn run_dedicated<T, F, Fut>(&self, command: F) -> Result<T, StoreError>
    where
        F: FnOnce(redis::aio::MultiplexedConnection) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        let connection = self.dedicated().await?;
        command(connection).await.map_err(|error| classify(&error))
    }
}

/// A redis error as a store failure: timeouts and broken connections leave the outcome
/// unknown; an error reply means the command was not applied.
pub fn classify(error: &redis::RedisError) -> StoreError {
    if error.is_timeout() {
        StoreError::Timeout
    } else if error.is_io_error() || error.is_connection_dropped() || error.is_unrecoverable_error()
    {
        StoreError::ConnectionLost(error.to_string())
    } else {
        StoreError::Redis(error.to_string())
    }
}

/// The connectors of one client process: `first` reaches the run's first server (Redis,
/// or PostgreSQL in a pgvector run, where the Redis connector reaches nothing);
/// `postgres`, a PostgreSQL beside a Redis one.
pub(crate) fn connectors(
    (backend, first): (crate::contract::Backend, Arc<dyn Dialer>),
    postgres: Option<Arc<dyn Dialer>>,
    config: ConnectorConfig,
) -> (Arc<Connector>, Option<Arc<crate::postgres::PgConnector>>) {
    let (redis, postgres) = match backend {
        crate::contract::Backend::Pgvector => (Arc::new(NoRedis) as Arc<dyn Dialer>, Some(first)),
        _ => (first, postgres),
    };
    #[cfg(feature = "real")]
    let postgres =
        postgres.map(|dialer| Arc::new(crate::postgres::PgConnector::new(dialer, config)));
    // Only the real tier runs a PostgreSQL, and a build without it has none to dial.
    #[cfg(not(feature = "real"))]
    let postgres = postgres.and(None);
    let info = redis::RedisConnectionInfo::default();
    (Arc::new(Connector::new(redis, info, config)), postgres)
}

/// The Redis dialer of a run without Redis: every connect fails as unavailable.
pub(crate) struct NoRedis;

impl Dialer for NoRedis {
    fn dial(&self) -> DialFuture<'_> {
        Box::pin(async {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "this run has no Redis (backend pgvector)",
            ))
        })
    }
}
