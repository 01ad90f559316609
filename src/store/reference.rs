//! `RedisChatStore`: the correct reference store. Production-shaped code over the real
//! `redis` crate and amnesia's [`Connector`]; it never names a simulator type.
//!
//! Layout per session: a list of JSON-encoded messages (the newest `messages_max`) and,
//! for keep-first retention, a `head` key holding the session's first message (`SET NX`,
//! so only the first append ever writes it). Every append is one MULTI/EXEC that pushes,
//! sets the head, trims and refreshes both TTLs: atomic, and acknowledged only after Redis
//! applied it (read-your-writes across clients). A read is one MULTI/EXEC too, so the head
//! and the window come from one instant.
//!
//! Key schemes: code of the `V2` scheme migrates a session online, inside the same
//! transaction as each operation: `RENAMENX` of the v1 keys to the v2 keys moves a session
//! that has not moved yet (keeping its TTL) and does nothing otherwise.
//!
//! Long-term memories: a hash of id → memory per user and a set of indexed ids, written in
//! one transaction; recall ranks the indexed memories by cosine similarity of the local
//! embedder's vectors.
//!
//! Edits: `clear` deletes both session keys in one transaction; `delete` reads the list
//! and the head, then removes the message by value (`LREM`, so a concurrent append or trim
//! that moves it does not make it remove another) and the head if it is that message;
//! `update_memory` writes like `remember` (an upsert); `forget` removes data and index
//! entry in one transaction.

use crate::connect::Connector;
use crate::embed::{cosine, embed};
use crate::store::{
    Durability, KeyScheme, Memory, MemoryAudit, MemoryStore, Message, Policy, SessionKey,
    StoreError, TtlPolicy, UserKey,
};
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
    layout: KeyLayout,
    /// Drop an earlier copy before the push (see [`queue_append`]); off only in the
    /// variants whose bug is a missing idempotency.
    idempotent: bool,
}

/// A function naming a session's keys: (message list, first message).
pub type SessionKeysFn = fn(&SessionKey) -> (String, String);

/// Where a session's keys are, and where they were before (to migrate from).
#[derive(Clone, Copy, Debug)]
pub struct KeyLayout {
    pub keys: SessionKeysFn,
    /// The previous layout, migrated from online; `None`: nothing to migrate.
    pub migrate_from: Option<SessionKeysFn>,
}

impl KeyLayout {
    /// The reference store's layout for the code of `scheme`.
    pub fn for_scheme(scheme: KeyScheme) -> Self {
        match scheme {
            KeyScheme::V1 => KeyLayout {
                keys: session_keys,
                migrate_from: None,
            },
            KeyScheme::V2 => KeyLayout {
                keys: session_keys_v2,
                migrate_from: Some(session_keys),
            },
        }
    }
}

impl RedisChatStore {
    /// A store of the first key scheme.
    pub fn new(connector: Arc<Connector>, config: ChatStoreConfig) -> Self {
        assert!(
            config.messages_max > 0,
            "a store keeps at least one message"
        );
        assert!(config.ttl_ms > 0, "a sliding TTL is positive");
        Self {
            connector,
            config,
            layout: KeyLayout::for_scheme(KeyScheme::V1),
            idempotent: true,
        }
    }

    /// The same store running the code of `key_scheme`.
    pub fn with_key_scheme(self, key_scheme: KeyScheme) -> Self {
        self.with_layout(KeyLayout::for_scheme(key_scheme))
    }

    /// The same store with appends that are not idempotent: a message sent twice is
    /// stored twice. The bug of `retry-dup` and `retry-check-then-append`.
    pub(crate) fn without_idempotent_appends(mut self) -> Self {
        self.idempotent = false;
        self
    }

    /// The same store with another key layout.
    pub fn with_layout(mut self, layout: KeyLayout) -> Self {
        self.layout = layout;
        self
    }

    /// The session's keys in this code's layout: (message list, first message).
    pub(crate) fn keys(&self, session: &SessionKey) -> (String, String) {
        (self.layout.keys)(session)
    }

