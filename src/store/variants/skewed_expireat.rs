//! `skewed-expireat`: the session's expiry is computed as an absolute instant from the app
//! host's own wall clock (`PEXPIREAT now + ttl`), "so every key of the session expires at
//! the same moment". Redis compares it with its own clock: a host whose clock runs behind
//! sets an expiry that is already near or in the past (the session vanishes while active:
//! `premature-expiry`); a host whose clock runs ahead keeps the session alive long past its
//! TTL (`zombie`).

use super::Layout;
use crate::clock::Clock;
use crate::store::reference::{encode_message, session_keys};
use crate::store::{Message, SessionKey, StoreError};

/// The reference layout with an absolute expiry from the host clock.
pub struct SkewedExpireAtStore {
    pub(crate) base: Layout,
    pub(crate) clock: Clock,
}

super::memory_store!(SkewedExpireAtStore, forward base [context, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        let keep = self.base.config.messages_max as isize;
        // The bug: an absolute instant from this host's clock, not a TTL relative to Redis's.
        let expire_at_ms = (self.clock.now_ms() + self.base.config.ttl_ms) as i64;
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
            .ignore()
            .pexpire_at(&list, expire_at_ms)
            .ignore()
            .pexpire_at(&head, expire_at_ms)
            .ignore();
        self.base.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }
});
