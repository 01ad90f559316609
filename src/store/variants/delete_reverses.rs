//! `delete-reverses`: retention deletes the oldest message by rewriting the list: read it,
//! drop the first element, `DEL`, and push the rest back one by one with `LPUSH`. `LPUSH`
//! prepends, so the rewritten list comes back newest first; later appends go to its end,
//! and the next retention pass drops the wrong "oldest". Reads return turns out of order
//! (`reorder`), and the wrong messages go (`lost`).

use crate::connect::Connector;
use crate::store::reference::{encode_message, session_keys};
use crate::store::{ChatStoreConfig, MemoryStore, Message, Policy, SessionKey, StoreError};
use std::sync::Arc;

/// The reference layout with retention by rewrite.
pub struct DeleteReversesStore {
    connector: Arc<Connector>,
    config: ChatStoreConfig,
}

impl DeleteReversesStore {
    pub fn new(connector: Arc<Connector>, config: ChatStoreConfig) -> Self {
        Self { connector, config }
    }

    /// Delete the oldest message: rewrite the list without its first element.
    async fn delete_oldest(&self, list: &str) -> Result<(), StoreError> {
        let key = list.to_string();
        let all: Vec<Vec<u8>> = self
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
        pipe.pexpire(list, self.config.ttl_ms as i64).ignore();
        self.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }
}

#[async_trait::async_trait]
impl MemoryStore for DeleteReversesStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        let length =
            super::append_untrimmed(&self.connector, (&list, &head), &encoded, &self.config)
                .await?;
        if length > self.config.messages_max {
            self.delete_oldest(&list).await?;
        }
        Ok(())
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
