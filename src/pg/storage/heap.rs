//! Tables: their definitions and their heap of row versions. A row's update writes a new
//! version at the end of the heap (PostgreSQL's heap order as the model keeps it:
//! insertion order, an updated row moved to the end) and marks the old one with the
//! updater's id (`xmax`) and a link to its successor, which READ COMMITTED's re-check
//! (EvalPlanQual) follows. A row's locks (`FOR UPDATE`, `FOR SHARE`, a foreign key's
//! `FOR KEY SHARE`) are kept on the version as PostgreSQL keeps them in a multixact:
//! every locking transaction with its strength, beside the updater's own strength.

use crate::pg::storage::txn::{Snapshot, Status, Transactions, Xid, XID_NONE};
use crate::pg::storage::vector_index::VectorIndex;
pub(crate) use crate::pg::storage::version::{RowLock, RowLockMode, Version};
use crate::pg::storage::versions::Heap;
use crate::pg::types::pg_type::Type;
use std::collections::BTreeMap;

/// Row versions a table may hold, live and dead (PostgreSQL's limit is the disk).
pub(crate) const TABLE_VERSIONS_MAX: usize = 200_000;

#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub name: String,
    pub ty: Type,
    pub not_null: bool,
    pub default: Option<sqlparser::ast::Expr>,
    /// `serial`/`bigserial`: the default is the table's sequence.
    pub serial: bool,
    /// `vector(n)`'s n, `varchar(n)`'s n.
    pub modifier: Option<u32>,
}

#[derive(Clone, Debug)]
pub(crate) struct Unique {
    pub name: String,
    pub columns: Vec<usize>,
    pub primary: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct ForeignKey {
    pub name: String,
    pub columns: Vec<usize>,
    pub parent: String,
    pub parent_columns: Vec<usize>,
    pub cascade: bool,
}

/// An index as the planner sees it; a vector index's search structure lives beside it in
/// its table ([`Table::vector_indexes`]).
#[derive(Clone, Debug)]
pub(crate) struct IndexDef {
    pub name: String,
    pub columns: Vec<usize>,
    /// An index on expressions: their text (the model plans no scan with one).
    pub expressions: Vec<String>,
    pub method: String,
    pub opclass: Option<String>,
    pub options: Vec<(String, String)>,
    /// A unique index: while valid, its constraint is among the table's uniques.
    pub unique: bool,
    /// `pg_index.indisvalid`: false for an index CREATE INDEX CONCURRENTLY failed to
    /// build, which the planner does not use and writes do not maintain.
    pub valid: bool,
}

/// A CHECK constraint: its name and its condition over the table's columns.
#[derive(Clone, Debug)]
pub(crate) struct Check {
    pub name: String,
    pub expr: sqlparser::ast::Expr,
}

#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub name: String,
    pub columns: Vec<Column>,
    pub uniques: Vec<Unique>,
    pub foreign_keys: Vec<ForeignKey>,
    pub indexes: Vec<IndexDef>,
    /// CHECK constraints, by name (the order PostgreSQL checks them in).
    pub checks: Vec<Check>,
    /// The search structures of the table's vector indexes, by index name: kept in the
    /// table so that dropping the table or the index leaves none behind.
    pub vector_indexes: BTreeMap<String, VectorIndex>,
    /// Versions by tuple id, with their key indexes (`versions.rs`).
    pub heap: Heap,
    pub next_tid: u64,
    /// The table's sequence (of its serial column): the last value handed out.
    pub sequence: i64,
    /// Created TEMP: PostgreSQL keeps it in the session's own schema, where a table of
    /// another schema may share its name (which the model's one namespace cannot hold).
    pub temporary: bool,
}

/// Who is looking: the snapshot, and the transaction and command doing the looking (its
/// own earlier commands' writes are visible to it, its current command's are not).
#[derive(Clone, Copy)]
pub(crate) struct Viewer<'s> {
    pub snapshot: &'s Snapshot,
    pub xid: Xid,
    pub cid: u32,
}

impl Table {
    pub(crate) fn new(name: String, columns: Vec<Column>) -> Table {
        Table {
            name,
            columns,
            uniques: Vec::new(),
            foreign_keys: Vec::new(),
            indexes: Vec::new(),
            checks: Vec::new(),
            vector_indexes: BTreeMap::new(),
            heap: Heap::default(),
            next_tid: 1,
            sequence: 0,
            temporary: false,
        }
    }

    pub(crate) fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Append a version; its tuple id.
    pub(crate) fn push(&mut self, version: Version) -> u64 {
        let tid = self.next_tid;
        self.next_tid += 1;
        self.heap.insert(tid, version);
        tid
    }

    /// The tuple ids of the versions `viewer` sees, in heap order.
    pub(crate) fn visible(&self, txns: &Transactions, viewer: Viewer<'_>) -> Vec<u64> {
        self.heap
            .iter()
            .filter(|(_, v)| sees_version(txns, viewer, v))
            .map(|(tid, _)| *tid)
            .collect()
    }
}

/// PostgreSQL's visibility rule for one version.
pub(crate) fn sees_version(txns: &Transactions, viewer: Viewer<'_>, v: &Version) -> bool {
    let created = if v.xmin == viewer.xid {
        v.cmin < viewer.cid
    } else {
        v.xmin == XID_NONE || txns.sees(viewer.snapshot, v.xmin)
    };
    if !created {
        return false;
    }
    if v.xmax == XID_NONE {
        return true;
    }
    if v.xmax == viewer.xid {
        return v.cmax >= viewer.cid;
    }
    !txns.sees(viewer.snapshot, v.xmax)
}

/// Whether a version is deleted (or updated) by a transaction that committed, is still
/// running, or neither.
pub(crate) fn deleter(txns: &Transactions, v: &Version) -> Option<(Xid, Status)> {
    if v.xmax == XID_NONE {
        return None;
    }
    let status = txns.status(v.xmax);
    (status != Status::Aborted).then_some((v.xmax, status))
}
