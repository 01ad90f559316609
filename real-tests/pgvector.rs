//! The pgvector backend, on a real PostgreSQL 18 with pgvector 0.8 (a container of the
//! offline image, or a local process with `AMNESIA_REAL_PROVIDER=process`):
//!
//! 1. the reference pgvector store passes pinned seeds of the `replay` scenario, the
//!    plan's faults realised for real (proxy partitions, clogs and resets, server kill,
//!    crash recovery and pause);
//! 2. every pgvector variant of the catalogue fails within its stated number of seeds,
//!    with its class;
//! 3. the golden corpus: every historical memory recalled by its own text, and recall@k
//!    against an exact search, for the reference and each index variant.
//!
//! `cargo test --profile test-release --test pgvector -- --nocapture` prints the wall time
//! per seed and the recall@k figures BENCHMARKS.md quotes.

use amnesia::internal::check::ViolationClass;
use amnesia::internal::plan::{Plan, ScenarioConfig};
use amnesia::real::{golden_corpus, run_golden, run_real, GOLDEN_VERSION};
use amnesia::{Backend, Store};

mod common;
use common::{in_parallel, options};

/// Seeds whose mixes cover the faults the pgvector backend realises: clogs, resets and
/// clock skews (1), partitions, resets and server pauses (2), server kills with crash
/// recovery (7).
const PINNED_SEEDS: [u64; 3] = [1, 2, 7];

#[test]
fn the_reference_pgvector_store_passes_pinned_seeds() {
    let store = Store::named("pgvector-reference").unwrap();
    assert_eq!(store.backend(), Backend::Pgvector);
    let scenario = ScenarioConfig::replay();
    let options = options();
    let reports = in_parallel(&PINNED_SEEDS, |&seed| {
        let plan = Plan::generate(seed, &scenario);
        run_real(plan, &store, &options).expect("the real tier runs")
    });
    let mut failures = Vec::new();
    for report in &reports {
        let recalls = report
            .history
            .ops
            .iter()
            .filter(|op| matches!(op.kind, amnesia::history::OpKind::Recall { .. }))
            .count();
        println!(
            "seed {:3}: {:5.1} s wall, {} ops ({recalls} recalls), {} restarts, {}",
            report.plan.seed,
            report.wall_ms as f64 / 1_000.0,
            report.history.ops.len(),
            report.history.restarts.len(),
            if report.verdict.is_pass() {
                "pass"
            } else {
                "FAIL"
            }
        );
        assert!(recalls > 0, "the replay recalls every memory");
        if !report.verdict.is_pass() {
            failures.push(format!(
                "seed {}: {:?}",
                report.plan.seed,
                report.verdict.classes()
            ));
        }
    }
    let restarts: usize = reports.iter().map(|r| r.history.restarts.len()).sum();
    assert!(restarts > 0, "a pinned seed kills and recovers the server");
    assert!(failures.is_empty(), "the reference failed: {failures:#?}");
}

#[test]
fn the_reference_migration_survives_a_reset_midway() {
    let store = Store::named("migrate-to-pgvector").unwrap();
    assert_eq!(store.backend(), Backend::RedisThenPgvector);
    let options = options();
    let reports = in_parallel(&[1u64, 2], |&seed| {
        let plan = Plan::generate(seed, &ScenarioConfig::migrate());
        run_real(plan, &store, &options).expect("the real tier runs")
    });
    for report in &reports {
        let seed = report.plan.seed;
        let events = report.trace.events();
        let migration = events
            .iter()
            .find(|event| event.text.contains("deploy: migration by"))
            .map(|event| event.text.clone())
            .unwrap_or_default();
        println!(
            "migration seed {seed}: {:5.1} s wall, {migration}",
            report.wall_ms as f64 / 1_000.0
        );
        assert!(
            migration.contains("copied to pgvector"),
            "seed {seed}: {migration}"
        );
        let reset = events.iter().any(|e| e.text.contains("mid-migration"));
        assert!(reset, "seed {seed}: the job's connections were reset");
        let classes = report.verdict.classes();
        assert!(report.verdict.is_pass(), "seed {seed}: {classes:?}");
    }
}

/// Every pgvector variant and the seeds (from 1) within which it must be caught; the
/// class it is caught with is the one the library's store registry states.
const VARIANTS: [(&str, u64); 5] = [
    ("pgvector-ef-search-below-k", 2),
    ("pgvector-filter-after-topk", 2),
    ("pgvector-ivfflat-before-load", 2),
    ("pgvector-embedding-v2", 3),
    ("migrate-nontransactional", 2),
];

/// The one class the registry states for the pgvector variant `name`.
fn class_of(name: &str) -> ViolationClass {
    match amnesia::store::expected_classes(name) {
        Some(&[class]) => class,
        other => panic!("{name}: one expected class, not {other:?}"),
    }
}

#[test]
fn every_pgvector_variant_is_caught_with_its_class() {
    let options = options();
    let outcomes = in_parallel(&VARIANTS, |&(name, seeds_max)| {
        let class = class_of(name);
        let store = Store::named(name).unwrap();
        let scenario = match store.backend() {
            Backend::RedisThenPgvector => ScenarioConfig::migrate(),
            _ => ScenarioConfig::replay(),
        };
        for seed in 1..=seeds_max {
            let report = run_real(Plan::generate(seed, &scenario), &store, &options)
                .expect("the real tier runs");
            if !report.verdict.is_pass() {
                let classes = report.verdict.classes();
                return (name, class, Some((seed, classes)));
            }
        }
        (name, class, None)
    });
    let mut missed = Vec::new();
    for (name, class, caught) in outcomes {
        match caught {
            Some((seed, classes)) => {
                println!("{name}: caught at seed {seed} with {classes:?}");
                if !classes.contains(&class) {
                    missed.push(format!("{name}: {classes:?}, not {class:?}"));
                }
            }
            None => missed.push(format!("{name}: never caught")),
        }
    }
    assert!(missed.is_empty(), "{missed:#?}");
}

#[test]
fn the_golden_corpus_is_recalled_whole_by_the_reference_and_not_by_the_index_variants() {
    let corpus = golden_corpus(GOLDEN_VERSION);
    let committed: amnesia::real::GoldenCorpus =
        serde_json::from_str(include_str!("golden/memories-v1.json"))
            .expect("the committed corpus parses");
    assert_eq!(
        committed, corpus,
        "the committed corpus is the generator's version 1"
    );
    let provider = options().provider;
    let stores = [
        "pgvector-reference",
        "pgvector-ef-search-below-k",
        "pgvector-filter-after-topk",
        "pgvector-ivfflat-before-load",
    ];
    let reports = in_parallel(&stores, |name| {
        let store = Store::named(name).unwrap();
        run_golden(&store, &committed, 5, &provider).expect("the golden replay runs")
    });
    for (name, report) in stores.iter().zip(&reports) {
        println!(
            "{name}: {} memories, own text missed {}, recall@5 {:.3}",
            report.memories,
            report.own_text_missed.len(),
            report.recall_at_k
        );
        assert_eq!(
            report.errors, 0,
            "{name}: no recall fails on a quiet server"
        );
    }
    let reference = &reports[0];
    assert_eq!(reference.own_text_missed, Vec::<String>::new());
    assert!(
        reference.recall_at_k > 0.99,
        "reference recall@5 {}",
        reference.recall_at_k
    );
    for (name, report) in stores.iter().zip(&reports).skip(1) {
        assert!(
            report.recall_at_k < 0.5,
            "{name} recall@5 {}",
            report.recall_at_k
        );
    }
}
