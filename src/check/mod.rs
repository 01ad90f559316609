//! History + policy → [`Verdict`]. Every rule errs on the side of silence: a violation is
//! reported only when no interleaving, expiry timing or unknown outcome consistent with
//! the history and the declared [`Policy`] could explain what a read returned. A checker
//! that cries wolf is worse than none.
//!
//! One file per family of violations: `presence` (lost, premature-expiry, zombie,
//! truncation, expected-loss), `integrity` (duplicate, corrupt, leak), `order` (reorder),
//! `memory` (recall-miss, index-drift), `liveness` (stuck). `index` turns the history
//! into per-session and per-id lookups, `expiry` answers "certainly alive / certainly
//! expired" questions under a sliding TTL.

mod eviction;
mod expiry;
mod index;
mod integrity;
mod keys;
mod liveness;
mod memory;
mod order;
mod presence;
mod rank;
mod recovery;
#[cfg(test)]
mod tests;
pub(crate) mod time;

use serde::{Deserialize, Serialize};

use crate::contract::Policy;
use crate::domain::{SessionKey, UserKey};
use crate::history::History;
pub use crate::history::Quiescence;

pub use expiry::EXPIRY_SLACK_US;

/// The violation classes (ARCHITECTURE.md, vocabulary), in the order reports list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ViolationClass {
    /// `lost`: an acknowledged message within the read's window, neither trimmable nor
    /// expired, is missing from a read (or, at quiescence, an acknowledged memory never
    /// forgotten is missing from the store).
    Lost,
    /// `duplicate`: a read returned a message (or memory) more often than it was appended.
    Duplicate,
    /// `reorder`: a read returned messages out of their append order.
    Reorder,
    /// `corrupt`: a read returned content that differs from every append of its id, or was
    /// never appended.
    Corrupt,
    /// `leak`: a read returned messages (or memories) written to another session (or user).
    Leak,
    /// `zombie`: a read returned messages applied before their session certainly expired.
    Zombie,
    /// `premature-expiry`: a session certainly alive per its TTL read back none of its
    /// acknowledged messages.
    PrematureExpiry,
    /// `truncation`: a read returned more messages than its limit allows, or lost the first
    /// message a keep-first policy keeps.
    Truncation,
    /// `recall-miss`: a recall for a memory's exact text did not return that memory.
    RecallMiss,
    /// `index-drift`: at quiescence, the stored memories and the memory index disagree: ids
    /// missing on one side, a forgotten memory still held, or (for a store that keeps
    /// vectors) an indexed vector that is not the embedding of its memory's stored text.
    IndexDrift,
    /// `stuck`: an operation did not complete within its budget during the final quiet
    /// period.
    Stuck,
    /// `unavailable`: the faults healed, and in the final quiet period a conversation (a
    /// session's history or a user's memories, on one client process) failed again (an
    /// error or a timeout) after its first failure there plus the store's declared
    /// recovery grace: a store that never replaces a broken connection.
    Unavailable,
    /// `evicted`: what would be `lost` (or `premature-expiry`, or a `recall-miss`) went
    /// with a key of its session (or user) that Redis evicted under `maxmemory` after the
    /// write: the store's data did not survive memory pressure although its policy
    /// forbids that ([`crate::Eviction::Forbidden`]). The explanation names the key, the
    /// policy and the memory figures.
    Evicted,
}

/// What a violation or an info is about, so reports can group by session or user.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Subject {
    /// One session's chat history.
    Session(SessionKey),
    /// One user's long-term memories.
    User(UserKey),
    /// The whole store (index-drift without a user, stuck operations).
    Store,
}

/// One broken promise, with the evidence: the messages (or memories) involved and the
/// operations that prove it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Violation {
    /// Which promise was broken.
    pub class: ViolationClass,
    /// The session, user or store it was broken for.
    pub subject: Subject,
    /// Operation indexes ([`crate::history::Op::index`]), sorted.
    pub op_indexes: Vec<usize>,
    /// Message or memory ids, sorted.
    pub message_ids: Vec<String>,
    /// A human-readable account of the evidence and the rule it breaks.
    pub explanation: String,
}

