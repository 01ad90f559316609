//! swiftide-integrations 0.32.1's Redis message history, unmodified from crates.io,
//! behind amnesia's store contract (feature `swiftide`). The adapter is what a team
//! writing a chatbot on swiftide would write: one `Redis` built from the URL, a history
//! key per conversation (`with_message_history_key` on a clone, which shares the clone's
//! lazily made `ConnectionManager`), and each operation through the `MessageHistory`
//! trait as swiftide-agents 0.32.1's `DefaultContext` calls it: a system message is
//! `extend_owned(vec![message])` (the agent's `add_messages` of its system prompt), any
//! other `push_owned` (its `add_message`, one RPUSH); a context read is `history`
//! (LRANGE 0 -1), a clear `overwrite(vec![])` and a delete `history` then `overwrite` of
//! the rest. amnesia is a normal dependency here: an adapter in `src/` is library code.

use amnesia::{
    Durability, MemoryStore, Message, Policy, Role, SessionKey, StoreContext, StoreError, TtlPolicy,
};
use serde::{Deserialize, Serialize};
use swiftide_core::chat_completion::ChatMessage;
use swiftide_core::MessageHistory;
use swiftide_integrations::redis::Redis;

/// amnesia's message inside swiftide's text: swiftide keeps a role and a text, the
/// checker needs the message's id and plan sequence number back.
#[derive(Serialize, Deserialize)]
struct Envelope {
    id: String,
    seq: u64,
    content: String,
}

/// The swiftide store of one client process.
pub struct SwiftideHistory {
    base: Redis<String>,
}

impl SwiftideHistory {
    /// The store on the Redis at the URL amnesia gives the process.
    pub fn new(context: StoreContext) -> SwiftideHistory {
        let url = context
            .redis_url
            .expect("the madsim engine gives every client process a Redis URL");
        let base = Redis::try_from_url(url, "chat").expect("a URL amnesia made parses");
        SwiftideHistory { base }
    }

    /// swiftide's history of `session`: a clone of the base (sharing its connection) on
    /// the session's own key.
    fn history_of(&self, session: &SessionKey) -> Redis<String> {
        let mut history = self.base.clone();
        // The tenant's length keeps `a:b` + `c` apart from `a` + `b:c`.
        history.with_message_history_key(format!(
            "chat:{}:{}:{}",
            session.tenant.len(),
            session.tenant,
            session.session
        ));
        history
    }
}

/// What an `anyhow` error of swiftide's means for the operation: swiftide wraps the redis
/// crate's error with context. A timeout or a broken connection may have been applied;
/// "Failed to connect to Redis" (no connection manager could be made) sent nothing; an
/// error reply, or data that does not decode, was not applied.
fn classify(error: &anyhow::Error) -> StoreError {
    let text = format!("{error:#}");
    let redis = error
        .chain()
        .find_map(|cause| cause.downcast_ref::<redis032::RedisError>());
    match redis {
        Some(e) if e.is_timeout() => StoreError::Timeout,
        Some(e)
            if e.is_io_error()
                || e.is_connection_dropped()
                || e.is_connection_refusal()
                || e.is_unrecoverable_error() =>
        {
            StoreError::ConnectionLost(text)
        }
        Some(_) => StoreError::Server(text),
        None if text.contains("Failed to connect to Redis") => StoreError::Unavailable(text),
        None => StoreError::Server(text),
    }
}

/// An error of a call that may have run part of its commands (swiftide's `overwrite`: a
/// DEL whose error it ignores, then an RPUSH): its outcome is unknown, unless it never
/// connected.
fn partial(error: &anyhow::Error) -> StoreError {
    match classify(error) {
        StoreError::Unavailable(text) => StoreError::Unavailable(text),
        other => StoreError::ConnectionLost(other.to_string()),
    }
}

fn chat_message(msg: &Message) -> ChatMessage {
    let envelope = Envelope {
        id: msg.id.clone(),
        seq: msg.seq,
        content: msg.content.clone(),
    };
    let text = serde_json::to_string(&envelope).expect("an envelope always serializes");
    match msg.role {
        Role::System => ChatMessage::System(text),
        Role::User => ChatMessage::User(text),
        Role::Assistant => ChatMessage::Assistant(Some(text), None),
    }
}

fn message(chat: ChatMessage) -> Result<Message, StoreError> {
    let (role, text) = match chat {
        ChatMessage::System(text) => (Role::System, text),
        ChatMessage::User(text) => (Role::User, text),
        ChatMessage::Assistant(Some(text), _) => (Role::Assistant, text),
        other => return Err(StoreError::Server(format!("not a chat message: {other}"))),
    };
    let envelope: Envelope = serde_json::from_str(&text)
        .map_err(|e| StoreError::Server(format!("undecodable message: {e}")))?;
    Ok(Message {
        id: envelope.id,
        role,
        content: envelope.content,
        seq: envelope.seq,
    })
}

#[async_trait::async_trait]
impl MemoryStore for SwiftideHistory {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let history = self.history_of(session);
        match msg.role {
            // swiftide's Redis `extend_owned` is a DEL (its error ignored) and an RPUSH:
            // its error may come after the DEL applied.
            Role::System => history
                .extend_owned(vec![chat_message(msg)])
                .await
                .map_err(|e| partial(&e)),
            Role::User | Role::Assistant => history
                .push_owned(chat_message(msg))
                .await
                .map_err(|e| classify(&e)),
        }
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let history = self.history_of(session);
        let chats = history.history().await.map_err(|e| classify(&e))?;
        let skip = chats.len().saturating_sub(limit);
        chats.into_iter().skip(skip).map(message).collect()
    }

    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        let history = self.history_of(session);
        history.overwrite(Vec::new()).await.map_err(|e| partial(&e))
    }

    async fn delete(&self, session: &SessionKey, id: &str) -> Result<(), StoreError> {
        let history = self.history_of(session);
        let chats = history.history().await.map_err(|e| classify(&e))?;
        let mut kept = Vec::with_capacity(chats.len());
        for chat in chats {
            if message(chat.clone())?.id != id {
                kept.push(chat);
            }
        }
        history.overwrite(kept).await.map_err(|e| partial(&e))
    }

    fn policy(&self) -> Policy {
        // swiftide's history keeps every message, with no TTL; what Redis acknowledged is
        // what it promises. Its append is a bare RPUSH: not idempotent, and it says so
        // nowhere, so the adapter declares it. Its ConnectionManager reconnects with redis
        // 0.32's default backoff, which the grace covers.
        Policy {
            messages_max: None,
            keep_first: false,
            summarizes: false,
            ttl: TtlPolicy::None,
            durability: Durability::AsRedis,
            appends_idempotent: false,
            recovery_grace_ms: 1_000,
            eviction: amnesia::Eviction::Forbidden,
        }
    }
}
