//! How a store reaches PostgreSQL without knowing where it runs: the [`PgConnector`]
//! dials a byte stream through the run's [`Dialer`] (the real tier's fault proxy), runs
//! tokio-postgres's handshake over it, and keeps a few idle connections for the next
//! operations. Each operation has a connection of its own while it runs, so a
//! transaction's statements never interleave with another task's.

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
    idle: Mutex<Vec<Pooled>>,
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
            idle: Mutex::new(Vec::new()),
        }
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
        let mut idle = self.idle.lock().expect("never poisoned");
        if idle.len() < IDLE_CONNECTIONS_MAX {
            idle.push(pooled);
        }
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
