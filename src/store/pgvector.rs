//! The reference pgvector memory store, written as a team would on tokio-postgres and the
//! `pgvector` crate: sessions and their messages in tables, long-term memories with their
//! embeddings in a table with an HNSW index (`vector_cosine_ops`), recall by
//! `ORDER BY embedding <=> $1 LIMIT k` scoped to the user in the same query. The same
//! [`MemoryStore`] contract and checker as the Redis stores; the knobs of [`PgVectorConfig`]
//! are the pgvector pitfalls of the bug catalogue.
//!
//! The layout mirrors the Redis reference's: a session's first message is kept apart
//! (`head`), the window is trimmed to the newest `messages_max`, a re-sent message moves
//! to the end (an idempotent append), and a session's TTL slides on every append, on the
//! server's clock. Every write of a session takes the session's advisory lock, so a
//! message's position is its commit order.

use crate::contract::{
    Durability, MemoryAudit, MemoryStore, Policy, StoreError, SynchronousCommit, TtlPolicy,
};
use crate::domain::{IndexedEmbedding, Memory, Message, SessionKey, UserKey};
use crate::postgres::PgConnector;
use crate::store::reference::{encode_message, with_head};
pub use crate::store::repeatable_read::OnConflict;
use pgvector::Vector;
use std::sync::Arc;

/// The ANN index over the memories' embeddings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnnIndex {
    /// HNSW, searched with an iterative scan (`hnsw.iterative_scan = relaxed_order`, the
    /// rows re-sorted by distance after) so the user filter never starves the result.
    Hnsw,
    /// ivfflat with 100 lists created with the table, before any data (its lists trained
    /// on nothing), probed one list at a time: the `ivfflat-before-load` pitfall.
    IvfflatBeforeLoad,
}

/// Where the user filter of a recall is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserFilter {
    /// In the query's `WHERE`, with the ANN order: the reference.
    InQuery,
    /// On a global top-k (`SELECT … FROM (… ORDER BY … LIMIT k) WHERE user`): other
    /// users' memories take the places (`filter-after-topk`).
    AfterGlobalTopK,
}

/// How a pgvector store is built; [`PgVectorConfig::reference`] is the reference store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgVectorConfig {
    /// Messages kept per session besides the first.
    pub messages_max: usize,
    /// The sessions' sliding TTL.
    pub ttl_ms: u64,
    /// The ANN index.
    pub index: AnnIndex,
    /// `hnsw.ef_search` fixed below `k` without an iterative scan, when `Some`
    /// (`ef-search-below-k`).
    pub ef_search_fixed: Option<u32>,
    /// Where the user filter goes.
    pub filter: UserFilter,
    /// The embedding model the code embeds with: 1, or 2 for code version 2 of the
    /// `embedding-v2` variant (old rows are not re-embedded).
    pub model: u32,
    /// HNSW recalls search on with `hnsw.iterative_scan = relaxed_order` until `k` rows of
    /// the user are found (`strict_order` would drop a row found after a farther one); off: one search of `hnsw.ef_search` candidates (default 40)
    /// that the user filter thins after the index (`no-iterative-scan`).
    pub iterative_scan: bool,
    /// An update writes the new text and keeps the row's old embedding
    /// (`update-keeps-embedding`).
    pub update_keeps_embedding: bool,
    /// The store answers the memory audit; off: `StoreError::Unsupported`, as a store
    /// written without amnesia in mind.
    pub audit: bool,
    /// Its sessions run `synchronous_commit = off` (faster commits) while the policy
    /// still declares synchronous ones (`async-commit`): a crash takes back the commits
    /// the WAL writer had not flushed, acknowledged writes among them.
    pub synchronous_commit_off: bool,
    /// How the appends of one session are kept apart.
    pub appends: AppendSerialization,
    /// `SET lock_timeout` before its appends, remembers and updates, when `Some` (a team's guard against
    /// an administrator's migration holding its tables): a write that would wait longer
    /// for a lock fails with 55P03 instead.
    pub lock_timeout_ms: Option<u64>,
}

