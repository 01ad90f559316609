//! Is what should be there there, and is what should be gone gone: `lost`,
//! `premature-expiry`, `zombie`, `truncation`, and `expected-loss` info across restarts.
//!
//! Rules, per successful read R = `context(s, limit)` invoked at t0, completed at t1:
//! - A message m is *judged missing* only if its append is the sole append of its id,
//!   acked, completed before t0, kept by every Redis restart within `[m.invoke, t1]`
//!   (completed before the restart's durable point, or the store's weaker promise;
//!   otherwise it is `expected-loss` info), and the session was certainly alive from m's
//!   application through `t1 + EXPIRY_SLACK_US` (acked appends only, each kept by the
//!   restarts up to then).
//! - m is then `lost` if R holds fewer than `limit` entries that are not certainly older
//!   than m (an entry is certainly older when its acked append completed before m was
//!   invoked; unknown ids count as newer), and m cannot have been trimmed by
//!   `messages_max` (counting every append of s, whatever its outcome, invoked by t1 and
//!   not certainly older than m, plus one for a kept first message).
//! - The missing set of one read is `premature-expiry` instead of `lost` when the policy
//!   has a TTL and R holds none of the acked messages appended before t0.
//! - `truncation`: R longer than `limit` (+1 with keep-first), or keep-first and the
//!   session's first message missing. The first message is the acked append that
//!   completed before any other append of s was invoked; when there is none, the rule is
//!   not applied. Its presence is judged like `lost` but without window or trimming
//!   excuses, and only for `limit >= 1`.
//! - `zombie`: m in R although the session certainly expired at some instant after m's
//!   last possible application and at or before t0 (no append of s, of any outcome, can
//!   have been applied within `ttl + EXPIRY_SLACK_US` before that instant). Messages with
//!   an unknown append are never zombies: they may have been applied late.
//! - `expected-loss` info is given only for messages that would otherwise be judged
//!   (not excused by the window or trimming), so it stays short.
//! - Clears and deletes: a missing message is excused when a clear of its session (that
//!   may have been applied after the message) or a delete of its id was invoked by t1.
//!   It is a `zombie` (resurrected) when R shows it although an acked clear or delete,
//!   invoked after every append of it was acked and completed before t0, removed it, and
//!   no restart since may have lost that erase.
//! - Retries: the appends of one id to one session are one logical message, first applied
//!   between the earliest invocation and the earliest acknowledgement; it is judged
//!   missing like a sole append. (Window entries and the order rules count only sole
//!   appends: a store may keep a retried message at its first or its last copy.)
//! - A summarizing store (`Policy::summarizes`) shows older messages as folded ids of its
//!   summary: a message is present in the window or in the summary, and trimming excuses
//!   nothing (what it trims, it folds). Zombies are judged on the summary too.

use std::collections::BTreeMap;

use super::eviction::{first_eviction, report, Explained};
use super::expiry::{recorded_key_expiries, Expiry};
use super::index::{Append, Index, Read, WriteStatus};
use super::time::{at, span};
use super::{Info, Subject, Verdict, Violation, ViolationClass};
use crate::history::KeyEviction;

pub(crate) fn check(idx: &Index<'_>, verdict: &mut Verdict) {
    let expiry = Expiry::new(idx);
    // The first message depends on the session only: found once per session, not per read.
    // Each session's appends by invoke time (the walk in `check_missing` relies on it;
    // a recorded history is already in that order, a hand-written one may not be).
    let mut firsts = vec![None; idx.by_session.len()];
    let mut by_invoke: Vec<Option<ByInvoke>> = vec![None; idx.by_session.len()];
    for read in &idx.reads {
        let first = *firsts[read.session_no].get_or_insert_with(|| {
            idx.policy
                .keep_first
                .then(|| first_message(idx, read))
                .flatten()
        });
        let appends =
            by_invoke[read.session_no].get_or_insert_with(|| ByInvoke::new(idx, read.session_no));
        check_length(idx, read, verdict);
        check_missing(idx, &expiry, read, appends, first, verdict);
        check_zombies(idx, &expiry, read, verdict);
        check_erased(idx, read, verdict);
        note_failed_visible(idx, read, verdict);
    }
}

