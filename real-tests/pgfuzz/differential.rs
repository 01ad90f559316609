//! The differential mode: a seed's sequence on real PostgreSQL and on the model, step by
//! step (the harness's `Pair`: its wire client, its comparison of columns, type OIDs,
//! rows, command tags, SQLSTATEs and transaction status). A step the model refuses
//! (0A000) counts as refused, not as a disagreement; when the refusal leaves the targets
//! in different states (a write, or anything inside a transaction, that PostgreSQL
//! applied) the rest of the sequence is not compared. Any other difference is a finding:
//! the sequence is cut after it, statements are dropped while it still disagrees
//! (delta debugging), then the failing statement is shrunk clause by clause, and the
//! repro is printed in `real-tests/pg-cases/` form with its seed.

use super::super::pgdiff::outcome::{Observed, Outcome};
use super::super::pgdiff::target::{Endpoint, Target};
use super::super::pgdiff::{session, Pair, Step};
use super::generate::{sequence, Item};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Replays a minimisation may spend on one finding (each on fresh databases).
pub const REPLAYS_MAX: usize = 200;

/// How one step compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Class {
    Agree,
    /// Refused by the model; `diverged`: PostgreSQL's state now differs.
    Refused {
        diverged: bool,
    },
    Differ,
}

/// A seed's figures and its finding, if any.
#[derive(Default)]
pub struct SeedReport {
    pub compared: usize,
    pub agreed: usize,
    pub refused: usize,
    /// Steps not compared after a refusal left the states apart.
    pub skipped: usize,
    /// The minimised repro, printed.
    pub finding: Option<String>,
}

/// Classify step `item`'s observations (`a` PostgreSQL, `b` the model).
pub fn classify(item: &Item, a: &Observed, b: &Observed) -> Class {
    let b_refuses =
        matches!(&b.first.outcome, Outcome::Error { sqlstate, .. } if sqlstate == "0A000");
    if b_refuses {
        let a_failed = matches!(&a.first.outcome, Outcome::Error { .. });
        let harmless = a_failed || (item.stmt.reads_only() && a.first.tx == Some('I'));
        return Class::Refused {
            diverged: !harmless,
        };
    }
    match a.agrees(b) {
        true => Class::Agree,
        false => Class::Differ,
    }
}

fn step_of(item: &Item) -> Step {
    Step::simple(item.conn, item.stmt.render())
}

/// Run `items` on fresh databases; the index of the first disagreeing step (and the two
/// observations), counting into `report`.
async fn run_items(
    a: &dyn Target,
    b: &dyn Target,
    items: &[Item],
    mut report: Option<&mut SeedReport>,
) -> Result<Option<(usize, Observed, Observed)>, String> {
    let mut pair = Pair::open(a, b, session::WAITS).await?;
    let mut found = None;
    for (index, item) in items.iter().enumerate() {
        pair.run(index, &step_of(item)).await;
        let (Some(oa), Some(ob)) = pair.observed(index) else {
            // Blocked: the generator never makes a statement wait, so this is a finding.
            found = Some(index);
            break;
        };
        let class = classify(item, oa, ob);
        if let Some(r) = report.as_deref_mut() {
            r.compared += 1;
            match class {
                Class::Agree => r.agreed += 1,
                Class::Refused { .. } => r.refused += 1,
                Class::Differ => {}
            }
        }
        match class {
            Class::Agree | Class::Refused { diverged: false } => {}
            Class::Refused { diverged: true } => {
                if let Some(r) = report.as_deref_mut() {
                    r.skipped += items.len() - index - 1;
                }
                break;
            }
            Class::Differ => {
                found = Some(index);
                break;
            }
        }
    }
    let result = found.map(|index| {
        let (oa, ob) = pair.observed(index);
        let blocked = || Observed {
            first: super::super::pgdiff::outcome::Reply::blocked(),
            later: None,
        };
        (
            index,
            oa.cloned().unwrap_or_else(blocked),
            ob.cloned().unwrap_or_else(blocked),
        )
    });
    pair.discard(a, b).await;
    Ok(result)
}

/// What kind of disagreement two observations are: each side's outcome (rows or its
/// SQLSTATE) and, when both have rows, the part that differs. A shrink keeps a candidate
/// only when it disagrees the same way, so it does not drift to another difference (any
/// `SELECT NULL` once disagreed on its type, and every shrink would have ended there).
pub fn signature(a: &Observed, b: &Observed) -> String {
    let kind = |o: &Observed| match &o.first.outcome {
        Outcome::Rows { .. } => "rows".to_string(),
        Outcome::Error { sqlstate, .. } => sqlstate.clone(),
        Outcome::Blocked => "blocked".into(),
        Outcome::Broken(_) => "broken".into(),
    };
    let aspect = match (&a.first.outcome, &b.first.outcome) {
        (
            Outcome::Rows { columns, rows, tag },
            Outcome::Rows {
                columns: columns_b,
                rows: rows_b,
                tag: tag_b,
            },
        ) => match (columns == columns_b, tag == tag_b, rows == rows_b) {
            (false, _, _) => "columns",
            (_, false, _) => "tag",
            (_, _, false) => "rows",
            _ => "status",
        },
        _ => "",
    };
    format!("{} / {} {aspect}", kind(a), kind(b))
}

