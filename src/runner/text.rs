//! Human-readable renderings of a run for the terminal.

use crate::check::{Info, Subject, Verdict, Violation, ViolationClass};
use crate::history::History;
use crate::runner::run::RunReport;
use crate::runner::sweep::SeedResult;
use crate::trace::{TimelineKind, Trace, TraceEvent};
use std::fmt::Write as _;

/// The kebab-case name of a class (`premature-expiry`).
pub fn class_name(class: ViolationClass) -> String {
    serde_json::to_value(class)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn subject_text(subject: &Subject) -> String {
    match subject {
        Subject::Session(session) => format!("session {session}"),
        Subject::User(user) => format!("user {user}"),
        Subject::Store => "store".into(),
    }
}

/// A run's timeline as `amnesia run` prints it: the summary, or with `full` every event
/// (bytes on the wire included); the keys the run saw expire are marks in it.
pub fn run_timeline(trace: &Trace, history: &History, full: bool) -> String {
    let kind = match full {
        true => TimelineKind::Full,
        false => TimelineKind::Summary,
    };
    timeline_of(trace, history, kind)
}

/// The timeline of `kind` with a mark per key expiry and eviction of `history`
/// (`[  12.345000s] redis     expired chat:v1:t0:s1:messages`, `... evicted chat:...
/// (allkeys-lru, used_memory 1050000 > maxmemory 1000000)`): rendered from the history,
/// never recorded in the trace, so the trace hash does not change.
pub(crate) fn timeline_of(trace: &Trace, history: &History, kind: TimelineKind) -> String {
    let mark = |at_us: u64, text: String| TraceEvent {
        at_us,
        host: "redis".into(),
        text,
        detail: false,
        log: false,
    };
    let expiries = history
        .expiries
        .iter()
        .map(|expiry| mark(expiry.at_us, format!("expired {}", expiry.key)));
    let evictions = history.evictions.iter().map(|eviction| {
        let text = format!(
            "evicted {} ({}, used_memory {} > maxmemory {})",
            eviction.key, eviction.policy, eviction.used_memory_bytes, eviction.maxmemory_bytes
        );
        mark(eviction.at_us, text)
    });
    let mut marks: Vec<TraceEvent> = expiries.chain(evictions).collect();
    // Stable: marks of one time keep expiries before evictions.
    marks.sort_by_key(|mark| mark.at_us);
    trace.timeline_with(kind, &marks)
}

/// One failing seed: status and trace hash, its first `violations_max` violations (or
/// its panic), and the line that replays it.
pub fn seed_result_text(result: &SeedResult, violations_max: usize) -> String {
    let mut out = format!("seed {} {}", result.seed, result.status.name());
    if let Some(hash) = &result.trace_hash {
        let _ = write!(out, ", trace {hash}");
    }
    let count = result.violations.len();
    if count > 0 {
        let _ = write!(
            out,
            ", {count} violation{}",
            if count == 1 { "" } else { "s" }
        );
    }
    out.push(':');
    for violation in result.violations.iter().take(violations_max) {
        out.push('\n');
        out.push_str(&violation_text(violation));
    }
    if count > violations_max {
        let _ = write!(out, "\n  … and {} more violations", count - violations_max);
    }
    if let Some(panic) = &result.panic {
        let _ = write!(out, "\n  panicked: {panic}");
    }
    let _ = write!(out, "\n  replay: {}", result.replay);
    out
}

/// One violation with its evidence, indented for a verdict listing.
pub fn violation_text(violation: &Violation) -> String {
    let ops: Vec<String> = violation
        .op_indexes
        .iter()
        .map(|i| format!("#{i}"))
        .collect();
    format!(
        "  {} on {}: {}\n    messages: {}\n    proven by ops: {}",
        class_name(violation.class),
        subject_text(&violation.subject),
        violation.explanation,
        violation.message_ids.join(" "),
        ops.join(" "),
    )
}

/// The verdict: PASS, or each violation with its evidence; information lines after.
pub fn verdict_text(verdict: &Verdict) -> String {
    let mut lines = Vec::new();
    if verdict.is_pass() {
        lines.push("verdict: PASS".to_string());
    } else {
        let classes: Vec<String> = verdict.classes().into_iter().map(class_name).collect();
        lines.push(format!(
            "verdict: FAIL ({} violations: {})",
            verdict.violations.len(),
            classes.join(", ")
        ));
        lines.extend(verdict.violations.iter().map(violation_text));
    }
    lines.extend(info_lines(verdict));
    lines.join("\n")
}

/// Information lines, one per subject and restart: many reads report the same expected
/// losses, so their message ids are merged.
fn info_lines(verdict: &Verdict) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut losses: BTreeMap<(String, u64), (usize, BTreeSet<&str>)> = BTreeMap::new();
    let mut evicted: BTreeMap<(String, u64, &str), (usize, BTreeSet<&str>)> = BTreeMap::new();
    let mut lines = Vec::new();
    for info in &verdict.info {
        match info {
            Info::ExpectedLoss {
                subject,
                message_ids,
                restart_at_us,
                ..
            } => {
                let entry = losses
                    .entry((subject_text(subject), *restart_at_us))
                    .or_default();
                entry.0 += 1;
                entry.1.extend(message_ids.iter().map(String::as_str));
            }
            Info::Evicted {
                subject,
                message_ids,
                key,
                evicted_at_us,
                ..
            } => {
                let entry = evicted
                    .entry((subject_text(subject), *evicted_at_us, key.as_str()))
                    .or_default();
                entry.0 += 1;
                entry.1.extend(message_ids.iter().map(String::as_str));
            }
            Info::FailedAppendVisible {
                session,
                message_id,
                ..
            } => {
                lines.push(format!(
                    "  info: {message_id} on {session} reported failed but is visible"
                ));
            }
        }
    }
    for ((subject, evicted_at_us, key), (reads, ids)) in evicted {
        let ids: Vec<&str> = ids.into_iter().collect();
        lines.push(format!(
            "  info: evicted on {subject} with key {key} at {}, tolerated ({reads} reads): {}",
            crate::check::time::at(evicted_at_us),
            ids.join(" ")
        ));
    }
    for ((subject, restart_at_us), (reads, ids)) in losses {
        let ids: Vec<&str> = ids.into_iter().collect();
        lines.push(format!(
            "  info: expected loss on {subject} across the restart at {} ({reads} reads): {}",
            crate::check::time::at(restart_at_us),
            ids.join(" ")
        ));
    }
    lines
}

