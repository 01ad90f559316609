//! `plain-list`: a session's history as one Redis list, the way most chat-history libraries
//! keep it (langchain's `RedisChatMessageHistory`, langchain-rust's, daimon's): every
//! append is an `RPUSH` of the encoded message with the session's `PEXPIRE` in the same
//! `MULTI`, a read is `LRANGE -limit -1`, a clear is `DEL`. Nothing trims the list and
//! nothing makes an append idempotent: a message sent twice is stored twice, which the
//! store declares (`appends_idempotent: false`) and the checker then allows.

use crate::connect::Connector;
use crate::contract::{MemoryStore, Policy, StoreError, TtlPolicy};
use crate::domain::{Message, SessionKey};
use crate::store::reference::{decode_message, encode_message, escape_key_part};
use std::sync::Arc;

/// One list per session, pushed to by every append.
pub struct PlainListStore {
    pub(crate) connector: Arc<Connector>,
    /// The sliding session TTL, refreshed by every append.
    pub(crate) ttl_ms: u64,
}

impl PlainListStore {
    /// The session's list key: tenant and session escaped, so no two sessions share it.
    pub(crate) fn key(session: &SessionKey) -> String {
        format!(
            "history:{}:{}",
            escape_key_part(&session.tenant),
            escape_key_part(&session.session)
        )
    }

    /// The list from index `from` to its end, oldest first (`LRANGE from -1`).
    pub(crate) async fn range(&self, key: &str, from: isize) -> Result<Vec<Message>, StoreError> {
        let pipe = range_pipe(key, from);
        let (raw,): (Vec<Vec<u8>>,) = self
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        decode_all(&raw)
    }

    /// What the store declares: no trimming, no kept first message, a sliding TTL, only
    /// what Redis applied acknowledged, appends not idempotent.
    pub(crate) fn declared(ttl_ms: u64) -> Policy {
        Policy {
            messages_max: None,
            keep_first: false,
            summarizes: false,
            ttl: TtlPolicy::Sliding { ttl_ms },
            durability: crate::contract::Durability::AsRedis,
            appends_idempotent: false,
            recovery_grace_ms: crate::contract::RECOVERY_GRACE_MS_DEFAULT,
            eviction: crate::contract::Eviction::Forbidden,
        }
    }
}

/// An append: the `RPUSH` and the session's `PEXPIRE` in one `MULTI`.
pub(crate) fn append_pipe(session: &SessionKey, msg: &Message, ttl_ms: u64) -> redis::Pipeline {
    let key = PlainListStore::key(session);
    let mut pipe = redis::pipe();
    pipe.atomic()
        .rpush(&key, encode_message(msg))
        .ignore()
        .pexpire(&key, ttl_ms as i64)
        .ignore();
    pipe
}

/// A read of the list from index `from` to its end.
pub(crate) fn range_pipe(key: &str, from: isize) -> redis::Pipeline {
    let mut pipe = redis::pipe();
    pipe.lrange(key, from, -1);
    pipe
}

/// A clear: the list deleted.
pub(crate) fn clear_pipe(session: &SessionKey) -> redis::Pipeline {
    let mut pipe = redis::pipe();
    pipe.del(PlainListStore::key(session)).ignore();
    pipe
}

/// The messages of a list read.
pub(crate) fn decode_all(raw: &[Vec<u8>]) -> Result<Vec<Message>, StoreError> {
    raw.iter().map(|data| decode_message(data)).collect()
}

#[async_trait::async_trait]
impl MemoryStore for PlainListStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let pipe = append_pipe(session, msg, self.ttl_ms);
        self.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
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
        self.range(&Self::key(session), -(limit as isize)).await
    }

    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        let pipe = clear_pipe(session);
        self.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }

    fn policy(&self) -> Policy {
        Self::declared(self.ttl_ms)
    }
}
