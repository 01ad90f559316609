//! Coverage of one run: which of the situations that rare bugs need the run reached, and
//! how often. Derived after the run from what the world recorded (the history's
//! invocation and completion times and outcomes, its restarts and key expiries, the plan's
//! fault windows, Redis's replies on the wire) and from the store's own
//! [`sometimes!`](crate::sometimes!) points. It judges nothing: a sweep reports the points
//! no run reached, and the guided search keeps the plans that reach rare ones.
//!
//! Two operations are *in flight together* when each was invoked before the other
//! completed (a pending operation never completes). A *write* is an append, clear,
//! delete, remember, memory update or forget.

use crate::domain::Backend;
use crate::history::{History, Op, OpKind, Outcome};
use crate::plan::{FaultKind, Plan};
use crate::trace::Trace;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Every coverage point amnesia derives, with what reaching it means.
pub const POINTS: &[(&str, &str)] = &[
    (
        "session.ops-in-flight",
        "two operations of one session in flight together",
    ),
    (
        "session.appends-in-flight",
        "two appends of different messages to one session in flight together",
    ),
    (
        "session.retry-races-original",
        "two sends of one message to one session in flight together",
    ),
    (
        "session.read-races-append",
        "a context read in flight with an append to its session",
    ),
    (
        "session.clear-races-append",
        "a clear in flight with an append to its session",
    ),
    (
        "session.delete-races-append",
        "a delete in flight with an append to its session",
    ),
    (
        "session.erase-after-slow-append",
        "a clear or delete invoked within 5 s after an append to its session that took over 1 s",
    ),
    (
        "user.ops-in-flight",
        "two memory operations of one user in flight together",
    ),
    (
        "user.writes-in-flight",
        "two memory writes (remember, update, forget) of one user in flight together",
    ),
    (
        "user.remember-races-recall",
        "a remember in flight with a recall of its user",
    ),
    (
        "user.update-races-recall",
        "a memory update in flight with a recall of its user",
    ),
    (
        "user.forget-races-recall",
        "a forget in flight with a recall of its user",
    ),
    (
        "restart.write-in-flight",
        "Redis restarted with a write in flight",
    ),
    (
        "reset.write-in-flight",
        "a client's connections were reset with a write of it in flight",
    ),
    (
        "crash.write-in-flight",
        "a client process crashed with a write of it in flight",
    ),
    (
        "partition.write-in-flight",
        "a partition of a client's link overlapped a write of it",
    ),
    (
        "silent-drop.write-in-flight",
        "a client's connections were silently dropped with a write of it in flight",
    ),
    ("pause.write-in-flight", "a Redis pause overlapped a write"),
    (
        "write.unknown",
        "a write ended unknown (a timeout or a broken connection)",
    ),
    ("write.failed", "a write failed"),
    ("op.pending-at-end", "an operation never completed"),
    (
        "redis.exec-aborted",
        "Redis answered an EXEC with nil: a watched key had changed",
    ),
    ("redis.key-expired", "Redis expired a key by its TTL"),
    (
        "postgres.serialization-failure",
        "PostgreSQL failed a statement with 40001: a concurrent update under REPEATABLE READ",
    ),
    (
        "postgres.deadlock",
        "PostgreSQL failed a statement with 40P01: the victim of a deadlock",
    ),
    (
        "postgres.backend-terminated",
        "PostgreSQL ended a session with 57P01 (an administrator's pg_terminate_backend)",
    ),
    (
        "postgres.too-many-clients",
        "PostgreSQL refused a connection with 53300: every connection slot taken",
    ),
    (
        "postgres.lock-timeout",
        "PostgreSQL failed a statement with 55P03: a lock not obtained within lock_timeout",
    ),
    (
        "postgres.statement-timeout",
        "PostgreSQL canceled a statement with 57014: statement_timeout, or a cancel request",
    ),
];

