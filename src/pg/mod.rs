//! amnesia's model of PostgreSQL (with pgvector 0.8): a deterministic server that runs on
//! the simulator's network and clock, reached by unmodified clients (tokio-postgres) over
//! the wire protocol, as `src/model/` is for Redis. It parses with `sqlparser`
//! (PostgreSQL dialect), frames with `pgwire`, and executes a subset of SQL (README lists
//! it) over in-memory MVCC tables: READ COMMITTED and REPEATABLE READ, row locks that
//! wait on virtual time and re-check a changed row, unique and foreign keys, advisory
//! locks, deadlock detection after `deadlock_timeout`, `synchronous_commit` and what a
//! crash loses. Anything outside the subset is refused with PostgreSQL's error class.
//!
//! Layers inside: `types`/`text`/`binary` (values; `uuid`, `jsonb` and its
//! `json_number`/`jsonb_parse`/`jsonb_ops`/`jsonb_path`/`jsonb_build`, and `json` with
//! `json_build`/`json_keys`/`json_time`, the types of their own), `txn`/`heap` (MVCC), `expr`/`ops`/
//! `functions`/`infer` (expressions), `query`/`dml`/`ddl`/`index`/`statement` (statements),
//! `session`/`settings` (a connection's transaction), `wire` (the protocol), this file
//! (the server: its data, its connections, crash and recovery).

pub(crate) mod aggregate;
pub(crate) mod ann;
pub(crate) mod array_recv;
pub(crate) mod binary;
pub(crate) mod catalog;
pub(crate) mod cte;
pub(crate) mod ddl;
pub(crate) mod distinct;
pub(crate) mod dml;
pub(crate) mod error;
pub(crate) mod exec;
pub(crate) mod expr;
pub(crate) mod fk;
pub(crate) mod functions;
pub(crate) mod hash;
pub(crate) mod heap;
pub(crate) mod index;
pub(crate) mod index_expr;
pub(crate) mod infer;
pub(crate) mod json;
pub(crate) mod json_build;
pub(crate) mod json_keys;
pub(crate) mod json_number;
pub(crate) mod json_time;
pub(crate) mod jsonb;
pub(crate) mod jsonb_build;
pub(crate) mod jsonb_ops;
pub(crate) mod jsonb_parse;
pub(crate) mod jsonb_path;
pub(crate) mod like;
pub(crate) mod numeric;
pub(crate) mod numeric_cast;
pub(crate) mod numeric_fn;
pub(crate) mod ops;
pub(crate) mod query;
pub(crate) mod regtype;
pub(crate) mod session;
pub(crate) mod settings;
pub(crate) mod statement;
pub(crate) mod text;
pub(crate) mod tsearch;
pub(crate) mod txn;
pub(crate) mod types;
pub(crate) mod unnest;
pub(crate) mod uuid;
pub(crate) mod vector;
pub(crate) mod vector_fn;
pub(crate) mod wire;

use crate::pg::error::{Flow, PgError, PgResult, DEADLOCK_DETECTED, QUERY_CANCELED};
use crate::pg::exec::Db;
use crate::pg::expr::Typed;
use crate::pg::session::{Now, Outcome, Session};
use crate::pg::types::{Type, PG_EPOCH_UNIX_US};
use sqlparser::ast::Statement;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// The version the model reports (`server_version`, `SHOW server_version`).
pub(crate) const SERVER_VERSION: &str = "18.3";
pub(crate) const SERVER_VERSION_TEXT: &str = "PostgreSQL 18.3 (amnesia model) with pgvector 0.8";
/// Parameters one statement may have (PostgreSQL's protocol limit).
pub(crate) const PARAMS_MAX: usize = 65_535;
/// How long a waiting statement waits before it checks for a deadlock (PostgreSQL's
/// `deadlock_timeout` default).
pub(crate) const DEADLOCK_TIMEOUT_US: i64 = 1_000_000;
/// The WAL writer's period (`wal_writer_delay`): what an asynchronous commit may lose is
/// what came after its last flush.
pub(crate) const WAL_WRITER_DELAY_MS: u64 = 200;
/// Bytes of SQL one statement string may have.
const SQL_BYTES_MAX: usize = 1 << 20;