/// Whether `items` still disagree at their last step, the way `want` says.
async fn still_fails(
    a: &dyn Target,
    b: &dyn Target,
    items: &[Item],
    want: &str,
    replays: &mut usize,
) -> bool {
    *replays += 1;
    matches!(run_items(a, b, items, None).await,
        Ok(Some((index, oa, ob))) if index + 1 == items.len() && signature(&oa, &ob) == want)
}

/// Drop statements before the last (chunks, then one by one) while the last still
/// disagrees the same way (`want`); then shrink the last while it does.
async fn minimise(a: &dyn Target, b: &dyn Target, mut items: Vec<Item>, want: &str) -> Vec<Item> {
    let mut replays = 0;
    let mut chunk = (items.len() / 2).max(1);
    loop {
        let mut start = 0;
        while start + 1 < items.len() && replays < REPLAYS_MAX {
            let end = (start + chunk).min(items.len() - 1);
            let mut candidate = items.clone();
            candidate.drain(start..end);
            if still_fails(a, b, &candidate, want, &mut replays).await {
                items = candidate;
            } else {
                start = end;
            }
        }
        if chunk == 1 || replays >= REPLAYS_MAX {
            break;
        }
        chunk /= 2;
    }
    // Shrink the failing statement: the first smaller one that still disagrees, again.
    'shrink: while replays < REPLAYS_MAX {
        let last = items.len() - 1;
        for smaller in items[last].stmt.shrinks() {
            let mut candidate = items.clone();
            candidate[last].stmt = smaller;
            if still_fails(a, b, &candidate, want, &mut replays).await {
                items = candidate;
                continue 'shrink;
            }
            if replays >= REPLAYS_MAX {
                break;
            }
        }
        break;
    }
    items
}

/// The repro in `real-tests/pg-cases/` form.
fn repro(seed: u64, items: &[Item], a: &Observed, b: &Observed) -> String {
    let mut text = format!("-- case: fuzz seed {seed}\n");
    let mut conn = 1;
    for item in items {
        if item.conn != conn {
            conn = item.conn;
            text.push_str(&format!("-- conn {conn}\n"));
        }
        text.push_str(&format!("{};\n", item.stmt.render()));
    }
    text.push_str(&format!("--   postgres: {a}\n--   model:    {b}\n"));
    text
}

/// Run seed `seed`'s sequence of `count` statements; minimise a finding.
pub async fn run_seed(a: &dyn Target, b: &dyn Target, seed: u64, count: usize) -> SeedReport {
    let items = sequence(seed, count);
    let mut report = SeedReport::default();
    match run_items(a, b, &items, Some(&mut report)).await {
        Err(why) => report.finding = Some(format!("seed {seed}: cannot open: {why}")),
        Ok(None) => {}
        Ok(Some((index, oa, ob))) => {
            let cut = items[..=index].to_vec();
            let small = minimise(a, b, cut, &signature(&oa, &ob)).await;
            let text = match run_items(a, b, &small, None).await {
                Ok(Some((_, oa, ob))) => repro(seed, &small, &oa, &ob),
                other => format!(
                    "seed {seed}: the finding did not replay ({:?})",
                    other.map(|o| o.map(|x| x.0))
                ),
            };
            report.finding = Some(text);
        }
    }
    report
}

/// The PostgreSQL model as a target: a fresh model per database on a listener of its own,
/// stopped when the database is discarded (a long run starts thousands).
#[derive(Default)]
pub struct ModelTarget {
    servers: Mutex<BTreeMap<std::net::SocketAddr, tokio::task::JoinHandle<()>>>,
}

#[async_trait::async_trait]
impl Target for ModelTarget {
    fn name(&self) -> String {
        "model".into()
    }

    async fn fresh(&self) -> Result<Endpoint, String> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("model: bind: {e}"))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        let handle = tokio::spawn(async move {
            let _ = amnesia::internal::pg::serve_tcp(listener, 0).await;
        });
        self.servers.lock().unwrap().insert(address, handle);
        Ok(Endpoint {
            address,
            database: amnesia::internal::postgres::PG_DATABASE.to_string(),
        })
    }

    async fn discard(&self, endpoint: &Endpoint) {
        if let Some(handle) = self.servers.lock().unwrap().remove(&endpoint.address) {
            handle.abort();
        }
    }
}
