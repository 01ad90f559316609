//! PostgreSQL's own isolation specs (`src/test/isolation/specs/*.spec`, from its public
//! repository), run against real PostgreSQL and the model side by side: the yardstick
//! of concurrency nobody here wrote. The specs are read from the folder
//! `AMNESIA_PG_ISOLATION_SPECS` names (never committed); without it the test says so and
//! passes (no spec, nothing to compare). Each spec's permutations run on fresh
//! databases, their steps on one connection per session, under the differential's rule
//! for lock waits (`pgdiff::session`), and each permutation is counted: agree (every
//! step), refused (a step the model refused with 0A000), or differ; any differ fails.
//!
//! `AMNESIA_PG_ISOLATION_SPECS=<folder> AMNESIA_PG_BIN=… cargo test --profile test-release
//! --features real --test pg_isolation -- --nocapture` prints one line per spec and the
//! totals. Specs with more sessions than the harness's connections, or none of their own
//! permutations, are skipped and counted so.

// The differential's harness, of which this test uses the running of steps only.
#[allow(dead_code)]
mod pgdiff;

use pgdiff::target::{RealTarget, SpawnTarget, Target};
use pgdiff::{run_steps, Step, CONNECTIONS};
use std::path::Path;
use std::sync::Arc;

/// Permutations run at once (each mostly waits).
const PARALLEL: usize = 6;
/// Permutations of one spec run at most (a spec without its own list would have many).
const PERMUTATIONS_MAX: usize = 64;

/// One spec: its setup, its sessions (name, setup, steps) and permutations.
#[derive(Default, Debug)]
struct Spec {
    setup: Vec<String>,
    sessions: Vec<Session>,
    permutations: Vec<Vec<String>>,
}

#[derive(Default, Debug)]
struct Session {
    setup: Vec<String>,
    steps: Vec<(String, String)>,
}

/// A spec file parsed: `setup { … }`, `teardown { … }`, `session name`, `step name
/// { … }`, `permutation a b …` (a step's markers, `a(b)` or `a(*)`, dropped), `#`
/// comments.
fn parse_spec(text: &str) -> Result<Spec, String> {
    let mut spec = Spec::default();
    let mut rest = text;
    loop {
        rest = skip_blank(rest);
        let Some(word_end) = rest.find(|c: char| c.is_whitespace() || c == '{') else {
            break;
        };
        let (word, after) = rest.split_at(word_end);
        rest = after;
        match word {
            "setup" | "teardown" => {
                let (sql, after) = block(rest)?;
                rest = after;
                if word == "setup" {
                    match spec.sessions.last_mut() {
                        Some(session) => session.setup.push(sql),
                        None => spec.setup.push(sql),
                    }
                }
            }
            "session" | "step" => {
                let (name, after) = name(rest)?;
                rest = after;
                if word == "session" {
                    spec.sessions.push(Session::default());
                } else {
                    let (sql, after) = block(rest)?;
                    rest = after;
                    let session = spec.sessions.last_mut().ok_or("a step outside a session")?;
                    session.steps.push((name, sql));
                }
            }
            "permutation" => {
                let line_end = rest.find('\n').unwrap_or(rest.len());
                let (line, after) = rest.split_at(line_end);
                rest = after;
                let steps = line
                    .split_whitespace()
                    .map(|step| {
                        let step = step.trim_matches('"');
                        step.split('(').next().unwrap_or(step).to_string()
                    })
                    .collect();
                spec.permutations.push(steps);
            }
            other => return Err(format!("unknown word {other:?}")),
        }
    }
    Ok(spec)
}

fn skip_blank(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        match text.strip_prefix('#') {
            Some(comment) => text = comment.find('\n').map_or("", |at| &comment[at..]),
            None => return text,
        }
    }
}

/// A name, bare or quoted.
fn name(text: &str) -> Result<(String, &str), String> {
    let text = skip_blank(text);
    if let Some(quoted) = text.strip_prefix('"') {
        let end = quoted.find('"').ok_or("an unterminated name")?;
        return Ok((quoted[..end].to_string(), &quoted[end + 1..]));
    }
    let end = text
        .find(|c: char| c.is_whitespace() || c == '{')
        .unwrap_or(text.len());
    Ok((text[..end].to_string(), &text[end..]))
}

/// A `{ … }` block's text (braces nest) and what follows it.
fn block(text: &str) -> Result<(String, &str), String> {
    let text = skip_blank(text);
    let inner = text.strip_prefix('{').ok_or("a block without its `{`")?;
    let mut depth = 1;
    for (at, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return Ok((inner[..at].trim().to_string(), &inner[at + 1..]));
        }
    }
    Err("a block without its `}`".into())
}

