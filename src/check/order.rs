//! Turns out of order: `reorder`.
//!
//! Only ids appended exactly once (to the read's session) and occurring exactly once in a
//! read take part; duplicates are the integrity rules' business. A summarizing store's
//! read claims its summary's folded ids, in fold order, before its window: a fold that
//! breaks the order is judged like any other.
//! - Within one read: entry y after entry x although y's append was acked before x's
//!   append was invoked. An unknown append has no upper bound on its application time,
//!   so it never proves an order; overlapping appends prove nothing either.
//! - Across reads of one session: one read shows x before y, another y before x. This
//!   relies on each append being applied at most once (ARCHITECTURE.md: unknown = at most once),
//!   so a stored history's relative order can never flip.

use std::collections::{BTreeMap, BTreeSet};

use super::index::{Index, Read};
use super::{Subject, Verdict, Violation, ViolationClass};

pub(crate) fn check(idx: &Index<'_>, verdict: &mut Verdict) {
    // Per session, its reads with their judged entries (positions in `idx.appends`),
    // found once for both rules.
    let mut by_session: Vec<Vec<(&Read<'_>, Vec<usize>)>> = vec![Vec::new(); idx.by_session.len()];
    for read in &idx.reads {
        let entries = judged_entries(idx, read);
        check_within(idx, read, &entries, verdict);
        by_session[read.session_no].push((read, entries));
    }
    for reads in &by_session {
        check_across(idx, reads, verdict);
    }
}

/// The read's entries that order rules may judge, in read order: positions in
/// `idx.appends` of entries whose id occurs once in the read and was appended once, to
/// the read's session.
fn judged_entries(idx: &Index<'_>, read: &Read<'_>) -> Vec<usize> {
    let shown: Vec<Option<usize>> = read.shown().map(|(_, n)| n).collect();
    shown
        .iter()
        .filter_map(|&n| {
            let a = idx.sole_append(read.session_no, n)?;
            // An id never appended has no number, and is not judged either way.
            let count = shown.iter().filter(|&&m| m == n).count();
            (count == 1).then_some(idx.by_id[a.id_no][0])
        })
        .collect()
}

fn check_within(idx: &Index<'_>, read: &Read<'_>, entries: &[usize], verdict: &mut Verdict) {
    let mut ops = vec![read.op];
    let mut ids = Vec::new();
    let mut pairs = Vec::new();
    for (i, &x) in entries.iter().enumerate() {
        let x = &idx.appends[x];
        for &y in &entries[i + 1..] {
            let y = &idx.appends[y];
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
        "read at {} shows {}, though the latter was acked before the former was invoked",
        super::time::span(read.invoke_us, read.complete_us),
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

fn check_across(idx: &Index<'_>, reads: &[(&Read<'_>, Vec<usize>)], verdict: &mut Verdict) {
    let Some((first, _)) = reads.first() else {
        return;
    };
    let session = first.session;
    // Entries are positions in `idx.appends` (one per id: judged ids are appended once).
    // Two reads disagree on a pair only if one of them shows it against append order,
    // which a correct store never does: collect those pairs first, and look for the
    // other order only when there are some. (x, y, read op): a read showed x before y
    // although y's append came first; after sorting and deduplication, the first read
    // (lowest op) that did.
    let inverted = inverted_pairs(reads);
    if inverted.is_empty() {
        return;
    }
    // The pairs in append order to look for, each with the first read that showed it.
    let wanted = first_in_order(reads, &inverted);
    // (read showing a<b, read showing b<a) with a<b by id → ids involved.
    let mut conflicts: BTreeMap<(usize, usize), BTreeSet<&str>> = BTreeMap::new();
    for &(x, y, read_xy) in &inverted {
        let at = wanted
            .binary_search_by(|&(a, b, _)| (a, b).cmp(&(y, x)))
            .expect("every inverted pair is wanted");
        let Some(read_yx) = wanted[at].2 else {
            continue;
        };
        let (x, y) = (
            idx.appends[x].msg.id.as_str(),
            idx.appends[y].msg.id.as_str(),
        );
        let key = if x < y {
            (read_xy, read_yx)
        } else {
            (read_yx, read_xy)
        };
        conflicts.entry(key).or_default().extend([x, y]);
    }
    for ((read_a, read_b), ids) in conflicts {
        let ids: Vec<String> = ids.into_iter().map(str::to_string).collect();
        let mut ops = vec![read_a, read_b];
        ops.extend(
            ids.iter()
                .flat_map(|id| idx.id_appends(idx.id_no(id)))
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

/// The pairs some read shows against append order, as (x, y, read op): x shown before y
/// although y's append came first; sorted, and deduplicated to the first read (lowest
/// op) that showed each. A correct store yields none, so `check_across` stops there.
fn inverted_pairs(reads: &[(&Read<'_>, Vec<usize>)]) -> Vec<(usize, usize, usize)> {
    let mut inverted: Vec<(usize, usize, usize)> = Vec::new();
    for (read, entries) in reads {
        for (i, &x) in entries.iter().enumerate() {
            for &y in &entries[i + 1..] {
                if x > y {
                    inverted.push((x, y, read.op));
                }
            }
        }
    }
    inverted.sort_unstable();
    inverted.dedup_by_key(|&mut (x, y, _)| (x, y));
    inverted
}

/// For each inverted pair, the same pair in append order (y, x), sorted, with the first
/// read that showed it in that order, if any: the other side of a disagreement.
fn first_in_order(
    reads: &[(&Read<'_>, Vec<usize>)],
    inverted: &[(usize, usize, usize)],
) -> Vec<(usize, usize, Option<usize>)> {
    let mut wanted: Vec<(usize, usize, Option<usize>)> =
        inverted.iter().map(|&(x, y, _)| (y, x, None)).collect();
    wanted.sort_unstable();
    let mut wanted_firsts: Vec<usize> = wanted.iter().map(|&(y, _, _)| y).collect();
    wanted_firsts.dedup();
    for (read, entries) in reads {
        for (i, &y) in entries.iter().enumerate() {
            if wanted_firsts.binary_search(&y).is_err() {
                continue;
            }
            for &x in &entries[i + 1..] {
                if let Ok(at) = wanted.binary_search_by(|&(a, b, _)| (a, b).cmp(&(y, x))) {
                    wanted[at].2.get_or_insert(read.op);
                }
            }
        }
    }
    wanted
}