/// The parameters a client is told at startup.
pub(crate) const STARTUP_PARAMETERS: [(&str, &str); 8] = [
    ("server_version", SERVER_VERSION),
    ("server_encoding", "UTF8"),
    ("client_encoding", "UTF8"),
    ("DateStyle", "ISO, MDY"),
    ("TimeZone", "UTC"),
    ("integer_datetimes", "on"),
    ("standard_conforming_strings", "on"),
    ("IntervalStyle", "postgres"),
];

/// A statement's parameter types and result columns (`None`: it returns no rows).
pub(crate) type Described = (Vec<Type>, Option<Vec<(String, Type)>>);

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
    parsed: Mutex<BTreeMap<String, Parsed>>,
}

/// A query string's statements, shared by every connection that sends it.
pub(crate) type Parsed = Arc<ParsedSql>;

/// What parsing a query string gives.
pub(crate) struct ParsedSql {
    pub statements: Vec<Arc<Statement>>,
    /// The highest `$n` the string names.
    pub placeholders: usize,
}

/// Query strings whose statements the model keeps (others are parsed each time).
const PARSED_MAX: usize = 1024;

/// The PostgreSQL model: cheap to clone, one per server.
#[derive(Clone)]
pub(crate) struct PgModel {
    shared: Arc<Shared>,
}

