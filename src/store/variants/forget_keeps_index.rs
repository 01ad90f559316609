//! `forget-keeps-index`: forgetting a memory deletes its data (`HDEL`) but leaves its id
//! in the index set ("recall skips ids without data, and the nightly rebuild drops them").
//! Recall looks right, but the index now names memories that no longer exist, and at
//! quiescence stored and indexed memories disagree (`index-drift`): a deleted memory is
//! still indexed, which is what a right-to-erasure request must not leave behind.

use crate::connect::Connector;
use crate::store::reference::memory_keys;
use crate::store::{StoreError, UserKey};
use std::sync::Arc;

/// The reference store whose forget leaves the index entry.
pub struct ForgetKeepsIndexStore {
    pub(crate) inner: crate::store::RedisChatStore,
    pub(crate) connector: Arc<Connector>,
}

super::memory_store!(ForgetKeepsIndexStore, forward inner [
    append, context, remember, update_memory, recall, audit_memories, policy
] {
    async fn forget(&self, user: &UserKey, id: &str) -> Result<(), StoreError> {
        // The bug: only the data goes; the index entry stays.
        let (data, _index) = memory_keys(user);
        let id = id.to_string();
        self.connector
            .run(|mut connection| async move {
                redis::cmd("HDEL")
                    .arg(&data)
                    .arg(&id)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
    }
});
