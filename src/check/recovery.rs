//! The store serves again once the faults healed: `unavailable`.
//!
//! Rule, given a [`LivenessSpec`]: per client process, the operations invoked in the final
//! quiet period from `max(quiet_from, healed + grace)` on (`grace`: the store's declared
//! `Policy::recovery_grace_ms`) may fail (an error or an unknown outcome) only until the
//! client's first such failure has completed, plus the grace: that failure is how a store
//! learns what the faults broke (a connection a partition left dead is found dead when
//! next used). A failure invoked later is `unavailable`: the quiet period has no fault, so
//! a store that still fails there never recovered (a cached connection never replaced, a
//! breaker that never closes). An operation the store does not offer
//! (`StoreError::Unsupported`) is not a failure; one still pending is `stuck`'s business.

use super::time::at;
use super::{LivenessSpec, Subject, Verdict, Violation, ViolationClass};
use crate::contract::{Policy, StoreError};
use crate::history::{History, Op, Outcome};

/// Failed operations an explanation names; the rest are counted (all are in `op_indexes`).
const NAMED_OPS_MAX: usize = 5;

pub(crate) fn check(history: &History, policy: Policy, spec: LivenessSpec, verdict: &mut Verdict) {
    let grace_us = policy.recovery_grace_ms.saturating_mul(1_000);
    let from_us = spec
        .quiet_from_us
        .max(spec.healed_us.saturating_add(grace_us));
    // Strictly after the heal: an operation invoked at the very instant a process comes
    // back races its return.
    let mut quiet: Vec<&Op> = history
        .ops
        .iter()
        .filter(|op| op.invoke_us >= from_us && op.invoke_us > spec.healed_us)
        .collect();
    quiet.sort_by_key(|op| (op.client, op.invoke_us, op.index));
    let unsupported = StoreError::Unsupported.to_string();
    let mut failed: Vec<&Op> = quiet
        .chunk_by(|a, b| a.client == b.client)
        .flat_map(|ops| unrecovered(ops, grace_us, &unsupported))
        .collect();
    if failed.is_empty() {
        return;
    }
    failed.sort_by_key(|op| op.index);
    verdict.violations.push(Violation::new(
        ViolationClass::Unavailable,
        Subject::Store,
        failed.iter().map(|op| op.index).collect(),
        Vec::new(),
        explain(&failed, spec, policy, from_us),
    ));
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

/// One client's quiet-period operations (by invocation) that failed after the client had
/// its chance to recover: its first failure shows what broke in the faults (a connection
/// a partition left dead is found dead when next used), so failures invoked before that
/// one completed, plus the grace, are excused; any later one is not.
fn unrecovered<'h>(ops: &[&'h Op], grace_us: u64, unsupported: &str) -> Vec<&'h Op> {
    let Some(first) = ops.iter().find(|op| is_failure(op, unsupported)) else {
        return Vec::new();
    };
    let noticed_us = first
        .complete_us
        .expect("a failure has completed")
        .saturating_add(grace_us);
    ops.iter()
        .filter(|op| op.index > first.index && op.invoke_us >= noticed_us)
        .filter(|op| is_failure(op, unsupported))
        .copied()
        .collect()
}

fn explain(failed: &[&Op], spec: LivenessSpec, policy: Policy, from_us: u64) -> String {
    let named: Vec<String> = failed
        .iter()
        .take(NAMED_OPS_MAX)
        .map(|op| {
            let error = match &op.outcome {
                Outcome::Fail(error) | Outcome::Unknown(error) => error.as_str(),
                Outcome::Ok(_) | Outcome::Pending => unreachable!("only failures are named"),
            };
            format!(
                "op {} {} at {} ({error})",
                op.index,
                op.kind.name(),
                at(op.invoke_us)
            )
        })
        .collect();
    let more = failed.len().saturating_sub(NAMED_OPS_MAX);
    let healed = match spec.healed_us {
        0 => "with no fault in the plan".to_string(),
        us if spec.healed_fault.is_empty() => format!("after the last fault healed at {}", at(us)),
        us => format!(
            "after the last fault ({}) healed at {}",
            spec.healed_fault,
            at(us)
        ),
    };
    format!(
        "{} operations failed in the quiet period from {} on, {healed} and the store's \
         recovery grace of {} ms: {}{}",
        failed.len(),
        at(from_us),
        policy.recovery_grace_ms,
        named.join(", "),
        if more > 0 {
            format!(", and {more} more")
        } else {
            String::new()
        }
    )
}