/// The points that can be reached on `backend`'s servers, in [`POINTS`]' order: a
/// server's own points (`redis.*`, `postgres.*`) only where that server runs, so a
/// pgvector sweep never lists Redis's as never reached.
///
/// ```
/// use amnesia::{coverage::points_for, Backend};
/// assert!(points_for(Backend::Redis).all(|(name, _)| !name.starts_with("postgres.")));
/// assert!(points_for(Backend::Pgvector).all(|(name, _)| !name.starts_with("redis.")));
/// assert!(points_for(Backend::Pgvector).any(|(name, _)| *name == "postgres.deadlock"));
/// ```
pub fn points_for(backend: Backend) -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    let servers = backend.servers();
    POINTS
        .iter()
        .filter(move |(name, _)| match name.split_once('.') {
            Some(("redis", _)) => servers.contains(&Backend::Redis),
            Some(("postgres", _)) => servers.contains(&Backend::Pgvector),
            _ => true,
        })
}

/// The coverage of one run: each point reached, with how many times.
///
/// ```
/// use amnesia::{Builder, Store};
/// let report = Builder::new().store(Store::named("reference").unwrap()).run(4);
/// // Seed 4 runs the impolite workload under every fault class.
/// assert!(report.coverage.points.contains_key("session.read-races-append"));
/// assert!(report.coverage.points.keys().all(|point| amnesia::coverage::POINTS
///     .iter()
///     .any(|(name, _)| name == point)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// amnesia's points ([`POINTS`]) the run reached, each with how many times.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub points: BTreeMap<String, u64>,
    /// The store's `sometimes!` points the run reached, each with how many times.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sometimes: BTreeMap<String, u64>,
}

impl Coverage {
    /// The coverage of a run of `plan` that recorded `history` and `trace`; `sometimes`
    /// the store's points it reached.
    pub(crate) fn derive(
        plan: &Plan,
        history: &History,
        trace: &Trace,
        sometimes: BTreeMap<String, u64>,
    ) -> Coverage {
        let mut tally = Tally::default();
        races(history, &mut tally);
        erase_after_slow_append(history, &mut tally);
        faults_in_flight(plan, history, &mut tally);
        outcomes(history, &mut tally);
        tally.add("redis.key-expired", history.expiries.len() as u64);
        tally.add("redis.exec-aborted", exec_aborts(trace));
        let errors = postgres::error_codes(trace);
        for (point, code) in postgres::POINT_CODES {
            tally.add(point, errors.get(code).copied().unwrap_or(0));
        }
        Coverage {
            points: tally.0,
            sometimes,
        }
    }

    /// Each point reached, amnesia's and the store's (`sometimes:NAME`), with its count.
    pub fn all(&self) -> impl Iterator<Item = (String, u64)> + '_ {
        let own = self.points.iter().map(|(k, v)| (k.clone(), *v));
        let store = self
            .sometimes
            .iter()
            .map(|(k, v)| (format!("sometimes:{k}"), *v));
        own.chain(store)
    }
}

#[derive(Default)]
struct Tally(BTreeMap<String, u64>);

impl Tally {
    fn add(&mut self, point: &'static str, count: u64) {
        if count > 0 {
            *self.0.entry(point.to_string()).or_default() += count;
        }
    }
}

/// When `op` stops being in flight: its completion, or never.
fn end_us(op: &Op) -> u64 {
    op.complete_us.unwrap_or(u64::MAX)
}

fn is_write(kind: &OpKind) -> bool {
    !matches!(kind, OpKind::Context { .. } | OpKind::Recall { .. })
}

/// Whose operation it is: a session's or a user's, as one key.
fn subject(kind: &OpKind) -> (bool, String) {
    match kind {
        OpKind::Append { session, .. }
        | OpKind::Context { session, .. }
        | OpKind::Clear { session }
        | OpKind::Delete { session, .. } => (true, format!("{session:?}")),
        OpKind::Remember { user, .. }
        | OpKind::UpdateMemory { user, .. }
        | OpKind::Forget { user, .. }
        | OpKind::Recall { user, .. } => (false, format!("{user:?}")),
    }
}

/// Every pair of operations of one subject in flight together, named by their kinds.
fn races(history: &History, tally: &mut Tally) {
    let mut by_subject: BTreeMap<(bool, String), Vec<&Op>> = BTreeMap::new();
    for op in &history.ops {
        by_subject.entry(subject(&op.kind)).or_default().push(op);
    }
    for ops in by_subject.values_mut() {
        ops.sort_by_key(|op| (op.invoke_us, op.index));
        for (i, first) in ops.iter().enumerate() {
            let later = ops[i + 1..].iter();
            for second in later.take_while(|op| op.invoke_us < end_us(first)) {
                if second.invoke_us < end_us(first) && first.invoke_us < end_us(second) {
                    race(&first.kind, &second.kind, tally);
                }
            }
        }
    }
}

