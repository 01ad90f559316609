//! `clear-keeps-head`: "new chat" deletes the session's message list but forgets the
//! second key of the layout, the pinned first message (`head`) that keep-first retention
//! reads. The cleared conversation's system prompt (or first message) comes back in
//! every later read of the session, and no new first message can take its place: a
//! message read after the clear that removed it (`zombie`).

use crate::connect::Connector;
use crate::store::{RedisChatStore, SessionKey, StoreError};
use std::sync::Arc;

/// The reference store whose clear leaves the head key.
pub struct ClearKeepsHeadStore {
    pub(crate) inner: RedisChatStore,
    pub(crate) connector: Arc<Connector>,
}

super::memory_store!(ClearKeepsHeadStore, forward inner [
    append, context, delete, remember, recall, audit_memories, policy
] {
    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        // The bug: the list goes, the head stays.
        let (list, _head) = self.inner.keys(session);
        self.connector
            .run(|mut connection| async move {
                redis::cmd("DEL")
                    .arg(&list)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
    }
});
