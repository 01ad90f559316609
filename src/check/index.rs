//! The history turned into lookups every rule shares. Operations are taken in `index`
//! order, so the verdict does not depend on the order of `History::ops`.

use std::collections::{BTreeMap, HashMap};

use crate::contract::{Policy, TtlPolicy};
use crate::domain::{Memory, Message, SessionKey, Summary, UserKey};
use crate::history::{History, KeyEviction, KeyExpiry, Op, OpKind, OpValue, Outcome};

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
    /// The session's number (see [`Index::session_nos`]): rules compare sessions by
    /// number, not by name.
    pub session_no: usize,
    pub msg: &'a Message,
    /// `msg.id`'s number (see [`Index::id_nos`]).
    pub id_no: usize,
    /// The only append of its id in the whole history.
    pub unique: bool,
}

/// One successful `context` read.
#[derive(Clone, Debug)]
pub(crate) struct Read<'a> {
    pub op: usize,
    pub session: &'a SessionKey,
    pub session_no: usize,
    pub limit: usize,
    pub invoke_us: u64,
    pub complete_us: u64,
    pub messages: &'a [Message],
    /// Per entry of `messages`: its id's number, `None` for an id never appended. Entries
    /// are looked up once here instead of by string in every rule.
    pub id_nos: Vec<Option<usize>>,
    /// A summarizing store's summary, shown before the window.
    pub summary: Option<&'a Summary>,
    /// Per folded id of `summary`: its number, as in `id_nos`.
    pub folded_nos: Vec<Option<usize>>,
}

impl Read<'_> {
    /// True when the read shows the id numbered `id_no`, in the window or the summary.
    pub fn contains(&self, id_no: usize) -> bool {
        self.id_nos.contains(&Some(id_no)) || self.folded_nos.contains(&Some(id_no))
    }

    /// Every id the read shows, in the order it claims: the summary's folded ids, then
    /// the window's entries.
    pub fn shown(&self) -> impl Iterator<Item = (&str, Option<usize>)> + '_ {
        let folded = self.summary.map_or(&[][..], |s| s.folded_ids.as_slice());
        let folded = folded
            .iter()
            .map(String::as_str)
            .zip(self.folded_nos.iter().copied());
        let window = self.messages.iter().map(|m| m.id.as_str());
        folded.chain(window.zip(self.id_nos.iter().copied()))
    }
}

/// One `remember`, or an `update_memory` (a write of a memory's new form).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Remember<'a> {
    pub write: Write,
    pub user: &'a UserKey,
    pub memory: &'a Memory,
}

/// One `clear` (no id) or `delete` (an id) of a session's messages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Erase<'a> {
    pub write: Write,
    /// The deleted message's id; `None` for a clear (every message).
    pub id: Option<&'a str>,
}

impl Erase<'_> {
    /// True when this erase may remove a message with id `id`.
    pub fn targets(&self, id: &str) -> bool {
        self.id.is_none_or(|own| own == id)
    }
}

/// One `forget` of a user's memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Forget<'a> {
    pub write: Write,
    pub user: &'a UserKey,
    pub id: &'a str,
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

/// The hash of the id and session tables: rustc's FxHash. Every read entry is looked up
/// by id, and a B-tree of strings or SipHash cost more than the rest of most rules; the
/// keys come from the history under test, not from an adversary. A lookup still compares
/// whole keys, and the tables are never iterated, so they answer exactly what a B-tree
/// would.
pub(crate) type FastHash = rustc_hash::FxBuildHasher;

