//! Buggy variants of the reference store, one file per bug class of DESIGN.md's catalogue.
//! Each is an honest rendition of a bug real memory stores shipped: production-shaped code
//! over the real `redis` crate, with the same declared [`Policy`] and configuration as the
//! reference, so the checker judges it by the same promise. None of them fails on purpose;
//! where a bug needs a fault to show, the variant only has `buggify` points on its own code
//! paths (as FoundationDB's `BUGGIFY`), never a check of the seed.

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
pub mod prefix_collision;
pub mod rebuild_nonatomic;
pub mod retry_check_then_append;
pub mod retry_dup;
pub mod rmw_blob;
pub mod silent_read_cap;
pub mod skewed_expireat;
pub mod timestamp_id;
pub mod trim_off_by_one;
pub mod write_behind;

use crate::connect::Connector;
use crate::store::{ChatStoreConfig, Durability, Message, Policy, StoreError, TtlPolicy};

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
