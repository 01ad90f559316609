//! Hand-built histories: for every class one history detected with exactly that class,
//! and near misses of it made legal that must pass.

use super::*;
use crate::contract::{Durability, Policy, TtlPolicy};
use crate::domain::Persistence;
use crate::domain::{Memory, Message, Role, SessionKey, UserKey};
use crate::history::{History, Kept, OpKind, OpValue, Outcome, Restart};

const MS: u64 = 1000;

fn sk(name: &str) -> SessionKey {
    SessionKey::new("t1", name)
}

fn user(name: &str) -> UserKey {
    UserKey {
        tenant: "t1".into(),
        user: name.into(),
    }
}

fn msg(id: &str, seq: u64) -> Message {
    Message {
        id: id.into(),
        role: Role::User,
        content: format!("content of {id} \r\n$5\r\n 你好 🙂"),
        seq,
    }
}

fn mem(id: &str, text: &str) -> Memory {
    Memory {
        id: id.into(),
        text: text.into(),
    }
}

fn plain() -> Policy {
    Policy {
        messages_max: None,
        keep_first: false,
        summarizes: false,
        ttl: TtlPolicy::None,
        durability: Durability::AsRedis,
        appends_idempotent: true,
        recovery_grace_ms: 0,
        eviction: crate::contract::Eviction::Forbidden,
    }
}

fn with_ttl(ttl_ms: u64) -> Policy {
    Policy {
        ttl: TtlPolicy::Sliding { ttl_ms },
        ..plain()
    }
}

fn keep_first() -> Policy {
    Policy {
        keep_first: true,
        summarizes: false,
        ..plain()
    }
}

fn unknown() -> Outcome {
    Outcome::Unknown("timed out".into())
}

/// Sequential acked appends of `ids` to `s`, each taking 10 ms, starting at `from_ms`,
/// 20 ms apart.
fn appends(h: &mut History, s: &SessionKey, ids: &[&str], from_ms: u64) {
    for (i, id) in ids.iter().enumerate() {
        let t = (from_ms + 20 * i as u64) * MS;
        h.push_acked_append(1, s, msg(id, i as u64), t, t + 10 * MS);
    }
}

fn read(h: &mut History, s: &SessionKey, limit: usize, at_ms: u64, ids: &[&str]) -> usize {
    let seqs = ids.iter().map(|id| msg(id, seq_of(h, id))).collect();
    h.push_context(2, s, limit, at_ms * MS, (at_ms + 10) * MS, seqs)
}

fn seq_of(h: &History, id: &str) -> u64 {
    h.ops
        .iter()
        .find_map(|op| match &op.kind {
            OpKind::Append { msg, .. } if msg.id == id => Some(msg.seq),
            _ => None,
        })
        .unwrap_or(0)
}

fn classes(h: &History, p: Policy) -> Vec<ViolationClass> {
    check(h, &p).classes()
}

fn assert_pass(h: &History, p: Policy) {
    let v = check(h, &p);
    assert!(v.is_pass(), "expected pass, got {:#?}", v.violations);
}

// ---------------------------------------------------------------- lost

#[test]
fn lost_acked_message_missing() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    read(&mut h, &s, 10, 100, &["m2"]);
    let v = check(&h, &plain());
    assert_eq!(v.classes(), vec![ViolationClass::Lost]);
    assert_eq!(v.violations[0].message_ids, vec!["m1".to_string()]);
    assert_eq!(v.violations[0].op_indexes, vec![0, 2]);
}

#[test]
fn near_miss_unknown_append_may_be_absent_or_present_once() {
    let s = sk("a");
    let mut h = History::new();
    h.push_append(1, &s, msg("m1", 0), 0, Some(10 * MS), unknown());
    appends(&mut h, &s, &["m2"], 20);
    read(&mut h, &s, 10, 100, &["m2"]);
    read(&mut h, &s, 10, 200, &["m1", "m2"]);
    assert_pass(&h, plain());
}

#[test]
fn near_miss_pending_append_applied_late() {
    let s = sk("a");
    let mut h = History::new();
    h.push_append(1, &s, msg("m1", 0), 0, None, Outcome::Pending);
    appends(&mut h, &s, &["m2"], 20);
    read(&mut h, &s, 10, 100, &["m2"]);
    read(&mut h, &s, 10, 200, &["m2", "m1"]);
    assert_pass(&h, plain());
}

#[test]
fn near_miss_append_completing_after_read_invoked() {
    let s = sk("a");
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m1", 0), 0, 105 * MS);
    read(&mut h, &s, 10, 100, &[]);
    assert_pass(&h, plain());
}

#[test]
fn near_miss_message_cut_by_limit() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2", "m3"], 0);
    read(&mut h, &s, 2, 100, &["m2", "m3"]);
    assert_pass(&h, plain());
}

#[test]
fn near_miss_concurrent_newer_message_fills_window() {
    // m3 overlaps m2, so m3 may be newer than m2 and fill a limit-1 window... and m2
    // may be newer than m3: a read showing only m2 is legal too.
    let s = sk("a");
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m2", 1), 0, 30 * MS);
    h.push_acked_append(3, &s, msg("m3", 2), 10 * MS, 20 * MS);
    read(&mut h, &s, 1, 100, &["m2"]);
    read(&mut h, &s, 1, 200, &["m2"]);
    assert_pass(&h, plain());
}

#[test]
fn lost_within_messages_max_but_trimmed_older_is_fine() {
    let s = sk("a");
    let policy = Policy {
        messages_max: Some(2),
        ..plain()
    };
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2", "m3"], 0);
    read(&mut h, &s, 10, 100, &["m2", "m3"]);
    assert_pass(&h, policy);
    read(&mut h, &s, 10, 200, &["m3"]);
    let v = check(&h, &policy);
    assert_eq!(v.classes(), vec![ViolationClass::Lost]);
    assert_eq!(v.violations[0].message_ids, vec!["m2".to_string()]);
}

// ---------------------------------------------------------------- restarts

fn restart(at_ms: u64, persistence: Persistence, kept: Kept) -> Restart {
    Restart {
        at_us: at_ms * MS,
        persistence,
        kept,
        backend: crate::domain::Backend::Redis,
    }
}

fn wiped(at_ms: u64) -> Restart {
    restart(at_ms, Persistence::None, Kept::Nothing)
}

fn synced(at_ms: u64, fsync_ms: u64) -> Restart {
    let kept = Kept::AppliedBefore {
        before_us: fsync_ms * MS,
        observed: true,
    };
    restart(at_ms, Persistence::AofEverysec, kept)
}

/// The read's expected-loss info, as (restart, message ids).
fn expected_losses(v: &Verdict) -> Vec<(u64, Vec<String>)> {
    v.info
        .iter()
        .filter_map(|info| match info {
            Info::ExpectedLoss {
                restart_at_us,
                message_ids,
                ..
            } => Some((*restart_at_us, message_ids.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn restart_without_persistence_turns_loss_into_expected_loss() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    read(&mut h, &s, 10, 100, &[]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Lost]);
    h.push_restart(wiped(50));
    let v = check(&h, &plain());
    assert!(v.is_pass(), "{:#?}", v.violations);
    assert_eq!(
        expected_losses(&v),
        vec![(50 * MS, vec!["m1".into(), "m2".into()])]
    );
}

#[test]
fn restart_does_not_excuse_messages_appended_after_it() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    h.push_restart(wiped(50));
    appends(&mut h, &s, &["m2", "m3"], 60);
    read(&mut h, &s, 10, 200, &["m3"]);
    let v = check(&h, &plain());
    assert_eq!(v.classes(), vec![ViolationClass::Lost]);
    assert_eq!(v.violations[0].message_ids, vec!["m2".to_string()]);
    assert_eq!(v.info.len(), 1);
}

#[test]
fn restart_still_checks_order() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    h.push_restart(wiped(50));
    read(&mut h, &s, 10, 100, &["m2", "m1"]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Reorder]);
}

/// m1 acked at 10 ms, m2 acked at 30 ms; Redis restarts at 200 ms; a read at 300 ms.
fn restart_history(restart: Restart, seen: &[&str]) -> History {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    h.push_restart(restart);
    read(&mut h, &s, 10, 300, seen);
    h
}

#[test]
fn everysec_keeps_what_was_acked_before_the_last_fsync() {
    // The fsync at 30 ms: m1 (acked at 10 ms) is on disk, m2 (acked at exactly 30 ms)
    // may have been applied after it.
    let h = restart_history(synced(200, 30), &[]);
    let v = check(&h, &plain());
    assert_eq!(v.classes(), vec![ViolationClass::Lost]);
    assert_eq!(v.violations[0].message_ids, vec!["m1".to_string()]);
    assert_eq!(expected_losses(&v), vec![(200 * MS, vec!["m2".into()])]);
    // One microsecond later, m2 was certainly applied before the fsync too.
    let mut h = restart_history(synced(200, 30), &[]);
    let Kept::AppliedBefore { before_us, .. } = &mut h.restarts[0].kept else {
        unreachable!()
    };
    *before_us += 1;
    let v = check(&h, &plain());
    assert_eq!(v.violations.len(), 1);
    assert_eq!(
        v.violations[0].message_ids,
        vec!["m1".to_string(), "m2".to_string()]
    );
    // What the fsync kept and the read shows passes.
    assert_pass(&restart_history(synced(200, 30), &["m1"]), plain());
}

