//! Turns out of order: `reorder`.
//!
//! Only ids appended exactly once (to the read's session) and occurring exactly once in a
//! read take part; duplicates are the integrity rules' business.
//! - Within one read: entry y after entry x although y's append was acked before x's
//!   append was invoked. An unknown append has no upper bound on its application time,
//!   so it never proves an order; overlapping appends prove nothing either.
//! - Across reads of one session: one read shows x before y, another y before x. This
//!   relies on each append being applied at most once (DESIGN: unknown = at most once),
//!   so a stored history's relative order can never flip.

use std::collections::{BTreeMap, BTreeSet};

use super::index::{Append, Index, Read};
use super::{Subject, Verdict, Violation, ViolationClass};
use crate::store::SessionKey;

pub(crate) fn check(idx: &Index<'_>, verdict: &mut Verdict) {
    for read in &idx.reads {
        check_within(idx, read, verdict);
    }
    for session in idx.by_session.keys() {
        check_across(idx, session, verdict);
    }
}

/// The read's entries that order rules may judge, in read order.
fn judged_entries<'i, 'a>(idx: &'i Index<'a>, read: &Read<'_>) -> Vec<&'i Append<'a>> {
    read.messages
        .iter()
        .filter(|e| read.count(&e.id) == 1)
        .filter_map(|e| idx.unique_append(read.session, &e.id))
        .collect()
}

fn check_within(idx: &Index<'_>, read: &Read<'_>, verdict: &mut Verdict) {
    let entries = judged_entries(idx, read);
    let mut ops = vec![read.op];
    let mut ids = Vec::new();
    let mut pairs = Vec::new();
    for (i, x) in entries.iter().enumerate() {
        for y in &entries[i + 1..] {
            if y.write.certainly_before(&x.write) {
                ops.extend([x.write.op, y.write.op]);
                ids.extend([x.msg.id.clone(), y.msg.id.clone()]);
                pairs.push(format!("{} before {}", x.msg.id, y.msg.id));
            }
        }
    }
    if pairs.is_empty() {
        return;
    }
    let text = format!(
        "read at {}..{} us shows {}, though the latter was acked before the former was invoked",
        read.invoke_us,
        read.complete_us,
        pairs.join(", ")
    );
    let subject = Subject::Session(read.session.clone());
    verdict.violations.push(Violation::new(
        ViolationClass::Reorder,
        subject,
        ops,
        ids,
        text,
    ));
}

fn check_across(idx: &Index<'_>, session: &SessionKey, verdict: &mut Verdict) {
    // (x, y) → the first read (op index) that showed x before y.
    let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for read in idx.reads.iter().filter(|r| r.session == session) {
        let entries = judged_entries(idx, read);
        for (i, x) in entries.iter().enumerate() {
            for y in &entries[i + 1..] {
                seen.entry((&x.msg.id, &y.msg.id)).or_insert(read.op);
            }
        }
    }
    // (read showing x<y, read showing y<x) → ids involved.
    let mut conflicts: BTreeMap<(usize, usize), BTreeSet<&str>> = BTreeMap::new();
    for (&(x, y), &read_xy) in &seen {
        if let Some(&read_yx) = seen.get(&(y, x)) {
            if x < y {
                conflicts
                    .entry((read_xy, read_yx))
                    .or_default()
                    .extend([x, y]);
            }
        }
    }
    for ((read_a, read_b), ids) in conflicts {
        let ids: Vec<String> = ids.into_iter().map(str::to_string).collect();
        let mut ops = vec![read_a, read_b];
        ops.extend(
            ids.iter()
                .flat_map(|id| idx.id_appends(id))
                .map(|a| a.write.op),
        );
        let text = format!(
            "reads {read_a} and {read_b} disagree on the relative order of {}",
            ids.join(", ")
        );
        let subject = Subject::Session(session.clone());
        verdict.violations.push(Violation::new(
            ViolationClass::Reorder,
            subject,
            ops,
            ids,
            text,
        ));
    }
}
