//! One connection's server side: its transaction block (idle, open, failed), its
//! transaction (id, snapshot, command counter, undo log, savepoints), its settings, and
//! the dispatch of one parsed statement. Running a statement is synchronous under the
//! database's lock; one that must wait returns [`Flow::Wait`] with its writes undone and
//! its snapshot kept, and runs again when the transaction it waits for ends.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Interrupts, Outcome, Rows};
use crate::pg::sql::maintenance::{marked, Marked};
use crate::pg::sql::names::{ident, object_name};
use crate::pg::storage::db::{roll_back_to, Db, Undo};
use crate::pg::storage::txn::{Snapshot, Xid};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::Typed;
use sqlparser::ast::{Statement, TransactionIsolationLevel, TransactionMode};

pub(crate) use crate::pg::settings::Settings;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    Idle,
    Open,
    Failed,
}

/// The open transaction of a connection.
#[derive(Debug)]
pub(crate) struct Txn {
    pub xid: Xid,
    pub repeatable_read: bool,
    /// The level's name, as `SHOW transaction_isolation` prints it (READ UNCOMMITTED
    /// runs as READ COMMITTED, as in PostgreSQL, but keeps its name).
    pub isolation: &'static str,
    /// REPEATABLE READ's snapshot, taken by its first statement.
    pub snapshot: Option<Snapshot>,
    pub cid: u32,
    /// `now()`, µs since 2000-01-01.
    pub start_us: i64,
    pub undo: Vec<Undo>,
    pub savepoints: Vec<(String, usize)>,
}

/// A connection's state.
pub(crate) struct Session {
    pub backend: u32,
    pub block: Block,
    pub txn: Option<Txn>,
    pub settings: Settings,
    /// The snapshot of a READ COMMITTED statement that waited: it runs again with it.
    pub waiting_snapshot: Option<Snapshot>,
    pub seed: u64,
    /// What the running statement looks at as it works (the server sets it per statement).
    pub interrupts: Option<Interrupts>,
}

/// The server clock and model-wide facts a statement reads.
#[derive(Clone, Copy)]
pub(crate) struct Now {
    /// µs since 2000-01-01.
    pub clock_us: i64,
}

impl Session {
    pub(crate) fn new(backend: u32, seed: u64) -> Session {
        Session {
            backend,
            block: Block::Idle,
            txn: None,
            settings: Settings::default(),
            waiting_snapshot: None,
            seed,
            interrupts: None,
        }
    }

    /// `ReadyForQuery`'s status byte.
    pub(crate) fn status(&self) -> u8 {
        match self.block {
            Block::Idle => b'I',
            Block::Open => b'T',
            Block::Failed => b'E',
        }
    }

    /// Run `statement` once (a wait comes back as [`Flow::Wait`]).
    pub(crate) fn execute(
        &mut self,
        db: &mut Db,
        statement: &Statement,
        params: &[Typed],
        now: Now,
    ) -> FlowResult<Outcome> {
        match self.control(db, statement, now) {
            Ok(Some(outcome)) => return Ok(outcome),
            Ok(None) => {}
            // A savepoint name that does not exist is an error as any other: it fails an
            // open block (PostgreSQL leaves the transaction aborted, `E`).
            Err(error) => {
                if self.block == Block::Open {
                    self.fail(db, false, now);
                }
                return Err(error);
            }
        }
        if self.block == Block::Failed {
            return Err(aborted().into());
        }
        match self.setting(statement) {
            Ok(Some(outcome)) => return Ok(outcome),
            Ok(None) => {}
            // A refused SET fails the block as any statement's error does.
            Err(error) => {
                let implicit = self.block == Block::Idle;
                self.fail(db, implicit, now);
                return Err(error);
            }
        }
        let implicit = self.block == Block::Idle;
        if implicit && matches!(statement, Statement::Lock(_)) {
            return Err(PgError::new(
                NO_ACTIVE_SQL_TRANSACTION,
                "LOCK TABLE can only be used in transaction blocks",
            )
            .into());
        }
        if let (false, Err(error)) = (implicit, refuse_in_block(statement)) {
            self.fail(db, false, now);
            return Err(error.into());
        }
        // An implicit transaction outlives its statement's waits.
        if implicit && self.txn.is_none() {
            self.begin(db, now, false);
        }
        let ran = self.run(db, statement, params, now);
        match ran {
            Ok(outcome) => {
                if implicit {
                    self.finish(db, true, now);
                }
                Ok(outcome)
            }
            Err(Flow::Wait { backend }) => Err(Flow::Wait { backend }),
            Err(Flow::Error(error)) => {
                self.fail(db, implicit, now);
                Err(Flow::Error(error))
            }
        }
    }

