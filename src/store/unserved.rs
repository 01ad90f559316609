//! The store of a client whose run cannot build the user's store (a factory that takes a
//! [`PgContext`](crate::contract::PgContext) in a run without PostgreSQL): every call
//! fails as unavailable, with the reason. `Builder::validate` refuses such a store before
//! anything runs; this is what a path around it meets instead of a panic.

use crate::contract::{Durability, MemoryStore, Policy, StoreError, TtlPolicy};
use crate::domain::{Message, SessionKey};

/// A store that answers every call with why it could not be built.
pub(crate) struct Unserved {
    why: String,
}

impl Unserved {
    pub(crate) fn new(why: String) -> Unserved {
        Unserved { why }
    }

    fn refusal(&self) -> StoreError {
        StoreError::Unavailable(self.why.clone())
    }
}

#[async_trait::async_trait]
impl MemoryStore for Unserved {
    async fn append(&self, _session: &SessionKey, _msg: &Message) -> Result<(), StoreError> {
        Err(self.refusal())
    }

    async fn context(
        &self,
        _session: &SessionKey,
        _limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        Err(self.refusal())
    }

    fn policy(&self) -> Policy {
        Policy {
            messages_max: None,
            keep_first: false,
            summarizes: false,
            ttl: TtlPolicy::None,
            durability: Durability::Volatile,
            appends_idempotent: true,
            recovery_grace_ms: crate::contract::RECOVERY_GRACE_MS_DEFAULT,
            eviction: crate::contract::Eviction::Forbidden,
        }
    }
}