/// `sql` parsed as PostgreSQL's dialect, its syntax errors as PostgreSQL's class.
pub(crate) fn parse(sql: &str) -> PgResult<Vec<Statement>> {
    if sql.len() > SQL_BYTES_MAX {
        return Err(PgError::new(
            error::PROGRAM_LIMIT_EXCEEDED,
            "statement longer than the model accepts",
        ));
    }
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    sqlparser::parser::Parser::new(&dialect)
        .with_recursion_limit(64)
        .try_with_sql(sql)
        .and_then(|mut parser| parser.parse_statements())
        .map_err(|e| PgError::syntax(format!("syntax error: {e}")))
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
                parsed: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    /// `sql`'s statements, parsed once per query string.
    pub(crate) fn parse(&self, sql: &str) -> PgResult<Parsed> {
        let mut parsed = self.shared.parsed.lock().expect("never poisoned");
        if let Some(statements) = parsed.get(sql) {
            return Ok(statements.clone());
        }
        let statements: Parsed = Arc::new(ParsedSql {
            statements: parse(sql)?.into_iter().map(Arc::new).collect(),
            placeholders: catalog::placeholders(sql),
        });
        if parsed.len() < PARSED_MAX {
            parsed.insert(sql.to_string(), statements.clone());
        }
        Ok(statements)
    }

    /// Serve one client's connection (`stream`) until it ends.
    pub(crate) async fn serve_connection<S>(self, stream: S)
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send,
    {
        wire::serve(self, stream).await
    }

    pub(crate) fn seed(&self) -> u64 {
        self.shared.seed
    }

    fn now(&self) -> Now {
        Now {
            clock_us: (self.shared.clock)() - PG_EPOCH_UNIX_US,
        }
    }

    fn db(&self) -> std::sync::MutexGuard<'_, Db> {
        self.shared.db.lock().expect("never poisoned")
    }

    pub(crate) fn new_backend(&self) -> u32 {
        // PostgreSQL's pids are never small; any fixed sequence is deterministic.
        1_000 + self.shared.backends.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn cancel(&self, backend: u32) {
        self.shared
            .cancels
            .lock()
            .expect("never poisoned")
            .insert(backend);
        self.shared.epoch.send_modify(|e| *e += 1);
    }

    /// The parameter and result types of `statement` (as Parse and Describe give them).
    pub(crate) fn describe(
        &self,
        statement: &Statement,
        sql: &str,
        placeholders: usize,
        declared: Vec<Type>,
    ) -> PgResult<Described> {
        if let Some(described) = catalog::describe(sql) {
            return Ok(described);
        }
        let count = placeholders.max(declared.len());
        let mut db = self.db();
        let snapshot = db.txns.snapshot();
        let settings = session::Settings::default();
        let mut undo = Vec::new();
        let params: Vec<Typed> = (0..count)
            .map(|i| Typed::null(declared.get(i).copied().unwrap_or(Type::Unknown)))
            .collect();
        let mut exec = exec::Exec {
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
            aggregates: Vec::new(),
            nesting: 0,
            param_hints: Vec::new(),
            seed: 0,
            subqueries: Default::default(),
            fk_pending: Default::default(),
            ctes: Vec::new(),
        };
        let columns = exec.describe(statement).map_err(|flow| match flow {
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
    /// another transaction, failing it on a deadlock or a cancel request.
    pub(crate) async fn run(
        &self,
        session: &mut Session,
        statement: &Statement,
        params: &[Typed],
    ) -> PgResult<Outcome> {
        if let Some(outcome) = catalog::run(statement, params) {
            return Ok(outcome);
        }
        loop {
            let mut woken = self.shared.epoch.subscribe();
            let (blocker, since_us) = match self.attempt(session, statement, params) {
                Ok(outcome) => return Ok(outcome),
                Err(Flow::Error(error)) => return Err(error),
                Err(Flow::Wait { backend }) => {
                    backend_wait(&mut self.db(), session.backend, backend, self.now())
                }
            };
            let deadline_us = since_us + DEADLOCK_TIMEOUT_US - self.now().clock_us;
            let timer =
                tokio::time::sleep(std::time::Duration::from_micros(deadline_us.max(0) as u64));
            tokio::select! {
                _ = woken.changed() => {}
                _ = timer => {
                    if let Some(error) = self.check_deadlock(session, blocker) {
                        return Err(error);
                    }
                    let _ = woken.changed().await;
                }
            }
        }
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
            db.waits.remove(&session.backend);
            session.abandon_wait(&mut db, now);
            self.bump();
            return Err(
                PgError::new(QUERY_CANCELED, "canceling statement due to user request").into(),
            );
        }
        let result = session.execute(&mut db, statement, params, now);
        if !matches!(result, Err(Flow::Wait { .. })) {
            db.waits.remove(&session.backend);
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
        db.waits.remove(&session.backend);
        session.abandon_wait(&mut db, now);
        drop(db);
        self.bump();
        Some(PgError::new(DEADLOCK_DETECTED, "deadlock detected").with_detail(format!("Process {} waits for a lock held by process {blocker}; that process waits in turn.", session.backend)))
    }

    fn bump(&self) {
        self.shared.epoch.send_modify(|e| *e += 1);
    }

    pub(crate) fn close_session(&self, session: &mut Session) {
        let now = self.now();
        session.close(&mut self.db(), now);
        self.bump();
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
        db.advisory.clear();
        db.waits.clear();
        let db = &mut *db;
        for table in db.tables.values_mut() {
            table.vacuum(&db.txns);
        }
        lost
    }

    /// Rows stored (live) across every table, for a restart's line.
    pub(crate) fn live_rows(&self) -> usize {
        let db = self.db();
        db.tables.values().map(|t| t.heap.len()).sum()
    }
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

/// Serve every connection `listener` accepts, on the OS clock (`amnesia serve-pg-model`):
/// the model outside a simulation, for psql or a differential test.
pub async fn serve_tcp(listener: tokio::net::TcpListener, seed: u64) -> std::io::Result<()> {
    let clock: PgClock = Arc::new(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as i64)
    });
    let model = PgModel::new(seed, clock);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(model.clone().serve_connection(stream));
    }
}
