//! Long-term memories: `recall-miss`, `index-drift`, and the integrity rules (`leak`,
//! `corrupt`, `duplicate`) applied to recall results.
//!
//! Rules, per successful recall Q = `recall(u, query, k)` invoked at t0, completed at t1:
//! - `recall-miss`: a memory of u whose sole `remember` was acked before t0, whose text
//!   equals `query` exactly, is absent from Q. Judged only when `k` is at least the number
//!   of distinct memories of u with that text (remembered by t1, whatever the outcome),
//!   and when Q cannot have been filled by other texts that tie with an exact match (Q
//!   has fewer than `k` entries, or all its entries have the query's text): an embedder
//!   may score a different text as high as the exact one. A `remember` that a Redis
//!   restart within `[invoke, t1]` may have lost (see `presence`) yields `expected-loss`
//!   info instead.
//!   Memories never expire (the policy's TTL is about sessions).
//! - `leak`: an entry whose id was remembered, but never for u. `corrupt`: an entry whose
//!   id was never remembered, or whose text matches no `remember` of that id for u.
//!   `duplicate`: an id more often in Q than it was remembered for u (at least once).
//! - `index-drift`: given a [`Quiescence`], the stored and indexed id sets differ.

use std::collections::{BTreeMap, BTreeSet};

use super::index::{Index, Recall, Remember};
use super::{Info, Quiescence, Subject, Verdict, Violation, ViolationClass};

pub(crate) fn check(idx: &Index<'_>, quiescence: Option<&Quiescence>, verdict: &mut Verdict) {
    for recall in &idx.recalls {
        check_misses(idx, recall, verdict);
        check_integrity(idx, recall, verdict);
    }
    if let Some(q) = quiescence {
        check_drift(q, verdict);
    }
}

/// The remembers of memory `id`, in op order (an index lookup: recalls ask for every
/// entry, and a scan of all remembers each time made the checker quadratic).
fn remembers_of<'i, 'a>(idx: &'i Index<'a>, id: &str) -> impl Iterator<Item = &'i Remember<'a>> {
    idx.remembers_by_id
        .get(id)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .map(|&p| &idx.remembers[p])
}

/// True when a missing exact-text memory proves a miss rather than a tie or a cap.
fn judgeable(idx: &Index<'_>, recall: &Recall<'_>) -> bool {
    let mut identical: BTreeSet<&str> = BTreeSet::new();
    for r in idx
        .exact_remembers(recall.user, recall.query)
        .filter(|r| r.write.invoke_us <= recall.complete_us)
    {
        identical.insert(r.memory.id.as_str());
        // More identical memories than `k` is never judgeable, however many follow: a
        // user who remembers one fact again and again costs `k` steps, not all of them.
        if identical.len() > recall.k {
            return false;
        }
    }
    let not_full = recall.memories.len() < recall.k;
    let only_exact = recall.memories.iter().all(|m| m.text == recall.query);
    recall.k >= 1 && recall.k >= identical.len() && (not_full || only_exact)
}

fn check_misses(idx: &Index<'_>, recall: &Recall<'_>, verdict: &mut Verdict) {
    if !judgeable(idx, recall) {
        return;
    }
    let subject = || Subject::User(recall.user.clone());
    let mut missed: Vec<&Remember<'_>> = Vec::new();
    // Only the user's remembers with the exact text: a scan of all remembers, or of all
    // the user's, per recall made the checker quadratic.
    for r in idx.exact_remembers(recall.user, recall.query) {
        // Cheapest tests first; the same rule as `acked_before && exact && unique && !returned`.
        let acked_before = r.write.acked_by_us().is_some_and(|c| c < recall.invoke_us);
        if !acked_before {
            continue;
        }
        let unique = remembers_of(idx, &r.memory.id).count() == 1;
        let returned = recall.memories.iter().any(|m| m.id == r.memory.id);
        if !unique || returned {
            continue;
        }
        if let Some(restart_at_us) = idx.restart_losing(&r.write, recall.complete_us) {
            verdict.info.push(Info::ExpectedLoss {
                subject: subject(),
                op_indexes: vec![r.write.op.min(recall.op), r.write.op.max(recall.op)],
                message_ids: vec![r.memory.id.clone()],
                restart_at_us,
            });
            continue;
        }
        missed.push(r);
    }
    if missed.is_empty() {
        return;
    }
    let mut ops = vec![recall.op];
    ops.extend(missed.iter().map(|r| r.write.op));
    let ids: Vec<String> = missed.iter().map(|r| r.memory.id.clone()).collect();
    let text = format!(
        "recall at {}..{} us (k {}) for its exact text did not return {}",
        recall.invoke_us,
        recall.complete_us,
        recall.k,
        ids.join(", ")
    );
    verdict.violations.push(Violation::new(
        ViolationClass::RecallMiss,
        subject(),
        ops,
        ids,
        text,
    ));
}

fn check_integrity(idx: &Index<'_>, recall: &Recall<'_>, verdict: &mut Verdict) {
    let mut found: BTreeMap<ViolationClass, (Vec<usize>, Vec<String>)> = BTreeMap::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in recall.memories {
        *counts.entry(entry.id.as_str()).or_default() += 1;
        // Iterated again rather than collected: most entries are fine.
        let anywhere = || remembers_of(idx, &entry.id);
        let mut own = anywhere().filter(|r| r.user == recall.user).peekable();
        let class = if anywhere().next().is_none() {
            ViolationClass::Corrupt
        } else if own.peek().is_none() {
            ViolationClass::Leak
        } else if !own.any(|r| r.memory == entry) {
            ViolationClass::Corrupt
        } else {
            continue;
        };
        let slot = found.entry(class).or_default();
        slot.0.extend(anywhere().map(|r| r.write.op));
        slot.1.push(entry.id.clone());
    }
    for (id, count) in counts {
        let own: Vec<usize> = remembers_of(idx, id)
            .filter(|r| r.user == recall.user)
            .map(|r| r.write.op)
            .collect();
        if count > own.len().max(1) {
            let slot = found.entry(ViolationClass::Duplicate).or_default();
            slot.0.extend(own);
            slot.1.push(id.to_string());
        }
    }
    for (class, (mut ops, ids)) in found {
        ops.push(recall.op);
        let text = format!(
            "recall at {}..{} us returned memories that break isolation or integrity ({class:?}): {}",
            recall.invoke_us,
            recall.complete_us,
            ids.join(", ")
        );
        let subject = Subject::User(recall.user.clone());
        verdict
            .violations
            .push(Violation::new(class, subject, ops, ids, text));
    }
}

fn check_drift(q: &Quiescence, verdict: &mut Verdict) {
    let stored: BTreeSet<&str> = q.memories_stored.iter().map(String::as_str).collect();
    let indexed: BTreeSet<&str> = q.memories_indexed.iter().map(String::as_str).collect();
    let unindexed: Vec<&str> = stored.difference(&indexed).copied().collect();
    let dangling: Vec<&str> = indexed.difference(&stored).copied().collect();
    if unindexed.is_empty() && dangling.is_empty() {
        return;
    }
    let ids = unindexed
        .iter()
        .chain(&dangling)
        .map(|s| s.to_string())
        .collect();
    let text = format!(
        "at quiescence, stored but not indexed: [{}]; indexed but not stored: [{}]",
        unindexed.join(", "),
        dangling.join(", ")
    );
    verdict.violations.push(Violation::new(
        ViolationClass::IndexDrift,
        Subject::Store,
        Vec::new(),
        ids,
        text,
    ));
}
