//! A team's chat memory on PostgreSQL + pgvector, written without amnesia in mind: a
//! conversation's messages in a table (an append is one transaction under the session's
//! advisory lock, so a message's position is its commit order, and a re-sent message is
//! stored once), long-term memories with their embeddings under an HNSW index, recalled
//! nearest first with an iterative scan so the user filter never starves the result.
//! Every function takes the connection it runs on: in production a pool's (deadpool's
//! `Object` derefs to `tokio_postgres::Client`), under test amnesia's `PgClient`.

use pgvector::Vector;
use tokio_postgres::{Client, Error};

/// The dimension of the embeddings (the model's output).
pub const DIMENSIONS: usize = 64;

/// The schema, created once per process; concurrent creators serialise on a lock.
pub async fn create_schema(client: &mut Client) -> Result<(), Error> {
    let ddl = format!(
        "BEGIN;
         SELECT pg_advisory_xact_lock(1);
         CREATE EXTENSION IF NOT EXISTS vector;
         CREATE TABLE IF NOT EXISTS messages (
             pos bigserial PRIMARY KEY, tenant text NOT NULL, session text NOT NULL,
             id text NOT NULL, role text NOT NULL, content bytea NOT NULL, turn bigint NOT NULL,
             UNIQUE (tenant, session, id));
         CREATE TABLE IF NOT EXISTS memories (
             tenant text NOT NULL, user_name text NOT NULL, id text NOT NULL,
             text text NOT NULL, embedding vector({DIMENSIONS}) NOT NULL,
             PRIMARY KEY (tenant, user_name, id));
         CREATE INDEX IF NOT EXISTS memories_embedding ON memories
             USING hnsw (embedding vector_cosine_ops);
         COMMIT;"
    );
    client.batch_execute(&ddl).await
}

/// A chat message as the application stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatMessage {
    /// Unique per message; a re-send carries the same id.
    pub id: String,
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text, byte for byte (kept as `bytea`: PostgreSQL's `text` refuses NUL).
    pub content: String,
    /// The turn it belongs to.
    pub turn: i64,
}

/// Append `message` to the conversation, once: a re-send of a stored id changes nothing.
pub async fn append(
    client: &mut Client,
    (tenant, session): (&str, &str),
    message: &ChatMessage,
) -> Result<(), Error> {
    let tx = client.transaction().await?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))",
        &[&tenant, &session],
    )
    .await?;
    tx.execute(
        "INSERT INTO messages (tenant, session, id, role, content, turn)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant, session, id) DO NOTHING",
        &[
            &tenant,
            &session,
            &message.id,
            &message.role,
            &message.content.as_bytes(),
            &message.turn,
        ],
    )
    .await?;
    tx.commit().await
}

/// The newest `limit` messages of the conversation, oldest first.
pub async fn recent(
    client: &mut Client,
    (tenant, session): (&str, &str),
    limit: i64,
) -> Result<Vec<ChatMessage>, Error> {
    let rows = client
        .query(
            "SELECT id, role, content, turn FROM (SELECT * FROM messages
                 WHERE tenant = $1 AND session = $2 ORDER BY pos DESC LIMIT $3) newest
             ORDER BY pos",
            &[&tenant, &session, &limit],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| ChatMessage {
            id: row.get(0),
            role: row.get(1),
            content: String::from_utf8_lossy(row.get(2)).into_owned(),
            turn: row.get(3),
        })
        .collect())
}

/// Store a memory and its embedding, replacing one with the same id.
pub async fn remember(
    client: &mut Client,
    (tenant, user): (&str, &str),
    (id, text): (&str, &str),
    embedding: Vec<f32>,
) -> Result<(), Error> {
    let embedding = Vector::from(embedding);
    // The bug the `stale-embedding` feature plants: an edit keeps the old vector.
    let on_conflict = if cfg!(feature = "stale-embedding") {
        "SET text = EXCLUDED.text"
    } else {
        "SET text = EXCLUDED.text, embedding = EXCLUDED.embedding"
    };
    let sql = format!(
        "INSERT INTO memories (tenant, user_name, id, text, embedding) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant, user_name, id) DO UPDATE {on_conflict}"
    );
    client
        .execute(&sql, &[&tenant, &user, &id, &text, &embedding])
        .await
        .map(|_| ())
}

/// The `k` memories of the user nearest `query`'s embedding, as (id, text).
pub async fn recall(
    client: &mut Client,
    (tenant, user): (&str, &str),
    query: Vec<f32>,
    k: i64,
) -> Result<Vec<(String, String)>, Error> {
    let query = Vector::from(query);
    let tx = client.transaction().await?;
    // relaxed_order, not strict_order: strict drops a nearer row the scan finds after a
    // farther one, and can return fewer than k rows although the user holds more.
    tx.batch_execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        .await?;
    let rows = tx
        .query(
            "WITH nearest AS MATERIALIZED (
                 SELECT id, text, embedding <=> $3 AS distance FROM memories
                 WHERE tenant = $1 AND user_name = $2 ORDER BY distance LIMIT $4)
             SELECT id, text FROM nearest ORDER BY distance + 0",
            &[&tenant, &user, &query, &k],
        )
        .await?;
    tx.commit().await?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// Delete a memory (nothing if there is none).
pub async fn forget(
    client: &mut Client,
    (tenant, user): (&str, &str),
    id: &str,
) -> Result<(), Error> {
    client
        .execute(
            "DELETE FROM memories WHERE tenant = $1 AND user_name = $2 AND id = $3",
            &[&tenant, &user, &id],
        )
        .await
        .map(|_| ())
}

/// The team's embedding model: hashed words and character trigrams, normalised (a
/// constant feature keeps every vector non-zero, so cosine distances are defined).
pub fn embed(text: &str) -> Vec<f32> {
    let mut vector = vec![0f32; DIMENSIONS];
    vector[0] = 0.25;
    let lower = text.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let trigrams = chars
        .windows(3)
        .map(|w| (w.iter().collect::<String>(), 0.5));
    let words = lower.split_whitespace().map(|w| (w.to_string(), 1.0));
    for (feature, weight) in words.chain(trigrams) {
        let hash = fnv1a(feature.as_bytes());
        let sign = if hash >> 63 == 1 { -1.0 } else { 1.0 };
        vector[1 + (hash % (DIMENSIONS as u64 - 1)) as usize] += sign * weight;
    }
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    vector.iter_mut().for_each(|x| *x /= norm);
    vector
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
