//! The values a key can hold, with the iteration orders Redis 7.0 shows for small
//! collections (listpack hashes keep insertion order; integer sets are sorted).

use crate::model::data::collections::{Hash, List, Set};
use crate::model::data::memory::{self, Measure, Tally};
use bytes::Bytes;
use std::collections::{BTreeMap, BTreeSet};

/// A key's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Str(Bytes),
    List(List),
    /// Insertion-ordered, as a listpack-encoded Redis hash.
    Hash(Hash),
    Set(Set),
    ZSet(ZSet),
}

/// The name `TYPE` answers, and the tag of `SCAN ... TYPE`.
impl Value {
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Hash(_) => "hash",
            Value::Set(_) => "set",
            Value::ZSet(_) => "zset",
        }
    }

    /// True for an empty collection, which Redis never keeps.
    pub fn is_empty_collection(&self) -> bool {
        match self {
            Value::Str(_) => false,
            Value::List(list) => list.is_empty(),
            Value::Hash(hash) => hash.is_empty(),
            Value::Set(set) => set.is_empty(),
            Value::ZSet(zset) => zset.is_empty(),
        }
    }

    /// Set members in the order `SMEMBERS` shows them: numerically for integer sets (Redis's
    /// intset), byte order otherwise (Redis shows hash order there, which no client may rely on).
    pub fn set_members_ordered(set: &BTreeSet<Bytes>) -> Vec<Bytes> {
        let as_ints: Option<Vec<(i64, &Bytes)>> = set
            .iter()
            .map(|m| crate::model::data::number::parse_strict_i64(m).map(|i| (i, m)))
            .collect();
        match as_ints {
            Some(mut ints) if set.len() <= 512 => {
                ints.sort();
                ints.into_iter().map(|(_, m)| m.clone()).collect()
            }
            _ => set.iter().cloned().collect(),
        }
    }
}

/// What a value costs in Redis's memory (`data::memory`), in the encoding its content
/// decides; O(1) from the collections' tallies.
impl Value {
    /// `shared_ints`: small integer strings are Redis's shared objects (see
    /// [`memory::string_bytes`]).
    pub(crate) fn memory_bytes(&self, shared_ints: bool, measure: Measure) -> usize {
        match self {
            Value::Str(data) => memory::string_bytes(data, shared_ints, measure),
            Value::List(list) => memory::list_bytes(list.tally().listpack_bytes, measure),
            Value::Hash(hash) => {
                let tally = hash.tally();
                if hash.len() <= memory::HASH_LISTPACK_ENTRIES_MAX && tally.oversized == 0 {
                    memory::listpack_object_bytes(tally.listpack_bytes)
                } else {
                    memory::table_object_bytes(hash.len(), tally.table_bytes, measure)
                }
            }
            Value::Set(set) => {
                let tally = set.tally();
                if set.len() <= memory::SET_INTSET_ENTRIES_MAX && tally.oversized == 0 {
                    memory::intset_bytes(set.len(), tally)
                } else {
                    memory::table_object_bytes(set.len(), tally.table_bytes, measure)
                }
            }
            Value::ZSet(zset) => {
                let tally = zset.tally();
                if zset.len() <= memory::ZSET_LISTPACK_ENTRIES_MAX && tally.oversized == 0 {
                    memory::listpack_object_bytes(tally.listpack_bytes)
                } else {
                    memory::skiplist_bytes(zset.len(), tally, measure)
                }
            }
        }
    }
}

/// A sorted set: members ordered by (score, member bytes), as Redis orders them.
#[derive(Clone, Debug, Default)]
pub struct ZSet {
    scores: BTreeMap<Bytes, f64>,
    ordered: BTreeSet<(Score, Bytes)>,
    /// What its members cost (`data::memory`).
    tally: Tally,
}

impl PartialEq for ZSet {
    fn eq(&self, other: &Self) -> bool {
        self.scores == other.scores
    }
}

/// An `f64` score with a total order; scores are never NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score(pub f64);

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.partial_cmp(&other.0).expect("scores are never NaN")
    }
}

impl ZSet {
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    pub(crate) fn tally(&self) -> &Tally {
        &self.tally
    }

    pub fn score(&self, member: &[u8]) -> Option<f64> {
        self.scores.get(member).copied()
    }

    /// Insert or move `member`; returns the previous score.
    pub fn insert(&mut self, member: Bytes, score: f64) -> Option<f64> {
        assert!(!score.is_nan(), "a NaN score never reaches the sorted set");
        // Redis 7.0 keeps sorted sets of up to 128 short members as a listpack, which
        // stores a score as text and reads -0 back as 0.
        let score = score + 0.0;
        self.tally.add(Tally::zset_member(&member, score));
        let previous = self.scores.insert(member.clone(), score);
        if let Some(old) = previous {
            self.tally.sub(Tally::zset_member(&member, old));
            self.ordered.remove(&(Score(old), member.clone()));
        }
        self.ordered.insert((Score(score), member));
        previous
    }

    pub fn remove(&mut self, member: &[u8]) -> bool {
        match self.scores.remove_entry(member) {
            Some((member, score)) => {
                self.tally.sub(Tally::zset_member(&member, score));
                self.ordered.remove(&(Score(score), member));
                true
            }
            None => false,
        }
    }

    /// Members with scores in ascending order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Bytes, f64)> + ExactSizeIterator {
        self.ordered.iter().map(|(score, member)| (member, score.0))
    }
}
