//! `client-clock-order`: the session is a sorted set scored by the app host's clock at
//! append time ("the timestamp is the natural order of a chat"). Hosts' clocks disagree:
//! a message appended on a host running behind sorts before messages appended earlier on
//! another host, and appends within one millisecond tie and sort by their bytes. Reads
//! return turns out of order (`reorder`).

use super::Layout;
use crate::clock::Clock;
use crate::store::reference::{encode_message, session_keys};
use crate::store::{Message, SessionKey, StoreError};

/// The reference layout with a sorted set scored by the host clock instead of a list.
pub struct ClientClockOrderStore {
    pub(crate) base: Layout,
    pub(crate) clock: Clock,
}

super::memory_store!(ClientClockOrderStore, forward base [policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        let ttl_ms = self.base.config.ttl_ms as i64;
        // The bug: this host's clock decides the message's place in the conversation.
        let score = self.clock.now_ms();
        let mut pipe = redis::pipe();
        pipe.atomic()
            .zadd(&list, &encoded, score)
            .ignore()
            .set_options(
                &head,
                &encoded,
                redis::SetOptions::default().conditional_set(redis::ExistenceCheck::NX),
            )
            .ignore()
            .zremrangebyrank(&list, 0, -(self.base.config.messages_max as isize) - 1)
            .ignore()
            .pexpire(&list, ttl_ms)
            .ignore()
            .pexpire(&head, ttl_ms)
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
        let (list, head) = session_keys(session);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .get(&head)
            .zrange(&list, -(limit as isize), -1);
        let (head, window): (Option<Vec<u8>>, Vec<Vec<u8>>) = self
            .base
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        super::with_head(head, window)
    }
});
