//! The PostgreSQL differential harness: the same steps sent to two servers over
//! [`CONNECTIONS`] connections each, every step's outcome compared (see `outcome` for
//! when two agree, `session` for the rule that makes a lock wait visible).

pub mod cases;
pub mod generate;
pub mod outcome;
pub mod session;
pub mod target;
pub mod types;
pub mod wire;

use outcome::{Observed, Reply};
use session::{Session, Waits};
use std::sync::Arc;
use target::Target;
use types::Param;

/// Connections per target.
pub const CONNECTIONS: usize = 3;
/// Failures printed per case or sequence (each gets a tally of its own).
const FAILURES_SHOWN_MAX: usize = 5;

/// One statement on one connection (1-based).
#[derive(Clone, Debug)]
pub struct Step {
    pub conn: usize,
    pub sql: String,
    /// The extended protocol's parameters; `None`: the simple query protocol.
    pub params: Option<Vec<Param>>,
    /// The parameters' types are declared in Parse, as sqlx declares them (tokio-postgres
    /// declares none and lets the server infer them).
    pub declared: bool,
    /// What the first target must reply (a case's `-- expect`).
    pub expect: Option<String>,
    /// A case's `-- within X` or `-- at least X`: how the targets' numbers may differ.
    pub numbers: Option<Numbers>,
    /// A case's `-- refused`: PostgreSQL answers the statement and the second target, the
    /// model, refuses it as a feature it does not support (0A000), never answering it
    /// otherwise.
    pub refused: bool,
}

impl Step {
    pub fn simple(conn: usize, sql: impl Into<String>) -> Step {
        Step {
            conn,
            sql: sql.into(),
            declared: false,
            params: None,
            expect: None,
            numbers: None,
            refused: false,
        }
    }
}

/// How two replies' numbers may differ and the replies still agree.
#[derive(Clone, Copy, Debug)]
pub enum Numbers {
    /// `-- within X`: each pair of numbers is `X` apart at most (distances summed in
    /// `f32`, whose order pgvector's build picks).
    Within(f64),
    /// `-- at least X`: every number of both replies is `X` or more. For what PostgreSQL
    /// draws at random, such as the centers IVFFlat's k-means starts from (pgvector seeds
    /// them from the backend's own PRNG, so one build's recall is no fixed value): the
    /// targets agree on the bound, not on the draw.
    AtLeast(f64),
}

impl Numbers {
    fn close(self, x: f64, y: f64) -> bool {
        match self {
            Numbers::Within(tolerance) => (x - y).abs() <= tolerance,
            Numbers::AtLeast(bound) => x >= bound && y >= bound,
        }
    }
}

/// The figures of a run and what went wrong.
#[derive(Default)]
pub struct Tally {
    pub compared: usize,
    pub agreeing: usize,
    /// Steps declared `-- refused` and refused so.
    pub refused: usize,
    pub blocked: usize,
    /// Disagreements where the second target refused the step (0A000) undeclared: still
    /// failures, counted apart for the isolation specs' tally.
    pub refusing: usize,
    pub failures: Vec<String>,
}

/// The two targets' sessions, run step by step together.
pub struct Pair {
    a: Session,
    b: Session,
    names: [String; 2],
}

impl Pair {
    /// A fresh database on each target, [`CONNECTIONS`] connections to each.
    pub async fn open(a: &dyn Target, b: &dyn Target, waits: Waits) -> Result<Pair, String> {
        let (session_a, session_b) = tokio::join!(
            Session::open(a, CONNECTIONS, waits),
            Session::open(b, CONNECTIONS, waits)
        );
        Ok(Pair {
            a: session_a?,
            b: session_b?,
            names: [a.name(), b.name()],
        })
    }

    /// Step `index` on both targets at once.
    pub async fn run(&mut self, index: usize, step: &Step) {
        tokio::join!(self.a.run(index, step), self.b.run(index, step));
    }

