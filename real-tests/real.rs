//! The real tier's three confirmations, against Redis in Docker (or a local process with
//! `AMNESIA_REAL_PROVIDER=process`):
//!
//! 1. the reference store passes pinned seeds on real Redis, their faults realised for
//!    real (proxy partitions, clogs and resets, container kill/start, `docker pause`);
//! 2. every catalogue variant's shrunk failing plan fails on real Redis with the class it
//!    shrank to, within a few attempts (timing-dependent ones need more than one);
//! 3. lockstep: the commands the model executed for pinned seeds, replayed in order on
//!    real Redis, get the same replies.
//!
//! `cargo test --profile test-release --test real -- --nocapture` prints the figures
//! (per-variant attempts, wall times, lockstep counts) that BENCHMARKS.md quotes.

#[path = "../sim-tests/catalogue.rs"]
mod catalogue;

use amnesia::internal::check::ViolationClass;
use amnesia::internal::plan::{Plan, ScenarioConfig};
use amnesia::real::{lockstep, run_real, RealOptions};
use amnesia::{Builder, Store};
use catalogue::catalogue;

mod common;
use common::{in_parallel, options};

/// Seeds whose mixes cover every fault the real tier realises: partitions, resets and
/// six restarts (7), client crashes, skews and pauses (25), restarts without
/// persistence (33), clogs and skews (1).
const PINNED_SEEDS: [u64; 4] = [1, 7, 25, 33];

