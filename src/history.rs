//! The record of what happened in one run: every operation a client invoked, when it was
//! invoked and completed (virtual microseconds since world start), and what it returned.
//! Both tiers and both engines produce a [`History`]; the checker judges it alone. Besides
//! operations, a history holds the facts the world observed that the operations cannot
//! show: each Redis restart and what its persistence kept.

use serde::{Deserialize, Serialize};

use crate::domain::{
    Backend, Memory, Message, Persistence, SessionKey, Summary, UserKey, EVERYSEC_LOSS_US_MAX,
};

/// What a client asked the store to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "op")]
pub enum OpKind {
    /// Append one message to a session's chat history.
    Append {
        /// The session appended to.
        session: SessionKey,
        /// The message appended.
        msg: Message,
    },
    /// Read a session's context: its newest messages, up to `limit`.
    Context {
        /// The session read.
        session: SessionKey,
        /// How many of the newest messages the read asked for.
        limit: usize,
    },
    /// Clear a session's whole history.
    Clear {
        /// The session cleared.
        session: SessionKey,
    },
    /// Delete one message of a session by id.
    Delete {
        /// The session the message is deleted from.
        session: SessionKey,
        /// The id of the deleted message.
        id: String,
    },
    /// Store a long-term memory for a user.
    Remember {
        /// The user the memory belongs to.
        user: UserKey,
        /// The memory stored.
        memory: Memory,
    },
    /// Replace a user's memory by a new form (same id).
    UpdateMemory {
        /// The user the memory belongs to.
        user: UserKey,
        /// The memory in its new form.
        memory: Memory,
    },
    /// Forget one of a user's memories by id.
    Forget {
        /// The user the memory belonged to.
        user: UserKey,
        /// The id of the forgotten memory.
        id: String,
    },
    /// Recall a user's memories most similar to a query.
    Recall {
        /// The user whose memories are searched.
        user: UserKey,
        /// The text recalled against.
        query: String,
        /// How many memories the recall asked for at most.
        k: usize,
    },
}

/// The value a successful operation returned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "value", content = "items")]
pub enum OpValue {
    /// Writes return nothing.
    None,
    /// A context read's messages, in the order the store returned them.
    Messages(Vec<Message>),
    /// A summarizing store's context: its summary, and the window after it.
    Summarized {
        /// The summary of the messages folded out of the window.
        summary: Summary,
        /// The window after the summary.
        messages: Vec<Message>,
    },
    /// A recall's memories.
    Memories(Vec<Memory>),
}

/// How an operation ended. The distinction between `Fail` and `Unknown` is what lets the
/// checker stay silent about writes that may or may not have been applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "outcome", content = "detail")]
pub enum Outcome {
    /// Applied, with what it returned.
    Ok(OpValue),
    /// Definitely not applied.
    Fail(String),
    /// Timed out or connection lost: may or may not have been applied (at most once).
    Unknown(String),
    /// Never completed before the history ended: may or may not be applied, even later.
    Pending,
}

/// One operation of the history. `index` is its identity in verdicts; it need not match
/// its position in [`History::ops`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Op {
    /// The operation's identity, unique within the history.
    pub index: usize,
    /// The client process that invoked it.
    pub client: u32,
    /// What it asked the store to do.
    pub kind: OpKind,
    /// When it was invoked, in virtual microseconds since world start.
    pub invoke_us: u64,
    /// `None` while the operation is pending.
    pub complete_us: Option<u64>,
    /// How it ended.
    pub outcome: Outcome,
}

/// A server restart as the world observed it: when the process went down, the persistence
/// it ran with, and what its recovery kept. A fact, not a judgement: the checker decides
/// which losses it excuses (see `check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restart {
    /// When the process died; nothing is applied from then until it is back.
    pub at_us: u64,
    /// The persistence mode Redis ran with (a PostgreSQL restart: `None`, its WAL is what
    /// `kept` reports).
    pub persistence: Persistence,
    /// What its recovery kept of the writes applied before the crash: for PostgreSQL, the
    /// commits its WAL had flushed (every synchronous commit; an asynchronous one only
    /// once the WAL writer flushed it).
    pub kept: Kept,
    /// The server that restarted; left out of a Redis restart's JSON.
    #[serde(default, skip_serializing_if = "is_redis")]
    pub backend: Backend,
}

