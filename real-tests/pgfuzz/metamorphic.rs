//! Checks that need no reference server (SQLancer's): they hold on any correct SQL
//! engine, so the model is held to them where PostgreSQL is absent.
//!
//! - **TLP** (ternary logic partitioning): for a predicate `p`, the rows of
//!   `SELECT … WHERE p`, `… WHERE NOT p` and `… WHERE p IS NULL` together are, as a
//!   multiset, the rows of `SELECT …` with no WHERE: every row makes `p` true, false or
//!   NULL, and exactly one.
//! - **NoREC** (non-optimising reference engine construction): `SELECT count(*) … WHERE p`
//!   counts what `SELECT sum(CASE WHEN p THEN 1 ELSE 0 END) …` counts by evaluating `p`
//!   on every row instead of filtering by it.
//!
//! A check whose queries the engine refuses (0A000) is skipped; one that fails on one
//! query must fail alike on its partners (`p` is evaluated on the same rows in the same
//! order), else it is broken.

use super::super::pgdiff::outcome::{Outcome, Reply};
use super::ast::{Expr, Select};

/// The queries of one TLP check and one NoREC check, built from a query and a predicate.
pub struct Probe {
    /// The query without WHERE.
    pub all: String,
    /// `WHERE p`, `WHERE NOT p`, `WHERE p IS NULL`.
    pub parts: [String; 3],
    /// `count(*) … WHERE p` and `sum(CASE WHEN p …)`.
    pub count: String,
    pub sum: String,
}

/// The outcome of one check.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    Holds,
    /// Not judged (a refusal, or every query failed alike).
    Skipped,
    /// The engine broke the law: what it answered.
    Broken(String),
}

impl Probe {
    /// `select` must have no WHERE, GROUP BY, ORDER BY or LIMIT (the generator's probe).
    pub fn new(select: &Select, p: &Expr) -> Probe {
        assert!(
            select.filter.is_none() && select.group_by.is_empty() && select.limit.is_none(),
            "a probe partitions a plain query"
        );
        let with_filter = |filter: Expr| {
            let mut s = select.clone();
            s.filter = Some(filter);
            s.render()
        };
        let parts = [
            with_filter(p.clone()),
            with_filter(Expr::Pre("NOT", Box::new(p.clone()))),
            with_filter(Expr::Post(Box::new(p.clone()), "IS NULL")),
        ];
        let mut count = select.clone();
        count.distinct = false;
        count.items = vec![(Expr::Lit("count(*)".into()), Some("n".into()))];
        let mut sum = count.clone();
        count.filter = Some(p.clone());
        let case = Expr::Case(
            Box::new(p.clone()),
            Box::new(Expr::Lit("1".into())),
            Box::new(Expr::Lit("0".into())),
        );
        sum.items = vec![(Expr::Call("sum", vec![case]), Some("n".into()))];
        Probe {
            all: select.render(),
            parts,
            count: count.render(),
            sum: sum.render(),
        }
    }
}

fn refused(reply: &Reply) -> bool {
    matches!(&reply.outcome, Outcome::Error { sqlstate, .. } if sqlstate == "0A000")
}

fn sqlstate(reply: &Reply) -> Option<&str> {
    match &reply.outcome {
        Outcome::Error { sqlstate, .. } => Some(sqlstate),
        _ => None,
    }
}

fn rows(reply: &Reply) -> Option<&Vec<Vec<Option<String>>>> {
    match &reply.outcome {
        Outcome::Rows { rows, .. } => Some(rows),
        _ => None,
    }
}

/// TLP: the three partitions' rows against the whole's. With DISTINCT the union of the
/// partitions may hold a row twice (in two partitions): compared as sets then.
pub fn judge_tlp(distinct: bool, all: &Reply, parts: &[Reply; 3]) -> Verdict {
    if refused(all) || parts.iter().any(refused) {
        return Verdict::Skipped;
    }
    let states: Vec<Option<&str>> = parts.iter().map(sqlstate).collect();
    if states.iter().any(Option::is_some) {
        return match states.iter().all(|s| *s == states[0]) {
            true => Verdict::Skipped,
            false => Verdict::Broken(format!(
                "the partitions fail differently: {} / {} / {}",
                parts[0], parts[1], parts[2]
            )),
        };
    }
    let Some(whole) = rows(all) else {
        // The whole fails where every partition answers: the predicate cannot make it.
        return Verdict::Broken(format!("the query fails but its partitions answer: {all}"));
    };
    let mut union: Vec<Vec<Option<String>>> = parts
        .iter()
        .flat_map(|r| rows(r).unwrap().clone())
        .collect();
    let mut whole = whole.clone();
    union.sort();
    whole.sort();
    if distinct {
        union.dedup();
        whole.dedup();
    }
    match union == whole {
        true => Verdict::Holds,
        false => Verdict::Broken(format!(
            "the partitions hold {} rows {union:?}, the query {} rows {whole:?}",
            union.len(),
            whole.len()
        )),
    }
}