    /// Step `index`'s observations on the two targets so far.
    #[allow(dead_code)] // the fuzzer's (real-tests/pgfuzz/differential.rs)
    pub fn observed(&self, index: usize) -> (Option<&Observed>, Option<&Observed>) {
        (self.a.observed(index), self.b.observed(index))
    }

    /// Close every connection and give both databases back to their targets.
    #[allow(dead_code)] // the fuzzer's (real-tests/pgfuzz/differential.rs)
    pub async fn discard(self, a: &dyn Target, b: &dyn Target) {
        let (endpoint_a, endpoint_b) = (self.a.endpoint.clone(), self.b.endpoint.clone());
        drop(self);
        tokio::join!(a.discard(&endpoint_a), b.discard(&endpoint_b));
    }

    /// The connections with a statement pending on either target.
    pub fn blocked(&self) -> Vec<bool> {
        let (a, b) = (self.a.blocked(), self.b.blocked());
        a.iter().zip(&b).map(|(a, b)| *a || *b).collect()
    }

    /// Let pending statements complete and compare every step into `tally`.
    pub async fn finish(self, label: &str, steps: &[Step], tally: &mut Tally) {
        let (a, b) = tokio::join!(self.a.finish(), self.b.finish());
        for (index, step) in steps.iter().enumerate() {
            let a = a.get(index).cloned().flatten().unwrap_or_else(missing);
            let b = b.get(index).cloned().flatten().unwrap_or_else(missing);
            compare(
                &self.names,
                &format!("{label} step {index}"),
                step,
                &a,
                &b,
                tally,
            );
        }
        let shown = tally.failures.len().min(FAILURES_SHOWN_MAX);
        let more = tally.failures.split_off(shown).len();
        if more > 0 {
            // After a first disagreement the states differ and most later steps do too.
            tally
                .failures
                .push(format!("{label}: {more} more failures not shown"));
        }
    }
}

fn missing() -> Observed {
    Observed {
        first: Reply::broken("no observation".into()),
        later: None,
    }
}

/// Whether the replies have the same columns, tag and shape, and each pair of cells is
/// two numbers close by `numbers` or, where not numbers, equal.
fn numbers_close(numbers: Option<Numbers>, a: &Observed, b: &Observed) -> bool {
    let Some(numbers) = numbers else {
        return false;
    };
    let close = |x: &Option<String>, y: &Option<String>| match (x, y) {
        (Some(x), Some(y)) => match (x.parse::<f64>(), y.parse::<f64>()) {
            (Ok(x), Ok(y)) => numbers.close(x, y),
            _ => x == y,
        },
        _ => x == y,
    };
    match (&a.first.outcome, &b.first.outcome, &a.later, &b.later) {
        (
            outcome::Outcome::Rows { columns, rows, tag },
            outcome::Outcome::Rows {
                columns: columns_b,
                rows: rows_b,
                tag: tag_b,
            },
            None,
            None,
        ) => {
            columns == columns_b
                && tag == tag_b
                && a.first.tx == b.first.tx
                && rows.len() == rows_b.len()
                && rows.iter().zip(rows_b).all(|(r, r_b)| {
                    r.len() == r_b.len() && r.iter().zip(r_b).all(|(x, y)| close(x, y))
                })
        }
        _ => false,
    }
}

fn compare(
    names: &[String; 2],
    at: &str,
    step: &Step,
    a: &Observed,
    b: &Observed,
    tally: &mut Tally,
) {
    tally.compared += 1;
    tally.blocked += usize::from(a.later.is_some());
    let conn = step.conn;
    if step.refused {
        return refused(
            names,
            &format!("{at}, conn {conn}: {}", step.sql),
            a,
            b,
            tally,
        );
    }
    // A bound holds for both replies even where they are equal.
    let agree = match step.numbers {
        Some(bound @ Numbers::AtLeast(_)) => numbers_close(Some(bound), a, b),
        numbers => a.agrees(b) || numbers_close(numbers, a, b),
    };
    if agree {
        tally.agreeing += 1;
    } else {
        let refuses = matches!(&b.first.outcome, outcome::Outcome::Error { sqlstate, .. } if sqlstate == "0A000");
        tally.refusing += usize::from(refuses);
        let [name_a, name_b] = names;
        tally.failures.push(format!(
            "{at}, conn {conn}: {}\n    {name_a}: {a}\n    {name_b}: {b}",
            step.sql
        ));
    }
    if let Some(expect) = &step.expect {
        if a.summary() != *expect {
            tally.failures.push(format!(
                "{at}, conn {conn}: {}\n    expected {expect}, {} replied {a}",
                step.sql, names[0]
            ));
        }
    }
}