pub(crate) struct Index<'a> {
    pub policy: Policy,
    /// All appends, in op-index order.
    pub appends: Vec<Append<'a>>,
    /// Every session appended to or read, numbered in order of first appearance.
    pub session_nos: HashMap<&'a SessionKey, usize, FastHash>,
    /// Positions in `appends` per session number.
    pub by_session: Vec<Vec<usize>>,
    /// Every appended message id, numbered in order of first appearance.
    pub id_nos: HashMap<&'a str, usize, FastHash>,
    /// Positions in `appends` per id number (any session).
    pub by_id: Vec<Vec<usize>>,
    pub reads: Vec<Read<'a>>,
    /// Per id number: the id's appends taken as one message (see [`Index::logical_append`]).
    pub logical: Vec<Option<Append<'a>>>,
    pub remembers: Vec<Remember<'a>>,
    /// Positions in `remembers` per memory id.
    pub remembers_by_id: HashMap<&'a str, Vec<usize>, FastHash>,
    /// Positions in `remembers` per user and text, in op-index order: a recall is judged
    /// against the memories with its exact text only.
    pub remembers_by_text: BTreeMap<&'a UserKey, BTreeMap<&'a str, Vec<usize>>>,
    pub recalls: Vec<Recall<'a>>,
    /// Clears and deletes, in op-index order, and their positions per session number.
    pub erases: Vec<Erase<'a>>,
    pub erases_by_session: Vec<Vec<usize>>,
    /// Forgets, in op-index order.
    pub forgets: Vec<Forget<'a>>,
    pub timings: Vec<Timing>,
    /// Per server restart, by time: when it happened, and the instant before which every
    /// applied write survived it, by what the server kept and what the store promises.
    pub restarts: Vec<RestartBound>,
    /// The keys Redis expired, in time order: named by explanations, never judged.
    pub expiries: &'a [KeyExpiry],
    /// The keys Redis evicted, in time order: a loss one explains is `evicted`.
    pub evictions: &'a [KeyEviction],
}

/// One restart as the checker weighs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RestartBound {
    pub at_us: u64,
    /// The writes applied from this instant until the crash may be gone: the durable
    /// point the world observed, or the store's weaker promise. `None`: none may be.
    pub lost_from_us: Option<u64>,
}

impl<'a> Index<'a> {
    pub fn build(history: &'a History, policy: Policy) -> Self {
        let mut ops: Vec<&Op> = history.ops.iter().collect();
        ops.sort_by_key(|op| (op.index, op.invoke_us, op.client));
        let mut restarts: Vec<RestartBound> = history
            .restarts
            .iter()
            .map(|r| RestartBound {
                at_us: r.at_us,
                lost_from_us: policy.durability.lost_from_us(r),
            })
            .collect();
        restarts.sort_unstable_by_key(|r| (r.at_us, r.lost_from_us));
        let mut idx = Index {
            policy,
            appends: Vec::new(),
            session_nos: HashMap::default(),
            by_session: Vec::new(),
            id_nos: HashMap::default(),
            by_id: Vec::new(),
            reads: Vec::new(),
            logical: Vec::new(),
            remembers: Vec::new(),
            remembers_by_id: HashMap::default(),
            remembers_by_text: BTreeMap::new(),
            recalls: Vec::new(),
            erases: Vec::new(),
            erases_by_session: Vec::new(),
            forgets: Vec::new(),
            timings: Vec::new(),
            restarts,
            expiries: &history.expiries,
            evictions: &history.evictions,
        };
        for op in ops {
            idx.add(op);
        }
        for a in &mut idx.appends {
            a.unique = idx.by_id[a.id_no].len() == 1;
        }
        idx.logical = (0..idx.by_id.len()).map(|n| idx.merge(n)).collect();
        // Reads are resolved once every id is known (a read may show a later append).
        for read in &mut idx.reads {
            let number = |id: &str| idx.id_nos.get(id).copied();
            read.id_nos = read.messages.iter().map(|m| number(&m.id)).collect();
            read.folded_nos = read
                .summary
                .map(|s| s.folded_ids.iter().map(|id| number(id)).collect())
                .unwrap_or_default();
        }
        idx
    }