/// How the appends of one session are kept apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppendSerialization {
    /// The session's advisory lock, under READ COMMITTED: the reference (it never meets
    /// 40001).
    AdvisoryLock,
    /// No lock; REPEATABLE READ, the session row the point where two appends meet (first
    /// updater wins, the other fails with 40001), and what the store does then
    /// (`repeatable_read.rs`).
    RepeatableRead(OnConflict),
}

impl PgVectorConfig {
    /// The reference store's configuration.
    pub fn reference(messages_max: usize, ttl_ms: u64) -> PgVectorConfig {
        PgVectorConfig {
            messages_max,
            ttl_ms,
            index: AnnIndex::Hnsw,
            ef_search_fixed: None,
            filter: UserFilter::InQuery,
            model: 1,
            iterative_scan: true,
            update_keeps_embedding: false,
            audit: true,
            synchronous_commit_off: false,
            appends: AppendSerialization::AdvisoryLock,
            lock_timeout_ms: None,
        }
    }
}

/// The pgvector store of one client process.
pub struct PgVectorStore {
    pg: Arc<PgConnector>,
    config: PgVectorConfig,
    schema: tokio::sync::OnceCell<()>,
}

/// One `SET LOCAL` per setting a recall or an audit runs under.
type Settings = Vec<String>;

impl PgVectorStore {
    /// A store over `pg` (the run's [`crate::StoreContext::postgres`]).
    pub fn new(pg: Arc<PgConnector>, config: PgVectorConfig) -> PgVectorStore {
        PgVectorStore {
            pg,
            config,
            schema: tokio::sync::OnceCell::new(),
        }
    }

    /// Create the extension, tables and index once per process, under a lock: the first
    /// operation of every client runs it, and they race.
    pub(crate) async fn ensure_schema(&self) -> Result<(), StoreError> {
        let index = match self.config.index {
            AnnIndex::Hnsw => "USING hnsw (embedding vector_cosine_ops)",
            AnnIndex::IvfflatBeforeLoad => {
                "USING ivfflat (embedding vector_cosine_ops) WITH (lists = 100)"
            }
        };
        let ddl = format!(
            "BEGIN;
             SELECT pg_advisory_xact_lock(7271);
             CREATE EXTENSION IF NOT EXISTS vector;
             CREATE TABLE IF NOT EXISTS chat_sessions (
                 tenant text NOT NULL, session text NOT NULL,
                 head_id text, head bytea, expires_at timestamptz NOT NULL,
                 PRIMARY KEY (tenant, session));
             CREATE TABLE IF NOT EXISTS chat_messages (
                 pos bigserial PRIMARY KEY, tenant text NOT NULL, session text NOT NULL,
                 id text NOT NULL, body bytea NOT NULL, UNIQUE (tenant, session, id));
             CREATE TABLE IF NOT EXISTS memories (
                 id text NOT NULL, tenant text NOT NULL, user_name text NOT NULL,
                 text text NOT NULL, embedding vector({dims}) NOT NULL,
                 PRIMARY KEY (id, tenant, user_name));
             CREATE INDEX IF NOT EXISTS memories_embedding ON memories {index};
             COMMIT;",
            dims = crate::embed::DIMENSIONS,
        );
        self.schema
            .get_or_try_init(|| async {
                self.pg
                    .run(move |client| Box::pin(async move { client.batch_execute(&ddl).await }))
                    .await
            })
            .await
            .copied()
    }

    fn embedding(&self, text: &str) -> Vector {
        Vector::from(crate::embed::embed_with_model(text, self.config.model).to_vec())
    }

    /// The settings a recall runs under: the ANN index always (at production size the
    /// planner picks it; on a test's few rows it would filter by the primary key and
    /// sort, an exact search, unless told not to), and the index's search knobs.
    fn search_settings(&self) -> Settings {
        let mut settings = vec![
            "enable_seqscan = off".to_string(),
            "enable_sort = off".into(),
        ];
        match (self.config.index, self.config.ef_search_fixed) {
            (AnnIndex::Hnsw, None) if self.config.iterative_scan => {
                settings.push("hnsw.iterative_scan = relaxed_order".into());
            }
            (AnnIndex::Hnsw, None) => {}
            (AnnIndex::Hnsw, Some(ef)) => settings.push(format!("hnsw.ef_search = {ef}")),
            (AnnIndex::IvfflatBeforeLoad, _) => settings.push("ivfflat.probes = 1".into()),
        }
        settings
    }

