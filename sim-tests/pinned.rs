//! Pinned trace hashes: the same seed of the same store on the same engine gives the same
//! trace today as on the day the pin was taken. A refactor that changes what a seed does
//! (its plan, its world, its scheduling, its recorded trace) fails here, naming the runs
//! that moved. A deliberate change of behaviour re-pins with the printed table:
//! `cargo test --profile test-release --test pinned -- --nocapture`.

use amnesia::{Builder, EngineKind, Store};

/// (engine, store, seed, trace hash): references and variants, passing and failing seeds.
const PINNED: &[(&str, &str, u64, u64)] = &[
    ("event", "reference", 0, 0xb43f89f0f0856d78),
    ("event", "reference", 1, 0xf1e41c03a8f032be),
    ("event", "reference", 2, 0x7902d213d785f494),
    ("event", "reference", 7, 0x85a03dd598491505),
    ("event", "reference", 42, 0x9be27a13e9ed647f),
    ("event", "reference", 1234, 0x74fcbfb8ed061e2e),
    ("event", "write-behind", 0, 0x18c9008b6b45cb5e),
    ("event", "write-behind", 1, 0x171ce09a1b465bc4),
    ("event", "write-behind", 2, 0xb7ec4699af2a8f8c),
    ("event", "write-behind", 7, 0x53e3df8784ed6673),
    ("event", "write-behind", 42, 0xf83575419f5fecfa),
    ("event", "write-behind", 1234, 0xa40b674bfa1520e8),
    ("event", "expire-separate", 0, 0xfc544a0a8016e3d5),
    ("event", "expire-separate", 1, 0xba148e67d8a63bf1),
    ("event", "expire-separate", 2, 0x91add71d174197b2),
    ("event", "expire-separate", 7, 0x73b3d01c02196b86),
    ("event", "expire-separate", 42, 0xe9c1bc492a09de2f),
    ("event", "expire-separate", 1234, 0x70988adda764617e),
    ("event", "trim-off-by-one", 0, 0x9308d33cdfcf197e),
    ("event", "trim-off-by-one", 1, 0xffb4e5fad19b10aa),
    ("event", "trim-off-by-one", 2, 0xb77bdc53d048d857),
    ("event", "trim-off-by-one", 7, 0x0aafdd6720f6bac3),
    ("event", "trim-off-by-one", 42, 0x828c150fd98a4df8),
    ("event", "trim-off-by-one", 1234, 0xa3765e2bd57c8892),
    ("event", "lossy-serde", 0, 0x67f7e814d263b6ef),
    ("event", "lossy-serde", 1, 0xdd038a85c71f00b9),
    ("event", "lossy-serde", 2, 0x1c98a02236ec4940),
    ("event", "lossy-serde", 7, 0x64bcc2c7cc8d0f09),
    ("event", "lossy-serde", 42, 0xde7c505680ef2955),
    ("event", "lossy-serde", 1234, 0x2de1032a94dcf870),
    ("event", "memory-index-rmw", 0, 0xe1d433fde07af171),
    ("event", "memory-index-rmw", 1, 0x95f72aa43eb731f9),
    ("event", "memory-index-rmw", 2, 0x70131506f534a776),
    ("event", "memory-index-rmw", 7, 0xa0691fa59966970a),
    ("event", "memory-index-rmw", 42, 0xfda4b0b093e7ce4e),
    ("event", "memory-index-rmw", 1234, 0xbe7a61e349ce6b62),
    ("turmoil", "reference", 0, 0x7aefb7f0ff7d4913),
    ("turmoil", "write-behind", 0, 0xc026aa8bc712e321),
    ("turmoil", "expire-separate", 0, 0x6aee6ab05cd8859e),
    ("turmoil", "trim-off-by-one", 0, 0x39cb929014faa300),
    ("turmoil", "lossy-serde", 0, 0xe481633245ad4865),
    ("turmoil", "memory-index-rmw", 0, 0x8e0b071db84e4372),
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
