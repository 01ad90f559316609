//! What a key costs in Redis 7.0's memory (`object.c`'s `objectComputeSize`, zmalloc's
//! accounting), calibrated against redis-server 7.0.15 with jemalloc 5.3 on x86_64.
//!
//! Two figures: the bytes a key adds to INFO's `used_memory` (every allocation at
//! jemalloc's usable size, the keyspace's `dictEntry`s included) and what `MEMORY USAGE`
//! answers (Redis adds `sizeof` of its structures there, not their allocations). Both are
//! computed in O(1) from a collection's [`Tally`], which the collection keeps as elements
//! come and go. The encoding is the one the content decides (as `OBJECT ENCODING` reports
//! it in the model), so a collection that shrinks back is costed in its small encoding,
//! which Redis never converts back to.

use crate::model::data::number::parse_strict_i64;

/// `sizeof(robj)`, also its allocation.
const ROBJ_BYTES: usize = 16;
/// `sizeof(dictEntry)` (key, value, next); jemalloc hands out 32.
const DICT_ENTRY_SIZE: usize = 24;
/// `sizeof(dict)` in 7.0 (type, two tables, two counts, rehash index and pause, exponents).
const DICT_SIZE: usize = 56;
/// `sizeof(quicklist)` and `sizeof(quicklistNode)` in 7.0.
const QUICKLIST_SIZE: usize = 40;
const QUICKLIST_NODE_SIZE: usize = 40;
/// A listpack's header (total bytes, element count) and end byte.
const LISTPACK_EMPTY_BYTES: usize = 7;
/// `list-max-listpack-size -2`: a quicklist node's listpack holds up to 8 KB.
const QUICKLIST_NODE_BYTES_MAX: usize = 8192;
/// An intset's header (encoding, length).
const INTSET_HEADER_BYTES: usize = 8;
/// `sizeof(zset)` (dict and skiplist pointers) and `sizeof(zskiplist)`.
const ZSET_SIZE: usize = 16;
const ZSKIPLIST_SIZE: usize = 32;
/// The skiplist's header node: 32 levels of (forward, span) after member, score, backward.
const ZSKIPLIST_HEADER_SIZE: usize = 24 + 32 * 16;
/// A skiplist node's expected allocation: its level is random (p = 1/4), 48 bytes at
/// level 1, 16 more per level, so 0.75·48 + 0.1875·64 + 0.047·80 + … ≈ 53.
const ZSKIPLIST_NODE_EXPECTED_BYTES: usize = 53;
/// The text of a non-integral score in a listpack (`%.17g`): about 18 characters.
const SCORE_TEXT_BYTES: usize = 18;
/// Redis's encoding thresholds at their defaults (`*-max-listpack-*`, `set-max-intset-entries`).
pub(crate) const HASH_LISTPACK_ENTRIES_MAX: usize = 512;
pub(crate) const HASH_LISTPACK_VALUE_MAX: usize = 64;
pub(crate) const SET_INTSET_ENTRIES_MAX: usize = 512;
pub(crate) const ZSET_LISTPACK_ENTRIES_MAX: usize = 128;
pub(crate) const ZSET_LISTPACK_VALUE_MAX: usize = 64;
/// The longest string Redis tries to read as an integer (`tryObjectEncoding`).
const INT_TEXT_LEN_MAX: usize = 20;
/// The longest string kept `embstr` (`OBJ_ENCODING_EMBSTR_SIZE_LIMIT`).
const EMBSTR_LEN_MAX: usize = 44;
/// Integers `0..SHARED_INTEGERS` are Redis's shared objects: a key's value costs nothing.
const SHARED_INTEGERS: i64 = 10_000;

/// jemalloc's usable size for a request of `bytes` (its size classes on x86_64: 8, then
/// steps of 16 up to 128, then four classes per doubling).
pub(crate) fn alloc_bytes(bytes: usize) -> usize {
    if bytes <= 8 {
        return 8;
    }
    if bytes <= 128 {
        return (bytes + 15) & !15;
    }
    let lg = usize::BITS - 1 - (bytes - 1).leading_zeros();
    let spacing = 1usize << (lg - 2);
    (bytes + spacing - 1) & !(spacing - 1)
}

