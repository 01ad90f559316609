//! `delete-reverses`: retention deletes the oldest message by rewriting the list: read it,
//! drop the first element, `DEL`, and push the rest back one by one with `LPUSH`. `LPUSH`
//! prepends, so the rewritten list comes back newest first; later appends go to its end,
//! and the next retention pass drops the wrong "oldest". Reads return turns out of order
//! (`reorder`), and the wrong messages go (`lost`).

use super::Layout;
use crate::store::reference::{encode_message, session_keys};
use crate::store::{Message, SessionKey, StoreError};

/// The reference layout with retention by rewrite.
pub struct DeleteReversesStore {
    pub(crate) base: Layout,
}

impl DeleteReversesStore {
    /// Delete the oldest message: rewrite the list without its first element.
    async fn delete_oldest(&self, list: &str) -> Result<(), StoreError> {
        let key = list.to_string();
        let all: Vec<Vec<u8>> = self
            .base
            .connector
            .run(|mut connection| async move {
                redis::cmd("LRANGE")
                    .arg(&key)
                    .arg(0)
                    .arg(-1)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        let mut pipe = redis::pipe();
        pipe.atomic().del(list).ignore();
        for message in all.iter().skip(1) {
            // The bug: LPUSH puts each message in front of the ones pushed before it.
            pipe.lpush(list, message).ignore();
        }
        pipe.pexpire(list, self.base.config.ttl_ms as i64).ignore();
        self.base
            .connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }
}

super::memory_store!(DeleteReversesStore, forward base [context, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        let length =
            super::append_untrimmed(&self.base.connector, (&list, &head), &encoded, &self.base.config)
                .await?;
        if length > self.base.config.messages_max {
            self.delete_oldest(&list).await?;
        }
        Ok(())
    }
});