fn race(a: &OpKind, b: &OpKind, tally: &mut Tally) {
    use OpKind::*;
    let session = matches!(
        a,
        Append { .. } | Context { .. } | Clear { .. } | Delete { .. }
    );
    tally.add(
        if session {
            "session.ops-in-flight"
        } else {
            "user.ops-in-flight"
        },
        1,
    );
    let point = match (a, b) {
        (Append { msg: x, .. }, Append { msg: y, .. }) if x.id == y.id => {
            "session.retry-races-original"
        }
        (Append { .. }, Append { .. }) => "session.appends-in-flight",
        (Context { .. }, Append { .. }) | (Append { .. }, Context { .. }) => {
            "session.read-races-append"
        }
        (Clear { .. }, Append { .. }) | (Append { .. }, Clear { .. }) => {
            "session.clear-races-append"
        }
        (Delete { .. }, Append { .. }) | (Append { .. }, Delete { .. }) => {
            "session.delete-races-append"
        }
        (UpdateMemory { .. }, Recall { .. }) | (Recall { .. }, UpdateMemory { .. }) => {
            "user.update-races-recall"
        }
        (Forget { .. }, Recall { .. }) | (Recall { .. }, Forget { .. }) => {
            "user.forget-races-recall"
        }
        (Remember { .. }, Recall { .. }) | (Recall { .. }, Remember { .. }) => {
            "user.remember-races-recall"
        }
        _ if !session && is_write(a) && is_write(b) => "user.writes-in-flight",
        _ => return,
    };
    tally.add(point, 1);
}

/// An append slower than this is slow.
const SLOW_APPEND_US: u64 = 1_000_000;
/// An erase this soon after a slow append's completion follows it.
const ERASE_AFTER_US: u64 = 5_000_000;

/// A clear or delete invoked soon after a slow append to its session completed: where a
/// store's background resend of that append lands after the erase.
fn erase_after_slow_append(history: &History, tally: &mut Tally) {
    let mut slow: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for op in &history.ops {
        if let (OpKind::Append { session, .. }, Some(done)) = (&op.kind, op.complete_us) {
            if done - op.invoke_us.min(done) > SLOW_APPEND_US {
                slow.entry(format!("{session:?}")).or_default().push(done);
            }
        }
    }
    for op in &history.ops {
        let (OpKind::Clear { session } | OpKind::Delete { session, .. }) = &op.kind else {
            continue;
        };
        let Some(dones) = slow.get(&format!("{session:?}")) else {
            continue;
        };
        let follows = |done: &u64| (*done..=done + ERASE_AFTER_US).contains(&op.invoke_us);
        tally.add(
            "session.erase-after-slow-append",
            dones.iter().filter(|done| follows(done)).count() as u64,
        );
    }
}

/// Whether `op` was in flight when a fault struck at `us`: invoked by then and still
/// running after it, or cut by it. A crash, reset or restart ends the writes it cuts at
/// its own microsecond, unknown (or failed) and never acknowledged, so `us < end` alone
/// would miss every one of them. A write that failed at that instant having been invoked
/// at it too was refused (the client already down), never in flight, unless its outcome
/// is unknown: then it may have been sent.
fn in_flight_at(op: &Op, us: u64) -> bool {
    let running = op.invoke_us <= us && us < end_us(op);
    let cut = op.complete_us == Some(us)
        && match op.outcome {
            Outcome::Unknown(_) => op.invoke_us <= us,
            Outcome::Fail(_) => op.invoke_us < us,
            Outcome::Ok(_) | Outcome::Pending => false,
        };
    running || cut
}

