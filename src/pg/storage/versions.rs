//! A table's heap: its row versions by tuple id (ids increase, so the map's order is the
//! heap's), and what is kept beside them. The unique keys' index (`keys.rs`) follows
//! every version written. Each transaction's writes are listed by its id, so that once
//! no snapshot can see that transaction as running (the transactions' horizon,
//! `Transactions::horizon`) its dead versions are pruned at once, as PostgreSQL's
//! `heap_page_prune` and vacuum remove what no snapshot can see: a version it deleted or
//! updated, if it committed; a version it inserted, if it aborted (and its aborted
//! deletions are undone). Pruning costs what it removes, never a pass over the heap.
//!
//! Reading goes through `Deref` to the map; every write goes through a method here, so the
//! index and the lists cannot miss one.

use crate::pg::storage::keys::{holds, key_of, KeyIndex};
use crate::pg::storage::txn::{Status, Transactions, Xid, XID_NONE};
use crate::pg::storage::version::Version;
use crate::pg::types::value::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub(crate) struct Heap {
    versions: BTreeMap<u64, Version>,
    keys: KeyIndex,
    /// The versions each transaction inserted or marked (deleted, updated), by its id,
    /// until the horizon passes it.
    pending: BTreeMap<Xid, Vec<u64>>,
}

impl std::ops::Deref for Heap {
    type Target = BTreeMap<u64, Version>;

    fn deref(&self) -> &Self::Target {
        &self.versions
    }
}

impl Heap {
    /// Add version `tid`, newer than every other.
    pub(crate) fn insert(&mut self, tid: u64, version: Version) {
        assert!(
            self.versions
                .last_key_value()
                .is_none_or(|(last, _)| *last < tid),
            "tids increase"
        );
        self.keys.insert(tid, &version.data);
        if version.xmin != XID_NONE {
            self.pending.entry(version.xmin).or_default().push(tid);
        }
        self.versions.insert(tid, version);
    }

    /// Version `tid` was deleted or updated by `xmax`: look at it again once `xmax` is
    /// past the horizon.
    pub(crate) fn marked(&mut self, tid: u64, xmax: Xid) {
        self.pending.entry(xmax).or_default().push(tid);
    }

    /// Remove version `tid` (a statement's insert undone, a dead version pruned).
    pub(crate) fn remove(&mut self, tid: u64) -> Option<Version> {
        let version = self.versions.remove(&tid)?;
        self.keys.remove(tid, &version.data);
        Some(version)
    }

    /// Keep only the versions `keep` says (a rewrite).
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&u64, &Version) -> bool) {
        let gone: Vec<u64> = self
            .versions
            .iter()
            .filter(|(tid, v)| !keep(tid, v))
            .map(|(tid, _)| *tid)
            .collect();
        for tid in gone {
            self.remove(tid);
        }
    }

    /// Every version gone (TRUNCATE's new file).
    pub(crate) fn clear(&mut self) {
        *self = Heap::default();
    }

    /// Version `tid`, to change its header (`xmax`, `next`, lockers), never its data.
    pub(crate) fn get_mut(&mut self, tid: &u64) -> Option<&mut Version> {
        self.versions.get_mut(tid)
    }

    /// Every version, to change their data in place (a column added or dropped): the key
    /// indexes are built again when next used.
    pub(crate) fn rewrite(&mut self) -> impl Iterator<Item = (&u64, &mut Version)> {
        self.keys.clear();
        self.versions.iter_mut()
    }

    /// The versions (live or not: the caller judges) whose `columns` hold `data`'s values
    /// there, in heap order; none when one of those values is NULL.
    pub(crate) fn with_key(&mut self, columns: &[usize], data: &[Value]) -> Vec<u64> {
        let Some(key) = key_of(columns, data) else {
            return Vec::new();
        };
        if !self.keys.built(columns) {
            let versions = self.versions.iter().map(|(tid, v)| (*tid, &v.data[..]));
            self.keys.build(columns, versions);
        }
        let versions = &self.versions;
        self.keys
            .lookup(columns, &key)
            .iter()
            .copied()
            .filter(|tid| {
                versions
                    .get(tid)
                    .is_some_and(|v| holds(columns, &v.data, &key))
            })
            .collect()
    }

    /// Remove what no snapshot can see any more: the versions of every transaction before
    /// `horizon` (none of which is running). How many versions went.
    pub(crate) fn prune(&mut self, txns: &Transactions, horizon: Xid) -> usize {
        let mut removed = 0;
        while let Some(entry) = self.pending.first_entry() {
            let xid = *entry.key();
            if xid >= horizon {
                break;
            }
            let tids = entry.remove();
            let status = txns.status(xid);
            assert_ne!(
                status,
                Status::InProgress,
                "the horizon is before every open one"
            );
            for tid in tids {
                let Some(v) = self.versions.get_mut(&tid) else {
                    continue;
                };
                let inserted_aborted = v.xmin == xid && status == Status::Aborted;
                let deleted_committed = v.xmax == xid && status == Status::Committed;
                if inserted_aborted || deleted_committed {
                    self.remove(tid);
                    removed += 1;
                } else if v.xmax == xid {
                    // An aborted delete or update: the version is as if never touched.
                    (v.xmax, v.next) = (XID_NONE, None);
                }
            }
        }
        removed
    }

    /// A crash: every row lock is gone with the transactions that held them.
    pub(crate) fn clear_locks(&mut self) {
        for v in self.versions.values_mut() {
            v.lockers.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::storage::version::RowLockMode;

    fn version(xmin: Xid, id: i64) -> Version {
        Version {
            xmin,
            cmin: 0,
            xmax: XID_NONE,
            cmax: 0,
            xmax_mode: RowLockMode::Update,
            lockers: Vec::new(),
            next: None,
            data: vec![Value::Int(id)],
        }
    }

    #[test]
    fn pruning_removes_what_no_snapshot_sees_and_undoes_aborted_deletes() {
        let mut txns = Transactions::default();
        let mut heap = Heap::default();
        let (a, b) = (txns.begin(1), txns.begin(2));
        heap.insert(1, version(a, 1));
        heap.insert(2, version(b, 2));
        txns.end(a, true, true, 0);
        txns.end(b, false, true, 0);
        let c = txns.begin(3);
        for tid in [1, 2] {
            heap.get_mut(&tid).expect("present").xmax = c;
            heap.marked(tid, c);
        }
        heap.insert(3, version(c, 1));
        assert_eq!(heap.prune(&txns, txns.horizon()), 1, "b's insert aborted");
        assert_eq!(heap.keys().copied().collect::<Vec<_>>(), [1, 3]);
        assert_eq!(heap.with_key(&[0], &[Value::Int(1)]), [1, 3]);
        txns.end(c, true, true, 0);
        let d = txns.begin(4);
        heap.get_mut(&3).expect("present").xmax = d;
        heap.marked(3, d);
        txns.end(d, false, true, 0);
        assert_eq!(heap.prune(&txns, txns.horizon()), 1, "c's delete committed");
        assert_eq!(heap.keys().copied().collect::<Vec<_>>(), [3]);
        assert_eq!(heap[&3].xmax, XID_NONE, "d's delete aborted: undone");
        assert_eq!(heap.with_key(&[0], &[Value::Int(1)]), [3]);
        assert!(heap.pending.is_empty());
    }
}