    /// An update that writes the new text and keeps the old row's embedding (a new row
    /// gets its text's).
    async fn update_text_only(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.ensure_schema().await?;
        let (tenant, name) = (user.tenant.clone(), user.user.clone());
        let (id, text) = (memory.id.clone(), memory.text.clone());
        let embedding = self.embedding(&memory.text);
        let commit_mode = self.commit_mode();
        self.pg
            .run(move |client| {
                Box::pin(async move {
                    if let Some(set) = &commit_mode {
                        client.batch_execute(set).await?;
                    }
                    client
                        .execute(
                            "INSERT INTO memories (id, tenant, user_name, text, embedding)
                             VALUES ($1, $2, $3, $4, $5)
                             ON CONFLICT (id, tenant, user_name) DO UPDATE
                             SET text = EXCLUDED.text",
                            &[&id, &tenant, &name, &text, &embedding],
                        )
                        .await
                        .map(|_| ())
                })
            })
            .await
    }

    /// What a write (an append, a remember, an update) sends before its transaction:
    /// nothing but for `async-commit`, whose session turns synchronous commits off, and
    /// for a store with a `lock_timeout`.
    fn commit_mode(&self) -> Option<String> {
        let sets: Vec<String> = [
            self.config
                .synchronous_commit_off
                .then(|| "SET synchronous_commit = off".to_string()),
            self.config
                .lock_timeout_ms
                .map(|ms| format!("SET lock_timeout = {ms}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!sets.is_empty()).then(|| sets.join("; "))
    }

    fn recall_sql(&self) -> &'static str {
        match self.config.filter {
            UserFilter::InQuery => {
                // relaxed_order returns a nearer row found late instead of dropping it
                // (strict_order's rule, which can leave fewer than k rows); the
                // materialized CTE puts the k rows back in distance order, as
                // pgvector's README shows.
                "WITH nearest AS MATERIALIZED (
                     SELECT id, text, embedding <=> $3 AS distance FROM memories
                     WHERE tenant = $1 AND user_name = $2 ORDER BY distance LIMIT $4)
                 SELECT id, text FROM nearest ORDER BY distance + 0"
            }
            UserFilter::AfterGlobalTopK => {
                "SELECT id, text FROM (SELECT id, text, tenant, user_name,
                     embedding <=> $3 AS distance FROM memories
                     ORDER BY embedding <=> $3 LIMIT $4) top
                 WHERE tenant = $1 AND user_name = $2 ORDER BY distance"
            }
        }
    }
}

/// The ids of `stored` (id, text) rows that `sql` (a recall) returns when asked for their
/// own text, among as many nearest rows as the user has with that text.
async fn find_by_own_text(
    tx: &tokio_postgres::Transaction<'_>,
    sql: &str,
    (tenant, name): (&String, &String),
    stored: &[(String, String)],
    model: u32,
) -> Result<Vec<String>, tokio_postgres::Error> {
    let mut texts: std::collections::BTreeMap<&str, i64> = Default::default();
    for (_, text) in stored {
        *texts.entry(text.as_str()).or_default() += 1;
    }
    let mut ids = Vec::new();
    for (text, same) in texts {
        let embedding = Vector::from(crate::embed::embed_with_model(text, model).to_vec());
        let found = tx.query(sql, &[tenant, name, &embedding, &same]).await?;
        ids.extend(found.iter().filter_map(|row| {
            let (id, found_text): (String, String) = (row.get(0), row.get(1));
            (found_text == text).then_some(id)
        }));
    }
    ids.sort();
    Ok(ids)
}

/// `SET LOCAL` each setting, inside the caller's transaction.
fn set_local(settings: &Settings) -> String {
    settings
        .iter()
        .map(|setting| format!("SET LOCAL {setting};"))
        .collect()
}

/// The session's advisory lock, held to the end of the transaction.
const LOCK_SESSION: &str = "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))";
/// Forget a session whose TTL passed, before anything is written to it again.
pub(crate) const PURGE_EXPIRED: &str = "DELETE FROM chat_sessions
     WHERE tenant = $1 AND session = $2 AND expires_at <= clock_timestamp()";
