//! Regression suites nobody here wrote, run statement by statement on real PostgreSQL 18.3
//! (+ pgvector 0.8.2, `AMNESIA_PG_BIN`) and on the model side by side: pgvector's own
//! `test/sql/*.sql` and a chosen subset of PostgreSQL's `src/test/regress/sql/*.sql` for
//! the features the model claims. The suites are not ours and never committed: each is
//! read from the folder an environment variable names (its `sql` folder), and without it
//! the test says so in one line and runs nothing of that suite.
//!
//! Each file runs as `pg_regress` runs it, one session from top to bottom on a fresh
//! database (pgvector's after `CREATE EXTENSION vector`, PostgreSQL's after its
//! `test_setup.sql`, uncounted), psql's meta-commands followed or skipped as
//! `pgregress::script` says. Every statement is compared as the differential test
//! compares (columns with type OIDs, rows, tag or SQLSTATE, transaction status; rows in
//! order under a top-level ORDER BY) against live PostgreSQL rather than the suites'
//! `expected/*.out`: the same answers, without re-creating psql's table printing. Each
//! statement is counted agree, refused (0A000), following (a disagreement on what an
//! earlier refusal left different: `pgregress::judge`), or wrong; any wrong fails.
//!
//! ```text
//! AMNESIA_PGVECTOR_REGRESS=<pgvector>/test/sql AMNESIA_PG_REGRESS=<postgres>/src/test/regress/sql \
//! AMNESIA_PG_BIN=… cargo test --profile test-release --features real --test pg_regress -- --nocapture
//! ```
//!
//! prints one line per file and each suite's totals; `AMNESIA_PG_REGRESS_ONLY=<text>` runs
//! only the files whose name holds the text, and `AMNESIA_PG_REGRESS_SHOW=<n>` prints up
//! to n disagreements per file of every kind (wrong ones are always printed);
//! `AMNESIA_PG_REGRESS_TRACE=1` prints each statement's verdict as it comes.

// The differential's harness, of which this test uses the running of steps only.
#[allow(dead_code)]
mod pgdiff;
mod pgregress {
    pub mod judge;
    pub mod script;
}

use amnesia::internal::pg::EXTENSION_TYPE_OIDS;
use pgdiff::outcome::{Observed, Outcome};
use pgdiff::target::{RealTarget, SpawnTarget, Target};
use pgdiff::{Pair, Step};
use pgregress::judge::{Judge, Verdict};
use pgregress::script::{copy_as_inserts, split};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files run at once (each mostly waits on the two servers).
const PARALLEL: usize = 4;
/// One connection, so no statement waits on a lock: a reply slower than this (on either
/// side) is a stall, never compared as a wait. PostgreSQL itself takes over 5 s on a few
/// of the suites' statements here (tenk1 joined with itself with none of the indexes the
/// suite's own schedule builds first), so the bound leaves it room.
const WAITS: pgdiff::session::Waits = pgdiff::session::Waits {
    blocked_ms: 30_000,
    busy_ms: 30_000,
};
/// Wrong statements printed per file.
const WRONG_SHOWN_MAX: usize = 10;

/// One suite: where it is read from and what runs before each of its files.
struct Suite {
    label: &'static str,
    variable: &'static str,
    /// Statements before each file (uncounted).
    setup: &'static [&'static str],
    /// A file of the suite run before each file (uncounted).
    setup_file: Option<&'static str>,
    /// The files run (by stem); `None`: every `.sql` file of the folder.
    files: Option<&'static [&'static str]>,
}

/// pgvector 0.8.2's `test/sql`: every file.
const PGVECTOR: Suite = Suite {
    label: "pgvector",
    variable: "AMNESIA_PGVECTOR_REGRESS",
    setup: &["CREATE EXTENSION IF NOT EXISTS vector"],
    setup_file: None,
    files: None,
};

/// PostgreSQL 18.3's `src/test/regress/sql`: the files of the types, queries and DDL the
/// model claims (README, "The PostgreSQL model").
const POSTGRESQL: Suite = Suite {
    label: "postgresql",
    variable: "AMNESIA_PG_REGRESS",
    setup: &[],
    setup_file: Some("test_setup"),
    files: Some(&[
        "boolean",
        "int2",
        "int4",
        "int8",
        "float8",
        "numeric",
        "text",
        "varchar",
        "char",
        "uuid",
        "date",
        "timestamp",
        "timestamptz",
        "interval",
        "strings",
        "json",
        "jsonb",
        "arrays",
        "case",
        "select",
        "select_distinct",
        "select_having",
        "limit",
        "insert",
        "update",
        "delete",
        "truncate",
        "aggregates",
        "subselect",
        "join",
        "union",
        "with",
        "window",
        "transactions",
        "constraints",
        "alter_table",
        "create_index",
        "tsearch",
    ]),
};

