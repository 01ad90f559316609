//! Seeds to first detection of every bug variant on the standard scenario (event engine):
//! per variant, run seeds 0.. until a verdict holds one of the variant's expected classes,
//! and print that seed, its classes and the replay command. With `--rate N`, also count how
//! many of seeds 0..N catch it.
//! Run: `cargo run --release --example variant_detection [-- --rate 200] [NAME...]`.

use amnesia::ScenarioConfig;
use amnesia::ViolationClass;

/// Variant, expected classes, seeds to try.
const VARIANTS: &[(&str, &[ViolationClass])] = &[
    ("write-behind", &[ViolationClass::Lost]),
    (
        "trim-off-by-one",
        &[ViolationClass::Truncation, ViolationClass::Lost],
    ),
    (
        "skewed-expireat",
        &[ViolationClass::PrematureExpiry, ViolationClass::Zombie],
    ),
    ("expire-separate", &[ViolationClass::Zombie]),
    ("retry-dup", &[ViolationClass::Duplicate]),
    ("timestamp-id", &[ViolationClass::Lost]),
    ("client-clock-order", &[ViolationClass::Reorder]),
    ("delete-reverses", &[ViolationClass::Reorder]),
    ("rebuild-nonatomic", &[ViolationClass::Lost]),
    ("rmw-blob", &[ViolationClass::Lost]),
    ("pipeline-partial", &[ViolationClass::Lost]),
    ("lossy-serde", &[ViolationClass::Corrupt]),
    ("prefix-collision", &[ViolationClass::Leak]),
    ("silent-read-cap", &[ViolationClass::Lost]),
];

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut rate = None;
    if let Some(i) = args.iter().position(|a| a == "--rate") {
        rate = args.get(i + 1).and_then(|n| n.parse::<u64>().ok());
        args.drain(i..(i + 2).min(args.len()));
    }
    let scenario = ScenarioConfig::standard();
    for (name, expected) in VARIANTS {
        if !args.is_empty() && !args.iter().any(|a| a == name) {
            continue;
        }
        let caught = |seed: u64| {
            let report = amnesia::Builder::new()
                .store(amnesia::Store::named(name).expect("known store"))
                .scenario(scenario.clone())
                .run(seed);
            let classes = report.verdict.classes();
            classes
                .iter()
                .any(|c| expected.contains(c))
                .then_some(classes)
        };
        let first = (0..2_000).find_map(|seed| caught(seed).map(|classes| (seed, classes)));
        let hits = rate.map(|n| (0..n).filter(|&seed| caught(seed).is_some()).count());
        match first {
            Some((seed, classes)) => println!(
                "{name:20} first failing seed {seed:4}  classes {classes:?}{}  (amnesia run --seed {seed} --store {name})",
                hits.map(|h| format!("  caught by {h}/{} seeds", rate.unwrap())).unwrap_or_default()
            ),
            None => println!("{name:20} not caught in seeds 0..2000"),
        }
    }
}
