//! `trim-off-by-one`: the session's first message (the system prompt) lives at index 0 of
//! the message list, and the read pins it with `LINDEX 0`. Retention trims with
//! `LTRIM list -(max+1) -1`, "one extra for the system message". But a negative start counts
//! from the tail: once a session outgrows `max + 1` messages the trim cuts index 0, and
//! `LINDEX 0` pins whatever ordinary message is oldest now. The checker sees the first
//! message missing under a keep-first policy: `truncation`.

use super::Layout;
use crate::store::reference::{encode_message, session_keys};
use crate::store::{Message, SessionKey, StoreError};

/// One list per session, the system prompt pinned at index 0 (or so it was meant).
pub struct TrimOffByOneStore {
    pub(crate) base: Layout,
}

super::memory_store!(TrimOffByOneStore, forward base [policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, _) = session_keys(session);
        // Keep the newest `messages_max` plus the system prompt at the head... (the bug:
        // a negative start keeps the newest `messages_max + 1`, whatever sits at index 0).
        let keep = self.base.config.messages_max as isize + 1;
        let mut pipe = redis::pipe();
        pipe.atomic()
            .rpush(&list, encode_message(msg))
            .ignore()
            .ltrim(&list, -keep, -1)
            .ignore()
            .pexpire(&list, self.base.config.ttl_ms as i64)
            .ignore();
        self.base.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let (list, _) = session_keys(session);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .lindex(&list, 0)
            .lrange(&list, -(limit as isize), -1);
        let (system, window): (Option<Vec<u8>>, Vec<Vec<u8>>) = self
            .base
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        super::with_head(system, window)
    }
});
