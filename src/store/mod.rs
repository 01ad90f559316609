//! The built-in memory stores: the reference store and the catalogue of buggy variants,
//! each implementing the [`MemoryStore`] contract over the real `redis` crate, and the
//! registry that builds them by name. Only the runner's wiring imports this module.

pub(crate) mod embed;
#[cfg(feature = "real")]
mod migrate;
#[cfg(feature = "real")]
pub mod pgvector;
mod reference;
#[doc(hidden)]
pub mod testing;
pub(crate) mod variants;

pub use crate::contract::{
    Durability, MemoryAudit, MemoryStore, Policy, StoreContext, StoreError, StoreFactory, TtlPolicy,
};
pub use crate::domain::{Memory, Message, Role, SessionKey, UserKey};
#[cfg(feature = "real")]
pub use migrate::MIGRATION_STORE_NAMES;
pub use reference::{
    decode_message, encode_message, escape_key_part, ChatStoreConfig, RedisChatStore,
};

/// The key layout a store's code uses. A `Deploy` in the plan moves every client from
/// `V1` to `V2` mid-run; a store must migrate online (the `key-scheme-v2` bug does not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyScheme {
    /// The layout of code version 1, before the deploy.
    #[default]
    V1,
    /// The layout of code version 2, after the deploy; sessions written under `V1` are
    /// migrated to it.
    V2,
}

impl KeyScheme {
    /// The layout of code version `version` (1 before the plan's deploy, 2 after).
    pub fn of_version(version: u32) -> Self {
        if version >= 2 {
            KeyScheme::V2
        } else {
            KeyScheme::V1
        }
    }
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
    "case-folded-ids",
    "retry-check-then-append",
    "forget-keeps-index",
    "clear-keeps-head",
    "memory-index-rmw",
    "context-cache",
];

/// Messages the stores keep per session besides the first.
pub const MESSAGES_MAX: usize = 16;

/// An unknown `--store` name, with the list of known ones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown store '{0}' (known: {known})", known = [STORE_NAMES.to_vec(), postgres_store_names()].concat().join(", "))]
pub struct UnknownStore(pub String);

/// The built-in stores of the PostgreSQL backends: none in a build without the `real`
/// feature, which has no PostgreSQL to run them on.
fn postgres_store_names() -> Vec<&'static str> {
    #[cfg(feature = "real")]
    let names = [
        pgvector::PGVECTOR_STORE_NAMES,
        migrate::MIGRATION_STORE_NAMES,
    ]
    .concat();
    #[cfg(not(feature = "real"))]
    let names = Vec::new();
    names
}

/// Check a store name without building anything.
pub fn check_name(name: &str) -> Result<(), UnknownStore> {
    if STORE_NAMES.contains(&name)
        || testing::TEST_STORE_NAMES.contains(&name)
        || postgres_store_names().contains(&name)
    {
        Ok(())
    } else {
        Err(UnknownStore(name.to_string()))
    }
}

/// The factory of the store called `name`.
pub fn factory(name: &str) -> Result<StoreFactory, UnknownStore> {
    check_name(name)?;
    #[cfg(feature = "real")]
    match backend_of(name) {
        crate::contract::Backend::Pgvector => return Ok(pgvector::factory(name)),
        crate::contract::Backend::RedisThenPgvector => return Ok(migrate::factory(name)),
        crate::contract::Backend::Redis => {}
    }
    let name = name.to_string();
    Ok(std::sync::Arc::new(move |context: StoreContext| {
        build(&name, context)
    }))
}

/// The backend the built-in store `name` keeps its data in.
pub fn backend_of(name: &str) -> crate::contract::Backend {
    #[cfg(feature = "real")]
    if pgvector::PGVECTOR_STORE_NAMES.contains(&name) {
        return crate::contract::Backend::Pgvector;
    } else if migrate::MIGRATION_STORE_NAMES.contains(&name) {
        return crate::contract::Backend::RedisThenPgvector;
    }
    let _ = name;
    crate::contract::Backend::Redis
}

fn build(name: &str, context: StoreContext) -> std::sync::Arc<dyn MemoryStore> {
    use std::sync::Arc;
    use variants::*;
    let config = ChatStoreConfig {
        messages_max: MESSAGES_MAX,
        ttl_ms: context.session_ttl_ms,
    };
    let StoreContext {
        connector,
        clock,
        code_version,
        seed,
        ..
    } = context;
    let key_scheme = KeyScheme::of_version(code_version);
    let reference = |connector| RedisChatStore::new(connector, config).with_key_scheme(key_scheme);
    match name {
        "write-behind" => Arc::new(write_behind::WriteBehindStore::new(reference(connector))),
        "trim-off-by-one" => Arc::new(trim_off_by_one::TrimOffByOneStore::new(connector, config)),
        "skewed-expireat" => Arc::new(skewed_expireat::SkewedExpireAtStore::new(
            connector, config, clock,
        )),
        "expire-separate" => Arc::new(expire_separate::ExpireSeparateStore::new(connector, config)),
        "retry-dup" => Arc::new(retry_dup::RetryDupStore::new(
            reference(connector).without_idempotent_appends(),
        )),
        "case-folded-ids" => Arc::new(case_folded_ids::CaseFoldedIdsStore::new(reference(
            connector,
        ))),
        "retry-check-then-append" => Arc::new(retry_check_then_append::CheckThenAppendStore::new(
            reference(connector.clone()).without_idempotent_appends(),
            connector,
            config,
        )),
        "forget-keeps-index" => Arc::new(forget_keeps_index::ForgetKeepsIndexStore::new(
            reference(connector.clone()),
            connector,
        )),
        "clear-keeps-head" => Arc::new(clear_keeps_head::ClearKeepsHeadStore::new(
            reference(connector.clone()),
            connector,
        )),
        "memory-index-rmw" => Arc::new(memory_index_rmw::MemoryIndexRmwStore::new(
            reference(connector.clone()),
            connector,
        )),
        "context-cache" => Arc::new(context_cache::ContextCacheStore::new(
            reference(connector.clone()),
            connector,
            config,
        )),
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
        "test-hang" => Arc::new(testing::HangStore::new(reference(connector), seed)),
        "test-amnesiac" => Arc::new(testing::AmnesiacStore::new(
            reference(connector.clone()),
            connector,
        )),
        "test-nondeterministic" => {
            Arc::new(testing::NondeterministicStore::new(reference(connector)))
        }
        _ => Arc::new(reference(connector)),
    }
}
