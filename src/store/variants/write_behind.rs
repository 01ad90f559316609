//! `write-behind`: append hands the write to a background task and returns at once, to
//! answer faster. The next turn, possibly on another client, can read a context without
//! the last exchange: the checker calls it `lost`.

use crate::store::{MemoryStore, Message, Policy, RedisChatStore, SessionKey, StoreError};
use std::sync::Arc;

/// The reference store with a fire-and-forget append.
pub struct WriteBehindStore {
    inner: Arc<RedisChatStore>,
}

impl WriteBehindStore {
    pub fn new(inner: RedisChatStore) -> Self {
        Self {
            inner: Arc::new(inner),
        }
    }
}

#[async_trait::async_trait]
impl MemoryStore for WriteBehindStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (inner, session, msg) = (self.inner.clone(), session.clone(), msg.clone());
        let write = async move {
            // The bug: nobody waits for this, and its failure is never seen.
            let _ = inner.append(&session, &msg).await;
        };
        // The caller's span goes along, so the write's log events keep their host.
        tokio::spawn(tracing::Instrument::in_current_span(write));
        Ok(())
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        self.inner.context(session, limit).await
    }

    fn policy(&self) -> Policy {
        self.inner.policy()
    }
}
