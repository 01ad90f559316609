//! The database a statement runs against ([`Db`]: tables, the commit log, advisory locks)
//! and one statement's execution context ([`Exec`]: who runs it, what it sees, its
//! parameters, its undo log). Every statement's work is counted and bounded.

use crate::pg::error::*;
use crate::pg::settings::Settings;
use crate::pg::sql::scope::{resolve, undefined_column, Source};
use crate::pg::storage::db::{Db, TableLock, TableLockMode, Undo};
use crate::pg::storage::heap::{RowLock, RowLockMode, Version, Viewer};
use crate::pg::storage::txn::{Snapshot, Xid};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};

/// Rows, expression evaluations and index probes one statement may spend.
pub(crate) const STATEMENT_WORK_MAX: u64 = 20_000_000;
/// Work steps between a running statement's looks at its interrupts.
pub(crate) const INTERRUPT_STEPS: u64 = 4_096;

/// What a running statement looks at every [`INTERRUPT_STEPS`] (PostgreSQL's
/// `CHECK_FOR_INTERRUPTS`): the error to end it with, if any (a cancel request with its
/// backend's key, its `statement_timeout` past in the model's clock). The server makes
/// it (`server.rs`); in a simulation the clock is virtual and no request arrives while a
/// statement runs, so the answer is the same on every run.
pub(crate) type Interrupts = std::sync::Arc<dyn Fn() -> Option<PgError> + Send + Sync>;
/// What a statement returns.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows {
    pub columns: Vec<(String, Type)>,
    pub rows: Vec<Vec<Value>>,
}

impl Rows {
    pub(crate) fn single_column_type(&self) -> PgResult<Type> {
        match self.columns.as_slice() {
            [(_, t)] => Ok(*t),
            _ => Err(PgError::syntax("subquery must return only one column")),
        }
    }
}

/// One statement's execution.
pub(crate) struct Exec<'a> {
    pub db: &'a mut Db,
    pub backend: u32,
    pub xid: Xid,
    /// The statement's command id within its transaction.
    pub cid: u32,
    pub snapshot: Snapshot,
    pub repeatable_read: bool,
    pub params: Vec<Typed>,
    /// `now()`: the transaction's start, µs since 2000-01-01.
    pub now_us: i64,
    /// `clock_timestamp()`: the server's clock now, µs since 2000-01-01.
    pub clock_us: i64,
    pub settings: &'a Settings,
    pub undo: &'a mut Vec<Undo>,
    pub work: u64,
    /// The statement's interrupts (none while describing), and the work count at which
    /// it looks at them next.
    pub interrupts: Option<Interrupts>,
    pub interrupt_at: u64,
    /// Aggregate results of the group being projected, by the aggregate call's address.
    pub aggregates: Vec<(usize, Typed)>,
    /// Window function results of the row being projected, by the call's address.
    pub windows: Vec<(usize, Typed)>,
    /// Subqueries open around the expression being evaluated.
    pub nesting: u32,
    /// Per-parameter types the statement's context gave (Describe's answer).
    pub param_hints: Vec<Type>,
    /// The model's seed: vector indexes draw their randomness from it.
    pub seed: u64,
    /// Uncorrelated subqueries' rows, run once per statement as PostgreSQL's InitPlans.
    pub subqueries: Subqueries,
    /// The CTEs in scope, innermost last.
    pub ctes: Vec<crate::pg::exec::context::Named>,
    /// The foreign-key events the statement's end fires.
    pub fk_pending: crate::pg::exec::context::Pending,
}

/// The rows of the statement's uncorrelated subqueries, by the subquery's address in the
/// statement's syntax tree (alive as long as the statement's [`Exec`]).
#[derive(Debug)]
pub(crate) struct Subqueries {
    /// The shallowest frame depth a column was read from since the innermost open
    /// subquery began.
    pub read_depth_min: u32,
    pub rows: Vec<(usize, Rows)>,
}

impl Default for Subqueries {
    fn default() -> Self {
        Subqueries {
            read_depth_min: u32::MAX,
            rows: Vec::new(),
        }
    }
}

