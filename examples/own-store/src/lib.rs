//! A chat history store written the way an application team writes one, with no thought
//! of amnesia: each conversation keeps a recent window of messages in a Redis list and a
//! running summary of everything older (the summarizer is the application's: an LLM in
//! production). Every write refreshes a sliding TTL in whole seconds. It takes the
//! application's own `redis` connection; `tests/amnesia.rs` adapts it to amnesia.

use redis::aio::MultiplexedConnection;
use redis::{AsyncCommands, RedisResult};

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

/// What the summary of a conversation says, and which messages it covers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConversationSummary {
    /// The ids of the messages folded in, oldest first.
    pub covers: Vec<String>,
    pub text: String,
}

/// Turns older messages into (more) summary: an LLM call in production.
pub trait Summarizer: Send + Sync {
    fn fold(&self, summary: &mut ConversationSummary, older: &[ChatMessage]);
}

/// Conversation histories in Redis: a window plus a summary.
pub struct ChatHistory<S> {
    /// Messages kept verbatim per conversation; older ones are folded into the summary.
    pub window: usize,
    /// Idle conversations expire after this many seconds (every write refreshes it).
    pub ttl_secs: u64,
    pub summarizer: S,
}

/// Attempts of one append when other writers keep changing the conversation.
const APPEND_ATTEMPTS_MAX: usize = 32;

impl<S: Summarizer> ChatHistory<S> {
    /// Store `message` at the end of the conversation, folding what falls out of the
    /// window into the summary in the same transaction (optimistic: WATCH, then retry).
    /// Returns once Redis applied it.
    pub async fn append(
        &self,
        conn: &mut MultiplexedConnection,
        tenant: &str,
        conversation: &str,
        message: &ChatMessage,
    ) -> RedisResult<()> {
        let (window_key, summary_key) = keys(tenant, conversation);
        for _ in 0..APPEND_ATTEMPTS_MAX {
            redis::cmd("WATCH")
                .arg(&window_key)
                .arg(&summary_key)
                .query_async::<()>(conn)
                .await?;
            let raw: Vec<Vec<u8>> = conn.lrange(&window_key, 0, -1).await?;
            let mut summary = match conn.get::<_, Option<Vec<u8>>>(&summary_key).await? {
                Some(bytes) => decode_summary(&bytes),
                None => ConversationSummary::default(),
            };
            let mut window: Vec<ChatMessage> = raw.iter().filter_map(|b| decode(b)).collect();
            // A retry of a message already stored (its first send's reply was lost) stores
            // nothing new: the id is the idempotency key.
            let stored =
                window.iter().any(|m| m.id == message.id) || summary.covers.contains(&message.id);
            if stored {
                redis::cmd("UNWATCH").query_async::<()>(conn).await?;
                return Ok(());
            }
            window.push(message.clone());
            let excess = window.len().saturating_sub(self.window);
            let mut transaction = redis::pipe();
            transaction
                .atomic()
                .rpush(&window_key, encode(message))
                .ignore();
            if excess > 0 {
                self.summarizer
                    .fold(&mut summary, &window[..folded_len(excess)]);
                transaction
                    .ltrim(&window_key, excess as isize, -1)
                    .ignore()
                    .set(&summary_key, encode_summary(&summary))
                    .ignore();
            }
            if !EXPIRE_SEPARATE {
                add_expires(&mut transaction, &window_key, &summary_key, self.ttl_secs);
            }
            // EXEC answers nil when a watched key changed since WATCH: read again.
            let applied: Option<()> = transaction.query_async(conn).await?;
            // Whether sweeps ever reach the retry (with the `buggify` feature).
            #[cfg(feature = "buggify")]
            amnesia::sometimes!(applied.is_none(), "own-store.append.exec-aborted");
            if applied.is_some() {
                if EXPIRE_SEPARATE {
                    self.expire_separately(conn, &window_key, &summary_key)
                        .await?;
                }
                return Ok(());
            }
        }
        Err(redis::RedisError::from((
            redis::ErrorKind::Client,
            "conversation too contended",
        )))
    }

    /// The two-round-trip bug: the TTLs in a round trip of their own, after the message is
    /// stored. The gap between the two is a buggify point (with the `buggify` feature):
    /// in a simulated run the seed may stretch it, so that a crash or a lost connection
    /// lands there and leaves the keys without a TTL.
    async fn expire_separately(
        &self,
        conn: &mut MultiplexedConnection,
        window_key: &str,
        summary_key: &str,
    ) -> RedisResult<()> {
        #[cfg(feature = "buggify")]
        amnesia::buggify::delay("own-store.append.before-expire").await;
        let mut expires = redis::pipe();
        add_expires(&mut expires, window_key, summary_key, self.ttl_secs);
        expires.query_async(conn).await
    }

    /// The summary and the newest `limit` messages, oldest first, as one snapshot.
    pub async fn recent(
        &self,
        conn: &mut MultiplexedConnection,
        tenant: &str,
        conversation: &str,
        limit: usize,
    ) -> RedisResult<(ConversationSummary, Vec<ChatMessage>)> {
        let (window_key, summary_key) = keys(tenant, conversation);
        let mut read = redis::pipe();
        read.atomic().get(&summary_key);
        if limit > 0 {
            read.lrange(&window_key, -(limit as isize), -1);
        }
        let (summary, raw): (Option<Vec<u8>>, Vec<Vec<u8>>) = if limit > 0 {
            read.query_async(conn).await?
        } else {
            let (summary,): (Option<Vec<u8>>,) = read.query_async(conn).await?;
            (summary, Vec::new())
        };
        let summary = summary.map(|b| decode_summary(&b)).unwrap_or_default();
        Ok((summary, raw.iter().filter_map(|b| decode(b)).collect()))
    }
}

/// Whether the TTLs are set after the transaction, in a second round trip (the bug).
const EXPIRE_SEPARATE: bool = cfg!(feature = "expire-separate-bug");

/// Slide both keys' TTL.
fn add_expires(pipe: &mut redis::Pipeline, window_key: &str, summary_key: &str, ttl_secs: u64) {
    let ttl = ttl_secs as i64;
    pipe.expire(window_key, ttl)
        .ignore()
        .expire(summary_key, ttl)
        .ignore();
}

/// How many of the `excess` oldest messages the fold takes: all of them.
#[cfg(not(feature = "boundary-bug"))]
fn folded_len(excess: usize) -> usize {
    excess
}

/// The boundary bug: the fold stops one message short of what the trim removes, so the
/// message at the boundary ends up in neither the summary nor the window.
#[cfg(feature = "boundary-bug")]
fn folded_len(excess: usize) -> usize {
    excess - 1
}

/// Tenant and conversation ids may hold any character: escape the separator.
fn keys(tenant: &str, conversation: &str) -> (String, String) {
    let escape = |part: &str| part.replace('%', "%25").replace(':', "%3A");
    let base = format!("chat:{}:{}", escape(tenant), escape(conversation));
    (format!("{base}:window"), format!("{base}:summary"))
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

/// `id id id \n text`: message ids hold no space or newline.
fn encode_summary(summary: &ConversationSummary) -> Vec<u8> {
    format!("{}\n{}", summary.covers.join(" "), summary.text).into_bytes()
}

fn decode_summary(bytes: &[u8]) -> ConversationSummary {
    let text = String::from_utf8_lossy(bytes);
    let (covers, text) = text.split_once('\n').unwrap_or((&text, ""));
    ConversationSummary {
        covers: covers.split_whitespace().map(str::to_string).collect(),
        text: text.to_string(),
    }
}