/// Writes in flight when a restart, reset or crash struck (cut by it included), or
/// overlapping a partition or a pause of their path.
fn faults_in_flight(plan: &Plan, history: &History, tally: &mut Tally) {
    let writes: Vec<&Op> = history.ops.iter().filter(|op| is_write(&op.kind)).collect();
    let count = |hit: &dyn Fn(&Op) -> bool| writes.iter().filter(|op| hit(op)).count() as u64;
    let at = in_flight_at;
    for restart in &history.restarts {
        tally.add(
            "restart.write-in-flight",
            count(&|op| at(op, restart.at_us)),
        );
    }
    for fault in &plan.faults {
        let (from_us, to_us) = (fault.at_ms * 1_000, fault.end_ms() * 1_000);
        let during = |op: &Op| op.invoke_us < to_us && from_us < end_us(op);
        let (point, hit) = match fault.kind {
            FaultKind::Reset { client } => (
                "reset.write-in-flight",
                count(&|op| op.client == client && at(op, from_us)),
            ),
            FaultKind::ClientCrash { client } => (
                "crash.write-in-flight",
                count(&|op| op.client == client && at(op, from_us)),
            ),
            FaultKind::SilentDrop { client } => (
                "silent-drop.write-in-flight",
                count(&|op| op.client == client && at(op, from_us)),
            ),
            FaultKind::Partition { client, .. } => (
                "partition.write-in-flight",
                count(&|op| op.client == client && during(op)),
            ),
            FaultKind::RedisPause | FaultKind::PostgresPause => {
                ("pause.write-in-flight", count(&during))
            }
            _ => continue,
        };
        tally.add(point, hit);
    }
}

fn outcomes(history: &History, tally: &mut Tally) {
    for op in &history.ops {
        let point = match (&op.outcome, is_write(&op.kind)) {
            (Outcome::Pending, _) => "op.pending-at-end",
            (Outcome::Unknown(_), true) => "write.unknown",
            (Outcome::Fail(_), true) => "write.failed",
            _ => continue,
        };
        tally.add(point, 1);
    }
}

mod postgres;

/// Replies buffered per connection at most; a connection past it is no longer read.
const REPLY_BUFFER_BYTES_MAX: usize = 1 << 22;

/// How many EXECs Redis answered with a nil array (RESP2 `*-1`: the only top-level nil
/// array the stores' commands get), read from every connection's replies.
fn exec_aborts(trace: &Trace) -> u64 {
    // `None`: a connection whose replies are not RESP (a PostgreSQL link), skipped whole.
    let mut buffers: BTreeMap<(String, u64), Option<Vec<u8>>> = BTreeMap::new();
    let mut aborts = 0;
    trace.for_each_reply(|host, conn, bytes| {
        if bytes.is_empty() {
            return;
        }
        let slot = buffers
            .entry((host.to_string(), conn))
            .or_insert_with(|| resp::is_type(bytes[0]).then(Vec::new));
        let Some(buffer) = slot else {
            return;
        };
        if buffer.len() > REPLY_BUFFER_BYTES_MAX {
            return;
        }
        buffer.extend_from_slice(bytes);
        let (read, readable) = resp::nil_arrays(buffer, &mut aborts);
        buffer.drain(..read);
        if !readable {
            *slot = None;
        }
    });
    aborts
}

/// Redis's replies framed by `redis-protocol`: RESP2's decoder first (it alone reads
/// `*-1` as a nil array), RESP3's for a reply RESP2 has no type for.
mod resp {
    use redis_protocol::resp2::decode::decode_range as resp2;
    use redis_protocol::resp2::types::RangeFrame;
    use redis_protocol::resp3::decode::complete::decode_range as resp3;

    /// Whether `byte` starts a RESP 2 or 3 reply. A PostgreSQL server's first message to
    /// a client (authentication, an error, a notice, the SSL answer) is a letter, never
    /// one of these, so a link's first reply byte tells which server it reaches.
    pub(super) fn is_type(byte: u8) -> bool {
        b"+-:$*_,#!=(%~|>".contains(&byte)
    }

