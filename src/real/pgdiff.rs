//! A local PostgreSQL server for the PostgreSQL differential test
//! (`real-tests/pg_differential.rs`): the real tier's process provider (`initdb` and
//! `postgres` from `AMNESIA_PG_BIN`, run as an unprivileged user when amnesia runs as
//! root), started and ready on a free port of 127.0.0.1, removed with its data directory
//! when dropped.

use crate::real::pg::{bin_from_env, PgProcessServer};
use crate::real::server::{wait_ready, RealError, Server};
use crate::Backend;
use std::net::SocketAddr;

/// A running PostgreSQL process of the real tier's process provider; dropping it stops
/// the process and removes its data directory. Connect as
/// [`PG_USER`](crate::postgres::PG_USER) (trust authentication).
pub struct LocalPg {
    /// Held: dropping it stops the process and removes its data directory.
    _server: PgProcessServer,
    address: SocketAddr,
}

impl LocalPg {
    /// `initdb` a fresh data directory, start `postgres` and wait until it answers
    /// `SELECT 1`. Fails with [`RealError::Environment`] when PostgreSQL is not installed.
    pub async fn start() -> Result<LocalPg, RealError> {
        let server = PgProcessServer::start(&bin_from_env())?;
        wait_ready(&server, Backend::Pgvector).await?;
        let address = server.address().await?;
        Ok(LocalPg {
            _server: server,
            address,
        })
    }

    /// Where it listens: 127.0.0.1 and its port.
    pub fn address(&self) -> SocketAddr {
        self.address
    }
}