#[derive(Default, Clone, Copy)]
struct Count {
    agree: usize,
    refused: usize,
    following: usize,
    wrong: usize,
    skipped: usize,
    /// Statements not answered within [`WAITS`] (the file stops there: its later
    /// statements would queue behind it). The model's stall is a bug; PostgreSQL's, a
    /// statement the harness cannot time (both are listed).
    stalled: usize,
    /// Statements not run after a stall.
    unrun: usize,
}

impl Count {
    fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Agree => self.agree += 1,
            Verdict::Refused => self.refused += 1,
            Verdict::Following => self.following += 1,
            Verdict::Wrong => self.wrong += 1,
        }
    }

    fn total(&self) -> usize {
        self.agree + self.refused + self.following + self.wrong
    }

    fn merge(&mut self, other: Count) {
        self.agree += other.agree;
        self.refused += other.refused;
        self.following += other.following;
        self.wrong += other.wrong;
        self.skipped += other.skipped;
        self.stalled += other.stalled;
        self.unrun += other.unrun;
    }

    fn line(&self) -> String {
        format!(
            "{} statements, {} agree, {} refused, {} following a refusal, {} wrong, {} stalled ({} not run after; {} meta-commands skipped)",
            self.total(),
            self.agree,
            self.refused,
            self.following,
            self.wrong,
            self.stalled,
            self.unrun,
            self.skipped
        )
    }
}

/// The statements of `file` in `folder`, as psql would send them.
fn statements(folder: &Path, stem: &str) -> (Vec<String>, usize) {
    let path = folder.join(format!("{stem}.sql"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let source = folder
        .parent()
        .unwrap_or(folder)
        .to_string_lossy()
        .into_owned();
    let getenv = move |name: &str| match name {
        "PG_ABS_SRCDIR" | "PG_ABS_BUILDDIR" => Some(source.clone()),
        _ => None,
    };
    let script = split(&text, &getenv);
    let expanded = script
        .statements
        .into_iter()
        .flat_map(|statement| copy_as_inserts(&statement).unwrap_or_else(|| vec![statement]))
        .collect();
    (expanded, script.skipped)
}

/// One file on fresh databases: its setup, uncounted, then its statements, counted.
async fn run_file(
    pg: &dyn Target,
    model: &dyn Target,
    setup: Vec<String>,
    statements: Vec<String>,
    show: usize,
) -> Result<(Count, Vec<String>), String> {
    let mut pair = Pair::open(pg, model, WAITS).await?;
    let (mut judge, mut count, mut report) = (Judge::default(), Count::default(), Vec::new());
    let mut oids = Vec::new();
    let counted_from = setup.len();
    let total = counted_from + statements.len();
    for (index, sql) in setup.into_iter().chain(statements).enumerate() {
        if index == counted_from {
            oids = extension_oids(&mut pair, index).await;
        }
        let at = index + usize::from(index >= counted_from);
        if std::env::var_os("AMNESIA_PG_REGRESS_TRACE").is_some() {
            eprintln!("{index}: running");
        }
        pair.run(at, &Step::simple(1, sql.clone())).await;
        let (Some(a), Some(b)) = pair.observed(at) else {
            return Err(format!("statement {index} was not observed: {sql}"));
        };
        let a = with_model_oids(a.clone(), &oids);
        if matches!(b.first.outcome, Outcome::Blocked)
            || matches!(a.first.outcome, Outcome::Blocked)
        {
            count.stalled += 1;
            count.unrun = total - index - 1;
            report.push(format!(
                "Stalled: {sql}\n      postgres: {a}\n      model:    {b}"
            ));
            break;
        }
        let verdict = judge.judge(&sql, &a, b);
        if std::env::var_os("AMNESIA_PG_REGRESS_TRACE").is_some() {
            eprintln!(
                "{index}: {verdict:?}: {}",
                sql.lines().last().unwrap_or_default()
            );
        }
        if index < counted_from {
            continue;
        }
        count.add(verdict);
        let shown =
            report.len() < show || (verdict == Verdict::Wrong && count.wrong <= WRONG_SHOWN_MAX);
        if verdict != Verdict::Agree && shown {
            report.push(format!(
                "{verdict:?}: {sql}\n      postgres: {a}\n      model:    {b}"
            ));
        }
    }
    pair.discard(pg, model).await;
    Ok((count, report))
}

/// Real PostgreSQL's OIDs of the extension types the model has, paired with the model's,
/// read as step `index` (the model's reply to it is not looked at).
async fn extension_oids(pair: &mut Pair, index: usize) -> Vec<(u32, u32)> {
    let names = EXTENSION_TYPE_OIDS
        .map(|(name, _)| format!("'{name}'"))
        .join(", ");
    let sql = format!("SELECT oid::int8, typname::text FROM pg_type WHERE typname IN ({names})");
    pair.run(index, &Step::simple(1, sql)).await;
    let Some(Outcome::Rows { rows, .. }) = pair.observed(index).0.map(|o| &o.first.outcome) else {
        return Vec::new();
    };
    let model_oid = |name: &str| {
        EXTENSION_TYPE_OIDS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, oid)| *oid)
    };
    rows.iter()
        .filter_map(|row| match row.as_slice() {
            [Some(oid), Some(name)] => Some((oid.parse().ok()?, model_oid(name)?)),
            _ => None,
        })
        .collect()
}

