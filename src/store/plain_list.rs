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

    /// The whole list, oldest first (`LRANGE from -1`).
    pub(crate) async fn range(&self, key: &str, from: isize) -> Result<Vec<Message>, StoreError> {
        let mut pipe = redis::pipe();
        pipe.lrange(key, from, -1);
        let (raw,): (Vec<Vec<u8>>,) = self
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        raw.iter().map(|data| decode_message(data)).collect()
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
        }
    }
}

#[async_trait::async_trait]
impl MemoryStore for PlainListStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let key = Self::key(session);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .rpush(&key, encode_message(msg))
            .ignore()
            .pexpire(&key, self.ttl_ms as i64)
            .ignore();
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
        let key = Self::key(session);
        self.connector
            .run(|mut connection| async move {
                redis::cmd("DEL")
                    .arg(&key)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
    }

    fn policy(&self) -> Policy {
        Self::declared(self.ttl_ms)
    }
}
