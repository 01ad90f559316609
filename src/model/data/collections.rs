//! The list, hash and set a key holds, each keeping the [`Tally`] of its elements as they
//! come and go, so what the key costs in memory is O(1) to read (`data::memory`). Reads
//! go through `Deref` to the collection inside; every change goes through a method here,
//! which is what keeps the tally exact.

use crate::model::data::memory::Tally;
use bytes::Bytes;
use indexmap::IndexMap;
use std::collections::{BTreeSet, VecDeque};
use std::ops::Deref;

/// A list: a Redis quicklist's elements in order.
#[derive(Clone, Debug, Default)]
pub struct List {
    items: VecDeque<Bytes>,
    tally: Tally,
}

impl PartialEq for List {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
    }
}

impl Deref for List {
    type Target = VecDeque<Bytes>;
    fn deref(&self) -> &VecDeque<Bytes> {
        &self.items
    }
}

impl FromIterator<Bytes> for List {
    fn from_iter<I: IntoIterator<Item = Bytes>>(iter: I) -> Self {
        let mut list = List::default();
        iter.into_iter().for_each(|item| list.push_back(item));
        list
    }
}

impl List {
    pub(crate) fn tally(&self) -> &Tally {
        &self.tally
    }

    pub fn push_front(&mut self, item: Bytes) {
        self.tally.add(Tally::list_element(&item));
        self.items.push_front(item);
    }

    pub fn push_back(&mut self, item: Bytes) {
        self.tally.add(Tally::list_element(&item));
        self.items.push_back(item);
    }

    pub fn pop_front(&mut self) -> Option<Bytes> {
        let item = self.items.pop_front()?;
        self.tally.sub(Tally::list_element(&item));
        Some(item)
    }

    pub fn pop_back(&mut self) -> Option<Bytes> {
        let item = self.items.pop_back()?;
        self.tally.sub(Tally::list_element(&item));
        Some(item)
    }

    pub fn insert(&mut self, at: usize, item: Bytes) {
        self.tally.add(Tally::list_element(&item));
        self.items.insert(at, item);
    }

    /// LSET: replace the element at `at` (in range).
    pub fn replace(&mut self, at: usize, item: Bytes) {
        self.tally.add(Tally::list_element(&item));
        let old = std::mem::replace(&mut self.items[at], item);
        self.tally.sub(Tally::list_element(&old));
    }

    /// LTRIM: keep the elements `from..=to` (in range); O(elements removed).
    pub fn keep_range(&mut self, from: usize, to: usize) {
        assert!(
            from <= to && to < self.items.len(),
            "a range inside the list"
        );
        while self.items.len() > to + 1 {
            self.pop_back();
        }
        for _ in 0..from {
            self.pop_front();
        }
    }

    pub fn clear(&mut self) {
        self.items.clear();
        self.tally = Tally::default();
    }

    /// Take every element out, leaving the list empty (LREM rebuilds from them).
    pub fn take_all(&mut self) -> VecDeque<Bytes> {
        self.tally = Tally::default();
        std::mem::take(&mut self.items)
    }
}

/// A hash, fields in insertion order (Redis 7.0's listpack order for small hashes).
#[derive(Clone, Debug, Default)]
pub struct Hash {
    fields: IndexMap<Bytes, Bytes>,
    tally: Tally,
}

impl PartialEq for Hash {
    fn eq(&self, other: &Self) -> bool {
        self.fields == other.fields
    }
}

impl Deref for Hash {
    type Target = IndexMap<Bytes, Bytes>;
    fn deref(&self) -> &IndexMap<Bytes, Bytes> {
        &self.fields
    }
}

impl FromIterator<(Bytes, Bytes)> for Hash {
    fn from_iter<I: IntoIterator<Item = (Bytes, Bytes)>>(iter: I) -> Self {
        let mut hash = Hash::default();
        for (field, value) in iter {
            hash.insert(field, value);
        }
        hash
    }
}

impl Hash {
    pub(crate) fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Set `field`; returns its previous value (the field keeps its place).
    pub fn insert(&mut self, field: Bytes, value: Bytes) -> Option<Bytes> {
        self.tally.add(Tally::hash_pair(&field, &value));
        let old = self.fields.insert(field.clone(), value)?;
        self.tally.sub(Tally::hash_pair(&field, &old));
        Some(old)
    }

    /// Delete `field` (the others keep their order); returns its value.
    pub fn shift_remove(&mut self, field: &[u8]) -> Option<Bytes> {
        let (field, value) = self.fields.shift_remove_entry(field)?;
        self.tally.sub(Tally::hash_pair(&field, &value));
        Some(value)
    }
}

/// A set, members in byte order.
#[derive(Clone, Debug, Default)]
pub struct Set {
    members: BTreeSet<Bytes>,
    tally: Tally,
}

impl PartialEq for Set {
    fn eq(&self, other: &Self) -> bool {
        self.members == other.members
    }
}

impl Deref for Set {
    type Target = BTreeSet<Bytes>;
    fn deref(&self) -> &BTreeSet<Bytes> {
        &self.members
    }
}

impl FromIterator<Bytes> for Set {
    fn from_iter<I: IntoIterator<Item = Bytes>>(iter: I) -> Self {
        let mut set = Set::default();
        iter.into_iter().for_each(|member| {
            set.insert(member);
        });
        set
    }
}

impl From<BTreeSet<Bytes>> for Set {
    fn from(members: BTreeSet<Bytes>) -> Self {
        members.into_iter().collect()
    }
}

impl Set {
    pub(crate) fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Add `member`; true if it was not there.
    pub fn insert(&mut self, member: Bytes) -> bool {
        let tally = Tally::set_member(&member);
        let added = self.members.insert(member);
        if added {
            self.tally.add(tally);
        }
        added
    }

    /// Remove `member`; true if it was there.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        let removed = self.members.remove(member);
        if removed {
            self.tally.sub(Tally::set_member(member));
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(text: &str) -> Bytes {
        Bytes::copy_from_slice(text.as_bytes())
    }

    #[test]
    fn a_list_tally_returns_to_zero() {
        let mut list: List = ["a", "10", "hello"].into_iter().map(b).collect();
        list.replace(1, b("x".repeat(70).as_str()));
        list.insert(0, b("z"));
        list.keep_range(1, 2);
        assert_eq!(
            *list.tally(),
            ["a", &"x".repeat(70)]
                .into_iter()
                .map(b)
                .collect::<List>()
                .tally
        );
        list.clear();
        assert_eq!(*list.tally(), Tally::default());
    }

    #[test]
    fn a_hash_overwrite_replaces_its_value_cost() {
        let mut hash = Hash::default();
        hash.insert(b("f"), b("1"));
        hash.insert(b("f"), b(&"v".repeat(80)));
        assert_eq!(hash.tally().oversized, 1);
        hash.insert(b("f"), b("2"));
        assert_eq!(*hash.tally(), Tally::hash_pair(b"f", b"2"));
        hash.shift_remove(b"f");
        assert_eq!(*hash.tally(), Tally::default());
    }

    #[test]
    fn a_set_counts_members_once() {
        let mut set = Set::default();
        assert!(set.insert(b("5000000000")));
        assert!(!set.insert(b("5000000000")));
        assert_eq!(set.tally().wide64, 1);
        assert!(set.remove(b"5000000000"));
        assert!(!set.remove(b"5000000000"));
        assert_eq!(*set.tally(), Tally::default());
    }
}
