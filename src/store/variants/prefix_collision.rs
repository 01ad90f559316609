//! `prefix-collision`: the session's keys are `chat:v1:<tenant>:<session>:...` with the
//! parts pasted in as they are. Tenant and session names may contain the separator, so
//! tenant `t0` session `s1:s0` and tenant `t0:s1` session `s0` share one list: each reads
//! the other's messages (`leak`). The reference store escapes the separator.

use crate::connect::Connector;
use crate::store::reference::encode_message;
use crate::store::reference::queue_append;
use crate::store::{ChatStoreConfig, MemoryStore, Message, Policy, SessionKey, StoreError};
use std::sync::Arc;

/// The keys of a session: (message list, first message). The bug: no escaping.
fn session_keys(session: &SessionKey) -> (String, String) {
    let base = format!("chat:v1:{}:{}", session.tenant, session.session);
    (format!("{base}:messages"), format!("{base}:head"))
}

/// The reference store with unescaped key parts.
pub struct PrefixCollisionStore {
    connector: Arc<Connector>,
    config: ChatStoreConfig,
}

impl PrefixCollisionStore {
    pub fn new(connector: Arc<Connector>, config: ChatStoreConfig) -> Self {
        Self { connector, config }
    }
}

#[async_trait::async_trait]
impl MemoryStore for PrefixCollisionStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        let mut pipe = redis::pipe();
        pipe.atomic();
        queue_append(&mut pipe, (&list, &head), &encoded, &self.config);
        self.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let (list, head) = session_keys(session);
        super::read_list_and_head(&self.connector, &list, &head, limit).await
    }

    fn policy(&self) -> Policy {
        super::reference_policy(&self.config)
    }
}
