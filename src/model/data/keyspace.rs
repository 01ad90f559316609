//! One logical database: keys, values and expiry on the clock the server is given.
//!
//! Expiry is Redis's: lazy on every access (a logically expired key is deleted the moment a
//! command touches it) plus an active cycle that deletes keys nobody reads. Keys are kept in
//! byte order, so `KEYS` and `SCAN` are deterministic.

use crate::model::data::lfu::{Lfu, LfuParams};
use crate::model::data::memory::{self, Measure};
use crate::model::data::value::Value;
use bytes::Bytes;
use std::collections::{BTreeMap, BTreeSet};

/// Capacity of a change list kept across commands; a FLUSHDB's worth is released.
const CHANGES_RETAINED_MAX: usize = 1024;

/// A key's value and its absolute expiry in unix milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub value: Value,
    pub expire_at_ms: Option<u64>,
    /// The last command that read or wrote the key (OBJECT IDLETIME).
    pub accessed_ms: u64,
    /// What the key adds to `used_memory` (`data::memory`), as of the last settled change.
    pub(crate) memory_bytes: usize,
    /// Its access frequency; counted only under an LFU policy.
    pub(crate) lfu: Lfu,
}

impl Entry {
    /// What `key` holding this entry costs in `used_memory`.
    fn cost(&self, key: &[u8], shared_ints: bool) -> usize {
        let key_bytes =
            memory::key_bytes(key.len(), self.expire_at_ms.is_some(), Measure::Allocated);
        key_bytes + self.value.memory_bytes(shared_ints, Measure::Allocated)
    }

    /// MEMORY USAGE's answer for `key` holding this entry.
    pub(crate) fn usage_bytes(&self, key: &[u8], shared_ints: bool) -> usize {
        let key_bytes = memory::key_bytes(key.len(), false, Measure::Usage);
        key_bytes + self.value.memory_bytes(shared_ints, Measure::Usage)
    }
}

/// One modification of a key, as a WATCH sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Touch {
    pub key: Bytes,
    /// The key existed right after this change (false for a deletion).
    pub exists_after: bool,
}

/// One numbered database of a Redis node.
#[derive(Clone, Debug)]
pub struct Db {
    entries: BTreeMap<Bytes, Entry>,
    /// (expire_at_ms, key) for every key with a TTL: the active cycle's work list.
    expiries: BTreeSet<(u64, Bytes)>,
    /// Keys modified since the server last drained them (WATCH invalidation), each with
    /// whether it existed right after that change (Redis's `touchWatchedKey` looks).
    modified: Vec<Touch>,
    /// Keys deleted by expiry since the server last drained them (trace, AOF).
    expired: Vec<Bytes>,
    /// The latest time any access gave: what a write without a time stamps.
    now_ms: u64,
    /// Lookups leave access times as they were: a `CLIENT NO-TOUCH` client's command
    /// is running (the node sets and clears it around the command).
    pub(crate) untouched: bool,
    /// Σ of the entries' `memory_bytes`: the keys' share of `used_memory`.
    entries_bytes: usize,
    /// Small integer values are shared objects (the node's maxmemory policy allows it).
    shared_ints: bool,
    /// An LFU policy is on: accesses count (Redis keeps either LRU or LFU data).
    lfu: Option<LfuParams>,
    /// The stream LFU's probabilistic increments draw from (splitmix64), seeded by the
    /// node: a seed's counters are its own.
    lfu_draws: u64,
}

impl Default for Db {
    fn default() -> Self {
        Db {
            entries: BTreeMap::new(),
            expiries: BTreeSet::new(),
            modified: Vec::new(),
            expired: Vec::new(),
            now_ms: 0,
            untouched: false,
            entries_bytes: 0,
            shared_ints: true,
            lfu: None,
            lfu_draws: 0,
        }
    }
}

impl Db {
    /// What this database adds to `used_memory`: its keys and its tables' buckets. O(1).
    pub fn used_memory_bytes(&self) -> usize {
        let tables = memory::keyspace_tables_bytes(self.entries.len(), self.expiries.len());
        self.entries_bytes + tables
    }

