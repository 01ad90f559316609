//! Pinned trace hashes: the same seed of the same store on the same engine gives the same
//! trace today as on the day the pin was taken. A refactor that changes what a seed does
//! (its plan, its world, its scheduling, its recorded trace) fails here, naming the runs
//! that moved. A deliberate change of behaviour re-pins with the printed table:
//! `cargo test --profile test-release --test pinned -- --nocapture`.

use amnesia::{Builder, EngineKind, Store};

/// (engine, store, seed, trace hash): references and variants, passing and failing seeds.
const PINNED: &[(&str, &str, u64, u64)] = &[
    ("event", "reference", 0, 0x09fafc1db847135d),
    ("event", "reference", 1, 0xf1e41c03a8f032be),
    ("event", "reference", 2, 0x7902d213d785f494),
    ("event", "reference", 7, 0xa43c82a551a43cd5),
    ("event", "reference", 42, 0x9daa5d6e7b06e49a),
    ("event", "reference", 1234, 0xa9d73523d013053d),
    ("event", "write-behind", 0, 0xbef9f10d0623933e),
    ("event", "write-behind", 1, 0x171ce09a1b465bc4),
    ("event", "write-behind", 2, 0xb7ec4699af2a8f8c),
    ("event", "write-behind", 7, 0x007c7f385eb8985d),
    ("event", "write-behind", 42, 0x15e7e4d6c66f7762),
    ("event", "write-behind", 1234, 0x87f3eafef60f1342),
    ("event", "expire-separate", 0, 0x8fcc52a2fe84c3e0),
    ("event", "expire-separate", 1, 0xba148e67d8a63bf1),
    ("event", "expire-separate", 2, 0x91add71d174197b2),
    ("event", "expire-separate", 7, 0x66710fe1b3eaafc1),
    ("event", "expire-separate", 42, 0x0957ff9514800b62),
    ("event", "expire-separate", 1234, 0xe1d390568f4a119e),
    ("event", "trim-off-by-one", 0, 0x51150a62b28a6fa2),
    ("event", "trim-off-by-one", 1, 0xffb4e5fad19b10aa),
    ("event", "trim-off-by-one", 2, 0xb77bdc53d048d857),
    ("event", "trim-off-by-one", 7, 0x9c43e8439e7e4f22),
    ("event", "trim-off-by-one", 42, 0xbca59d9c96403beb),
    ("event", "trim-off-by-one", 1234, 0x58a6e1d98c7d69b6),
    ("event", "lossy-serde", 0, 0x71f05789d384be88),
    ("event", "lossy-serde", 1, 0xdd038a85c71f00b9),
    ("event", "lossy-serde", 2, 0x1c98a02236ec4940),
    ("event", "lossy-serde", 7, 0xa97a40f47a91883d),
    ("event", "lossy-serde", 42, 0x9691fe9ce0fef317),
    ("event", "lossy-serde", 1234, 0x0c931a73bc43a089),
    ("event", "memory-index-rmw", 0, 0x79d76d7c1b1ff938),
    ("event", "memory-index-rmw", 1, 0x95f72aa43eb731f9),
    ("event", "memory-index-rmw", 2, 0x70131506f534a776),
    ("event", "memory-index-rmw", 7, 0x217a80643c6a15d1),
    ("event", "memory-index-rmw", 42, 0x2c3503f7fdcc9294),
    ("event", "memory-index-rmw", 1234, 0x194ebe2b99071d69),
    ("turmoil", "reference", 0, 0xc893b60c744bdbf7),
    ("turmoil", "write-behind", 0, 0xba180617d6637db1),
    ("turmoil", "expire-separate", 0, 0xefc2849fa30fe441),
    ("turmoil", "trim-off-by-one", 0, 0xcd741a882a0a2651),
    ("turmoil", "lossy-serde", 0, 0x63898512077eca2a),
    ("turmoil", "memory-index-rmw", 0, 0x522259c58f643a38),
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
