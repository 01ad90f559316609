//! The history turned into lookups every rule shares. Operations are taken in `index`
//! order, so the verdict does not depend on the order of `History::ops`.

use std::collections::BTreeMap;

use crate::history::{History, Op, OpKind, OpValue, Outcome};
use crate::store::{Memory, Message, Policy, SessionKey, TtlPolicy, UserKey};

/// What an append's outcome says about its application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriteStatus {
    /// Applied somewhere in [invoke, complete].
    Acked,
    /// Unknown or pending: applied at most once, at any time after invoke, or never.
    Unknown,
    /// Reported as definitely not applied; treated like `Unknown` for presence.
    Failed,
}

/// A write (append or remember) with its timing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Write {
    pub op: usize,
    pub invoke_us: u64,
    pub complete_us: Option<u64>,
    pub status: WriteStatus,
}

impl Write {
    fn from_op(op: &Op) -> Self {
        let status = match (&op.outcome, op.complete_us) {
            (Outcome::Ok(_), Some(_)) => WriteStatus::Acked,
            (Outcome::Fail(_), _) => WriteStatus::Failed,
            _ => WriteStatus::Unknown,
        };
        Self {
            op: op.index,
            invoke_us: op.invoke_us,
            complete_us: op.complete_us,
            status,
        }
    }

    pub fn is_acked(&self) -> bool {
        self.status == WriteStatus::Acked
    }

    /// The completion time of an acked write: it was certainly applied by then.
    pub fn acked_by_us(&self) -> Option<u64> {
        if self.is_acked() {
            self.complete_us
        } else {
            None
        }
    }

    /// The latest instant the write may have been applied (`u64::MAX`: any time).
    pub fn latest_apply_us(&self) -> u64 {
        self.acked_by_us().unwrap_or(u64::MAX)
    }

    /// True when this write was certainly applied before `other` could have been.
    pub fn certainly_before(&self, other: &Write) -> bool {
        self.acked_by_us().is_some_and(|t| t < other.invoke_us)
    }
}

/// One append of the history.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Append<'a> {
    pub write: Write,
    pub session: &'a SessionKey,
    pub msg: &'a Message,
}

/// One successful `context` read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Read<'a> {
    pub op: usize,
    pub session: &'a SessionKey,
    pub limit: usize,
    pub invoke_us: u64,
    pub complete_us: u64,
    pub messages: &'a [Message],
}

impl Read<'_> {
    pub fn contains(&self, id: &str) -> bool {
        self.messages.iter().any(|m| m.id == id)
    }

    pub fn count(&self, id: &str) -> usize {
        self.messages.iter().filter(|m| m.id == id).count()
    }
}

/// One `remember`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Remember<'a> {
    pub write: Write,
    pub user: &'a UserKey,
    pub memory: &'a Memory,
}

/// One successful `recall`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recall<'a> {
    pub op: usize,
    pub user: &'a UserKey,
    pub query: &'a str,
    pub k: usize,
    pub invoke_us: u64,
    pub complete_us: u64,
    pub memories: &'a [Memory],
}

/// Completed-operation and pending-operation timing, for liveness.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    pub op: usize,
    pub invoke_us: u64,
    pub complete_us: Option<u64>,
}

pub(crate) struct Index<'a> {
    pub policy: Policy,
    /// All appends, in op-index order.
    pub appends: Vec<Append<'a>>,
    /// Positions in `appends` per session.
    pub by_session: BTreeMap<&'a SessionKey, Vec<usize>>,
    /// Positions in `appends` per message id (any session).
    pub by_id: BTreeMap<&'a str, Vec<usize>>,
    pub reads: Vec<Read<'a>>,
    pub remembers: Vec<Remember<'a>>,
    /// Positions in `remembers` per memory id.
    pub remembers_by_id: BTreeMap<&'a str, Vec<usize>>,
    pub recalls: Vec<Recall<'a>>,
    pub timings: Vec<Timing>,
    /// Epoch boundaries, sorted.
    pub epochs_us: Vec<u64>,
}

