//! `expire-separate`: the message is written in one round trip (`RPUSH`, the first-message
//! key, `LTRIM`) and the session TTL refreshed in a second (`PEXPIRE`), as most
//! `RPUSH`-then-`EXPIRE` chat histories do. The refresh is treated as best effort: the
//! message is stored, so a failed refresh is only logged. When the connection breaks
//! between the two round trips of the appends that created the session's keys, the keys
//! have no TTL at all: the session outlives its TTL and a later read returns it (`zombie`).
//!
//! The window between the round trips is a buggify point: the simulator may break the
//! connection there, as a reset or a failover would.

use super::Layout;
use crate::store::reference::{encode_message, session_keys};
use crate::store::{Message, SessionKey, StoreError};

/// The reference layout with the TTL refreshed in a second round trip.
pub struct ExpireSeparateStore {
    pub(crate) base: Layout,
}

impl ExpireSeparateStore {
    /// Second round trip: slide the session's TTL.
    async fn refresh_ttl(&self, list: &str, head: &str) -> Result<(), StoreError> {
        if crate::buggify::fires("expire-separate.append.connection-lost-before-expire") {
            // The connection broke after the write was acknowledged, before the refresh.
            self.base.connector.discard();
            return Err(StoreError::ConnectionLost(
                "connection reset before PEXPIRE".into(),
            ));
        }
        let ttl_ms = self.base.config.ttl_ms as i64;
        let mut pipe = redis::pipe();
        pipe.pexpire(list, ttl_ms)
            .ignore()
            .pexpire(head, ttl_ms)
            .ignore();
        self.base
            .connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }
}

super::memory_store!(ExpireSeparateStore, forward base [context, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        let keep = self.base.config.messages_max as isize;
        let mut pipe = redis::pipe();
        pipe.atomic()
            .rpush(&list, &encoded)
            .ignore()
            .set_options(
                &head,
                &encoded,
                redis::SetOptions::default().conditional_set(redis::ExistenceCheck::NX),
            )
            .ignore()
            .ltrim(&list, -keep, -1)
            .ignore();
        self.base.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await?;
        // The bug: the message is stored; the TTL refresh may or may not follow.
        if let Err(error) = self.refresh_ttl(&list, &head).await {
            tracing::warn!(%session, %error, "session TTL not refreshed; the message is stored");
        }
        Ok(())
    }
});
