//! Pinned trace hashes: the same seed of the same store on the same engine gives the same
//! trace today as on the day the pin was taken. A refactor that changes what a seed does
//! (its plan, its world, its scheduling, its recorded trace) fails here, naming the runs
//! that moved. A deliberate change of behaviour re-pins with the printed table:
//! `cargo test --profile test-release --test pinned -- --nocapture`.

use amnesia::{Builder, EngineKind, Store};

/// (engine, store, seed, trace hash): references and variants, passing and failing seeds.
const PINNED: &[(&str, &str, u64, u64)] = &[
    ("event", "reference", 0, 0x6b7d0c80c03a3e3b),
    ("event", "reference", 1, 0x9df40d75669dfdbc),
    ("event", "reference", 2, 0x00a470e4abcc5a3f),
    ("event", "reference", 7, 0x21765a2e5cfc479e),
    ("event", "reference", 42, 0x554f6f9c82e80aba),
    ("event", "reference", 1234, 0xcf231015fb4149fd),
    ("event", "write-behind", 0, 0x1cf82d675464f492),
    ("event", "write-behind", 1, 0x306d9341a5e0ad09),
    ("event", "write-behind", 2, 0x15024e26bd4e3622),
    ("event", "write-behind", 7, 0x3da32ebbbcf72ed0),
    ("event", "write-behind", 42, 0x481559200c12204d),
    ("event", "write-behind", 1234, 0x24b2cfa2d65817a1),
    ("event", "expire-separate", 0, 0x93425cc4b97b43bb),
    ("event", "expire-separate", 1, 0x4c706281a33f0f3d),
    ("event", "expire-separate", 2, 0x6d88e4bad99173d8),
    ("event", "expire-separate", 7, 0x5e4b05fac8cfa2ad),
    ("event", "expire-separate", 42, 0x79836911312e1e52),
    ("event", "expire-separate", 1234, 0xe873808b6a0a26cc),
    ("event", "trim-off-by-one", 0, 0xa07dea6de46e11e2),
    ("event", "trim-off-by-one", 1, 0xfc72411c1b9a1bdf),
    ("event", "trim-off-by-one", 2, 0x7e9e44f5235b6ea9),
    ("event", "trim-off-by-one", 7, 0x2c61ba659bc0e4fe),
    ("event", "trim-off-by-one", 42, 0x96618b1dd8fef328),
    ("event", "trim-off-by-one", 1234, 0xc7ad9e5a2bfadfe8),
    ("event", "lossy-serde", 0, 0xc090fbef7bc3b614),
    ("event", "lossy-serde", 1, 0x2e73921772b1bcc2),
    ("event", "lossy-serde", 2, 0x649f9206258cfb77),
    ("event", "lossy-serde", 7, 0x1246e65fca6211e7),
    ("event", "lossy-serde", 42, 0x1401e7564f61df1f),
    ("event", "lossy-serde", 1234, 0xcb4c0b4eaf84dd3d),
    ("event", "memory-index-rmw", 0, 0xf330b14f12c1b9cb),
    ("event", "memory-index-rmw", 1, 0xab696db8f73e4948),
    ("event", "memory-index-rmw", 2, 0x3096235bf6618006),
    ("event", "memory-index-rmw", 7, 0xe190e56dbfd9df57),
    ("event", "memory-index-rmw", 42, 0xff889ce09c0b98a5),
    ("event", "memory-index-rmw", 1234, 0x75469c537bde8bca),
    ("turmoil", "reference", 0, 0x290b85e33e229706),
    ("turmoil", "write-behind", 0, 0x021544408ad16493),
    ("turmoil", "expire-separate", 0, 0xeb16813b25e7fd08),
    ("turmoil", "trim-off-by-one", 0, 0x5b8a78b74fd77fbb),
    ("turmoil", "lossy-serde", 0, 0x509ad900853f7604),
    ("turmoil", "memory-index-rmw", 0, 0xa278656a269cd362),
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