impl Exec<'_> {
    /// The type a SQL type name spells, as this database knows it: pgvector's `vector`
    /// (and `halfvec`) exists only once `CREATE EXTENSION vector` ran (a schema that forgot it fails here
    /// as it fails on PostgreSQL, not only in production).
    pub(crate) fn sql_type(
        &self,
        data_type: &sqlparser::ast::DataType,
    ) -> PgResult<(Type, Option<u32>)> {
        let (t, modifier) = crate::pg::types::regtype::sql_type(data_type)
            .map_err(|e| self.row_type_refused(data_type, e))?;
        let vector = t.element().unwrap_or(t).vector_kind().is_some();
        if vector && !self.db.extensions.contains("vector") {
            return Err(PgError::new(
                UNDEFINED_OBJECT,
                format!(
                    "type \"{}\" does not exist",
                    t.element().unwrap_or(t).typname()
                ),
            ));
        }
        Ok((t, modifier))
    }

    /// A type name no type has but a table does: PostgreSQL's row type of the table (a
    /// composite type the model lacks), refused rather than reported missing.
    fn row_type_refused(&self, data_type: &sqlparser::ast::DataType, error: PgError) -> PgError {
        let spelled = data_type.to_string().to_lowercase();
        let name = spelled.split(['[', ' ']).next().unwrap_or_default();
        match error.code == UNDEFINED_OBJECT && self.db.tables.contains_key(name) {
            true => PgError::unsupported(format!("the row type of table {name}")),
            false => error,
        }
    }

    /// Count one unit of work; a statement over the bound is refused instead of stalling
    /// (PostgreSQL would answer it, given the time: no error of its own fits).
    pub(crate) fn tick(&mut self) -> PgResult<()> {
        self.work += 1;
        if self.work > STATEMENT_WORK_MAX {
            return Err(PgError::unsupported(format!(
                "a statement of more than the model's {STATEMENT_WORK_MAX} steps of work"
            )));
        }
        if self.work >= self.interrupt_at {
            self.interrupt_at = self.work + INTERRUPT_STEPS;
            if let Some(error) = self.interrupts.as_ref().and_then(|check| check()) {
                return Err(error);
            }
        }
        Ok(())
    }

    pub(crate) fn viewer(&self) -> Viewer<'_> {
        Viewer {
            snapshot: &self.snapshot,
            xid: self.xid,
            cid: self.cid,
        }
    }

    /// The versions of `table` this statement sees, in heap order: (tid, row).
    pub(crate) fn scan(&mut self, table: &str) -> FlowResult<Vec<(u64, Vec<Value>)>> {
        self.scan_at(table, self.cid)
    }

    /// The versions of `table` visible to this transaction's command `cid` (the
    /// statement's own, or the next one to see what the statement wrote).
    pub(crate) fn scan_at(&mut self, table: &str, cid: u32) -> FlowResult<Vec<(u64, Vec<Value>)>> {
        self.db.table(table)?;
        self.lock_table(table, TableLockMode::AccessShare)?;
        self.work += self.db.table(table)?.heap.len() as u64;
        self.tick()?;
        let t = self.db.table(table)?;
        let viewer = Viewer {
            snapshot: &self.snapshot,
            xid: self.xid,
            cid,
        };
        let tids = t.visible(&self.db.txns, viewer);
        Ok(tids
            .into_iter()
            .map(|tid| (tid, t.heap[&tid].data.clone()))
            .collect())
    }

    /// Take `mode` on `table` for the rest of the transaction, waiting (first come, first
    /// served) while another open transaction holds a conflicting mode. Describing a
    /// statement (no transaction) takes none.
    pub(crate) fn lock_table(&mut self, table: &str, mode: TableLockMode) -> FlowResult<()> {
        if self.xid == crate::pg::storage::txn::XID_NONE {
            return Ok(());
        }
        let held = self
            .db
            .table_locks
            .get(table)
            .map_or(&[][..], Vec::as_slice);
        if held.iter().any(|l| l.xid == self.xid && l.mode == mode) {
            return Ok(());
        }
        if let Some(blocker) = self
            .db
            .table_lock_blocker(table, self.xid, self.backend, mode)
        {
            return Err(Flow::Wait { backend: blocker });
        }
        let lock = TableLock {
            xid: self.xid,
            backend: self.backend,
            mode,
        };
        self.db
            .table_locks
            .entry(table.to_string())
            .or_default()
            .push(lock);
        self.undo.push(Undo::TableLock {
            table: table.to_string(),
            lock,
        });
        Ok(())
    }

    /// The versions of `table` a snapshot taken now sees, with this transaction's writes
    /// so far (the statement's own included): what PostgreSQL's foreign-key checks read
    /// when a concurrent change must not be missed.
    pub(crate) fn scan_latest(&mut self, table: &str) -> FlowResult<Vec<(u64, Vec<Value>)>> {
        let latest = self.db.txns.snapshot();
        let statement = std::mem::replace(&mut self.snapshot, latest);
        let rows = self.scan_at(table, self.cid + 1);
        self.snapshot = statement;
        rows
    }

    /// Write a new version of `table`.
    pub(crate) fn insert_version(&mut self, table: &str, data: Vec<Value>) -> PgResult<u64> {
        let (xid, cid) = (self.xid, self.cid);
        let t = self.db.table_mut(table)?;
        if t.heap.len() >= crate::pg::storage::heap::TABLE_VERSIONS_MAX {
            return Err(PgError::new(
                PROGRAM_LIMIT_EXCEEDED,
                format!("table \"{table}\" is over the model's row versions limit"),
            ));
        }
        let tid = t.push(Version {
            xmin: xid,
            cmin: cid,
            xmax: 0,
            cmax: 0,
            xmax_mode: RowLockMode::Update,
            lockers: Vec::new(),
            next: None,
            data,
        });
        self.undo.push(Undo::Inserted {
            table: table.to_string(),
            tid,
        });
        Ok(tid)
    }

    /// Mark version `tid` deleted (or updated) by this statement, holding it with `mode`
    /// (the row lock a delete or update takes), pointing at `next`.
    pub(crate) fn mark(
        &mut self,
        table: &str,
        tid: u64,
        mode: RowLockMode,
        next: Option<u64>,
    ) -> PgResult<()> {
        assert!(
            mode >= RowLockMode::NoKeyUpdate,
            "a change takes an update's lock"
        );
        let (xid, cid) = (self.xid, self.cid);
        let heap = &mut self.db.table_mut(table)?.heap;
        let v = heap.get_mut(&tid).expect("a version this statement read");
        let before = (v.xmax, v.cmax, v.xmax_mode, v.next);
        (v.xmax, v.cmax, v.xmax_mode, v.next) = (xid, cid, mode, next);
        heap.marked(tid, xid);
        self.undo.push(Undo::Marked {
            table: table.to_string(),
            tid,
            before,
        });
        Ok(())
    }

    /// Record that this transaction holds version `tid` with `mode` (a lock it already
    /// holds as strong or stronger is left as it is).
    pub(crate) fn add_lock(&mut self, table: &str, tid: u64, mode: RowLockMode) -> PgResult<()> {
        let xid = self.xid;
        let db = &mut *self.db;
        let txns = &db.txns;
        let v = db
            .tables
            .get_mut(table)
            .ok_or_else(|| crate::pg::storage::db::undefined_table(table))?
            .heap
            .get_mut(&tid)
            .expect("a version this statement read");
        let held = v.lockers.iter().find(|l| l.xid == xid).map(|l| l.mode);
        let updated = v.xmax == xid && v.xmax_mode >= mode;
        if updated || held.is_some_and(|held| held >= mode) {
            return Ok(());
        }
        let before = v.lockers.clone();
        // The locks of ended transactions go (a queue's row, locked by one job after
        // another, would otherwise keep them all).
        let open = |l: &RowLock| txns.status(l.xid) == crate::pg::storage::txn::Status::InProgress;
        v.lockers.retain(|l| l.xid != xid && open(l));
        v.lockers.push(RowLock { xid, mode });
        self.undo.push(Undo::Locked {
            table: table.to_string(),
            tid,
            before,
        });
        Ok(())
    }
}

