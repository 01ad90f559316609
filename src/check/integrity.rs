//! Is what a read returned what was written, once, to this session: `duplicate`,
//! `corrupt`, `leak`. These hold across restarts and whatever the timing.
//!
//! Rules, per successful read R of session s:
//! - `leak`: an entry (or a folded id of R's summary) whose id was appended, but never
//!   to s. A folded id never appended anywhere is `corrupt`.
//! - `corrupt`: an entry whose id was never appended anywhere (invented data), or whose
//!   role, content or seq match none of the appends of that id to s.
//! - `duplicate`: an id occurring in R (its window and its summary's folded ids
//!   together) more than once, however often it was sent: appends are idempotent by id
//!   (a retry stores nothing new). A store that declares they are not
//!   (`Policy::appends_idempotent`) may show an id once per send of it to s invoked
//!   before R completed and not certainly failed: more copies than that are `duplicate`. Only same-read duplicates are judged: a copy seen across two reads cannot be
//!   told apart from the same stored copy seen twice, so cross-read duplicates are left
//!   to the order rules (a second copy usually shows up as a contradicting order).

use super::index::{Index, Read, WriteStatus};
use super::{Subject, Verdict, Violation, ViolationClass};
use crate::domain::Message;

pub(crate) fn check(idx: &Index<'_>, verdict: &mut Verdict) {
    for read in &idx.reads {
        check_read(idx, read, verdict);
    }
}

#[derive(Default)]
struct Findings {
    leak: Evidence,
    corrupt: Evidence,
    duplicate: Evidence,
}

#[derive(Default)]
struct Evidence {
    ops: Vec<usize>,
    ids: Vec<String>,
}

impl Evidence {
    fn add(&mut self, id: &str, ops: impl IntoIterator<Item = usize>) {
        self.ids.push(id.to_string());
        self.ops.extend(ops);
    }
}

fn check_read(idx: &Index<'_>, read: &Read<'_>, verdict: &mut Verdict) {
    let mut findings = Findings::default();
    let folded = read.summary.map_or(&[][..], |s| s.folded_ids.as_slice());
    for (id, &n) in folded.iter().zip(&read.folded_nos) {
        judge_entry(idx, read, id, n, None, &mut findings);
    }
    for (entry, &n) in read.messages.iter().zip(&read.id_nos) {
        judge_entry(idx, read, &entry.id, n, Some(entry), &mut findings);
    }
    // Everything shown grouped by id (the summary's folded ids too): by number where the
    // id was appended, by text where not.
    let mut keys: Vec<(Option<usize>, &str)> = read
        .shown()
        .map(|(id, n)| (n, if n.is_some() { "" } else { id }))
        .collect();
    keys.sort_unstable();
    for group in keys.chunk_by(|a, b| a == b) {
        let (n, _) = group[0];
        let own = || {
            idx.id_appends(n)
                .filter(|a| a.session_no == read.session_no)
                .map(|a| a.write.op)
        };
        // The sends are counted only for an id shown more than once.
        if group.len() > 1 && group.len() > copies_allowed(idx, read, n) {
            let id = match n {
                Some(n) => idx.appends[idx.by_id[n][0]].msg.id.as_str(),
                None => group[0].1,
            };
            findings.duplicate.add(id, own());
        }
    }
    report(read, findings, verdict);
}

/// How often the read may show the id numbered `n`: once, however often it was sent, for
/// a store whose appends are idempotent by id; otherwise once per send to the read's
/// session, invoked before the read completed, that may have been applied (every outcome
/// but a certain failure), and at least once.
fn copies_allowed(idx: &Index<'_>, read: &Read<'_>, n: Option<usize>) -> usize {
    if idx.policy.appends_idempotent {
        return 1;
    }
    let sends = idx
        .id_appends(n)
        .filter(|a| a.session_no == read.session_no)
        .filter(|a| a.write.invoke_us < read.complete_us)
        .filter(|a| a.write.status != WriteStatus::Failed)
        .count();
    sends.max(1)
}

/// One violation per class with findings, each naming the read and its ids: apart from
/// `check_read` so the judging and the wording read separately.
fn report(read: &Read<'_>, findings: Findings, verdict: &mut Verdict) {
    let classes = [
        (
            ViolationClass::Leak,
            findings.leak,
            "returned messages appended to another session",
        ),
        (
            ViolationClass::Corrupt,
            findings.corrupt,
            "returned messages that differ from every append of their id, or were never appended",
        ),
        (
            ViolationClass::Duplicate,
            findings.duplicate,
            "returned a message more than once",
        ),
    ];
    for (class, mut evidence, what) in classes {
        if evidence.ids.is_empty() {
            continue;
        }
        evidence.ops.push(read.op);
        evidence.ids.sort();
        evidence.ids.dedup();
        // Built only for a finding: most reads have none.
        let text = format!(
            "read at {} {what}: {}",
            super::time::span(read.invoke_us, read.complete_us),
            evidence.ids.join(", ")
        );
        verdict.violations.push(Violation::new(
            class,
            Subject::Session(read.session.clone()),
            evidence.ops,
            evidence.ids,
            text,
        ));
    }
}

/// One id the read shows: `entry` is the window's message, `None` for a folded id of
/// the summary (whose content the summary no longer holds).
fn judge_entry(
    idx: &Index<'_>,
    read: &Read<'_>,
    id: &str,
    n: Option<usize>,
    entry: Option<&Message>,
    findings: &mut Findings,
) {
    if n.is_none() {
        findings.corrupt.add(id, []);
        return;
    }
    let mut own = idx
        .id_appends(n)
        .filter(|a| a.session_no == read.session_no)
        .peekable();
    if own.peek().is_none() {
        findings.leak.add(id, idx.id_appends(n).map(|a| a.write.op));
        return;
    }
    let Some(entry) = entry else {
        return;
    };
    if !own.any(|a| a.msg == entry) {
        findings.corrupt.add(
            id,
            idx.id_appends(n)
                .filter(|a| a.session_no == read.session_no)
                .map(|a| a.write.op),
        );
    }
}