    /// A statement failed: an implicit transaction ends; an explicit one is aborted and
    /// refuses everything until ROLLBACK.
    pub(crate) fn fail(&mut self, db: &mut Db, implicit: bool, now: Now) {
        self.waiting_snapshot = None;
        if implicit || self.block == Block::Idle {
            self.finish(db, false, now);
            return;
        }
        // PostgreSQL aborts the transaction at the error, releasing its locks; under a
        // savepoint only the subtransaction since it, which ROLLBACK TO revives.
        let savepoint = self
            .txn
            .as_ref()
            .and_then(|t| t.savepoints.last().map(|(_, at)| *at));
        match (savepoint, self.txn.as_mut()) {
            (Some(marker), Some(txn)) => roll_back_to(db, &mut txn.undo, marker),
            _ => self.finish(db, false, now),
        }
        self.block = Block::Failed;
    }

    /// A statement panicked (`server.rs` caught it): its writes past `marker` in the undo
    /// log are undone and the whole transaction aborts; an explicit block is left failed
    /// until ROLLBACK.
    pub(crate) fn panicked(&mut self, db: &mut Db, marker: usize, now: Now) {
        if let Some(txn) = self.txn.as_mut() {
            let keep = marker.min(txn.undo.len());
            roll_back_to(db, &mut txn.undo, keep);
        }
        let explicit = self.block != Block::Idle;
        self.finish(db, false, now);
        db.stop_waiting(self.backend);
        if explicit {
            self.block = Block::Failed;
        }
    }

    /// The statement after a wait gave up (the client went away, or a deadlock).
    pub(crate) fn abandon_wait(&mut self, db: &mut Db, now: Now) {
        let implicit = self.txn.is_some() && self.block == Block::Idle;
        self.fail(db, implicit, now);
    }

    fn run(
        &mut self,
        db: &mut Db,
        statement: &Statement,
        params: &[Typed],
        now: Now,
    ) -> FlowResult<Outcome> {
        let snapshot = self.statement_snapshot(db);
        let txn = self.txn.as_mut().expect("begun above");
        let marker = txn.undo.len();
        let mut exec = Exec {
            db,
            backend: self.backend,
            xid: txn.xid,
            cid: txn.cid,
            snapshot: snapshot.clone(),
            repeatable_read: txn.repeatable_read,
            params: params.to_vec(),
            now_us: txn.start_us,
            clock_us: now.clock_us,
            settings: &self.settings,
            undo: &mut txn.undo,
            work: 0,
            interrupts: self.interrupts.clone(),
            interrupt_at: 0,
            aggregates: Vec::new(),
            windows: Vec::new(),
            nesting: 0,
            param_hints: Vec::new(),
            seed: self.seed,
            subqueries: Default::default(),
            fk_pending: Default::default(),
            ctes: Vec::new(),
        };
        let result = exec.statement(statement);
        match &result {
            Ok(_) => {
                txn.cid += 1;
                self.waiting_snapshot = None;
            }
            Err(Flow::Wait { .. }) => {
                roll_back_to(db, &mut txn.undo, marker);
                self.waiting_snapshot = Some(snapshot);
            }
            Err(Flow::Error(_)) => roll_back_to(db, &mut txn.undo, marker),
        }
        result
    }