#[test]
fn aof_always_keeps_every_acked_write() {
    let everything = restart(200, Persistence::AofAlways, Kept::Everything);
    let v = check(&restart_history(everything, &["m1"]), &plain());
    assert_eq!(v.classes(), vec![ViolationClass::Lost]);
    assert_eq!(v.violations[0].message_ids, vec!["m2".to_string()]);
    assert!(expected_losses(&v).is_empty());
    assert_pass(&restart_history(everything, &["m1", "m2"]), plain());
}

/// A PostgreSQL crash whose WAL had flushed the commits before `flush_ms`.
fn postgres_crash(at_ms: u64, flush_ms: u64) -> Restart {
    Restart {
        backend: crate::domain::Backend::Pgvector,
        ..restart(
            at_ms,
            Persistence::None,
            Kept::AppliedBefore {
                before_us: flush_ms * MS,
                observed: true,
            },
        )
    }
}

#[test]
fn a_postgres_crash_excuses_unflushed_commits_only_for_a_store_declaring_them() {
    use crate::contract::SynchronousCommit;
    // The WAL flushed at 5 ms: m1 and m2 (acked at 0 and 10 ms) may not be on disk.
    let crash = postgres_crash(200, 5);
    let declared = |durability| Policy {
        durability,
        ..plain()
    };
    // The server runs synchronous_commit = on: a store that says so, or says AsRedis (the
    // Redis term mapped), promised every acknowledged commit.
    for synchronous in [
        Durability::Postgres(SynchronousCommit::On),
        Durability::Postgres(SynchronousCommit::Local),
        Durability::AsRedis,
    ] {
        let v = check(&restart_history(crash, &[]), &declared(synchronous));
        assert_eq!(v.classes(), vec![ViolationClass::Lost], "{synchronous:?}");
    }
    // A store whose sessions commit asynchronously, and say so, may lose them.
    let off = declared(Durability::Postgres(SynchronousCommit::Off));
    let v = check(&restart_history(crash, &[]), &off);
    assert!(v.is_pass(), "{:#?}", v.violations);
    assert_eq!(
        expected_losses(&v),
        vec![(200 * MS, vec!["m1".into(), "m2".into()])]
    );
    // ... but never what the WAL had flushed.
    let v = check(&restart_history(postgres_crash(200, 50), &[]), &off);
    assert_eq!(v.classes(), vec![ViolationClass::Lost]);
    // The real tier's documented bound: three WAL writer rounds before the crash.
    let documented = Restart::documented_postgres(2_000 * MS);
    assert_eq!(documented.lost_from_us(), Some(1_400 * MS));
}

#[test]
fn a_restart_after_the_read_excuses_nothing() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    read(&mut h, &s, 10, 100, &[]);
    h.push_restart(wiped(200));
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Lost]);
}

#[test]
fn a_weaker_promise_excuses_more_never_less() {
    let everything = restart(200, Persistence::AofAlways, Kept::Everything);
    let volatile = Policy {
        durability: Durability::Volatile,
        ..plain()
    };
    assert_pass(&restart_history(everything, &[]), volatile);
    // `AofEverysec` promises what was acked 2 s before the restart: at 200 ms, nothing.
    let everysec = Policy {
        durability: Durability::AofEverysec,
        ..plain()
    };
    assert_pass(&restart_history(everything, &[]), everysec);
    let late = restart(2_030, Persistence::AofAlways, Kept::Everything);
    let v = check(&restart_history(late, &["m2"]), &everysec);
    assert_eq!(v.violations[0].message_ids, vec!["m1".to_string()]);
    // A promise never strengthens what Redis lost.
    assert_pass(&restart_history(wiped(200), &[]), plain());
}

#[test]
fn the_documented_everysec_bound_keeps_what_is_two_seconds_old() {
    let r = Restart::documented(3_000 * MS, Persistence::AofEverysec);
    assert_eq!(r.lost_from_us(), Some(1_000 * MS));
    assert_eq!(
        Restart::documented(3_000 * MS, Persistence::None).lost_from_us(),
        Some(0)
    );
    assert_eq!(
        Restart::documented(3_000 * MS, Persistence::AofAlways).lost_from_us(),
        None
    );
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    appends(&mut h, &s, &["m2"], 2_500);
    h.push_restart(r);
    read(&mut h, &s, 10, 3_100, &[]);
    let v = check(&h, &plain());
    assert_eq!(v.violations[0].message_ids, vec!["m1".to_string()]);
    assert_eq!(expected_losses(&v), vec![(3_000 * MS, vec!["m2".into()])]);
}

#[test]
fn a_ttl_refresh_a_restart_lost_keeps_nothing_alive() {
    // TTL 5 s. m1 acked at 10 ms; m2 at 4.01 s refreshes the session until 9 s, so a
    // read at 6.5 s must see both. A restart at 6 s whose fsync ran at 3 s keeps m1 but
    // may lose m2 and its refresh: m1 may then have expired at 5 s.
    let s = sk("a");
    let ttl = with_ttl(5_000);
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m1", 0), 0, 10 * MS);
    h.push_acked_append(1, &s, msg("m2", 1), 4_000 * MS, 4_010 * MS);
    read(&mut h, &s, 10, 6_500, &[]);
    assert_eq!(classes(&h, ttl), vec![ViolationClass::PrematureExpiry]);
    h.push_restart(synced(6_000, 3_000));
    let v = check(&h, &ttl);
    assert!(v.is_pass(), "{:#?}", v.violations);
    assert_eq!(expected_losses(&v), vec![(6_000 * MS, vec!["m2".into()])]);
}

// ---------------------------------------------------------------- summaries

/// Window of 1 plus a summary of everything older.
fn summarizing() -> Policy {
    Policy {
        messages_max: Some(1),
        summarizes: true,
        ..plain()
    }
}

/// A summarized read at `at_ms` showing `folded` in its summary and `window` after it.
fn summarized_read(h: &mut History, s: &SessionKey, at_ms: u64, folded: &[&str], window: &[&str]) {
    let messages = window.iter().map(|id| msg(id, seq_of(h, id))).collect();
    let summary = crate::domain::Summary {
        folded_ids: folded.iter().map(|id| id.to_string()).collect(),
        text: "a summary".into(),
    };
    let kind = OpKind::Context {
        session: s.clone(),
        limit: 10,
    };
    let outcome = Outcome::Ok(OpValue::Summarized { summary, messages });
    h.push(2, kind, at_ms * MS, Some((at_ms + 10) * MS), outcome);
}

#[test]
fn a_folded_message_counts_as_present() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2", "m3"], 0);
    summarized_read(&mut h, &s, 100, &["m1", "m2"], &["m3"]);
    assert_pass(&h, summarizing());
}

#[test]
fn a_message_in_neither_window_nor_summary_is_lost_whatever_the_trim() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2", "m3"], 0);
    summarized_read(&mut h, &s, 100, &["m1"], &["m3"]);
    let v = check(&h, &summarizing());
    assert_eq!(v.classes(), vec![ViolationClass::Lost]);
    assert_eq!(v.violations[0].message_ids, vec!["m2".to_string()]);
    // Without a summary, a window of one may trim m2: no violation.
    let trimming = Policy {
        summarizes: false,
        ..summarizing()
    };
    let mut plain_read = History::new();
    appends(&mut plain_read, &s, &["m1", "m2", "m3"], 0);
    read(&mut plain_read, &s, 10, 100, &["m3"]);
    assert_pass(&plain_read, trimming);
}

#[test]
fn a_message_in_window_and_summary_is_a_duplicate() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    summarized_read(&mut h, &s, 100, &["m1", "m2"], &["m2"]);
    assert_eq!(classes(&h, summarizing()), vec![ViolationClass::Duplicate]);
}

#[test]
fn a_fold_that_breaks_order_is_a_reorder() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2", "m3"], 0);
    summarized_read(&mut h, &s, 100, &["m2", "m1"], &["m3"]);
    assert_eq!(classes(&h, summarizing()), vec![ViolationClass::Reorder]);
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2", "m3"], 0);
    summarized_read(&mut h, &s, 100, &["m1", "m3"], &["m2"]);
    assert_eq!(classes(&h, summarizing()), vec![ViolationClass::Reorder]);
}

#[test]
fn a_summary_folding_another_sessions_message_leaks() {
    let (a, b) = (sk("a"), sk("b"));
    let mut h = History::new();
    appends(&mut h, &a, &["m1", "m2"], 0);
    appends(&mut h, &b, &["x1"], 50);
    summarized_read(&mut h, &a, 100, &["m1", "x1"], &["m2"]);
    assert_eq!(classes(&h, summarizing()), vec![ViolationClass::Leak]);
    let mut h = History::new();
    appends(&mut h, &a, &["m1", "m2"], 0);
    summarized_read(&mut h, &a, 100, &["m1", "invented"], &["m2"]);
    assert_eq!(classes(&h, summarizing()), vec![ViolationClass::Corrupt]);
}

#[test]
fn a_summary_that_outlives_its_session_is_a_zombie() {
    let s = sk("a");
    let policy = Policy {
        ttl: TtlPolicy::Sliding { ttl_ms: 1_000 },
        ..summarizing()
    };
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    summarized_read(&mut h, &s, 5_000, &["m1"], &[]);
    assert_eq!(classes(&h, policy), vec![ViolationClass::Zombie]);
}

// ---------------------------------------------------------------- duplicate

