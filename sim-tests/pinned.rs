//! Pinned trace hashes: the same seed of the same store on the same engine gives the same
//! trace today as on the day the pin was taken. A refactor that changes what a seed does
//! (its plan, its world, its scheduling, its recorded trace) fails here, naming the runs
//! that moved. A deliberate change of behaviour re-pins with the printed table:
//! `cargo test --profile test-release --test pinned -- --nocapture`.

use amnesia::{Builder, EngineKind, Store};

/// (engine, store, seed, trace hash): references and variants, passing and failing seeds.
const PINNED: &[(&str, &str, u64, u64)] = &[
    ("event", "reference", 0, 0x128a4111960dc443),
    ("event", "reference", 1, 0x5870a4ccec8a803d),
    ("event", "reference", 2, 0xa0e2e88c579e828a),
    ("event", "reference", 7, 0x75522d5f80cce4bc),
    ("event", "reference", 42, 0xed97ae5852ce6c50),
    ("event", "reference", 1234, 0xc3c96e181ee290bb),
    ("event", "write-behind", 0, 0xb6035cc09f8f06db),
    ("event", "write-behind", 1, 0xd51ac1e41fd87c59),
    ("event", "write-behind", 2, 0x043f160487eceaf2),
    ("event", "write-behind", 7, 0xab7374f3ded4bda7),
    ("event", "write-behind", 42, 0xf2d29d1bcd502edd),
    ("event", "write-behind", 1234, 0x75fb263dd3622ebd),
    ("event", "expire-separate", 0, 0x8b6d881716f5877d),
    ("event", "expire-separate", 1, 0x3f56cbd0c5aa1678),
    ("event", "expire-separate", 2, 0x2ec7b432dc9ab51c),
    ("event", "expire-separate", 7, 0x6b7c4e61bbc27a49),
    ("event", "expire-separate", 42, 0x8ee32d4d09aa8817),
    ("event", "expire-separate", 1234, 0x6b0bc8c61e684526),
    ("event", "trim-off-by-one", 0, 0x02843a8e6256874f),
    ("event", "trim-off-by-one", 1, 0x9364b2609fd291d9),
    ("event", "trim-off-by-one", 2, 0x1aab86136dc3fb7e),
    ("event", "trim-off-by-one", 7, 0xa6b6f986e504d8d6),
    ("event", "trim-off-by-one", 42, 0x49c4eaf7de62e471),
    ("event", "trim-off-by-one", 1234, 0x391dac7393a6d30e),
    ("event", "lossy-serde", 0, 0x5dc0e35f16972a80),
    ("event", "lossy-serde", 1, 0xa0725d7769a9f14b),
    ("event", "lossy-serde", 2, 0xcc5be8b4c3c03a7a),
    ("event", "lossy-serde", 7, 0xbfab4418bd138f54),
    ("event", "lossy-serde", 42, 0x0531e7983dc9a785),
    ("event", "lossy-serde", 1234, 0x44383889d6c465aa),
    ("event", "memory-index-rmw", 0, 0xddbde79354ea1ad5),
    ("event", "memory-index-rmw", 1, 0x8fb03a075bd2d684),
    ("event", "memory-index-rmw", 2, 0x051a0ee648480dc8),
    ("event", "memory-index-rmw", 7, 0xa0f06194408e9bbc),
    ("event", "memory-index-rmw", 42, 0xda46b92c03f8083a),
    ("event", "memory-index-rmw", 1234, 0x4d216bbfdb7d4615),
    ("turmoil", "reference", 0, 0x62aba70aeec639a2),
    ("turmoil", "write-behind", 0, 0xf3ad5e0809be0d2e),
    ("turmoil", "expire-separate", 0, 0x79635a01aeaa4bd4),
    ("turmoil", "trim-off-by-one", 0, 0x87f363300b81e86c),
    ("turmoil", "lossy-serde", 0, 0xacb5aa498b93f450),
    ("turmoil", "memory-index-rmw", 0, 0xa6b285b2b34248c3),
];

fn hash(engine: &str, store: &str, seed: u64) -> u64 {
    let engine = EngineKind::parse(engine).expect("a known engine");
    let store = Store::named(store).expect("a known store");
    Builder::new()
        .store(store)
        .engine(engine)
        .run(seed)
        .trace
        .hash()
}

#[test]
fn every_pinned_run_keeps_its_trace_hash() {
    let mut moved = Vec::new();
    let mut table = String::new();
    for &(engine, store, seed, pinned) in PINNED {
        let now = hash(engine, store, seed);
        table += &format!("    (\"{engine}\", \"{store}\", {seed}, 0x{now:016x}),\n");
        if now != pinned {
            moved.push(format!(
                "{engine} {store} seed {seed}: {pinned:016x} -> {now:016x}"
            ));
        }
    }
    println!("{table}");
    assert!(
        moved.is_empty(),
        "trace hashes moved:\n{}",
        moved.join("\n")
    );
}