    /// READ COMMITTED: a new snapshot per statement (the one it waited with, if it
    /// waited); REPEATABLE READ: the transaction's first.
    fn statement_snapshot(&mut self, db: &mut Db) -> Snapshot {
        let txn = self.txn.as_mut().expect("begun");
        let xid = txn.xid;
        if txn.repeatable_read {
            return txn
                .snapshot
                .get_or_insert_with(|| db.txns.snapshot_for(xid))
                .clone();
        }
        self.waiting_snapshot
            .clone()
            .unwrap_or_else(|| db.txns.snapshot_for(xid))
    }

    pub(crate) fn begin(&mut self, db: &mut Db, now: Now, explicit: bool) {
        assert!(self.txn.is_none(), "one transaction at a time");
        let isolation = level(self.settings.get("default_transaction_isolation"))
            .and_then(Result::ok)
            .expect("the setting holds a level the model runs (SERIALIZABLE is refused)");
        self.txn = Some(Txn {
            xid: db.txns.begin(self.backend),
            repeatable_read: isolation == "repeatable read",
            isolation,
            snapshot: None,
            cid: 0,
            start_us: now.clock_us,
            undo: Vec::new(),
            savepoints: Vec::new(),
        });
        self.settings.begin_transaction();
        self.block = if explicit { Block::Open } else { Block::Idle };
    }

    /// Commit (or abort) the open transaction, release its locks, forget its settings.
    pub(crate) fn finish(&mut self, db: &mut Db, commit: bool, now: Now) {
        let Some(txn) = self.txn.take() else {
            self.block = Block::Idle;
            return;
        };
        let synchronous = self.settings.get("synchronous_commit") != "off";
        let at_us = now.clock_us + crate::pg::types::pg_type::PG_EPOCH_UNIX_US;
        db.txns.end(txn.xid, commit, synchronous, at_us);
        db.end_schema(txn.xid, commit);
        db.release_advisory(self.backend, false);
        db.release_table_locks(txn.xid);
        self.settings.end_transaction(commit);
        self.block = Block::Idle;
        self.waiting_snapshot = None;
        // The horizon moves only when a transaction ends.
        db.prune();
    }

    /// The connection ends: its transaction aborts, its session locks go.
    pub(crate) fn close(&mut self, db: &mut Db, now: Now) {
        self.finish(db, false, now);
        db.release_advisory(self.backend, true);
        db.stop_waiting(self.backend);
    }

    /// Transaction control; `None` for any other statement.
    fn control(
        &mut self,
        db: &mut Db,
        statement: &Statement,
        now: Now,
    ) -> FlowResult<Option<Outcome>> {
        let outcome = match statement {
            Statement::StartTransaction { modes, begin, .. } => {
                // PostgreSQL tags each spelling with its own words.
                let tag = if *begin { "BEGIN" } else { "START TRANSACTION" };
                if self.block != Block::Idle {
                    return Ok(Some(
                        Outcome::tag(tag).warn("there is already a transaction in progress"),
                    ));
                }
                // A refused mode leaves no transaction behind.
                let isolation = isolation_of(modes)?;
                self.begin(db, now, true);
                self.set_isolation(isolation)?;
                Outcome::tag(tag)
            }
            Statement::Commit { .. } => match self.block {
                Block::Idle if self.txn.is_none() => {
                    Outcome::tag("COMMIT").warn("there is no transaction in progress")
                }
                Block::Idle => (self.finish(db, true, now), Outcome::tag("COMMIT")).1,
                Block::Failed => (self.finish(db, false, now), Outcome::tag("ROLLBACK")).1,
                Block::Open => (self.finish(db, true, now), Outcome::tag("COMMIT")).1,
            },
            Statement::Rollback {
                savepoint: None, ..
            } => match self.block {
                Block::Idle => Outcome::tag("ROLLBACK").warn("there is no transaction in progress"),
                _ => (self.finish(db, false, now), Outcome::tag("ROLLBACK")).1,
            },
            Statement::Rollback {
                savepoint: Some(name),
                ..
            } => self.rollback_to(db, &ident(name))?,
            Statement::Savepoint { name } => self.savepoint(&ident(name))?,
            Statement::ReleaseSavepoint { name } => self.release(&ident(name))?,
            _ => return Ok(None),
        };
        Ok(Some(outcome))
    }