#[test]
fn duplicate_same_id_twice_in_one_read() {
    let s = sk("a");
    let mut h = History::new();
    h.push_append(1, &s, msg("m1", 0), 0, Some(10 * MS), unknown());
    appends(&mut h, &s, &["m2"], 20);
    read(&mut h, &s, 10, 100, &["m1", "m1", "m2"]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Duplicate]);
}

fn not_idempotent() -> Policy {
    Policy {
        appends_idempotent: false,
        recovery_grace_ms: 0,
        ..plain()
    }
}

/// m1 sent twice to `s` (the first with `first`, the retry acked), then read.
fn retried(first: Outcome, shown: &[&str]) -> History {
    let s = sk("a");
    let mut h = History::new();
    h.push_append(1, &s, msg("m1", 0), 0, Some(10 * MS), first);
    h.push_acked_append(2, &s, msg("m1", 0), 20 * MS, 30 * MS);
    appends(&mut h, &s, &["m2"], 40);
    read(&mut h, &s, 10, 100, shown);
    h
}

#[test]
fn a_store_that_is_not_idempotent_may_show_each_applied_send() {
    // The first send timed out but may have been applied: two copies are what a store
    // that pushes every send keeps.
    assert_pass(&retried(unknown(), &["m1", "m1", "m2"]), not_idempotent());
    assert_pass(
        &retried(Outcome::Ok(OpValue::None), &["m1", "m1", "m2"]),
        not_idempotent(),
    );
    // The same history is a duplicate for a store that promised idempotent appends.
    let h = retried(unknown(), &["m1", "m1", "m2"]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Duplicate]);
}

#[test]
fn a_store_that_is_not_idempotent_still_shows_no_more_copies_than_sends() {
    // A certain failure applied nothing: one copy only.
    let failed = Outcome::Fail("OOM".into());
    let h = retried(failed, &["m1", "m1", "m2"]);
    assert_eq!(
        classes(&h, not_idempotent()),
        vec![ViolationClass::Duplicate]
    );
    // Three copies of two sends.
    let h = retried(unknown(), &["m1", "m1", "m1", "m2"]);
    assert_eq!(
        classes(&h, not_idempotent()),
        vec![ViolationClass::Duplicate]
    );
    // A send invoked after the read cannot be one of its copies.
    let s = sk("a");
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m1", 0), 0, 10 * MS);
    read(&mut h, &s, 10, 100, &["m1", "m1"]);
    h.push_acked_append(2, &s, msg("m1", 0), 200 * MS, 210 * MS);
    assert_eq!(
        classes(&h, not_idempotent()),
        vec![ViolationClass::Duplicate]
    );
}

#[test]
fn near_miss_duplicate_once_is_fine() {
    let s = sk("a");
    let mut h = History::new();
    h.push_append(1, &s, msg("m1", 0), 0, Some(10 * MS), unknown());
    appends(&mut h, &s, &["m2"], 20);
    read(&mut h, &s, 10, 100, &["m1", "m2"]);
    read(&mut h, &s, 10, 200, &["m1", "m2"]);
    assert_pass(&h, plain());
}

// ---------------------------------------------------------------- reorder

#[test]
fn reorder_against_non_overlapping_appends() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    read(&mut h, &s, 10, 100, &["m2", "m1"]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Reorder]);
}

#[test]
fn near_miss_overlapping_appends_any_order() {
    let s = sk("a");
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m1", 0), 0, 25 * MS);
    h.push_acked_append(3, &s, msg("m2", 1), 20 * MS, 30 * MS);
    read(&mut h, &s, 10, 100, &["m2", "m1"]);
    read(&mut h, &s, 10, 200, &["m2", "m1"]);
    assert_pass(&h, plain());
}

#[test]
fn near_miss_unknown_append_applied_after_a_later_one() {
    let s = sk("a");
    let mut h = History::new();
    h.push_append(1, &s, msg("m1", 0), 0, Some(10 * MS), unknown());
    appends(&mut h, &s, &["m2"], 20);
    read(&mut h, &s, 10, 100, &["m2", "m1"]);
    assert_pass(&h, plain());
}

#[test]
fn reorder_two_reads_disagree() {
    let s = sk("a");
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m1", 0), 0, 25 * MS);
    h.push_acked_append(3, &s, msg("m2", 1), 20 * MS, 30 * MS);
    read(&mut h, &s, 10, 100, &["m1", "m2"]);
    read(&mut h, &s, 10, 200, &["m2", "m1"]);
    let v = check(&h, &plain());
    assert_eq!(v.classes(), vec![ViolationClass::Reorder]);
    assert_eq!(v.violations[0].op_indexes, vec![0, 1, 2, 3]);
}

// ---------------------------------------------------------------- corrupt

#[test]
fn corrupt_content_changed() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    let mut bad = msg("m1", 0);
    bad.content = bad.content.replace("你好", "??");
    h.push_context(2, &s, 10, 100 * MS, 110 * MS, vec![bad]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Corrupt]);
}

#[test]
fn corrupt_invented_message() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    read(&mut h, &s, 10, 100, &["m1", "ghost"]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Corrupt]);
}

#[test]
fn near_miss_content_round_trips() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    read(&mut h, &s, 10, 100, &["m1"]);
    assert_pass(&h, plain());
}

// ---------------------------------------------------------------- leak

#[test]
fn leak_other_sessions_message() {
    let (s1, s2) = (sk("a"), sk("b"));
    let mut h = History::new();
    appends(&mut h, &s1, &["m1"], 0);
    appends(&mut h, &s2, &["x1"], 0);
    read(&mut h, &s1, 10, 100, &["m1", "x1"]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Leak]);
}

#[test]
fn near_miss_each_session_sees_its_own() {
    let (s1, s2) = (sk("a"), sk("b"));
    let mut h = History::new();
    appends(&mut h, &s1, &["m1"], 0);
    appends(&mut h, &s2, &["x1"], 0);
    read(&mut h, &s1, 10, 100, &["m1"]);
    read(&mut h, &s2, 10, 100, &["x1"]);
    assert_pass(&h, plain());
}

// ---------------------------------------------------------------- zombie

#[test]
fn zombie_expired_message_still_readable() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    read(&mut h, &s, 10, 5_000, &["m1"]);
    assert_eq!(classes(&h, with_ttl(1_000)), vec![ViolationClass::Zombie]);
}

#[test]
fn zombie_even_if_an_unknown_append_recreated_the_session_later() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    h.push_append(1, &s, msg("m2", 1), 4_000 * MS, Some(4_100 * MS), unknown());
    read(&mut h, &s, 10, 5_000, &["m1", "m2"]);
    assert_eq!(classes(&h, with_ttl(1_000)), vec![ViolationClass::Zombie]);
}

#[test]
fn near_miss_expiry_inside_read_window_or_slack() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    // Expiry at ~1000..1010 ms: reads around it may see the message or not.
    h.push_context(2, &s, 10, 900 * MS, 1_500 * MS, vec![msg("m1", 0)]);
    h.push_context(2, &s, 10, 900 * MS, 1_500 * MS, vec![]);
    read(&mut h, &s, 10, 1_800, &["m1"]);
    assert_pass(&h, with_ttl(1_000));
}

#[test]
fn near_miss_sliding_ttl_refreshed_by_later_append() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    appends(&mut h, &s, &["m2"], 800);
    appends(&mut h, &s, &["m3"], 1_600);
    read(&mut h, &s, 10, 2_000, &["m1", "m2", "m3"]);
    assert_pass(&h, with_ttl(1_000));
}

// ---------------------------------------------------------------- premature-expiry

#[test]
fn premature_expiry_session_gone_while_certainly_alive() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    read(&mut h, &s, 10, 3_000, &[]);
    assert_eq!(
        classes(&h, with_ttl(10_000)),
        vec![ViolationClass::PrematureExpiry]
    );
    // Without a TTL the same read is plain loss.
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Lost]);
}

#[test]
fn near_miss_session_legitimately_expired() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    read(&mut h, &s, 10, 12_000, &[]);
    // Expiry (~10 s) inside the op window plus slack.
    h.push_context(2, &s, 10, 9_500 * MS, 10_500 * MS, vec![]);
    assert_pass(&h, with_ttl(10_000));
}

#[test]
fn near_miss_expired_then_recreated_by_new_append() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    appends(&mut h, &s, &["m2"], 5_000);
    read(&mut h, &s, 10, 5_100, &["m2"]);
    assert_pass(&h, with_ttl(1_000));
}

// ---------------------------------------------------------------- truncation

#[test]
fn truncation_read_longer_than_limit() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2", "m3"], 0);
    read(&mut h, &s, 2, 100, &["m1", "m2", "m3"]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Truncation]);
}