/// One session's appends by invoke time.
#[derive(Clone)]
struct ByInvoke {
    positions: Vec<usize>,
    /// Per index into `positions`: the earliest acked completion from there on
    /// (`u64::MAX`: none), so a read's walk can skip the appends acked after it at once.
    acked_from_us: Vec<u64>,
    /// The latest possible applications, in `positions`' order.
    latest: MaxTree,
}

impl ByInvoke {
    fn new(idx: &Index<'_>, session_no: usize) -> Self {
        let mut positions = idx.session_positions(session_no).to_vec();
        positions.sort_by_key(|&p| idx.appends[p].write.invoke_us);
        let latest_us: Vec<u64> = positions
            .iter()
            .map(|&p| idx.appends[p].write.latest_apply_us())
            .collect();
        let mut acked_from_us = latest_us.clone();
        for i in (1..acked_from_us.len()).rev() {
            acked_from_us[i - 1] = acked_from_us[i - 1].min(acked_from_us[i]);
        }
        ByInvoke {
            positions,
            acked_from_us,
            latest: MaxTree::new(&latest_us),
        }
    }
}

/// Range maxima over a fixed sequence, to find the elements at or above a value without
/// visiting the others.
#[derive(Clone)]
struct MaxTree {
    /// Leaves from `leaves` on (padding leaves hold 0), each inner node the max of its
    /// two children; node 1 is the root.
    max: Vec<u64>,
    leaves: usize,
}

impl MaxTree {
    fn new(values: &[u64]) -> Self {
        let leaves = values.len().next_power_of_two();
        let mut max = vec![0; 2 * leaves];
        max[leaves..leaves + values.len()].copy_from_slice(values);
        for node in (1..leaves).rev() {
            max[node] = max[2 * node].max(max[2 * node + 1]);
        }
        MaxTree { max, leaves }
    }

    /// The largest index below `end` whose value is at least `at_least`. Searches up from
    /// `end` and back down, so a hit next to `end` costs a step or two.
    fn last_at_least(&self, end: usize, at_least: u64) -> Option<usize> {
        if end == 0 {
            return None;
        }
        let mut node = self.leaves + end - 1;
        if self.max[node] < at_least {
            // Up until a left sibling (everything just before the subtree walked so far)
            // holds a hit.
            loop {
                if node == 1 {
                    return None;
                }
                if node % 2 == 1 {
                    node -= 1;
                    if self.max[node] >= at_least {
                        break;
                    }
                } else {
                    node /= 2;
                }
            }
            // Down to that subtree's rightmost hit.
            while node < self.leaves {
                node = if self.max[2 * node + 1] >= at_least {
                    2 * node + 1
                } else {
                    2 * node
                };
            }
        }
        Some(node - self.leaves)
    }
}

fn subject(read: &Read<'_>) -> Subject {
    Subject::Session(read.session.clone())
}

fn check_length(idx: &Index<'_>, read: &Read<'_>, verdict: &mut Verdict) {
    let bound = read.limit + usize::from(idx.policy.keep_first);
    if read.messages.len() <= bound {
        return;
    }
    let ids = read.messages.iter().map(|m| m.id.clone()).collect();
    verdict.violations.push(Violation::new(
        ViolationClass::Truncation,
        subject(read),
        vec![read.op],
        ids,
        format!(
            "read returned {} messages, more than limit {} allows (bound {bound})",
            read.messages.len(),
            read.limit
        ),
    ));
}

