//! Memory stores: the system under test. [`MemoryStore`] is the contract; the reference
//! store and the buggy variants implement it over the real `redis` crate.

pub mod embed;
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
    /// The memory ids stored and indexed for `user`, read when the system is quiet, so the
    /// checker can see an index that drifted from its data. Optional capability.
    async fn audit_memories(&self, _user: &UserKey) -> Result<MemoryAudit, StoreError> {
        Err(StoreError::Unsupported)
    }
    /// The retention this store declares.
    fn policy(&self) -> Policy;
}

/// What a store holds for a user's memories, data and index side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryAudit {
    pub stored: Vec<String>,
    pub indexed: Vec<String>,
}

/// The key layout a store's code uses. A `Deploy` in the plan moves every client from
/// `V1` to `V2` mid-run; a store must migrate online (the `key-scheme-v2` bug does not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyScheme {
    #[default]
    V1,
    V2,
}

/// Names accepted by `--store`, in the order `amnesia` lists them.
pub const STORE_NAMES: &[&str] = &[
    "reference",
    "write-behind",
    "trim-off-by-one",
    "skewed-expireat",
    "expire-separate",
    "retry-dup",
    "timestamp-id",
    "client-clock-order",
    "delete-reverses",
    "rebuild-nonatomic",
    "rmw-blob",
    "pipeline-partial",
    "lossy-serde",
    "prefix-collision",
    "silent-read-cap",
    "index-skip",
    "key-scheme-v2",
];

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

/// What a store is built from in any tier: a connector to Redis, the host's wall clock,
/// and the plan (for settings such as the session TTL).
pub struct StoreContext<'a> {
    pub connector: std::sync::Arc<crate::connect::Connector>,
    pub clock: crate::clock::Clock,
    pub plan: &'a crate::plan::Plan,
    /// The key layout of the code version this client runs.
    pub key_scheme: KeyScheme,
}

/// Builds one client's store. Library users pass their own to run their store.
pub type StoreFactory =
    std::sync::Arc<dyn Fn(StoreContext<'_>) -> std::sync::Arc<dyn MemoryStore> + Send + Sync>;

/// The factory of the store called `name`.
pub fn factory(name: &str) -> Result<StoreFactory, UnknownStore> {
    check_name(name)?;
    let name = name.to_string();
    Ok(std::sync::Arc::new(move |context: StoreContext<'_>| {
        build(&name, context)
    }))
}

fn build(name: &str, context: StoreContext<'_>) -> std::sync::Arc<dyn MemoryStore> {
    use std::sync::Arc;
    use variants::*;
    let config = ChatStoreConfig {
        messages_max: MESSAGES_MAX,
        ttl_ms: context.plan.session_ttl_ms,
    };
    let StoreContext {
        connector,
        clock,
        plan,
        key_scheme,
    } = context;
    let reference = |connector| RedisChatStore::new(connector, config).with_key_scheme(key_scheme);
    match name {
        "write-behind" => Arc::new(write_behind::WriteBehindStore::new(reference(connector))),
        "trim-off-by-one" => Arc::new(trim_off_by_one::TrimOffByOneStore::new(connector, config)),
        "skewed-expireat" => Arc::new(skewed_expireat::SkewedExpireAtStore::new(
            connector, config, clock,
        )),
        "expire-separate" => Arc::new(expire_separate::ExpireSeparateStore::new(connector, config)),
        "retry-dup" => Arc::new(retry_dup::RetryDupStore::new(reference(connector))),
        "timestamp-id" => Arc::new(timestamp_id::TimestampIdStore::new(
            connector, config, clock,
        )),
        "client-clock-order" => Arc::new(client_clock_order::ClientClockOrderStore::new(
            connector, config, clock,
        )),
        "delete-reverses" => Arc::new(delete_reverses::DeleteReversesStore::new(connector, config)),
        "rebuild-nonatomic" => Arc::new(rebuild_nonatomic::RebuildNonAtomicStore::new(
            connector, config,
        )),
        "rmw-blob" => Arc::new(rmw_blob::RmwBlobStore::new(connector, config)),
        "pipeline-partial" => Arc::new(pipeline_partial::PipelinePartialStore::new(
            connector, config,
        )),
        "lossy-serde" => Arc::new(lossy_serde::LossySerdeStore::new(connector, config)),
        "prefix-collision" => Arc::new(prefix_collision::PrefixCollisionStore::new(
            connector, config,
        )),
        "silent-read-cap" => Arc::new(silent_read_cap::SilentReadCapStore::new(reference(
            connector,
        ))),
        "index-skip" => Arc::new(index_skip::IndexSkipStore::new(
            reference(connector.clone()),
            connector,
        )),
        "key-scheme-v2" => Arc::new(key_scheme_v2::build(connector, config, key_scheme)),
        "test-hang" => Arc::new(testing::HangStore::new(reference(connector), plan.seed)),
        "test-nondeterministic" => {
            Arc::new(testing::NondeterministicStore::new(reference(connector)))
        }
        _ => Arc::new(reference(connector)),
    }
}
