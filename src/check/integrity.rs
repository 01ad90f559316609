//! Is what a read returned what was written, once, to this session: `duplicate`,
//! `corrupt`, `leak`. These hold across epochs and whatever the timing.
//!
//! Rules, per successful read R of session s:
//! - `leak`: an entry whose id was appended, but never to s.
//! - `corrupt`: an entry whose id was never appended anywhere (invented data), or whose
//!   role, content or seq match none of the appends of that id to s.
//! - `duplicate`: an id occurring in R more often than it was appended to s (at least
//!   once). Only same-read duplicates are judged: a copy seen across two reads cannot be
//!   told apart from the same stored copy seen twice, so cross-read duplicates are left
//!   to the order rules (a second copy usually shows up as a contradicting order).

use std::collections::BTreeMap;

use super::index::{Index, Read};
use super::{Subject, Verdict, Violation, ViolationClass};
use crate::store::Message;

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
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in read.messages {
        *counts.entry(entry.id.as_str()).or_default() += 1;
        judge_entry(idx, read, entry, &mut findings);
    }
    for (id, count) in counts {
        let own: Vec<usize> = own_appends(idx, read, id).map(|(op, _)| op).collect();
        if count > own.len().max(1) {
            findings.duplicate.add(id, own);
        }
    }
    let s = Subject::Session(read.session.clone());
    let when = format!("read at {}..{} us", read.invoke_us, read.complete_us);
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
            "returned a message more often than it was appended",
        ),
    ];
    for (class, mut evidence, what) in classes {
        if evidence.ids.is_empty() {
            continue;
        }
        evidence.ops.push(read.op);
        evidence.ids.sort();
        evidence.ids.dedup();
        let text = format!("{when} {what}: {}", evidence.ids.join(", "));
        verdict.violations.push(Violation::new(
            class,
            s.clone(),
            evidence.ops,
            evidence.ids,
            text,
        ));
    }
}

/// Appends of `id` to the read's session: (op index, message).
fn own_appends<'i, 'a>(
    idx: &'i Index<'a>,
    read: &'i Read<'_>,
    id: &'i str,
) -> impl Iterator<Item = (usize, &'a Message)> + 'i {
    idx.id_appends(id)
        .into_iter()
        .filter(move |a| a.session == read.session)
        .map(|a| (a.write.op, a.msg))
}

fn judge_entry(idx: &Index<'_>, read: &Read<'_>, entry: &Message, findings: &mut Findings) {
    let anywhere = idx.id_appends(&entry.id);
    if anywhere.is_empty() {
        findings.corrupt.add(&entry.id, []);
        return;
    }
    let own: Vec<_> = own_appends(idx, read, &entry.id).collect();
    if own.is_empty() {
        findings
            .leak
            .add(&entry.id, anywhere.iter().map(|a| a.write.op));
        return;
    }
    if !own.iter().any(|(_, msg)| *msg == entry) {
        findings
            .corrupt
            .add(&entry.id, own.iter().map(|(op, _)| *op));
    }
}
