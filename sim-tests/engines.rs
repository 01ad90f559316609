//! The turmoil engine agrees with the event engine: on a sample of standard seeds the
//! reference store passes on both, every variant of the bug catalogue is caught on both
//! with one of its expected classes, and a turmoil seed is one execution (the same trace
//! in one process and in two).
//!
//! The full figures (every store, seeds 0..N, both engines, cost per seed) come from the
//! benchmark: `cargo bench --bench amnesia_bench -- engines N` (BENCHMARKS.md).

#[path = "catalogue.rs"]
mod catalogue;

use amnesia::internal::check::ViolationClass;
use amnesia::internal::plan::ScenarioConfig;
use amnesia::internal::runner::{run_seed, EngineKind};
use amnesia::Store;
use catalogue::catalogue;
use std::process::Command;

/// Reference seeds run on both engines (a turmoil seed costs ~50x an event seed).
const REFERENCE_SEEDS: u64 = 12;
/// Seeds from the event engine's first catch within which turmoil must catch a variant.
const TURMOIL_WINDOW: u64 = 4;

fn classes(seed: u64, store: &str, engine: EngineKind) -> Vec<ViolationClass> {
    let store = Store::named(store).expect("a known store");
    run_seed(seed, &ScenarioConfig::standard(), &store, engine)
        .verdict
        .classes()
}

fn shows(found: &[ViolationClass], expected: &[ViolationClass]) -> bool {
    found.iter().any(|class| expected.contains(class))
}

/// Work split over the machine's cores (turmoil seeds are slow; the catalogue is long).
fn in_parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = items.len().div_ceil(jobs).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&work).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("no panic"))
            .collect()
    })
}

