//! `prefix-collision`: the session's keys are `chat:v1:<tenant>:<session>:...` with the
//! parts pasted in as they are. Tenant and session names may contain the separator, so
//! tenant `t0` session `s1:s0` and tenant `t0:s1` session `s0` share one list: each reads
//! the other's messages (`leak`). The reference store escapes the separator.

use super::Layout;
use crate::store::reference::encode_message;
use crate::store::reference::queue_append;
use crate::store::{Message, SessionKey, StoreError};

/// The keys of a session: (message list, first message). The bug: no escaping.
fn session_keys(session: &SessionKey) -> (String, String) {
    let base = format!("chat:v1:{}:{}", session.tenant, session.session);
    (format!("{base}:messages"), format!("{base}:head"))
}

/// The reference store with unescaped key parts.
pub struct PrefixCollisionStore {
    pub(crate) base: Layout,
}

super::memory_store!(PrefixCollisionStore, forward base [policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        let mut pipe = redis::pipe();
        pipe.atomic();
        queue_append(&mut pipe, (&list, &head), &encoded, &self.base.config);
        self.base.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let (list, head) = session_keys(session);
        super::read_list_and_head(&self.base.connector, &list, &head, limit).await
    }
});