#[test]
fn truncation_keep_first_missing() {
    let s = sk("a");
    let ids: Vec<String> = (0..10).map(|i| format!("m{i}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut h = History::new();
    appends(&mut h, &s, &ids, 0);
    read(&mut h, &s, 3, 1_000, &["m7", "m8", "m9"]);
    assert_eq!(classes(&h, keep_first()), vec![ViolationClass::Truncation]);
}

#[test]
fn near_miss_keep_first_with_long_history() {
    let s = sk("a");
    let ids: Vec<String> = (0..10).map(|i| format!("m{i}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut h = History::new();
    appends(&mut h, &s, &ids, 0);
    read(&mut h, &s, 3, 1_000, &["m0", "m7", "m8", "m9"]);
    read(&mut h, &s, 20, 1_100, &ids);
    assert_pass(&h, keep_first());
}

#[test]
fn near_miss_keep_first_ambiguous_first_is_not_judged() {
    let s = sk("a");
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m0", 0), 0, 30 * MS);
    h.push_acked_append(3, &s, msg("m1", 1), 10 * MS, 20 * MS);
    appends(&mut h, &s, &["m2", "m3", "m4"], 100);
    read(&mut h, &s, 3, 1_000, &["m2", "m3", "m4"]);
    assert_pass(&h, keep_first());
}

// ---------------------------------------------------------------- recall-miss

#[test]
fn recall_miss_exact_text_not_found() {
    let u = user("u1");
    let mut h = History::new();
    let ok = Outcome::Ok(OpValue::None);
    h.push_remember(1, &u, mem("r1", "likes green tea"), 0, Some(10 * MS), ok);
    h.push_recall(2, &u, "likes green tea", 3, 100 * MS, 110 * MS, vec![]);
    assert_eq!(classes(&h, plain()), vec![ViolationClass::RecallMiss]);
}

#[test]
fn near_miss_recall_ties_and_caps() {
    let u = user("u1");
    let mut h = History::new();
    let ok = Outcome::Ok(OpValue::None);
    h.push_remember(1, &u, mem("r1", "likes tea"), 0, Some(10 * MS), ok.clone());
    h.push_remember(
        1,
        &u,
        mem("r2", "likes tea"),
        20 * MS,
        Some(30 * MS),
        ok.clone(),
    );
    h.push_remember(1, &u, mem("r3", "tea likes"), 40 * MS, Some(50 * MS), ok);
    // k below the number of identical texts: either may be returned.
    h.push_recall(
        2,
        &u,
        "likes tea",
        1,
        100 * MS,
        110 * MS,
        vec![mem("r2", "likes tea")],
    );
    // full result with a tying different text: not judged.
    let tie = vec![mem("r3", "tea likes"), mem("r1", "likes tea")];
    h.push_recall(2, &u, "likes tea", 2, 200 * MS, 210 * MS, tie);
    // remember still in flight when recall was invoked.
    h.push_remember(
        1,
        &u,
        mem("r4", "late"),
        300 * MS,
        Some(320 * MS),
        unknown(),
    );
    // (k 1 is filled by another memory: the short-recall rule has nothing to say.)
    let other = vec![mem("r1", "likes tea")];
    h.push_recall(2, &u, "late", 1, 310 * MS, 315 * MS, other);
    assert_pass(&h, plain());
}

/// A full answer of lesser memories in place of the exact match: judged by rank under
/// the plan's embedder (corpus plans) only; a text that ties with the query (case) and
/// more ties than `k` are never judged.
#[test]
fn an_exact_match_outranked_by_lesser_memories_is_a_miss_by_rank() {
    let u = user("u1");
    let mut h = History::new();
    let ok = || Outcome::Ok(OpValue::None);
    let query = "the user booked a flight to Osaka on Mondays";
    h.push_remember(1, &u, mem("r1", query), 0, Some(10 * MS), ok());
    let lesser = mem("r2", "the user booked the tax return on Mondays");
    h.push_remember(1, &u, lesser.clone(), 20 * MS, Some(30 * MS), ok());
    h.push_recall(2, &u, query, 1, 100 * MS, 110 * MS, vec![lesser]);
    let judge = |h: &History, by_rank: bool| {
        check_input(&CheckInput {
            rank_by_embedder: by_rank,
            ..CheckInput::new(h, plain())
        })
        .classes()
    };
    assert_eq!(judge(&h, false), vec![]);
    assert_eq!(judge(&h, true), vec![ViolationClass::RecallMiss]);
    // A text that embeds as the query does (case) ties with it: either may be returned.
    let mut tied = History::new();
    let upper = mem("r3", &query.to_uppercase());
    tied.push_remember(1, &u, mem("r1", query), 0, Some(10 * MS), ok());
    tied.push_remember(1, &u, upper.clone(), 20 * MS, Some(30 * MS), ok());
    tied.push_recall(2, &u, query, 1, 100 * MS, 110 * MS, vec![upper]);
    assert_eq!(judge(&tied, true), vec![]);
}

#[test]
fn a_recall_shorter_than_k_while_the_user_held_more_is_a_miss() {
    let u = user("u1");
    let mut h = History::new();
    let ok = Outcome::Ok(OpValue::None);
    h.push_remember(1, &u, mem("r1", "likes tea"), 0, Some(10 * MS), ok.clone());
    h.push_remember(
        1,
        &u,
        mem("r2", "avoids jazz"),
        20 * MS,
        Some(30 * MS),
        ok.clone(),
    );
    // Still in flight at the recall: not certainly held.
    h.push_remember(
        1,
        &u,
        mem("r3", "asked about Rust"),
        40 * MS,
        None,
        unknown(),
    );
    let short = vec![mem("r2", "avoids jazz")];
    h.push_recall(2, &u, "likes tea", 3, 100 * MS, 110 * MS, short);
    let v = check_input(&CheckInput::new(&h, plain()));
    assert_eq!(v.classes(), vec![ViolationClass::RecallMiss]);
    assert_eq!(v.violations[0].message_ids, vec!["r1".to_string()]);
    // Two returned of the two held: nothing missing.
    let mut h = History::new();
    h.push_remember(1, &u, mem("r1", "likes tea"), 0, Some(10 * MS), ok.clone());
    h.push_remember(1, &u, mem("r2", "avoids jazz"), 20 * MS, Some(30 * MS), ok);
    let both = vec![mem("r2", "avoids jazz"), mem("r1", "likes tea")];
    h.push_recall(2, &u, "avoids jazz", 5, 100 * MS, 110 * MS, both);
    assert_pass(&h, plain());
}

#[test]
fn leak_and_corrupt_in_recall_results() {
    let (u1, u2) = (user("u1"), user("u2"));
    let mut h = History::new();
    let ok = Outcome::Ok(OpValue::None);
    h.push_remember(1, &u2, mem("r9", "secret"), 0, Some(10 * MS), ok);
    h.push_recall(
        2,
        &u1,
        "secret",
        1,
        100 * MS,
        110 * MS,
        vec![mem("r9", "secret")],
    );
    assert_eq!(classes(&h, plain()), vec![ViolationClass::Leak]);
    let mut h2 = History::new();
    let ok = Outcome::Ok(OpValue::None);
    h2.push_remember(1, &u1, mem("r1", "naïve café"), 0, Some(10 * MS), ok);
    let garbled = vec![mem("r1", "na?ve caf?")];
    h2.push_recall(2, &u1, "naïve café", 1, 100 * MS, 110 * MS, garbled);
    assert_eq!(classes(&h2, plain()), vec![ViolationClass::Corrupt]);
}

// ---------------------------------------------------------------- index-drift

#[test]
fn a_stale_or_missing_embedding_is_index_drift() {
    let h = History::new();
    let fresh = [0.6, 0.8];
    let quiescence = |embeddings: Vec<crate::domain::IndexedEmbedding>| Quiescence {
        memories_stored: vec!["r1".into(), "r2".into()],
        memories_indexed: vec!["r1".into(), "r2".into()],
        memories_exact: None,
        memory_embeddings: embeddings,
    };
    let judge = |q: &Quiescence| {
        check_input(&CheckInput {
            quiescence: Some(q),
            ..CheckInput::new(&h, plain())
        })
    };
    let compare = crate::domain::IndexedEmbedding::compare;
    let agree = quiescence(vec![
        compare("r1", Some(&fresh), &fresh),
        compare("r2", Some(&fresh), &fresh),
    ]);
    assert!(judge(&agree).is_pass());
    let stale = quiescence(vec![
        compare("r1", Some(&fresh), &fresh),
        compare("r2", Some(&[1.0, 0.0]), &fresh),
    ]);
    let v = judge(&stale);
    assert_eq!(v.classes(), vec![ViolationClass::IndexDrift]);
    assert_eq!(v.violations[0].message_ids, vec!["r2".to_string()]);
    assert!(
        v.violations[0]
            .explanation
            .contains("r2: a vector 0.600 similar"),
        "{}",
        v.violations[0].explanation
    );
    let missing = quiescence(vec![compare("r1", None, &fresh)]);
    assert!(judge(&missing).violations[0]
        .explanation
        .contains("r1: no vector"));
    // A memory no longer stored is the id sets' business, not this rule's.
    let gone = Quiescence {
        memories_stored: vec!["r1".into()],
        memories_indexed: vec!["r1".into()],
        ..quiescence(vec![
            compare("r1", Some(&fresh), &fresh),
            compare("r9", None, &fresh),
        ])
    };
    assert!(judge(&gone).is_pass());
}

#[test]
fn index_drift_at_quiescence() {
    let h = History::new();
    let q = Quiescence {
        memories_stored: vec!["r1".into(), "r2".into()],
        memories_indexed: vec!["r1".into()],
        memories_exact: None,
        memory_embeddings: vec![],
    };
    let input = CheckInput {
        quiescence: Some(&q),
        ..CheckInput::new(&h, plain())
    };
    let v = check_input(&input);
    assert_eq!(v.classes(), vec![ViolationClass::IndexDrift]);
    assert_eq!(v.violations[0].message_ids, vec!["r2".to_string()]);
    let agree = Quiescence {
        memories_stored: vec!["r2".into(), "r1".into()],
        memories_indexed: vec!["r1".into(), "r2".into()],
        memories_exact: None,
        memory_embeddings: vec![],
    };
    let input = CheckInput {
        quiescence: Some(&agree),
        ..CheckInput::new(&h, plain())
    };
    assert!(check_input(&input).is_pass());
}

#[test]
fn an_acked_memory_missing_from_the_store_at_quiescence_is_lost() {
    let u = user("u1");
    let mut h = History::new();
    let ok = Outcome::Ok(OpValue::None);
    h.push_remember(1, &u, mem("r1", "likes tea"), 0, Some(10 * MS), ok.clone());
    h.push_remember(1, &u, mem("r2", "avoids jazz"), 20 * MS, None, unknown());
    let q = Quiescence {
        memories_stored: vec![],
        memories_indexed: vec![],
        memories_exact: None,
        memory_embeddings: vec![],
    };
    let input = CheckInput {
        quiescence: Some(&q),
        ..CheckInput::new(&h, plain())
    };
    let v = check_input(&input);
    assert_eq!(v.classes(), vec![ViolationClass::Lost]);
    assert_eq!(v.violations[0].message_ids, vec!["r1".to_string()]);
    let held = Quiescence {
        memories_stored: vec!["r1".into()],
        memories_indexed: vec!["r1".into()],
        memories_exact: None,
        memory_embeddings: vec![],
    };
    let input = CheckInput {
        quiescence: Some(&held),
        ..CheckInput::new(&h, plain())
    };
    assert!(check_input(&input).is_pass());
}

#[test]
fn index_drift_tells_a_lost_entry_from_a_stale_embedding() {
    let h = History::new();
    let q = Quiescence {
        memories_stored: vec!["r1".into(), "r2".into(), "r3".into()],
        memories_indexed: vec!["r1".into()],
        memories_exact: Some(vec!["r1".into(), "r2".into()]),
        memory_embeddings: vec![],
    };
    let input = CheckInput {
        quiescence: Some(&q),
        ..CheckInput::new(&h, plain())
    };
    let v = check_input(&input);
    assert_eq!(v.classes(), vec![ViolationClass::IndexDrift]);
    let text = &v.violations[0].explanation;
    assert!(text.contains("an exact search finds [r2]"), "{text}");
    assert!(text.contains("not [r3]"), "{text}");
}

// ---------------------------------------------------------------- stuck

fn liveness_history() -> History {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    // Invoked during faults, pending forever.
    h.push_append(1, &s, msg("m2", 1), 100 * MS, None, Outcome::Pending);
    h
}

#[test]
fn stuck_pending_after_quiet_period() {
    let h = liveness_history();
    let spec = LivenessSpec {
        quiet_from_us: 1_000 * MS,
        op_budget_us: 2_000 * MS,
        run_end_us: 10_000 * MS,
        healed_us: 0,
        healed_fault: "",
    };
    let input = CheckInput {
        liveness: Some(spec),
        ..CheckInput::new(&h, plain())
    };
    let v = check_input(&input);
    assert_eq!(v.classes(), vec![ViolationClass::Stuck]);
    assert_eq!(v.violations[0].op_indexes, vec![1]);
}

#[test]
fn near_miss_run_ended_before_budget() {
    let mut h = liveness_history();
    let s = sk("a");
    // Completed late but within its budget.
    h.push_acked_append(1, &s, msg("m3", 2), 1_500 * MS, 2_900 * MS);
    let spec = LivenessSpec {
        quiet_from_us: 1_000 * MS,
        op_budget_us: 2_000 * MS,
        run_end_us: 2_950 * MS,
        healed_us: 0,
        healed_fault: "",
    };
    let input = CheckInput {
        liveness: Some(spec),
        ..CheckInput::new(&h, plain())
    };
    assert!(check_input(&input).is_pass());
}

/// A history with quiet-period context reads of session "a", each `(client, at_ms,
/// outcome)`, after an acked append at 0.
fn quiet_ops(outcomes: &[(u32, u64, Outcome)]) -> History {
    let reads: Vec<_> = outcomes
        .iter()
        .map(|(client, at_ms, outcome)| (*client, "a", *at_ms, outcome.clone()))
        .collect();
    quiet_reads(&reads)
}

/// A history with quiet-period context reads, each `(client, session, at_ms, outcome)`
/// taking 5 ms, after an acked append to session "a" at 0 (which a successful read of
/// "a" returns).
fn quiet_reads(reads: &[(u32, &str, u64, Outcome)]) -> History {
    let mut h = History::new();
    appends(&mut h, &sk("a"), &["m1"], 0);
    for (client, session, at_ms, outcome) in reads {
        let kind = OpKind::Context {
            session: sk(session),
            limit: 10,
        };
        let value = match outcome {
            Outcome::Ok(_) if *session == "a" => Outcome::Ok(OpValue::Messages(vec![msg("m1", 0)])),
            Outcome::Ok(_) => Outcome::Ok(OpValue::Messages(Vec::new())),
            other => other.clone(),
        };
        h.push(*client, kind, at_ms * MS, Some((at_ms + 5) * MS), value);
    }
    h
}

fn recovery_verdict(h: &History, grace_ms: u64) -> Verdict {
    let spec = LivenessSpec {
        quiet_from_us: 1_000 * MS,
        op_budget_us: 5_000 * MS,
        run_end_us: 10_000 * MS,
        healed_us: 900 * MS,
        healed_fault: "reset",
    };
    let policy = Policy {
        recovery_grace_ms: grace_ms,
        ..plain()
    };
    let input = CheckInput {
        liveness: Some(spec),
        ..CheckInput::new(h, policy)
    };
    check_input(&input)
}

fn recovery_classes(h: &History, grace_ms: u64) -> Vec<ViolationClass> {
    recovery_verdict(h, grace_ms).classes()
}

#[test]
fn a_store_that_fails_after_the_faults_healed_is_unavailable() {
    let lost = || Outcome::Unknown("connection lost: broken pipe".into());
    // Client 1 fails, then fails again after its first failure completed: never recovered.
    let h = quiet_ops(&[(1, 1_100, lost()), (1, 1_200, lost())]);
    assert_eq!(recovery_classes(&h, 0), vec![ViolationClass::Unavailable]);
    // A refusal is a failure too.
    let refused = Outcome::Fail("could not connect: refused".into());
    let h = quiet_ops(&[(1, 1_100, lost()), (1, 1_200, refused)]);
    assert_eq!(recovery_classes(&h, 0), vec![ViolationClass::Unavailable]);
    // Past the largest grace a store may declare, any grace is over.
    let late = 1_105 + crate::contract::RECOVERY_GRACE_MS_MAX;
    let h = quiet_ops(&[(1, 1_100, lost()), (1, late, lost())]);
    let grace_ms = crate::contract::RECOVERY_GRACE_MS_MAX;
    assert_eq!(
        recovery_classes(&h, grace_ms),
        vec![ViolationClass::Unavailable]
    );
}

#[test]
fn unavailable_names_the_conversation_its_first_failure_and_the_later_one() {
    let lost = || Outcome::Unknown("connection lost: broken pipe".into());
    let ok = || Outcome::Ok(OpValue::None);
    // Session b on client 2 never recovers; a on client 2 and b on client 1 did.
    let h = quiet_reads(&[
        (2, "b", 1_100, lost()),
        (2, "a", 1_150, lost()),
        (1, "b", 1_160, lost()),
        (2, "a", 1_200, ok()),
        (1, "b", 1_210, ok()),
        (2, "b", 1_300, lost()),
    ]);
    let v = recovery_verdict(&h, 0);
    assert_eq!(v.classes(), vec![ViolationClass::Unavailable]);
    let [violation] = &v.violations[..] else {
        panic!("one conversation relapsed: {:?}", v.violations);
    };
    assert_eq!(violation.subject, Subject::Session(sk("b")));
    assert_eq!(violation.op_indexes, vec![1, 6]);
    let text = &violation.explanation;
    assert!(text.contains("session t1/b on client-2"), "{text}");
    assert!(text.contains("first op 1 context at 1.100 s"), "{text}");
    assert!(text.contains("completed at 1.105 s"), "{text}");
    assert!(text.contains("op 6 context at 1.300 s"), "{text}");
}

#[test]
fn near_misses_of_unavailable_pass() {
    let lost = || Outcome::Unknown("timed out".into());
    let ok = || Outcome::Ok(OpValue::None);
    // The first failure finds the dead connection; the next call is served.
    assert!(recovery_classes(&quiet_ops(&[(1, 1_100, lost()), (1, 1_200, ok())]), 0).is_empty());
    // Failures of different clients are each one's first.
    assert!(recovery_classes(&quiet_ops(&[(1, 1_100, lost()), (2, 1_200, lost())]), 0).is_empty());
    // So are one client's failures of different conversations: a store with a connection
    // per session finds each broken once (a per-session `ConnectionManager`).
    let h = quiet_reads(&[(1, "a", 1_100, lost()), (1, "b", 1_200, lost())]);
    assert!(recovery_classes(&h, 0).is_empty());
    // Before the quiet period, faults may still be at work.
    assert!(recovery_classes(&quiet_ops(&[(1, 500, lost()), (1, 600, lost())]), 0).is_empty());
    // Within the declared grace after the first failure (a breaker still open).
    assert!(
        recovery_classes(&quiet_ops(&[(1, 1_100, lost()), (1, 1_200, lost())]), 500).is_empty()
    );
    // Invoked before the first failure completed: it met the same break.
    assert!(recovery_classes(&quiet_ops(&[(1, 1_100, lost()), (1, 1_102, lost())]), 0).is_empty());
    // An operation the store does not offer is not a failure.
    let unsupported = Outcome::Fail(crate::contract::StoreError::Unsupported.to_string());
    let h = quiet_ops(&[(1, 1_100, unsupported.clone()), (1, 1_200, unsupported)]);
    assert!(recovery_classes(&h, 0).is_empty());
}

#[test]
fn a_user_s_memories_are_a_conversation_of_their_own() {
    let lost = || Outcome::Unknown("connection lost: broken pipe".into());
    let owner = user("u");
    let recall = |h: &mut History, at_ms: u64| {
        let kind = OpKind::Recall {
            user: owner.clone(),
            query: "q".into(),
            k: 1,
        };
        h.push(1, kind, at_ms * MS, Some((at_ms + 5) * MS), lost());
    };
    // Session a's first failure, then the user's first: each excused.
    let mut h = quiet_ops(&[(1, 1_100, lost())]);
    recall(&mut h, 1_200);
    assert!(recovery_classes(&h, 0).is_empty());
    // The user's second failure is not.
    recall(&mut h, 1_300);
    let v = recovery_verdict(&h, 0);
    assert_eq!(v.classes(), vec![ViolationClass::Unavailable]);
    assert_eq!(v.violations[0].subject, Subject::User(owner));
    let text = &v.violations[0].explanation;
    assert!(text.contains("user t1/u's memories on client-1"), "{text}");
}

// ---------------------------------------------------------------- info, serde, determinism

#[test]
fn failed_append_visible_is_info_only() {
    let s = sk("a");
    let mut h = History::new();
    let fail = Outcome::Fail("OOM".into());
    h.push_append(1, &s, msg("m1", 0), 0, Some(10 * MS), fail);
    read(&mut h, &s, 10, 100, &["m1"]);
    let v = check(&h, &plain());
    assert!(v.is_pass());
    assert!(
        matches!(&v.info[..], [Info::FailedAppendVisible { message_id, .. }] if message_id == "m1")
    );
}

#[test]
fn classes_serialize_as_design_names() {
    let names: Vec<String> = [
        ViolationClass::Lost,
        ViolationClass::PrematureExpiry,
        ViolationClass::RecallMiss,
        ViolationClass::IndexDrift,
        ViolationClass::Stuck,
    ]
    .iter()
    .map(|c| serde_json::to_string(c).unwrap())
    .collect();
    assert_eq!(
        names,
        [
            "\"lost\"",
            "\"premature-expiry\"",
            "\"recall-miss\"",
            "\"index-drift\"",
            "\"stuck\""
        ]
    );
}

/// A history with several violations on several sessions.
fn busy_history() -> History {
    let (s1, s2) = (sk("a"), sk("b"));
    let mut h = History::new();
    appends(&mut h, &s1, &["m1", "m2", "m3"], 0);
    appends(&mut h, &s2, &["x1", "x2"], 5);
    h.push_append(1, &s1, msg("m4", 3), 70 * MS, Some(80 * MS), unknown());
    read(&mut h, &s1, 10, 100, &["m3", "m2", "x1"]);
    read(&mut h, &s2, 10, 100, &["x1", "x1"]);
    h.push_restart(wiped(150));
    read(&mut h, &s2, 10, 200, &[]);
    h
}

#[test]
fn verdict_independent_of_op_insertion_order() {
    let h = busy_history();
    let expected = check(&h, &plain());
    assert_eq!(
        expected.classes(),
        vec![
            ViolationClass::Lost,
            ViolationClass::Duplicate,
            ViolationClass::Reorder,
            ViolationClass::Leak
        ]
    );
    let mut reversed = h.clone();
    reversed.ops.reverse();
    reversed.restarts.reverse();
    let mut rotated = h.clone();
    rotated.ops.rotate_left(4);
    for other in [reversed, rotated] {
        let v = check(&other, &plain());
        assert_eq!(v, expected);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            serde_json::to_string(&expected).unwrap()
        );
    }
}

#[test]
fn history_round_trips_through_json() {
    let h = busy_history();
    let json = serde_json::to_string(&h).unwrap();
    let back: History = serde_json::from_str(&json).unwrap();
    assert_eq!(back, h);
    assert_eq!(check(&back, &plain()), check(&h, &plain()));
}

// ---------------------------------------------------------------- generated correct runs

/// A correct store, simulated: every append is applied at a seeded instant inside its
/// [invoke, complete] window (unknown ones maybe later, maybe never), every read
/// observes one instant of its window, with sliding TTL, trimming, keep-first and wipes.
/// The checker must find nothing on any of these runs.
mod generated {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    enum Event {
        Apply(Message),
        Observe {
            op: usize,
            limit: usize,
        },
        /// Redis restarts and comes back without what was applied from `lost_from_us` on.
        Restart {
            lost_from_us: Option<u64>,
        },
    }

    struct Model {
        policy: Policy,
        list: Vec<Message>,
        expire_at_us: u64,
        /// The state after each apply: what a restart recovers.
        applied: Vec<(u64, Vec<Message>, u64)>,
    }

    impl Model {
        fn restart(&mut self, now_us: u64, lost_from_us: Option<u64>) {
            let Some(lost_from_us) = lost_from_us else {
                return;
            };
            let kept = self
                .applied
                .partition_point(|(at_us, ..)| *at_us < lost_from_us);
            (self.list, self.expire_at_us) = match kept.checked_sub(1) {
                Some(i) => (self.applied[i].1.clone(), self.applied[i].2),
                None => (Vec::new(), u64::MAX),
            };
            self.tick(now_us);
        }

        fn tick(&mut self, now_us: u64) {
            if self.expire_at_us <= now_us {
                self.list.clear();
                self.expire_at_us = u64::MAX;
            }
        }

        fn apply(&mut self, now_us: u64, msg: Message) {
            self.list.push(msg);
            if let Some(max) = self.policy.messages_max {
                while self.list.len() > max {
                    let at = usize::from(self.policy.keep_first);
                    self.list.remove(at);
                }
            }
            if let TtlPolicy::Sliding { ttl_ms } = self.policy.ttl {
                self.expire_at_us = now_us + ttl_ms * MS;
            }
            self.applied
                .push((now_us, self.list.clone(), self.expire_at_us));
        }

        fn observe(&self, limit: usize) -> Vec<Message> {
            let n = self.list.len();
            if self.policy.keep_first && n > limit + 1 {
                let mut out = vec![self.list[0].clone()];
                out.extend_from_slice(&self.list[n - limit..]);
                return out;
            }
            if !self.policy.keep_first && n > limit {
                return self.list[n - limit..].to_vec();
            }
            self.list.clone()
        }
    }

    /// A restart's fact: no persistence, an fsync up to 1.5 s before, or every write.
    fn restart_fact(rng: &mut ChaCha8Rng, at_us: u64) -> Restart {
        let (persistence, kept) = match rng.random_range(0..3) {
            0 => (Persistence::None, Kept::Nothing),
            1 => {
                let before_us = at_us.saturating_sub(rng.random_range(0..1_500) * MS);
                let kept = Kept::AppliedBefore {
                    before_us,
                    observed: true,
                };
                (Persistence::AofEverysec, kept)
            }
            _ => (Persistence::AofAlways, Kept::Everything),
        };
        Restart {
            at_us,
            persistence,
            kept,
            backend: crate::domain::Backend::Redis,
        }
    }

    /// A run of a correct store; with `amnesiac`, every restart wipes the store whatever
    /// Redis kept (a store that loses history older than the durable point).
    fn run(seed: u64, policy: Policy) -> History {
        run_with(seed, policy, false)
    }

    fn run_with(seed: u64, policy: Policy, amnesiac: bool) -> History {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = sk("gen");
        let mut h = History::new();
        let mut events: Vec<(u64, usize, Event)> = Vec::new();
        let mut t_us = 0;
        for i in 0..60u64 {
            t_us += rng.random_range(0..300) * MS;
            let dur_us = rng.random_range(1..80) * MS;
            let apply_us = t_us + rng.random_range(0..=dur_us);
            let order = events.len();
            match rng.random_range(0..10) {
                0..=5 => {
                    let m = msg(&format!("g{i}"), i);
                    h.push_acked_append(1, &s, m.clone(), t_us, t_us + dur_us);
                    events.push((apply_us, order, Event::Apply(m)));
                }
                6 => {
                    let m = msg(&format!("g{i}"), i);
                    let outcome = if rng.random_bool(0.5) {
                        unknown()
                    } else {
                        Outcome::Pending
                    };
                    let done = matches!(outcome, Outcome::Unknown(_)).then_some(t_us + dur_us);
                    h.push_append(1, &s, m.clone(), t_us, done, outcome);
                    if rng.random_bool(0.5) {
                        let late_us = apply_us + rng.random_range(0..2_000) * MS;
                        events.push((late_us, order, Event::Apply(m)));
                    }
                }
                _ => {
                    let limit = rng.random_range(0..6);
                    let op = h.push_context(2, &s, limit, t_us, t_us + dur_us, vec![]);
                    events.push((apply_us, order, Event::Observe { op, limit }));
                }
            }
            if rng.random_range(0..40) == 0 {
                let at_us = t_us + rng.random_range(0..100) * MS;
                let fact = restart_fact(&mut rng, at_us);
                h.push_restart(fact);
                let promised = policy.durability.may_lose_from_us(at_us);
                let lost_from_us = match (amnesiac, fact.lost_from_us(), promised) {
                    (true, ..) => Some(0),
                    (false, Some(a), Some(b)) => Some(a.min(b)),
                    (false, a, b) => a.or(b),
                };
                events.push((at_us, usize::MAX, Event::Restart { lost_from_us }));
            }
        }
        events.sort_by_key(|(at_us, order, _)| (*at_us, *order));
        let mut model = Model {
            policy,
            list: Vec::new(),
            expire_at_us: u64::MAX,
            applied: Vec::new(),
        };
        for (at_us, _, event) in events {
            model.tick(at_us);
            match event {
                Event::Apply(m) => model.apply(at_us, m),
                Event::Restart { lost_from_us } => model.restart(at_us, lost_from_us),
                Event::Observe { op, limit } => {
                    let seen = model.observe(limit);
                    let read = h.ops.iter_mut().find(|o| o.index == op).unwrap();
                    read.outcome = Outcome::Ok(OpValue::Messages(seen));
                }
            }
        }
        h
    }

    fn policies() -> Vec<Policy> {
        let base = plain();
        vec![
            base,
            with_ttl(1_000),
            Policy {
                keep_first: true,
                summarizes: false,
                ..with_ttl(2_000)
            },
            Policy {
                messages_max: Some(4),
                ..base
            },
            Policy {
                messages_max: Some(5),
                keep_first: true,
                summarizes: false,
                ..with_ttl(1_500)
            },
            Policy {
                durability: Durability::Volatile,
                ..with_ttl(3_000)
            },
            Policy {
                durability: Durability::Volatile,
                keep_first: true,
                summarizes: false,
                ..base
            },
        ]
    }

    #[test]
    fn correct_store_never_flagged() {
        for (p, policy) in policies().into_iter().enumerate() {
            for seed in 0..300 {
                let h = run(seed, policy);
                let v = check(&h, &policy);
                assert!(v.is_pass(), "policy {p} seed {seed}: {:#?}", v.violations);
            }
        }
    }

    #[test]
    fn dropping_an_acked_message_is_caught_somewhere() {
        // Sanity that the generated runs exercise the rules: remove the newest entry of
        // every read that has one (a write-behind-like loss) and expect violations.
        let policy = plain();
        let mut caught = 0;
        for seed in 0..50 {
            let mut h = run(seed, policy);
            for op in &mut h.ops {
                if let Outcome::Ok(OpValue::Messages(ms)) = &mut op.outcome {
                    ms.pop();
                }
            }
            caught += usize::from(!check(&h, &policy).is_pass());
        }
        assert!(caught > 25, "caught only {caught} of 50");
    }

    #[test]
    fn losing_history_older_than_the_durable_point_is_caught() {
        // The amnesiac store wipes at every restart. Where Redis kept data and the store
        // promised to keep it, that is a violation the checker must find.
        let policy = plain();
        let (mut restarted, mut caught) = (0, 0);
        for seed in 0..300 {
            let h = run_with(seed, policy, true);
            let loses = h.restarts.iter().any(|r| r.lost_from_us() != Some(0));
            restarted += usize::from(loses);
            caught += usize::from(!check(&h, &policy).is_pass());
            assert!(loses || check(&h, &policy).is_pass(), "seed {seed}");
        }
        assert!(
            restarted > 50,
            "only {restarted} runs restart with persistence"
        );
        assert!(
            caught * 2 > restarted,
            "caught {caught} of {restarted} amnesiac runs"
        );
    }
}

// ------------------------------------------------- retries, overlaps, erases, revisions

fn acked() -> Outcome {
    Outcome::Ok(OpValue::None)
}

fn clear(h: &mut History, s: &SessionKey, at_ms: u64) -> usize {
    let kind = OpKind::Clear { session: s.clone() };
    h.push(1, kind, at_ms * MS, Some((at_ms + 10) * MS), acked())
}

fn delete(h: &mut History, s: &SessionKey, id: &str, at_ms: u64, outcome: Outcome) -> usize {
    let kind = OpKind::Delete {
        session: s.clone(),
        id: id.into(),
    };
    h.push(1, kind, at_ms * MS, Some((at_ms + 10) * MS), outcome)
}

#[test]
fn a_retried_message_shows_once() {
    let s = sk("a");
    let mut h = History::new();
    // The first send times out, the retry is acked: one message.
    h.push_append(1, &s, msg("m1", 0), 0, Some(10 * MS), unknown());
    h.push_acked_append(2, &s, msg("m1", 0), 5 * MS, 15 * MS);
    read(&mut h, &s, 10, 100, &["m1"]);
    assert_pass(&h, plain());
    read(&mut h, &s, 10, 200, &["m1", "m1"]);
    assert_eq!(classes(&h, plain()), [ViolationClass::Duplicate]);
}

#[test]
fn a_retried_message_that_was_acked_must_be_present() {
    let s = sk("a");
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m1", 0), 0, 10 * MS);
    h.push_append(2, &s, msg("m1", 0), 5 * MS, Some(15 * MS), unknown());
    appends(&mut h, &s, &["m2"], 20);
    read(&mut h, &s, 10, 100, &["m2"]);
    let v = check(&h, &plain());
    assert_eq!(v.classes(), [ViolationClass::Lost]);
    assert_eq!(v.violations[0].message_ids, ["m1"]);
}

#[test]
fn near_miss_a_retry_may_move_its_message_after_a_later_one() {
    // A store that drops the earlier copy and pushes again keeps the message where its
    // last copy landed: the order of a retried id is not judged.
    let s = sk("a");
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m1", 0), 0, 10 * MS);
    appends(&mut h, &s, &["m2"], 20);
    h.push_acked_append(2, &s, msg("m1", 0), 50 * MS, 60 * MS);
    read(&mut h, &s, 10, 100, &["m2", "m1"]);
    read(&mut h, &s, 1, 200, &["m1"]);
    assert_pass(&h, plain());
}

#[test]
fn concurrent_appends_may_land_in_either_order_but_once_for_all_readers() {
    let s = sk("a");
    let mut h = History::new();
    h.push_acked_append(1, &s, msg("m1", 0), 0, 30 * MS);
    h.push_acked_append(2, &s, msg("m2", 1), 10 * MS, 20 * MS);
    read(&mut h, &s, 10, 100, &["m2", "m1"]);
    assert_pass(&h, plain());
    read(&mut h, &s, 10, 200, &["m1", "m2"]);
    assert_eq!(classes(&h, plain()), [ViolationClass::Reorder]);
}

#[test]
fn a_concurrent_read_may_or_may_not_see_an_append() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    h.push_acked_append(1, &s, msg("m2", 1), 100 * MS, 130 * MS);
    read(&mut h, &s, 10, 105, &["m1"]);
    read(&mut h, &s, 10, 110, &["m1", "m2"]);
    assert_pass(&h, plain());
}

#[test]
fn a_cleared_message_may_be_missing_and_must_not_come_back() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    let c = clear(&mut h, &s, 100);
    read(&mut h, &s, 10, 105, &["m1", "m2"]); // concurrent with the clear
    read(&mut h, &s, 10, 200, &[]);
    assert_pass(&h, plain());
    let r = read(&mut h, &s, 10, 300, &["m2"]);
    let v = check(&h, &plain());
    assert_eq!(v.classes(), [ViolationClass::Zombie]);
    assert_eq!(v.violations[0].message_ids, ["m2"]);
    assert!(v.violations[0].op_indexes.contains(&c) && v.violations[0].op_indexes.contains(&r));
}

#[test]
fn a_message_appended_after_a_clear_is_judged_as_ever() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1"], 0);
    clear(&mut h, &s, 100);
    appends(&mut h, &s, &["m2"], 200);
    read(&mut h, &s, 10, 300, &["m2"]);
    assert_pass(&h, plain());
    read(&mut h, &s, 10, 400, &[]);
    assert_eq!(classes(&h, plain()), [ViolationClass::Lost]);
}

