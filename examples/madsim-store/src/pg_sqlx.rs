//! The team's pgvector memory store on sqlx 0.8: a lazily connected `PgPool` opened from a
//! URL, every call a statement of [`crate::pg_schema`] bound and run on the pool, the
//! embeddings through pgvector's sqlx types. Nothing in it knows amnesia:
//! `tests/pgvector.rs` adapts it to amnesia's contract and sweeps it on the madsim engine.

use crate::pg_schema::{self, timed, Failure, StoredMemory, StoredMessage};
use pgvector::Vector;
use sqlx::postgres::{PgPool, PgPoolOptions, PgRow};
use sqlx::Row;
use std::time::Duration;

/// A call's failure.
pub type Error = Failure<sqlx::Error>;

/// Conversations and memories in PostgreSQL, through a pool of at most four connections.
pub struct SqlxMemory {
    pool: PgPool,
    schema: tokio::sync::OnceCell<()>,
}

impl SqlxMemory {
    /// A store on the PostgreSQL at `url`; nothing is dialed until the first call. A call
    /// waits at most a second for a connection of the pool.
    pub fn connect_lazy(url: &str) -> Result<SqlxMemory, sqlx::Error> {
        let pool = PgPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(1))
            .connect_lazy(url)?;
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