    /// Whether values written from now on may be shared integers (Redis decides it when
    /// it encodes a value; values already stored keep their encoding).
    pub(crate) fn set_shared_ints(&mut self, shared: bool) {
        self.shared_ints = shared;
    }

    /// Count accesses (an LFU policy), or not; `seed` starts the increments' stream.
    pub(crate) fn set_lfu(&mut self, lfu: Option<LfuParams>, seed: u64) {
        if lfu.is_some() && self.lfu.is_none() {
            self.lfu_draws = seed;
        }
        self.lfu = lfu;
    }

    /// LFU's parameters when an LFU policy is on.
    pub(crate) fn lfu_params(&self) -> Option<LfuParams> {
        self.lfu
    }

    /// A uniform draw in [0, 1) from the LFU stream (splitmix64).
    fn lfu_draw(&mut self) -> f64 {
        self.lfu_draws = self.lfu_draws.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.lfu_draws;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The `index`th key with a TTL in (deadline, key) order, with its deadline: O(index).
    pub(crate) fn expiring_at(&self, index: usize) -> Option<&Bytes> {
        self.expiries.iter().nth(index).map(|(_, key)| key)
    }

    /// MEMORY USAGE of `key`, without expiring it or counting an access.
    pub(crate) fn usage_bytes(&self, key: &[u8]) -> Option<usize> {
        let entry = self.entries.get(key)?;
        Some(entry.usage_bytes(key, self.shared_ints))
    }

    /// Recost the keys changed in place since the last settle (a handler changes a
    /// collection through `get_mut`, then touches the key). O(1) per touch.
    fn settle_memory(&mut self) {
        for touch in self.modified.iter().filter(|t| t.exists_after) {
            if let Some(entry) = self.entries.get_mut(&touch.key) {
                let cost = entry.cost(&touch.key, self.shared_ints);
                self.entries_bytes = self.entries_bytes - entry.memory_bytes + cost;
                entry.memory_bytes = cost;
            }
        }
    }

    /// The keys' share of `used_memory` recomputed from every entry: what the running
    /// figure must equal once changes are settled (tests assert it).
    #[cfg(test)]
    pub(crate) fn entries_bytes_recounted(&self) -> (usize, usize) {
        let recounted = self
            .entries
            .iter()
            .map(|(key, entry)| entry.cost(key, self.shared_ints))
            .sum();
        (self.entries_bytes, recounted)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keys with a TTL (INFO keyspace's `expires`).
    pub fn expires_len(&self) -> usize {
        self.expiries.len()
    }

    /// Deletes `key` if its TTL has passed; true if it did.
    pub fn expire_if_needed(&mut self, key: &[u8], now_ms: u64) -> bool {
        self.now_ms = self.now_ms.max(now_ms);
        let expired = matches!(
            self.entries.get(key),
            Some(Entry { expire_at_ms: Some(at), .. }) if *at <= now_ms
        );
        if expired {
            let key = Bytes::copy_from_slice(key);
            self.remove(&key);
            self.expired.push(key);
        }
        expired
    }

    /// True if `key` exists but its TTL has passed (it is deleted on next access).
    pub fn is_logically_expired(&self, key: &[u8], now_ms: u64) -> bool {
        matches!(
            self.entries.get(key),
            Some(Entry { expire_at_ms: Some(at), .. }) if *at <= now_ms
        )
    }

    /// The live entry of `key`, expiring it first if needed.
    pub fn get(&mut self, key: &[u8], now_ms: u64) -> Option<&Entry> {
        self.get_mut(key, now_ms).map(|entry| &*entry)
    }

    /// The entry of `key` without expiring it or counting an access (OBJECT's lookup
    /// still expires; this one is for inspection only).
    pub fn peek(&self, key: &[u8]) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// The live entry of `key` for modification. Callers that change it call
    /// [`Db::touch`]; callers that empty a collection call [`Db::remove_if_empty`].
    pub fn get_mut(&mut self, key: &[u8], now_ms: u64) -> Option<&mut Entry> {
        self.expire_if_needed(key, now_ms);
        // One lookup on the common path; an LFU policy checks first, so that only a key
        // found draws from its stream.
        let counted = self.lfu.is_some() && !self.untouched && self.entries.contains_key(key);
        let draw = counted.then(|| self.lfu_draw());
        let entry = self.entries.get_mut(key)?;
        if !self.untouched {
            entry.accessed_ms = now_ms;
        }
        if let (Some(params), Some(draw)) = (self.lfu, draw) {
            entry.lfu = entry.lfu.accessed(now_ms, params, draw);
        }
        Some(entry)
    }

    /// True if `key` is stored, live or not yet lazily expired; expires nothing.
    pub fn holds(&self, key: &[u8]) -> bool {
        self.entries.contains_key(key)
    }

    pub fn contains(&mut self, key: &[u8], now_ms: u64) -> bool {
        self.get(key, now_ms).is_some()
    }

    /// Store `value` under `key`, replacing any value and TTL (like SET).
    pub fn set(&mut self, key: Bytes, value: Value, expire_at_ms: Option<u64>) {
        self.remove_expiry_index(&key);
        if let Some(at) = expire_at_ms {
            self.expiries.insert((at, key.clone()));
        }
        self.modified.push(Touch {
            key: key.clone(),
            exists_after: true,
        });
        let mut entry = Entry {
            value,
            expire_at_ms,
            accessed_ms: self.now_ms,
            memory_bytes: 0,
            lfu: Lfu::new(self.now_ms),
        };
        entry.memory_bytes = entry.cost(&key, self.shared_ints);
        self.entries_bytes += entry.memory_bytes;
        match self.entries.entry(key) {
            std::collections::btree_map::Entry::Occupied(mut slot) => {
                // An overwritten key keeps its access frequency (Redis's `dbSetValue`).
                entry.lfu = slot.get().lfu;
                let old = slot.insert(entry);
                self.entries_bytes -= old.memory_bytes;
            }
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(entry);
            }
        }
    }

    /// Replace the value of `key`, keeping its TTL (like RPUSH on an existing key or KEEPTTL).
    pub fn set_keep_ttl(&mut self, key: Bytes, value: Value, now_ms: u64) {
        let expire_at_ms = self.get(&key, now_ms).and_then(|e| e.expire_at_ms);
        self.set(key, value, expire_at_ms);
    }

    pub fn remove(&mut self, key: &[u8]) -> Option<Entry> {
        let (key, entry) = self.entries.remove_entry(key)?;
        self.entries_bytes -= entry.memory_bytes;
        if let Some(at) = entry.expire_at_ms {
            self.expiries.remove(&(at, key.clone()));
        }
        self.modified.push(Touch {
            key,
            exists_after: false,
        });
        Some(entry)
    }

    /// Delete `key` if it holds an empty collection; Redis never keeps one.
    pub fn remove_if_empty(&mut self, key: &[u8]) {
        if self
            .entries
            .get(key)
            .is_some_and(|e| e.value.is_empty_collection())
        {
            self.remove(key);
        }
    }

    /// Record that `key` was modified in place. A shared handle, not a copy: the list only
    /// lives until the command settles.
    pub fn touch(&mut self, key: &Bytes) {
        self.modified.push(Touch {
            key: key.clone(),
            exists_after: true,
        });
    }

    /// Set or clear the TTL of an existing key. Returns false if the key is missing.
    pub fn set_expiry(&mut self, key: &[u8], expire_at_ms: Option<u64>) -> bool {
        let Some((key, entry)) = self.entries.get_key_value(key) else {
            return false;
        };
        let key = key.clone();
        let old = entry.expire_at_ms;
        if let Some(at) = old {
            self.expiries.remove(&(at, key.clone()));
        }
        if let Some(at) = expire_at_ms {
            self.expiries.insert((at, key.clone()));
        }
        let entry = self.entries.get_mut(&key).expect("present");
        entry.expire_at_ms = expire_at_ms;
        let cost = entry.cost(&key, self.shared_ints);
        self.entries_bytes = self.entries_bytes - entry.memory_bytes + cost;
        entry.memory_bytes = cost;
        self.modified.push(Touch {
            key,
            exists_after: true,
        });
        true
    }

    fn remove_expiry_index(&mut self, key: &Bytes) {
        if let Some(Entry {
            expire_at_ms: Some(at),
            ..
        }) = self.entries.get(key)
        {
            self.expiries.remove(&(*at, key.clone()));
        }
    }

    /// Delete up to `keys_max` keys whose TTL has passed, soonest first; returns how many.
    pub fn active_expire(&mut self, now_ms: u64, keys_max: usize) -> usize {
        let mut deleted = 0;
        while deleted < keys_max {
            let Some((at, key)) = self.expiries.first().cloned() else {
                break;
            };
            if at > now_ms {
                break;
            }
            self.remove(&key);
            self.expired.push(key);
            deleted += 1;
        }
        deleted
    }

    /// The earliest TTL deadline in this database.
    pub fn next_expiry_ms(&self) -> Option<u64> {
        self.expiries.first().map(|(at, _)| *at)
    }

    /// All keys, live or not yet lazily expired, in byte order.
    pub fn keys(&self) -> impl Iterator<Item = &Bytes> {
        self.entries.keys()
    }

    /// Keys strictly after `after` (all keys for `None`), in byte order.
    pub fn keys_after<'a>(
        &'a self,
        after: Option<&Bytes>,
    ) -> impl Iterator<Item = (&'a Bytes, &'a Entry)> {
        use std::ops::Bound;
        let lower = match after {
            Some(key) => Bound::Excluded(key.clone()),
            None => Bound::Unbounded,
        };
        self.entries.range((lower, Bound::Unbounded))
    }

    pub fn clear(&mut self) {
        let touches = self.entries.keys().map(|key| Touch {
            key: key.clone(),
            exists_after: false,
        });
        self.modified.extend(touches);
        self.entries.clear();
        self.expiries.clear();
        self.entries_bytes = 0;
    }

    /// Keys modified since the last [`Db::clear_changes`], deletions by expiry included.
    pub fn modified(&self) -> &[Touch] {
        &self.modified
    }

    /// Keys deleted by expiry since the last [`Db::clear_changes`].
    pub fn expired(&self) -> &[Bytes] {
        &self.expired
    }

    /// Forget the recorded changes. The lists keep their memory (every command records
    /// into them) unless a large deletion grew them.
    pub fn clear_changes(&mut self) {
        self.settle_memory();
        if self.modified.capacity() > CHANGES_RETAINED_MAX {
            self.modified = Vec::new();
        } else {
            self.modified.clear();
        }
        if self.expired.capacity() > CHANGES_RETAINED_MAX {
            self.expired = Vec::new();
        } else {
            self.expired.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(text: &'static str) -> Value {
        Value::Str(Bytes::from_static(text.as_bytes()))
    }

    #[test]
    fn lazy_expiry_on_access() {
        let mut db = Db::default();
        db.set(Bytes::from_static(b"k"), string("v"), Some(100));
        assert!(db.get(b"k", 99).is_some());
        assert!(db.get(b"k", 100).is_none());
        assert_eq!(db.len(), 0);
        assert_eq!(db.expired(), [Bytes::from_static(b"k")]);
    }

    #[test]
    fn active_expiry_deletes_unread_keys_in_deadline_order() {
        let mut db = Db::default();
        db.set(Bytes::from_static(b"a"), string("1"), Some(300));
        db.set(Bytes::from_static(b"b"), string("2"), Some(100));
        db.set(Bytes::from_static(b"c"), string("3"), None);
        assert_eq!(db.active_expire(200, 10), 1);
        assert_eq!(db.len(), 2);
        assert_eq!(db.next_expiry_ms(), Some(300));
        assert_eq!(db.active_expire(1_000, 10), 1);
        assert_eq!(db.next_expiry_ms(), None);
        assert_eq!(db.len(), 1);
    }

    #[test]
    fn set_replaces_ttl_and_set_expiry_moves_it() {
        let mut db = Db::default();
        db.set(Bytes::from_static(b"k"), string("v"), Some(100));
        assert!(db.set_expiry(b"k", Some(500)));
        assert_eq!(db.next_expiry_ms(), Some(500));
        db.set(Bytes::from_static(b"k"), string("w"), None);
        assert_eq!(db.next_expiry_ms(), None);
        assert!(!db.set_expiry(b"missing", Some(1)));
    }
}
