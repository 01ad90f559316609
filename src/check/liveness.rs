//! No progress: `stuck`.
//!
//! Rule, given a [`LivenessSpec`]: every operation must complete by
//! `max(invoke, quiet_from) + op_budget`. An operation that completed later is stuck; a
//! pending one is stuck only if that deadline is before `run_end_us` (otherwise the run
//! simply ended first). Outcomes are not judged here: an Unknown that completed in time
//! is progress. Convergence of final reads is judged by the presence rules (a final read
//! missing acked data is `lost`).

use super::index::{Index, Timing};
use super::time::at;
use super::{LivenessSpec, Subject, Verdict, Violation, ViolationClass};

pub(crate) fn check(idx: &Index<'_>, spec: LivenessSpec, verdict: &mut Verdict) {
    for timing in &idx.timings {
        if let Some(text) = judge(timing, spec) {
            verdict.violations.push(Violation::new(
                ViolationClass::Stuck,
                Subject::Store,
                vec![timing.op],
                Vec::new(),
                text,
            ));
        }
    }
}

fn judge(timing: &Timing, spec: LivenessSpec) -> Option<String> {
    let deadline_us = timing
        .invoke_us
        .max(spec.quiet_from_us)
        .saturating_add(spec.op_budget_us);
    match timing.complete_us {
        Some(done_us) if done_us > deadline_us => Some(format!(
            "op {} invoked at {} completed at {}, after its quiet-period deadline {}",
            timing.op,
            at(timing.invoke_us),
            at(done_us),
            at(deadline_us)
        )),
        None if deadline_us < spec.run_end_us => Some(format!(
            "op {} invoked at {} never completed; its quiet-period deadline was {}, the run ended at {}",
            timing.op,
            at(timing.invoke_us),
            at(deadline_us),
            at(spec.run_end_us)
        )),
        _ => None,
    }
}
