//! `retry-check-then-append`: idempotency by looking first. Before it appends, the store
//! reads the session's list and skips the append if the message id is already there
//! ("retries are safe: we check"). The check and the push are two round trips, not one
//! transaction: a retry that races its original (a client timeout, a load balancer
//! resending to another instance) finds the id absent in both, and both push it. A read
//! then shows the message twice (`duplicate`).
//!
//! The hop between the check and the push is a buggify point (a slow network or GC).

use crate::connect::Connector;
use crate::store::reference::decode_message;
use crate::store::{ChatStoreConfig, Message, RedisChatStore, SessionKey, StoreError};
use std::sync::Arc;

/// The reference store, made idempotent by a separate check.
/// `inner` must append without idempotency of its own (the check is all there is).
pub struct CheckThenAppendStore {
    pub(crate) inner: RedisChatStore,
    pub(crate) connector: Arc<Connector>,
    pub(crate) config: ChatStoreConfig,
}

impl CheckThenAppendStore {
    /// True when the newest `messages_max` messages of the session hold `id`.
    async fn already_stored(&self, session: &SessionKey, id: &str) -> Result<bool, StoreError> {
        let (list, _) = self.inner.keys(session);
        let keep = self.config.messages_max as isize;
        let window: Vec<Vec<u8>> = self
            .connector
            .run(|mut connection| async move {
                redis::cmd("LRANGE")
                    .arg(&list)
                    .arg(-keep)
                    .arg(-1)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        Ok(window
            .iter()
            .any(|data| decode_message(data).is_ok_and(|m| m.id == id)))
    }
}

super::memory_store!(CheckThenAppendStore, forward inner [
    context, remember, recall, audit_memories, policy
] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        if self.already_stored(session, &msg.id).await? {
            return Ok(());
        }
        // The bug: between the check and the push, the same message may land from a retry.
        crate::buggify::delay("retry-check-then-append.between-check-and-push").await;
        self.inner.append(session, msg).await
    }
});
