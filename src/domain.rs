//! The vocabulary every stage speaks: sessions, messages, memories, users, and the
//! persistence a Redis deployment runs with. Plan, world, history, checker and stores all
//! use these words; this module imports nothing of theirs (the ground floor of the house).

use serde::{Deserialize, Serialize};
use std::fmt;

/// One conversation: a session of a tenant. Tenants must never see each other's messages.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SessionKey {
    /// The tenant the session belongs to (`t0`, `t1`, ... in generated plans).
    pub tenant: String,
    /// The session's name within its tenant (`s0`, `s1`, ...).
    pub session: String,
}

impl SessionKey {
    /// The session `session` of tenant `tenant`.
    pub fn new(tenant: impl Into<String>, session: impl Into<String>) -> Self {
        Self {
            tenant: tenant.into(),
            session: session.into(),
        }
    }
}

impl fmt::Display for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.tenant, self.session)
    }
}

/// The owner of long-term memories.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct UserKey {
    /// The tenant the user belongs to.
    pub tenant: String,
    /// The user's name within its tenant.
    pub user: String,
}

impl fmt::Display for UserKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.tenant, self.user)
    }
}

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The system prompt.
    System,
    /// The human talking to the chatbot.
    User,
    /// The model's reply.
    Assistant,
}

/// One chat message. `id` is unique across the whole plan; `seq` is the plan's sequence
/// number of the append that carries it. `content` is arbitrary UTF-8 and must round-trip
/// byte for byte.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Unique across the plan.
    pub id: String,
    /// Who wrote it.
    pub role: Role,
    /// The text, arbitrary UTF-8.
    pub content: String,
    /// Sequence number of the append that carries it in the plan.
    pub seq: u64,
}

/// One long-term memory of a user.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Memory {
    /// Unique across the plan.
    pub id: String,
    /// The remembered fact; a recall for this exact text should find it.
    pub text: String,
}

/// What a Redis deployment keeps across a restart (`appendonly` and `appendfsync`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Persistence {
    /// A restart empties the keyspace.
    #[default]
    None,
    /// Append-only file flushed every second: a restart loses the writes since the last flush.
    AofEverysec,
    /// Append-only file flushed after every write: nothing applied is lost.
    AofAlways,
}

/// Redis's documented bound for AOF `everysec`: a crash loses up to about two seconds of
/// writes. Where the durable point cannot be observed (a real server), it stands in.
pub const EVERYSEC_LOSS_US_MAX: u64 = 2_000_000;

/// What a store's vector index holds for one stored memory, set against the embedding of
/// the memory's stored text by the store's own model: the quiescence audit's evidence of
/// an embedding left stale by an update, or never written.
///
/// ```
/// use amnesia::IndexedEmbedding;
/// let fresh = [0.6, 0.8];
/// assert_eq!(IndexedEmbedding::compare("m1", Some(&fresh), &fresh).similarity_ppm, Some(1_000_000));
/// let stale = IndexedEmbedding::compare("m2", Some(&[1.0, 0.0]), &fresh);
/// assert_eq!(stale.similarity_ppm, Some(600_000));
/// assert!(stale.is_stale());
/// assert!(IndexedEmbedding::compare("m3", None, &fresh).is_stale());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexedEmbedding {
    /// The memory's id.
    pub id: String,
    /// Cosine similarity of the indexed vector to the embedding of the stored text, in
    /// parts per million (1,000,000: the same direction); `None` when the index holds no
    /// vector for the memory. Integers, so a history's JSON round-trips exactly.
    pub similarity_ppm: Option<i32>,
}

/// Below this similarity an indexed vector is not its text's embedding: f32 rounding of
/// one vector stored and read back stays far above it.
pub const EMBEDDING_SIMILARITY_PPM_MIN: i32 = 999_000;

impl IndexedEmbedding {
    /// The comparison of `indexed` (what the index holds for memory `id`, if anything)
    /// with `of_text` (the embedding of the memory's stored text, computed now).
    pub fn compare(id: &str, indexed: Option<&[f32]>, of_text: &[f32]) -> IndexedEmbedding {
        let similarity_ppm = indexed.map(|indexed| {
            assert_eq!(indexed.len(), of_text.len(), "embeddings of one model");
            let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
            let dot: f64 = indexed
                .iter()
                .zip(of_text)
                .map(|(a, b)| f64::from(*a) * f64::from(*b))
                .sum();
            let norms = norm(indexed) * norm(of_text);
            let cosine = if norms > 0.0 { dot / norms } else { 0.0 };
            (cosine.clamp(-1.0, 1.0) * 1e6).round() as i32
        });
        IndexedEmbedding {
            id: id.to_string(),
            similarity_ppm,
        }
    }

