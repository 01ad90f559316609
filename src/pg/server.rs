//! The server: the database under one lock, its connections (backends), parsed query
//! strings kept by text, a statement's run with its waits on row and advisory locks
//! (woken when any statement ends, a deadlock checked after `deadlock_timeout`), cancel
//! requests, the WAL writer's flush and what a crash keeps. The wire protocol (`wire.rs`)
//! calls in here; a connection's transaction is its [`Session`].
//!
//! A statement that panics (a bug of the model) never takes the server down: the panic
//! is caught under the lock, the statement's transaction is aborted, and the statement
//! is answered `XX000` on its own connection; every other connection goes on.

use crate::pg::error::{
    Flow, PgError, PgResult, DEADLOCK_DETECTED, INTERNAL_ERROR, LOCK_NOT_AVAILABLE, QUERY_CANCELED,
};
use crate::pg::exec::context::{Described, Exec, Interrupts, Outcome};
use crate::pg::session::{Now, Session};
use crate::pg::sql::parse::{parse, Parsed, ParsedSql};
use crate::pg::storage::db::Db;
use crate::pg::types::pg_type::{Type, PG_EPOCH_UNIX_US};
use crate::pg::types::value::Typed;
use sqlparser::ast::Statement;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The WAL writer's period (`wal_writer_delay`): what an asynchronous commit may lose is
/// what came after its last flush.
pub(crate) const WAL_WRITER_DELAY_MS: u64 = 200;
/// What a statement that waited past `statement_timeout` or `lock_timeout` answers.
const STATEMENT_TIMEOUT: (&str, &str) = (
    QUERY_CANCELED,
    "canceling statement due to statement timeout",
);
const USER_CANCEL: (&str, &str) = (QUERY_CANCELED, "canceling statement due to user request");
const LOCK_TIMEOUT: (&str, &str) = (
    LOCK_NOT_AVAILABLE,
    "canceling statement due to lock timeout",
);
/// The server's clock: unix microseconds.
pub(crate) type PgClock = Arc<dyn Fn() -> i64 + Send + Sync>;

struct Shared {
    db: Mutex<Db>,
    clock: PgClock,
    /// Bumped whenever a statement ends: waiting statements look again.
    epoch: tokio::sync::watch::Sender<u64>,
    backends: AtomicU32,
    /// Backends a cancel request names, until they notice.
    cancels: Mutex<BTreeSet<u32>>,
    seed: u64,
    /// Statements parsed before, by their text: a store sends the same few again and again
    /// (tokio-postgres parses each `execute` anew).
    parsed: Mutex<ParseCache>,
    /// The server has threads of its own (`serve_tcp` on a multi-threaded runtime): what
    /// blocks on the database runs off the runtime's workers, so connections are accepted
    /// and cancel requests read while a statement runs. Never in a simulation, whose one
    /// thread is what makes it deterministic.
    threaded: bool,
    /// Every connection slot is taken by someone else's clients (a fault window): a new
    /// connection is refused at startup with 53300.
    slots_full: std::sync::atomic::AtomicBool,
    /// Each live backend of a world's client: the client it serves, and the signal that
    /// terminates it (`pg_terminate_backend`). Only backends a world tagged are here.
    owned: Mutex<BTreeMap<u32, (u32, Arc<tokio::sync::Notify>)>>,
}

/// Query strings whose statements the model keeps (others are parsed each time).
const PARSED_MAX: usize = 1024;
/// The longest query string kept, and the text the kept ones may have together: a
/// statement's syntax tree takes some tens of times its text (a 1 MB VALUES list, about
/// 46 MB), so only short strings, the ones a store sends again and again, are kept, and
/// a long one's tree is freed once it ran.
const PARSED_TEXT_BYTES_MAX: usize = 8 << 10;
const PARSED_TOTAL_BYTES_MAX: usize = 1 << 20;

/// Parsed query strings by their text, and the bytes of text kept.
#[derive(Default)]
struct ParseCache {
    entries: BTreeMap<String, Parsed>,
    text_bytes: usize,
}

impl ParseCache {
    /// Keep `sql`'s statements if it is short and there is room.
    fn keep(&mut self, sql: &str, statements: &Parsed) {
        let room = self.entries.len() < PARSED_MAX
            && sql.len() <= PARSED_TEXT_BYTES_MAX
            && self.text_bytes + sql.len() <= PARSED_TOTAL_BYTES_MAX;
        if room
            && self
                .entries
                .insert(sql.to_string(), statements.clone())
                .is_none()
        {
            self.text_bytes += sql.len();
        }
        debug_assert!(self.text_bytes <= PARSED_TOTAL_BYTES_MAX);
    }
}

