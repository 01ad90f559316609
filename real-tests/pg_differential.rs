//! The PostgreSQL differential test: the same steps on a real PostgreSQL 18 (a local
//! process of the real tier's process provider, `AMNESIA_PG_BIN`) and on a second target
//! ([`second_target`]), each step's outcome compared: columns with their type OIDs, rows
//! (in order only under a top-level ORDER BY), command tag, SQLSTATE, transaction status,
//! and lock waits (Blocked, then the completion). It runs the hand-written cases of
//! `real-tests/pg-cases/*.sql` and [`SEQUENCES`] seeded random sequences of
//! [`SEQUENCE_STEPS`] steps, each on fresh databases, [`PARALLEL`] at a time. Without
//! PostgreSQL installed the test fails, saying so.
//!
//! `cargo test --profile test-release --features real --test pg_differential -- --nocapture`
//! prints `pg differential: compared N steps, M agree` and the wall time, and each
//! disagreement (step, SQL, both outcomes; at most 5 per case or sequence);
//! `AMNESIA_PG_DIFF_ONLY=<text>` runs only the cases and seeds whose label holds the text.

mod pgdiff;

use pgdiff::cases::read_cases;
use pgdiff::target::{RealTarget, Target};
use pgdiff::{run_jobs, Job, Tally};
use std::path::Path;
use std::sync::Arc;

/// Seeded random sequences per run, and random steps in each (before the ends and dump).
const SEQUENCES: u64 = 30;
const SEQUENCE_STEPS: usize = 40;
/// Cases and sequences run at once: each mostly waits (300 ms per lock wait).
const PARALLEL: usize = 6;

/// The target compared with real PostgreSQL. Until the PostgreSQL model exists this is a
/// second real PostgreSQL (so the harness is proven on servers that agree); for the model
/// (a fresh, empty model per case or sequence):
///
/// ```ignore
/// Ok(Arc::new(pgdiff::target::SpawnTarget::new("model", |listener| {
///     tokio::spawn(amnesia::internal::pg::serve_tcp(listener));
/// })))
/// ```
async fn second_target() -> Result<Arc<dyn Target>, String> {
    Ok(Arc::new(pgdiff::target::SpawnTarget::new(
        "model",
        |listener| {
            tokio::spawn(amnesia::internal::pg::serve_tcp(listener, 0));
        },
    )))
}

/// The cases, then the sequences; with `AMNESIA_PG_DIFF_ONLY=<text>` only those whose
/// label holds the text (`03-select`, `seed 17`), to study one disagreement. Also returns
/// how many are cases.
fn jobs() -> (Vec<Job>, usize) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("real-tests/pg-cases");
    let mut jobs: Vec<Job> = read_cases(&folder).into_iter().map(Job::Case).collect();
    jobs.extend((0..SEQUENCES).map(|seed| Job::Sequence {
        seed,
        body_steps: SEQUENCE_STEPS,
    }));
    if let Ok(only) = std::env::var("AMNESIA_PG_DIFF_ONLY") {
        jobs.retain(|job| job.label().contains(&only));
    }
    let case_count = jobs
        .iter()
        .filter(|job| matches!(job, Job::Case(_)))
        .count();
    (jobs, case_count)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_postgresql_and_the_second_target_agree_step_by_step() {
    let started = tokio::time::Instant::now();
    let (reference, second) = tokio::join!(RealTarget::start("postgres"), second_target());
    let reference: Arc<dyn Target> =
        Arc::new(reference.unwrap_or_else(|e| panic!("real PostgreSQL: {e}")));
    let second = second.unwrap_or_else(|e| panic!("the second target: {e}"));
    let names = format!("{} vs {}", reference.name(), second.name());
    let ready_ms = started.elapsed().as_millis();
    let (jobs, case_count) = jobs();
    let sequences = jobs.len() - case_count;
    let tallies = run_jobs(reference, second, jobs, PARALLEL).await;
    let (mut tally, mut case_steps) = (Tally::default(), 0);
    for (index, job_tally) in tallies.into_iter().enumerate() {
        case_steps += if index < case_count {
            job_tally.compared
        } else {
            0
        };
        tally.add(job_tally);
    }
    println!(
        "pg differential: compared {} steps, {} agree, {} refused as declared ({case_count} \
         cases: {case_steps} steps; {sequences} sequences: {} steps; {} lock waits) in {:.1} s \
         ({ready_ms} ms to start the servers), {names}",
        tally.compared,
        tally.agreeing,
        tally.refused,
        tally.compared - case_steps,
        tally.blocked,
        started.elapsed().as_secs_f64(),
    );
    for failure in &tally.failures {
        println!("{failure}");
    }
    assert!(
        tally.failures.is_empty(),
        "{} failures (printed above)",
        tally.failures.len()
    );
}

/// The comparison itself, without a server: what agrees and what does not.
mod comparison {
    use super::pgdiff::outcome::{orders_at_top_level, Observed, Outcome, Reply};

    fn rows(rows: &[&str], sql: &str) -> Reply {
        let rows = rows.iter().map(|v| vec![Some(v.to_string())]).collect();
        let columns = vec![("k".to_string(), 25)];
        let tag = "SELECT".to_string();
        let (outcome, tx) = (Outcome::Rows { columns, rows, tag }, Some('I'));
        Reply { outcome, tx }.normalised(sql)
    }

    fn error(sqlstate: &str, message: &str) -> Reply {
        let (sqlstate, message) = (sqlstate.to_string(), message.to_string());
        let (outcome, tx) = (Outcome::Error { sqlstate, message }, Some('E'));
        Reply { outcome, tx }
    }

    #[test]
    fn only_a_top_level_order_by_orders() {
        assert!(orders_at_top_level("SELECT k FROM kv ORDER BY k DESC"));
        assert!(orders_at_top_level(
            "select k from (select k from kv) s order\n by k"
        ));
        assert!(!orders_at_top_level(
            "SELECT ARRAY(SELECT k FROM kv ORDER BY k)"
        ));
        assert!(!orders_at_top_level("SELECT 'order by' FROM kv"));
    }

    #[test]
    fn rows_compare_as_multisets_unless_ordered() {
        let unordered = "SELECT k FROM kv";
        assert_eq!(rows(&["a", "b"], unordered), rows(&["b", "a"], unordered));
        assert_ne!(
            rows(&["a", "b"], unordered),
            rows(&["a", "b", "b"], unordered)
        );
        let ordered = "SELECT k FROM kv ORDER BY k";
        assert_ne!(rows(&["a", "b"], ordered), rows(&["b", "a"], ordered));
    }

    #[test]
    fn errors_compare_by_sqlstate_and_waits_by_their_completion() {
        assert_eq!(error("23505", "one message"), error("23505", "another"));
        assert_ne!(error("23505", "same"), error("23502", "same"));
        let waited = |later| Observed {
            first: Reply::blocked(),
            later,
        };
        let done = Some(rows(&["a"], "SELECT k FROM kv"));
        assert!(waited(done.clone()).agrees(&waited(done.clone())));
        assert!(!waited(done.clone()).agrees(&waited(None)));
        let at_once = Observed {
            first: done.clone().unwrap(),
            later: None,
        };
        assert!(!waited(done).agrees(&at_once));
    }
}
