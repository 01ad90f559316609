//! `case-folded-ids`: ids are "normalized" before they become keys: tenant, session and
//! user names are lower-cased, so that `Alice` and `alice` are one user. But ids are
//! opaque bytes to whoever issued them: two sessions whose names differ only in case (or
//! in the Kelvin sign `K` against `k`) now share one key, and each reads the other's
//! messages (`leak`).

use crate::store::{Memory, MemoryAudit, Message, RedisChatStore, SessionKey, StoreError, UserKey};

/// The reference store behind lower-cased ids.
pub struct CaseFoldedIdsStore {
    pub(crate) inner: RedisChatStore,
}

/// The bug: `to_lowercase` on the ids, the key parts of every session and user.
fn session(s: &SessionKey) -> SessionKey {
    SessionKey::new(s.tenant.to_lowercase(), s.session.to_lowercase())
}

fn user(u: &UserKey) -> UserKey {
    UserKey {
        tenant: u.tenant.to_lowercase(),
        user: u.user.to_lowercase(),
    }
}

super::memory_store!(CaseFoldedIdsStore, forward inner [policy] {
    async fn append(&self, s: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        self.inner.append(&session(s), msg).await
    }

    async fn context(&self, s: &SessionKey, limit: usize) -> Result<Vec<Message>, StoreError> {
        self.inner.context(&session(s), limit).await
    }

    async fn clear(&self, s: &SessionKey) -> Result<(), StoreError> {
        self.inner.clear(&session(s)).await
    }

    async fn delete(&self, s: &SessionKey, id: &str) -> Result<(), StoreError> {
        self.inner.delete(&session(s), id).await
    }

    async fn remember(&self, u: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.inner.remember(&user(u), memory).await
    }

    async fn update_memory(&self, u: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.inner.update_memory(&user(u), memory).await
    }

    async fn forget(&self, u: &UserKey, id: &str) -> Result<(), StoreError> {
        self.inner.forget(&user(u), id).await
    }

    async fn recall(&self, u: &UserKey, query: &str, k: usize) -> Result<Vec<Memory>, StoreError> {
        self.inner.recall(&user(u), query, k).await
    }

    async fn audit_memories(&self, u: &UserKey) -> Result<MemoryAudit, StoreError> {
        self.inner.audit_memories(&user(u)).await
    }
});
