//! The vocabulary every store, plan and checker shares: sessions, messages, memories and
//! the retention policy a store declares.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One conversation: a session of a tenant. Tenants must never see each other's messages.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SessionKey {
    pub tenant: String,
    pub session: String,
}

impl SessionKey {
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
    pub tenant: String,
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
    System,
    User,
    Assistant,
}

/// One chat message. `id` is unique across the whole plan; `seq` is the plan's sequence
/// number of the append that carries it. `content` is arbitrary UTF-8 and must round-trip
/// byte for byte.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    pub id: String,
    pub role: Role,
    pub content: String,
    pub seq: u64,
}

/// One long-term memory of a user.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Memory {
    pub id: String,
    pub text: String,
}

/// How a store expires a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum TtlPolicy {
    /// Sessions never expire.
    None,
    /// Every append pushes the session's expiry to `append time + ttl_ms` (a sliding window).
    Sliding { ttl_ms: u64 },
}

/// What a store promises to survive. The checker opens a new epoch at a fault the declared
/// durability does not survive: losses across it are expected, not violations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Durability {
    /// Nothing survives a Redis restart.
    Volatile,
    /// Survives a restart except for writes of the last second (AOF `everysec`).
    AofEverysec,
    /// Every acknowledged write survives a restart (AOF `always`).
    AofAlways,
}

/// The retention a store declares; the checker judges reads against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// At most this many messages are kept per session (`None`: unbounded).
    pub messages_max: Option<usize>,
    /// The first message of a session (the system prompt) survives trimming.
    pub keep_first: bool,
    pub ttl: TtlPolicy,
    pub durability: Durability,
}

/// Why a store operation did not succeed. `Timeout` and `ConnectionLost` leave the outcome
/// unknown (the write may or may not have been applied); the others mean it was not.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("timed out")]
    Timeout,
    #[error("connection lost: {0}")]
    ConnectionLost(String),
    #[error("could not connect: {0}")]
    Unavailable(String),
    #[error("redis error: {0}")]
    Redis(String),
    #[error("not supported by this store")]
    Unsupported,
}

impl StoreError {
    /// True when the operation may have been applied although it reported failure.
    pub fn is_indeterminate(&self) -> bool {
        matches!(self, StoreError::Timeout | StoreError::ConnectionLost(_))
    }
}
