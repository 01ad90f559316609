//! A chat history store written the way an application team writes one, with no thought
//! of amnesia: the recent window of each conversation in a Redis list, trimmed on every
//! write, with a sliding session TTL in whole seconds. It takes the application's own
//! `redis` connection; `tests/amnesia.rs` adapts it to amnesia's contract.

use redis::aio::MultiplexedConnection;
use redis::RedisResult;

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatMessage {
    pub id: String,
    /// `system`, `user` or `assistant`.
    pub role: String,
    pub content: String,
    /// The conversation's message counter when it was written.
    pub turn: u64,
}

/// Conversation histories in Redis.
#[derive(Clone, Debug)]
pub struct ChatHistory {
    /// Messages kept per conversation: older ones are trimmed.
    pub window: usize,
    /// Idle conversations expire after this many seconds (every write refreshes it).
    pub ttl_secs: u64,
}

impl ChatHistory {
    /// Store `message` at the end of the conversation; returns once Redis applied it.
    pub async fn append(
        &self,
        conn: &mut MultiplexedConnection,
        tenant: &str,
        conversation: &str,
        message: &ChatMessage,
    ) -> RedisResult<()> {
        let key = key(tenant, conversation);
        redis::pipe()
            .atomic()
            .rpush(&key, encode(message))
            .ignore()
            .ltrim(&key, -(self.kept() as isize), -1)
            .ignore()
            .expire(&key, self.ttl_secs as i64)
            .ignore()
            .query_async(conn)
            .await
    }

    /// The newest `limit` messages, oldest first.
    pub async fn recent(
        &self,
        conn: &mut MultiplexedConnection,
        tenant: &str,
        conversation: &str,
        limit: usize,
    ) -> RedisResult<Vec<ChatMessage>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let raw: Vec<Vec<u8>> = redis::cmd("LRANGE")
            .arg(key(tenant, conversation))
            .arg(-(limit as isize))
            .arg(-1)
            .query_async(conn)
            .await?;
        Ok(raw.iter().filter_map(|bytes| decode(bytes)).collect())
    }

    /// How many messages the trim keeps.
    #[cfg(not(feature = "boundary-bug"))]
    fn kept(&self) -> usize {
        self.window
    }

    /// The boundary bug: `LTRIM key -(window - 1) -1` keeps one message fewer than the
    /// window the store promises.
    #[cfg(feature = "boundary-bug")]
    fn kept(&self) -> usize {
        self.window - 1
    }
}

/// Tenant and conversation ids may hold any character: escape the separator.
fn key(tenant: &str, conversation: &str) -> String {
    let escape = |part: &str| part.replace('%', "%25").replace(':', "%3A");
    format!("chat:{}:{}", escape(tenant), escape(conversation))
}

/// `id \n role \n turn \n content`: ids, roles and counters hold no newline; the content
/// is everything after the third one, byte for byte.
fn encode(message: &ChatMessage) -> Vec<u8> {
    let head = format!("{}\n{}\n{}\n", message.id, message.role, message.turn);
    [head.as_bytes(), message.content.as_bytes()].concat()
}

fn decode(bytes: &[u8]) -> Option<ChatMessage> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut parts = text.splitn(4, '\n');
    Some(ChatMessage {
        id: parts.next()?.to_string(),
        role: parts.next()?.to_string(),
        turn: parts.next()?.parse().ok()?,
        content: parts.next()?.to_string(),
    })
}
