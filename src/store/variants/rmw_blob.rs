//! `rmw-blob`: all of a user's conversations live in one JSON document under one key (the
//! tenant's), each with its messages and its own sliding expiry, kept on Redis's clock. An
//! append reads the document (`GET`, with `TIME`), adds the message, trims, and writes the
//! whole document back (`SET ... PX`), with no `WATCH` and no compare-and-set. Two requests
//! of one user at once (two browser tabs, two conversations) each write back the copy they
//! read: the first writer's acknowledged message is erased by the second (`lost`).
//!
//! The window between `GET` and `SET` has a buggify point: the simulator may stretch it,
//! as a GC pause or a slow serializer would.

use super::Layout;
use crate::store::reference::escape_key_part;
use crate::store::{Message, SessionKey, StoreError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One conversation in the document.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Conversation {
    /// Redis time (unix ms) after which the conversation is gone.
    expires_at_ms: u64,
    messages: Vec<Message>,
}

/// The stored document: the tenant's conversations by session name.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Document {
    sessions: BTreeMap<String, Conversation>,
}

fn document_key(session: &SessionKey) -> String {
    format!("chat:v1:{}:document", escape_key_part(&session.tenant))
}

/// One JSON document per tenant, updated by read-modify-write.
pub struct RmwBlobStore {
    pub(crate) base: Layout,
}

impl RmwBlobStore {
    /// The document, without expired conversations, and Redis's time in unix ms.
    async fn load(&self, key: &str) -> Result<(Document, u64), StoreError> {
        let mut pipe = redis::pipe();
        pipe.get(key).cmd("TIME");
        let (data, (seconds, micros)): (Option<Vec<u8>>, (u64, u64)) = self
            .base
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        let now_ms = seconds * 1_000 + micros / 1_000;
        let mut document: Document = match data {
            None => Document::default(),
            Some(data) => serde_json::from_slice(&data)
                .map_err(|e| StoreError::Server(format!("undecodable document: {e}")))?,
        };
        document
            .sessions
            .retain(|_, conversation| conversation.expires_at_ms > now_ms);
        Ok((document, now_ms))
    }
}

super::memory_store!(RmwBlobStore, forward base [policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let key = document_key(session);
        let (mut document, now_ms) = self.load(&key).await?;
        let conversation = document
            .sessions
            .entry(session.session.clone())
            .or_default();
        conversation.messages.push(msg.clone());
        conversation.expires_at_ms = now_ms + self.base.config.ttl_ms;
        // Keep the first message and the newest `messages_max`.
        let max = self.base.config.messages_max;
        if conversation.messages.len() > max + 1 {
            let excess = conversation.messages.len() - (max + 1);
            conversation.messages.drain(1..1 + excess);
        }
        let document = serde_json::to_vec(&document).expect("a document always serializes");
        crate::buggify::delay("rmw-blob.append.between-get-and-set").await;
        // The bug: nothing checks that the document is still the one that was read.
        let ttl_ms = self.base.config.ttl_ms;
        self.base.connector
            .run(|mut connection| async move {
                redis::cmd("SET")
                    .arg(&key)
                    .arg(document)
                    .arg("PX")
                    .arg(ttl_ms)
                    .query_async::<()>(&mut connection)
                    .await
            })
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
        let (mut document, _) = self.load(&document_key(session)).await?;
        let Some(conversation) = document.sessions.remove(&session.session) else {
            return Ok(Vec::new());
        };
        let mut messages = conversation.messages;
        let start = messages.len().saturating_sub(limit);
        if start > 1 {
            messages.drain(1..start);
        }
        Ok(messages)
    }
});
