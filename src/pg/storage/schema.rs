//! The schema changes of open transactions (ALTER TABLE, TRUNCATE): each keeps its table
//! as it was before the change, so that an error, a rolled-back savepoint, an aborted
//! transaction or a crash puts it back whole, as PostgreSQL's transactional catalog and
//! new relfilenodes do. A change holds ACCESS EXCLUSIVE on its table until its transaction
//! ends, so no other transaction wrote the table between the copy and its restoring.

use crate::pg::storage::db::{Db, Undo};
use crate::pg::storage::heap::{ForeignKey, Table};
use crate::pg::storage::txn::Xid;

/// A table as it was before a schema change of transaction `xid`; `table` is its name now.
#[derive(Clone, Debug)]
pub(crate) struct Altered {
    pub xid: Xid,
    pub table: String,
    pub before: Kept,
}

/// What a change kept of a table.
#[derive(Clone, Debug)]
pub(crate) enum Kept {
    /// All of it: the table the change is on.
    Table(Box<Table>),
    /// Its foreign keys: a table referencing the one changed, whose keys' column numbers
    /// follow the parent's columns.
    Keys(Vec<ForeignKey>),
}

impl Db {
    /// Transaction `xid` is about to change `table`'s schema or storage: keep the table
    /// as it is. The undo entry that puts it back.
    pub(crate) fn keep_schema(&mut self, xid: Xid, table: &str) -> Option<Undo> {
        let before = Kept::Table(Box::new(self.tables.get(table)?.clone()));
        self.altered.push(Altered {
            xid,
            table: table.to_string(),
            before,
        });
        Some(Undo::Schema { xid })
    }

    /// Transaction `xid` is about to renumber the columns `table`'s foreign keys
    /// reference: keep the keys.
    pub(crate) fn keep_keys(&mut self, xid: Xid, table: &str) -> Option<Undo> {
        let before = Kept::Keys(self.tables.get(table)?.foreign_keys.clone());
        self.altered.push(Altered {
            xid,
            table: table.to_string(),
            before,
        });
        Some(Undo::Schema { xid })
    }

    /// The table `xid` kept as `from` now goes by `to` (ALTER TABLE … RENAME TO).
    pub(crate) fn renamed(&mut self, xid: Xid, from: &str, to: &str) {
        let kept = self
            .altered
            .iter_mut()
            .rev()
            .find(|a| a.xid == xid && a.table == from && matches!(a.before, Kept::Table(_)));
        kept.expect("kept before the rename").table = to.to_string();
    }

    /// Put back the table `xid` kept last (a statement's or a savepoint's undo).
    pub(crate) fn restore_schema(&mut self, xid: Xid) {
        let at = self.altered.iter().rposition(|a| a.xid == xid);
        let kept = self.altered.remove(at.expect("kept by this transaction"));
        match kept.before {
            Kept::Table(before) => {
                self.tables.remove(&kept.table);
                self.tables.insert(before.name.clone(), *before);
            }
            Kept::Keys(keys) => {
                // DROP TABLE is not transactional in the model: the table may be gone.
                if let Some(table) = self.tables.get_mut(&kept.table) {
                    table.foreign_keys = keys;
                }
            }
        }
    }

    /// Transaction `xid` ended: a commit keeps its changes, an abort puts every table it
    /// changed back, newest change first.
    pub(crate) fn end_schema(&mut self, xid: Xid, commit: bool) {
        while self.altered.iter().any(|a| a.xid == xid) {
            match commit {
                true => self.altered.retain(|a| a.xid != xid),
                false => self.restore_schema(xid),
            }
        }
    }

    /// A crash aborts every open transaction: every change kept goes back.
    pub(crate) fn crash_schema(&mut self) {
        while let Some(xid) = self.altered.last().map(|a| a.xid) {
            self.restore_schema(xid);
        }
    }
}
