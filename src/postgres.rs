//! How a store reaches PostgreSQL without knowing where it runs: the [`PgConnector`]
//! dials a byte stream through the run's [`Dialer`] (the real tier's fault proxy), runs
//! tokio-postgres's handshake over it, and keeps a few idle connections for the next
//! operations. Each operation has a connection of its own while it runs, so a
//! transaction's statements never interleave with another task's: one closure's worth
//! ([`PgConnector::run`]), or as long as the store keeps the handle ([`PgConnector::get`],
//! a [`PgClient`], as a pool's connection).

use crate::connect::{ConnectorConfig, Dialer, StoreError};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

/// The role every amnesia PostgreSQL server has (`initdb -U`, trust authentication).
pub const PG_USER: &str = "amnesia";
/// The database the stores use: the one `initdb` creates.
pub const PG_DATABASE: &str = "postgres";
/// Idle connections kept for reuse; more are opened when operations overlap.
const IDLE_CONNECTIONS_MAX: usize = 4;

/// What a [`PgConnector::run`] operation returns: a future borrowing its connection.
pub type PgFuture<'c, T> =
    Pin<Box<dyn Future<Output = Result<T, tokio_postgres::Error>> + Send + 'c>>;

/// Hands out PostgreSQL connections to the server under test, reconnecting after a
/// failure that may have broken one.
///
/// ```no_run
/// # async fn demo(pg: &amnesia::PgConnector) -> Result<(), amnesia::StoreError> {
/// let rows: i64 = pg
///     .run(|client| Box::pin(async move {
///         let row = client.query_one("SELECT count(*) FROM pg_class", &[]).await?;
///         Ok(row.get(0))
///     }))
///     .await?;
/// assert!(rows > 0);
/// # Ok(()) }
/// ```
pub struct PgConnector {
    dialer: Arc<dyn Dialer>,
    config: ConnectorConfig,
    idle: Arc<Idle>,
}

/// The connections waiting for the next operation, shared with the handles out.
type Idle = Mutex<Vec<Pooled>>;

/// A connection of the store's own until it drops it, as a pool's: it derefs to
/// [`tokio_postgres::Client`], so a transaction may span the store's awaits and the
/// handle may move into a spawned task (a commit placed where the store places it).
/// Dropped, it goes back to its connector for the next operation unless it closed;
/// [`PgClient::discard`] closes it instead (after a call the store gave up on: its reply
/// is still owed). Its connection runs through the world's links like every other, so the
/// plan's faults strike it; it has no response timeout of its own: a store bounds its
/// calls as it would in production (`tokio::time::timeout` runs on virtual time here).
///
/// ```no_run
/// # async fn demo(pg: std::sync::Arc<amnesia::PgConnector>) -> Result<(), amnesia::StoreError> {
/// let mut client = pg.get().await?;
/// let commit = tokio::spawn(async move {
///     let tx = client.transaction().await?;
///     tx.execute("INSERT INTO notes VALUES ($1)", &[&"hello"]).await?;
///     tx.commit().await
/// });
/// commit.await.expect("the task ran")?; // a tokio-postgres error is a StoreError by `?`
/// # Ok(()) }
/// ```
pub struct PgClient {
    pooled: Option<Pooled>,
    home: std::sync::Weak<Idle>,
}

impl std::ops::Deref for PgClient {
    type Target = tokio_postgres::Client;
    fn deref(&self) -> &tokio_postgres::Client {
        &self.pooled.as_ref().expect("held until dropped").client
    }
}

impl std::ops::DerefMut for PgClient {
    fn deref_mut(&mut self) -> &mut tokio_postgres::Client {
        &mut self.pooled.as_mut().expect("held until dropped").client
    }
}

impl PgClient {
    /// Close the connection instead of handing it back: after a call the store timed out
    /// (a black-holed connection does not recover by itself) or any doubt about its state.
    pub fn discard(mut self) {
        self.pooled.take();
    }
}

impl Drop for PgClient {
    fn drop(&mut self) {
        let (Some(pooled), Some(idle)) = (self.pooled.take(), self.home.upgrade()) else {
            return;
        };
        if !pooled.client.is_closed() {
            give_back(&idle, pooled);
        }
    }
}

impl std::fmt::Debug for PgClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgClient").finish_non_exhaustive()
    }
}

/// A connection: its client, and the task that drives its socket. tokio-postgres keeps
/// that task (and the socket) alive while a response is owed, even after the client is
/// dropped; a connection given up on is closed by aborting it, as a pool closes a broken
/// connection, so the server sees it end and rolls back what it left open.
struct Pooled {
    client: tokio_postgres::Client,
    socket: tokio::task::AbortHandle,
}

impl Drop for Pooled {
    fn drop(&mut self) {
        self.socket.abort();
    }
}