impl<'a> Index<'a> {
    pub fn build(history: &'a History, policy: Policy) -> Self {
        let mut ops: Vec<&Op> = history.ops.iter().collect();
        ops.sort_by_key(|op| (op.index, op.invoke_us, op.client));
        let mut epochs_us: Vec<u64> = history.epochs.iter().map(|e| e.at_us).collect();
        epochs_us.sort_unstable();
        let mut idx = Index {
            policy,
            appends: Vec::new(),
            by_session: BTreeMap::new(),
            by_id: BTreeMap::new(),
            reads: Vec::new(),
            remembers: Vec::new(),
            remembers_by_id: BTreeMap::new(),
            recalls: Vec::new(),
            timings: Vec::new(),
            epochs_us,
        };
        for op in ops {
            idx.add(op);
        }
        idx
    }

    fn add(&mut self, op: &'a Op) {
        self.timings.push(Timing {
            op: op.index,
            invoke_us: op.invoke_us,
            complete_us: op.complete_us,
        });
        match &op.kind {
            OpKind::Append { session, msg } => self.add_append(op, session, msg),
            OpKind::Context { session, limit } => self.add_read(op, session, *limit),
            OpKind::Remember { user, memory } => {
                let pos = self.remembers.len();
                self.remembers_by_id
                    .entry(memory.id.as_str())
                    .or_default()
                    .push(pos);
                self.remembers.push(Remember {
                    write: Write::from_op(op),
                    user,
                    memory,
                });
            }
            OpKind::Recall { user, query, k } => self.add_recall(op, user, query, *k),
        }
    }

    fn add_append(&mut self, op: &'a Op, session: &'a SessionKey, msg: &'a Message) {
        let pos = self.appends.len();
        self.appends.push(Append {
            write: Write::from_op(op),
            session,
            msg,
        });
        self.by_session.entry(session).or_default().push(pos);
        self.by_id.entry(msg.id.as_str()).or_default().push(pos);
    }

    fn add_read(&mut self, op: &'a Op, session: &'a SessionKey, limit: usize) {
        let (Outcome::Ok(OpValue::Messages(messages)), Some(complete_us)) =
            (&op.outcome, op.complete_us)
        else {
            return;
        };
        self.reads.push(Read {
            op: op.index,
            session,
            limit,
            invoke_us: op.invoke_us,
            complete_us,
            messages,
        });
    }

    fn add_recall(&mut self, op: &'a Op, user: &'a UserKey, query: &'a str, k: usize) {
        let (Outcome::Ok(OpValue::Memories(memories)), Some(complete_us)) =
            (&op.outcome, op.complete_us)
        else {
            return;
        };
        self.recalls.push(Recall {
            op: op.index,
            user,
            query,
            k,
            invoke_us: op.invoke_us,
            complete_us,
            memories,
        });
    }

    /// Every append of `session`, in op-index order.
    pub fn session_appends(&self, session: &SessionKey) -> Vec<&Append<'a>> {
        self.by_session
            .get(session)
            .map(|ps| ps.iter().map(|&p| &self.appends[p]).collect())
            .unwrap_or_default()
    }

    /// Every append carrying `id`, in any session.
    pub fn id_appends(&self, id: &str) -> Vec<&Append<'a>> {
        self.by_id
            .get(id)
            .map(|ps| ps.iter().map(|&p| &self.appends[p]).collect())
            .unwrap_or_default()
    }

    /// The append of `id` when it is the only append of that id in the whole history
    /// and it targeted `session`. Ids appended more than once are not judged by the
    /// presence and order rules: their copies cannot be told apart.
    pub fn unique_append(&self, session: &SessionKey, id: &str) -> Option<&Append<'a>> {
        match self.by_id.get(id).map(Vec::as_slice) {
            Some([p]) if self.appends[*p].session == session => Some(&self.appends[*p]),
            _ => None,
        }
    }

    /// The first epoch boundary in `[from_us, to_us]`.
    pub fn epoch_within(&self, from_us: u64, to_us: u64) -> Option<u64> {
        self.epochs_us
            .iter()
            .copied()
            .find(|&b| from_us <= b && b <= to_us)
    }

    /// The last epoch boundary strictly before `us`.
    pub fn epoch_before(&self, us: u64) -> Option<u64> {
        self.epochs_us.iter().copied().rev().find(|&b| b < us)
    }

    /// The sliding TTL in microseconds, if the policy expires sessions.
    pub fn ttl_us(&self) -> Option<u64> {
        match self.policy.ttl {
            TtlPolicy::None => None,
            TtlPolicy::Sliding { ttl_ms } => Some(ttl_ms.saturating_mul(1000)),
        }
    }
}
