//! `lossy-serde`: messages whose content is itself JSON (tool results, structured answers)
//! are stored as embedded JSON values rather than as strings, "so the stored record stays
//! queryable and is not double-encoded". On the way back the value is serialized again:
//! whitespace, key order, number spelling and escapes (`\u00e9`, `\/`) come back
//! normalised, so the content differs from what was appended (`corrupt`).

use super::Layout;
use crate::store::reference::queue_append;
use crate::store::reference::session_keys;
use crate::store::{Message, Role, SessionKey, StoreError};
use serde::{Deserialize, Serialize};

/// The stored record: text content as a string, JSON content as a JSON value.
#[derive(Serialize, Deserialize)]
struct Record {
    id: String,
    role: Role,
    seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_json: Option<serde_json::Value>,
}

fn encode(message: &Message) -> String {
    let structured = serde_json::from_str::<serde_json::Value>(&message.content).ok();
    let record = Record {
        id: message.id.clone(),
        role: message.role,
        seq: message.seq,
        content: structured.is_none().then(|| message.content.clone()),
        content_json: structured,
    };
    serde_json::to_string(&record).expect("a record always serializes")
}

fn decode(data: &[u8]) -> Result<Message, StoreError> {
    let record: Record = serde_json::from_slice(data)
        .map_err(|e| StoreError::Server(format!("undecodable message: {e}")))?;
    // The bug: a JSON value serialized again is not the text that was parsed.
    let content = match (record.content, record.content_json) {
        (Some(text), _) => text,
        (None, Some(value)) => value.to_string(),
        (None, None) => String::new(),
    };
    Ok(Message {
        id: record.id,
        role: record.role,
        content,
        seq: record.seq,
    })
}

/// The reference layout with structured content embedded as JSON.
pub struct LossySerdeStore {
    pub(crate) base: Layout,
}

super::memory_store!(LossySerdeStore, forward base [policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode(msg);
        let mut pipe = redis::pipe();
        pipe.atomic();
        queue_append(&mut pipe, (&list, &head), encoded.as_bytes(), &self.base.config);
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
            .lrange(&list, -(limit as isize), -1);
        let (head, window): (Option<Vec<u8>>, Vec<Vec<u8>>) = self
            .base
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        crate::store::reference::with_head_decoded(head, window, decode)
    }
});
