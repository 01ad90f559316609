//! The server's data ([`Db`]: tables with their vector indexes' structures, the commit
//! log, advisory locks, the waits between backends and the queues of backends waiting for
//! a row) and the undo log a statement's writes leave, rolled back when it must wait and
//! start again or a savepoint is rolled back to.

use crate::pg::error::*;
use crate::pg::storage::heap::{RowLock, RowLockMode, Table};
use crate::pg::storage::schema::SchemaLog;
use crate::pg::storage::txn::{Transactions, Xid};
use std::collections::{BTreeMap, BTreeSet};

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

/// A table lock's mode (PostgreSQL's, weakest first): what a statement takes on each table
/// it touches, held until its transaction ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum TableLockMode {
    /// SELECT.
    AccessShare,
    /// SELECT … FOR UPDATE / SHARE, a foreign key's check.
    RowShare,
    /// INSERT, UPDATE, DELETE.
    RowExclusive,
    /// CREATE INDEX CONCURRENTLY.
    ShareUpdateExclusive,
    /// CREATE INDEX.
    Share,
    ShareRowExclusive,
    Exclusive,
    /// DROP TABLE, DROP INDEX.
    AccessExclusive,
}

impl TableLockMode {
    /// PostgreSQL's table of conflicting lock modes (the documentation's "Table-Level
    /// Lock Modes"), by each mode's conflict set.
    pub(crate) fn conflicts(self, other: TableLockMode) -> bool {
        use TableLockMode::*;
        let set: &[TableLockMode] = match self {
            AccessShare => &[AccessExclusive],
            RowShare => &[Exclusive, AccessExclusive],
            RowExclusive => &[Share, ShareRowExclusive, Exclusive, AccessExclusive],
            ShareUpdateExclusive => &[
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ],
            Share => &[
                RowExclusive,
                ShareUpdateExclusive,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ],
            ShareRowExclusive => &[
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ],
            Exclusive => &[
                RowShare,
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ],
            AccessExclusive => &[
                AccessShare,
                RowShare,
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ],
        };
        set.contains(&other)
    }
}