    /// True when the index holds no vector for the memory, or one that is not the
    /// embedding of its text.
    pub fn is_stale(&self) -> bool {
        self.similarity_ppm
            .is_none_or(|ppm| ppm < EMBEDDING_SIMILARITY_PPM_MIN)
    }
}

/// What a summarizing store keeps in place of the older messages of a session: the ids it
/// folded, oldest first, and the summary text. [`Summary::fold`] is the deterministic
/// stand-in for the LLM summarizer such a store calls in production.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Summary {
    /// The ids of every message folded in so far, in the order they were folded.
    pub folded_ids: Vec<String>,
    /// The summary text: a short digest of each folded message, in folding order.
    pub text: String,
}

/// Characters of each folded message the stand-in summarizer keeps.
const SUMMARY_CHARS_PER_MESSAGE: usize = 24;

impl Summary {
    /// Fold `messages` (oldest first) into the summary: their ids are recorded, and the
    /// text grows by a short, deterministic digest of each (no model, no randomness).
    ///
    /// ```
    /// use amnesia::{Message, Role, Summary};
    /// let m = |id: &str| Message { id: id.into(), role: Role::User, content: "hello there".into(), seq: 0 };
    /// let mut summary = Summary::default();
    /// summary.fold(&[m("m1"), m("m2")]);
    /// assert_eq!(summary.folded_ids, ["m1", "m2"]);
    /// assert!(summary.text.contains("hello there"));
    /// ```
    pub fn fold(&mut self, messages: &[Message]) {
        for message in messages {
            let digest: String = message
                .content
                .chars()
                .take(SUMMARY_CHARS_PER_MESSAGE)
                .collect();
            if !self.text.is_empty() {
                self.text.push_str(" | ");
            }
            self.text.push_str(&format!("{:?}: {digest}", message.role));
            self.folded_ids.push(message.id.clone());
        }
    }
}

/// The server a store keeps its data in. Redis, PostgreSQL with pgvector, or Redis
/// before a deploy and PostgreSQL after it: the simulator models both servers (PostgreSQL
/// with the `pg` feature), the real tier runs them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// Redis: the model in the simulator, a real server in the real tier.
    #[default]
    Redis,
    /// PostgreSQL with the pgvector extension: the model in the simulator, a real server in the real tier.
    Pgvector,
    /// Redis before the plan's deploy, PostgreSQL with pgvector after it (a store that
    /// migrates between them).
    RedisThenPgvector,
}

impl Backend {
    /// `redis` or `pgvector`, as `--backend` spells it.
    ///
    /// ```
    /// use amnesia::Backend;
    /// assert_eq!(Backend::parse("pgvector"), Some(Backend::Pgvector));
    /// assert_eq!(Backend::Pgvector.name(), "pgvector");
    /// assert_eq!(Backend::parse("mysql"), None);
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Backend::Redis => "redis",
            Backend::Pgvector => "pgvector",
            Backend::RedisThenPgvector => "redis-then-pgvector",
        }
    }

    /// The servers a store of this backend needs, the one the fault schedule strikes
    /// first.
    pub fn servers(self) -> &'static [Backend] {
        match self {
            Backend::Redis => &[Backend::Redis],
            Backend::Pgvector => &[Backend::Pgvector],
            Backend::RedisThenPgvector => &[Backend::Redis, Backend::Pgvector],
        }
    }

    /// The backend `name` spells, if any.
    pub fn parse(name: &str) -> Option<Backend> {
        [
            Backend::Redis,
            Backend::Pgvector,
            Backend::RedisThenPgvector,
        ]
        .into_iter()
        .find(|backend| backend.name() == name)
    }
}

/// Escape the key separator so `a:b`/`c` and `a`/`b:c` never share a key (the
/// `prefix-collision` bug): use it on every tenant and session id put into a key.
///
/// ```
/// assert_ne!(
///     format!("chat:{}:{}", amnesia::escape_key_part("a:b"), amnesia::escape_key_part("c")),
///     format!("chat:{}:{}", amnesia::escape_key_part("a"), amnesia::escape_key_part("b:c")),
/// );
/// ```
pub fn escape_key_part(part: &str) -> String {
    part.replace('%', "%25").replace(':', "%3A")
}
