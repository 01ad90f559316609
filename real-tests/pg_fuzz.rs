//! The PostgreSQL model's differential fuzzer (issue 51): seeded sequences from
//! `real-tests/pgfuzz/`'s generator on a real PostgreSQL 18 (`AMNESIA_PG_BIN`) and on the
//! model, step by step through `real-tests/pgdiff/`'s harness. A statement the model
//! refuses (0A000) counts as refused; any other difference is a finding, minimised and
//! printed as a case for `real-tests/pg-cases/` with its seed.
//!
//! The short run (in `./scripts/test --all`):
//! `cargo test --profile test-release --features real --test pg_fuzz -- --nocapture`.
//!
//! The long run, its progress printed with the rate and each finding as it is found:
//!
//! ```text
//! AMNESIA_PG_BIN=/opt/amnesia-pg/pgserver/pginstall/bin \
//! AMNESIA_PG_FUZZ_SEEDS=1000..11000 AMNESIA_PG_FUZZ_STATEMENTS=200 AMNESIA_PG_FUZZ_PARALLEL=2 \
//! cargo test --profile test-release --features real --test pg_fuzz -- --ignored --nocapture
//! ```

#[allow(dead_code)]
mod pgdiff;
#[allow(dead_code)]
mod pgfuzz;

use pgdiff::target::{RealTarget, Target};
use pgfuzz::differential::{run_seed, ModelTarget, SeedReport};
use std::sync::Arc;

/// The short run: seeds and statements per seed.
const SHORT_SEEDS: std::ops::Range<u64> = 0..24;
const SHORT_STATEMENTS: usize = 150;
/// Progress lines of the long run, every this many seeds.
const PROGRESS_EVERY_SEEDS: u64 = 20;

/// The figures of a run.
#[derive(Default)]
struct Figures {
    seeds: u64,
    compared: usize,
    agreed: usize,
    refused: usize,
    skipped: usize,
    findings: Vec<String>,
}

impl Figures {
    fn add(&mut self, report: SeedReport) {
        self.seeds += 1;
        self.compared += report.compared;
        self.agreed += report.agreed;
        self.refused += report.refused;
        self.skipped += report.skipped;
        if let Some(finding) = report.finding {
            println!("FINDING\n{finding}");
            self.findings.push(finding);
        }
    }

    fn line(&self, started: tokio::time::Instant) -> String {
        let seconds = started.elapsed().as_secs_f64();
        format!(
            "pg fuzz: {} seeds, {} statements compared ({:.0}/s over {seconds:.0} s), {} agree, \
             {} refused, {} not compared after a refusal, {} findings",
            self.seeds,
            self.compared,
            self.compared as f64 / seconds.max(0.001),
            self.agreed,
            self.refused,
            self.skipped,
            self.findings.len()
        )
    }
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v} does not parse"))
        })
        .unwrap_or(default)
}

/// Run `seeds`, `parallel` at a time, printing progress.
async fn run(seeds: std::ops::Range<u64>, statements: usize, parallel: usize) -> Figures {
    assert!(
        (1..=8).contains(&parallel),
        "AMNESIA_PG_FUZZ_PARALLEL 1..=8"
    );
    let started = tokio::time::Instant::now();
    let reference: Arc<dyn Target> = Arc::new(
        RealTarget::start("postgres")
            .await
            .unwrap_or_else(|e| panic!("real PostgreSQL: {e}")),
    );
    let model: Arc<dyn Target> = Arc::new(ModelTarget::default());
    let mut figures = Figures::default();
    let mut running = tokio::task::JoinSet::new();
    let mut next = seeds.start;
    loop {
        while running.len() < parallel && next < seeds.end {
            let (a, b, seed) = (reference.clone(), model.clone(), next);
            running.spawn(async move { run_seed(a.as_ref(), b.as_ref(), seed, statements).await });
            next += 1;
        }
        let Some(done) = running.join_next().await else {
            break;
        };
        figures.add(done.expect("a seed's task never panics"));
        if figures.seeds % PROGRESS_EVERY_SEEDS == 0 {
            println!("{} (next seed {next})", figures.line(started));
        }
    }
    println!(
        "{} seeds {seeds:?}, {statements} statements each",
        figures.line(started)
    );
    figures
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_agrees_with_postgresql_on_generated_sequences() {
    let figures = run(SHORT_SEEDS, SHORT_STATEMENTS, 2).await;
    assert!(
        figures.findings.is_empty(),
        "{} findings (printed above)",
        figures.findings.len()
    );
    assert!(
        figures.agreed * 2 > figures.compared,
        "most statements must be compared"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the long run: a documented command (see the module's documentation)"]
async fn long_run() {
    let range: String = env_or("AMNESIA_PG_FUZZ_SEEDS", "1000..2000".to_string());
    let (from, to) = range
        .split_once("..")
        .expect("AMNESIA_PG_FUZZ_SEEDS=from..to");
    let seeds = from.parse().expect("a seed")..to.parse().expect("a seed");
    let statements = env_or("AMNESIA_PG_FUZZ_STATEMENTS", 200);
    let parallel = env_or("AMNESIA_PG_FUZZ_PARALLEL", 2);
    let figures = run(seeds, statements, parallel).await;
    assert!(
        figures.findings.is_empty(),
        "{} findings (printed above)",
        figures.findings.len()
    );
}
