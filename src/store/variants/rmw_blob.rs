//! `rmw-blob`: the session's history is one JSON document under one key. An append reads
//! it (`GET`), adds the message and trims in the app, and writes it back (`SET ... PX`),
//! with no `WATCH` and no compare-and-set. Any other write to the document between the
//! `GET` and the `SET` is overwritten with the stale copy: a timed-out write that Redis
//! applies late, or a writer on another app client, erases acknowledged messages (`lost`).
//!
//! The window between `GET` and `SET` has a buggify point: the simulator may stretch it,
//! as a GC pause or a slow serializer would.

use crate::connect::Connector;
use crate::store::reference::escape_key_part;
use crate::store::{ChatStoreConfig, MemoryStore, Message, Policy, SessionKey, StoreError};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The stored document.
#[derive(Debug, Default, Serialize, Deserialize)]
struct History {
    messages: Vec<Message>,
}

fn blob_key(session: &SessionKey) -> String {
    format!(
        "chat:v1:{}:{}:history",
        escape_key_part(&session.tenant),
        escape_key_part(&session.session)
    )
}

fn decode(data: Option<Vec<u8>>) -> Result<History, StoreError> {
    match data {
        None => Ok(History::default()),
        Some(data) => serde_json::from_slice(&data)
            .map_err(|e| StoreError::Redis(format!("undecodable history: {e}"))),
    }
}

/// One JSON document per session, updated by read-modify-write.
pub struct RmwBlobStore {
    connector: Arc<Connector>,
    config: ChatStoreConfig,
}

impl RmwBlobStore {
    pub fn new(connector: Arc<Connector>, config: ChatStoreConfig) -> Self {
        Self { connector, config }
    }

    async fn load(&self, key: &str) -> Result<History, StoreError> {
        let key = key.to_string();
        let data: Option<Vec<u8>> = self
            .connector
            .run(|mut connection| async move {
                redis::cmd("GET")
                    .arg(&key)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        decode(data)
    }
}

#[async_trait::async_trait]
impl MemoryStore for RmwBlobStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let key = blob_key(session);
        let mut history = self.load(&key).await?;
        history.messages.push(msg.clone());
        // Keep the first message and the newest `messages_max`.
        let max = self.config.messages_max;
        if history.messages.len() > max + 1 {
            let excess = history.messages.len() - (max + 1);
            history.messages.drain(1..1 + excess);
        }
        let document = serde_json::to_vec(&history).expect("a history always serializes");
        crate::buggify::delay("rmw-blob.append.between-get-and-set").await;
        // The bug: nothing checks that the document is still the one that was read.
        let ttl_ms = self.config.ttl_ms;
        self.connector
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
        let mut messages = self.load(&blob_key(session)).await?.messages;
        let start = messages.len().saturating_sub(limit);
        if start > 1 {
            messages.drain(1..start);
        }
        Ok(messages)
    }

    fn policy(&self) -> Policy {
        super::reference_policy(&self.config)
    }
}
