//! The incidents' migration: code version 1 keeps chat history and memories in Redis
//! (the reference store), code version 2 in PostgreSQL + pgvector (the reference pgvector
//! store), and the deploy between them runs a one-off job ([`MemoryStore::migrate`]) that
//! copies every session (its window, first message and TTL) and every memory (embedded
//! on the way) from Redis to PostgreSQL while requests are drained.
//!
//! The reference job copies everything in one transaction and starts over when it fails
//! (a connection reset mid-copy); the `migrate-nontransactional` variant writes row by
//! row and gives up at the first error, leaving the copy half done.

use crate::connect::Connector;
use crate::contract::{MemoryStore, StoreError};
use crate::domain::{Memory, UserKey};
use crate::postgres::PgConnector;
use crate::store::pgvector::{PgVectorConfig, PgVectorStore};
use crate::store::reference::{decode_message, ChatStoreConfig, RedisChatStore};
use crate::store::SessionKey;
use pgvector::Vector;
use std::sync::Arc;
use tokio_postgres::GenericClient;

/// Attempts of the reference job before the deploy goes on without it: with
/// [`RETRY_WAIT_MS`] between them, longer than any chain of the plan's server outages,
/// which end with the busy phase.
const ATTEMPTS_MAX: u32 = 160;
/// Between two attempts.
const RETRY_WAIT_MS: u64 = 250;
/// Keys one `SCAN` step asks for.
const SCAN_COUNT: u64 = 1_000;
/// Sessions and memory sets a job copies at most: a bound, far above any plan's.
const KEYS_MAX: usize = 100_000;

/// One session as Redis holds it.
struct SessionCopy {
    session: SessionKey,
    head: Option<Vec<u8>>,
    window: Vec<Vec<u8>>,
    /// Unix milliseconds when the session expires; `None`: never.
    expires_at_ms: Option<i64>,
}

/// Everything the job copies.
#[derive(Default)]
struct Export {
    sessions: Vec<SessionCopy>,
    memories: Vec<(UserKey, Memory)>,
}

/// The job of code version 2: read Redis, write PostgreSQL.
struct Job {
    redis: Arc<Connector>,
    pg: Arc<PgConnector>,
    target: Arc<PgVectorStore>,
    transactional: bool,
    vectors: Vectors,
}

/// The vector the job writes with each memory it copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vectors {
    /// The embedding of its text by the model the new code queries with: the reference.
    OfText,
    /// The embedding by the old system's model (model 2): the rows look migrated, and the
    /// new code's queries do not find them (`migrate-old-embedding`).
    OldModel,
    /// A zero placeholder, for a backfill that never runs: an HNSW cosine index skips a
    /// zero vector, so the memory is stored and never indexed (`migrate-placeholder-vectors`,
    /// the incident's one memory whose index entry was never built).
    Placeholder,
}

/// The store of one client process: the Redis reference before the deploy, the pgvector
/// reference (and the job) after it.
pub struct MigratingStore {
    current: Arc<dyn MemoryStore>,
    job: Option<Job>,
}

/// One client's migrating store; the job of `migrate-nontransactional` is not
/// `transactional`, the migration variants write other `vectors`.
pub(crate) fn build(
    context: crate::contract::StoreContext,
    transactional: bool,
    vectors: Vectors,
) -> Arc<dyn MemoryStore> {
    let ttl_ms = context.session_ttl_ms;
    let messages_max = crate::store::MESSAGES_MAX;
    let redis = context.connector.clone();
    let store = match (context.code_version, context.postgres.clone()) {
        (1, _) | (_, None) => MigratingStore {
            current: Arc::new(RedisChatStore::new(
                redis,
                ChatStoreConfig {
                    messages_max,
                    ttl_ms,
                },
            )),
            job: None,
        },
        (_, Some(pg)) => {
            let config = PgVectorConfig::reference(messages_max, ttl_ms);
            let target = Arc::new(PgVectorStore::new(pg.clone(), config));
            let job = Job {
                redis,
                pg,
                target: target.clone(),
                transactional,
                vectors,
            };
            MigratingStore {
                current: target,
                job: Some(job),
            }
        }
    };
    Arc::new(store)
}

/// `chat:v1:{tenant}:{session}:messages` or `mem:v1:{tenant}:{user}:data` → its two parts.
fn key_parts(key: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = key.split(':').collect();
    let [_, "v1", first, second, _] = parts[..] else {
        return None;
    };
    Some((unescape(first), unescape(second)))
}