/// `premature-expiry`: the kebab-case name the verdicts, reports and `--json` use.
///
/// ```
/// assert_eq!(amnesia::ViolationClass::Lost.to_string(), "lost");
/// ```
impl std::fmt::Display for ViolationClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&class_name(*self))
    }
}

/// The violation with its evidence, as `amnesia run` lists it (indented two spaces).
impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&violation_text(self))
    }
}

/// `verdict: PASS`, or `verdict: FAIL (…)` with each violation and its evidence, then the
/// information lines, as `amnesia run` prints it.
///
/// ```
/// let report = amnesia::Builder::new().run(1);
/// assert!(report.verdict.to_string().starts_with("verdict: PASS"));
/// ```
impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&verdict_text(self))
    }
}

/// The run's timeline (the summary form: `{:#}` gives every event, bytes on the wire
/// included) and its verdict, as `amnesia run` prints them.
///
/// ```
/// let report = amnesia::Builder::new().run(1);
/// let text = report.to_string();
/// assert!(text.starts_with("--- timeline ---") && text.contains("verdict: PASS"));
/// ```
impl std::fmt::Display for RunReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = timeline_and_verdict(&self.trace, &self.history, &self.verdict, f.alternate());
        f.write_str(&text)
    }
}

/// The timeline (every event with `full`, bytes on the wire included) and the verdict, as
/// `run`, `replay`, `real` and a report's `Display` print them.
pub fn timeline_and_verdict(
    trace: &Trace,
    history: &History,
    verdict: &Verdict,
    full: bool,
) -> String {
    let timeline = run_timeline(trace, history, full);
    let verdict = verdict_text(verdict);
    format!("--- timeline ---\n{timeline}--- verdict ---\n{verdict}")
}
