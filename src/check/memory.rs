//! Long-term memories: `recall-miss`, `index-drift`, and the integrity rules (`leak`,
//! `corrupt`, `duplicate`) applied to recall results.
//!
//! Rules, per successful recall Q = `recall(u, query, k)` invoked at t0, completed at t1:
//! - `recall-miss` by count: Q has fewer than `k` entries although u certainly held more
//!   memories (acked before t0, no forget invoked by t1, no restart since that may have
//!   lost them); the ones not returned are named.
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
//!   `duplicate`: an id more than once in Q.
//! - Updates and forgets: an `update_memory` is a write of the memory's new form, judged
//!   like a `remember`; a missing memory is judged only in its certainly current form (every
//!   other write of it certainly applied before, no forget invoked by t1). `zombie`: Q
//!   returns a form that an acked update replaced before t0 (invoked after every write of
//!   that form was applied), or a memory an acked forget removed before t0, unless a
//!   restart since may have lost the update or forget.
//! - `lost`: given a [`Quiescence`], a memory with an acked write, never forgotten and
//!   kept by every restart, is not stored.
//! - `index-drift`: given a [`Quiescence`], the stored and indexed id sets differ, a
//!   memory a forget certainly removed is still stored or indexed, or the index holds for a
//!   stored memory no vector or one that is not the embedding of its stored text
//!   (`IndexedEmbedding::is_stale`, for stores that keep vectors).

use super::time::span;
use std::collections::{BTreeMap, BTreeSet};

use super::eviction::{take_explained, Loss};
use super::index::{Forget, Index, Recall, Remember};
use super::{Info, Quiescence, Subject, Verdict, Violation, ViolationClass};
use crate::domain::UserKey;

pub(crate) fn check(idx: &Index<'_>, input: &super::CheckInput<'_>, verdict: &mut Verdict) {
    let quiescence = input.quiescence;
    for recall in &idx.recalls {
        check_misses(idx, recall, input.rank_by_embedder, verdict);
        check_short(idx, recall, verdict);
        check_integrity(idx, recall, verdict);
        check_superseded(idx, recall, verdict);
    }
    if let Some(q) = quiescence {
        check_drift(idx, q, verdict);
        check_embeddings(idx, q, verdict);
        check_forgotten_held(idx, q, verdict);
        check_acked_stored(idx, q, verdict);
    }
}

/// The forgets of memory `id` for `user`, in op order.
fn forgets_of<'i, 'a>(
    idx: &'i Index<'a>,
    user: &'i UserKey,
    id: &'i str,
) -> impl Iterator<Item = &'i Forget<'a>> + 'i {
    idx.forgets
        .iter()
        .filter(move |f| f.id == id && f.user == user)
}

/// The forget that certainly removed memory `id` of `user` before `before_us`: acked by
/// then, invoked after every write of the memory may have been applied, and kept by every
/// restart up to `until_us`.
fn certain_forget<'i, 'a>(
    idx: &'i Index<'a>,
    user: &'i UserKey,
    id: &'i str,
    before_us: u64,
    until_us: u64,
) -> Option<&'i Forget<'a>> {
    let last_us = remembers_of(idx, id)
        .filter(|r| r.user == user)
        .map(|r| r.write.latest_apply_us())
        .max()?;
    forgets_of(idx, user, id).find(|f| {
        f.write.invoke_us > last_us
            && f.write.acked_by_us().is_some_and(|c| c < before_us)
            && idx.restart_losing(&f.write, until_us).is_none()
    })
}