/// The steps of one permutation: the spec's setup and each session's on its connection,
/// then the permutation's steps; `None` if it names a step no session has.
fn permutation_steps(spec: &Spec, permutation: &[String]) -> Option<Vec<Step>> {
    let mut steps: Vec<Step> = spec.setup.iter().map(|sql| Step::simple(1, sql)).collect();
    for (at, session) in spec.sessions.iter().enumerate() {
        steps.extend(session.setup.iter().map(|sql| Step::simple(at + 1, sql)));
    }
    for name in permutation {
        let (conn, sql) = spec.sessions.iter().enumerate().find_map(|(at, session)| {
            let step = session.steps.iter().find(|(n, _)| n == name)?;
            Some((at + 1, step.1.clone()))
        })?;
        steps.push(Step::simple(conn, sql));
    }
    Some(steps)
}

/// Every interleaving of the sessions' steps (each session's in its order), up to `max`.
fn interleavings(spec: &Spec, max: usize) -> Vec<Vec<String>> {
    fn walk(
        spec: &Spec,
        next: &mut Vec<usize>,
        path: &mut Vec<String>,
        out: &mut Vec<Vec<String>>,
        max: usize,
    ) {
        if out.len() >= max {
            return;
        }
        let mut moved = false;
        for session in 0..spec.sessions.len() {
            let Some((name, _)) = spec.sessions[session].steps.get(next[session]) else {
                continue;
            };
            moved = true;
            path.push(name.clone());
            next[session] += 1;
            walk(spec, next, path, out, max);
            next[session] -= 1;
            path.pop();
        }
        if !moved {
            out.push(path.clone());
        }
    }
    let mut out = Vec::new();
    walk(
        spec,
        &mut vec![0; spec.sessions.len()],
        &mut Vec::new(),
        &mut out,
        max,
    );
    out
}

#[derive(Default)]
struct Count {
    agree: usize,
    refused: usize,
    differ: usize,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgresqls_isolation_specs_agree_on_the_model_or_are_refused() {
    let Ok(folder) = std::env::var("AMNESIA_PG_ISOLATION_SPECS") else {
        println!("pg isolation: AMNESIA_PG_ISOLATION_SPECS names no folder of specs; skipped");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(Path::new(&folder))
        .unwrap_or_else(|e| panic!("cannot read {folder}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "spec"))
        .collect();
    files.sort();
    let reference: Arc<dyn Target> = Arc::new(
        RealTarget::start("postgres")
            .await
            .unwrap_or_else(|e| panic!("real PostgreSQL: {e}")),
    );
    let model: Arc<dyn Target> = Arc::new(SpawnTarget::new("model", |listener| {
        tokio::spawn(amnesia::internal::pg::serve_tcp(listener, 0));
    }));
    let (mut total, mut skipped) = (Count::default(), 0);
    for file in files {
        let label = file.file_stem().unwrap().to_string_lossy().into_owned();
        let spec = match parse_spec(&std::fs::read_to_string(&file).unwrap()) {
            Ok(spec) if spec.sessions.len() <= CONNECTIONS => spec,
            Ok(_) => {
                println!("{label}: skipped (more than {CONNECTIONS} sessions)");
                skipped += 1;
                continue;
            }
            Err(why) => {
                println!("{label}: skipped ({why})");
                skipped += 1;
                continue;
            }
        };
        let permutations = match spec.permutations.is_empty() {
            true => interleavings(&spec, PERMUTATIONS_MAX),
            false => spec.permutations.clone(),
        };
        let permits = Arc::new(tokio::sync::Semaphore::new(PARALLEL));
        let mut running = tokio::task::JoinSet::new();
        for (order, permutation) in permutations.iter().enumerate() {
            let Some(steps) = permutation_steps(&spec, permutation) else {
                continue;
            };
            let (a, b, permits) = (reference.clone(), model.clone(), permits.clone());
            let name = format!("{label} [{}]", permutation.join(" "));
            running.spawn(async move {
                let _permit = permits.acquire_owned().await.expect("never closed");
                (
                    order,
                    name,
                    run_steps(a.as_ref(), b.as_ref(), "", &steps).await,
                )
            });
        }
        let mut results = running.join_all().await;
        results.sort_by_key(|(order, _, _)| *order);
        let mut count = Count::default();
        for (_, name, tally) in results {
            match (tally.failures.is_empty(), tally.refusing > 0) {
                (true, _) => count.agree += 1,
                (false, true) => count.refused += 1,
                (false, false) => {
                    count.differ += 1;
                    println!("  differ: {name}");
                    for failure in tally.failures.iter().take(2) {
                        println!("    {failure}");
                    }
                }
            }
        }
        println!(
            "{label}: {} permutations, {} agree, {} refused, {} differ",
            count.agree + count.refused + count.differ,
            count.agree,
            count.refused,
            count.differ
        );
        total.agree += count.agree;
        total.refused += count.refused;
        total.differ += count.differ;
    }
    println!(
        "pg isolation: {} permutations, {} agree, {} refused, {} differ ({skipped} specs skipped)",
        total.agree + total.refused + total.differ,
        total.agree,
        total.refused,
        total.differ
    );
    // The model claims what it does not refuse: a permutation answered otherwise is a bug.
    assert_eq!(
        total.differ, 0,
        "permutations answered differently (listed above)"
    );
}
