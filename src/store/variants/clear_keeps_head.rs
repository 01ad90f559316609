//! `clear-keeps-head`: "new chat" deletes the session's message list but forgets the
//! second key of the layout, the pinned first message (`head`) that keep-first retention
//! reads. The cleared conversation's system prompt (or first message) comes back in
//! every later read of the session, and no new first message can take its place: a
//! message read after the clear that removed it (`zombie`).

use crate::connect::Connector;
use crate::store::{
    Memory, MemoryAudit, MemoryStore, Message, Policy, RedisChatStore, SessionKey, StoreError,
    UserKey,
};
use std::sync::Arc;

/// The reference store whose clear leaves the head key.
pub struct ClearKeepsHeadStore {
    inner: RedisChatStore,
    connector: Arc<Connector>,
}

impl ClearKeepsHeadStore {
    pub fn new(inner: RedisChatStore, connector: Arc<Connector>) -> Self {
        Self { inner, connector }
    }
}

#[async_trait::async_trait]
impl MemoryStore for ClearKeepsHeadStore {
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

    async fn delete(&self, session: &SessionKey, id: &str) -> Result<(), StoreError> {
        self.inner.delete(session, id).await
    }

    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.inner.remember(user, memory).await
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