/// A table lock held by a transaction (its backend, to wait for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TableLock {
    pub xid: Xid,
    pub backend: u32,
    pub mode: TableLockMode,
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
    /// Backends waiting to lock a row version (table, tuple id), first come first: the
    /// model's form of PostgreSQL's heavyweight tuple lock, which makes the waiters for
    /// a row take it in the order they came (see [`Db::queued_ahead`]).
    pub row_queues: BTreeMap<(String, u64), Vec<u32>>,
    /// The table locks of open transactions, by table name.
    pub table_locks: BTreeMap<String, Vec<TableLock>>,
    /// Backends waiting for a table lock, and the mode each asks for, first come first:
    /// a request that conflicts with a waiter's queues behind it (so readers arriving
    /// after a waiting DROP TABLE wait too, as in PostgreSQL).
    pub table_queues: BTreeMap<String, Vec<(u32, TableLockMode)>>,
    /// `gen_random_uuid()`s drawn so far: the next is the seed's stream at this count.
    /// Random draws are not transactional, and a crash keeps the count (no UUID twice).
    pub uuid_draws: u64,
    /// The last `clock_timestamp()` handed out (µs since 2000-01-01): the next is later.
    pub clock_timestamp_last_us: i64,
    /// The tables as they were before open transactions' schema changes.
    pub altered: SchemaLog,
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

    /// Prune every table of what no snapshot can see any more (`versions.rs`); costs what
    /// it removes.
    pub(crate) fn prune(&mut self) {
        let horizon = self.txns.horizon();
        for table in self.tables.values_mut() {
            table.heap.prune(&self.txns, horizon);
        }
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

    /// The backend at the head of the queue for version `tid` of `table` when `backend`
    /// waits in it behind that one: it waits its turn, as PostgreSQL's waiter sleeps on
    /// the tuple lock the head holds while the head waits for the row's holder.
    pub(crate) fn queued_ahead(&self, table: &str, tid: u64, backend: u32) -> Option<u32> {
        let queue = self.row_queues.get(&(table.to_string(), tid))?;
        let at = queue.iter().position(|b| *b == backend)?;
        (at > 0).then(|| queue[0])
    }

    /// `backend` joins the queue for version `tid` of `table` (once); the backend it
    /// waits for: the queue's head when that is another, else `holder`.
    pub(crate) fn enqueue(&mut self, table: &str, tid: u64, backend: u32, holder: u32) -> u32 {
        let queue = self.row_queues.entry((table.to_string(), tid)).or_default();
        if !queue.contains(&backend) {
            queue.push(backend);
        }
        match queue[0] == backend {
            true => holder,
            false => queue[0],
        }
    }

    /// `backend`'s statement ended (or gave up waiting): it waits for no one and leaves
    /// every row's queue, the next in each taking its turn.
    pub(crate) fn stop_waiting(&mut self, backend: u32) {
        self.waits.remove(&backend);
        self.row_queues.retain(|_, queue| {
            queue.retain(|b| *b != backend);
            !queue.is_empty()
        });
        self.table_queues.retain(|_, queue| {
            queue.retain(|(b, _)| *b != backend);
            !queue.is_empty()
        });
    }

    /// The backend that transaction `xid` (of `backend`) must wait for to take `mode` on
    /// `table`, if any: a holder of a conflicting lock, or (unless it already holds a lock
    /// on the table, which lets it pass the queue as PostgreSQL's `ProcSleep` does) a
    /// conflicting waiter ahead of it. Joins the queue when it must wait.
    pub(crate) fn table_lock_blocker(
        &mut self,
        table: &str,
        xid: Xid,
        backend: u32,
        mode: TableLockMode,
    ) -> Option<u32> {
        let held = self.table_locks.get(table).map_or(&[][..], Vec::as_slice);
        let holds_any = held.iter().any(|l| l.xid == xid);
        let holder = held
            .iter()
            .find(|l| {
                l.xid != xid
                    && self.txns.status(l.xid) == crate::pg::storage::txn::Status::InProgress
                    && l.mode.conflicts(mode)
            })
            .map(|l| l.backend);
        let queue = self.table_queues.get(table).map_or(&[][..], Vec::as_slice);
        let position = queue.iter().position(|(b, _)| *b == backend);
        let ahead = &queue[..position.unwrap_or(queue.len())];
        let waiter = match holds_any {
            true => None,
            false => ahead
                .iter()
                .find(|(_, m)| m.conflicts(mode))
                .map(|(b, _)| *b),
        };
        let blocker = waiter.or(holder)?;
        let queue = self.table_queues.entry(table.to_string()).or_default();
        if position.is_none() {
            queue.push((backend, mode));
        }
        Some(blocker)
    }

    /// Transaction `xid` ended: its table locks go.
    pub(crate) fn release_table_locks(&mut self, xid: Xid) {
        self.table_locks.retain(|_, locks| {
            locks.retain(|l| l.xid != xid);
            !locks.is_empty()
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

/// Schema changes (`schema.rs`), as the executor and the session ask for them.
impl Db {
    /// Keep `table` before transaction `xid` changes it; the undo entry putting it back.
    pub(crate) fn keep_schema(&mut self, xid: Xid, table: &str) -> Option<Undo> {
        let kept = self.altered.keep_table(&self.tables, xid, table);
        kept.then_some(Undo::Schema { xid })
    }

    /// Transaction `xid` created `table`; the undo entry removing it.
    pub(crate) fn keep_created(&mut self, xid: Xid, table: &str) -> Undo {
        assert!(self.tables.contains_key(table), "kept once created");
        self.altered.created(xid, table);
        Undo::Schema { xid }
    }

    /// Keep `table`'s foreign keys before `xid` renumbers their parent's columns.
    pub(crate) fn keep_keys(&mut self, xid: Xid, table: &str) -> Option<Undo> {
        let kept = self.altered.keep_keys(&self.tables, xid, table);
        kept.then_some(Undo::Schema { xid })
    }

    pub(crate) fn restore_schema(&mut self, xid: Xid) {
        self.altered.restore(&mut self.tables, xid);
    }

    pub(crate) fn end_schema(&mut self, xid: Xid, commit: bool) {
        self.altered.end(&mut self.tables, xid, commit);
    }

    pub(crate) fn crash_schema(&mut self) {
        self.altered.crash(&mut self.tables);
    }
}

pub(crate) fn undefined_table(name: &str) -> PgError {
    if crate::pg::types::builtin_names::is_relation(name) {
        return PgError::unsupported(format!("the catalog relation {name}"));
    }
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
        before: (Xid, u32, RowLockMode, Option<u64>),
    },
    Locked {
        table: String,
        tid: u64,
        before: Vec<RowLock>,
    },
    Advisory {
        key: AdvisoryKey,
        session: bool,
    },
    TableLock {
        table: String,
        lock: TableLock,
    },
    /// A schema change of transaction `xid`: its table goes back as it was.
    Schema {
        xid: Xid,
    },
}

/// Undo `undo`'s entries past `keep`, newest first.
pub(crate) fn roll_back_to(db: &mut Db, undo: &mut Vec<Undo>, keep: usize) {
    while undo.len() > keep {
        match undo.pop().expect("longer than keep") {
            Undo::Inserted { table, tid } => {
                if let Some(t) = db.tables.get_mut(&table) {
                    t.heap.remove(tid);
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
                    (v.xmax, v.cmax, v.xmax_mode, v.next) = before;
                }
            }
            Undo::TableLock { table, lock } => {
                if let Some(locks) = db.table_locks.get_mut(&table) {
                    if let Some(at) = locks.iter().rposition(|l| *l == lock) {
                        locks.remove(at);
                    }
                    if locks.is_empty() {
                        db.table_locks.remove(&table);
                    }
                }
            }
            Undo::Schema { xid } => db.restore_schema(xid),
            Undo::Locked { table, tid, before } => {
                let version = db.tables.get_mut(&table).and_then(|t| t.heap.get_mut(&tid));
                if let Some(v) = version {
                    v.lockers = before;
                }
            }
        }
    }
}
