//! The bug catalogue as the tests know it: every buggy variant of the reference store, the
//! violation classes its bug shows (any one counts) and the seeds of the standard
//! scenario within which the simulator must catch it. Shared by the simulation tier's
//! `variants` test and the real tier's confirmations.

use amnesia::internal::check::ViolationClass::{self, *};

/// Variant, expected classes (any one counts), seeds `0..budget` it must be caught within.
pub const CATALOGUE: &[(&str, &[ViolationClass], u64)] = &[
    ("write-behind", &[Lost], 50),
    ("trim-off-by-one", &[Truncation, Lost], 50),
    ("skewed-expireat", &[PrematureExpiry, Zombie], 50),
    // A zombie is provable only when every acked append of a freshly created session lost
    // its TTL refresh and the session then idled past its TTL: seeds whose buggify point
    // fires often surface it.
    ("expire-separate", &[Zombie], 200),
    ("retry-dup", &[Duplicate], 50),
    ("timestamp-id", &[Lost], 50),
    ("client-clock-order", &[Reorder], 50),
    ("delete-reverses", &[Reorder], 50),
    ("rebuild-nonatomic", &[Lost], 200),
    ("rmw-blob", &[Lost], 50),
    ("pipeline-partial", &[Lost], 100),
    ("lossy-serde", &[Corrupt], 50),
    ("prefix-collision", &[Leak], 100),
    ("silent-read-cap", &[Lost], 50),
    ("index-skip", &[RecallMiss, IndexDrift], 200),
    ("key-scheme-v2", &[Lost], 50),
    // What only the impolite workload reveals: canonical twins, retries racing their
    // originals, forgets, clears, one user's concurrent sessions, overlapping appends.
    ("case-folded-ids", &[Leak], 150),
    ("retry-check-then-append", &[Duplicate], 50),
    ("forget-keeps-index", &[IndexDrift], 50),
    ("clear-keeps-head", &[Zombie], 50),
    ("memory-index-rmw", &[RecallMiss, IndexDrift], 150),
    ("context-cache", &[Lost], 150),
];
