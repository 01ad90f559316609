//! The team's pgvector memory store on tokio-postgres 0.7: one `Client` connected from a
//! URL (`tokio_postgres::connect(url, NoTls)`, its connection task spawned), shared by
//! every call, replaced when it closed or a call timed out on it; the statements are
//! [`crate::pg_schema`]'s, the embeddings pgvector's `postgres` types. Nothing in it knows
//! amnesia: `tests/pgvector.rs` adapts it and sweeps it on the madsim engine.

use crate::pg_schema::{self, timed, Failure, StoredMemory, StoredMessage};
use pgvector::Vector;
use std::sync::Arc;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, NoTls, Row};

/// A call's failure.
pub type Error = Failure<tokio_postgres::Error>;

/// Conversations and memories in PostgreSQL, over one connection at a time.
pub struct TokioPgMemory {
    url: String,
    client: tokio::sync::Mutex<Option<Arc<Client>>>,
    schema: tokio::sync::OnceCell<()>,
}

impl TokioPgMemory {
    /// A store on the PostgreSQL at `url`; nothing is dialed until the first call.
    pub fn new(url: &str) -> TokioPgMemory {
        TokioPgMemory {
            url: url.to_string(),
            client: tokio::sync::Mutex::new(None),
            schema: tokio::sync::OnceCell::new(),
        }
    }

    /// The open client, or a new connection.
    async fn client(&self) -> Result<Arc<Client>, Error> {
        let mut cached = self.client.lock().await;
        if let Some(client) = cached.as_ref().filter(|client| !client.is_closed()) {
            return Ok(client.clone());
        }
        let (client, connection) = timed(tokio_postgres::connect(&self.url, NoTls)).await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let client = Arc::new(client);
        *cached = Some(client.clone());
        Ok(client)
    }

    /// `outcome`, forgetting the client after a timeout: a connection a network fault
    /// left dead would time out every later call too.
    async fn checked<T>(&self, outcome: Result<T, Error>) -> Result<T, Error> {
        if matches!(outcome, Err(Failure::TimedOut)) {
            *self.client.lock().await = None;
        }
        outcome
    }

    /// Run `sql` with `params` on the client (after the schema), counting nothing.
    async fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<(), Error> {
        self.schema().await?;
        let client = self.client().await?;
        let outcome = timed(client.execute(sql, params)).await.map(|_| ());
        self.checked(outcome).await
    }

    /// The rows of `sql` with `params`.
    async fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, Error> {
        self.schema().await?;
        let client = self.client().await?;
        let outcome = timed(client.query(sql, params)).await;
        self.checked(outcome).await
    }

    /// The schema, created once per process.
    async fn schema(&self) -> Result<(), Error> {
        let create = || async {
            let client = self.client().await?;
            let outcome = timed(client.batch_execute(pg_schema::SCHEMA)).await;
            self.checked(outcome).await
        };
        self.schema.get_or_try_init(create).await.copied()
    }

    /// Store a message at the end of `conversation`; a second append of the same id
    /// stores nothing.
    pub async fn append(&self, conversation: &str, message: &StoredMessage) -> Result<(), Error> {
        let turn = message.turn as i64;
        let params: [&(dyn ToSql + Sync); 5] = [
            &conversation,
            &message.id,
            &message.role,
            &message.content,
            &turn,
        ];
        self.execute(pg_schema::APPEND, &params).await
    }

    /// The newest `limit` messages of `conversation`, oldest first.
    pub async fn recent(
        &self,
        conversation: &str,
        limit: usize,
    ) -> Result<Vec<StoredMessage>, Error> {
        let limit = limit as i64;
        let rows = self
            .query(pg_schema::RECENT, &[&conversation, &limit])
            .await?;
        rows.iter()
            .map(message_of)
            .collect::<Result<_, _>>()
            .map_err(Failure::Client)
    }

    /// Delete `conversation`.
    pub async fn clear(&self, conversation: &str) -> Result<(), Error> {
        self.execute(pg_schema::CLEAR, &[&conversation]).await
    }

    /// Delete message `id` of `conversation`.
    pub async fn delete(&self, conversation: &str, id: &str) -> Result<(), Error> {
        self.execute(pg_schema::DELETE, &[&conversation, &id]).await
    }

    /// Store (or replace) memory `id` of `owner` with its embedding.
    pub async fn remember(
        &self,
        owner: &str,
        id: &str,
        text: &str,
        embedding: &[f32],
    ) -> Result<(), Error> {
        let vector = Vector::from(embedding.to_vec());
        let params: [&(dyn ToSql + Sync); 4] = [&owner, &id, &text, &vector];
        self.execute(pg_schema::REMEMBER, &params).await
    }

    /// The `k` memories of `owner` nearest to `embedding`: (id, text), nearest first.
    pub async fn recall(
        &self,
        owner: &str,
        embedding: &[f32],
        k: usize,
    ) -> Result<Vec<(String, String)>, Error> {
        let (vector, k) = (Vector::from(embedding.to_vec()), k as i64);
        let rows = self
            .query(pg_schema::RECALL, &[&owner, &vector, &k])
            .await?;
        let pair = |row: &Row| Ok((row.try_get(0)?, row.try_get(1)?));
        rows.iter()
            .map(pair)
            .collect::<Result<_, _>>()
            .map_err(Failure::Client)
    }

    /// Forget memory `id` of `owner`.
    pub async fn forget(&self, owner: &str, id: &str) -> Result<(), Error> {
        self.execute(pg_schema::FORGET, &[&owner, &id]).await
    }

    /// Every memory of `owner`, with its embedding, by id.
    pub async fn memories(&self, owner: &str) -> Result<Vec<StoredMemory>, Error> {
        let rows = self.query(pg_schema::MEMORIES, &[&owner]).await?;
        rows.iter()
            .map(memory_of)
            .collect::<Result<_, _>>()
            .map_err(Failure::Client)
    }
}

fn message_of(row: &Row) -> Result<StoredMessage, tokio_postgres::Error> {
    Ok(StoredMessage {
        id: row.try_get(0)?,
        role: row.try_get(1)?,
        content: row.try_get(2)?,
        turn: row.try_get::<_, i64>(3)? as u64,
    })
}

fn memory_of(row: &Row) -> Result<StoredMemory, tokio_postgres::Error> {
    Ok(StoredMemory {
        id: row.try_get(0)?,
        text: row.try_get(1)?,
        embedding: row.try_get::<_, Vector>(2)?.to_vec(),
    })
}