impl Violation {
    fn new(
        class: ViolationClass,
        subject: Subject,
        mut op_indexes: Vec<usize>,
        mut message_ids: Vec<String>,
        explanation: String,
    ) -> Self {
        op_indexes.sort_unstable();
        op_indexes.dedup();
        message_ids.sort();
        message_ids.dedup();
        Self {
            class,
            subject,
            op_indexes,
            message_ids,
            explanation,
        }
    }
}

/// Things worth knowing that are not violations.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Info {
    /// Acked data missing from a read after a Redis restart that may have lost it (it
    /// was applied after the restart's durable point, or the store promised no more):
    /// expected, not a violation.
    ExpectedLoss {
        /// The session (or user) whose data went missing.
        subject: Subject,
        /// The reads that missed it and the writes they missed, sorted.
        op_indexes: Vec<usize>,
        /// Ids of the excused messages (or memories), sorted.
        message_ids: Vec<String>,
        /// When the restart that may have lost them happened, in virtual microseconds.
        restart_at_us: u64,
    },
    /// Acked data missing because Redis evicted a key of its session (or user) under
    /// `maxmemory`, for a store that tolerates eviction ([`crate::Eviction::Tolerated`]):
    /// noted, not a violation.
    Evicted {
        /// The session (or user) whose data went missing.
        subject: Subject,
        /// The reads that missed it and the writes they missed, sorted.
        op_indexes: Vec<usize>,
        /// Ids of the excused messages (or memories), sorted.
        message_ids: Vec<String>,
        /// The evicted key, as the history records it.
        key: String,
        /// When Redis evicted it, in virtual microseconds.
        evicted_at_us: u64,
    },
    /// A message whose append reported a definite failure shows up in a read: the store
    /// misclassified an error. No class covers it, so it is treated like an
    /// unknown outcome and only noted.
    FailedAppendVisible {
        /// The session the message was appended to.
        session: SessionKey,
        /// The failed append and the reads that showed its message.
        op_indexes: Vec<usize>,
        /// Id of the message that should not have been visible.
        message_id: String,
    },
}

/// The checker's answer: pass when `violations` is empty.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The broken promises, sorted; empty when the history passes.
    pub violations: Vec<Violation>,
    /// Things worth knowing that are not violations (expected losses and the like), sorted.
    pub info: Vec<Info>,
}

/// How much acknowledged history a verdict excused as expected loss: the messages of
/// acked appends, and those of them some read was allowed to miss because a restart may
/// have lost them. What a persistence mode really loses, and no more, is the target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Excused {
    /// Messages of acknowledged appends in the history.
    pub acked_messages: usize,
    /// Distinct messages among them that a read was excused for missing (expected loss
    /// after a restart).
    pub excused_messages: usize,
}

impl Excused {
    /// Counts over `history` and its `verdict`.
    pub fn of(history: &History, verdict: &Verdict) -> Excused {
        let acked_messages = history
            .ops
            .iter()
            .filter(|op| {
                matches!(op.kind, crate::history::OpKind::Append { .. })
                    && matches!(op.outcome, crate::history::Outcome::Ok(_))
            })
            .count();
        let mut excused: Vec<&str> = verdict
            .info
            .iter()
            .filter_map(|info| match info {
                Info::ExpectedLoss {
                    subject: Subject::Session(_),
                    message_ids,
                    ..
                } => Some(message_ids.iter().map(String::as_str)),
                _ => None,
            })
            .flatten()
            .collect();
        excused.sort_unstable();
        excused.dedup();
        Excused {
            acked_messages,
            excused_messages: excused.len(),
        }
    }

    /// The sum of two tallies.
    pub fn plus(self, other: Excused) -> Excused {
        Excused {
            acked_messages: self.acked_messages + other.acked_messages,
            excused_messages: self.excused_messages + other.excused_messages,
        }
    }
}

impl Verdict {
    /// Whether the history kept every promise: no violations (info does not count).
    pub fn is_pass(&self) -> bool {
        self.violations.is_empty()
    }

