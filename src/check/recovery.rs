//! The store serves again once the faults healed: `unavailable`.
//!
//! Rule, given a [`LivenessSpec`]: judged per *conversation*, a session's history
//! operations or a user's memory operations on one client process (a process keeps its
//! own connections, and a store may keep one per conversation, as a per-session
//! `ConnectionManager` does; two processes serving one session hold two of them). Among
//! the conversation's operations invoked in the final quiet period (from `quiet_from` on,
//! after the last fault healed), the first failure (an error or an unknown outcome) is
//! excused: it is how the store meets what the faults broke (a connection a reset left
//! dead is found dead when next used). A later operation of the conversation, invoked
//! once that failure completed plus the store's declared `Policy::recovery_grace_ms` (a
//! reconnect backoff, an open breaker), must not fail: the quiet period has no fault, so
//! a store that still fails there never recovered (a cached connection never replaced, a
//! breaker that never closes). The driver's two rounds of final reads, spaced by more
//! than the largest grace a store may declare, give every conversation it reads such a
//! later operation. An operation the store does not offer (`StoreError::Unsupported`) is
//! not a failure; one still pending is `stuck`'s business.

use super::time::at;
use super::{LivenessSpec, Subject, Verdict, Violation, ViolationClass};
use crate::contract::{Policy, StoreError};
use crate::history::{History, Op, OpKind, Outcome};

/// Later failures of one conversation an explanation names; the rest are counted (all
/// are in `op_indexes`).
const NAMED_OPS_MAX: usize = 3;

/// Whose state an operation meets in a client process: a session's history or a user's
/// memories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Conversation<'h> {
    Session(&'h crate::domain::SessionKey),
    User(&'h crate::domain::UserKey),
}

impl Conversation<'_> {
    fn of(kind: &OpKind) -> Conversation<'_> {
        match kind {
            OpKind::Append { session, .. }
            | OpKind::Context { session, .. }
            | OpKind::Clear { session }
            | OpKind::Delete { session, .. } => Conversation::Session(session),
            OpKind::Remember { user, .. }
            | OpKind::UpdateMemory { user, .. }
            | OpKind::Forget { user, .. }
            | OpKind::Recall { user, .. } => Conversation::User(user),
        }
    }

    fn subject(self) -> Subject {
        match self {
            Conversation::Session(session) => Subject::Session(session.clone()),
            Conversation::User(user) => Subject::User(user.clone()),
        }
    }

    fn name(self) -> String {
        match self {
            Conversation::Session(session) => format!("session {session}"),
            Conversation::User(user) => format!("user {user}'s memories"),
        }
    }
}

/// One conversation that failed again after its chance to recover.
struct Relapse<'h> {
    conversation: Conversation<'h>,
    /// Its first failure in the quiet period, excused.
    first: &'h Op,
    /// Its failures invoked once `first` completed plus the grace, by invocation.
    later: Vec<&'h Op>,
}

pub(crate) fn check(history: &History, policy: Policy, spec: LivenessSpec, verdict: &mut Verdict) {
    let grace_us = policy.recovery_grace_ms.saturating_mul(1_000);
    // Strictly after the heal: an operation invoked at the very instant a process comes
    // back races its return.
    let mut quiet: Vec<&Op> = history
        .ops
        .iter()
        .filter(|op| op.invoke_us >= spec.quiet_from_us && op.invoke_us > spec.healed_us)
        .collect();
    quiet.sort_by_key(|op| (key(op), op.invoke_us, op.index));
    let unsupported = StoreError::Unsupported.to_string();
    for ops in quiet.chunk_by(|a, b| key(a) == key(b)) {
        if let Some(relapse) = unrecovered(ops, grace_us, &unsupported) {
            verdict.violations.push(violation(&relapse, spec, policy));
        }
    }
}

/// The conversation an operation belongs to: its client process, and whose state.
fn key<'h>(op: &&'h Op) -> (u32, Conversation<'h>) {
    (op.client, Conversation::of(&op.kind))
}

/// Whether `op` failed for want of service (an operation the store does not offer, whose
/// error reads `unsupported`, did not).
fn is_failure(op: &Op, unsupported: &str) -> bool {
    match &op.outcome {
        Outcome::Fail(error) => error != unsupported,
        Outcome::Unknown(_) => true,
        Outcome::Ok(_) | Outcome::Pending => false,
    }
}

/// One conversation's quiet-period operations (by invocation) that failed after it had
/// its chance to recover: failures invoked before its first failure completed, plus the
/// grace, are excused; any later one is not.
fn unrecovered<'h>(ops: &[&'h Op], grace_us: u64, unsupported: &str) -> Option<Relapse<'h>> {
    let first = *ops.iter().find(|op| is_failure(op, unsupported))?;
    let noticed_us = first
        .complete_us
        .expect("a failure has completed")
        .saturating_add(grace_us);
    let later: Vec<&Op> = ops
        .iter()
        .filter(|op| op.index != first.index && op.invoke_us >= noticed_us)
        .filter(|op| is_failure(op, unsupported))
        .copied()
        .collect();
    if later.is_empty() {
        return None;
    }
    Some(Relapse {
        conversation: Conversation::of(&first.kind),
        first,
        later,
    })
}

fn violation(relapse: &Relapse<'_>, spec: LivenessSpec, policy: Policy) -> Violation {
    let mut ops: Vec<usize> = relapse.later.iter().map(|op| op.index).collect();
    ops.push(relapse.first.index);
    ops.sort_unstable();
    Violation::new(
        ViolationClass::Unavailable,
        relapse.conversation.subject(),
        ops,
        Vec::new(),
        explain(relapse, spec, policy),
    )
}

/// `op 12 context at 35.000 s (connection lost: broken pipe)`.
fn describe(op: &Op) -> String {
    let error = match &op.outcome {
        Outcome::Fail(error) | Outcome::Unknown(error) => error.as_str(),
        Outcome::Ok(_) | Outcome::Pending => unreachable!("only failures are described"),
    };
    format!(
        "op {} {} at {} ({error})",
        op.index,
        op.kind.name(),
        at(op.invoke_us)
    )
}

fn explain(relapse: &Relapse<'_>, spec: LivenessSpec, policy: Policy) -> String {
    let first = relapse.first;
    let later: Vec<String> = relapse
        .later
        .iter()
        .take(NAMED_OPS_MAX)
        .map(|op| describe(op))
        .collect();
    let more = relapse.later.len().saturating_sub(NAMED_OPS_MAX);
    let healed = match spec.healed_us {
        0 => "with no fault in the plan".to_string(),
        us if spec.healed_fault.is_empty() => format!("after the last fault healed at {}", at(us)),
        us if spec.healed_fault == "partition" => format!(
            "after the last fault (partition) settled at {}, its retransmissions landed",
            at(us)
        ),
        us => format!(
            "after the last fault ({}) healed at {}",
            spec.healed_fault,
            at(us)
        ),
    };
    format!(
        "{} on client-{} failed in the quiet period {healed}: first {}, excused; then, \
         invoked after that failure completed at {} plus the store's recovery grace of {} \
         ms, {}{}",
        relapse.conversation.name(),
        first.client,
        describe(first),
        at(first.complete_us.expect("a failure has completed")),
        policy.recovery_grace_ms,
        later.join(", "),
        if more > 0 {
            format!(", and {more} more")
        } else {
            String::new()
        }
    )
}