/// The header of an sds string of `len` bytes made by `sdsnewlen` (type 5 below 32 bytes).
fn sds_header_bytes(len: usize) -> usize {
    match len {
        1..32 => 1,
        0 | 32..256 => 3,
        256..65_536 => 5,
        _ if len as u64 <= u64::from(u32::MAX) => 9,
        _ => 17,
    }
}

/// An sds string's allocation: header, bytes, terminator.
pub(crate) fn sds_bytes(len: usize) -> usize {
    alloc_bytes(sds_header_bytes(len) + len + 1)
}

/// A listpack entry's back-length field for an entry of `len` bytes.
fn listpack_backlen_bytes(len: usize) -> usize {
    match len {
        0..128 => 1,
        128..16_383 => 2,
        16_383..2_097_151 => 3,
        2_097_151..268_435_455 => 4,
        _ => 5,
    }
}

/// The bytes an integer takes in a listpack entry (its encoding byte included).
fn listpack_int_bytes(value: i64) -> usize {
    match value {
        0..=127 => 1,
        -4096..=4095 => 2,
        _ if i16::try_from(value).is_ok() => 3,
        -8_388_608..=8_388_607 => 4,
        _ if i32::try_from(value).is_ok() => 5,
        _ => 9,
    }
}

/// One element's bytes in a listpack: integers as integers (`lpStringToInt64`), else
/// the string with its length header; each with its back-length.
pub(crate) fn listpack_entry_bytes(element: &[u8]) -> usize {
    let encoded = match parse_int(element) {
        Some(value) => listpack_int_bytes(value),
        None => {
            let header = match element.len() {
                0..64 => 1,
                64..4096 => 2,
                _ => 5,
            };
            header + element.len()
        }
    };
    encoded + listpack_backlen_bytes(encoded)
}

/// A score's bytes in a sorted set's listpack (`d2string`, then read back as an integer
/// when it is one).
pub(crate) fn listpack_score_bytes(score: f64) -> usize {
    const EXACT_INT_MAX: f64 = 9_007_199_254_740_992.0; // 2^53
    let encoded = if score.fract() == 0.0 && score.abs() < EXACT_INT_MAX {
        listpack_int_bytes(score as i64)
    } else {
        1 + SCORE_TEXT_BYTES
    };
    encoded + listpack_backlen_bytes(encoded)
}

/// The element as Redis's integer reading sees it (`string2ll`: no sign but `-`, no
/// leading zeros, at most 20 characters).
pub(crate) fn parse_int(element: &[u8]) -> Option<i64> {
    if element.len() > INT_TEXT_LEN_MAX {
        return None;
    }
    parse_strict_i64(element)
}

/// A hash table's bucket count for `len` elements, growing by doubling from 4 as Redis's
/// `dict` does (at a fill of 1).
pub(crate) fn dict_buckets(len: usize) -> usize {
    len.next_power_of_two().max(4)
}

/// The keyspace's and the expiry table's cost beyond their entries (the bucket arrays).
pub(crate) fn keyspace_tables_bytes(keys: usize, expiring: usize) -> usize {
    let table = |len: usize| if len == 0 { 0 } else { dict_buckets(len) * 8 };
    table(keys) + table(expiring)
}

/// The aggregates a collection keeps of its elements so that its cost is O(1) to read.
/// Every field is a sum over the elements; an element's contribution depends on it alone,
/// so adding and removing it are exact inverses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Σ of the elements' listpack entries (for a hash, fields and values; for a sorted
    /// set, members and scores).
    pub listpack_bytes: usize,
    /// Σ of what each element costs in the hash table encoding (entry, sds strings,
    /// skiplist node).
    pub table_bytes: usize,
    /// Elements that keep the collection out of its small encoding by length (or, in a
    /// set, by not being an integer).
    pub oversized: usize,
    /// Set members that need a 32-bit or a 64-bit intset.
    pub wide32: usize,
    pub wide64: usize,
}

impl Tally {
    pub(crate) fn add(&mut self, other: Tally) {
        self.listpack_bytes += other.listpack_bytes;
        self.table_bytes += other.table_bytes;
        self.oversized += other.oversized;
        self.wide32 += other.wide32;
        self.wide64 += other.wide64;
    }