impl PgConnector {
    /// A connector that dials through `dialer`, with `config`'s timeouts; nothing is
    /// dialed until the first operation.
    pub fn new(dialer: Arc<dyn Dialer>, config: ConnectorConfig) -> PgConnector {
        PgConnector {
            dialer,
            config,
            idle: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// A connection of the store's own, kept as long as the store holds the handle: an
    /// idle one, or a new one dialed within the connect timeout. For a transaction that
    /// spans the store's own awaits or a spawned task; [`PgConnector::run`] for one
    /// closure's worth.
    pub async fn get(&self) -> Result<PgClient, StoreError> {
        let pooled = self.take().await?;
        Ok(PgClient {
            pooled: Some(pooled),
            home: Arc::downgrade(&self.idle),
        })
    }

    /// Run `operation` on a connection of its own and classify its failure. A connection
    /// that failed or timed out is closed, never reused: a black-holed stream does not
    /// recover by itself; after a timeout the idle ones are closed too.
    pub async fn run<T, F>(&self, operation: F) -> Result<T, StoreError>
    where
        F: for<'c> FnOnce(&'c mut tokio_postgres::Client) -> PgFuture<'c, T>,
    {
        let mut pooled = self.take().await?;
        let outcome =
            tokio::time::timeout(self.config.response_timeout, operation(&mut pooled.client)).await;
        match outcome {
            Ok(Ok(value)) => {
                self.give_back(pooled);
                Ok(value)
            }
            Ok(Err(error)) => {
                let failure = classify(&error);
                if !failure.is_indeterminate() && !pooled.client.is_closed() {
                    self.give_back(pooled);
                }
                Err(failure)
            }
            Err(_) => {
                // A path that swallowed one connection's reply most likely swallowed its
                // idle siblings' too (a NAT forgets every flow of the host): each would
                // cost the next operations a timeout of their own.
                self.idle.lock().expect("never poisoned").clear();
                Err(StoreError::Timeout)
            }
        }
    }

    async fn take(&self) -> Result<Pooled, StoreError> {
        loop {
            let idle = self.idle.lock().expect("never poisoned").pop();
            match idle {
                Some(pooled) if !pooled.client.is_closed() => return Ok(pooled),
                Some(_) => continue,
                None => return self.open().await,
            }
        }
    }

    fn give_back(&self, pooled: Pooled) {
        give_back(&self.idle, pooled);
    }

    async fn open(&self) -> Result<Pooled, StoreError> {
        let handshake = async {
            let stream = self
                .dialer
                .dial()
                .await
                .map_err(|e| StoreError::Unavailable(e.to_string()))?;
            let mut config = tokio_postgres::Config::new();
            config.user(PG_USER).dbname(PG_DATABASE);
            config
                .connect_raw(stream, tokio_postgres::NoTls)
                .await
                .map_err(|e| StoreError::Unavailable(e.to_string()))
        };
        match tokio::time::timeout(self.config.connect_timeout, handshake).await {
            Ok(Ok((client, connection))) => {
                let socket = tokio::spawn(connection).abort_handle();
                Ok(Pooled { client, socket })
            }
            Ok(Err(error)) => Err(error),
            Err(_) => Err(StoreError::Unavailable("connect timed out".into())),
        }
    }
}

/// Keep `pooled` for the next operation, unless enough are idle (it closes).
fn give_back(idle: &Idle, pooled: Pooled) {
    let mut idle = idle.lock().expect("never poisoned");
    if idle.len() < IDLE_CONNECTIONS_MAX {
        idle.push(pooled);
    }
}

/// A tokio-postgres error as a store failure. A statement the server rejected was not
/// applied ([`StoreError::Server`] carries any server's error reply); a broken connection,
/// or a server shutting down or starting (SQLSTATE classes 08 and 57), leaves the outcome
/// unknown.
pub fn classify(error: &tokio_postgres::Error) -> StoreError {
    match error.as_db_error() {
        Some(db) if !is_connection_class(db.code().code()) => {
            StoreError::Server(format!("postgres: {}", db.message()))
        }
        _ => StoreError::ConnectionLost(error.to_string()),
    }
}

/// `?` on a tokio-postgres call in a store's method: [`classify`].
impl From<tokio_postgres::Error> for StoreError {
    fn from(error: tokio_postgres::Error) -> StoreError {
        classify(&error)
    }
}

fn is_connection_class(sqlstate: &str) -> bool {
    sqlstate.starts_with("08") || sqlstate.starts_with("57")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_and_operator_classes_are_indeterminate() {
        assert!(is_connection_class("08006"));
        assert!(is_connection_class("57P01"));
        assert!(!is_connection_class("23505"));
        assert!(!is_connection_class("42P01"));
    }
}