    /// The number of `session`, given on first sight.
    fn intern_session(&mut self, session: &'a SessionKey) -> usize {
        let next = self.by_session.len();
        let no = *self.session_nos.entry(session).or_insert(next);
        if no == next {
            self.by_session.push(Vec::new());
            self.erases_by_session.push(Vec::new());
        }
        no
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
            OpKind::Remember { user, memory } | OpKind::UpdateMemory { user, memory } => {
                let pos = self.remembers.len();
                self.remembers_by_id
                    .entry(memory.id.as_str())
                    .or_default()
                    .push(pos);
                self.remembers_by_text
                    .entry(user)
                    .or_default()
                    .entry(memory.text.as_str())
                    .or_default()
                    .push(pos);
                self.remembers.push(Remember {
                    write: Write::from_op(op),
                    user,
                    memory,
                });
            }
            OpKind::Recall { user, query, k } => self.add_recall(op, user, query, *k),
            OpKind::Clear { session } => self.add_erase(op, session, None),
            OpKind::Delete { session, id } => self.add_erase(op, session, Some(id)),
            OpKind::Forget { user, id } => self.forgets.push(Forget {
                write: Write::from_op(op),
                user,
                id,
            }),
        }
    }

    fn add_erase(&mut self, op: &'a Op, session: &'a SessionKey, id: Option<&'a str>) {
        let session_no = self.intern_session(session);
        self.erases_by_session[session_no].push(self.erases.len());
        self.erases.push(Erase {
            write: Write::from_op(op),
            id,
        });
    }

    /// The clears and deletes of session `session_no` that may remove a message `id`.
    pub fn erases_of<'i>(
        &'i self,
        session_no: usize,
        id: &'i str,
    ) -> impl Iterator<Item = &'i Erase<'a>> + 'i {
        self.erases_by_session[session_no]
            .iter()
            .map(|&p| &self.erases[p])
            .filter(move |e| e.targets(id))
    }

    /// True when a clear or delete may have removed message `m` by the end of a read
    /// completed at `until_us`: it was invoked by then and, for a clear, may have been
    /// applied after m was (a clear applied before m's append leaves m).
    pub fn may_be_erased(&self, m: &Append<'_>, until_us: u64) -> bool {
        self.erases_of(m.session_no, &m.msg.id).any(|e| {
            e.write.invoke_us <= until_us
                && (e.id.is_some() || e.write.latest_apply_us() >= m.write.invoke_us)
        })
    }

    fn add_append(&mut self, op: &'a Op, session: &'a SessionKey, msg: &'a Message) {
        let pos = self.appends.len();
        let session_no = self.intern_session(session);
        let next_id = self.by_id.len();
        let id_no = *self.id_nos.entry(msg.id.as_str()).or_insert(next_id);
        if id_no == next_id {
            self.by_id.push(Vec::new());
        }
        self.appends.push(Append {
            write: Write::from_op(op),
            session_no,
            msg,
            id_no,
            unique: false,
        });
        self.by_session[session_no].push(pos);
        self.by_id[id_no].push(pos);
    }

    fn add_read(&mut self, op: &'a Op, session: &'a SessionKey, limit: usize) {
        let (Outcome::Ok(value), Some(complete_us)) = (&op.outcome, op.complete_us) else {
            return;
        };
        let (summary, messages) = match value {
            OpValue::Messages(messages) => (None, messages),
            OpValue::Summarized { summary, messages } => (Some(summary), messages),
            _ => return,
        };
        let session_no = self.intern_session(session);
        self.reads.push(Read {
            op: op.index,
            session,
            session_no,
            limit,
            invoke_us: op.invoke_us,
            complete_us,
            messages,
            id_nos: Vec::new(),
            summary,
            folded_nos: Vec::new(),
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

    /// Positions in `appends` of every append of session `session_no`, in op-index order.
    pub fn session_positions(&self, session_no: usize) -> &[usize] {
        &self.by_session[session_no]
    }

    /// Every append of session `session_no`, in op-index order.
    pub fn session_appends(&self, session_no: usize) -> impl Iterator<Item = &Append<'a>> {
        self.by_session[session_no]
            .iter()
            .map(|&p| &self.appends[p])
    }

    /// Every append carrying the id numbered `id_no`, in any session, in op-index order;
    /// nothing for `None` (an id never appended).
    pub fn id_appends(&self, id_no: Option<usize>) -> impl Iterator<Item = &Append<'a>> {
        id_no
            .map_or(&[][..], |n| self.by_id[n].as_slice())
            .iter()
            .map(|&p| &self.appends[p])
    }

    /// The number of message id `id`, if it was ever appended.
    pub fn id_no(&self, id: &str) -> Option<usize> {
        self.id_nos.get(id).copied()
    }

    /// The append of the id numbered `id_no` when it is the only append of that id in the
    /// whole history and it targeted session `session_no`. The order rules judge only
    /// these: a store may keep a retried message where its first or its last copy landed.
    pub fn sole_append(&self, session_no: usize, id_no: Option<usize>) -> Option<&Append<'a>> {
        match self.by_id[id_no?].as_slice() {
            [p] if self.appends[*p].session_no == session_no => Some(&self.appends[*p]),
            _ => None,
        }
    }

    /// The appends of the id numbered `id_no` taken as one message, when every one of them
    /// targeted session `session_no`: a message and its retries (same id) are one message,
    /// stored at most once, first applied between the earliest invocation and the earliest
    /// acknowledgement. The presence rules judge this; for a sole append it is the append.
    pub fn logical_append(&self, session_no: usize, id_no: Option<usize>) -> Option<&Append<'a>> {
        self.logical[id_no?]
            .as_ref()
            .filter(|a| a.session_no == session_no)
    }

    /// `a` as the logical message it belongs to, if `a` is that message's earliest append
    /// (each logical message is judged once, where its first copy was invoked).
    pub fn as_logical(&self, a: &Append<'_>) -> Option<&Append<'a>> {
        let logical = self.logical[a.id_no].as_ref()?;
        (logical.write.op == a.write.op).then_some(logical)
    }

    /// The logical message of the id numbered `n` (see [`Index::logical_append`]), or
    /// `None` when its appends went to more than one session.
    fn merge(&self, n: usize) -> Option<Append<'a>> {
        // Nearly every id is appended once: it is its own logical message.
        if let [p] = self.by_id[n].as_slice() {
            return Some(Append {
                unique: true,
                ..self.appends[*p]
            });
        }
        let copies: Vec<&Append<'a>> = self.by_id[n].iter().map(|&p| &self.appends[p]).collect();
        let first = *copies
            .iter()
            .min_by_key(|a| (a.write.invoke_us, a.write.op))?;
        if copies.iter().any(|a| a.session_no != first.session_no) {
            return None;
        }
        let acked_us = copies.iter().filter_map(|a| a.write.acked_by_us()).min();
        let status = if acked_us.is_some() {
            WriteStatus::Acked
        } else if copies.iter().all(|a| a.write.status == WriteStatus::Failed) {
            WriteStatus::Failed
        } else {
            WriteStatus::Unknown
        };
        let write = Write {
            op: first.write.op,
            invoke_us: first.write.invoke_us,
            complete_us: acked_us,
            status,
        };
        Some(Append {
            write,
            unique: true,
            ..*first
        })
    }

    /// The remembers of `user` with exactly `text`, in op-index order.
    pub fn exact_remembers(
        &self,
        user: &UserKey,
        text: &str,
    ) -> impl Iterator<Item = &Remember<'a>> {
        self.remembers_by_text
            .get(user)
            .and_then(|texts| texts.get(text))
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|&p| &self.remembers[p])
    }

    /// The first restart by `until_us` that may have lost `write`: the write may have
    /// been applied between the restart's `lost_from_us` and its crash (it was invoked by
    /// the crash and, if acked, completed at or after `lost_from_us`).
    pub fn restart_losing(&self, write: &Write, until_us: u64) -> Option<u64> {
        self.restart_losing_span(write.invoke_us, write.acked_by_us(), until_us)
    }

    /// [`Self::restart_losing`] of a write invoked at `invoke_us` and, when acked,
    /// completed at `acked_us`.
    pub fn restart_losing_span(
        &self,
        invoke_us: u64,
        acked_us: Option<u64>,
        until_us: u64,
    ) -> Option<u64> {
        let from = self.restarts.partition_point(|r| r.at_us < invoke_us);
        self.restarts[from..]
            .iter()
            .take_while(|r| r.at_us <= until_us)
            .find(|r| {
                r.lost_from_us
                    .is_some_and(|from_us| acked_us.is_none_or(|c| c >= from_us))
            })
            .map(|r| r.at_us)
    }

    /// The sliding TTL in microseconds, if the policy expires sessions.
    pub fn ttl_us(&self) -> Option<u64> {
        match self.policy.ttl {
            TtlPolicy::None => None,
            TtlPolicy::Sliding { ttl_ms } => Some(ttl_ms.saturating_mul(1000)),
        }
    }
}
