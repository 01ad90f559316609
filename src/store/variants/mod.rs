//! Buggy variants of the reference store, one file per bug class of the catalogue (`store/registry.rs` lists them).
//! Each is an honest rendition of a bug real memory stores shipped: production-shaped code
//! over the real `redis` crate, with the same declared [`Policy`] and configuration as the
//! reference, so the checker judges it by the same promise. None of them fails on purpose;
//! where a bug needs a fault to show, the variant only has `buggify` points on its own code
//! paths (as FoundationDB's `BUGGIFY`), never a check of the seed.

/// Implements [`MemoryStore`](crate::contract::MemoryStore) for `$store`: the methods
/// written out in the braces are its bug; the methods named in `forward` go unchanged to
/// the store in field `$to` (the reference store, or a [`Layout`]); any other keeps the
/// contract's default (unsupported), as each variant always had it.
///
/// A macro rather than a wrapper type with overridable methods: variants forward
/// different subsets (most do not offer `clear` or `forget`), and a wrapper that forwarded
/// everything would turn an unsupported operation into a working one, changing the
/// histories the pinned traces hold; the list also says what each variant offers.
macro_rules! memory_store {
    ($store:ident, forward $to:ident [$($method:ident),* $(,)?] { $($body:tt)* }) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*], [$($method)*]);
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], []) => {
        #[async_trait::async_trait]
        impl $crate::contract::MemoryStore for $store {
            $($body)*
        }
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], [append $($rest:ident)*]) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*
            async fn append(
                &self,
                session: &$crate::domain::SessionKey,
                msg: &$crate::domain::Message,
            ) -> Result<(), $crate::contract::StoreError> {
                #[allow(unused_imports)]
                use $crate::contract::MemoryStore as _;
                self.$to.append(session, msg).await
            }
        ], [$($rest)*]);
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], [context $($rest:ident)*]) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*
            async fn context(
                &self,
                session: &$crate::domain::SessionKey,
                limit: usize,
            ) -> Result<Vec<$crate::domain::Message>, $crate::contract::StoreError> {
                #[allow(unused_imports)]
                use $crate::contract::MemoryStore as _;
                self.$to.context(session, limit).await
            }
        ], [$($rest)*]);
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], [clear $($rest:ident)*]) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*
            async fn clear(
                &self,
                session: &$crate::domain::SessionKey,
            ) -> Result<(), $crate::contract::StoreError> {
                #[allow(unused_imports)]
                use $crate::contract::MemoryStore as _;
                self.$to.clear(session).await
            }
        ], [$($rest)*]);
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], [delete $($rest:ident)*]) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*
            async fn delete(
                &self,
                session: &$crate::domain::SessionKey,
                id: &str,
            ) -> Result<(), $crate::contract::StoreError> {
                #[allow(unused_imports)]
                use $crate::contract::MemoryStore as _;
                self.$to.delete(session, id).await
            }
        ], [$($rest)*]);
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], [remember $($rest:ident)*]) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*
            async fn remember(
                &self,
                user: &$crate::domain::UserKey,
                memory: &$crate::domain::Memory,
            ) -> Result<(), $crate::contract::StoreError> {
                #[allow(unused_imports)]
                use $crate::contract::MemoryStore as _;
                self.$to.remember(user, memory).await
            }
        ], [$($rest)*]);
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], [update_memory $($rest:ident)*]) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*
            async fn update_memory(
                &self,
                user: &$crate::domain::UserKey,
                memory: &$crate::domain::Memory,
            ) -> Result<(), $crate::contract::StoreError> {
                #[allow(unused_imports)]
                use $crate::contract::MemoryStore as _;
                self.$to.update_memory(user, memory).await
            }
        ], [$($rest)*]);
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], [recall $($rest:ident)*]) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*
            async fn recall(
                &self,
                user: &$crate::domain::UserKey,
                query: &str,
                k: usize,
            ) -> Result<Vec<$crate::domain::Memory>, $crate::contract::StoreError> {
                #[allow(unused_imports)]
                use $crate::contract::MemoryStore as _;
                self.$to.recall(user, query, k).await
            }
        ], [$($rest)*]);
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], [audit_memories $($rest:ident)*]) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*
            async fn audit_memories(
                &self,
                user: &$crate::domain::UserKey,
            ) -> Result<$crate::contract::MemoryAudit, $crate::contract::StoreError> {
                #[allow(unused_imports)]
                use $crate::contract::MemoryStore as _;
                self.$to.audit_memories(user).await
            }
        ], [$($rest)*]);
    };
    (@munch $store:ident, $to:ident, [$($body:tt)*], [policy $($rest:ident)*]) => {
        $crate::store::variants::memory_store!(@munch $store, $to, [$($body)*
            fn policy(&self) -> $crate::contract::Policy {
                #[allow(unused_imports)]
                use $crate::contract::MemoryStore as _;
                self.$to.policy()
            }
        ], [$($rest)*]);
    };
}
pub(crate) use memory_store;

