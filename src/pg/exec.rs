//! The database a statement runs against ([`Db`]: tables, the commit log, advisory locks)
//! and one statement's execution context ([`Exec`]: who runs it, what it sees, its
//! parameters, its undo log). Every statement's work is counted and bounded.

use crate::pg::error::*;
use crate::pg::expr::Typed;
use crate::pg::heap::{Table, Version, Viewer};
use crate::pg::session::Settings;
use crate::pg::txn::{Snapshot, Transactions, Xid};
use crate::pg::types::{Type, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Rows, expression evaluations and index probes one statement may spend.
pub(crate) const STATEMENT_WORK_MAX: u64 = 20_000_000;
/// Tables the model holds.
pub(crate) const TABLES_MAX: usize = 256;

/// An advisory lock's key: the one-bigint form and the two-int form are apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum AdvisoryKey {
    Big(i64),
    Pair(i32, i32),
}

/// Who holds an advisory lock, how many times at session and at transaction level.
#[derive(Clone, Debug, Default)]
pub(crate) struct Holder {
    pub backend: u32,
    pub session: u32,
    pub xact: u32,
}

/// The server's data: what survives a connection, and what a crash keeps or loses.
#[derive(Debug, Default)]
pub(crate) struct Db {
    pub tables: BTreeMap<String, Table>,
    pub extensions: BTreeSet<String>,
    pub txns: Transactions,
    pub advisory: BTreeMap<AdvisoryKey, Holder>,
    /// Backends waiting, for whom, since when (unix µs): the deadlock check's graph.
    pub waits: BTreeMap<u32, (u32, i64)>,
    /// The vector indexes' search structures, by index name.
    pub vector_indexes: BTreeMap<String, crate::pg::index::VectorIndex>,
    /// `gen_random_uuid()`s drawn so far: the next is the seed's stream at this count.
    /// Random draws are not transactional, and a crash keeps the count (no UUID twice).
    pub uuid_draws: u64,
}

impl Db {
    pub(crate) fn table(&self, name: &str) -> PgResult<&Table> {
        self.tables.get(name).ok_or_else(|| undefined_table(name))
    }

    pub(crate) fn table_mut(&mut self, name: &str) -> PgResult<&mut Table> {
        self.tables
            .get_mut(name)
            .ok_or_else(|| undefined_table(name))
    }

    /// Release `backend`'s transaction-level advisory locks (and its session-level ones
    /// too when `session`).
    pub(crate) fn release_advisory(&mut self, backend: u32, session: bool) {
        self.advisory.retain(|_, holder| {
            if holder.backend != backend {
                return true;
            }
            holder.xact = 0;
            if session {
                holder.session = 0;
            }
            holder.session > 0
        });
    }

    /// Whether `backend` waiting for `blocker` closes a cycle of waits.
    pub(crate) fn closes_cycle(&self, backend: u32, blocker: u32) -> bool {
        let mut at = blocker;
        for _ in 0..=self.waits.len() {
            if at == backend {
                return true;
            }
            match self.waits.get(&at) {
                Some((next, _)) => at = *next,
                None => return false,
            }
        }
        false
    }
}

pub(crate) fn undefined_table(name: &str) -> PgError {
    PgError::new(
        UNDEFINED_TABLE,
        format!("relation \"{name}\" does not exist"),
    )
}

/// A write a statement made, to be undone when it must wait and start again, or when a
/// savepoint is rolled back to.
#[derive(Clone, Debug)]
pub(crate) enum Undo {
    Inserted {
        table: String,
        tid: u64,
    },
    Marked {
        table: String,
        tid: u64,
        before: (Xid, u32, bool, Option<u64>),
    },
    Advisory {
        key: AdvisoryKey,
        session: bool,
    },
}

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
    /// Aggregate results of the group being projected, by the aggregate call's address.
    pub aggregates: Vec<(usize, Typed)>,
    /// Subqueries open around the expression being evaluated.
    pub nesting: u32,
    /// Per-parameter types the statement's context gave (Describe's answer).
    pub param_hints: Vec<Type>,
    /// The model's seed: vector indexes draw their randomness from it.
    pub seed: u64,
    /// Uncorrelated subqueries' rows, run once per statement as PostgreSQL's InitPlans.
    pub subqueries: Subqueries,
    /// The CTEs in scope, innermost last.
    pub ctes: Vec<crate::pg::cte::Named>,
    /// The foreign-key events the statement's end fires.
    pub fk_pending: crate::pg::fk::Pending,
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
    /// Count one unit of work; a statement over the bound fails instead of stalling.
    pub(crate) fn tick(&mut self) -> PgResult<()> {
        self.work += 1;
        if self.work > STATEMENT_WORK_MAX {
            return Err(PgError::new(
                PROGRAM_LIMIT_EXCEEDED,
                format!("statement exceeds the model's work limit of {STATEMENT_WORK_MAX} steps"),
            ));
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

    /// Write a new version of `table`.
    pub(crate) fn insert_version(&mut self, table: &str, data: Vec<Value>) -> PgResult<u64> {
        let (xid, cid) = (self.xid, self.cid);
        let t = self.db.table_mut(table)?;
        if t.heap.len() >= crate::pg::heap::TABLE_VERSIONS_MAX {
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
            lock_only: false,
            next: None,
            data,
        });
        self.undo.push(Undo::Inserted {
            table: table.to_string(),
            tid,
        });
        Ok(tid)
    }

    /// Mark version `tid` deleted (or locked) by this statement, pointing at `next`.
    pub(crate) fn mark(
        &mut self,
        table: &str,
        tid: u64,
        lock_only: bool,
        next: Option<u64>,
    ) -> PgResult<()> {
        let (xid, cid) = (self.xid, self.cid);
        let v = self
            .db
            .table_mut(table)?
            .heap
            .get_mut(&tid)
            .expect("a version this statement read");
        let before = (v.xmax, v.cmax, v.lock_only, v.next);
        (v.xmax, v.cmax, v.lock_only, v.next) = (xid, cid, lock_only, next);
        self.undo.push(Undo::Marked {
            table: table.to_string(),
            tid,
            before,
        });
        Ok(())
    }
}

/// Undo `undo`'s entries past `keep`, newest first.
pub(crate) fn roll_back_to(db: &mut Db, undo: &mut Vec<Undo>, keep: usize) {
    while undo.len() > keep {
        match undo.pop().expect("longer than keep") {
            Undo::Inserted { table, tid } => {
                if let Some(t) = db.tables.get_mut(&table) {
                    t.heap.remove(&tid);
                }
            }
            Undo::Advisory { key, session } => {
                let holder = db
                    .advisory
                    .get_mut(&key)
                    .expect("taken by this transaction");
                match session {
                    true => holder.session -= 1,
                    false => holder.xact -= 1,
                }
                if holder.session == 0 && holder.xact == 0 {
                    db.advisory.remove(&key);
                }
            }
            Undo::Marked { table, tid, before } => {
                let version = db.tables.get_mut(&table).and_then(|t| t.heap.get_mut(&tid));
                if let Some(v) = version {
                    (v.xmax, v.cmax, v.lock_only, v.next) = before;
                }
            }
        }
    }
}