    /// The session's keys in this code's layout, and a pipeline that starts with the
    /// online migration from the previous layout, if there is one.
    fn session_pipeline(&self, session: &SessionKey) -> ((String, String), redis::Pipeline) {
        let mut pipe = redis::pipe();
        pipe.atomic();
        let keys = (self.layout.keys)(session);
        if let Some(previous) = self.layout.migrate_from {
            let old = previous(session);
            // Moves a not-yet-migrated session (keeping its TTL); an error (no old key) or
            // 0 (already moved) leaves everything as it is. Both results are ignored.
            pipe.ignore_errors();
            pipe.cmd("RENAMENX").arg(&old.0).arg(&keys.0).ignore();
            pipe.cmd("RENAMENX").arg(&old.1).arg(&keys.1).ignore();
        }
        (keys, pipe)
    }
}

pub use crate::domain::escape_key_part;

/// The v1 keys of a session: (message list, first message).
pub fn session_keys(session: &SessionKey) -> (String, String) {
    let base = format!(
        "chat:v1:{}:{}",
        escape_key_part(&session.tenant),
        escape_key_part(&session.session)
    );
    (format!("{base}:messages"), format!("{base}:head"))
}

/// The v2 keys of a session, as a later deploy lays them out (the tenant in a hash tag).
pub fn session_keys_v2(session: &SessionKey) -> (String, String) {
    let base = format!(
        "chat2:{{{}}}:{}",
        escape_key_part(&session.tenant),
        escape_key_part(&session.session)
    );
    (format!("{base}:log"), format!("{base}:first"))
}

/// The keys of a user's memories: (data hash, index set).
pub fn memory_keys(user: &UserKey) -> (String, String) {
    let base = format!(
        "mem:v1:{}:{}",
        escape_key_part(&user.tenant),
        escape_key_part(&user.user)
    );
    (format!("{base}:data"), format!("{base}:index"))
}

/// A message as the bytes a store keeps in Redis (JSON): every field, content byte for
/// byte. [`decode_message`] reads it back.
///
/// ```
/// use amnesia::{decode_message, encode_message, Message, Role};
/// let m = Message { id: "m1".into(), role: Role::User, content: "\r\n$5\r\n 你好".into(), seq: 0 };
/// assert_eq!(decode_message(&encode_message(&m)).unwrap(), m);
/// ```
pub fn encode_message(message: &Message) -> Vec<u8> {
    // Room for the content and the fields around it up front: growing the buffer while
    // serializing large contents was a visible share of a run. Bytes, not a String: Redis
    // takes bytes, and checking the JSON is UTF-8 again cost another pass over it.
    let mut out = Vec::with_capacity(message.content.len() + message.id.len() + 64);
    serde_json::to_writer(&mut out, message).expect("a message always serializes");
    out
}

/// A message from the bytes [`encode_message`] wrote; anything else is a
/// [`StoreError::Server`] (the store read data it cannot use).
pub fn decode_message(data: &[u8]) -> Result<Message, StoreError> {
    // Validate UTF-8 once, with SIMD, then parse from a str: serde_json's byte parser runs
    // std's validator over every string again, a visible share of a run with CJK and emoji
    // contents.
    let text = simdutf8::basic::from_utf8(data)
        .map_err(|_| StoreError::Server("undecodable message: not UTF-8".into()))?;
    serde_json::from_str(text).map_err(|e| StoreError::Server(format!("undecodable message: {e}")))
}

/// Queue the reference append on `pipe`: drop any earlier copy of the message (a retry
/// of the same message stores it once: the append is idempotent), push it, keep it as the
/// session's first if there is none, trim to the newest `messages_max`, slide both keys'
/// TTL. Every reply is ignored. In a MULTI (the reference) it is atomic; the variants that
/// share it differ only in what surrounds it.
pub fn queue_append(
    pipe: &mut redis::Pipeline,
    (list, head): (&str, &str),
    encoded: &[u8],
    config: &ChatStoreConfig,
) {
    // LREM by value: a message encodes to the same bytes every time it is sent.
    pipe.lrem(list, 0, encoded).ignore();
    queue_push(pipe, (list, head), encoded, config);
}