pub(crate) const PURGE_EXPIRED_MESSAGES: &str = "DELETE FROM chat_messages m
     WHERE m.tenant = $1 AND m.session = $2 AND NOT EXISTS (SELECT 1 FROM chat_sessions s
         WHERE s.tenant = $1 AND s.session = $2)";
/// Create the session with its first message as the head, or slide its TTL. (The two
/// statements below keep the reference's bytes, indentation and all: traces record them.)
pub(crate) const UPSERT_SESSION: &str =
    "INSERT INTO chat_sessions (tenant, session, head_id, head, expires_at)
                         VALUES ($1, $2, $3, $4, clock_timestamp() + $5 * interval '1 millisecond')
                         ON CONFLICT (tenant, session) DO UPDATE SET
                             head_id = COALESCE(chat_sessions.head_id, EXCLUDED.head_id),
                             head = COALESCE(chat_sessions.head, EXCLUDED.head),
                             expires_at = EXCLUDED.expires_at";
/// Keep the newest `$3` messages of the session (besides its head).
pub(crate) const TRIM_WINDOW: &str = "DELETE FROM chat_messages WHERE tenant = $1 AND session = $2 AND pos <
                             (SELECT min(pos) FROM (SELECT pos FROM chat_messages
                              WHERE tenant = $1 AND session = $2 ORDER BY pos DESC LIMIT $3) newest)";