impl Restart {
    /// A restart whose durable point was not observed (the real tier): the persistence
    /// mode's documented bound stands in for it. `everysec` keeps what was applied more
    /// than [`EVERYSEC_LOSS_US_MAX`] before the crash.
    pub fn documented(at_us: u64, persistence: Persistence) -> Restart {
        let kept = match persistence {
            Persistence::None => Kept::Nothing,
            Persistence::AofEverysec => Kept::AppliedBefore {
                before_us: at_us.saturating_sub(EVERYSEC_LOSS_US_MAX),
                observed: false,
            },
            Persistence::AofAlways => Kept::Everything,
        };
        Restart {
            at_us,
            persistence,
            kept,
            backend: Backend::Redis,
        }
    }

    /// A PostgreSQL crash whose WAL flush point was not observed (the real tier):
    /// PostgreSQL's documented bound for asynchronous commits stands in, so a commit
    /// acknowledged more than [`ASYNC_COMMIT_LOSS_US_MAX`] before the crash was kept.
    pub fn documented_postgres(at_us: u64) -> Restart {
        Restart {
            at_us,
            persistence: Persistence::None,
            kept: Kept::AppliedBefore {
                before_us: at_us.saturating_sub(ASYNC_COMMIT_LOSS_US_MAX),
                observed: false,
            },
            backend: Backend::Pgvector,
        }
    }

    /// The writes applied from this instant until the crash may be gone; `None`: every
    /// write applied before the crash was recovered.
    pub fn lost_from_us(&self) -> Option<u64> {
        match self.kept {
            Kept::Nothing => Some(0),
            Kept::AppliedBefore { before_us, .. } => Some(before_us.min(self.at_us)),
            Kept::Everything => None,
        }
    }
}

/// PostgreSQL's documented bound for `synchronous_commit = off`: a crash loses the
/// commits of at most three `wal_writer_delay`s (200 ms by default). Where the WAL's flush
/// point cannot be observed (a real server), it stands in.
pub const ASYNC_COMMIT_LOSS_US_MAX: u64 = 600_000;

/// What a restart's recovery kept of the writes applied before the crash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kept")]
pub enum Kept {
    /// Nothing: the keyspace came back empty (no persistence).
    Nothing,
    /// Every write applied strictly before `before_us` (for AOF `everysec`, the last
    /// fsync); later ones are lost. `observed`: the model saw the fsync; otherwise
    /// `before_us` is the documented bound.
    AppliedBefore {
        /// The durable point, in virtual microseconds since world start.
        before_us: u64,
        /// Whether the model observed the fsync (rather than the documented bound).
        observed: bool,
    },
    /// Every write applied before the crash (AOF `always`).
    Everything,
}

impl OpKind {
    /// The operation's name as timelines and explanations print it (`append`, `recall`).
    pub fn name(&self) -> &'static str {
        match self {
            OpKind::Append { .. } => "append",
            OpKind::Context { .. } => "context",
            OpKind::Clear { .. } => "clear",
            OpKind::Delete { .. } => "delete",
            OpKind::Remember { .. } => "remember",
            OpKind::UpdateMemory { .. } => "update-memory",
            OpKind::Forget { .. } => "forget",
            OpKind::Recall { .. } => "recall",
        }
    }
}

/// Index state observed once the system is quiet; the history alone cannot show an index
/// that drifted from the data it indexes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quiescence {
    /// Ids of the memories every user's memory data holds, sorted.
    pub memories_stored: Vec<String>,
    /// Ids of the memories every user's memory index holds, sorted.
    pub memories_indexed: Vec<String>,
    /// Ids of the memories an exact search (no index) finds by their own text, sorted;
    /// `None` when the store has no such search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memories_exact: Option<Vec<String>>,
    /// What every user's index holds for each stored memory against the embedding of its
    /// text, for a store that keeps vectors (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_embeddings: Vec<crate::domain::IndexedEmbedding>,
}

/// One key Redis deleted because its TTL ran out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyExpiry {
    /// When, in virtual microseconds since world start, like an operation's times (the
    /// start of the node's millisecond).
    pub at_us: u64,
    /// The key, lossily as UTF-8.
    pub key: String,
}