    /// SET TRANSACTION's modes on the open transaction.
    fn transaction_modes(&mut self, modes: &[TransactionMode]) -> PgResult<()> {
        let isolation = isolation_of(modes)?;
        self.set_isolation(isolation)
    }

    /// The open transaction runs at `isolation` (if named), before its first query only.
    fn set_isolation(&mut self, isolation: Option<&'static str>) -> PgResult<()> {
        let Some(isolation) = isolation else {
            return Ok(());
        };
        let txn = self.txn.as_mut().ok_or_else(|| {
            PgError::new(
                NO_ACTIVE_SQL_TRANSACTION,
                "SET TRANSACTION can only be used in transaction blocks",
            )
        })?;
        if txn.isolation == isolation {
            return Ok(());
        }
        if txn.cid > 0 || txn.snapshot.is_some() {
            return Err(PgError::new(
                ACTIVE_SQL_TRANSACTION,
                "SET TRANSACTION ISOLATION LEVEL must be called before any query",
            ));
        }
        txn.isolation = isolation;
        txn.repeatable_read = isolation == "repeatable read";
        Ok(())
    }

    fn savepoint(&mut self, name: &str) -> FlowResult<Outcome> {
        if self.block == Block::Failed {
            return Err(aborted().into());
        }
        let txn = self.txn.as_mut().filter(|_| self.block == Block::Open);
        let txn = txn.ok_or_else(|| {
            PgError::new(
                NO_ACTIVE_SQL_TRANSACTION,
                "SAVEPOINT can only be used in transaction blocks",
            )
        })?;
        txn.savepoints.push((name.to_string(), txn.undo.len()));
        self.settings.savepoint();
        Ok(Outcome::tag("SAVEPOINT"))
    }

    fn release(&mut self, name: &str) -> FlowResult<Outcome> {
        if self.block == Block::Failed {
            return Err(aborted().into());
        }
        let txn = self.txn.as_mut().filter(|_| self.block == Block::Open);
        let txn = txn.ok_or_else(|| {
            PgError::new(
                NO_ACTIVE_SQL_TRANSACTION,
                "RELEASE SAVEPOINT can only be used in transaction blocks",
            )
        })?;
        let at = txn
            .savepoints
            .iter()
            .rposition(|(n, _)| n == name)
            .ok_or_else(|| no_savepoint(name))?;
        txn.savepoints.truncate(at);
        self.settings.release(at + 1);
        Ok(Outcome::tag("RELEASE"))
    }

    /// ROLLBACK TO SAVEPOINT: the writes since it are undone; a failed block is usable again.
    fn rollback_to(&mut self, db: &mut Db, name: &str) -> FlowResult<Outcome> {
        if self.block == Block::Failed && self.txn.is_none() {
            // A block that failed outside any savepoint is still a block: the name is
            // looked up, and there is none to find.
            return Err(no_savepoint(name).into());
        }
        let txn = self.txn.as_mut().filter(|_| self.block != Block::Idle);
        let txn = txn.ok_or_else(|| {
            PgError::new(
                NO_ACTIVE_SQL_TRANSACTION,
                "ROLLBACK TO SAVEPOINT can only be used in transaction blocks",
            )
        })?;
        let at = txn
            .savepoints
            .iter()
            .rposition(|(n, _)| n == name)
            .ok_or_else(|| no_savepoint(name))?;
        let marker = txn.savepoints[at].1;
        txn.savepoints.truncate(at + 1);
        roll_back_to(db, &mut txn.undo, marker);
        self.settings.roll_back_to(at + 1);
        txn.cid += 1;
        self.block = Block::Open;
        Ok(Outcome::tag("ROLLBACK"))
    }