/// The inverse of [`crate::escape_key_part`].
fn unescape(part: &str) -> String {
    part.replace("%3A", ":").replace("%25", "%")
}

impl Job {
    async fn scan(&self, pattern: &str) -> Result<Vec<String>, StoreError> {
        let mut keys = Vec::new();
        let mut cursor = 0u64;
        loop {
            let (next, found): (u64, Vec<String>) = self
                .redis
                .run(|mut c| async move {
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(pattern)
                        .arg("COUNT")
                        .arg(SCAN_COUNT)
                        .query_async(&mut c)
                        .await
                })
                .await?;
            keys.extend(found);
            if next == 0 || keys.len() > KEYS_MAX {
                break;
            }
            cursor = next;
        }
        keys.sort();
        keys.dedup();
        Ok(keys)
    }

    async fn export(&self) -> Result<Export, StoreError> {
        let mut export = Export::default();
        for key in self.scan("chat:v1:*:messages").await? {
            let Some((tenant, name)) = key_parts(&key) else {
                continue;
            };
            let session = SessionKey::new(tenant, name);
            let (list, head) = crate::store::reference::session_keys(&session);
            let mut pipe = redis::pipe();
            pipe.atomic()
                .lrange(&list, 0, -1)
                .get(&head)
                .cmd("PEXPIRETIME")
                .arg(&list);
            let (window, head, expires_at_ms): (Vec<Vec<u8>>, Option<Vec<u8>>, i64) = self
                .redis
                .run(|mut c| async move { pipe.query_async(&mut c).await })
                .await?;
            if expires_at_ms == -2 {
                continue; // expired between the scan and the read
            }
            export.sessions.push(SessionCopy {
                session,
                head,
                window,
                expires_at_ms: (expires_at_ms >= 0).then_some(expires_at_ms),
            });
        }
        for key in self.scan("mem:v1:*:data").await? {
            let Some((tenant, name)) = key_parts(&key) else {
                continue;
            };
            let user = UserKey { tenant, user: name };
            let (data, index) = crate::store::reference::memory_keys(&user);
            let mut pipe = redis::pipe();
            pipe.atomic().hgetall(&data).smembers(&index);
            let (stored, indexed): (Vec<(String, Vec<u8>)>, Vec<String>) = self
                .redis
                .run(|mut c| async move { pipe.query_async(&mut c).await })
                .await?;
            for (id, encoded) in stored {
                if !indexed.contains(&id) {
                    continue;
                }
                let memory: Memory = serde_json::from_slice(&encoded)
                    .map_err(|e| StoreError::Server(format!("undecodable memory {id}: {e}")))?;
                export.memories.push((user.clone(), memory));
            }
        }
        Ok(export)
    }

    /// Copy `export` in one transaction (the reference) or statement by statement.
    async fn import(&self, export: Arc<Export>) -> Result<(), StoreError> {
        self.target.ensure_schema().await?;
        let (transactional, vectors) = (self.transactional, self.vectors);
        self.pg
            .run(move |client| {
                Box::pin(async move {
                    if !transactional {
                        return copy_all(&*client, &export, vectors).await;
                    }
                    let tx = client.transaction().await?;
                    copy_all(&tx, &export, vectors).await?;
                    tx.commit().await
                })
            })
            .await
    }

    async fn run(&self) -> Result<String, StoreError> {
        let mut last = StoreError::Unavailable("no attempt".into());
        let attempts_max = if self.transactional { ATTEMPTS_MAX } else { 1 };
        for attempt in 1..=attempts_max {
            if attempt > 1 {
                tokio::time::sleep(std::time::Duration::from_millis(RETRY_WAIT_MS)).await;
            }
            let export = match self.export().await {
                Ok(export) => Arc::new(export),
                Err(error) => {
                    last = error;
                    continue;
                }
            };
            match self.import(export.clone()).await {
                Ok(()) => {
                    let messages: usize = export.sessions.iter().map(|s| s.window.len()).sum();
                    return Ok(format!(
                        "{} sessions ({messages} messages) and {} memories copied to pgvector \
                         (attempt {attempt})",
                        export.sessions.len(),
                        export.memories.len()
                    ));
                }
                Err(error) => last = error,
            }
        }
        Err(last)
    }
}

