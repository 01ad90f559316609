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
use target::Target;
use types::Param;

/// Connections per target.
pub const CONNECTIONS: usize = 3;

/// One statement on one connection (1-based).
#[derive(Clone, Debug)]
pub struct Step {
    pub conn: usize,
    pub sql: String,
    /// The extended protocol's parameters; `None`: the simple query protocol.
    pub params: Option<Vec<Param>>,
    /// What the first target must reply (a case's `-- expect`).
    pub expect: Option<String>,
}

impl Step {
    pub fn simple(conn: usize, sql: impl Into<String>) -> Step {
        Step {
            conn,
            sql: sql.into(),
            params: None,
            expect: None,
        }
    }
}

/// The figures of a run and what went wrong.
#[derive(Default)]
pub struct Tally {
    pub compared: usize,
    pub agreeing: usize,
    pub blocked: usize,
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
            compare(&self.names, &format!("{label} step {index}"), step, &a, &b, tally);
        }
    }
}

fn missing() -> Observed {
    Observed {
        first: Reply::broken("no observation".into()),
        later: None,
    }
}

fn compare(names: &[String; 2], at: &str, step: &Step, a: &Observed, b: &Observed, tally: &mut Tally) {
    tally.compared += 1;
    tally.blocked += usize::from(a.later.is_some());
    let conn = step.conn;
    if a.agrees(b) {
        tally.agreeing += 1;
    } else {
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

/// Run a fixed list of steps (a hand-written case) on fresh databases of both targets.
pub async fn run_steps(a: &dyn Target, b: &dyn Target, label: &str, steps: &[Step], tally: &mut Tally) {
    let mut pair = match Pair::open(a, b, session::WAITS).await {
        Ok(pair) => pair,
        Err(why) => return tally.failures.push(format!("{label}: cannot open: {why}")),
    };
    for (index, step) in steps.iter().enumerate() {
        pair.run(index, step).await;
    }
    pair.finish(label, steps, tally).await;
}
