//! `context-cache`: reads are served from a materialized context. After each append the
//! store reads the session's window back and writes it, as one JSON value, to a cache key
//! that `context` reads in one `GET` ("reads are ten times more frequent than writes").
//! Two appends of one conversation in flight together (a double submit, two tabs, a
//! retry on another instance) each refresh the cache from their own read: when the one
//! that read first writes last, the cache lacks the other's message, and every read until
//! the next append misses an acknowledged message (`lost`).
//!
//! The hop between the read-back and the cache write is a buggify point.

use crate::connect::Connector;
use crate::store::reference::with_head;
use crate::store::{ChatStoreConfig, Message, RedisChatStore, SessionKey, StoreError};
use std::sync::Arc;

/// The reference store with a read-through cache of each session's context.
pub struct ContextCacheStore {
    pub(crate) inner: RedisChatStore,
    pub(crate) connector: Arc<Connector>,
    pub(crate) config: ChatStoreConfig,
}

/// The cached context: the first message and the window, as the stored JSON texts.
type Cached = (Option<String>, Vec<String>);

impl ContextCacheStore {
    fn cache_key(&self, session: &SessionKey) -> String {
        format!("{}:context-cache", self.inner.keys(session).0)
    }

    /// The bug: read back, then write the cache, with other appends free to land between.
    async fn refresh(&self, session: &SessionKey) -> Result<(), StoreError> {
        let (list, head) = self.inner.keys(session);
        let keep = self.config.messages_max as isize;
        let mut pipe = redis::pipe();
        pipe.atomic().get(&head).lrange(&list, -keep, -1);
        let cached: Cached = self
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        crate::buggify::delay("context-cache.between-read-and-cache").await;
        let (key, json) = (
            self.cache_key(session),
            serde_json::to_string(&cached).expect("cache"),
        );
        let ttl_ms = self.config.ttl_ms;
        self.connector
            .run(|mut connection| async move {
                redis::cmd("SET")
                    .arg(&key)
                    .arg(&json)
                    .arg("PX")
                    .arg(ttl_ms)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
    }

    async fn invalidate(&self, session: &SessionKey) -> Result<(), StoreError> {
        let key = self.cache_key(session);
        self.connector
            .run(|mut connection| async move {
                redis::cmd("DEL")
                    .arg(&key)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
    }
}

super::memory_store!(ContextCacheStore, forward inner [remember, recall, audit_memories, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        self.inner.append(session, msg).await?;
        self.refresh(session).await
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = self.cache_key(session);
        let raw: Option<String> = self
            .connector
            .run(|mut connection| async move {
                redis::cmd("GET")
                    .arg(&key)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        let Some(raw) = raw else {
            return self.inner.context(session, limit).await;
        };
        let (head, window): Cached = serde_json::from_str(&raw)
            .map_err(|e| StoreError::Server(format!("undecodable context cache: {e}")))?;
        let from = window.len().saturating_sub(limit);
        let window = window[from..]
            .iter()
            .map(|m| m.clone().into_bytes())
            .collect();
        with_head(head.map(String::into_bytes), window)
    }

    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        self.inner.clear(session).await?;
        self.invalidate(session).await
    }

    async fn delete(&self, session: &SessionKey, id: &str) -> Result<(), StoreError> {
        self.inner.delete(session, id).await?;
        self.invalidate(session).await
    }
});
