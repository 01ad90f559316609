//! `plain-list-rewrite`: the `plain-list` store whose append rewrites the whole list (read
//! it with `LRANGE`, then `DEL` and `RPUSH` every message with the new one, in one
//! `MULTI`), as stores do that "extend" a history by replacing it (swiftide's
//! `extend_owned` deletes, then pushes). The read and the rewrite are two round trips with
//! no `WATCH`: two appends of one session at once each rewrite the list they read, and the
//! first one's acknowledged message is gone (`lost`).
//!
//! The window between the read and the rewrite has a buggify point: the simulator may
//! stretch it, as a slow serializer would.

use crate::contract::StoreError;
use crate::domain::{Message, SessionKey};
use crate::store::plain_list::PlainListStore;
use crate::store::reference::encode_message;

/// `plain-list` with a read-modify-write append.
pub struct PlainListRewriteStore {
    pub(crate) inner: PlainListStore,
}

super::memory_store!(PlainListRewriteStore, forward inner [context, clear, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let key = PlainListStore::key(session);
        let mut messages = self.inner.range(&key, 0).await?;
        messages.push(msg.clone());
        crate::buggify::delay("plain-list-rewrite.append.between-read-and-write").await;
        let mut pipe = redis::pipe();
        pipe.atomic().del(&key).ignore();
        for message in &messages {
            pipe.rpush(&key, encode_message(message)).ignore();
        }
        pipe.pexpire(&key, self.inner.ttl_ms as i64).ignore();
        self.inner
            .connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }
});