/// A step declared refused: PostgreSQL answers it, the model refuses it (0A000).
fn refused(names: &[String; 2], at: &str, a: &Observed, b: &Observed, tally: &mut Tally) {
    let [name_a, name_b] = names;
    let b_refuses =
        matches!(&b.first.outcome, outcome::Outcome::Error { sqlstate, .. } if sqlstate == "0A000");
    let a_answers = !matches!(&a.first.outcome, outcome::Outcome::Error { .. });
    match (a_answers, b_refuses) {
        (true, true) => tally.refused += 1,
        (false, _) => tally.failures.push(format!(
            "{at}\n    declared refused, but {name_a} fails it too (compare it instead): {a}"
        )),
        (true, false) => tally.failures.push(format!(
            "{at}\n    declared refused, but {name_b} replied {b}"
        )),
    }
}

impl Tally {
    /// Add `other`'s figures and failures (after this one's).
    pub fn add(&mut self, other: Tally) {
        self.compared += other.compared;
        self.agreeing += other.agreeing;
        self.refused += other.refused;
        self.blocked += other.blocked;
        self.refusing += other.refusing;
        self.failures.extend(other.failures);
    }
}

/// A unit of work on fresh databases of both targets.
pub enum Job {
    /// A hand-written case: its name and steps.
    Case(cases::Case),
    /// A seeded random sequence: its seed and number of random steps.
    Sequence { seed: u64, body_steps: usize },
}

impl Job {
    /// `<file>: <case name>` or `seed <n>`, as failures name it.
    pub fn label(&self) -> String {
        match self {
            Job::Case(case) => case.name.clone(),
            Job::Sequence { seed, .. } => format!("seed {seed}"),
        }
    }
}

/// Run `jobs`, `parallel` at a time (each waits on real time far more than it computes),
/// and return their tallies in the order of `jobs`.
pub async fn run_jobs(
    a: Arc<dyn Target>,
    b: Arc<dyn Target>,
    jobs: Vec<Job>,
    parallel: usize,
) -> Vec<Tally> {
    let permits = Arc::new(tokio::sync::Semaphore::new(parallel));
    let mut running = tokio::task::JoinSet::new();
    for (order, job) in jobs.into_iter().enumerate() {
        let (a, b, permits) = (a.clone(), b.clone(), permits.clone());
        running.spawn(async move {
            let _permit = permits.acquire_owned().await.expect("never closed");
            let tally = match job {
                Job::Case(case) => run_steps(a.as_ref(), b.as_ref(), &case.name, &case.steps).await,
                Job::Sequence { seed, body_steps } => {
                    generate::run_sequence(a.as_ref(), b.as_ref(), seed, body_steps).await
                }
            };
            (order, tally)
        });
    }
    let mut tallies: Vec<(usize, Tally)> = running.join_all().await;
    tallies.sort_by_key(|(order, _)| *order);
    tallies.into_iter().map(|(_, tally)| tally).collect()
}

/// Run a fixed list of steps (a hand-written case) on fresh databases of both targets.
pub async fn run_steps(a: &dyn Target, b: &dyn Target, label: &str, steps: &[Step]) -> Tally {
    let mut tally = Tally::default();
    let mut pair = match Pair::open(a, b, session::WAITS).await {
        Ok(pair) => pair,
        Err(why) => {
            tally.failures.push(format!("{label}: cannot open: {why}"));
            return tally;
        }
    };
    for (index, step) in steps.iter().enumerate() {
        pair.run(index, step).await;
    }
    pair.finish(label, steps, &mut tally).await;
    tally
}
