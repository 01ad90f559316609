//! `RedisChatStore`: the correct reference store. Production-shaped code over the real
//! `redis` crate and amnesia's [`Connector`]; it never names a simulator type.
//!
//! Layout per session: a list of JSON-encoded messages (the newest `messages_max`) and,
//! for keep-first retention, a `head` key holding the session's first message (`SET NX`,
//! so only the first append ever writes it). Every append is one MULTI/EXEC that pushes,
//! sets the head, trims and refreshes both TTLs: atomic, and acknowledged only after Redis
//! applied it (read-your-writes across clients). A read is one MULTI/EXEC too, so the head
//! and the window come from one instant.

use crate::connect::Connector;
use crate::store::{Durability, MemoryStore, Message, Policy, SessionKey, StoreError, TtlPolicy};
use std::sync::Arc;

/// Settings of the reference store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChatStoreConfig {
    /// Messages kept per session besides the first.
    pub messages_max: usize,
    /// The sliding session TTL.
    pub ttl_ms: u64,
}

/// The correct chat memory store.
pub struct RedisChatStore {
    connector: Arc<Connector>,
    config: ChatStoreConfig,
}

impl RedisChatStore {
    pub fn new(connector: Arc<Connector>, config: ChatStoreConfig) -> Self {
        assert!(
            config.messages_max > 0,
            "a store keeps at least one message"
        );
        assert!(config.ttl_ms > 0, "a sliding TTL is positive");
        Self { connector, config }
    }
}

/// Escape the key separator so `a:b`/`c` and `a`/`b:c` never share a key.
pub fn escape_key_part(part: &str) -> String {
    part.replace('%', "%25").replace(':', "%3A")
}

/// The keys of a session: (message list, first message).
pub fn session_keys(session: &SessionKey) -> (String, String) {
    let base = format!(
        "chat:v1:{}:{}",
        escape_key_part(&session.tenant),
        escape_key_part(&session.session)
    );
    (format!("{base}:messages"), format!("{base}:head"))
}

pub fn encode_message(message: &Message) -> String {
    serde_json::to_string(message).expect("a message always serializes")
}

pub fn decode_message(data: &[u8]) -> Result<Message, StoreError> {
    serde_json::from_slice(data).map_err(|e| StoreError::Redis(format!("undecodable message: {e}")))
}

#[async_trait::async_trait]
impl MemoryStore for RedisChatStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        tracing::debug!(session = %session, id = %msg.id, bytes = msg.content.len(), "append");
        let keep = self.config.messages_max as isize;
        let ttl_ms = self.config.ttl_ms as i64;
        let mut pipe = redis::pipe();
        pipe.atomic()
            .rpush(&list, &encoded)
            .ignore()
            .set_options(
                &head,
                &encoded,
                redis::SetOptions::default().conditional_set(redis::ExistenceCheck::NX),
            )
            .ignore()
            .ltrim(&list, -keep, -1)
            .ignore()
            .pexpire(&list, ttl_ms)
            .ignore()
            .pexpire(&head, ttl_ms)
            .ignore();
        self.connector
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
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        let window = window
            .iter()
            .map(|data| decode_message(data))
            .collect::<Result<Vec<_>, _>>()?;
        let mut messages = Vec::with_capacity(window.len() + 1);
        if let Some(head) = head {
            let head = decode_message(&head)?;
            if !window.iter().any(|m| m.id == head.id) {
                messages.push(head);
            }
        }
        messages.extend(window);
        Ok(messages)
    }

    fn policy(&self) -> Policy {
        Policy {
            messages_max: Some(self.config.messages_max),
            keep_first: true,
            ttl: TtlPolicy::Sliding {
                ttl_ms: self.config.ttl_ms,
            },
            durability: Durability::Volatile,
        }
    }
}