/// `observed` with its columns' extension type OIDs mapped to the model's.
fn with_model_oids(mut observed: Observed, oids: &[(u32, u32)]) -> Observed {
    for reply in std::iter::once(&mut observed.first).chain(observed.later.as_mut()) {
        if let Outcome::Rows { columns, .. } = &mut reply.outcome {
            for (_, oid) in columns.iter_mut() {
                if let Some((_, model)) = oids.iter().find(|(real, _)| real == oid) {
                    *oid = *model;
                }
            }
        }
    }
    observed
}

/// The stems `suite` runs from `folder`, with `AMNESIA_PG_REGRESS_ONLY` applied.
fn stems(suite: &Suite, folder: &Path) -> Vec<String> {
    let mut stems: Vec<String> = match suite.files {
        Some(files) => files.iter().map(|f| f.to_string()).collect(),
        None => std::fs::read_dir(folder)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", folder.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
            .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
            .collect(),
    };
    stems.sort();
    if let Ok(only) = std::env::var("AMNESIA_PG_REGRESS_ONLY") {
        stems.retain(|stem| stem.contains(&only));
    }
    stems
}

/// Run `suite`'s files, print a line per file and the totals; return the totals.
async fn run_suite(suite: &Suite, pg: Arc<dyn Target>, model: Arc<dyn Target>) -> Count {
    let Ok(folder) = std::env::var(suite.variable) else {
        println!(
            "{}: {} names no folder of the suite's .sql files; skipped",
            suite.label, suite.variable
        );
        return Count::default();
    };
    let folder = PathBuf::from(folder);
    let mut setup: Vec<String> = suite.setup.iter().map(|s| s.to_string()).collect();
    if let Some(stem) = suite.setup_file {
        setup.extend(statements(&folder, stem).0);
    }
    let show: usize = std::env::var("AMNESIA_PG_REGRESS_SHOW")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let permits = Arc::new(tokio::sync::Semaphore::new(PARALLEL));
    let mut running = tokio::task::JoinSet::new();
    for (order, stem) in stems(suite, &folder).into_iter().enumerate() {
        let (statements, skipped) = statements(&folder, &stem);
        let (pg, model, permits, setup) =
            (pg.clone(), model.clone(), permits.clone(), setup.clone());
        running.spawn(async move {
            let _permit = permits.acquire_owned().await.expect("never closed");
            let result = run_file(pg.as_ref(), model.as_ref(), setup, statements, show).await;
            (order, stem, skipped, result)
        });
    }
    let mut results = running.join_all().await;
    results.sort_by_key(|(order, ..)| *order);
    let mut total = Count::default();
    for (_, stem, skipped, result) in results {
        let (mut count, report) =
            result.unwrap_or_else(|why| panic!("{}/{stem}: {why}", suite.label));
        count.skipped = skipped;
        println!("{}/{stem}: {}", suite.label, count.line());
        for line in report {
            println!("    {line}");
        }
        total.merge(count);
    }
    println!("{}: {}", suite.label, total.line());
    total
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_suites_agree_on_the_model_or_are_refused() {
    let variables = [PGVECTOR.variable, POSTGRESQL.variable];
    if variables.iter().all(|name| std::env::var(name).is_err()) {
        println!(
            "pg regress: neither {} nor {} names a suite's folder; skipped",
            variables[0], variables[1]
        );
        return;
    }
    let pg: Arc<dyn Target> = Arc::new(
        RealTarget::start("postgres")
            .await
            .unwrap_or_else(|e| panic!("real PostgreSQL: {e}")),
    );
    let model: Arc<dyn Target> = Arc::new(SpawnTarget::new("model", |listener| {
        tokio::spawn(amnesia::internal::pg::serve_tcp(listener, 0));
    }));
    let mut total = Count::default();
    for suite in [&PGVECTOR, &POSTGRESQL] {
        total.merge(run_suite(suite, pg.clone(), model.clone()).await);
    }
    // The model claims what it does not refuse: a statement answered otherwise is a bug,
    // and so is one it cannot answer in time.
    assert_eq!(total.wrong, 0, "statements answered wrongly (listed above)");
    assert_eq!(
        total.stalled, 0,
        "statements the model stalled on (listed above)"
    );
}
