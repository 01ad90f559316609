//! A table's unique keys, indexed as PostgreSQL's btree indexes behind its unique and
//! primary-key constraints: for each set of key columns, the tuple ids of the versions
//! holding each key value, so that a write checks its key against the few versions that
//! share it rather than against the whole heap (a 10,000-row UPDATE would compare 10^8
//! pairs). An entry is made for every version written while the index exists, dead or
//! not, as a btree keeps dead tuples until a vacuum; a lookup confirms each tuple id
//! against the heap, so an entry left by a version removed or changed is harmless. A
//! column set's index is built on its first lookup (a new constraint, a table whose
//! columns were renumbered): only a missing entry could hide a conflict, and every way a
//! version's data is written goes through [`KeyIndex::insert`] or [`KeyIndex::clear`].

use crate::pg::types::value::{compare, Value};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// A key's values, ordered as a btree over the columns orders them (`compare`, column by
/// column). Never holds NULL: a key with a NULL is not unique-checked.
#[derive(Clone, Debug)]
pub(crate) struct Key(Vec<Value>);

impl Ord for Key {
    fn cmp(&self, other: &Key) -> Ordering {
        debug_assert_eq!(self.0.len(), other.0.len(), "keys of one column set");
        for (a, b) in self.0.iter().zip(&other.0) {
            let order = compare(a, b);
            if order != Ordering::Equal {
                return order;
            }
        }
        Ordering::Equal
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

/// The key of `data` over `columns`, unless one of its values is NULL.
pub(crate) fn key_of(columns: &[usize], data: &[Value]) -> Option<Key> {
    let values: Vec<Value> = columns.iter().map(|c| data[*c].clone()).collect();
    (!values.iter().any(Value::is_null)).then_some(Key(values))
}

/// Whether `data` holds `key` over `columns`.
pub(crate) fn holds(columns: &[usize], data: &[Value], key: &Key) -> bool {
    columns.iter().zip(&key.0).all(|(c, v)| {
        data.get(*c)
            .is_some_and(|d| compare(d, v).is_eq() && !d.is_null())
    })
}

/// The tuple ids by key, per column set (ids ascending: heap order).
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyIndex {
    by_columns: BTreeMap<Vec<usize>, BTreeMap<Key, Vec<u64>>>,
}

impl KeyIndex {
    /// Whether `columns` has an index built.
    pub(crate) fn built(&self, columns: &[usize]) -> bool {
        self.by_columns.contains_key(columns)
    }

    /// Build the index of `columns` from `versions` (tuple ids ascending).
    pub(crate) fn build<'v>(
        &mut self,
        columns: &[usize],
        versions: impl Iterator<Item = (u64, &'v [Value])>,
    ) {
        let mut index: BTreeMap<Key, Vec<u64>> = BTreeMap::new();
        for (tid, data) in versions {
            if let Some(key) = key_of(columns, data) {
                index.entry(key).or_default().push(tid);
            }
        }
        self.by_columns.insert(columns.to_vec(), index);
    }

    /// Version `tid` (newer than any indexed) holds `data`.
    pub(crate) fn insert(&mut self, tid: u64, data: &[Value]) {
        for (columns, index) in self.by_columns.iter_mut() {
            if let Some(key) = key_of(columns, data) {
                let tids = index.entry(key).or_default();
                assert!(tids.last().is_none_or(|last| *last < tid), "tids increase");
                tids.push(tid);
            }
        }
    }

    /// Version `tid`, which held `data`, is gone.
    pub(crate) fn remove(&mut self, tid: u64, data: &[Value]) {
        for (columns, index) in self.by_columns.iter_mut() {
            let Some(key) = key_of(columns, data) else {
                continue;
            };
            if let Some(tids) = index.get_mut(&key) {
                tids.retain(|t| *t != tid);
                if tids.is_empty() {
                    index.remove(&key);
                }
            }
        }
    }

    /// Forget every index (versions' data changed in place): each is built again when
    /// next looked up.
    pub(crate) fn clear(&mut self) {
        self.by_columns.clear();
    }

    /// The tuple ids indexed under `key` for `columns` (built: see [`KeyIndex::built`]).
    pub(crate) fn lookup(&self, columns: &[usize], key: &Key) -> &[u64] {
        let index = self.by_columns.get(columns).expect("built before a lookup");
        index.get(key).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, name: &str) -> Vec<Value> {
        vec![Value::Int(id), Value::Text(name.into())]
    }

    #[test]
    fn a_key_finds_the_versions_holding_it_and_none_with_a_null() {
        let mut index = KeyIndex::default();
        let rows = [row(1, "a"), row(2, "b"), row(1, "c")];
        index.build(
            &[0],
            rows.iter().enumerate().map(|(i, r)| (i as u64, &r[..])),
        );
        index.insert(3, &row(2, "d"));
        index.insert(4, &[Value::Null, Value::Null]);
        let key = |v: i64| key_of(&[0], &[Value::Int(v)]).expect("not null");
        assert_eq!(index.lookup(&[0], &key(1)), [0, 2]);
        assert_eq!(index.lookup(&[0], &key(2)), [1, 3]);
        assert!(index.lookup(&[0], &key(3)).is_empty());
        index.remove(0, &rows[0]);
        assert_eq!(index.lookup(&[0], &key(1)), [2]);
        assert!(key_of(&[0], &[Value::Null]).is_none());
        // Keys compare as values do: 1 = 1.0 in a float column.
        let float = key_of(&[0], &[Value::Float(1.0)]).expect("not null");
        assert_eq!(float, key(1));
        assert!(holds(&[0], &row(1, "z"), &key(1)));
        assert!(!holds(&[0], &row(2, "z"), &key(1)));
        index.clear();
        assert!(!index.built(&[0]));
    }
}
