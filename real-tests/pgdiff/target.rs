//! The servers a differential run compares: each hands out a fresh, empty database per
//! case or sequence. [`RealTarget`] is a local PostgreSQL process (a `CREATE DATABASE`
//! per case); [`SpawnTarget`] is any server started on a listener of its own per case
//! (the in-process PostgreSQL model: every `fresh` starts an empty one).

use super::wire::Wire;
#[cfg(feature = "real")]
use amnesia::internal::pgdiff::LocalPg;
use amnesia::internal::postgres::{PG_DATABASE, PG_USER};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where a fresh database is: the server's address and the database to name at startup.
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub address: SocketAddr,
    pub database: String,
}

/// A server the differential test sends steps to.
#[async_trait::async_trait]
pub trait Target: Send + Sync {
    /// How the report names it.
    fn name(&self) -> String;
    /// A fresh, empty database (no tables, sequences or locks of an earlier case).
    async fn fresh(&self) -> Result<Endpoint, String>;
    /// Give back a database `fresh` handed out, once its connections are closed: a long
    /// fuzzing run makes thousands (nothing to do by default).
    async fn discard(&self, _endpoint: &Endpoint) {}
}

/// A local PostgreSQL process (the real tier's process provider).
#[cfg(feature = "real")]
pub struct RealTarget {
    name: String,
    pg: LocalPg,
    databases: AtomicUsize,
}

#[cfg(feature = "real")]
impl RealTarget {
    /// Start one; fails when PostgreSQL is not installed (`AMNESIA_PG_BIN`).
    pub async fn start(name: &str) -> Result<RealTarget, String> {
        let pg = LocalPg::start().await.map_err(|e| e.to_string())?;
        Ok(RealTarget {
            name: name.to_string(),
            pg,
            databases: AtomicUsize::new(0),
        })
    }
}

#[cfg(feature = "real")]
#[async_trait::async_trait]
impl Target for RealTarget {
    fn name(&self) -> String {
        self.name.clone()
    }

    async fn fresh(&self) -> Result<Endpoint, String> {
        let database = format!("diff{}", self.databases.fetch_add(1, Ordering::Relaxed));
        let sql = format!("CREATE DATABASE {database} TEMPLATE template0");
        // A connection per creation: creations from template0 run side by side.
        let mut admin = Wire::connect(self.pg.address(), PG_USER, PG_DATABASE).await?;
        let reply = admin.simple(&sql).await?;
        if reply.summary() != "CREATE DATABASE" {
            return Err(format!("{}: {sql}: {reply}", self.name));
        }
        // A COMMIT that waits on a busy disk's fsync must not pass for a lock wait: the
        // database's sessions commit without waiting for the flush (nothing a step sees).
        let quick = format!("ALTER DATABASE {database} SET synchronous_commit = off");
        let reply = admin.simple(&quick).await?;
        if reply.summary() != "ALTER DATABASE" {
            return Err(format!("{}: {quick}: {reply}", self.name));
        }
        Ok(Endpoint {
            address: self.pg.address(),
            database,
        })
    }

    async fn discard(&self, endpoint: &Endpoint) {
        // FORCE: a connection the server has not yet seen closing must not keep it.
        let sql = format!("DROP DATABASE {} WITH (FORCE)", endpoint.database);
        if let Ok(mut admin) = Wire::connect(self.pg.address(), PG_USER, PG_DATABASE).await {
            let _ = admin.simple(&sql).await;
        }
    }
}

/// A server started per fresh database on a listener of 127.0.0.1 of its own.
#[allow(dead_code)] // `second_target()`'s for the PostgreSQL model
pub struct SpawnTarget {
    name: String,
    serve: Box<dyn Fn(tokio::net::TcpListener) + Send + Sync>,
}

#[allow(dead_code)]
impl SpawnTarget {
    /// `serve` starts serving the listener (spawning its task) and returns at once.
    pub fn new(
        name: &str,
        serve: impl Fn(tokio::net::TcpListener) + Send + Sync + 'static,
    ) -> Self {
        SpawnTarget {
            name: name.to_string(),
            serve: Box::new(serve),
        }
    }
}

#[async_trait::async_trait]
impl Target for SpawnTarget {
    fn name(&self) -> String {
        self.name.clone()
    }

    async fn fresh(&self) -> Result<Endpoint, String> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("{}: bind: {e}", self.name))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        (self.serve)(listener);
        Ok(Endpoint {
            address,
            database: PG_DATABASE.to_string(),
        })
    }
}
