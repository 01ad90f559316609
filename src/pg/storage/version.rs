//! A row's version and the locks on it: who wrote it (`xmin`), who deleted or updated it
//! (`xmax`, with the strength of the row lock that change holds), who else locks it
//! without changing it, and the newer version an update wrote in its place. PostgreSQL's
//! `HeapTupleHeader` with its multixact of lockers, as the model keeps them.

use crate::pg::storage::txn::Xid;
use crate::pg::types::value::Value;

/// A row lock's strength, weakest first (PostgreSQL's `LockTupleMode`): `FOR KEY SHARE`,
/// `FOR SHARE`, `FOR NO KEY UPDATE` (an UPDATE that leaves the key columns alone),
/// `FOR UPDATE` (a DELETE, an UPDATE of a key column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RowLockMode {
    KeyShare,
    Share,
    NoKeyUpdate,
    Update,
}

impl RowLockMode {
    /// PostgreSQL's conflict table for row locks (the documentation's "Conflicting Row-Level
    /// Locks"): a key share conflicts only with an update of the key; shares share.
    pub(crate) fn conflicts(self, other: RowLockMode) -> bool {
        use RowLockMode::*;
        match (self.min(other), self.max(other)) {
            (KeyShare, Update) => true,
            (KeyShare, _) => false,
            (Share, Share) => false,
            _ => true,
        }
    }

    /// The clause's words, as PostgreSQL names the lock in its errors.
    pub(crate) fn clause(self) -> &'static str {
        match self {
            RowLockMode::KeyShare => "FOR KEY SHARE",
            RowLockMode::Share => "FOR SHARE",
            RowLockMode::NoKeyUpdate => "FOR NO KEY UPDATE",
            RowLockMode::Update => "FOR UPDATE",
        }
    }
}

/// A transaction holding a row lock on a version, and how strong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowLock {
    pub xid: Xid,
    pub mode: RowLockMode,
}

/// One version of a row.
#[derive(Clone, Debug)]
pub(crate) struct Version {
    pub xmin: Xid,
    /// The command of `xmin` that wrote it.
    pub cmin: u32,
    /// The transaction that deleted or updated it.
    pub xmax: Xid,
    pub cmax: u32,
    /// The strength `xmax` holds the row with: [`RowLockMode::Update`] for a delete or
    /// an update of a key column, [`RowLockMode::NoKeyUpdate`] for any other update.
    pub xmax_mode: RowLockMode,
    /// The transactions that locked it without changing it (several may share it).
    pub lockers: Vec<RowLock>,
    /// The version an update wrote in its place.
    pub next: Option<u64>,
    pub data: Vec<Value>,
}

#[cfg(test)]
mod tests {
    use super::RowLockMode::{self, *};

    #[test]
    fn row_locks_conflict_as_postgresqls_table_says() {
        // Rows: the mode held; columns: the mode asked for (KeyShare, Share, NoKeyUpdate,
        // Update), as the documentation's "Conflicting Row-Level Locks" table.
        let table: [(RowLockMode, [bool; 4]); 4] = [
            (KeyShare, [false, false, false, true]),
            (Share, [false, false, true, true]),
            (NoKeyUpdate, [false, true, true, true]),
            (Update, [true, true, true, true]),
        ];
        let asked = [KeyShare, Share, NoKeyUpdate, Update];
        for (held, row) in table {
            for (ask, conflicts) in asked.iter().zip(row) {
                assert_eq!(held.conflicts(*ask), conflicts, "{held:?} vs {ask:?}");
                assert_eq!(ask.conflicts(held), conflicts, "symmetric");
            }
        }
    }
}
