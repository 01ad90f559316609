//! The team's pgvector memory store on sqlx 0.8: a lazily connected `PgPool` opened from a
//! URL, every call a statement of [`crate::pg_schema`] bound and run on the pool, the
//! embeddings through pgvector's sqlx types. Nothing in it knows amnesia:
//! `tests/pgvector.rs` adapts it to amnesia's contract and sweeps it on the madsim engine.

use crate::pg_schema::{self, timed, Failure, StoredMemory, StoredMessage};
use pgvector::Vector;
use sqlx::postgres::{PgPool, PgPoolOptions, PgRow};
use sqlx::Row;
use std::time::Duration;

/// How long a pooled connection may take to answer the pool's ping: four dead ones tried
/// in turn still leave time to dial a fresh one within the second a call waits.
pub const PING_TIMEOUT: Duration = Duration::from_millis(200);

/// How the pool checks the connections it hands out and takes back.
///
/// sqlx 0.8's pool pings an idle connection before handing it out and every connection
/// it takes back, with no timeout of their own. A connection black-holed by a NAT or a
/// load balancer that forgot the flow never answers (the kernel retransmits for ~15
/// minutes):
/// - handing out: the ping uses up the call's whole acquire timeout, so each dead idle
///   connection costs one call "pool timed out while waiting for an open connection", one
///   after another, though PostgreSQL is up and a new connection would get through;
/// - taking back (a call given up with its query in flight): the spawned task that pings
///   holds the connection's permit until the ping ends (sqlx issue #4349), so once every
///   permit is stranded so, every call fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolPings {
    /// sqlx's defaults: both of the above (amnesia's madsim sweep catches the first as
    /// `unavailable` after a silent drop of idle connections).
    SqlxDefaults,
    /// Both pings bounded by [`PING_TIMEOUT`] in the pool's hooks (`before_acquire`,
    /// with sqlx's own test before acquire off, and `after_release`): a connection that
    /// does not answer in time is an error, which sqlx closes without I/O, and the call
    /// goes on to the next connection or a fresh one.
    Bounded,
}

/// The pool's hooks' ping: the connection answers in time, or is to be closed.
async fn answers_ping(conn: &mut sqlx::PgConnection) -> Result<bool, sqlx::Error> {
    use sqlx::Connection;
    match tokio::time::timeout(PING_TIMEOUT, conn.ping()).await {
        Ok(answered) => answered.map(|()| true),
        Err(_) => Err(sqlx::Error::PoolTimedOut),
    }
}

/// A call's failure.
pub type Error = Failure<sqlx::Error>;

/// Conversations and memories in PostgreSQL, through a pool of at most four connections.
pub struct SqlxMemory {
    pool: PgPool,
    schema: tokio::sync::OnceCell<()>,
}

impl SqlxMemory {
    /// A store on the PostgreSQL at `url`; nothing is dialed until the first call. A call
    /// waits at most a second for a connection of the pool, which pings the connections
    /// it hands out and takes back within [`PING_TIMEOUT`] (see [`PoolPings`]).
    pub fn connect_lazy(url: &str) -> Result<SqlxMemory, sqlx::Error> {
        SqlxMemory::connect_lazy_with(url, PoolPings::Bounded)
    }