#[test]
fn a_deleted_message_must_not_come_back_unless_the_delete_is_unknown() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    delete(&mut h, &s, "m1", 100, unknown());
    read(&mut h, &s, 10, 200, &["m1", "m2"]);
    read(&mut h, &s, 10, 210, &["m2"]);
    assert_pass(&h, plain());
    delete(&mut h, &s, "m1", 300, acked());
    read(&mut h, &s, 10, 400, &["m2"]);
    assert_pass(&h, plain());
    read(&mut h, &s, 10, 500, &["m1", "m2"]);
    assert_eq!(classes(&h, plain()), [ViolationClass::Zombie]);
}

#[test]
fn a_delete_excuses_only_its_own_message() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    delete(&mut h, &s, "m1", 100, acked());
    read(&mut h, &s, 10, 200, &[]);
    let v = check(&h, &plain());
    assert_eq!(v.classes(), [ViolationClass::Lost]);
    assert_eq!(v.violations[0].message_ids, ["m2"]);
}

#[test]
fn a_restart_that_may_have_lost_a_delete_excuses_its_resurrection() {
    let s = sk("a");
    let mut h = History::new();
    appends(&mut h, &s, &["m1", "m2"], 0);
    delete(&mut h, &s, "m1", 1_000, acked());
    // AOF everysec: the last fsync before the crash was before the delete.
    h.restarts.push(synced(1_500, 900));
    read(&mut h, &s, 10, 2_000, &["m1", "m2"]);
    assert_pass(&h, plain());
}