/// The session's first message when it is unambiguous: acked, sole append of its id,
/// and completed before any other append of the session was invoked.
pub(crate) fn first_message<'i, 'a>(idx: &'i Index<'a>, read: &Read<'_>) -> Option<&'i Append<'a>> {
    let first = idx
        .session_appends(read.session_no)
        .min_by_key(|a| a.write.invoke_us)?;
    let done_us = first.write.acked_by_us()?;
    if !first.unique {
        return None;
    }
    let others_later = idx
        .session_appends(read.session_no)
        .filter(|a| a.write.op != first.write.op)
        .all(|a| done_us < a.write.invoke_us);
    others_later.then_some(first)
}

/// True for an acked append of the read's session (callers pass only those), sole append
/// of its id, that completed before the read was invoked: the messages a read is judged
/// against.
fn acked_before_read(read: &Read<'_>, a: &Append<'_>) -> bool {
    debug_assert_eq!(a.session_no, read.session_no);
    a.write.acked_by_us().is_some_and(|c| c < read.invoke_us) && a.unique
}

/// For one read: when each entry became certainly older than a message invoked later
/// (its unique acked append's completion), so that "entries of R not certainly older than
/// m" is a binary search instead of a lookup per entry and per m.
struct Entries {
    /// Completion times of entries with a unique acked append, sorted.
    acked_us: Vec<u64>,
    len: usize,
}

impl Entries {
    fn of(idx: &Index<'_>, read: &Read<'_>) -> Entries {
        let mut acked_us: Vec<u64> = read
            .id_nos
            .iter()
            .filter_map(|&n| idx.sole_append(read.session_no, n)?.write.acked_by_us())
            .collect();
        acked_us.sort_unstable();
        Entries {
            acked_us,
            len: read.messages.len(),
        }
    }

    /// Entries of R that may have been appended after m (anything not certainly older):
    /// an entry is certainly older when its acked append completed before m was invoked.
    fn newer_than(&self, m: &Append<'_>) -> usize {
        self.len - self.acked_us.partition_point(|&t| t < m.write.invoke_us)
    }
}

/// True when `messages_max` may legitimately have trimmed m by the end of the read:
/// at least `max` appends of the session (one fewer with keep-first), invoked by the
/// read's end, are not certainly older than m. Counts from the newest and stops at the
/// bound, so an old message costs a few steps, not the whole session.
fn trimmable(idx: &Index<'_>, read: &Read<'_>, by_invoke: &ByInvoke, m: &Append<'_>) -> bool {
    // A summarizing store folds what it trims: the message is in the summary instead.
    let Some(max) = idx.policy.messages_max.filter(|_| !idx.policy.summarizes) else {
        return false;
    };
    let needed = max.saturating_sub(usize::from(idx.policy.keep_first));
    if needed == 0 {
        return true;
    }
    // Appends invoked after the read's end are never counted: skipped by a binary search
    // (`positions` is by invoke time) rather than one by one from the session's newest.
    let appends = &by_invoke.positions;
    let invoked = appends.partition_point(|&p| idx.appends[p].write.invoke_us <= read.complete_us);
    // An append is certainly older than m when it may have been applied no later than m
    // was invoked: the tree goes straight to the others. Visiting the older ones one by
    // one cost the whole session for a message with few newer appends (after an expiry).
    let mut end = invoked;
    let mut newer = 0;
    while let Some(i) = by_invoke.latest.last_at_least(end, m.write.invoke_us) {
        let n = &idx.appends[appends[i]];
        debug_assert!(!n.write.certainly_before(&m.write));
        if n.write.op != m.write.op {
            newer += 1;
            if newer >= needed {
                return true;
            }
        }
        end = i;
    }
    false
}