    /// [`SqlxMemory::connect_lazy`], its pool checking connections as `pings` says.
    pub fn connect_lazy_with(url: &str, pings: PoolPings) -> Result<SqlxMemory, sqlx::Error> {
        let options = PgPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(1));
        let options = match pings {
            PoolPings::SqlxDefaults => options,
            PoolPings::Bounded => options
                .test_before_acquire(false)
                .before_acquire(|conn, _| Box::pin(answers_ping(conn)))
                .after_release(|conn, _| Box::pin(answers_ping(conn))),
        };
        let pool = options.connect_lazy(url)?;
        Ok(SqlxMemory {
            pool,
            schema: tokio::sync::OnceCell::new(),
        })
    }

    /// The schema, created once per process (the first call of every process runs it).
    async fn schema(&self) -> Result<(), Error> {
        let create = || async {
            let created = sqlx::raw_sql(pg_schema::SCHEMA).execute(&self.pool);
            timed(created).await.map(|_| ())
        };
        self.schema.get_or_try_init(create).await.copied()
    }

    /// Store a message at the end of `conversation`; a second append of the same id
    /// stores nothing.
    pub async fn append(&self, conversation: &str, message: &StoredMessage) -> Result<(), Error> {
        self.schema().await?;
        let insert = sqlx::query(pg_schema::APPEND)
            .bind(conversation)
            .bind(&message.id)
            .bind(&message.role)
            .bind(&message.content)
            .bind(message.turn as i64)
            .execute(&self.pool);
        timed(insert).await.map(|_| ())
    }

    /// The newest `limit` messages of `conversation`, oldest first.
    pub async fn recent(
        &self,
        conversation: &str,
        limit: usize,
    ) -> Result<Vec<StoredMessage>, Error> {
        self.schema().await?;
        let select = sqlx::query(pg_schema::RECENT)
            .bind(conversation)
            .bind(limit as i64)
            .fetch_all(&self.pool);
        let rows = timed(select).await?;
        rows.iter()
            .map(message_of)
            .collect::<Result<_, _>>()
            .map_err(Failure::Client)
    }

    /// Delete `conversation`.
    pub async fn clear(&self, conversation: &str) -> Result<(), Error> {
        self.schema().await?;
        let delete = sqlx::query(pg_schema::CLEAR)
            .bind(conversation)
            .execute(&self.pool);
        timed(delete).await.map(|_| ())
    }

    /// Delete message `id` of `conversation`.
    pub async fn delete(&self, conversation: &str, id: &str) -> Result<(), Error> {
        self.schema().await?;
        let delete = sqlx::query(pg_schema::DELETE)
            .bind(conversation)
            .bind(id)
            .execute(&self.pool);
        timed(delete).await.map(|_| ())
    }

    /// Store (or replace) memory `id` of `owner` with its embedding.
    pub async fn remember(
        &self,
        owner: &str,
        id: &str,
        text: &str,
        embedding: &[f32],
    ) -> Result<(), Error> {
        self.schema().await?;
        let upsert = sqlx::query(pg_schema::REMEMBER)
            .bind(owner)
            .bind(id)
            .bind(text)
            .bind(Vector::from(embedding.to_vec()))
            .execute(&self.pool);
        timed(upsert).await.map(|_| ())
    }

    /// The `k` memories of `owner` nearest to `embedding`: (id, text), nearest first.
    pub async fn recall(
        &self,
        owner: &str,
        embedding: &[f32],
        k: usize,
    ) -> Result<Vec<(String, String)>, Error> {
        self.schema().await?;
        let select = sqlx::query(pg_schema::RECALL)
            .bind(owner)
            .bind(Vector::from(embedding.to_vec()))
            .bind(k as i64)
            .fetch_all(&self.pool);
        let rows = timed(select).await?;
        let pair = |row: &PgRow| Ok((row.try_get(0)?, row.try_get(1)?));
        rows.iter()
            .map(pair)
            .collect::<Result<_, _>>()
            .map_err(Failure::Client)
    }

    /// Forget memory `id` of `owner`.
    pub async fn forget(&self, owner: &str, id: &str) -> Result<(), Error> {
        self.schema().await?;
        let delete = sqlx::query(pg_schema::FORGET)
            .bind(owner)
            .bind(id)
            .execute(&self.pool);
        timed(delete).await.map(|_| ())
    }

    /// Every memory of `owner`, with its embedding, by id.
    pub async fn memories(&self, owner: &str) -> Result<Vec<StoredMemory>, Error> {
        self.schema().await?;
        let select = sqlx::query(pg_schema::MEMORIES)
            .bind(owner)
            .fetch_all(&self.pool);
        let rows = timed(select).await?;
        rows.iter()
            .map(memory_of)
            .collect::<Result<_, _>>()
            .map_err(Failure::Client)
    }
}

fn message_of(row: &PgRow) -> Result<StoredMessage, sqlx::Error> {
    Ok(StoredMessage {
        id: row.try_get(0)?,
        role: row.try_get(1)?,
        content: row.try_get(2)?,
        turn: row.try_get::<i64, _>(3)? as u64,
    })
}

fn memory_of(row: &PgRow) -> Result<StoredMemory, sqlx::Error> {
    Ok(StoredMemory {
        id: row.try_get(0)?,
        text: row.try_get(1)?,
        embedding: row.try_get::<Vector, _>(2)?.to_vec(),
    })
}
