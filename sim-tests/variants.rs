//! The bug catalogue is caught: every buggy variant of the reference store fails with (one
//! of) its expected violation classes within a stated seed budget of the standard scenario,
//! and its first failing seed, run again, gives the same classes.
//!
//! `cargo test --release --test variants -- --nocapture` prints, per variant, the first
//! failing seed, its classes and the command that replays it: the numbers of the README.

#[path = "catalogue.rs"]
mod catalogue;

use amnesia::internal::check::ViolationClass;
use amnesia::internal::plan::ScenarioConfig;
use amnesia::internal::runner::{run_seed, EngineKind};
use amnesia::Store;
use catalogue::catalogue;

fn classes(seed: u64, store: &str) -> Vec<ViolationClass> {
    let store = Store::named(store).expect("a known store");
    run_seed(seed, &ScenarioConfig::standard(), &store, EngineKind::Event)
        .verdict
        .classes()
}

#[test]
fn every_variant_is_caught_within_its_budget_and_replays() {
    let mut failures = Vec::new();
    for &(store, expected, budget) in &catalogue() {
        let first = (0..budget).find_map(|seed| {
            let found = classes(seed, store);
            found
                .iter()
                .any(|class| expected.contains(class))
                .then_some((seed, found))
        });
        let Some((seed, found)) = first else {
            failures.push(format!(
                "{store}: not caught as {expected:?} in seeds 0..{budget}"
            ));
            continue;
        };
        println!(
            "{store:20} first failing seed {seed:4} (budget {budget:3})  classes {found:?}  \
             replay: amnesia run --seed {seed} --store {store}"
        );
        let replayed = classes(seed, store);
        if replayed != found {
            failures.push(format!(
                "{store}: seed {seed} gave {found:?}, then {replayed:?} on replay"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_catalogue_names_every_variant() {
    let mut named: Vec<&str> = catalogue().iter().map(|(store, ..)| *store).collect();
    named.push("reference");
    let mut known = amnesia::internal::store::STORE_NAMES.to_vec();
    named.sort_unstable();
    known.sort_unstable();
    assert_eq!(named, known);
}