/// [`queue_append`] without its idempotency: the push, the first message, the trim and
/// the TTLs.
pub(crate) fn queue_push(
    pipe: &mut redis::Pipeline,
    (list, head): (&str, &str),
    encoded: &[u8],
    config: &ChatStoreConfig,
) {
    let keep = config.messages_max as isize;
    let ttl_ms = config.ttl_ms as i64;
    let first_only = redis::SetOptions::default().conditional_set(redis::ExistenceCheck::NX);
    pipe.rpush(list, encoded)
        .ignore()
        .set_options(head, encoded, first_only)
        .ignore()
        .ltrim(list, -keep, -1)
        .ignore()
        .pexpire(list, ttl_ms)
        .ignore()
        .pexpire(head, ttl_ms)
        .ignore();
}

/// Decode a window of encoded messages and put the first message (`head`) in front
/// unless the window has it: the keep-first read of every list + head layout.
pub(crate) fn with_head(
    head: Option<Vec<u8>>,
    window: Vec<Vec<u8>>,
) -> Result<Vec<Message>, StoreError> {
    with_head_decoded(head, window, decode_message)
}

/// [`with_head`] with a store's own message decoding.
pub(crate) fn with_head_decoded(
    head: Option<Vec<u8>>,
    window: Vec<Vec<u8>>,
    decode: fn(&[u8]) -> Result<Message, StoreError>,
) -> Result<Vec<Message>, StoreError> {
    // The head is usually in the window byte for byte (a session shorter than the trim):
    // then there is nothing to decode for it.
    let head = head.filter(|head| !window.contains(head));
    let window = window
        .iter()
        .map(|data| decode(data))
        .collect::<Result<Vec<_>, _>>()?;
    let mut messages = Vec::with_capacity(window.len() + 1);
    if let Some(head) = head {
        let head = decode(&head)?;
        if !window.iter().any(|m| m.id == head.id) {
            messages.push(head);
        }
    }
    messages.extend(window);
    Ok(messages)
}

/// Optimistic transactions a delete tries before it gives up (each loses only to a
/// concurrent write of the same session).
const DELETE_ATTEMPTS_MAX: usize = 16;

/// One optimistic delete: WATCH the session's keys, read them, remove every copy of the
/// message and the head if it is that message in one MULTI/EXEC. False when a concurrent
/// write touched the keys in between (EXEC aborted): try again.
async fn delete_watched(
    connection: &mut redis::aio::MultiplexedConnection,
    (list, head): (&str, &str),
    id: &str,
) -> redis::RedisResult<bool> {
    redis::cmd("WATCH")
        .arg(list)
        .arg(head)
        .query_async::<()>(connection)
        .await?;
    let (head_bytes, window): (Option<Vec<u8>>, Vec<Vec<u8>>) = redis::pipe()
        .get(head)
        .lrange(list, 0, -1)
        .query_async(connection)
        .await?;
    let is_target = |data: &Vec<u8>| decode_message(data).is_ok_and(|m| m.id == id);
    let mut pipe = redis::pipe();
    pipe.atomic();
    for data in window.iter().filter(|data| is_target(data)) {
        pipe.lrem(list, 0, data).ignore();
    }
    if head_bytes.as_ref().is_some_and(is_target) {
        pipe.del(head).ignore();
    }
    // An empty MULTI/EXEC still ends the WATCH; a nil reply means it was aborted.
    let applied: Option<()> = pipe.query_async(connection).await?;
    crate::sometimes!(applied.is_none(), "reference.delete.exec-aborted");
    Ok(applied.is_some())
}

fn decode_memory(data: &[u8]) -> Result<Memory, StoreError> {
    serde_json::from_slice(data).map_err(|e| StoreError::Server(format!("undecodable memory: {e}")))
}

/// The `k` memories most similar to `query`; ties go to the smaller id.
pub fn rank_memories(memories: Vec<Memory>, query: &str, k: usize) -> Vec<Memory> {
    let query = embed(query);
    let mut scored: Vec<(f32, Memory)> = memories
        .into_iter()
        .map(|m| (cosine(&query, &embed(&m.text)), m))
        .collect();
    scored.sort_by(|(a, ma), (b, mb)| b.total_cmp(a).then_with(|| ma.id.cmp(&mb.id)));
    scored
        .into_iter()
        .take(k)
        .map(|(_, memory)| memory)
        .collect()
}