/// `zombie` for memories: a recall returned a memory in a form an acked update replaced
/// before the recall began (every write of that form was certainly applied before the
/// update), or a memory an acked forget removed, with no restart since that may have lost
/// the update or the forget.
fn check_superseded(idx: &Index<'_>, recall: &Recall<'_>, verdict: &mut Verdict) {
    let mut ops = vec![recall.op];
    let mut ids = Vec::new();
    let mut why = Vec::new();
    for entry in recall.memories {
        let own = || remembers_of(idx, &entry.id).filter(|r| r.user == recall.user);
        let Some(form_us) = own()
            .filter(|r| r.memory.text == entry.text)
            .map(|r| r.write.latest_apply_us())
            .max()
        else {
            continue;
        };
        let newer = own().find(|r| {
            r.memory.text != entry.text
                && r.write.invoke_us > form_us
                && r.write.acked_by_us().is_some_and(|c| c < recall.invoke_us)
                && idx.restart_losing(&r.write, recall.complete_us).is_none()
        });
        let forget = certain_forget(
            idx,
            recall.user,
            &entry.id,
            recall.invoke_us,
            recall.complete_us,
        );
        let (op, what) = match (newer, forget) {
            (_, Some(f)) => (f.write.op, "forgotten"),
            (Some(r), None) => (r.write.op, "updated"),
            (None, None) => continue,
        };
        ops.push(op);
        ops.extend(own().map(|r| r.write.op));
        ids.push(entry.id.clone());
        why.push(format!("{} ({what} by op {op})", entry.id));
    }
    if ids.is_empty() {
        return;
    }
    let text = format!(
        "recall at {} returned memories in a form that was gone before it began: {}",
        span(recall.invoke_us, recall.complete_us),
        why.join(", ")
    );
    let subject = Subject::User(recall.user.clone());
    verdict.violations.push(Violation::new(
        ViolationClass::Zombie,
        subject,
        ops,
        ids,
        text,
    ));
}

/// `index-drift` for forgets: at quiescence, a memory that an acked forget certainly
/// removed (and no restart brought back) is still stored or indexed.
fn check_forgotten_held(idx: &Index<'_>, q: &Quiescence, verdict: &mut Verdict) {
    let held = |id: &str| {
        q.memories_stored.iter().any(|s| s == id) || q.memories_indexed.iter().any(|s| s == id)
    };
    let mut ops = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for f in &idx.forgets {
        if !held(f.id) || ids.iter().any(|id| id == f.id) {
            continue;
        }
        if let Some(f) = certain_forget(idx, f.user, f.id, u64::MAX, u64::MAX) {
            ops.push(f.write.op);
            ids.push(f.id.to_string());
        }
    }
    if ids.is_empty() {
        return;
    }
    let text = format!(
        "at quiescence, forgotten memories are still stored or indexed: [{}]",
        ids.join(", ")
    );
    verdict.violations.push(Violation::new(
        ViolationClass::IndexDrift,
        Subject::Store,
        ops,
        ids,
        text,
    ));
}