fn update(h: &mut History, u: &UserKey, m: Memory, at_ms: u64) -> usize {
    let kind = OpKind::UpdateMemory {
        user: u.clone(),
        memory: m,
    };
    h.push(1, kind, at_ms * MS, Some((at_ms + 10) * MS), acked())
}

fn forget(h: &mut History, u: &UserKey, id: &str, at_ms: u64) -> usize {
    let kind = OpKind::Forget {
        user: u.clone(),
        id: id.into(),
    };
    h.push(1, kind, at_ms * MS, Some((at_ms + 10) * MS), acked())
}

fn recall_of(h: &mut History, u: &UserKey, query: &str, at_ms: u64, found: Vec<Memory>) -> usize {
    let kind = OpKind::Recall {
        user: u.clone(),
        query: query.into(),
        k: 3,
    };
    let outcome = Outcome::Ok(OpValue::Memories(found));
    h.push(2, kind, at_ms * MS, Some((at_ms + 10) * MS), outcome)
}

#[test]
fn an_updated_memory_is_recalled_in_its_new_form_only() {
    let u = user("a");
    let mut h = History::new();
    h.push_remember(1, &u, mem("k1", "likes tea"), 0, Some(10 * MS), acked());
    update(&mut h, &u, mem("k1", "likes coffee"), 100);
    // Concurrent with the update: either form.
    recall_of(&mut h, &u, "likes tea", 105, vec![mem("k1", "likes tea")]);
    recall_of(
        &mut h,
        &u,
        "likes coffee",
        200,
        vec![mem("k1", "likes coffee")],
    );
    assert_pass(&h, plain());
    let stale = recall_of(&mut h, &u, "likes tea", 300, vec![mem("k1", "likes tea")]);
    let v = check(&h, &plain());
    assert_eq!(v.classes(), [ViolationClass::Zombie]);
    assert!(v.violations[0].op_indexes.contains(&stale));
}