async fn copy_all<C: GenericClient + Sync>(
    client: &C,
    export: &Export,
    vectors: Vectors,
) -> Result<(), tokio_postgres::Error> {
    for copy in &export.sessions {
        import_session(client, copy).await?;
    }
    for (user, memory) in &export.memories {
        import_memory(client, user, memory, vectors).await?;
    }
    Ok(())
}

async fn import_session<C: GenericClient + Sync>(
    client: &C,
    copy: &SessionCopy,
) -> Result<(), tokio_postgres::Error> {
    let (tenant, name) = (&copy.session.tenant, &copy.session.session);
    let head_id = copy
        .head
        .as_deref()
        .and_then(|head| decode_message(head).ok())
        .map(|message| message.id);
    // A session without expiry keeps a far expiry: the table's column is not nullable.
    let expires_at_ms = copy.expires_at_ms.unwrap_or(i64::MAX / 1_000_000) as f64;
    client
        .execute(
            "INSERT INTO chat_sessions (tenant, session, head_id, head, expires_at)
             VALUES ($1, $2, $3, $4, to_timestamp($5::float8 / 1000.0))
             ON CONFLICT (tenant, session) DO UPDATE SET head_id = EXCLUDED.head_id,
                 head = EXCLUDED.head, expires_at = EXCLUDED.expires_at",
            &[tenant, name, &head_id, &copy.head, &expires_at_ms],
        )
        .await?;
    client
        .execute(
            "DELETE FROM chat_messages WHERE tenant = $1 AND session = $2",
            &[tenant, name],
        )
        .await?;
    for body in &copy.window {
        let Ok(message) = decode_message(body) else {
            continue;
        };
        client
            .execute(
                "INSERT INTO chat_messages (tenant, session, id, body) VALUES ($1, $2, $3, $4)",
                &[tenant, name, &message.id, body],
            )
            .await?;
    }
    Ok(())
}

async fn import_memory<C: GenericClient + Sync>(
    client: &C,
    user: &UserKey,
    memory: &Memory,
    vectors: Vectors,
) -> Result<(), tokio_postgres::Error> {
    let values = match vectors {
        Vectors::OfText => crate::embed::embed(&memory.text).to_vec(),
        Vectors::OldModel => crate::embed::embed_with_model(&memory.text, 2).to_vec(),
        Vectors::Placeholder => vec![0.0; crate::embed::DIMENSIONS],
    };
    let embedding = Vector::from(values);
    client
        .execute(
            "INSERT INTO memories (id, tenant, user_name, text, embedding)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id, tenant, user_name) DO UPDATE
             SET text = EXCLUDED.text, embedding = EXCLUDED.embedding",
            &[
                &memory.id,
                &user.tenant,
                &user.user,
                &memory.text,
                &embedding,
            ],
        )
        .await
        .map(|_| ())
}

#[async_trait::async_trait]
impl MemoryStore for MigratingStore {
    async fn append(
        &self,
        session: &SessionKey,
        msg: &crate::domain::Message,
    ) -> Result<(), StoreError> {
        self.current.append(session, msg).await
    }
    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<crate::domain::Message>, StoreError> {
        self.current.context(session, limit).await
    }
    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        self.current.clear(session).await
    }
    async fn delete(&self, session: &SessionKey, id: &str) -> Result<(), StoreError> {
        self.current.delete(session, id).await
    }
    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.current.remember(user, memory).await
    }
    async fn recall(
        &self,
        user: &UserKey,
        query: &str,
        k: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        self.current.recall(user, query, k).await
    }
    async fn update_memory(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.current.update_memory(user, memory).await
    }
    async fn forget(&self, user: &UserKey, id: &str) -> Result<(), StoreError> {
        self.current.forget(user, id).await
    }
    async fn audit_memories(
        &self,
        user: &UserKey,
    ) -> Result<crate::contract::MemoryAudit, StoreError> {
        self.current.audit_memories(user).await
    }
    async fn migrate(&self) -> Result<Option<String>, StoreError> {
        match &self.job {
            Some(job) => job.run().await.map(Some),
            None => Ok(None),
        }
    }
    fn policy(&self) -> crate::contract::Policy {
        self.current.policy()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_parts_undo_the_escaping() {
        let session = SessionKey::new("a:b%", "c%3Ad");
        let (list, _) = crate::store::reference::session_keys(&session);
        assert_eq!(key_parts(&list), Some(("a:b%".into(), "c%3Ad".into())));
        assert_eq!(key_parts("chat2:{t}:s:log"), None);
    }
}