pub mod background_resend;
pub mod cached_connection;
pub mod case_folded_ids;
pub mod clear_keeps_head;
pub mod client_clock_order;
pub mod context_cache;
pub mod delete_reverses;
pub mod expire_separate;
pub mod forget_keeps_index;
pub mod index_skip;
pub mod key_scheme_v2;
pub mod lossy_serde;
pub mod memory_index_rmw;
pub mod pipeline_partial;
pub mod plain_list_rewrite;
pub mod prefix_collision;
pub mod rebuild_nonatomic;
pub mod retry_check_then_append;
pub mod retry_dup;
pub mod rmw_blob;
pub mod silent_read_cap;
pub mod skewed_expireat;
pub mod timestamp_id;
pub mod trim_off_by_one;
pub mod update_keeps_embedding;
pub mod write_behind;

use crate::connect::Connector;
use crate::store::reference::session_keys;
use crate::store::{
    ChatStoreConfig, Durability, Message, Policy, SessionKey, StoreError, TtlPolicy,
};
use std::sync::Arc;

/// The reference store's configuration and its list + head key layout, for a variant that
/// writes its own commands over them: its read and its policy are the reference's.
pub(crate) struct Layout {
    pub connector: Arc<Connector>,
    pub config: ChatStoreConfig,
}

impl Layout {
    /// The reference store's read, over the reference keys.
    pub(crate) async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let (list, head) = session_keys(session);
        read_list_and_head(&self.connector, &list, &head, limit).await
    }

    pub(crate) fn policy(&self) -> Policy {
        reference_policy(&self.config)
    }
}

/// The retention the reference store declares for `config`: every variant declares it too.
pub(crate) fn reference_policy(config: &ChatStoreConfig) -> Policy {
    Policy {
        messages_max: Some(config.messages_max),
        keep_first: true,
        summarizes: false,
        ttl: TtlPolicy::Sliding {
            ttl_ms: config.ttl_ms,
        },
        durability: Durability::AsRedis,
        appends_idempotent: true,
        recovery_grace_ms: crate::contract::RECOVERY_GRACE_MS_DEFAULT,
        eviction: crate::contract::Eviction::Forbidden,
    }
}

/// The reference store's read over a `list` + `head` layout: one MULTI/EXEC with the first
/// message and the newest `limit`, the first message put in front unless the window has it.
pub(crate) async fn read_list_and_head(
    connector: &Connector,
    list: &str,
    head: &str,
    limit: usize,
) -> Result<Vec<Message>, StoreError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let mut pipe = redis::pipe();
    pipe.atomic().get(head).lrange(list, -(limit as isize), -1);
    let (head, window): (Option<Vec<u8>>, Vec<Vec<u8>>) = connector
        .run(|mut connection| async move { pipe.query_async(&mut connection).await })
        .await?;
    with_head(head, window)
}

pub(crate) use crate::store::reference::with_head;

/// Push a message, keep it as the first if there is none, slide both TTLs, in one
/// MULTI/EXEC, without trimming: the variants whose own retention step is the bug run it
/// after. Returns the list's length.
pub(crate) async fn append_untrimmed(
    connector: &Connector,
    (list, head): (&str, &str),
    encoded: &[u8],
    config: &ChatStoreConfig,
) -> Result<usize, StoreError> {
    let ttl_ms = config.ttl_ms as i64;
    let first_only = redis::SetOptions::default().conditional_set(redis::ExistenceCheck::NX);
    let mut pipe = redis::pipe();
    pipe.atomic()
        .rpush(list, encoded)
        .set_options(head, encoded, first_only)
        .ignore()
        .pexpire(list, ttl_ms)
        .ignore()
        .pexpire(head, ttl_ms)
        .ignore();
    let (length,): (usize,) = connector
        .run(|mut connection| async move { pipe.query_async(&mut connection).await })
        .await?;
    Ok(length)
}