#[async_trait::async_trait]
impl MemoryStore for PgVectorStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        self.ensure_schema().await?;
        if let AppendSerialization::RepeatableRead(on) = self.config.appends {
            let (ttl_ms, keep) = (self.config.ttl_ms, self.config.messages_max);
            let row = crate::store::repeatable_read::AppendRow::new(session, msg, ttl_ms, keep);
            let sets = self.commit_mode();
            return crate::store::repeatable_read::append(&self.pg, row, sets, on).await;
        }
        let (tenant, name) = (session.tenant.clone(), session.session.clone());
        let (id, body) = (msg.id.clone(), encode_message(msg));
        let ttl_ms = self.config.ttl_ms as f64;
        let keep = self.config.messages_max as i64;
        let commit_mode = self.commit_mode();
        self.pg
            .run(move |client| {
                Box::pin(async move {
                    if let Some(set) = &commit_mode {
                        client.batch_execute(set).await?;
                    }
                    let tx = client.transaction().await?;
                    tx.execute(LOCK_SESSION, &[&tenant, &name]).await?;
                    tx.execute(PURGE_EXPIRED, &[&tenant, &name]).await?;
                    tx.execute(PURGE_EXPIRED_MESSAGES, &[&tenant, &name]).await?;
                    tx.execute(UPSERT_SESSION, &[&tenant, &name, &id, &body, &ttl_ms])
                        .await?;
                    // A re-sent message moves to the end, stored once.
                    tx.execute(
                        "DELETE FROM chat_messages WHERE tenant = $1 AND session = $2 AND id = $3",
                        &[&tenant, &name, &id],
                    )
                    .await?;
                    tx.execute(
                        "INSERT INTO chat_messages (tenant, session, id, body) VALUES ($1, $2, $3, $4)",
                        &[&tenant, &name, &id, &body],
                    )
                    .await?;
                    tx.execute(TRIM_WINDOW, &[&tenant, &name, &keep]).await?;
                    tx.commit().await
                })
            })
            .await
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.ensure_schema().await?;
        let (tenant, name) = (session.tenant.clone(), session.session.clone());
        let limit = limit.min(self.config.messages_max) as i64;
        // One statement, one snapshot: the head and the window agree.
        let row = self
            .pg
            .run(move |client| {
                Box::pin(async move {
                    client
                        .query_opt(
                            "SELECT s.head, ARRAY(SELECT body FROM (SELECT body, pos FROM chat_messages
                                 WHERE tenant = $1 AND session = $2 ORDER BY pos DESC LIMIT $3) w
                                 ORDER BY pos)
                             FROM chat_sessions s WHERE s.tenant = $1 AND s.session = $2
                                 AND s.expires_at > clock_timestamp()",
                            &[&tenant, &name, &limit],
                        )
                        .await
                })
            })
            .await?;
        let Some(row) = row else {
            return Ok(Vec::new());
        };
        let (head, window): (Option<Vec<u8>>, Vec<Vec<u8>>) = (row.get(0), row.get(1));
        with_head(head, window)
    }

    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        self.ensure_schema().await?;
        let (tenant, name) = (session.tenant.clone(), session.session.clone());
        self.pg
            .run(move |client| {
                Box::pin(async move {
                    let tx = client.transaction().await?;
                    tx.execute(LOCK_SESSION, &[&tenant, &name]).await?;
                    tx.execute(
                        "DELETE FROM chat_sessions WHERE tenant = $1 AND session = $2",
                        &[&tenant, &name],
                    )
                    .await?;
                    tx.execute(PURGE_EXPIRED_MESSAGES, &[&tenant, &name])
                        .await?;
                    tx.commit().await
                })
            })
            .await
    }

    async fn delete(&self, session: &SessionKey, id: &str) -> Result<(), StoreError> {
        self.ensure_schema().await?;
        let (tenant, name, id) = (
            session.tenant.clone(),
            session.session.clone(),
            id.to_string(),
        );
        self.pg
            .run(move |client| {
                Box::pin(async move {
                    let tx = client.transaction().await?;
                    tx.execute(LOCK_SESSION, &[&tenant, &name]).await?;
                    tx.execute(
                        "DELETE FROM chat_messages WHERE tenant = $1 AND session = $2 AND id = $3",
                        &[&tenant, &name, &id],
                    )
                    .await?;
                    tx.execute(
                        "UPDATE chat_sessions SET head_id = NULL, head = NULL
                         WHERE tenant = $1 AND session = $2 AND head_id = $3",
                        &[&tenant, &name, &id],
                    )
                    .await?;
                    tx.commit().await
                })
            })
            .await
    }

    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.ensure_schema().await?;
        let (tenant, name) = (user.tenant.clone(), user.user.clone());
        let (id, text) = (memory.id.clone(), memory.text.clone());
        let embedding = self.embedding(&memory.text);
        let commit_mode = self.commit_mode();
        self.pg
            .run(move |client| {
                Box::pin(async move {
                    if let Some(set) = &commit_mode {
                        client.batch_execute(set).await?;
                    }
                    client
                        .execute(
                            "INSERT INTO memories (id, tenant, user_name, text, embedding)
                             VALUES ($1, $2, $3, $4, $5)
                             ON CONFLICT (id, tenant, user_name) DO UPDATE
                             SET text = EXCLUDED.text, embedding = EXCLUDED.embedding",
                            &[&id, &tenant, &name, &text, &embedding],
                        )
                        .await
                        .map(|_| ())
                })
            })
            .await
    }

    async fn recall(
        &self,
        user: &UserKey,
        query: &str,
        k: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        self.ensure_schema().await?;
        let (tenant, name) = (user.tenant.clone(), user.user.clone());
        let embedding = self.embedding(query);
        let (settings, sql) = (set_local(&self.search_settings()), self.recall_sql());
        let k = k as i64;
        let rows = self
            .pg
            .run(move |client| {
                Box::pin(async move {
                    let tx = client.transaction().await?;
                    tx.batch_execute(&settings).await?;
                    let rows = tx.query(sql, &[&tenant, &name, &embedding, &k]).await?;
                    tx.commit().await?;
                    Ok(rows)
                })
            })
            .await?;
        Ok(rows
            .iter()
            .map(|row| Memory {
                id: row.get(0),
                text: row.get(1),
            })
            .collect())
    }

    async fn update_memory(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        if self.config.update_keeps_embedding {
            return self.update_text_only(user, memory).await;
        }
        // The upsert of `remember` replaces the row, embedding and all, in one statement.
        self.remember(user, memory).await
    }

    async fn forget(&self, user: &UserKey, id: &str) -> Result<(), StoreError> {
        self.ensure_schema().await?;
        let (tenant, name, id) = (user.tenant.clone(), user.user.clone(), id.to_string());
        self.pg
            .run(move |client| {
                Box::pin(async move {
                    client
                        .execute(
                            "DELETE FROM memories WHERE id = $1 AND tenant = $2 AND user_name = $3",
                            &[&id, &tenant, &name],
                        )
                        .await
                        .map(|_| ())
                })
            })
            .await
    }

    /// Index health: `stored` is every row of the user; `indexed` the rows an index scan
    /// finds when asked for their own text (embedded by the code's current model), among
    /// as many nearest rows as the user has with that text; `exact` the same by an exact
    /// scan (`enable_indexscan = off`). A row the index never got is stored but not
    /// indexed, yet exact; one whose embedding is not its text's is neither.
    async fn audit_memories(&self, user: &UserKey) -> Result<MemoryAudit, StoreError> {
        if !self.config.audit {
            return Err(StoreError::Unsupported);
        }
        self.ensure_schema().await?;
        let (tenant, name) = (user.tenant.clone(), user.user.clone());
        let index_scan = set_local(&self.search_settings());
        // After the index scan's settings, in the same transaction: undo them.
        let exact_scan = set_local(&vec![
            "enable_seqscan = on".to_string(),
            "enable_sort = on".into(),
            "enable_indexscan = off".into(),
            "enable_bitmapscan = off".into(),
        ]);
        let sql = self.recall_sql();
        let model = self.config.model;
        self.pg
            .run(move |client| {
                Box::pin(async move {
                    let tx = client.transaction().await?;
                    tx.batch_execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                        .await?;
                    let rows = tx
                        .query(
                            "SELECT id, text, embedding FROM memories
                             WHERE tenant = $1 AND user_name = $2 ORDER BY id",
                            &[&tenant, &name],
                        )
                        .await?;
                    let stored: Vec<(String, String)> =
                        rows.iter().map(|row| (row.get(0), row.get(1))).collect();
                    let embeddings = rows
                        .iter()
                        .map(|row| {
                            let (id, text, vector): (String, String, Vector) =
                                (row.get(0), row.get(1), row.get(2));
                            let of_text = crate::embed::embed_with_model(&text, model);
                            IndexedEmbedding::compare(&id, Some(vector.as_slice()), &of_text)
                        })
                        .collect();
                    let mut found = [Vec::new(), Vec::new()];
                    for (settings, ids) in [&index_scan, &exact_scan].into_iter().zip(&mut found) {
                        tx.batch_execute(settings).await?;
                        *ids = find_by_own_text(&tx, sql, (&tenant, &name), &stored, model).await?;
                    }
                    tx.commit().await?;
                    let [indexed, exact] = found;
                    let stored = stored.into_iter().map(|(id, _)| id).collect();
                    Ok(MemoryAudit {
                        stored,
                        indexed,
                        exact: Some(exact),
                        embeddings: Some(embeddings),
                    })
                })
            })
            .await
    }

    fn policy(&self) -> Policy {
        Policy {
            messages_max: Some(self.config.messages_max),
            keep_first: true,
            summarizes: false,
            ttl: TtlPolicy::Sliding {
                ttl_ms: self.config.ttl_ms,
            },
            // What the server runs with: a commit is acknowledged once its WAL is
            // flushed. `async-commit` declares it too, and runs otherwise.
            durability: Durability::Postgres(SynchronousCommit::On),
            appends_idempotent: true,
            recovery_grace_ms: crate::contract::RECOVERY_GRACE_MS_DEFAULT,
            eviction: crate::contract::Eviction::Forbidden,
        }
    }
}

/// One client's pgvector store: the reference configuration, changed by `tweak` (a
/// variant's bug; a no-op for the reference).
pub(crate) fn build(
    context: crate::contract::StoreContext,
    tweak: fn(&mut PgVectorConfig, &crate::contract::StoreContext),
) -> Arc<dyn MemoryStore> {
    let Some(pg) = context.postgres.clone() else {
        let why = "a pgvector store runs only where the run has PostgreSQL".to_string();
        return Arc::new(crate::store::Unserved::new(why));
    };
    let mut config = PgVectorConfig::reference(crate::store::MESSAGES_MAX, context.session_ttl_ms);
    tweak(&mut config, &context);
    Arc::new(PgVectorStore::new(pg, config))
}