    /// `SET name TO DEFAULT`: a RESET; `SET LOCAL … TO DEFAULT` is refused (the model keeps
    /// no local default apart from the session's value).
    fn set_default(&mut self, name: &str, local: bool) -> FlowResult<Outcome> {
        if local {
            return Err(PgError::unsupported("SET LOCAL … TO DEFAULT").into());
        }
        self.settings.reset(Some(name))?;
        Ok(Outcome::tag("SET"))
    }

    /// SET, SET LOCAL, SET TRANSACTION, SHOW, RESET; `None` for any other statement.
    fn setting(&mut self, statement: &Statement) -> FlowResult<Option<Outcome>> {
        use sqlparser::ast::{ContextModifier, Reset, Set};
        let outcome = match statement {
            Statement::Set(Set::SingleAssignment {
                scope,
                variable,
                values,
                ..
            }) => {
                let name = object_name(variable).join(".");
                let value = values
                    .iter()
                    .map(setting_value)
                    .collect::<Vec<_>>()
                    .join(", ");
                let local = matches!(scope, Some(ContextModifier::Local));
                if let [sqlparser::ast::Expr::Identifier(word)] = values.as_slice() {
                    if word.quote_style.is_none() && word.value.eq_ignore_ascii_case("default") {
                        return self.set_default(&name, local).map(Some);
                    }
                }
                if name.eq_ignore_ascii_case("transaction_isolation") {
                    let isolation = level(&value.to_lowercase()).ok_or_else(|| {
                        PgError::new(
                            INVALID_PARAMETER_VALUE,
                            format!("invalid value for parameter \"transaction_isolation\": \"{value}\""),
                        )
                    })?;
                    // Outside a block the statement's own transaction takes it and ends.
                    if self.block != Block::Idle {
                        self.set_isolation(Some(isolation?))?;
                    } else {
                        isolation?;
                    }
                    return Ok(Some(Outcome::tag("SET")));
                }
                if local && self.block == Block::Idle {
                    return Ok(Some(
                        Outcome::tag("SET")
                            .warn("SET LOCAL can only be used in transaction blocks"),
                    ));
                }
                self.settings.set(&name, value, local)?;
                Outcome::tag("SET")
            }
            Statement::Set(Set::SetTransaction {
                modes,
                session: false,
                ..
            }) => {
                if self.block == Block::Idle {
                    return Ok(Some(
                        Outcome::tag("SET")
                            .warn("SET TRANSACTION can only be used in transaction blocks"),
                    ));
                }
                self.transaction_modes(modes)?;
                Outcome::tag("SET")
            }
            Statement::Set(Set::SetTransaction {
                modes,
                session: true,
                snapshot: None,
            }) => {
                // SET SESSION CHARACTERISTICS AS TRANSACTION: the default of later ones.
                if let Some(isolation) = isolation_of(modes)? {
                    let local = false;
                    self.settings.set(
                        "default_transaction_isolation",
                        isolation.to_string(),
                        local,
                    )?;
                }
                Outcome::tag("SET")
            }
            Statement::Set(Set::SetTimeZone { .. }) => {
                return Err(PgError::unsupported("SET TIME ZONE").into())
            }
            Statement::ShowVariable { variable } => {
                let name = variable.iter().map(ident).collect::<Vec<_>>().join(".");
                let value = match (name.as_str(), &self.txn) {
                    ("transaction_isolation", Some(txn)) => txn.isolation.to_string(),
                    ("transaction_isolation", _) => {
                        self.settings.show("default_transaction_isolation")?
                    }
                    _ => self.settings.show(&name)?,
                };
                let rows = Rows {
                    columns: vec![(Settings::column_name(&name), Type::Text)],
                    rows: vec![vec![crate::pg::types::value::Value::Text(value)]],
                };
                Outcome {
                    rows: Some(rows),
                    tag: "SHOW".into(),
                    warning: None,
                }
            }
            Statement::Reset(reset) => {
                match &reset.reset {
                    Reset::ALL => self.settings.reset(None)?,
                    Reset::ConfigurationParameter(name) => {
                        self.settings.reset(Some(&object_name(name).join(".")))?
                    }
                    Reset::SessionAuthorization => {
                        return Err(PgError::unsupported("RESET SESSION AUTHORIZATION").into())
                    }
                }
                Outcome::tag("RESET")
            }
            Statement::Set(other) => return Err(PgError::unsupported(format!("`{other}`")).into()),
            _ => return Ok(None),
        };
        Ok(Some(outcome))
    }
}

