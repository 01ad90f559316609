//! `write-behind`: append hands the write to a background task and returns at once, to
//! answer faster. The next turn, possibly on another client, can read a context without
//! the last exchange: the checker calls it `lost`.

use crate::store::{Message, RedisChatStore, SessionKey, StoreError};
use std::sync::Arc;

/// The reference store with a fire-and-forget append.
pub struct WriteBehindStore {
    pub(crate) inner: Arc<RedisChatStore>,
}

super::memory_store!(WriteBehindStore, forward inner [context, policy] {
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
});