    /// The distinct classes found, in table order.
    pub fn classes(&self) -> Vec<ViolationClass> {
        let mut classes: Vec<_> = self.violations.iter().map(|v| v.class).collect();
        classes.sort();
        classes.dedup();
        classes
    }
}

/// When the plan's final fault-free quiet period starts and how long any operation may
/// take inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LivenessSpec {
    /// Start of the final fault-free quiet period, in virtual microseconds.
    pub quiet_from_us: u64,
    /// How long an operation may take once the quiet period has started, in microseconds.
    pub op_budget_us: u64,
    /// When the history ends: a pending op is stuck only if its budget ran out before this.
    pub run_end_us: u64,
    /// When the plan's last fault's effects ended (0: a plan without faults), for
    /// `unavailable`: its window's end, or for a partition the retransmission after it.
    pub healed_us: u64,
    /// That fault's kind (`partition`, `redis-restart`, ...), named by the explanation.
    #[serde(skip)]
    pub healed_fault: &'static str,
}

/// Everything the checker can use; `check` is the common case with history and policy.
#[derive(Clone, Debug)]
pub struct CheckInput<'a> {
    /// The recorded history to judge.
    pub history: &'a History,
    /// The store's declared policy: what it promises to keep, and for how long.
    pub policy: Policy,
    /// The store's memory hash and index at quiescence, for `index-drift`; `None` skips
    /// that rule.
    pub quiescence: Option<&'a Quiescence>,
    /// The quiet-period deadlines, for `stuck`; `None` skips the liveness rule.
    pub liveness: Option<LivenessSpec>,
    /// Judge recalls by rank under the plan's embedder too (`rank`): on for plans with a
    /// history corpus, where answers are full and an exact match can be pushed out.
    pub rank_by_embedder: bool,
}

impl<'a> CheckInput<'a> {
    /// The common input: history and policy, without quiescence or liveness evidence.
    pub fn new(history: &'a History, policy: Policy) -> Self {
        Self {
            history,
            policy,
            quiescence: None,
            liveness: None,
            rank_by_embedder: false,
        }
    }
}

/// Judges a history against the store's declared policy.
///
/// ```
/// use amnesia::history::History;
/// use amnesia::{Durability, Message, Policy, Role, SessionKey, TtlPolicy, ViolationClass};
/// let session = SessionKey::new("t1", "s1");
/// let m1 = Message { id: "m1".into(), role: Role::User, content: "hi".into(), seq: 0 };
/// let mut history = History::new();
/// history.push_acked_append(0, &session, m1, 0, 1_000);
/// history.push_context(1, &session, 10, 2_000, 3_000, vec![]); // m1 is missing
/// let policy = Policy {
///     messages_max: None,
///     keep_first: false,
///     summarizes: false,
///     ttl: TtlPolicy::None,
///     durability: Durability::AsRedis,
///     appends_idempotent: true,
///     recovery_grace_ms: 0,
///     eviction: amnesia::Eviction::Forbidden,
/// };
/// let verdict = amnesia::internal::check::check(&history, &policy);
/// assert_eq!(verdict.classes(), [ViolationClass::Lost]);
/// ```
pub fn check(history: &History, policy: &Policy) -> Verdict {
    check_input(&CheckInput::new(history, *policy))
}

/// Judges a history with the optional quiescence and liveness evidence.
pub fn check_input(input: &CheckInput<'_>) -> Verdict {
    let idx = index::Index::build(input.history, input.policy);
    let mut verdict = Verdict::default();
    presence::check(&idx, &mut verdict);
    integrity::check(&idx, &mut verdict);
    order::check(&idx, &mut verdict);
    memory::check(&idx, input, &mut verdict);
    if let Some(spec) = input.liveness {
        liveness::check(&idx, spec, &mut verdict);
        recovery::check(input.history, input.policy, spec, &mut verdict);
    }
    verdict.violations.sort();
    verdict.violations.dedup();
    verdict.info.sort();
    verdict.info.dedup();
    verdict
}