/// The isolation level `modes` name, if any: SERIALIZABLE refused, access modes refused.
fn isolation_of(modes: &[TransactionMode]) -> PgResult<Option<&'static str>> {
    let mut isolation = None;
    for mode in modes {
        match mode {
            TransactionMode::IsolationLevel(level) => {
                isolation = Some(match level {
                    TransactionIsolationLevel::ReadUncommitted => "read uncommitted",
                    TransactionIsolationLevel::ReadCommitted => "read committed",
                    TransactionIsolationLevel::RepeatableRead => "repeatable read",
                    TransactionIsolationLevel::Serializable => {
                        return Err(crate::pg::settings::serializable_refused())
                    }
                    TransactionIsolationLevel::Snapshot => {
                        return Err(PgError::syntax("syntax error at or near \"SNAPSHOT\""))
                    }
                })
            }
            TransactionMode::AccessMode(_) => {
                return Err(PgError::unsupported("READ ONLY / READ WRITE"))
            }
        }
    }
    Ok(isolation)
}

/// The level a setting's value names, as the model runs it: `Err` for SERIALIZABLE
/// (refused), `None` for a name that is no level.
fn level(value: &str) -> Option<PgResult<&'static str>> {
    match value.trim() {
        "serializable" => Some(Err(crate::pg::settings::serializable_refused())),
        "repeatable read" => Some(Ok("repeatable read")),
        "read committed" => Some(Ok("read committed")),
        "read uncommitted" => Some(Ok("read uncommitted")),
        _ => None,
    }
}

/// A SET value as PostgreSQL keeps it: a word, a number or a string's contents.
fn setting_value(e: &sqlparser::ast::Expr) -> String {
    match e {
        sqlparser::ast::Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::SingleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        sqlparser::ast::Expr::Identifier(i) => ident(i),
        other => other.to_string(),
    }
}

/// The statements PostgreSQL runs only outside a transaction block (25001).
fn refuse_in_block(statement: &Statement) -> PgResult<()> {
    let what = match statement {
        Statement::CreateIndex(create) if create.concurrently => "CREATE INDEX CONCURRENTLY",
        Statement::Vacuum(_) => "VACUUM",
        Statement::Drop { names, .. } => match names.first().and_then(marked) {
            Some((Marked::DropConcurrently, _)) => "DROP INDEX CONCURRENTLY",
            Some((Marked::Reindex { concurrently: true }, _)) => "REINDEX CONCURRENTLY",
            _ => return Ok(()),
        },
        _ => return Ok(()),
    };
    Err(PgError::new(
        ACTIVE_SQL_TRANSACTION,
        format!("{what} cannot run inside a transaction block"),
    ))
}

/// What a failed transaction block answers to anything but its end or a savepoint's
/// rollback.
fn aborted() -> PgError {
    PgError::new(
        IN_FAILED_TRANSACTION,
        "current transaction is aborted, commands ignored until end of transaction block",
    )
}

fn no_savepoint(name: &str) -> PgError {
    PgError::new(
        INVALID_SAVEPOINT,
        format!("savepoint \"{name}\" does not exist"),
    )
}
