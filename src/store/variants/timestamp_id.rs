//! `timestamp-id`: the store gives each message its own id, `tenant:session:<unix ms>` from
//! the app host's clock, and keeps the session as a hash from id to message (ordered by the
//! timestamp in the id). Two appends of a session within the same millisecond get the same
//! id and the second `HSET` overwrites the first: an acknowledged message is gone (`lost`).
//! Fast links make the user and assistant appends of one turn land in one millisecond; a
//! host clock jumping back makes an id repeat later on.

use super::Layout;
use crate::clock::Clock;
use crate::store::reference::{decode_message, encode_message, escape_key_part};
use crate::store::{Message, SessionKey, StoreError};

/// One hash per session: message id → encoded message.
pub struct TimestampIdStore {
    pub(crate) base: Layout,
    pub(crate) clock: Clock,
}

fn session_base(session: &SessionKey) -> String {
    format!(
        "{}:{}",
        escape_key_part(&session.tenant),
        escape_key_part(&session.session)
    )
}

fn hash_key(session: &SessionKey) -> String {
    format!("chat:v1:{}:by-id", session_base(session))
}

/// The millisecond timestamp at the end of an id.
fn id_millis(id: &str) -> u64 {
    id.rsplit(':')
        .next()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(0)
}

impl TimestampIdStore {
    /// Drop the oldest ids past the first message and the newest `messages_max`.
    async fn trim(&self, key: &str, mut ids: Vec<String>) -> Result<(), StoreError> {
        let max = self.base.config.messages_max;
        if ids.len() <= max + 1 {
            return Ok(());
        }
        ids.sort_by_key(|id| id_millis(id));
        let doomed: Vec<String> = ids[1..ids.len() - max].to_vec();
        let key = key.to_string();
        self.base
            .connector
            .run(|mut connection| async move {
                redis::cmd("HDEL")
                    .arg(&key)
                    .arg(&doomed)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
    }
}

super::memory_store!(TimestampIdStore, forward base [policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let key = hash_key(session);
        // The bug: a millisecond timestamp is not unique per session.
        let id = format!("{}:{}", session_base(session), self.clock.now_ms());
        let mut pipe = redis::pipe();
        pipe.atomic()
            .hset(&key, &id, encode_message(msg))
            .ignore()
            .pexpire(&key, self.base.config.ttl_ms as i64)
            .ignore()
            .hkeys(&key);
        let (ids,): (Vec<String>,) = self
            .base
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        self.trim(&key, ids).await
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = hash_key(session);
        let mut entries: Vec<(String, Vec<u8>)> = self
            .base
            .connector
            .run(|mut connection| async move {
                redis::cmd("HGETALL")
                    .arg(&key)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        entries.sort_by_key(|(id, _)| id_millis(id));
        let start = entries.len().saturating_sub(limit);
        let mut messages = Vec::with_capacity(limit + 1);
        if start > 0 {
            messages.push(decode_message(&entries[0].1)?);
        }
        for (_, data) in &entries[start..] {
            messages.push(decode_message(data)?);
        }
        Ok(messages)
    }
});