#[test]
fn an_update_must_be_found_by_its_new_text() {
    let u = user("a");
    let mut h = History::new();
    h.push_remember(1, &u, mem("k1", "likes tea"), 0, Some(10 * MS), acked());
    update(&mut h, &u, mem("k1", "likes coffee"), 100);
    recall_of(&mut h, &u, "likes coffee", 200, vec![]);
    assert_eq!(classes(&h, plain()), [ViolationClass::RecallMiss]);
}

#[test]
fn a_forgotten_memory_may_not_be_recalled_or_held() {
    let u = user("a");
    let mut h = History::new();
    h.push_remember(1, &u, mem("k1", "likes tea"), 0, Some(10 * MS), acked());
    forget(&mut h, &u, "k1", 100);
    recall_of(&mut h, &u, "likes tea", 200, vec![]);
    let judge = |q: &Quiescence| {
        check_input(&CheckInput {
            quiescence: Some(q),
            ..CheckInput::new(&h, plain())
        })
    };
    assert!(judge(&Quiescence::default()).is_pass());
    let held = Quiescence {
        memories_stored: vec!["k1".into()],
        memories_indexed: vec!["k1".into()],
        memories_exact: None,
        memory_embeddings: vec![],
    };
    assert_eq!(judge(&held).classes(), [ViolationClass::IndexDrift]);
    recall_of(&mut h, &u, "likes tea", 300, vec![mem("k1", "likes tea")]);
    assert_eq!(classes(&h, plain()), [ViolationClass::Zombie]);
}

