//! The PostgreSQL model's fuzzer without a reference (issue 51): seeded sequences from
//! `real-tests/pgfuzz/`'s generator run on the model, every statement checked for a crash
//! (XX000, a broken connection) and probes checked against TLP and NoREC
//! (`pgfuzz::metamorphic`), a short bounded batch. The differential mode against real
//! PostgreSQL is `real-tests/pg_fuzz.rs`.
//!
//! `cargo test --profile test-release --test pg_fuzz_model -- --nocapture` prints the
//! figures; `AMNESIA_PG_FUZZ_SEEDS=0..500` runs another range.

#[allow(dead_code)]
#[path = "../real-tests/pgdiff/mod.rs"]
mod pgdiff;
#[allow(dead_code)]
#[path = "../real-tests/pgfuzz/mod.rs"]
mod pgfuzz;

use pgdiff::outcome::{Outcome, Reply};
use pgfuzz::differential::ModelTarget;
use pgfuzz::generate::{sequence, Generator};
use pgfuzz::metamorphic::{check_seed, judge_norec, judge_tlp, Probe, Verdict};

/// The batch: seeds and statements per seed (each probe adds six queries).
const SEEDS: std::ops::Range<u64> = 0..300;
const STATEMENTS: usize = 120;

fn seeds() -> std::ops::Range<u64> {
    let Ok(range) = std::env::var("AMNESIA_PG_FUZZ_SEEDS") else {
        return SEEDS;
    };
    let (from, to) = range
        .split_once("..")
        .expect("AMNESIA_PG_FUZZ_SEEDS=from..to");
    from.parse().expect("a seed")..to.parse().expect("a seed")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_keeps_the_metamorphic_laws() {
    let target = ModelTarget::default();
    let (mut statements, mut checks, mut held, mut broken) = (0, 0, 0, Vec::new());
    let range = seeds();
    for seed in range.clone() {
        let report = check_seed(&target, seed, STATEMENTS).await;
        statements += report.statements;
        checks += report.checks;
        held += report.held;
        broken.extend(report.broken);
    }
    println!(
        "pg fuzz (model alone): seeds {range:?}, {statements} statements, {checks} checks, \
         {held} hold, {} skipped (refused or failing alike), {} broken",
        checks - held - broken.len(),
        broken.len()
    );
    for why in &broken {
        println!("{why}");
    }
    assert!(broken.is_empty(), "{} broken (printed above)", broken.len());
    // The probes must judge something: a generator that produced only refusals would pass.
    assert!(held * 2 > checks, "only {held} of {checks} checks judged");
}

#[test]
fn a_seed_is_its_sequence() {
    let render = |seed| -> Vec<String> {
        sequence(seed, 200)
            .iter()
            .map(|item| format!("{} {}", item.conn, item.stmt.render()))
            .collect()
    };
    assert_eq!(render(7), render(7));
    assert_ne!(render(7), render(8));
    let mut g = Generator::new(3);
    let (select, p) = g.probe();
    assert!(Probe::new(&select, &p).parts[1].contains("WHERE (NOT "));
}

fn rows(values: &[&str]) -> Reply {
    Reply {
        outcome: Outcome::Rows {
            columns: vec![("c0".into(), 23)],
            rows: values.iter().map(|v| vec![Some(v.to_string())]).collect(),
            tag: "SELECT".into(),
        },
        tx: Some('I'),
    }
}

fn error(sqlstate: &str) -> Reply {
    Reply {
        outcome: Outcome::Error {
            sqlstate: sqlstate.into(),
            message: String::new(),
        },
        tx: Some('I'),
    }
}

#[test]
fn the_laws_catch_a_wrong_answer() {
    let all = rows(&["1", "2", "3"]);
    let parts = |a: &[&str], b: &[&str], c: &[&str]| [rows(a), rows(b), rows(c)];
    assert_eq!(
        judge_tlp(false, &all, &parts(&["2"], &["1", "3"], &[])),
        Verdict::Holds
    );
    // A row lost (NULL taken for false, say) or counted twice breaks TLP.
    assert!(matches!(
        judge_tlp(false, &all, &parts(&["2"], &["1"], &[])),
        Verdict::Broken(_)
    ));
    assert!(matches!(
        judge_tlp(false, &all, &parts(&["2"], &["1", "3"], &["3"])),
        Verdict::Broken(_)
    ));
    assert_eq!(
        judge_tlp(false, &all, &[error("0A000"), rows(&[]), rows(&[])]),
        Verdict::Skipped
    );
    assert!(matches!(
        judge_tlp(false, &all, &[error("22012"), rows(&[]), rows(&[])]),
        Verdict::Broken(_)
    ));
    assert_eq!(judge_norec(&rows(&["2"]), &rows(&["2"])), Verdict::Holds);
    assert!(matches!(
        judge_norec(&rows(&["2"]), &rows(&["1"])),
        Verdict::Broken(_)
    ));
    let empty = Reply {
        outcome: Outcome::Rows {
            columns: vec![("n".into(), 20)],
            rows: vec![vec![None]],
            tag: "SELECT 1".into(),
        },
        tx: Some('I'),
    };
    assert_eq!(judge_norec(&rows(&["0"]), &empty), Verdict::Holds);
}
