//! `forget-keeps-index`: forgetting a memory deletes its data (`HDEL`) but leaves its id
//! in the index set ("recall skips ids without data, and the nightly rebuild drops them").
//! Recall looks right, but the index now names memories that no longer exist, and at
//! quiescence stored and indexed memories disagree (`index-drift`): a deleted memory is
//! still indexed, which is what a right-to-erasure request must not leave behind.

use crate::connect::Connector;
use crate::store::reference::memory_keys;
use crate::store::{
    Memory, MemoryAudit, MemoryStore, Message, Policy, RedisChatStore, SessionKey, StoreError,
    UserKey,
};
use std::sync::Arc;

/// The reference store whose forget leaves the index entry.
pub struct ForgetKeepsIndexStore {
    inner: RedisChatStore,
    connector: Arc<Connector>,
}

impl ForgetKeepsIndexStore {
    pub fn new(inner: RedisChatStore, connector: Arc<Connector>) -> Self {
        Self { inner, connector }
    }
}

#[async_trait::async_trait]
impl MemoryStore for ForgetKeepsIndexStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        self.inner.append(session, msg).await
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        self.inner.context(session, limit).await
    }

    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.inner.remember(user, memory).await
    }

    async fn update_memory(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.inner.update_memory(user, memory).await
    }

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

    async fn recall(
        &self,
        user: &UserKey,
        query: &str,
        k: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        self.inner.recall(user, query, k).await
    }

    async fn audit_memories(&self, user: &UserKey) -> Result<MemoryAudit, StoreError> {
        self.inner.audit_memories(user).await
    }

    fn policy(&self) -> Policy {
        self.inner.policy()
    }
}
