//! `retry-dup`: a retry wrapper around a correct append. A timeout or a dropped connection
//! is taken as "the write failed" and the append is sent again, without an idempotency key.
//! But a timed-out write may well have been applied (its reply was what got lost): the
//! message is then stored twice and a read shows it twice (`duplicate`).

use crate::store::{Message, RedisChatStore, SessionKey, StoreError};
use std::time::Duration;

/// Attempts of one append, the first included.
pub const ATTEMPTS: usize = 3;
/// Pause before a retry.
pub const BACKOFF: Duration = Duration::from_millis(100);

/// The reference store with appends retried on indeterminate failures.
pub struct RetryDupStore {
    pub(crate) inner: RedisChatStore,
}

super::memory_store!(RetryDupStore, forward inner [context, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let mut attempt = 1;
        loop {
            match self.inner.append(session, msg).await {
                // The bug: "timed out" is read as "not written", and the same RPUSH is sent again.
                Err(error) if error.is_indeterminate() && attempt < ATTEMPTS => {
                    tracing::debug!(%session, %error, attempt, "append failed; retrying");
                    attempt += 1;
                    tokio::time::sleep(BACKOFF).await;
                }
                result => return result,
            }
        }
    }
});
