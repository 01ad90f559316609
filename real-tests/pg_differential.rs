//! The PostgreSQL differential test: the same steps on a real PostgreSQL 18 (a local
//! process of the real tier's process provider, `AMNESIA_PG_BIN`) and on a second target
//! ([`second_target`]), each step's outcome compared: columns with their type OIDs, rows
//! (in order only under a top-level ORDER BY), command tag, SQLSTATE, transaction status,
//! and lock waits (Blocked, then the completion). Run are the hand-written cases of
//! `real-tests/pg-cases/*.sql` and [`SEQUENCES`] seeded random sequences of
//! [`SEQUENCE_STEPS`] steps. Without PostgreSQL installed the test fails, saying so.
//!
//! `cargo test --profile test-release --features real --test pg_differential -- --nocapture`
//! prints `pg differential: compared N steps, M agree` and the wall time.

mod pgdiff;

use pgdiff::cases::read_cases;
use pgdiff::generate::run_sequence;
use pgdiff::target::{RealTarget, Target};
use pgdiff::{run_steps, Tally};
use std::path::Path;

/// Seeded random sequences per run, and random steps in each (before the ends and dump).
const SEQUENCES: u64 = 30;
const SEQUENCE_STEPS: usize = 40;

/// The target compared with real PostgreSQL. Until the PostgreSQL model exists this is a
/// second real PostgreSQL (so the harness is proven on servers that agree); for the model:
///
/// ```ignore
/// Ok(Box::new(SpawnTarget::new("model", |listener| {
///     tokio::spawn(amnesia::internal::pg::serve_tcp(listener));
/// })))
/// ```
async fn second_target() -> Result<Box<dyn Target>, String> {
    Ok(Box::new(RealTarget::start("postgres-b").await?))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_postgresql_and_the_second_target_agree_step_by_step() {
    let started = tokio::time::Instant::now();
    let (reference, second) = tokio::join!(RealTarget::start("postgres"), second_target());
    let reference = reference.unwrap_or_else(|e| panic!("real PostgreSQL: {e}"));
    let second = second.unwrap_or_else(|e| panic!("the second target: {e}"));
    let ready_ms = started.elapsed().as_millis();
    let mut tally = Tally::default();
    let cases = read_cases(&Path::new(env!("CARGO_MANIFEST_DIR")).join("real-tests/pg-cases"));
    for case in &cases {
        run_steps(&reference, second.as_ref(), &case.name, &case.steps, &mut tally).await;
    }
    let case_steps = tally.compared;
    for seed in 0..SEQUENCES {
        run_sequence(&reference, second.as_ref(), seed, SEQUENCE_STEPS, &mut tally).await;
    }
    println!(
        "pg differential: compared {} steps, {} agree ({} cases: {case_steps} steps; {SEQUENCES} \
         sequences: {} steps; {} blocked) in {:.1} s ({ready_ms} ms to start the servers), {} vs {}",
        tally.compared,
        tally.agreeing,
        cases.len(),
        tally.compared - case_steps,
        tally.blocked,
        started.elapsed().as_secs_f64(),
        reference.name(),
        second.name()
    );
    for failure in &tally.failures {
        println!("{failure}");
    }
    assert!(tally.failures.is_empty(), "{} failures (printed above)", tally.failures.len());
}
