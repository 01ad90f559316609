//! The SQL of the team's pgvector memory store, shared by its two clients (sqlx in
//! [`crate::pg_sqlx`], tokio-postgres in [`crate::pg_tokio`]): conversations as rows of a
//! table in append order, long-term memories with their embeddings in a `vector` column
//! under an HNSW index, recall by cosine distance scoped to the user.

/// The embeddings' dimensions: the caller's embedding model decides them.
pub const DIMENSIONS: usize = 16;

/// The schema, created by every process at its first call, under a transaction-scoped
/// advisory lock (processes race to create it). One simple-protocol batch.
pub const SCHEMA: &str = "BEGIN;
    SELECT pg_advisory_xact_lock(4046);
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE IF NOT EXISTS chat_messages (
        pos bigserial PRIMARY KEY,
        conversation text NOT NULL,
        id text NOT NULL,
        role text NOT NULL,
        content text NOT NULL,
        turn bigint NOT NULL,
        UNIQUE (conversation, id));
    CREATE TABLE IF NOT EXISTS memories (
        owner text NOT NULL,
        id text NOT NULL,
        text text NOT NULL,
        embedding vector(16) NOT NULL,
        PRIMARY KEY (owner, id));
    CREATE INDEX IF NOT EXISTS memories_embedding ON memories
        USING hnsw (embedding vector_cosine_ops);
    COMMIT;";

/// Append a message; a second append of the same id keeps the first (a retry).
pub const APPEND: &str = "INSERT INTO chat_messages (conversation, id, role, content, turn)
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (conversation, id) DO NOTHING";

/// The newest `$2` messages of conversation `$1`, oldest first.
pub const RECENT: &str = "SELECT id, role, content, turn FROM (
        SELECT pos, id, role, content, turn FROM chat_messages
        WHERE conversation = $1 ORDER BY pos DESC LIMIT $2) newest
    ORDER BY pos";

/// Delete a whole conversation.
pub const CLEAR: &str = "DELETE FROM chat_messages WHERE conversation = $1";

/// Delete one message of a conversation.
pub const DELETE: &str = "DELETE FROM chat_messages WHERE conversation = $1 AND id = $2";

/// Store a memory, or replace its text and embedding.
pub const REMEMBER: &str = "INSERT INTO memories (owner, id, text, embedding)
    VALUES ($1, $2, $3, $4)
    ON CONFLICT (owner, id) DO UPDATE SET text = EXCLUDED.text, embedding = EXCLUDED.embedding";

/// The `$3` memories of owner `$1` nearest to embedding `$2`.
pub const RECALL: &str = "SELECT id, text FROM memories WHERE owner = $1
    ORDER BY embedding <=> $2 LIMIT $3";

/// Forget a memory.
pub const FORGET: &str = "DELETE FROM memories WHERE owner = $1 AND id = $2";

/// Every memory of owner `$1` with its embedding, by id.
pub const MEMORIES: &str = "SELECT id, text, embedding FROM memories WHERE owner = $1 ORDER BY id";

/// One stored message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMessage {
    /// The application's message id: the idempotency key of an append.
    pub id: String,
    pub role: String,
    pub content: String,
    /// The conversation's turn counter when it was written.
    pub turn: u64,
}

/// One stored memory and its embedding.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredMemory {
    pub id: String,
    pub text: String,
    pub embedding: Vec<f32>,
}

/// A call's failure: no reply within the store's timeout (the outcome unknown), or the
/// client's own error.
#[derive(Debug)]
pub enum Failure<E> {
    TimedOut,
    Client(E),
}

impl<E: std::fmt::Display> std::fmt::Display for Failure<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::TimedOut => f.write_str("timed out"),
            Failure::Client(error) => error.fmt(f),
        }
    }
}

/// How long the store waits for a reply before it gives up on a call.
pub const RESPONSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// `call`, given up after [`RESPONSE_TIMEOUT`].
pub async fn timed<T, E>(
    call: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, Failure<E>> {
    match tokio::time::timeout(RESPONSE_TIMEOUT, call).await {
        Ok(outcome) => outcome.map_err(Failure::Client),
        Err(_) => Err(Failure::TimedOut),
    }
}