/// NoREC: the count filtered against the count evaluated (a sum over no rows is NULL).
pub fn judge_norec(count: &Reply, sum: &Reply) -> Verdict {
    if refused(count) || refused(sum) {
        return Verdict::Skipped;
    }
    match (rows(count), rows(sum)) {
        (None, None) => Verdict::Skipped,
        (Some(c), Some(s)) => {
            let c = c.first().and_then(|r| r.first().cloned().flatten());
            let s = s.first().and_then(|r| r.first().cloned().flatten());
            match c == s.clone().or(Some("0".into())) {
                true => Verdict::Holds,
                false => Verdict::Broken(format!("count(*) says {c:?}, the sum {s:?}")),
            }
        }
        _ => Verdict::Broken(format!("one fails, the other answers: {count} / {sum}")),
    }
}

/// Whether a reply is the engine breaking down: a panic's XX000, a broken connection.
pub fn crashed(reply: &Reply) -> bool {
    matches!(&reply.outcome, Outcome::Broken(_))
        || matches!(&reply.outcome, Outcome::Error { sqlstate, .. } if sqlstate == "XX000")
}

/// A seed's figures on one engine.
#[derive(Default, Debug)]
pub struct CheckReport {
    pub statements: usize,
    pub checks: usize,
    pub held: usize,
    pub skipped: usize,
    /// What broke, with the seed and the SQL.
    pub broken: Vec<String>,
}

/// Probe every this many statements of the sequence.
const PROBE_EVERY: usize = 3;

/// Run seed `seed`'s sequence of `count` statements on a fresh database of `target`
/// (connections 1 and 2 as the sequence says), every statement checked for a crash, and
/// every [`PROBE_EVERY`]th followed by a TLP and a NoREC check on a third connection
/// (outside any transaction: a failing check leaves the sequence's own alone).
pub async fn check_seed(
    target: &dyn super::super::pgdiff::target::Target,
    seed: u64,
    count: usize,
) -> CheckReport {
    use super::super::pgdiff::wire::Wire;
    use super::generate::Generator;
    assert!(count <= super::generate::STATEMENTS_MAX);
    let mut report = CheckReport::default();
    let endpoint = match target.fresh().await {
        Ok(endpoint) => endpoint,
        Err(why) => {
            report.broken.push(format!("seed {seed}: {why}"));
            return report;
        }
    };
    let user = amnesia::internal::postgres::PG_USER;
    let mut wires = Vec::new();
    for _ in 0..3 {
        match Wire::connect(endpoint.address, user, &endpoint.database).await {
            Ok(wire) => wires.push(wire),
            Err(why) => {
                report.broken.push(format!("seed {seed}: connect: {why}"));
                return report;
            }
        }
    }
    let mut g = Generator::new(seed);
    'run: for index in 0..count {
        let item = g.next_item();
        let sql = item.stmt.render();
        let reply = match wires[item.conn - 1].simple(&sql).await {
            Ok(reply) => reply,
            Err(why) => super::super::pgdiff::outcome::Reply::broken(why),
        };
        report.statements += 1;
        if crashed(&reply) {
            report
                .broken
                .push(format!("seed {seed} step {index}: {sql}\n    {reply}"));
            break;
        }
        if index % PROBE_EVERY != 0 {
            continue;
        }
        let (select, p) = g.probe();
        let probe = Probe::new(&select, &p);
        let mut replies = Vec::new();
        for sql in [
            &probe.all,
            &probe.parts[0],
            &probe.parts[1],
            &probe.parts[2],
            &probe.count,
            &probe.sum,
        ] {
            let reply = match wires[2].simple(sql).await {
                Ok(reply) => reply,
                Err(why) => super::super::pgdiff::outcome::Reply::broken(why),
            };
            report.statements += 1;
            if crashed(&reply) {
                report
                    .broken
                    .push(format!("seed {seed} step {index}: {sql}\n    {reply}"));
                break 'run;
            }
            replies.push(reply);
        }
        let parts = [replies[1].clone(), replies[2].clone(), replies[3].clone()];
        let verdicts = [
            (
                "TLP",
                judge_tlp(select.distinct, &replies[0], &parts),
                &probe.parts[0],
            ),
            ("NoREC", judge_norec(&replies[4], &replies[5]), &probe.count),
        ];
        for (law, verdict, sql) in verdicts {
            report.checks += 1;
            match verdict {
                Verdict::Holds => report.held += 1,
                Verdict::Skipped => report.skipped += 1,
                Verdict::Broken(why) => report.broken.push(format!(
                    "seed {seed} step {index}: {law} broken: {sql}\n    {why}"
                )),
            }
        }
    }
    drop(wires);
    target.discard(&endpoint).await;
    report
}