/// The row an expression is evaluated on, and the rows of the queries around it.
#[derive(Clone, Copy)]
pub(crate) struct Frame<'f> {
    pub sources: &'f [Source],
    pub values: &'f [Value],
    pub parent: Option<&'f Frame<'f>>,
    /// How many subqueries enclose the query whose row this is (0: the statement's own).
    /// A subquery that reads no column of a frame shallower than itself is uncorrelated.
    pub depth: u32,
}

impl Frame<'_> {
    pub(crate) const EMPTY: Frame<'static> = Frame {
        sources: &[],
        values: &[],
        parent: None,
        depth: 0,
    };

    /// The value and type of a column named by `parts` (`x` or `t.x`), and the depth of
    /// the frame that holds it.
    pub(crate) fn column(&self, parts: &[String]) -> PgResult<(Typed, u32)> {
        let found = resolve(self.sources, parts)?;
        if found.is_none() {
            crate::pg::sql::scope::refuse_whole_row(self.sources, parts)?;
        }
        // A typing frame (Describe, a LATERAL item's columns) has sources but no values:
        // its columns read as NULLs of their types.
        debug_assert!(found.is_none_or(|(at, _)| self.values.is_empty() || at < self.values.len()));
        // A qualifier names the nearest FROM item so named: a column it lacks is not
        // looked for further out.
        let named_here = matches!(parts, [q, _] if self.sources.iter().any(|s| &s.alias == q));
        match (found, self.parent) {
            (Some((at, t)), _) => {
                let value = self.values.get(at).cloned().unwrap_or(Value::Null);
                Ok((Typed::new(value, t), self.depth))
            }
            (None, Some(parent)) if !named_here => {
                parent.column(parts).map_err(|e| self.missing(parts, e))
            }
            (None, _) => Err(self.missing(parts, undefined_column(parts))),
        }
    }

    /// The error for `parts` found in no frame, given the one the frames around this one
    /// raised: a qualified name whose qualifier is a FROM item here is an unknown column
    /// of it (42703), one whose qualifier no frame has is PostgreSQL's 42P01.
    fn missing(&self, parts: &[String], around: PgError) -> PgError {
        let [qualifier, _] = parts else {
            return around;
        };
        if self.sources.iter().any(|s| &s.alias == qualifier) {
            return undefined_column(parts);
        }
        match self.parent {
            None => crate::pg::sql::scope::missing_from_entry(qualifier),
            Some(_) => around,
        }
    }
}