#[derive(Default)]
struct Missing<'i, 'a> {
    lost: Vec<&'i Append<'a>>,
    first: Option<&'i Append<'a>>,
    expected: BTreeMap<u64, Vec<&'i Append<'a>>>,
    /// Per eviction that explains them (the first of the session's keys after each was
    /// invoked), in the order first met.
    evicted: Vec<(&'a KeyEviction, Vec<&'i Append<'a>>)>,
}

/// Judges the acked messages missing from `read`, newest first (`appends`: the session's
/// positions by invoke time). Both excuses for a
/// missing message (the read's window, `newer_than >= limit`, and trimming) can only
/// grow as messages get older (an older m has fewer entries and appends certainly before
/// it), so once one missing message is excused, every older one is too: the walk stops
/// there, and the read costs its recent messages, not the session's whole history. The
/// first message has no such excuse and is judged on its own.
fn check_missing<'i, 'a>(
    idx: &'i Index<'a>,
    expiry: &Expiry,
    read: &Read<'_>,
    by_invoke: &ByInvoke,
    first: Option<&'i Append<'a>>,
    verdict: &mut Verdict,
) {
    let entries = Entries::of(idx, read);
    let mut missing = Missing::default();
    let mut first_seen = false;
    let appends = &by_invoke.positions;
    // From the newest append acked before the read on: none after it is judged.
    let judged_end = by_invoke
        .acked_from_us
        .partition_point(|&t| t < read.invoke_us);
    // A message and its retries are judged once, as one logical message, at its first copy.
    for m in appends[..judged_end]
        .iter()
        .rev()
        .filter_map(|&p| idx.as_logical(&idx.appends[p]))
    {
        if !acked_before_read(read, m) || read.contains(m.id_no) {
            continue;
        }
        let is_first = first.is_some_and(|f| f.write.op == m.write.op);
        first_seen |= is_first;
        if !is_first && (entries.newer_than(m) >= read.limit || trimmable(idx, read, by_invoke, m))
        {
            break;
        }
        classify_missing(idx, expiry, read, m, first, &mut missing);
    }
    if let Some(f) = first.filter(|_| !first_seen) {
        if acked_before_read(read, f) && !read.contains(f.id_no) {
            classify_missing(idx, expiry, read, f, first, &mut missing);
        }
    }
    report_expected(read, &missing, verdict);
    report_evicted(idx, read, &missing, verdict);
    report_first(read, &missing, verdict);
    if missing.lost.is_empty() {
        return;
    }
    // Nothing R shows (window or summary) is an acked message appended before the read.
    let all_gone = !read.shown().any(|(_, n)| {
        idx.logical_append(read.session_no, n)
            .is_some_and(|a| acked_before_read(read, a))
    });
    let premature = idx.ttl_us().is_some() && all_gone;
    report_lost(idx, read, &missing.lost, premature, verdict);
}

fn classify_missing<'i, 'a>(
    idx: &Index<'a>,
    expiry: &Expiry,
    read: &Read<'_>,
    m: &'i Append<'a>,
    first: Option<&Append<'a>>,
    missing: &mut Missing<'i, 'a>,
) {
    // Cheap excuses first: most missing messages were simply cut by the window.
    let is_first = first.is_some_and(|f| f.write.op == m.write.op);
    if is_first && read.limit == 0 {
        return;
    }
    // Deleted, or cleared with its session: gone by request.
    if idx.may_be_erased(m, read.complete_us) {
        return;
    }
    // Not excused by the window or trimming: `check_missing` stops before those.
    if let Some(restart_at_us) = idx.restart_losing(&m.write, read.complete_us) {
        missing.expected.entry(restart_at_us).or_default().push(m);
        return;
    }
    if !expiry.certainly_alive_through(idx, m, read.complete_us) {
        return;
    }
    let subject = subject(read);
    if let Some(eviction) = first_eviction(idx, &subject, m.write.invoke_us, read.complete_us) {
        match missing
            .evicted
            .iter_mut()
            .find(|(e, _)| std::ptr::eq(*e, eviction))
        {
            Some((_, appends)) => appends.push(m),
            None => missing.evicted.push((eviction, vec![m])),
        }
        return;
    }
    if is_first {
        missing.first = Some(m);
    } else {
        missing.lost.push(m);
    }
}

fn ops_and_ids(read: &Read<'_>, appends: &[&Append<'_>]) -> (Vec<usize>, Vec<String>) {
    let mut ops = vec![read.op];
    ops.extend(appends.iter().map(|a| a.write.op));
    let ids = appends.iter().map(|a| a.msg.id.clone()).collect();
    (ops, ids)
}