/// One key Redis deleted because its memory was over `maxmemory` (an eviction): which
/// policy chose it and the memory figures that made it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyEviction {
    /// When, in virtual microseconds since world start, like [`KeyExpiry::at_us`].
    pub at_us: u64,
    /// The key, lossily as UTF-8.
    pub key: String,
    /// `maxmemory-policy`, as Redis names it (`allkeys-lru`, `volatile-ttl`, ...).
    pub policy: String,
    /// `used_memory` when the eviction round began.
    pub used_memory_bytes: u64,
    /// The `maxmemory` it was over.
    pub maxmemory_bytes: u64,
}

/// Everything the checker needs to know about one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// Every operation, in the order recorded.
    pub ops: Vec<Op>,
    /// Redis restarts, in time order.
    #[serde(default)]
    pub restarts: Vec<Restart>,
    /// Keys Redis deleted by expiry, in time order: a fact the timelines and the page show
    /// and explanations name, never judged (the checker reasons from the declared TTL
    /// policy, not from keys).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expiries: Vec<KeyExpiry>,
    /// Keys Redis evicted under `maxmemory`, in time order: facts, as expiries are, for
    /// the checker to judge a loss by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evictions: Vec<KeyEviction>,
}

impl History {
    /// An empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an operation with the next free index (max index + 1) and returns that index.
    pub fn push(
        &mut self,
        client: u32,
        kind: OpKind,
        invoke_us: u64,
        complete_us: Option<u64>,
        outcome: Outcome,
    ) -> usize {
        let index = self.ops.iter().map(|op| op.index + 1).max().unwrap_or(0);
        self.ops.push(Op {
            index,
            client,
            kind,
            invoke_us,
            complete_us,
            outcome,
        });
        index
    }

    /// Records an append; `outcome` `Pending` should come with `complete_us = None`.
    pub fn push_append(
        &mut self,
        client: u32,
        session: &SessionKey,
        msg: Message,
        invoke_us: u64,
        complete_us: Option<u64>,
        outcome: Outcome,
    ) -> usize {
        let kind = OpKind::Append {
            session: session.clone(),
            msg,
        };
        self.push(client, kind, invoke_us, complete_us, outcome)
    }

    /// Records an append that was acknowledged at `complete_us`.
    pub fn push_acked_append(
        &mut self,
        client: u32,
        session: &SessionKey,
        msg: Message,
        invoke_us: u64,
        complete_us: u64,
    ) -> usize {
        let outcome = Outcome::Ok(OpValue::None);
        self.push_append(client, session, msg, invoke_us, Some(complete_us), outcome)
    }

    /// Records a successful `context` read that returned `messages`.
    pub fn push_context(
        &mut self,
        client: u32,
        session: &SessionKey,
        limit: usize,
        invoke_us: u64,
        complete_us: u64,
        messages: Vec<Message>,
    ) -> usize {
        let kind = OpKind::Context {
            session: session.clone(),
            limit,
        };
        let outcome = Outcome::Ok(OpValue::Messages(messages));
        self.push(client, kind, invoke_us, Some(complete_us), outcome)
    }

    /// Records a `remember`.
    pub fn push_remember(
        &mut self,
        client: u32,
        user: &UserKey,
        memory: Memory,
        invoke_us: u64,
        complete_us: Option<u64>,
        outcome: Outcome,
    ) -> usize {
        let kind = OpKind::Remember {
            user: user.clone(),
            memory,
        };
        self.push(client, kind, invoke_us, complete_us, outcome)
    }

    /// Records a successful `recall` that returned `memories`.
    #[allow(clippy::too_many_arguments)]
    pub fn push_recall(
        &mut self,
        client: u32,
        user: &UserKey,
        query: &str,
        k: usize,
        invoke_us: u64,
        complete_us: u64,
        memories: Vec<Memory>,
    ) -> usize {
        let kind = OpKind::Recall {
            user: user.clone(),
            query: query.to_string(),
            k,
        };
        let outcome = Outcome::Ok(OpValue::Memories(memories));
        self.push(client, kind, invoke_us, Some(complete_us), outcome)
    }

    /// Records a Redis restart.
    pub fn push_restart(&mut self, restart: Restart) {
        self.restarts.push(restart);
    }
}

/// Serde's test for a field left out of a Redis restart's JSON.
fn is_redis(backend: &Backend) -> bool {
    *backend == Backend::Redis
}