/// A row of the FROM clause: its values and, per base table, the version it came from.
#[derive(Clone, Debug)]
pub(crate) struct Joined {
    pub values: Vec<Value>,
    pub tids: Vec<Option<(String, u64)>>,
}

/// What evaluating one output row read besides its FROM row: its group's aggregates and
/// its window function values, by call address (ORDER BY and DISTINCT read them again).
#[derive(Clone, Debug, Default)]
pub(crate) struct RowState {
    pub aggregates: Vec<(usize, Typed)>,
    pub windows: Vec<(usize, Typed)>,
}

/// A query's output rows, each with its FROM row and what evaluating it read.
pub(crate) struct Projected {
    pub rows: Vec<(Vec<Value>, Joined)>,
    pub states: Vec<RowState>,
}

impl Exec<'_> {
    /// Make `state` the row being evaluated's.
    pub(crate) fn restore(&mut self, state: &RowState) {
        self.aggregates.clone_from(&state.aggregates);
        self.windows.clone_from(&state.windows);
    }
}

/// One CTE in scope: its name, its columns and, when run (not only described), its rows.
#[derive(Clone, Debug)]
pub(crate) struct Named {
    pub name: String,
    pub rows: Rows,
    /// A data-modifying CTE without RETURNING: reading it is PostgreSQL's 0A000.
    pub without_returning: bool,
    /// The shallowest frame its rows read a column of (`u32::MAX`: none): a subquery
    /// reading a CTE correlated with a query around it is correlated with that query too.
    pub read_depth_min: u32,
}

impl Named {
    /// 0A000 when the CTE writes and returns nothing a query could read.
    pub(crate) fn check_readable(&self) -> PgResult<()> {
        match self.without_returning {
            false => Ok(()),
            true => Err(PgError::new(
                FEATURE_NOT_SUPPORTED,
                format!(
                    "WITH query \"{}\" does not have a RETURNING clause",
                    self.name
                ),
            )),
        }
    }
}

/// A row change whose foreign keys the statement's end deals with.
#[derive(Debug)]
pub(crate) enum Event {
    /// A version written (inserted, or an update's new one): its parents must exist.
    Written { table: String, tid: u64 },
    /// A row removed (`deleted`), or an update's old version: its children follow.
    Removed {
        table: String,
        row: Vec<Value>,
        deleted: bool,
    },
}

/// The events a statement queued, in the order its rows were written.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    pub events: Vec<Event>,
}

/// What a row lock found.
pub(crate) enum Locked {
    /// The row, at this version (its newest, if it moved).
    Row {
        tid: u64,
        data: Vec<Value>,
        moved: bool,
    },
    /// Deleted, or no longer matching, by a transaction that committed meanwhile.
    Gone,
    /// Held by another transaction, and the statement skips such rows (`SKIP LOCKED`).
    Skipped,
}

/// What a row lock does when another transaction holds the row (PostgreSQL's
/// `LockWaitPolicy`; the strictest of a statement's clauses wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LockWait {
    Block,
    Skip,
    NoWait,
}

/// What a statement answers: rows (SELECT, RETURNING, SHOW) and its command tag.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    pub rows: Option<Rows>,
    pub tag: String,
    /// A notice PostgreSQL sends with it (`WARNING: there is no transaction in progress`).
    pub warning: Option<String>,
}

impl Outcome {
    pub(crate) fn tag(tag: impl Into<String>) -> Outcome {
        Outcome {
            rows: None,
            tag: tag.into(),
            warning: None,
        }
    }

    pub(crate) fn warn(mut self, warning: &str) -> Outcome {
        self.warning = Some(warning.to_string());
        self
    }
}

/// A statement's parameter types and result columns (`None`: it returns no rows).
pub(crate) type Described = (Vec<Type>, Option<Vec<(String, Type)>>);