#[test]
fn the_reference_store_passes_on_both_engines() {
    let seeds: Vec<u64> = (0..REFERENCE_SEEDS).collect();
    let failures = in_parallel(&seeds, |&seed| {
        [EngineKind::Event, EngineKind::Turmoil]
            .into_iter()
            .map(|engine| (engine, classes(seed, "reference", engine)))
            .filter(|(_, found)| !found.is_empty())
            .map(|(engine, found)| format!("seed {seed} on {}: {found:?}", engine.name()))
            .collect::<Vec<String>>()
    });
    let failures: Vec<String> = failures.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Memory pressure runs on turmoil's engine as on the event engine: under `noeviction` the
/// reference store passes, under `allkeys-lru` its only class is `evicted`, and some seed
/// shows it.
#[test]
fn memory_pressure_is_judged_alike_on_both_engines() {
    let reference = Store::named("reference").expect("a known store");
    let seeds: Vec<u64> = (0..20).collect();
    for policy in [
        amnesia::EvictionPolicy::Noeviction,
        amnesia::EvictionPolicy::AllkeysLru,
    ] {
        let scenario = ScenarioConfig {
            maxmemory_policy: Some(policy),
            ..ScenarioConfig::pressure()
        };
        for engine in [EngineKind::Event, EngineKind::Turmoil] {
            let found = in_parallel(&seeds, |&seed| {
                run_seed(seed, &scenario, &reference, engine)
                    .verdict
                    .classes()
            });
            let expected: &[ViolationClass] = match policy {
                amnesia::EvictionPolicy::Noeviction => &[],
                _ => &[ViolationClass::Evicted],
            };
            for (seed, classes) in found.iter().enumerate() {
                assert!(
                    classes.iter().all(|class| expected.contains(class)),
                    "{} seed {seed} on {}: {classes:?}",
                    policy.name(),
                    engine.name()
                );
            }
            let shown = found.iter().any(|classes| !classes.is_empty());
            assert_eq!(
                shown,
                !expected.is_empty(),
                "{} on {}",
                policy.name(),
                engine.name()
            );
        }
    }
}

/// Variants whose race only the plan's timing opens (no fault, no buggify point): the
/// engines time a seed differently (TCP segments, turmoil's tick), so the seeds that hit
/// the race differ and no window of seeds is common to both. The event engine's catch is
/// held by the `variants` test.
const TIMING_ONLY: &[&str] = &["memory-index-rmw-plain"];

#[test]
fn every_variant_is_caught_on_both_engines_with_an_expected_class() {
    let outcomes = in_parallel(&catalogue(), |&(store, expected, budget)| {
        let event =
            (0..budget).find(|&seed| shows(&classes(seed, store, EngineKind::Event), expected));
        let Some(first) = event else {
            return Err(format!("{store}: not caught on event in 0..{budget}"));
        };
        if TIMING_ONLY.contains(&store) {
            return Ok(format!(
                "{store:24} event first {first:4}, turmoil not asked (timing only)"
            ));
        }
        let window = first..first + TURMOIL_WINDOW;
        let turmoil = window
            .clone()
            .find(|&seed| shows(&classes(seed, store, EngineKind::Turmoil), expected));
        match turmoil {
            Some(seed) => Ok(format!(
                "{store:24} event first {first:4}, turmoil first {seed:4} (expected {expected:?})"
            )),
            None => Err(format!(
                "{store}: caught on event at seed {first}, not on turmoil in {window:?}"
            )),
        }
    });
    let mut failures = Vec::new();
    for outcome in outcomes {
        match outcome {
            Ok(line) => println!("{line}"),
            Err(failure) => failures.push(failure),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_turmoil_seed_is_one_execution_in_one_process_and_in_two() {
    let store = Store::named("reference").expect("built in");
    let hash = |seed| {
        run_seed(
            seed,
            &ScenarioConfig::standard(),
            &store,
            EngineKind::Turmoil,
        )
        .trace
        .hash()
    };
    for seed in [3, 11] {
        assert_eq!(
            hash(seed),
            hash(seed),
            "seed {seed} ran two ways in one process"
        );
    }
    let printed = || {
        let output = Command::new(env!("CARGO_BIN_EXE_amnesia"))
            .args(["replay", "--seed", "5", "--engine", "turmoil"])
            .output()
            .expect("the binary runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        stdout
            .lines()
            .find_map(|line| line.strip_prefix("trace hash: ").map(str::to_string))
            .expect("replay prints the trace hash")
    };
    let first = printed();
    assert_eq!(first, printed(), "two processes, two traces");
    assert_eq!(
        first,
        format!("{:016x}", hash(5)),
        "the process and the library agree"
    );
}

#[test]
fn the_turmoil_engine_is_named_in_every_seed_command() {
    assert_eq!(EngineKind::parse("turmoil"), Ok(EngineKind::Turmoil));
    assert_eq!(EngineKind::Turmoil.name(), "turmoil");
    let report = run_seed(
        0,
        &ScenarioConfig::standard(),
        &Store::named("reference").expect("built in"),
        EngineKind::Turmoil,
    );
    let replay = report
        .replay_command(&Store::named("reference").expect("built in"))
        .expect("a built-in store on a named scenario");
    assert!(replay.ends_with("--engine turmoil"), "{replay}");
}

#[test]
fn on_turmoil_the_bytes_cross_simulated_tcp_and_a_crashed_redis_answers_nothing() {
    use amnesia::history::Outcome;
    use amnesia::internal::plan::FaultKind;
    let store = Store::named("reference").expect("built in");
    let (report, fault) = (0..40)
        .find_map(|seed| {
            let report = run_seed(
                seed,
                &ScenarioConfig::standard(),
                &store,
                EngineKind::Turmoil,
            );
            let fault = report
                .plan
                .faults
                .iter()
                .find(|f| matches!(f.kind, FaultKind::RedisRestart) && f.duration_ms >= 100)
                .cloned()?;
            Some((report, fault))
        })
        .expect("a standard seed in 0..40 restarts Redis");
    let timeline = report.trace.timeline();
    assert!(
        timeline.contains("conn 0 →redis") && timeline.contains("conn 0 ←redis"),
        "the timeline shows the bytes each way"
    );
    assert!(timeline.contains("redis crashed ("), "the restart happened");
    // Nothing invoked while Redis is down succeeds before it is back (a reply already in
    // flight at the crash may still land: only requests after it count).
    let (down_us, up_us) = ((fault.at_ms + 1) * 1_000, fault.end_ms() * 1_000);
    let answered: Vec<usize> = report
        .history
        .ops
        .iter()
        .filter(|op| op.invoke_us > down_us && op.complete_us.is_some_and(|at| at < up_us))
        .filter(|op| matches!(op.outcome, Outcome::Ok(_)))
        .map(|op| op.index)
        .collect();
    assert!(
        answered.is_empty(),
        "answered while Redis was down: {answered:?}"
    );
}
