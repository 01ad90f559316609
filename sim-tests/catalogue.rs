//! The bug catalogue as the tests know it: every buggy variant of the reference store, the
//! violation classes its bug shows (any one counts, as the library's store registry
//! states them) and the seeds of the standard scenario within which the simulator must
//! catch it. Shared by the simulation tier's `variants` test and the real tier's
//! confirmations.

use amnesia::ViolationClass;

/// Variant, expected classes (any one counts), seeds `0..budget` it must be caught within.
pub fn catalogue() -> Vec<(&'static str, &'static [ViolationClass], u64)> {
    BUDGETS
        .iter()
        .map(|&(name, budget)| {
            let expected =
                amnesia::internal::store::expected_classes(name).expect("a built-in store");
            assert!(!expected.is_empty(), "{name} states the classes of its bug");
            (name, expected, budget)
        })
        .collect()
}

/// Variant, seeds `0..budget` it must be caught within.
const BUDGETS: &[(&str, u64)] = &[
    ("write-behind", 50),
    ("trim-off-by-one", 50),
    ("skewed-expireat", 50),
    // A zombie is provable only when every acked append of a freshly created session lost
    // its TTL refresh and the session then idled past its TTL: seeds whose buggify point
    // fires often surface it.
    ("expire-separate", 200),
    ("retry-dup", 50),
    ("timestamp-id", 50),
    ("client-clock-order", 50),
    ("delete-reverses", 50),
    ("rebuild-nonatomic", 200),
    ("rmw-blob", 50),
    ("pipeline-partial", 100),
    ("lossy-serde", 50),
    ("prefix-collision", 100),
    ("silent-read-cap", 50),
    ("index-skip", 200),
    ("key-scheme-v2", 50),
    // What only the impolite workload reveals: canonical twins, retries racing their
    // originals, forgets, clears, one user's concurrent sessions, overlapping appends.
    ("case-folded-ids", 150),
    ("retry-check-then-append", 50),
    ("forget-keeps-index", 50),
    ("clear-keeps-head", 50),
    ("memory-index-rmw", 150),
    ("context-cache", 150),
    // The untrimmed, non-idempotent list store whose append rewrites the list: two
    // appends of one session at once (first at seed 3, 112 of 1000 seeds).
    ("plain-list-rewrite", 50),
    // An update that leaves the memory's vector: seen by the quiescence audit of every
    // indexed vector against its text (first at seed 4, 352 of 1000 seeds).
    ("update-keeps-embedding", 50),
    // A connection cached for good: after the fault that breaks it, every call fails, long
    // after the heal (first at seed 4, 698 of 1000 seeds).
    ("cached-connection", 50),
    // A connection per session cached for good: caught when a fault broke the connection
    // of a session its final reads' client holds (first at seed 6, 306 of 500 seeds).
    ("session-connection", 50),
    // Replies awaited forever: only a silent drop shows it, hanging every later call on
    // the dropped connection.
    ("no-response-timeout", 50),
    // Rare races without a buggify point (issue 32): the guided search's yardsticks.
    ("memory-index-rmw-plain", 200),
    ("background-resend", 50),
];
