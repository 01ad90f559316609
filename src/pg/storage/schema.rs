//! The schema changes of open transactions (CREATE TABLE, ALTER TABLE, TRUNCATE): each keeps its table
//! as it was before the change, so that an error, a rolled-back savepoint, an aborted
//! transaction or a crash puts it back whole, as PostgreSQL's transactional catalog and
//! new relfilenodes do. A change holds ACCESS EXCLUSIVE on its table until its transaction
//! ends, so no other transaction wrote the table between the copy and its restoring.
//! `db.rs` holds the log ([`SchemaLog`]) and the undo entries that call on it.

use crate::pg::storage::heap::{ForeignKey, Table};
use crate::pg::storage::txn::Xid;
use std::collections::BTreeMap;

/// A table as it was before a schema change of transaction `xid`; `table` is its name now.
#[derive(Clone, Debug)]
struct Altered {
    xid: Xid,
    table: String,
    before: Kept,
}

/// What a change kept of a table.
#[derive(Clone, Debug)]
enum Kept {
    /// All of it: the table the change is on.
    Table(Box<Table>),
    /// Nothing: the table did not exist before (CREATE TABLE), so undoing removes it.
    Absent,
    /// Its foreign keys: a table referencing the one changed, whose keys' column numbers
    /// follow the parent's columns.
    Keys(Vec<ForeignKey>),
}

/// The tables as they were before open transactions' changes, oldest first.
#[derive(Clone, Debug, Default)]
pub(crate) struct SchemaLog {
    entries: Vec<Altered>,
}

impl SchemaLog {
    /// Transaction `xid` is about to change `table`'s schema or storage: keep the table
    /// as it is. False when there is no such table.
    pub(crate) fn keep_table(
        &mut self,
        tables: &BTreeMap<String, Table>,
        xid: Xid,
        table: &str,
    ) -> bool {
        self.keep(tables, xid, table, |t| Kept::Table(Box::new(t.clone())))
    }

    /// Transaction `xid` is about to renumber the columns `table`'s foreign keys
    /// reference: keep the keys.
    pub(crate) fn keep_keys(
        &mut self,
        tables: &BTreeMap<String, Table>,
        xid: Xid,
        table: &str,
    ) -> bool {
        self.keep(tables, xid, table, |t| Kept::Keys(t.foreign_keys.clone()))
    }

    fn keep(
        &mut self,
        tables: &BTreeMap<String, Table>,
        xid: Xid,
        table: &str,
        what: impl Fn(&Table) -> Kept,
    ) -> bool {
        let Some(before) = tables.get(table).map(what) else {
            return false;
        };
        let table = table.to_string();
        self.entries.push(Altered { xid, table, before });
        true
    }

    /// Transaction `xid` created `table`: an abort removes it.
    pub(crate) fn created(&mut self, xid: Xid, table: &str) {
        let table = table.to_string();
        self.entries.push(Altered {
            xid,
            table,
            before: Kept::Absent,
        });
    }

    /// The table `xid` kept as `from` now goes by `to` (ALTER TABLE … RENAME TO).
    pub(crate) fn renamed(&mut self, xid: Xid, from: &str, to: &str) {
        let kept = self
            .entries
            .iter_mut()
            .rev()
            .find(|a| a.xid == xid && a.table == from && matches!(a.before, Kept::Table(_)));
        kept.expect("kept before the rename").table = to.to_string();
    }

    /// Put back the table `xid` kept last (a statement's or a savepoint's undo).
    pub(crate) fn restore(&mut self, tables: &mut BTreeMap<String, Table>, xid: Xid) {
        let at = self.entries.iter().rposition(|a| a.xid == xid);
        let kept = self.entries.remove(at.expect("kept by this transaction"));
        match kept.before {
            Kept::Table(before) => {
                tables.remove(&kept.table);
                tables.insert(before.name.clone(), *before);
            }
            Kept::Absent => {
                tables.remove(&kept.table);
            }
            Kept::Keys(keys) => {
                // DROP TABLE is not transactional in the model: the table may be gone.
                if let Some(table) = tables.get_mut(&kept.table) {
                    table.foreign_keys = keys;
                }
            }
        }
    }

    /// Transaction `xid` ended: a commit keeps its changes, an abort puts every table it
    /// changed back, newest change first.
    pub(crate) fn end(&mut self, tables: &mut BTreeMap<String, Table>, xid: Xid, commit: bool) {
        match commit {
            true => self.entries.retain(|a| a.xid != xid),
            false => {
                while self.entries.iter().any(|a| a.xid == xid) {
                    self.restore(tables, xid);
                }
            }
        }
    }

    /// A crash aborts every open transaction: every change kept goes back.
    pub(crate) fn crash(&mut self, tables: &mut BTreeMap<String, Table>) {
        while let Some(xid) = self.entries.last().map(|a| a.xid) {
            self.restore(tables, xid);
        }
    }

    /// The names (now and before) of the tables whose schema a transaction other than
    /// `xid` changed and has not ended.
    pub(crate) fn changed_by_others(&self, xid: Xid) -> Vec<String> {
        self.entries
            .iter()
            .filter(|a| a.xid != xid)
            .filter_map(|a| match &a.before {
                Kept::Table(before) => Some([a.table.clone(), before.name.clone()]),
                // Other sessions see a table created and not yet committed (the model's
                // catalog has no snapshots), rather than wait for it.
                Kept::Absent | Kept::Keys(_) => None,
            })
            .flatten()
            .collect()
    }
}
