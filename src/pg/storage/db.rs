//! The server's data ([`Db`]: tables with their vector indexes' structures, the commit
//! log, advisory locks, the waits between backends and the queues of backends waiting for
//! a row) and the undo log a statement's writes leave, rolled back when it must wait and
//! start again or a savepoint is rolled back to.

use crate::pg::error::*;
use crate::pg::storage::heap::{RowLock, RowLockMode, Table};
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
    /// `gen_random_uuid()`s drawn so far: the next is the seed's stream at this count.
    /// Random draws are not transactional, and a crash keeps the count (no UUID twice).
    pub uuid_draws: u64,
    /// The last `clock_timestamp()` handed out (µs since 2000-01-01): the next is later.
    pub clock_timestamp_last_us: i64,
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
                    (v.xmax, v.cmax, v.xmax_mode, v.next) = before;
                }
            }
            Undo::Locked { table, tid, before } => {
                let version = db.tables.get_mut(&table).and_then(|t| t.heap.get_mut(&tid));
                if let Some(v) = version {
                    v.lockers = before;
                }
            }
        }
    }
}
