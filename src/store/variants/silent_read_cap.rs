//! `silent-read-cap`: reads cap the window at a fixed count ("never put more than 10
//! messages in the prompt"), whatever `limit` the caller asked for. A caller that asks for
//! more gets fewer messages than exist and than it asked for, without being told: the
//! checker sees acked messages missing inside the limit window (`lost`).

use crate::store::{Message, RedisChatStore, SessionKey, StoreError};

/// The hard-coded window of every read.
pub const CONTEXT_CAP: usize = 10;

/// The reference store with a silently capped read.
pub struct SilentReadCapStore {
    pub(crate) inner: RedisChatStore,
}

super::memory_store!(SilentReadCapStore, forward inner [append, policy] {
    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        // The bug: the cap wins over the caller's limit, silently.
        self.inner.context(session, limit.min(CONTEXT_CAP)).await
    }
});