/// The PostgreSQL model: cheap to clone, one per server.
#[derive(Clone)]
pub(crate) struct PgModel {
    shared: Arc<Shared>,
}

impl PgModel {
    /// A server with no tables, on `clock`, its randomness from `seed`.
    pub(crate) fn new(seed: u64, clock: PgClock) -> PgModel {
        PgModel {
            shared: Arc::new(Shared {
                db: Mutex::new(Db::default()),
                clock,
                epoch: tokio::sync::watch::Sender::new(0),
                backends: AtomicU32::new(0),
                cancels: Mutex::new(BTreeSet::new()),
                seed,
                parsed: Mutex::new(ParseCache::default()),
                threaded: false,
                slots_full: std::sync::atomic::AtomicBool::new(false),
                owned: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    /// A server with threads of its own ([`Shared::threaded`]), for a multi-threaded
    /// runtime: `amnesia serve-pg-model`, never a simulation.
    pub(crate) fn threaded(seed: u64, clock: PgClock) -> PgModel {
        let model = PgModel::new(seed, clock);
        let shared = Arc::into_inner(model.shared).expect("just made");
        PgModel {
            shared: Arc::new(Shared {
                threaded: true,
                ..shared
            }),
        }
    }

    /// `work`, which may block on the database (a statement's run, its lock), off the
    /// runtime's workers when the server has threads of its own.
    fn blocking<T>(&self, work: impl FnOnce() -> T) -> T {
        match self.shared.threaded {
            true => tokio::task::block_in_place(work),
            false => work(),
        }
    }

    /// `sql`'s statements, parsed once per query string.
    pub(crate) fn parse(&self, sql: &str) -> PgResult<Parsed> {
        let mut parsed = self.shared.parsed.lock().expect("never poisoned");
        if let Some(statements) = parsed.entries.get(sql) {
            return Ok(statements.clone());
        }
        let statements: Parsed = Arc::new(ParsedSql {
            statements: parse(sql)?.into_iter().map(Arc::new).collect(),
            placeholders: crate::pg::sql::parse::placeholders(sql),
        });
        parsed.keep(sql, &statements);
        Ok(statements)
    }

    /// Serve one client's connection (`stream`) until it ends.
    pub(crate) fn seed(&self) -> u64 {
        self.shared.seed
    }

    fn now(&self) -> Now {
        Now {
            clock_us: (self.shared.clock)() - PG_EPOCH_UNIX_US,
        }
    }

    /// The database, locked. Statements never poison the lock: their panics are caught
    /// inside the guard's scope (`attempt`, `describe`), so no guard is dropped while
    /// unwinding. What remains is the server's own bookkeeping (a wait, a deadlock check,
    /// a session's close, a crash); should one of it panic, its connection's task ends and
    /// the next holder takes the database as the panic left it, the poison cleared: every
    /// structure in `Db` is std collections, valid after an unwind, and a row's visibility
    /// is the commit log's, so what can be left is a transaction never ended (its rows
    /// unseen, its locks held until a crash), a server that waits, never one that answers
    /// wrongly.
    pub(super) fn db(&self) -> MutexGuard<'_, Db> {
        self.blocking(|| {
            self.shared.db.lock().unwrap_or_else(|poisoned| {
                self.shared.db.clear_poison();
                PoisonError::into_inner(poisoned)
            })
        })
    }

    pub(crate) fn new_backend(&self) -> u32 {
        // PostgreSQL's pids are never small; any fixed sequence is deterministic.
        1_000 + self.shared.backends.fetch_add(1, Ordering::Relaxed)
    }

    /// Backend `backend`'s secret key, as `BackendKeyData` gives it: drawn from the seed,
    /// so that a cancel request must name the key the connection was given.
    pub(crate) fn secret_key(&self, backend: u32) -> i32 {
        let mut x = self.shared.seed ^ (u64::from(backend) << 32) ^ 0x9e37_79b9_7f4a_7c15;
        // SplitMix64's finaliser.
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (x ^ (x >> 31)) as i32
    }

    /// A cancel request for `backend` with `secret_key`: with the backend's key, its
    /// running or waiting statement ends with 57014; with any other, nothing happens (as
    /// in PostgreSQL, which answers a cancel request nothing either way).
    pub(crate) fn cancel(&self, backend: u32, secret_key: i32) {
        if secret_key != self.secret_key(backend) {
            return;
        }
        self.shared
            .cancels
            .lock()
            .expect("never poisoned")
            .insert(backend);
        self.shared.epoch.send_modify(|e| *e += 1);
    }

    /// What `backend`'s statement, begun at `started_us`, looks at as it runs: a cancel
    /// request, and `statement_timeout` (`timeout_ms`, 0 for none) in the model's clock.
    fn interrupts(&self, backend: u32, started_us: i64, timeout_ms: u64) -> Interrupts {
        let shared = self.shared.clone();
        let deadline_us = (timeout_ms > 0).then(|| started_us + timeout_ms as i64 * 1_000);
        Arc::new(move || {
            let cancels = &shared.cancels;
            if cancels.lock().expect("never poisoned").remove(&backend) {
                let (code, message) = USER_CANCEL;
                return Some(PgError::new(code, message));
            }
            let now_us = (shared.clock)() - PG_EPOCH_UNIX_US;
            let (code, message) = STATEMENT_TIMEOUT;
            deadline_us
                .filter(|at| now_us >= *at)
                .map(|_| PgError::new(code, message))
        })
    }

    /// The parameter and result types of `statement` (as Parse and Describe give them).
    pub(crate) fn describe(
        &self,
        statement: &Statement,
        sql: &str,
        placeholders: usize,
        declared: Vec<Type>,
    ) -> PgResult<Described> {
        if let Some(described) = crate::pg::exec::catalog::describe(sql) {
            return Ok(described);
        }
        let count = placeholders.max(declared.len());
        let mut db = self.db();
        let snapshot = db.txns.snapshot();
        let settings = crate::pg::settings::Settings::default();
        let mut undo = Vec::new();
        let params: Vec<Typed> = (0..count)
            .map(|i| Typed::null(declared.get(i).copied().unwrap_or(Type::Unknown)))
            .collect();
        let mut exec = Exec {
            db: &mut db,
            backend: 0,
            xid: 0,
            cid: 0,
            snapshot,
            repeatable_read: false,
            params,
            now_us: 0,
            clock_us: 0,
            settings: &settings,
            undo: &mut undo,
            work: 0,
            interrupts: None,
            interrupt_at: 0,
            aggregates: Vec::new(),
            windows: Vec::new(),
            nesting: 0,
            param_hints: Vec::new(),
            seed: 0,
            subqueries: Default::default(),
            fk_pending: Default::default(),
            ctes: Vec::new(),
        };
        // Describing writes nothing, so a panic leaves nothing to undo.
        let described = catch_unwind(AssertUnwindSafe(|| exec.describe(statement)));
        let columns = described
            .unwrap_or_else(|panic| Err(internal_error(panic.as_ref()).into()))
            .map_err(|flow| match flow {
                Flow::Error(e) => e,
                Flow::Wait { .. } => unreachable!("describing takes no lock"),
            })?;
        let params = (0..count)
            .map(|i| {
                let declared = declared.get(i).copied().filter(|t| *t != Type::Unknown);
                let hinted = exec
                    .param_hints
                    .get(i)
                    .copied()
                    .filter(|t| *t != Type::Unknown);
                declared.or(hinted).unwrap_or(Type::Text)
            })
            .collect();
        Ok((params, columns))
    }

    /// Run `statement` on `session`, waiting (on the engine's clock) while it waits for
    /// another transaction, failing it on a deadlock, a cancel request, `lock_timeout`
    /// (each wait for one holder) or `statement_timeout` (the statement's whole run).
    pub(crate) async fn run(
        &self,
        session: &mut Session,
        statement: &Statement,
        params: &[Typed],
    ) -> PgResult<Outcome> {
        if let Some(outcome) = crate::pg::exec::catalog::run(statement, params) {
            return Ok(outcome);
        }
        let started_us = self.now().clock_us;
        let timeout_ms = session.settings.duration_ms("statement_timeout");
        session.interrupts = Some(self.interrupts(session.backend, started_us, timeout_ms));
        // The wait (blocker, since) whose deadlock check already ran.
        let mut checked: Option<(u32, i64)> = None;
        loop {
            let mut woken = self.shared.epoch.subscribe();
            let attempt = self.blocking(|| self.attempt(session, statement, params));
            let (blocker, since_us) = match attempt {
                Ok(outcome) => return Ok(outcome),
                Err(Flow::Error(error)) => return Err(error),
                Err(Flow::Wait { backend }) => {
                    backend_wait(&mut self.db(), session.backend, backend, self.now())
                }
            };
            // The settings in force when the statement waits (a SET LOCAL before it).
            let timeout_us = |name: &str| match session.settings.duration_ms(name) {
                0 => None,
                ms => Some(ms as i64 * 1_000),
            };
            let statement_at_us = timeout_us("statement_timeout").map(|t| started_us + t);
            let lock_at_us = timeout_us("lock_timeout").map(|t| since_us + t);
            // How long a wait lasts before it checks for a deadlock (`deadlock_timeout`).
            let deadlock_us = session.settings.duration_ms("deadlock_timeout") as i64 * 1_000;
            let deadlock_at_us = match checked == Some((blocker, since_us)) {
                true => None,
                false => Some(since_us + deadlock_us),
            };
            let next_us = [statement_at_us, lock_at_us, deadlock_at_us]
                .into_iter()
                .flatten()
                .min();
            let Some(next_us) = next_us else {
                let _ = woken.changed().await;
                continue;
            };
            let sleep_us = (next_us - self.now().clock_us).max(0) as u64;
            let timer = tokio::time::sleep(std::time::Duration::from_micros(sleep_us));
            tokio::select! {
                _ = woken.changed() => {}
                _ = timer => {
                    let now_us = self.now().clock_us;
                    let due = |at: Option<i64>| at.filter(|at| *at <= now_us);
                    // PostgreSQL reports the timeout that expired first; a tie, the lock's.
                    let timeout = match (due(statement_at_us), due(lock_at_us)) {
                        (Some(s), Some(l)) if s < l => Some(STATEMENT_TIMEOUT),
                        (_, Some(_)) => Some(LOCK_TIMEOUT),
                        (Some(_), None) => Some(STATEMENT_TIMEOUT),
                        (None, None) => None,
                    };
                    if let Some((code, message)) = timeout {
                        return Err(self.give_up(session, PgError::new(code, message)));
                    }
                    if due(deadlock_at_us).is_some() {
                        checked = Some((blocker, since_us));
                        if let Some(error) = self.check_deadlock(session, blocker) {
                            return Err(error);
                        }
                    }
                }
            }
        }
    }

    /// The waiting statement fails with `error`: it stops waiting and its transaction
    /// fails, as any statement's error fails it.
    fn give_up(&self, session: &mut Session, error: PgError) -> PgError {
        let now = self.now();
        let mut db = self.db();
        db.stop_waiting(session.backend);
        session.abandon_wait(&mut db, now);
        drop(db);
        self.bump();
        error
    }

    fn attempt(
        &self,
        session: &mut Session,
        statement: &Statement,
        params: &[Typed],
    ) -> Result<Outcome, Flow> {
        let now = self.now();
        let mut db = self.db();
        if self
            .shared
            .cancels
            .lock()
            .expect("never poisoned")
            .remove(&session.backend)
            && db.waits.contains_key(&session.backend)
        {
            db.stop_waiting(session.backend);
            session.abandon_wait(&mut db, now);
            self.bump();
            let (code, message) = USER_CANCEL;
            return Err(PgError::new(code, message).into());
        }
        let result = execute_caught(session, &mut db, statement, params, now);
        if !matches!(result, Err(Flow::Wait { .. })) {
            db.stop_waiting(session.backend);
            drop(db);
            self.bump();
        }
        result
    }

    /// After `deadlock_timeout`: if this wait closes a cycle, this statement is the one
    /// that fails (PostgreSQL's: the waiter whose timer fires first).
    fn check_deadlock(&self, session: &mut Session, blocker: u32) -> Option<PgError> {
        let now = self.now();
        let mut db = self.db();
        if !db.closes_cycle(session.backend, blocker) {
            return None;
        }
        db.stop_waiting(session.backend);
        session.abandon_wait(&mut db, now);
        drop(db);
        self.bump();
        Some(PgError::new(DEADLOCK_DETECTED, "deadlock detected").with_detail(format!("Process {} waits for a lock held by process {blocker}; that process waits in turn.", session.backend)))
    }

    fn bump(&self) {
        self.shared.epoch.send_modify(|e| *e += 1);
    }

    /// A statement the connection ran itself (`DEALLOCATE`) failed: its transaction
    /// fails as any statement's error fails it.
    pub(crate) fn fail_statement(&self, session: &mut Session) {
        let now = self.now();
        let implicit = session.block == crate::pg::session::Block::Idle;
        session.fail(&mut self.db(), implicit, now);
        self.bump();
    }

    pub(crate) fn close_session(&self, session: &mut Session) {
        let now = self.now();
        session.close(&mut self.db(), now);
        self.bump();
    }

    /// Other clients take (`true`) or give back every connection slot, as when
    /// `max_connections` is reached by the rest of a fleet.
    pub(crate) fn set_slots_full(&self, full: bool) {
        self.shared.slots_full.store(full, Ordering::Relaxed);
    }

    /// A new connection's slot, after its startup packet: refused with PostgreSQL's
    /// FATAL 53300 while every slot is taken.
    pub(crate) fn admit(&self) -> PgResult<()> {
        match self.shared.slots_full.load(Ordering::Relaxed) {
            true => Err(PgError::new(
                crate::pg::error::TOO_MANY_CONNECTIONS,
                "sorry, too many clients already",
            )),
            false => Ok(()),
        }
    }

    /// Tag `backend` as serving the world's client `owner`; the signal that terminates it.
    pub(crate) fn own(&self, backend: u32, owner: u32) -> Arc<tokio::sync::Notify> {
        let signal = Arc::new(tokio::sync::Notify::new());
        let mut owned = self.shared.owned.lock().expect("never poisoned");
        owned.insert(backend, (owner, signal.clone()));
        signal
    }

    /// `backend` has ended.
    pub(crate) fn disown(&self, backend: u32) {
        let mut owned = self.shared.owned.lock().expect("never poisoned");
        owned.remove(&backend);
    }

    /// `pg_terminate_backend` of every backend serving `owner`: each ends with FATAL
    /// 57P01 before it reads its next message. How many were signalled.
    pub(crate) fn terminate_owner(&self, owner: u32) -> usize {
        let owned = self.shared.owned.lock().expect("never poisoned");
        let signals = owned.values().filter(|(of, _)| *of == owner);
        // A permit waits for a backend busy with a statement until it reads again.
        signals.map(|(_, signal)| signal.notify_one()).count()
    }

    /// The WAL writer's round: every commit so far is on disk.
    pub(crate) fn flush_wal(&self) {
        self.db().txns.flush();
    }

    /// The process dies: open transactions abort, unflushed commits are lost, locks and
    /// waits vanish. Returns the unix µs of the first commit lost, if any.
    pub(crate) fn crash(&self) -> Option<i64> {
        let mut db = self.db();
        let lost = db.txns.crash();
        db.crash_schema();
        db.advisory.clear();
        db.waits.clear();
        db.row_queues.clear();
        db.table_locks.clear();
        db.table_queues.clear();
        for table in db.tables.values_mut() {
            table.heap.clear_locks();
        }
        db.prune();
        // The backends died with their tasks, before they could disown themselves.
        self.shared.owned.lock().expect("never poisoned").clear();
        lost
    }

    /// Rows stored (live) across every table, for a restart's line.
    pub(crate) fn live_rows(&self) -> usize {
        let db = self.db();
        db.tables.values().map(|t| t.heap.len()).sum()
    }
}

/// Run `statement` on `session` (the database locked), a panic in it caught: the
/// statement's undo log is rolled back and its whole transaction aborted (under a
/// savepoint too, unlike an error: a panic may have left a write its undo log did not
/// record, and aborting hides every version the transaction wrote whatever the log
/// holds), and it is answered `XX000`.
fn execute_caught(
    session: &mut Session,
    db: &mut Db,
    statement: &Statement,
    params: &[Typed],
    now: Now,
) -> Result<Outcome, Flow> {
    let marker = session.txn.as_ref().map_or(0, |txn| txn.undo.len());
    let run = catch_unwind(AssertUnwindSafe(|| {
        session.execute(db, statement, params, now)
    }));
    run.unwrap_or_else(|panic| {
        session.panicked(db, marker, now);
        Err(internal_error(panic.as_ref()).into())
    })
}

/// The error a caught panic is answered with: PostgreSQL's class for "can't happen".
/// The error a statement that panicked gets; the run reports the panic as amnesia's own
/// failure ([`crate::model_panic`]).
fn internal_error(panic: &(dyn std::any::Any + Send)) -> PgError {
    let text = crate::model_panic::payload_text(panic);
    crate::model_panic::record(format!("the PostgreSQL model panicked: {text}"));
    PgError::new(
        INTERNAL_ERROR,
        format!("the model failed running this statement: {text}"),
    )
}

/// Record that `backend` waits for `blocker` (since when it first waited for it).
fn backend_wait(db: &mut Db, backend: u32, blocker: u32, now: Now) -> (u32, i64) {
    let since_us = match db.waits.get(&backend) {
        Some((b, since)) if *b == blocker => *since,
        _ => now.clock_us,
    };
    db.waits.insert(backend, (blocker, since_us));
    (blocker, since_us)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::error::IN_FAILED_TRANSACTION;
    use crate::pg::types::value::Value;

    /// `sql`'s first statement run on `session`.
    fn run(model: &PgModel, session: &mut Session, sql: &str) -> PgResult<Outcome> {
        let parsed = model.parse(sql).expect("parses");
        let statement = parsed.statements[0].clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        runtime.block_on(model.run(session, &statement, &[]))
    }

    /// The ids of `t` as `session` sees them.
    fn ids(model: &PgModel, session: &mut Session) -> Vec<Value> {
        let outcome = run(model, session, "SELECT id FROM t ORDER BY id").expect("a query");
        let rows = outcome.rows.expect("rows").rows;
        rows.into_iter().map(|mut row| row.remove(0)).collect()
    }

    #[test]
    fn a_second_worker_skips_the_row_the_first_holds() {
        let model = PgModel::new(1, Arc::new(|| 1_700_000_000_000_000));
        let (mut a, mut b) = (Session::new(1_000, 1), Session::new(1_001, 1));
        run(&model, &mut a, "CREATE TABLE t (id int4 PRIMARY KEY)").unwrap();
        run(&model, &mut a, "INSERT INTO t VALUES (1), (2), (3)").unwrap();
        let claim = "SELECT id FROM t ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED";
        let claimed = |model: &PgModel, session: &mut Session| {
            let rows = run(model, session, claim)
                .expect("a query")
                .rows
                .expect("rows");
            rows.rows
                .into_iter()
                .map(|mut row| row.remove(0))
                .collect::<Vec<_>>()
        };
        run(&model, &mut a, "BEGIN").unwrap();
        assert_eq!(claimed(&model, &mut a), [Value::Int(1)]);
        run(&model, &mut b, "BEGIN").unwrap();
        assert_eq!(claimed(&model, &mut b), [Value::Int(2)], "row 1 is skipped");
        let nowait = "SELECT id FROM t WHERE id = 1 FOR SHARE NOWAIT";
        let error = run(&model, &mut b, nowait).unwrap_err();
        assert_eq!(error.code, crate::pg::error::LOCK_NOT_AVAILABLE);
        assert_eq!(
            error.message,
            "could not obtain lock on row in relation \"t\""
        );
    }

    #[test]
    fn lock_timeout_and_statement_timeout_end_a_wait_in_the_models_clock() {
        // A paused runtime: the wait costs no real time, the model's clock is tokio's.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a runtime");
        let start = runtime.block_on(async { tokio::time::Instant::now() });
        let clock_us = move || 1_700_000_000_000_000 + start.elapsed().as_micros() as i64;
        let model = PgModel::new(1, Arc::new(clock_us));
        let (mut a, mut b) = (Session::new(1_000, 1), Session::new(1_001, 1));
        let go = |session: &mut Session, sql: &str| {
            let statement = model.parse(sql).expect("parses").statements[0].clone();
            runtime.block_on(model.run(session, &statement, &[]))
        };
        go(&mut a, "CREATE TABLE t (id int4 PRIMARY KEY, v int4)").unwrap();
        go(&mut a, "INSERT INTO t VALUES (1, 0)").unwrap();
        go(&mut a, "BEGIN").unwrap();
        go(&mut a, "UPDATE t SET v = 1 WHERE id = 1").unwrap();
        go(&mut b, "SET lock_timeout = '250ms'").unwrap();
        // Read inside the runtime: outside it tokio's clock is the OS's.
        let now_us = || runtime.block_on(async { clock_us() });
        let before_us = now_us();
        let error = go(&mut b, "UPDATE t SET v = 2 WHERE id = 1").unwrap_err();
        assert_eq!(error.code, crate::pg::error::LOCK_NOT_AVAILABLE);
        assert_eq!(error.message, "canceling statement due to lock timeout");
        assert_eq!(now_us() - before_us, 250_000, "virtual time passed");
        // The longer lock_timeout loses to statement_timeout, which runs from the start.
        go(&mut b, "SET lock_timeout = '5s'").unwrap();
        go(&mut b, "SET statement_timeout = 100").unwrap();
        let error = go(&mut b, "SELECT id FROM t FOR SHARE").unwrap_err();
        assert_eq!(error.code, QUERY_CANCELED);
        assert_eq!(
            error.message,
            "canceling statement due to statement timeout"
        );
        // Past deadlock_timeout, no deadlock: the wait goes on to its timeout.
        go(&mut b, "SET statement_timeout = '3s'").unwrap();
        let error = go(&mut b, "DELETE FROM t").unwrap_err();
        assert_eq!(error.code, QUERY_CANCELED);
        assert!(model.db().waits.is_empty() && model.db().row_queues.is_empty());
        go(&mut a, "COMMIT").unwrap();
        go(&mut b, "UPDATE t SET v = 3 WHERE id = 1").unwrap();
    }

    #[test]
    fn a_statement_that_panics_fails_alone_and_every_connection_is_served_after() {
        crate::model_panic::clear();
        let model = PgModel::new(1, Arc::new(|| 1_700_000_000_000_000));
        let (mut a, mut b) = (Session::new(1_000, 1), Session::new(1_001, 1));
        run(&model, &mut a, "CREATE TABLE t (id int4 PRIMARY KEY)").unwrap();
        run(&model, &mut a, "INSERT INTO t VALUES (1)").unwrap();
        // In a transaction block, after a write of its own and one of the statement's.
        run(&model, &mut b, "BEGIN").unwrap();
        run(&model, &mut b, "INSERT INTO t VALUES (2)").unwrap();
        let panicking = "INSERT INTO t VALUES (3), (amnesia_test_panic())";
        let error = run(&model, &mut b, panicking).unwrap_err();
        assert_eq!(error.code, INTERNAL_ERROR, "{}", error.message);
        assert_eq!(b.status(), b'E', "the block is failed");
        let refused = run(&model, &mut b, "SELECT 1").unwrap_err();
        assert_eq!(refused.code, IN_FAILED_TRANSACTION);
        assert_eq!(ids(&model, &mut a), [Value::Int(1)], "nothing of b's shows");
        run(&model, &mut b, "ROLLBACK").unwrap();
        // Outside a block: the statement alone fails, the keys it wrote are free again.
        let error = run(&model, &mut b, panicking).unwrap_err();
        assert_eq!(error.code, INTERNAL_ERROR);
        assert_eq!(b.status(), b'I');
        run(&model, &mut b, "INSERT INTO t VALUES (2), (3)").unwrap();
        run(&model, &mut a, "INSERT INTO t VALUES (4)").unwrap();
        let all: Vec<Value> = (1..=4).map(Value::Int).collect();
        assert_eq!(ids(&model, &mut a), all);
        assert_eq!(ids(&model, &mut b), all);
        assert!(!model.shared.db.is_poisoned());
        let panics = crate::model_panic::take().expect("the run is told");
        assert!(panics.contains("the PostgreSQL model panicked"), "{panics}");
    }

    #[test]
    fn a_keyed_bulk_update_checks_keys_by_index_and_no_dead_version_outlives_its_last_viewer() {
        let model = PgModel::new(1, Arc::new(|| 1_700_000_000_000_000));
        let (mut a, mut b) = (Session::new(1_000, 1), Session::new(1_001, 1));
        run(
            &model,
            &mut a,
            "CREATE TABLE t (id int4 PRIMARY KEY, v int4)",
        )
        .unwrap();
        let rows: Vec<String> = (1..=10_000).map(|i| format!("({i}, 0)")).collect();
        let insert = format!("INSERT INTO t VALUES {}", rows.join(", "));
        run(&model, &mut a, &insert).unwrap();
        let versions = |model: &PgModel| model.db().tables["t"].heap.len();
        // Each row's key meets its own old version only: no 10^8 comparisons.
        let update = "UPDATE t SET v = v + 1";
        assert_eq!(run(&model, &mut a, update).unwrap().tag, "UPDATE 10000");
        assert_eq!(versions(&model), 10_000, "the old versions pruned at once");
        // A snapshot that may still read the old versions keeps them, until it ends.
        run(&model, &mut b, "BEGIN ISOLATION LEVEL REPEATABLE READ").unwrap();
        run(&model, &mut b, "SELECT count(*) FROM t").unwrap();
        run(&model, &mut a, update).unwrap();
        assert_eq!(versions(&model), 20_000);
        let seen = run(&model, &mut b, "SELECT sum(v) FROM t").unwrap();
        assert_eq!(seen.rows.unwrap().rows, [[Value::Int(10_000)]]);
        run(&model, &mut b, "COMMIT").unwrap();
        assert_eq!(versions(&model), 10_000);
        // An aborted write leaves nothing behind either; keys are still unique.
        run(&model, &mut a, "BEGIN").unwrap();
        run(&model, &mut a, "INSERT INTO t VALUES (10001, 0)").unwrap();
        run(&model, &mut a, "DELETE FROM t WHERE id <= 10").unwrap();
        run(&model, &mut a, "ROLLBACK").unwrap();
        assert_eq!(versions(&model), 10_000);
        let duplicate = run(&model, &mut a, "UPDATE t SET id = 1 WHERE id = 2").unwrap_err();
        assert_eq!(duplicate.code, crate::pg::error::UNIQUE_VIOLATION);
        assert_eq!(
            duplicate.detail.as_deref(),
            Some("Key (id)=(1) already exists.")
        );
        run(&model, &mut a, "UPDATE t SET id = 10001 WHERE id = 1").unwrap();
        run(&model, &mut a, "INSERT INTO t VALUES (1, 0)").unwrap();
    }

    #[test]
    fn a_running_statement_ends_at_a_checkpoint_on_its_timeout_or_a_cancel_with_its_key() {
        // A clock that moves 10 ms each time it is read: the statement's checkpoints
        // read it, so its timeout passes while it runs, in the model's time alone.
        let ticks = Arc::new(std::sync::atomic::AtomicI64::new(0));
        let read = ticks.clone();
        let clock = move || 1_700_000_000_000_000 + read.fetch_add(10_000, Ordering::Relaxed);
        let model = PgModel::new(1, Arc::new(clock));
        let mut a = Session::new(model.new_backend(), 1);
        run(&model, &mut a, "CREATE TABLE t (id int4)").unwrap();
        let rows: Vec<String> = (1..=300).map(|i| format!("({i})")).collect();
        run(
            &model,
            &mut a,
            &format!("INSERT INTO t VALUES {}", rows.join(", ")),
        )
        .unwrap();
        let join = "SELECT count(*) FROM t x, t y";
        assert_eq!(run(&model, &mut a, join).unwrap().tag, "SELECT 1");
        run(&model, &mut a, "SET statement_timeout = 100").unwrap();
        let error = run(&model, &mut a, join).unwrap_err();
        assert_eq!(error.code, QUERY_CANCELED);
        assert_eq!(error.message, STATEMENT_TIMEOUT.1);
        // A cancel request counts only with the backend's own key.
        let backend = a.backend;
        let key = model.secret_key(backend);
        assert_ne!(key, model.secret_key(backend + 1));
        let interrupts = model.interrupts(backend, 0, 0);
        model.cancel(backend, key.wrapping_add(1));
        assert!(interrupts().is_none(), "a wrong key cancels nothing");
        model.cancel(backend, key);
        let error = interrupts().expect("cancelled");
        assert_eq!((error.code, error.message.as_str()), USER_CANCEL);
        assert!(interrupts().is_none(), "a request cancels once");
    }

    #[test]
    fn the_parse_cache_keeps_short_strings_only_and_a_bounded_total_of_text() {
        let model = PgModel::new(1, Arc::new(|| 1_700_000_000_000_000));
        let long = format!("SELECT '{}'", "x".repeat(PARSED_TEXT_BYTES_MAX));
        model.parse(&long).unwrap();
        model.parse("SELECT 1").unwrap();
        let cache = |model: &PgModel| {
            let parsed = model.shared.parsed.lock().unwrap();
            (parsed.entries.len(), parsed.text_bytes)
        };
        assert_eq!(
            cache(&model),
            (1, "SELECT 1".len()),
            "the long one is not kept"
        );
        for i in 0..PARSED_MAX {
            model
                .parse(&format!("SELECT {i}, '{}'", "y".repeat(4_000)))
                .unwrap();
        }
        let (entries, bytes) = cache(&model);
        assert!(
            bytes <= PARSED_TOTAL_BYTES_MAX && entries < PARSED_MAX,
            "{entries} {bytes}"
        );
    }
}