    pub(crate) fn sub(&mut self, other: Tally) {
        let take = |total: &mut usize, part: usize| {
            *total = total
                .checked_sub(part)
                .expect("a tally never goes below zero");
        };
        take(&mut self.listpack_bytes, other.listpack_bytes);
        take(&mut self.table_bytes, other.table_bytes);
        take(&mut self.oversized, other.oversized);
        take(&mut self.wide32, other.wide32);
        take(&mut self.wide64, other.wide64);
    }

    /// A list element's contribution.
    pub(crate) fn list_element(element: &[u8]) -> Tally {
        Tally {
            listpack_bytes: listpack_entry_bytes(element),
            ..Tally::default()
        }
    }

    /// A hash field's and its value's contribution.
    pub(crate) fn hash_pair(field: &[u8], value: &[u8]) -> Tally {
        let long = |s: &[u8]| usize::from(s.len() > HASH_LISTPACK_VALUE_MAX);
        Tally {
            listpack_bytes: listpack_entry_bytes(field) + listpack_entry_bytes(value),
            table_bytes: alloc_bytes(DICT_ENTRY_SIZE)
                + sds_bytes(field.len())
                + sds_bytes(value.len()),
            oversized: long(field) + long(value),
            ..Tally::default()
        }
    }

    /// A set member's contribution.
    pub(crate) fn set_member(member: &[u8]) -> Tally {
        let int = parse_int(member);
        let width = |fits: fn(i64) -> bool| usize::from(int.is_some_and(|i| !fits(i)));
        Tally {
            table_bytes: alloc_bytes(DICT_ENTRY_SIZE) + sds_bytes(member.len()),
            oversized: usize::from(int.is_none()),
            wide32: width(|i| i16::try_from(i).is_ok()),
            wide64: width(|i| i32::try_from(i).is_ok()),
            ..Tally::default()
        }
    }

    /// A sorted set member's and its score's contribution.
    pub(crate) fn zset_member(member: &[u8], score: f64) -> Tally {
        Tally {
            listpack_bytes: listpack_entry_bytes(member) + listpack_score_bytes(score),
            table_bytes: alloc_bytes(DICT_ENTRY_SIZE)
                + sds_bytes(member.len())
                + ZSKIPLIST_NODE_EXPECTED_BYTES,
            oversized: usize::from(member.len() > ZSET_LISTPACK_VALUE_MAX),
            ..Tally::default()
        }
    }
}

/// Which of Redis's structures a figure counts: allocations (`used_memory`) or `sizeof`s
/// (`MEMORY USAGE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Measure {
    Allocated,
    Usage,
}

impl Measure {
    fn of(self, size: usize) -> usize {
        match self {
            Measure::Allocated => alloc_bytes(size),
            Measure::Usage => size,
        }
    }
}

/// A string value's cost. `shared_ints`: small integers are Redis's shared objects
/// (no maxmemory, or a policy that is neither LRU nor LFU).
pub(crate) fn string_bytes(data: &[u8], shared_ints: bool, measure: Measure) -> usize {
    match parse_int(data) {
        Some(i)
            if measure == Measure::Allocated
                && shared_ints
                && (0..SHARED_INTEGERS).contains(&i) =>
        {
            0
        }
        Some(_) => ROBJ_BYTES,
        None if data.len() <= EMBSTR_LEN_MAX => alloc_bytes(ROBJ_BYTES + 3 + data.len() + 1),
        None => ROBJ_BYTES + sds_bytes(data.len()),
    }
}

/// A quicklist whose listpack entries sum to `entries_bytes`: pushes fill a node up to
/// 8 KB before starting the next, so full nodes and one partly filled.
pub(crate) fn list_bytes(entries_bytes: usize, measure: Measure) -> usize {
    let per_node_max = QUICKLIST_NODE_BYTES_MAX - LISTPACK_EMPTY_BYTES;
    let (full, rest) = (entries_bytes / per_node_max, entries_bytes % per_node_max);
    let partial = usize::from(rest > 0 || full == 0);
    let listpacks = full * alloc_bytes(QUICKLIST_NODE_BYTES_MAX)
        + partial * alloc_bytes(LISTPACK_EMPTY_BYTES + rest);
    let nodes = full + partial;
    ROBJ_BYTES + measure.of(QUICKLIST_SIZE) + nodes * measure.of(QUICKLIST_NODE_SIZE) + listpacks
}