#[test]
fn a_memory_shows_once_however_often_it_was_written() {
    let u = user("a");
    let mut h = History::new();
    h.push_remember(1, &u, mem("k1", "likes tea"), 0, Some(10 * MS), acked());
    update(&mut h, &u, mem("k1", "likes tea"), 100);
    recall_of(&mut h, &u, "likes tea", 200, vec![mem("k1", "likes tea")]);
    assert_pass(&h, plain());
    let twice = vec![mem("k1", "likes tea"), mem("k1", "likes tea")];
    recall_of(&mut h, &u, "likes tea", 300, twice);
    assert_eq!(classes(&h, plain()), [ViolationClass::Duplicate]);
}

#[test]
fn a_memory_updated_after_it_was_forgotten_is_back_in_its_new_form() {
    let u = user("a");
    let mut h = History::new();
    h.push_remember(1, &u, mem("k1", "likes tea"), 0, Some(10 * MS), acked());
    forget(&mut h, &u, "k1", 100);
    update(&mut h, &u, mem("k1", "likes coffee"), 200);
    recall_of(
        &mut h,
        &u,
        "likes coffee",
        300,
        vec![mem("k1", "likes coffee")],
    );
    assert_pass(&h, plain());
    recall_of(&mut h, &u, "likes coffee", 400, vec![]);
    assert_eq!(classes(&h, plain()), [ViolationClass::RecallMiss]);
}

/// An explanation names the session's keys Redis expired, in seconds; the verdict is the
/// one without them (words only), and another session's or a longer id's key is not named.
#[test]
fn explanations_name_the_keys_redis_expired() {
    let mut history = History::new();
    history.push_acked_append(0, &sk("s1"), msg("m1", 0), 0, MS);
    history.push_context(1, &sk("s1"), 10, 8_923 * MS, 8_927 * MS, vec![]);
    let without = check(&history, &plain());
    for (at_us, key) in [
        (2_500 * MS, "chat:v1:t1:s1:messages"),
        (2_600 * MS, "chat:v1:t1:s11:messages"),
        (2_700 * MS, "chat:v1:t2:s1:messages"),
    ] {
        history.expiries.push(crate::history::KeyExpiry {
            at_us,
            key: key.into(),
        });
    }
    let verdict = check(&history, &plain());
    assert_eq!(verdict.classes(), without.classes());
    let explanation = &verdict.violations[0].explanation;
    assert_eq!(
        explanation,
        "read at 8.923..8.927 s (limit 10) is missing m1: acked before the read, within the \
         limit window, not trimmable and not expired; yet Redis expired them: key \
         chat:v1:t1:s1:messages expired at 2.500 s"
    );
    assert!(!without.violations[0].explanation.contains("expired at"));
}

fn eviction_at(at_us: u64, key: &str) -> crate::history::KeyEviction {
    crate::history::KeyEviction {
        at_us,
        key: key.into(),
        policy: "allkeys-lru".into(),
        used_memory_bytes: 1_203_456,
        maxmemory_bytes: 1_200_000,
    }
}

/// A message gone with its session's evicted key is `evicted` for a store that forbids
/// eviction, with the key, the policy and the figures; for one that tolerates it, a note.
#[test]
fn a_loss_an_eviction_explains_is_evicted_unless_tolerated() {
    let mut history = History::new();
    history.push_acked_append(0, &sk("s1"), msg("m1", 0), 0, MS);
    history.push_context(1, &sk("s1"), 10, 8_923 * MS, 8_927 * MS, vec![]);
    history
        .evictions
        .push(eviction_at(2_500 * MS, "chat:v1:t1:s1:messages"));
    let verdict = check(&history, &plain());
    assert_eq!(verdict.classes(), [ViolationClass::Evicted]);
    assert_eq!(
        verdict.violations[0].explanation,
        "read at 8.923..8.927 s (limit 10) is missing m1: Redis evicted key \
         chat:v1:t1:s1:messages at 2.500 s under allkeys-lru (used_memory 1203456 > \
         maxmemory 1200000), and the store's policy forbids eviction (Eviction::Forbidden)"
    );
    let tolerant = Policy {
        eviction: crate::contract::Eviction::Tolerated,
        ..plain()
    };
    let verdict = check(&history, &tolerant);
    assert!(verdict.is_pass(), "{verdict:?}");
    assert!(matches!(
        &verdict.info[..],
        [Info::Evicted { key, message_ids, .. }] if key == "chat:v1:t1:s1:messages" && message_ids == &["m1"]
    ));
}

/// An eviction explains only what was written before it, of the same session: a key
/// evicted before the append, or another session's, leaves the loss `lost`.
#[test]
fn an_eviction_before_the_write_or_of_another_session_explains_nothing() {
    let mut history = History::new();
    history.push_acked_append(0, &sk("s1"), msg("m1", 0), 3_000 * MS, 3_001 * MS);
    history.push_context(1, &sk("s1"), 10, 8_923 * MS, 8_927 * MS, vec![]);
    history
        .evictions
        .push(eviction_at(2_500 * MS, "chat:v1:t1:s1:messages"));
    history
        .evictions
        .push(eviction_at(4_000 * MS, "chat:v1:t1:s11:messages"));
    let tolerant = Policy {
        eviction: crate::contract::Eviction::Tolerated,
        ..plain()
    };
    assert_eq!(check(&history, &tolerant).classes(), [ViolationClass::Lost]);
    assert_eq!(check(&history, &plain()).classes(), [ViolationClass::Lost]);
}

/// A memory gone at quiescence with its user's evicted key is `evicted`.
#[test]
fn a_memory_gone_with_an_evicted_key_is_evicted() {
    let u = user("a");
    let mut h = History::new();
    h.push_remember(1, &u, mem("k1", "likes tea"), 0, Some(10 * MS), acked());
    h.evictions.push(eviction_at(500 * MS, "mem:t1:a:index"));
    let input = CheckInput {
        quiescence: Some(&Quiescence::default()),
        ..CheckInput::new(&h, plain())
    };
    let verdict = check_input(&input);
    assert_eq!(verdict.classes(), [ViolationClass::Evicted]);
}