#[test]
fn the_reference_store_passes_pinned_seeds_on_real_redis() {
    let store = Store::named("reference").unwrap();
    let scenario = ScenarioConfig::standard();
    let options = options();
    let reports = in_parallel(&PINNED_SEEDS, |&seed| {
        let plan = Plan::generate(seed, &scenario);
        let started = std::time::Instant::now();
        let simulated = Builder::new().store(store.clone()).run_plan(plan.clone());
        let sim_ms = started.elapsed().as_secs_f64() * 1_000.0;
        let report = run_real(plan, &store, &options).expect("the real tier runs");
        (seed, sim_ms, simulated.verdict.is_pass(), report)
    });
    let mut failures = Vec::new();
    for (seed, sim_ms, sim_pass, report) in &reports {
        let restarts = report.history.restarts.len();
        println!(
            "seed {seed:3}: real {:6.1} s wall vs sim {sim_ms:6.1} ms (ratio {:.0}), {} ops, \
             {restarts} restarts, {}",
            report.wall_ms as f64 / 1_000.0,
            report.wall_ms as f64 / sim_ms,
            report.history.ops.len(),
            if report.verdict.is_pass() {
                "pass"
            } else {
                "FAIL"
            }
        );
        assert!(sim_pass, "seed {seed} passes in the simulator");
        if !report.verdict.is_pass() {
            failures.push(format!(
                "seed {seed}: {}\nreproduce: amnesia real --seed {seed}",
                amnesia::internal::runner::text::verdict_text(&report.verdict)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Real runs a shrunk plan gets to show its class: a timing-dependent bug may need the
/// real scheduler's luck. `expire-separate` showed in 2 of 3 runs (BENCHMARKS.md): six
/// attempts leave a chance near (1/3)^6 ≈ 0.14 % that a gate run misses it.
const ATTEMPTS_MAX: usize = 6;

/// How a variant's shrunk plan fared on real Redis.
enum Confirmation {
    /// The real run showed the shrunk plan's class, on this attempt.
    Same(usize),
    /// The real run named the same broken promise (same session, messages and proving
    /// operations) by another class: with real time's microseconds, an append acked
    /// strictly before the next was invoked makes a missing first message `truncation`
    /// where the simulator's coinciding instants call it `lost`.
    SameFact(usize, ViolationClass),
    /// Failed in no real run.
    Not,
}

fn confirm(
    store: &Store,
    shrunk: &amnesia::internal::runner::Shrunk,
    options: &RealOptions,
) -> Confirmation {
    let simulated = Builder::new()
        .store(store.clone())
        .run_plan(shrunk.plan.clone());
    let facts: Vec<_> = simulated
        .verdict
        .violations
        .iter()
        .filter(|v| v.class == shrunk.class)
        .map(|v| {
            (
                v.subject.clone(),
                v.message_ids.clone(),
                v.op_indexes.clone(),
            )
        })
        .collect();
    for attempt in 1..=ATTEMPTS_MAX {
        let report = run_real(shrunk.plan.clone(), store, options).expect("the real tier runs");
        if report.verdict.classes().contains(&shrunk.class) {
            return Confirmation::Same(attempt);
        }
        let same_fact = report.verdict.violations.iter().find(|v| {
            facts.contains(&(
                v.subject.clone(),
                v.message_ids.clone(),
                v.op_indexes.clone(),
            ))
        });
        if let Some(violation) = same_fact {
            return Confirmation::SameFact(attempt, violation.class);
        }
    }
    Confirmation::Not
}

#[test]
fn every_variant_s_shrunk_plan_fails_on_real_redis_with_its_class() {
    let options = options();
    let outcomes = in_parallel(&catalogue(), |&(name, expected, budget)| {
        let store = Store::named(name).unwrap();
        let builder = Builder::new().store(store.clone());
        let seed = (0..budget)
            .find(|&seed| {
                let classes = builder.run(seed).verdict.classes();
                classes.iter().any(|class| expected.contains(class))
            })
            .unwrap_or_else(|| panic!("{name} fails in the simulator within {budget} seeds"));
        let shrunk = builder.shrink(seed).expect("a failing seed shrinks");
        let confirmation = confirm(&store, &shrunk, &options);
        (
            name,
            (seed, shrunk.class, shrunk.operations_after),
            confirmation,
        )
    });
    let (mut same, mut same_fact, mut failures) = (0, 0, Vec::new());
    for (name, shrunk, confirmation) in &outcomes {
        let (seed, class, ops) = shrunk;
        let plan = format!("seed {seed:4} shrunk to {ops:3} ops, {class:?}");
        let shown = match confirmation {
            Confirmation::Same(attempt) => {
                same += 1;
                format!("confirmed on attempt {attempt}")
            }
            Confirmation::SameFact(attempt, class) => {
                same_fact += 1;
                format!("confirmed on attempt {attempt} as {class:?} (same messages and ops)")
            }
            Confirmation::Not => {
                failures.push(format!(
                    "{name}: {plan}: not confirmed in {ATTEMPTS_MAX} real runs"
                ));
                "NOT confirmed".to_string()
            }
        };
        println!("{name:24} {plan:40} {shown}");
    }
    println!(
        "confirmed {} of {} variants on real Redis: {same} with the same class, {same_fact} as the same fact",
        same + same_fact,
        outcomes.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Stores whose commands differ: the reference, and variants that read `TIME`, `INFO`,
/// use `WATCH`, `RENAMENX` or `FLUSHDB`.
const LOCKSTEP_STORES: [&str; 5] = [
    "reference",
    "rmw-blob",
    "rebuild-nonatomic",
    "key-scheme-v2",
    "timestamp-id",
];

#[test]
fn the_model_s_replies_are_real_redis_s_replies_in_lockstep() {
    let provider = options().provider;
    let cases: Vec<(&str, u64)> = LOCKSTEP_STORES
        .iter()
        .flat_map(|&store| (0..4).map(move |seed| (store, seed)))
        .chain(PINNED_SEEDS.iter().map(|&seed| ("reference", seed)))
        .collect();
    let found = in_parallel(&cases, |&(name, seed)| {
        let plan = Plan::generate(seed, &ScenarioConfig::standard());
        let store = Store::named(name).unwrap();
        lockstep(plan, &store, &provider).expect("the lockstep replay runs")
    });
    let mut failures = Vec::new();
    let (mut commands, mut compared, mut as_sets) = (0, 0, 0);
    for ((name, seed), found) in cases.iter().zip(&found) {
        commands += found.commands;
        compared += found.compared;
        as_sets += found.compared_as_sets;
        assert!(
            found.compared > 100,
            "{name} seed {seed}: a replay compares replies"
        );
        if !found.agrees() {
            failures.push(format!(
                "{name} seed {seed}: {} of {} replies differ, first: {:?}",
                found.mismatched,
                found.compared,
                found.mismatches.first()
            ));
        }
    }
    println!(
        "lockstep: {} replays, {commands} commands, {compared} replies compared ({as_sets} as sets), {} differ",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