/// A listpack holding entries of `entries_bytes` in all, behind its object.
pub(crate) fn listpack_object_bytes(entries_bytes: usize) -> usize {
    ROBJ_BYTES + alloc_bytes(LISTPACK_EMPTY_BYTES + entries_bytes)
}

/// A hash table of `len` elements costing `elements_bytes`, behind its object.
pub(crate) fn table_object_bytes(len: usize, elements_bytes: usize, measure: Measure) -> usize {
    let entries = match measure {
        Measure::Allocated => elements_bytes,
        // MEMORY USAGE counts an entry's `sizeof`, 8 bytes under its allocation.
        Measure::Usage => elements_bytes - len * (alloc_bytes(DICT_ENTRY_SIZE) - DICT_ENTRY_SIZE),
    };
    ROBJ_BYTES + measure.of(DICT_SIZE) + dict_buckets(len) * 8 + entries
}

/// An intset of `len` members at the widest member's width.
pub(crate) fn intset_bytes(len: usize, tally: &Tally) -> usize {
    let width = if tally.wide64 > 0 {
        8
    } else if tally.wide32 > 0 {
        4
    } else {
        2
    };
    ROBJ_BYTES + alloc_bytes(INTSET_HEADER_BYTES + width * len)
}

/// A skiplist-encoded sorted set: its table plus the skiplist's own structures.
pub(crate) fn skiplist_bytes(len: usize, tally: &Tally, measure: Measure) -> usize {
    let skiplist =
        measure.of(ZSET_SIZE) + measure.of(ZSKIPLIST_SIZE) + alloc_bytes(ZSKIPLIST_HEADER_SIZE);
    table_object_bytes(len, tally.table_bytes, measure) + skiplist
}

/// What the key itself costs beyond its value: its keyspace entry and name, and its
/// entry in the expiry table.
pub(crate) fn key_bytes(key_len: usize, expiring: bool, measure: Measure) -> usize {
    let entry = measure.of(DICT_ENTRY_SIZE);
    let expiry = if expiring && measure == Measure::Allocated {
        alloc_bytes(DICT_ENTRY_SIZE)
    } else {
        0
    };
    entry + sds_bytes(key_len) + expiry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jemalloc_size_classes() {
        let classes = [
            (1, 8),
            (9, 16),
            (23, 32),
            (100, 112),
            (129, 160),
            (257, 320),
            (1025, 1280),
            (8193, 10240),
        ];
        for (request, usable) in classes {
            assert_eq!(alloc_bytes(request), usable, "{request}");
        }
    }

    #[test]
    fn listpack_entries_as_redis_encodes_them() {
        assert_eq!(listpack_entry_bytes(b"a"), 3);
        assert_eq!(listpack_entry_bytes(b"1"), 2);
        assert_eq!(listpack_entry_bytes(&[b'c'; 100]), 103);
        assert_eq!(listpack_entry_bytes(b"100000"), 5);
    }

    /// The figures redis-server 7.0.15 gave for `SET key0 bar`, an integer, an embstr of
    /// 44 bytes and raw strings of 45 and 100 (MEMORY USAGE; used_memory's deltas).
    #[test]
    fn strings_as_measured() {
        let usage = |key: &str, value: &[u8]| {
            key_bytes(key.len(), false, Measure::Usage) + string_bytes(value, true, Measure::Usage)
        };
        assert_eq!(usage("key0", b"bar"), 64);
        assert_eq!(usage("kint", b"1"), 48);
        assert_eq!(usage("e44", &[b'x'; 44]), 96);
        assert_eq!(usage("r45", &[b'x'; 45]), 112);
        assert_eq!(usage("r100", &[b'x'; 100]), 160);
        let allocated = key_bytes(4, false, Measure::Allocated)
            + string_bytes(b"bar", true, Measure::Allocated);
        assert_eq!(allocated, 72);
        assert_eq!(
            key_bytes(4, false, Measure::Allocated) + string_bytes(b"1", true, Measure::Allocated),
            40
        );
    }
}