/// `lost` for memories: at quiescence, a memory with an acked write, never forgotten (no
/// forget of it invoked at all) and kept by every restart since, is not stored. A recall
/// filled by other memories cannot show it (an embedder may rank them higher); the
/// audit's data side can.
fn check_acked_stored(idx: &Index<'_>, q: &Quiescence, verdict: &mut Verdict) {
    let stored: BTreeSet<&str> = q.memories_stored.iter().map(String::as_str).collect();
    let mut lost: BTreeMap<&UserKey, Vec<Loss>> = BTreeMap::new();
    for r in &idx.remembers {
        let id = r.memory.id.as_str();
        if stored.contains(id)
            || !r.write.is_acked()
            || idx.restart_losing(&r.write, u64::MAX).is_some()
            || forgets_of(idx, r.user, id).next().is_some()
        {
            continue;
        }
        let losses = lost.entry(r.user).or_default();
        match losses.iter_mut().find(|l| l.id == id) {
            Some(loss) => {
                loss.ops.push(r.write.op);
                loss.invoke_us = loss.invoke_us.max(r.write.invoke_us);
            }
            None => losses.push(Loss {
                ops: vec![r.write.op],
                id: id.to_string(),
                invoke_us: r.write.invoke_us,
            }),
        }
    }
    for (user, losses) in lost {
        let subject = Subject::User(user.clone());
        let words = |ids: &[String]| {
            format!(
                "at quiescence, acknowledged memories are not stored: [{}]",
                ids.join(", ")
            )
        };
        let losses = take_explained(idx, &subject, losses, u64::MAX, None, words, verdict);
        if losses.is_empty() {
            continue;
        }
        let ids: Vec<String> = losses.iter().map(|l| l.id.clone()).collect();
        let ops = losses.iter().flat_map(|l| l.ops.iter().copied()).collect();
        verdict.violations.push(Violation::new(
            ViolationClass::Lost,
            subject,
            ops,
            ids.clone(),
            words(&ids),
        ));
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

/// True when a missing exact-text memory proves a miss rather than a tie or a cap; with
/// `by_rank`, also when the answer holds a memory the exact match outranks (`rank`).
fn judgeable(idx: &Index<'_>, recall: &Recall<'_>, by_rank: bool) -> bool {
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
    recall.k >= 1
        && recall.k >= identical.len()
        && (not_full || only_exact || (by_rank && super::rank::outranked(idx, recall)))
}

/// True when `r`'s form of its memory is certainly the one a recall must find: every
/// other write of the memory was certainly applied before `r` was invoked, and no forget
/// of it was invoked by the recall's end unless it was certainly applied before `r`.
fn certainly_current(idx: &Index<'_>, r: &Remember<'_>, recall: &Recall<'_>) -> bool {
    let id = r.memory.id.as_str();
    remembers_of(idx, id).all(|o| o.write.op == r.write.op || o.write.certainly_before(&r.write))
        && forgets_of(idx, r.user, id)
            .all(|f| f.write.invoke_us > recall.complete_us || f.write.certainly_before(&r.write))
}

fn check_misses(idx: &Index<'_>, recall: &Recall<'_>, by_rank: bool, verdict: &mut Verdict) {
    // Without an exact-text memory the recall did not return, nothing to judge: the
    // common case, tested before the dearer `judgeable`.
    let unreturned = |r: &&Remember<'_>| !recall.memories.iter().any(|m| m.id == r.memory.id);
    let candidate = idx
        .exact_remembers(recall.user, recall.query)
        .any(|r| r.write.acked_by_us().is_some_and(|c| c < recall.invoke_us) && unreturned(&r));
    if !candidate || !judgeable(idx, recall, by_rank) {
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
        let returned = recall.memories.iter().any(|m| m.id == r.memory.id);
        if returned || !certainly_current(idx, r, recall) {
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
    let losses = missed.iter().map(|r| Loss {
        ops: vec![r.write.op],
        id: r.memory.id.clone(),
        invoke_us: r.write.invoke_us,
    });
    let words = |ids: &[String]| {
        format!(
            "recall at {} (k {}) for its exact text did not return {}",
            span(recall.invoke_us, recall.complete_us),
            recall.k,
            ids.join(", ")
        )
    };
    let subject_now = subject();
    let missed = take_explained(
        idx,
        &subject_now,
        losses.collect(),
        recall.complete_us,
        Some(recall.op),
        words,
        verdict,
    );
    if missed.is_empty() {
        return;
    }
    let mut ops = vec![recall.op];
    ops.extend(missed.iter().flat_map(|l| l.ops.iter().copied()));
    let ids: Vec<String> = missed.iter().map(|l| l.id.clone()).collect();
    let text = format!(
        "recall at {} (k {}) for its exact text did not return {}",
        span(recall.invoke_us, recall.complete_us),
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

/// `recall-miss` by count: a recall returned fewer than `k` memories although the user
/// certainly held more (each id acked before the recall began, no forget of it invoked by
/// its end, no restart since that may have lost it). A store that returns fewer rows than
/// asked (an ANN search that filters after its candidates, a list probed alone) misses
/// memories it had to return.
fn check_short(idx: &Index<'_>, recall: &Recall<'_>, verdict: &mut Verdict) {
    if recall.memories.len() >= recall.k {
        return;
    }
    let Some(by_text) = idx.remembers_by_text.get(recall.user) else {
        return;
    };
    let mut held: BTreeMap<&str, usize> = BTreeMap::new();
    for &position in by_text.values().flatten() {
        let r = &idx.remembers[position];
        let id = r.memory.id.as_str();
        let acked_before = r.write.acked_by_us().is_some_and(|c| c < recall.invoke_us);
        if held.contains_key(id)
            || !acked_before
            || idx.restart_losing(&r.write, recall.complete_us).is_some()
            || forgets_of(idx, recall.user, id).any(|f| f.write.invoke_us <= recall.complete_us)
        {
            continue;
        }
        held.insert(id, r.write.op);
    }
    if recall.memories.len() >= held.len().min(recall.k) {
        return;
    }
    // What the exact-text rule already reported for this recall is not told twice.
    let reported: BTreeSet<&str> = verdict
        .violations
        .iter()
        .filter(|v| v.class == ViolationClass::RecallMiss && v.op_indexes.contains(&recall.op))
        .flat_map(|v| v.message_ids.iter().map(String::as_str))
        .collect();
    let missing: Vec<(&str, usize)> = held
        .into_iter()
        .filter(|(id, _)| !recall.memories.iter().any(|m| m.id == *id))
        .filter(|(id, _)| !reported.contains(id))
        .collect();
    if missing.is_empty() {
        return;
    }
    let subject = Subject::User(recall.user.clone());
    let losses = missing.iter().map(|&(id, op)| Loss {
        ops: vec![op],
        id: id.to_string(),
        invoke_us: remembers_of(idx, id)
            .find(|r| r.write.op == op)
            .map_or(0, |r| r.write.invoke_us),
    });
    let words = |ids: &[String]| {
        format!(
            "recall at {} (k {}) returned {} memories although the user certainly held \
             more; not returned: {}",
            span(recall.invoke_us, recall.complete_us),
            recall.k,
            recall.memories.len(),
            ids.join(", ")
        )
    };
    let missing = take_explained(
        idx,
        &subject,
        losses.collect(),
        recall.complete_us,
        Some(recall.op),
        words,
        verdict,
    );
    if missing.is_empty() {
        return;
    }
    let mut ops = vec![recall.op];
    ops.extend(missing.iter().flat_map(|l| l.ops.iter().copied()));
    let ids: Vec<String> = missing.iter().map(|l| l.id.clone()).collect();
    let text = format!(
        "recall at {} (k {}) returned {} memories although the user certainly held \
         {} more; not returned: {}",
        span(recall.invoke_us, recall.complete_us),
        recall.k,
        recall.memories.len(),
        ids.len(),
        ids.join(", ")
    );
    verdict.violations.push(Violation::new(
        ViolationClass::RecallMiss,
        subject,
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
        // Once, however often it was written: an update replaces, it does not add.
        if count > 1 {
            let slot = found.entry(ViolationClass::Duplicate).or_default();
            slot.0.extend(own);
            slot.1.push(id.to_string());
        }
    }
    for (class, (mut ops, ids)) in found {
        ops.push(recall.op);
        let text = format!(
            "recall at {} returned memories that break isolation or integrity ({class:?}): {}",
            span(recall.invoke_us, recall.complete_us),
            ids.join(", ")
        );
        let subject = Subject::User(recall.user.clone());
        verdict
            .violations
            .push(Violation::new(class, subject, ops, ids, text));
    }
}

/// A stored memory whose index entry is not the embedding of its stored text (stale after
/// an update, or never written): recall ranks it by another text, or never finds it.
fn check_embeddings(idx: &Index<'_>, q: &Quiescence, verdict: &mut Verdict) {
    let stored: BTreeSet<&str> = q.memories_stored.iter().map(String::as_str).collect();
    let mut stale: Vec<&crate::domain::IndexedEmbedding> = q
        .memory_embeddings
        .iter()
        .filter(|e| e.is_stale() && stored.contains(e.id.as_str()))
        .collect();
    if stale.is_empty() {
        return;
    }
    stale.sort_by(|a, b| a.id.cmp(&b.id));
    let held = |e: &crate::domain::IndexedEmbedding| match e.similarity_ppm {
        None => format!("{}: no vector", e.id),
        Some(ppm) => format!("{}: a vector {:.3} similar", e.id, f64::from(ppm) / 1e6),
    };
    let text = format!(
        "at quiescence, the index does not hold the embedding of the stored text of [{}]",
        stale.iter().map(|e| held(e)).collect::<Vec<_>>().join("; ")
    );
    let ops = stale
        .iter()
        .flat_map(|e| remembers_of(idx, &e.id).map(|r| r.write.op))
        .collect();
    let ids = stale.iter().map(|e| e.id.clone()).collect();
    verdict.violations.push(Violation::new(
        ViolationClass::IndexDrift,
        Subject::Store,
        ops,
        ids,
        text,
    ));
}

/// The drifting ids no eviction of their user's keys explains (one after the memory's
/// last write); those one explains are reported by it.
fn unexplained_drift(idx: &Index<'_>, ids: Vec<&str>, verdict: &mut Verdict) -> Vec<String> {
    let mut unexplained = Vec::new();
    let mut by_user: BTreeMap<&UserKey, Vec<Loss>> = BTreeMap::new();
    for id in ids {
        let Some(user) = remembers_of(idx, id).map(|r| r.user).next() else {
            unexplained.push(id.to_string());
            continue;
        };
        by_user.entry(user).or_default().push(Loss {
            ops: remembers_of(idx, id).map(|r| r.write.op).collect(),
            id: id.to_string(),
            invoke_us: remembers_of(idx, id)
                .map(|r| r.write.invoke_us)
                .max()
                .unwrap_or(0),
        });
    }
    for (user, losses) in by_user {
        let words = |ids: &[String]| {
            format!(
                "at quiescence, the memory data and index disagree on [{}]",
                ids.join(", ")
            )
        };
        let subject = Subject::User(user.clone());
        let left = take_explained(idx, &subject, losses, u64::MAX, None, words, verdict);
        unexplained.extend(left.into_iter().map(|l| l.id));
    }
    unexplained.sort_unstable();
    unexplained
}

fn check_drift(idx: &Index<'_>, q: &Quiescence, verdict: &mut Verdict) {
    let stored: BTreeSet<&str> = q.memories_stored.iter().map(String::as_str).collect();
    let indexed: BTreeSet<&str> = q.memories_indexed.iter().map(String::as_str).collect();
    let unindexed: Vec<&str> = stored.difference(&indexed).copied().collect();
    let dangling: Vec<&str> = indexed.difference(&stored).copied().collect();
    if unindexed.is_empty() && dangling.is_empty() {
        return;
    }
    let unindexed = unexplained_drift(idx, unindexed, verdict);
    let dangling = unexplained_drift(idx, dangling, verdict);
    if unindexed.is_empty() && dangling.is_empty() {
        return;
    }
    let ids = unindexed.iter().chain(&dangling).cloned().collect();
    let mut text = format!(
        "at quiescence, stored but not indexed: [{}]; indexed but not stored: [{}]",
        unindexed.join(", "),
        dangling.join(", ")
    );
    if let Some(exact) = &q.memories_exact {
        let (lost, stale): (Vec<&str>, Vec<&str>) = unindexed
            .iter()
            .map(String::as_str)
            .partition(|id| exact.iter().any(|e| e == id));
        text.push_str(&format!(
            "; an exact search finds [{}] by their own text (the index lost them), not [{}] \
             (their embedding is not their text's)",
            lost.join(", "),
            stale.join(", ")
        ));
    }
    verdict.violations.push(Violation::new(
        ViolationClass::IndexDrift,
        Subject::Store,
        Vec::new(),
        ids,
        text,
    ));
}