#[async_trait::async_trait]
impl MemoryStore for RedisChatStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let ((list, head), mut pipe) = self.session_pipeline(session);
        let encoded = encode_message(msg);
        tracing::debug!(session = %session, id = %msg.id, bytes = msg.content.len(), "append");
        if self.idempotent {
            queue_append(&mut pipe, (&list, &head), &encoded, &self.config);
        } else {
            queue_push(&mut pipe, (&list, &head), &encoded, &self.config);
        }
        // A slow hop before the write: harmless here, since nothing is acknowledged early.
        crate::buggify::delay("reference.append.before_write").await;
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
        let ((list, head), mut pipe) = self.session_pipeline(session);
        pipe.get(&head).lrange(&list, -(limit as isize), -1);
        crate::buggify::delay("reference.context.before_read").await;
        let (head, window): (Option<Vec<u8>>, Vec<Vec<u8>>) = self
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        with_head(head, window)
    }

    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        let ((list, head), mut pipe) = self.session_pipeline(session);
        pipe.del(&list).ignore().del(&head).ignore();
        self.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }

    async fn delete(&self, session: &SessionKey, id: &str) -> Result<(), StoreError> {
        let ((list, head), migrate) = self.session_pipeline(session);
        if self.layout.migrate_from.is_some() {
            self.connector
                .run(|mut c| async move { migrate.query_async::<()>(&mut c).await })
                .await?;
        }
        crate::buggify::delay("reference.delete.before_write").await;
        let (list, head) = (list.as_str(), head.as_str());
        let deleted = self
            .connector
            .run_dedicated(|mut connection| async move {
                for _ in 0..DELETE_ATTEMPTS_MAX {
                    if delete_watched(&mut connection, (list, head), id).await? {
                        return Ok(true);
                    }
                }
                Ok(false)
            })
            .await?;
        if !deleted {
            return Err(StoreError::Server(format!(
                "delete of {id} lost {DELETE_ATTEMPTS_MAX} optimistic transactions in a row"
            )));
        }
        Ok(())
    }

    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        let (data, index) = memory_keys(user);
        let encoded = serde_json::to_string(memory).expect("a memory always serializes");
        let mut pipe = redis::pipe();
        pipe.atomic()
            .hset(&data, &memory.id, &encoded)
            .ignore()
            .sadd(&index, &memory.id)
            .ignore();
        crate::buggify::delay("reference.remember.before_write").await;
        self.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }

    async fn recall(
        &self,
        user: &UserKey,
        query: &str,
        k: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let (data, index) = memory_keys(user);
        let mut pipe = redis::pipe();
        pipe.atomic().smembers(&index).hgetall(&data);
        let (indexed, stored): (Vec<String>, Vec<(String, Vec<u8>)>) = self
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        let indexed: std::collections::BTreeSet<String> = indexed.into_iter().collect();
        let memories = stored
            .iter()
            .filter(|(id, _)| indexed.contains(id))
            .map(|(_, encoded)| decode_memory(encoded))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rank_memories(memories, query, k))
    }

    async fn update_memory(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        // The same transaction as `remember`: the hash field is replaced in place.
        self.remember(user, memory).await
    }

    async fn forget(&self, user: &UserKey, id: &str) -> Result<(), StoreError> {
        let (data, index) = memory_keys(user);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .hdel(&data, id)
            .ignore()
            .srem(&index, id)
            .ignore();
        crate::buggify::delay("reference.forget.before_write").await;
        self.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }

    async fn audit_memories(&self, user: &UserKey) -> Result<MemoryAudit, StoreError> {
        let (data, index) = memory_keys(user);
        let mut pipe = redis::pipe();
        pipe.atomic().hkeys(&data).smembers(&index);
        let (mut stored, mut indexed): (Vec<String>, Vec<String>) = self
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        stored.sort();
        indexed.sort();
        Ok(MemoryAudit {
            stored,
            indexed,
            exact: None,
            embeddings: None,
        })
    }

    fn policy(&self) -> Policy {
        Policy {
            messages_max: Some(self.config.messages_max),
            keep_first: true,
            summarizes: false,
            ttl: TtlPolicy::Sliding {
                ttl_ms: self.config.ttl_ms,
            },
            durability: Durability::AsRedis,
            appends_idempotent: true,
            recovery_grace_ms: crate::contract::RECOVERY_GRACE_MS_DEFAULT,
            eviction: crate::contract::Eviction::Forbidden,
        }
    }
}
