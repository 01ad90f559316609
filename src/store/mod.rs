//! The built-in memory stores: the reference store and the catalogue of buggy variants,
//! each implementing the [`MemoryStore`] contract over the real `redis` crate, and the
//! registry that builds them by name. Only the runner's wiring imports this module.

#[cfg(feature = "pg")]
mod migrate;
#[cfg(feature = "pg")]
pub mod pgvector;
pub(crate) mod plain_list;
mod reference;
mod registry;
#[cfg(feature = "pg")]
mod repeatable_read;
#[doc(hidden)]
pub mod testing;
mod unserved;
pub(crate) mod variants;

use registry::Kind;
pub(crate) use unserved::Unserved;

pub use crate::contract::{
    Durability, MemoryAudit, MemoryStore, Policy, StoreContext, StoreError, StoreFactory, TtlPolicy,
};
pub use crate::domain::{Memory, Message, Role, SessionKey, UserKey};
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

/// Names accepted by `--store`, in the order `amnesia` lists them: the Redis stores.
pub const STORE_NAMES: &[&str] = &registry::names::<{ registry::count(Kind::Redis) }>(Kind::Redis);

/// Names of the built-in pgvector stores: the reference and its catalogue variants.
#[cfg(feature = "pg")]
pub const PGVECTOR_STORE_NAMES: &[&str] =
    &registry::names::<{ registry::count(Kind::Pgvector) }>(Kind::Pgvector);

/// Names of the built-in migrating stores.
#[cfg(feature = "pg")]
pub const MIGRATION_STORE_NAMES: &[&str] =
    &registry::names::<{ registry::count(Kind::Migration) }>(Kind::Migration);

/// Hidden store names, accepted but never listed: stores that misbehave on purpose to
/// test amnesia itself (see [`testing`]).
#[doc(hidden)]
pub const TEST_STORE_NAMES: &[&str] =
    &registry::names::<{ registry::count(Kind::Test) }>(Kind::Test);

/// Messages the stores keep per session besides the first.
pub const MESSAGES_MAX: usize = 16;

/// An unknown `--store` name, with the list of known ones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown store '{0}' (known: {known})", known = registry::listed().collect::<Vec<_>>().join(", "))]
pub struct UnknownStore(pub String);

fn entry(name: &str) -> Result<&'static registry::Entry, UnknownStore> {
    registry::entry_named(name).ok_or_else(|| UnknownStore(name.to_string()))
}

/// Check a store name without building anything.
pub fn check_name(name: &str) -> Result<(), UnknownStore> {
    entry(name).map(|_| ())
}

/// The factory of the store called `name`.
pub fn factory(name: &str) -> Result<StoreFactory, UnknownStore> {
    let entry = entry(name)?;
    Ok(std::sync::Arc::new(move |context: StoreContext| {
        entry.build(context)
    }))
}

/// The backend the built-in store `name` keeps its data in (Redis for a name that is
/// not one).
pub fn backend_of(name: &str) -> crate::contract::Backend {
    entry(name).map_or(crate::contract::Backend::Redis, |entry| {
        entry.kind.backend()
    })
}

/// The violation classes the catalogue variant `name` shows (any one counts): empty for
/// a store without a catalogued bug, `None` for an unknown name. For amnesia's own tests.
#[doc(hidden)]
pub fn expected_classes(name: &str) -> Option<&'static [crate::check::ViolationClass]> {
    registry::entry_named(name).map(|entry| entry.expected)
}
