//! How a store reaches Redis without knowing which tier or engine it runs in.
//!
//! A [`Dialer`] opens a raw byte stream to the Redis node: an in-memory stream through the
//! simulator's in-memory network, or a TCP socket in the real tier. The [`Connector`] turns that
//! stream into a real `redis::aio::MultiplexedConnection` (spawning its driver), keeps it,
//! and replaces it after a timeout or a broken stream: a black-holed connection never
//! recovers by itself, so the connector must not wait for it to.
//!
//! The [`StoreError`]s of the store contract live here, with [`classify`]: the connectors
//! produce them, and the contract (whose [`StoreContext`](crate::StoreContext) holds the
//! connectors) re-exports them.

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
    /// `false`: a reply is awaited forever (only a catalogue variant's bug).
    times_out_replies: bool,
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
            times_out_replies: true,
            current: Mutex::new(None),
        }
    }

    /// A connector to the same server whose connections wait for a reply forever (as a
    /// `redis::aio::ConnectionManager` at its default config did until redis 0.29): a
    /// connection a NAT dropped without a word never fails a call, it hangs it. The
    /// `no-response-timeout` variant's bug.
    pub(crate) fn without_response_timeout(&self) -> Connector {
        Connector {
            times_out_replies: false,
            ..Connector::new(self.dialer.clone(), self.info.clone(), self.config)
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
        let response_timeout = self
            .times_out_replies
            .then_some(self.config.response_timeout);
        let config = redis::AsyncConnectionConfig::new().set_response_timeout(response_timeout);
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

/// Why a store operation did not succeed. `Timeout` and `ConnectionLost` leave the outcome
/// unknown (the write may or may not have been applied); the others mean it was not.
///
/// The variant is what the checker believes, so choose it by what may have happened, not
/// by the library's wording: a `redis::RedisError` goes through [`crate::connect::classify`]
/// (which [`crate::Connector::run`] applies for you); a library that hands back only text
/// maps its own cases: a deadline passed → `Timeout`, the connection dropped mid-request →
/// `ConnectionLost`, Redis answered an error → `Redis`. Calling a definite failure unknown
/// only makes the checker more lenient; calling an unknown one definite makes it report
/// writes that did land as `failed-append-visible` information.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// No reply in time: the outcome is unknown.
    #[error("timed out")]
    Timeout,
    /// The connection broke before the reply: the outcome is unknown.
    #[error("connection lost: {0}")]
    ConnectionLost(String),
    /// No connection could be opened: nothing was sent.
    #[error("could not connect: {0}")]
    Unavailable(String),
    /// The server (Redis or PostgreSQL) answered with an error reply, or the store read
    /// back data it cannot use: not applied. (Named `Redis` before the pgvector backend;
    /// its text still says `redis error`, which recorded traces and reviewed snapshots
    /// hold.)
    #[error("redis error: {0}")]
    Server(String),
    /// The store does not offer this optional capability.
    #[error("not supported by this store")]
    Unsupported,
}

impl StoreError {
    /// True when the operation may have been applied although it reported failure.
    pub fn is_indeterminate(&self) -> bool {
        matches!(self, StoreError::Timeout | StoreError::ConnectionLost(_))
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
        StoreError::Server(error.to_string())
    }
}