fn report_expected(read: &Read<'_>, missing: &Missing<'_, '_>, verdict: &mut Verdict) {
    for (&restart_at_us, appends) in &missing.expected {
        let (mut op_indexes, mut message_ids) = ops_and_ids(read, appends);
        op_indexes.sort_unstable();
        message_ids.sort();
        verdict.info.push(Info::ExpectedLoss {
            subject: subject(read),
            op_indexes,
            message_ids,
            restart_at_us,
        });
    }
}

fn report_evicted(
    idx: &Index<'_>,
    read: &Read<'_>,
    missing: &Missing<'_, '_>,
    verdict: &mut Verdict,
) {
    for (eviction, appends) in &missing.evicted {
        let (op_indexes, message_ids) = ops_and_ids(read, appends);
        let missing = format!(
            "read at {} (limit {}) is missing {}",
            span(read.invoke_us, read.complete_us),
            read.limit,
            message_ids.join(", ")
        );
        let explained = Explained {
            eviction,
            subject: subject(read),
            op_indexes,
            message_ids,
            missing,
        };
        report(idx, explained, verdict);
    }
}

fn report_first(read: &Read<'_>, missing: &Missing<'_, '_>, verdict: &mut Verdict) {
    let Some(first) = missing.first else {
        return;
    };
    let (ops, ids) = ops_and_ids(read, &[first]);
    verdict.violations.push(Violation::new(
        ViolationClass::Truncation,
        subject(read),
        ops,
        ids,
        format!(
            "keep-first policy: first message {} (acked at {}) missing from read at {}",
            first.msg.id,
            at(first.write.complete_us.unwrap_or_default()),
            span(read.invoke_us, read.complete_us)
        ),
    ));
}

fn report_lost(
    idx: &Index<'_>,
    read: &Read<'_>,
    lost: &[&Append<'_>],
    premature: bool,
    verdict: &mut Verdict,
) {
    let (ops, ids) = ops_and_ids(read, lost);
    // What Redis did to the session's keys meanwhile: the rule judges by the TTL policy,
    // the reader wants the fact.
    let since_us = lost.iter().map(|a| a.write.invoke_us).min().unwrap_or(0);
    let seen = recorded_key_expiries(idx, read.session, since_us, read.complete_us)
        .map(|keys| match premature {
            true => format!("; {keys}"),
            false => format!("; yet Redis expired them: {keys}"),
        })
        .unwrap_or_default();
    let (class, why) = if premature {
        (
            ViolationClass::PrematureExpiry,
            "the session was certainly alive per its TTL, yet the read held none of its acked messages",
        )
    } else {
        (
            ViolationClass::Lost,
            "acked before the read, within the limit window, not trimmable and not expired",
        )
    };
    verdict.violations.push(Violation::new(
        class,
        subject(read),
        ops,
        ids.clone(),
        format!(
            "read at {} (limit {}) is missing {}: {why}{seen}",
            span(read.invoke_us, read.complete_us),
            read.limit,
            ids.join(", ")
        ),
    ));
}

/// Appends of the id numbered `n` to the read's session.
fn own_appends<'i, 'a>(
    idx: &'i Index<'a>,
    read: &'i Read<'_>,
    n: Option<usize>,
) -> impl Iterator<Item = &'i Append<'a>> + 'i {
    idx.id_appends(n)
        .filter(move |a| a.session_no == read.session_no)
}

