//! The hand-written cases, read from `real-tests/pg-cases/*.sql`. A file holds cases; a
//! case is a list of statements on numbered connections, each ending with `;` at the end
//! of a line. Directives are comment lines between statements:
//!
//! ```text
//! -- case: a unique violation        starts a case (a fresh database on each target)
//! -- conn 2                          the connection of the statements that follow
//! -- params int8:5 text:abc          the next statement runs with the extended protocol
//! -- params declared text:vector      … its Parse declaring the parameters' types (sqlx)
//! -- expect 23505                    what the first target (real PostgreSQL) must reply:
//!                                    a tag, a SQLSTATE, `blocked`, `blocked, then UPDATE 0`
//! -- within 0.2                      the next replies may differ in numbers only, by 0.2
//!                                    at most (distances, an approximate index's recall)
//! -- refused                         the next statement is one PostgreSQL answers and the
//!                                    model refuses (0A000): counted apart, never agreeing
//! ```
//!
//! Other comment lines are comments. `-- expect` proves a case reaches the path it is
//! written for; the differential comparison covers every statement with or without one.

use super::types::Param;
use super::Step;
use std::path::Path;

/// One case: its name (with its file) and its steps.
pub struct Case {
    pub name: String,
    pub steps: Vec<Step>,
}

/// Every case of every `.sql` file in `folder`, files in name order.
pub fn read_cases(folder: &Path) -> Vec<Case> {
    let mut files: Vec<_> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", folder.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
        .collect();
    files.sort();
    files.iter().flat_map(|file| parse_file(file)).collect()
}

/// What the parser holds between lines.
#[derive(Default)]
struct Pending {
    conn: usize,
    params: Option<Vec<Param>>,
    declared: bool,
    expect: Option<String>,
    numbers: Option<super::Numbers>,
    refused: bool,
    sql: String,
}

fn parse_file(file: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(file).unwrap();
    let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
    let mut cases: Vec<Case> = Vec::new();
    let mut pending = Pending::default();
    for (number, line) in text.lines().enumerate() {
        let at = || format!("{}:{}", file.display(), number + 1);
        let trimmed = line.trim();
        if pending.sql.is_empty() && trimmed.starts_with("--") {
            directive(trimmed, &mut pending, &mut cases, &stem)
                .unwrap_or_else(|e| panic!("{}: {e}", at()));
            continue;
        }
        if trimmed.is_empty() && pending.sql.is_empty() {
            continue;
        }
        pending.sql.push_str(line);
        pending.sql.push('\n');
        if let Some(sql) = trimmed
            .strip_suffix(';')
            .map(|_| pending.sql.trim().trim_end_matches(';').to_string())
        {
            let case = cases
                .last_mut()
                .unwrap_or_else(|| panic!("{}: a statement before `-- case:`", at()));
            case.steps.push(Step {
                conn: pending.conn,
                sql,
                params: pending.params.take(),
                declared: std::mem::take(&mut pending.declared),
                expect: pending.expect.take(),
                numbers: pending.numbers.take(),
                refused: std::mem::take(&mut pending.refused),
            });
            pending.sql.clear();
        }
    }
    assert!(
        pending.sql.trim().is_empty(),
        "{}: a statement without its `;`",
        file.display()
    );
    cases
}

fn directive(
    line: &str,
    pending: &mut Pending,
    cases: &mut Vec<Case>,
    stem: &str,
) -> Result<(), String> {
    let words = line.trim_start_matches('-').trim();
    if let Some(name) = words.strip_prefix("case:") {
        cases.push(Case {
            name: format!("{stem}: {}", name.trim()),
            steps: Vec::new(),
        });
        pending.conn = 1;
    } else if let Some(conn) = words.strip_prefix("conn ") {
        pending.conn = conn
            .trim()
            .parse()
            .map_err(|e| format!("conn {conn:?}: {e}"))?;
        if !(1..=super::CONNECTIONS).contains(&pending.conn) {
            return Err(format!(
                "conn {} is not 1..={}",
                pending.conn,
                super::CONNECTIONS
            ));
        }
    } else if let Some(params) = words.strip_prefix("params") {
        let (declared, params) = match params.trim_start().strip_prefix("declared") {
            Some(rest) => (true, rest),
            None => (false, params),
        };
        pending.declared = declared;
        pending.params = Some(
            params
                .split_whitespace()
                .map(Param::parse)
                .collect::<Result<_, _>>()?,
        );
    } else if let Some(tolerance) = words.strip_prefix("within ") {
        let tolerance: f64 = tolerance
            .trim()
            .parse()
            .map_err(|e| format!("within {tolerance:?}: {e}"))?;
        pending.numbers = Some(super::Numbers::Within(tolerance));
    } else if let Some(bound) = words.strip_prefix("at least ") {
        let bound: f64 = bound
            .trim()
            .parse()
            .map_err(|e| format!("at least {bound:?}: {e}"))?;
        pending.numbers = Some(super::Numbers::AtLeast(bound));
    } else if words == "refused" {
        pending.refused = true;
    } else if let Some(expect) = words.strip_prefix("expect ") {
        pending.expect = Some(expect.trim().to_string());
    }
    Ok(())
}
