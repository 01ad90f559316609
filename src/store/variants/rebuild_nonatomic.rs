//! `rebuild-nonatomic`: retention rewrites the session's list, outside any transaction:
//! read the newest `messages_max`, `DEL` the list, then `RPUSH` them back one round trip
//! each. Until the loop ends the list is empty or partial; if the loop stops half way (a
//! timeout, a reset, an error reply, a crashed process), the messages it had not pushed
//! back yet are gone for good although their appends were acknowledged long ago (`lost`).
//!
//! The rewrite has a buggify point after the `DEL`: the simulator may slow it down there,
//! as a loaded process or a slow link would, so faults can land inside the rewrite.

use super::Layout;
use crate::store::reference::{encode_message, session_keys};
use crate::store::{Message, SessionKey, StoreError};

/// The reference layout with retention by a non-atomic rewrite.
pub struct RebuildNonAtomicStore {
    pub(crate) base: Layout,
}

impl RebuildNonAtomicStore {
    /// Rewrite `list` to its newest `messages_max` entries.
    async fn rebuild(&self, list: &str) -> Result<(), StoreError> {
        let keep = self.base.config.messages_max as isize;
        let key = list.to_string();
        let kept: Vec<Vec<u8>> = self
            .base
            .connector
            .run(|mut connection| async move {
                redis::cmd("LRANGE")
                    .arg(&key)
                    .arg(-keep)
                    .arg(-1)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        let key = list.to_string();
        self.base
            .connector
            .run(|mut connection| async move {
                redis::cmd("DEL")
                    .arg(&key)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await?;
        // The bug: readers (and a failure) meet the list between these round trips.
        crate::buggify::delay("rebuild-nonatomic.rebuild.after-del").await;
        for message in kept {
            let key = list.to_string();
            self.base
                .connector
                .run(|mut connection| async move {
                    redis::cmd("RPUSH")
                        .arg(&key)
                        .arg(message)
                        .query_async::<()>(&mut connection)
                        .await
                })
                .await?;
        }
        let key = list.to_string();
        let ttl_ms = self.base.config.ttl_ms as i64;
        self.base
            .connector
            .run(|mut connection| async move {
                redis::cmd("PEXPIRE")
                    .arg(&key)
                    .arg(ttl_ms)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
    }
}

super::memory_store!(RebuildNonAtomicStore, forward base [context, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        let length =
            super::append_untrimmed(&self.base.connector, (&list, &head), &encoded, &self.base.config)
                .await?;
        if length > self.base.config.messages_max {
            self.rebuild(&list).await?;
        }
        Ok(())
    }
});