    /// Count the whole replies at the start of `buffer` that are nil arrays into
    /// `nil_arrays`; returns the bytes read, and false if the rest is not RESP.
    pub(super) fn nil_arrays(buffer: &[u8], nil_arrays: &mut u64) -> (usize, bool) {
        let mut at = 0;
        while at < buffer.len() {
            let rest = &buffer[at..];
            let whole = match resp2(rest) {
                Ok(Some((frame, end))) => {
                    let nil_array = matches!(frame, RangeFrame::Null) && rest[0] == b'*';
                    *nil_arrays += u64::from(nil_array);
                    Some(end)
                }
                Ok(None) => None,
                Err(_) => match resp3(rest) {
                    Ok(found) => found.map(|(_, end)| end),
                    Err(_) => return (at, false),
                },
            };
            let Some(end) = whole else {
                break;
            };
            assert!(end > 0, "a whole reply has bytes");
            at += end;
        }
        (at, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Message, Role, SessionKey};
    use crate::history::OpValue;

    fn message(id: &str) -> Message {
        Message {
            id: id.into(),
            role: Role::User,
            content: "hi".into(),
            seq: 0,
        }
    }

    #[test]
    fn races_of_one_session_are_named_by_their_kinds() {
        let session = SessionKey::new("t0", "s0");
        let mut history = History::new();
        let ok = || Outcome::Ok(OpValue::None);
        history.push_append(0, &session, message("m0"), 0, Some(100), ok());
        history.push_append(1, &session, message("m0"), 50, Some(150), ok());
        history.push_context(2, &session, 16, 120, 130, vec![]);
        history.push(
            1,
            OpKind::Clear {
                session: session.clone(),
            },
            200,
            None,
            Outcome::Pending,
        );
        let other = SessionKey::new("t0", "s1");
        history.push_append(0, &other, message("m1"), 0, Some(500), ok());
        let mut tally = Tally::default();
        races(&history, &mut tally);
        outcomes(&history, &mut tally);
        let points: Vec<(&str, u64)> = tally.0.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            points,
            [
                ("op.pending-at-end", 1),
                ("session.ops-in-flight", 2),
                ("session.read-races-append", 1),
                ("session.retry-races-original", 1),
            ]
        );
    }

    #[test]
    fn a_write_a_client_crash_cuts_is_in_flight_at_the_crash() {
        let mut plan = Plan::generate(0, &crate::plan::ScenarioConfig::standard());
        plan.faults = vec![crate::plan::Fault {
            at_ms: 1_000,
            duration_ms: 500,
            kind: FaultKind::ClientCrash { client: 0 },
        }];
        let (session, crash_us) = (SessionKey::new("t0", "s0"), 1_000_000);
        let crashed = || Outcome::Unknown("the client process crashed mid-request".into());
        let mut history = History::new();
        // Cut by the crash: invoked before it, ended unknown at its microsecond.
        history.push_append(
            0,
            &session,
            message("m0"),
            900_000,
            Some(crash_us),
            crashed(),
        );
        // Acknowledged at that instant: it completed, the crash cut nothing.
        let ok = Outcome::Ok(OpValue::None);
        history.push_append(0, &session, message("m1"), 900_000, Some(crash_us), ok);
        // Refused at the crash's instant by a client already down: never in flight.
        let down = Outcome::Fail("the client process is down".into());
        history.push_append(0, &session, message("m2"), crash_us, Some(crash_us), down);
        // Another client's write cut at that instant is not the crashed client's.
        history.push_append(
            1,
            &session,
            message("m3"),
            900_000,
            Some(crash_us),
            crashed(),
        );
        let mut tally = Tally::default();
        faults_in_flight(&plan, &history, &mut tally);
        assert_eq!(tally.0.get("crash.write-in-flight"), Some(&1));
    }

    #[test]
    fn a_nil_array_reply_is_an_aborted_exec_wherever_the_chunks_split() {
        let replies: &[u8] = b"+OK\r\n*2\r\n$3\r\n*-1\r\n*-1\r\n*-1\r\n%1\r\n+a\r\n:1\r\n$-1\r\n";
        let count = |cut: usize| {
            let mut buffer = Vec::new();
            let mut aborts = 0;
            for part in [&replies[..cut], &replies[cut..]] {
                buffer.extend_from_slice(part);
                let (read, readable) = resp::nil_arrays(&buffer, &mut aborts);
                assert!(readable, "RESP at cut {cut}");
                buffer.drain(..read);
            }
            assert!(buffer.is_empty(), "every reply read at cut {cut}");
            aborts
        };
        // `*-1` inside a bulk string and inside an array is not an abort.
        assert!((0..=replies.len()).all(|cut| count(cut) == 1));
    }

    #[test]
    fn bytes_that_are_not_resp_end_the_reading_of_their_connection() {
        let mut aborts = 0;
        let (read, readable) = resp::nil_arrays(b"*-1\r\nR\0\0\0\x08", &mut aborts);
        assert_eq!((read, readable, aborts), (5, false, 1));
        assert!(!resp::is_type(b'R') && resp::is_type(b'*'));
    }
}