fn check_zombies(idx: &Index<'_>, expiry: &Expiry, read: &Read<'_>, verdict: &mut Verdict) {
    let Some(expired_at_us) = expiry.latest_certain_expiry(read.session_no, read.invoke_us) else {
        return;
    };
    let mut ops = vec![read.op];
    let mut ids = Vec::new();
    // A summary expires with its session: its folded ids are judged like the window's.
    for (id, n) in read.shown() {
        let Some(latest_us) = own_appends(idx, read, n)
            .map(|a| a.write.latest_apply_us())
            .max()
        else {
            continue;
        };
        // The message was applied for the last time before a certain expiry.
        if latest_us < expired_at_us {
            ops.extend(own_appends(idx, read, n).map(|a| a.write.op));
            ids.push(id.to_string());
        }
    }
    if ids.is_empty() {
        return;
    }
    let seen = recorded_key_expiries(idx, read.session, 0, read.complete_us)
        .map(|keys| format!("; {keys}"))
        .unwrap_or_default();
    verdict.violations.push(Violation::new(
        ViolationClass::Zombie,
        subject(read),
        ops,
        ids,
        format!(
            "read at {} returned messages applied before the session certainly expired (at {} at the latest){seen}",
            span(read.invoke_us, read.complete_us),
            at(expired_at_us)
        ),
    ));
}

/// The erase that certainly removed every copy of the message numbered `n` before
/// `before_us`: an acked clear of the session or delete of the id, invoked after every
/// append of the id was acked, completed before `before_us`, and kept by every restart
/// since (a restart that lost the erase may bring the message back).
fn certain_erase(
    idx: &Index<'_>,
    read: &Read<'_>,
    id: &str,
    n: Option<usize>,
) -> Option<super::index::Write> {
    let mut own = own_appends(idx, read, n).peekable();
    own.peek()?;
    let last_applied_us = own.map(|a| a.write.latest_apply_us()).max()?;
    idx.erases_of(read.session_no, id)
        .find(|e| {
            e.write.invoke_us > last_applied_us
                && e.write.acked_by_us().is_some_and(|c| c < read.invoke_us)
                && idx.restart_losing(&e.write, read.complete_us).is_none()
        })
        .map(|e| e.write)
}

/// `zombie`: a read shows a message that a clear or delete certainly removed before the
/// read began, with no append of it since (a resurrection).
fn check_erased(idx: &Index<'_>, read: &Read<'_>, verdict: &mut Verdict) {
    if idx.erases_by_session[read.session_no].is_empty() {
        return;
    }
    let mut ops = vec![read.op];
    let mut ids = Vec::new();
    let mut what = Vec::new();
    for (id, n) in read.shown() {
        let Some(erase) = certain_erase(idx, read, id, n) else {
            continue;
        };
        ops.push(erase.op);
        ops.extend(own_appends(idx, read, n).map(|a| a.write.op));
        ids.push(id.to_string());
        what.push(format!("{id} (erased by op {})", erase.op));
    }
    if ids.is_empty() {
        return;
    }
    verdict.violations.push(Violation::new(
        ViolationClass::Zombie,
        subject(read),
        ops,
        ids,
        format!(
            "read at {} returned messages erased after their last append and before the read: {}",
            span(read.invoke_us, read.complete_us),
            what.join(", ")
        ),
    ));
}

fn note_failed_visible(idx: &Index<'_>, read: &Read<'_>, verdict: &mut Verdict) {
    for (k, entry) in read.messages.iter().enumerate() {
        let n = read.id_nos[k];
        let mut appends = own_appends(idx, read, n).peekable();
        if appends.peek().is_none() || appends.any(|a| a.write.status != WriteStatus::Failed) {
            continue;
        }
        let mut op_indexes = vec![read.op];
        op_indexes.extend(own_appends(idx, read, n).map(|a| a.write.op));
        op_indexes.sort_unstable();
        verdict.info.push(Info::FailedAppendVisible {
            session: read.session.clone(),
            op_indexes,
            message_id: entry.id.clone(),
        });
    }
}
