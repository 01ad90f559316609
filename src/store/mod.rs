//! Memory stores: the system under test. [`MemoryStore`] is the contract; the reference
//! store and the buggy variants implement it over the real `redis` crate.

mod reference;
#[doc(hidden)]
pub mod testing;
mod types;
pub mod variants;

pub use reference::{ChatStoreConfig, RedisChatStore};
pub use types::{
    Durability, Memory, Message, Policy, Role, SessionKey, StoreError, TtlPolicy, UserKey,
};

/// The contract of a chat memory store: conversation history per session and, optionally,
/// long-term memories per user. `append` must return only once the message is stored
/// (read-your-writes across clients); returning earlier is the `write-behind` bug.
#[async_trait::async_trait]
pub trait MemoryStore: Send + Sync {
    /// Store `msg` at the end of `session`'s history.
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError>;
    /// The newest at most `limit` messages of `session`, oldest first (plus the first
    /// message when the policy keeps it).
    async fn context(&self, session: &SessionKey, limit: usize)
        -> Result<Vec<Message>, StoreError>;
    /// Store a long-term memory. Optional capability.
    async fn remember(&self, _user: &UserKey, _memory: &Memory) -> Result<(), StoreError> {
        Err(StoreError::Unsupported)
    }
    /// The `k` memories of `user` most similar to `query`. Optional capability.
    async fn recall(
        &self,
        _user: &UserKey,
        _query: &str,
        _k: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        Err(StoreError::Unsupported)
    }
    /// The retention this store declares.
    fn policy(&self) -> Policy;
}

/// Names accepted by `--store`, in the order `amnesia` lists them.
pub const STORE_NAMES: &[&str] = &["reference", "write-behind"];

/// Messages the stores keep per session besides the first.
pub const MESSAGES_MAX: usize = 16;

/// An unknown `--store` name, with the list of known ones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown store '{0}' (known: {known})", known = STORE_NAMES.join(", "))]
pub struct UnknownStore(pub String);

/// Check a store name without building anything.
pub fn check_name(name: &str) -> Result<(), UnknownStore> {
    if STORE_NAMES.contains(&name) || testing::TEST_STORE_NAMES.contains(&name) {
        Ok(())
    } else {
        Err(UnknownStore(name.to_string()))
    }
}

/// Build the store called `name` over `connector`, configured from the plan.
pub fn build(
    name: &str,
    connector: std::sync::Arc<crate::connect::Connector>,
    plan: &crate::plan::Plan,
) -> Result<std::sync::Arc<dyn MemoryStore>, UnknownStore> {
    check_name(name)?;
    let config = ChatStoreConfig {
        messages_max: MESSAGES_MAX,
        ttl_ms: plan.session_ttl_ms,
    };
    let reference = RedisChatStore::new(connector, config);
    Ok(match name {
        "write-behind" => {
            std::sync::Arc::new(variants::write_behind::WriteBehindStore::new(reference))
        }
        "test-hang" => std::sync::Arc::new(testing::HangStore::new(reference, plan.seed)),
        "test-nondeterministic" => {
            std::sync::Arc::new(testing::NondeterministicStore::new(reference))
        }
        _ => std::sync::Arc::new(reference),
    })
}
