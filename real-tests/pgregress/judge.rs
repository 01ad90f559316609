//! How one statement of a suite is counted. A suite file is one long session: once the
//! model refuses a statement that would have changed something (a `CREATE TABLE` of a
//! type it lacks, a `SET` it does not model), later statements on what it would have
//! changed see another state on each side, and their disagreement says nothing new. So
//! the judge keeps the names such a statement touched ("tainted"): a later disagreement
//! that names one counts as *following* an earlier refusal (or wrong answer), not as a
//! wrong answer of its own. What a refused read (`SELECT`) changes is nothing: it taints
//! nothing. A refused `SET`, and any step that leaves the two sides in different
//! transaction states, taint everything after it (until the transaction states agree
//! again, for the latter). A `DROP` both sides answer alike clears the name.

use crate::pgdiff::outcome::{Observed, Outcome};
use std::collections::BTreeSet;

/// One statement's count.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// The same columns, rows and tag, or the same SQLSTATE, and transaction status.
    Agree,
    /// The model refused it (0A000) where PostgreSQL answered otherwise.
    Refused,
    /// It disagrees, but names what an earlier refused or wrong statement touched.
    Following,
    /// It disagrees of its own: a bug in the model.
    Wrong,
}

/// Words after which a statement names a relation, type, function or other object.
const NAMING_WORDS: &[&str] = &[
    "table",
    "into",
    "update",
    "from",
    "join",
    "on",
    "index",
    "view",
    "sequence",
    "type",
    "function",
    "aggregate",
    "operator",
    "extension",
    "truncate",
    "references",
    "domain",
    "schema",
    "procedure",
    "trigger",
    "rule",
    "collation",
    // A child table's rows are its parent's too (`CREATE TABLE c … INHERITS (p)`,
    // `ALTER TABLE c INHERIT p`).
    "inherits",
    "inherit",
    // `CREATE RULE r AS ON INSERT TO t`, `ALTER TABLE a RENAME TO b`.
    "to",
    // A constraint's index has its name (`ADD CONSTRAINT k PRIMARY KEY USING INDEX i`).
    "constraint",
    "analyze",
    "vacuum",
];
/// Words that come between a naming word and the name.
const FILLER_WORDS: &[&str] = &[
    "if",
    "not",
    "exists",
    "only",
    "concurrently",
    "unique",
    "lateral",
    "table",
    "class",
    "family",
    "materialized",
    "temp",
    "temporary",
    "unlogged",
    "or",
    "replace",
    "recursive",
];
/// Words that end a `FROM a, b, …` list.
const CLAUSE_WORDS: &[&str] = &[
    "where",
    "group",
    "order",
    "limit",
    "offset",
    "having",
    "window",
    "union",
    "except",
    "intersect",
    "returning",
    "set",
    "values",
    "select",
    "using",
    "with",
    "for",
    "fetch",
];

/// What earlier refusals and wrong answers touched.
#[derive(Default)]
pub struct Judge {
    names: BTreeSet<String>,
    /// A refused `SET`: everything after is under a setting the model did not take.
    setting: bool,
    /// The sides' transaction states differ after the last step.
    diverged: bool,
    /// Names of temporary tables created on one side only: PostgreSQL's may hide a table
    /// of its name, so a DROP that both sides answer alike may drop different tables.
    temporary: BTreeSet<String>,
}

impl Judge {
    /// Count `statement`, answered `pg` by PostgreSQL and `model` by the model.
    pub fn judge(&mut self, statement: &str, pg: &Observed, model: &Observed) -> Verdict {
        let touched = touched_names(statement);
        let before = self.setting || self.diverged || touched.iter().any(|n| self.tainted(n));
        let verdict = match (model.agrees(pg), refuses(model) && !refuses(pg), before) {
            (true, _, _) => Verdict::Agree,
            (false, true, _) => Verdict::Refused,
            (false, false, true) => Verdict::Following,
            (false, false, false) => Verdict::Wrong,
        };
        self.remember(statement, verdict, before);
        self.diverged = model.first.tx != pg.first.tx
            || model.later.as_ref().map(|r| r.tx) != pg.later.as_ref().map(|r| r.tx);
        verdict
    }

    /// Whether `name` is tainted, or is an object PostgreSQL names after a tainted one
    /// (`<table>_<columns>_key`, `<index>_ccnew`): what a refused statement made implicitly.
    fn tainted(&self, name: &str) -> bool {
        self.names.contains(name)
            || (name.split('_').count() > 1)
                && self.names.iter().any(|t| {
                    name.strip_prefix(t.as_str())
                        .is_some_and(|rest| rest.starts_with('_'))
                })
    }

    /// `tainted`: the statement read a name an earlier disagreement touched, so what it
    /// wrote may differ on the two sides even when its replies agree.
    fn remember(&mut self, statement: &str, verdict: Verdict, tainted: bool) {
        let first = first_word(statement);
        let changes = !matches!(
            first.as_str(),
            "select" | "values" | "explain" | "show" | "table"
        ) || statement.to_ascii_lowercase().contains(" into ");
        match verdict {
            // Whatever either side had, neither has it after the DROP both answered alike
            // (one that disagrees may have dropped a temporary table hiding another).
            Verdict::Agree if first == "drop" => {
                for name in named(statement) {
                    if !self.temporary.contains(&name) {
                        self.names.remove(&name);
                    }
                }
            }
            Verdict::Agree if tainted && changes && first != "set" && first != "reset" => {
                self.names.extend(named(statement))
            }
            Verdict::Agree => {}
            _ if first == "set" || first == "reset" => self.setting |= verdict == Verdict::Refused,
            _ if changes => {
                let temporary = words(statement)
                    .iter()
                    .take(3)
                    .any(|w| w.starts_with("temp"));
                if first == "create" && temporary {
                    self.temporary.extend(named(statement));
                }
                self.names.extend(named(statement))
            }
            _ => {}
        }
    }
}

/// Whether the reply is the model's refusal.
fn refuses(observed: &Observed) -> bool {
    matches!(&observed.first.outcome, Outcome::Error { sqlstate, .. } if sqlstate == "0A000")
}

fn first_word(statement: &str) -> String {
    words(statement).into_iter().next().unwrap_or_default()
}

/// The statement's words, lowercased (quoted identifiers as written), `(` and `,` kept as
/// words of their own; string literals and comments left out.
fn words(statement: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = statement.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => skip_past(&mut chars, '\''),
            '-' if chars.peek() == Some(&'-') => skip_past(&mut chars, '\n'),
            '"' => {
                let quoted: String = chars.by_ref().take_while(|&c| c != '"').collect();
                out.push(quoted);
            }
            '(' | ',' => out.push(c.to_string()),
            ':' if chars.peek() == Some(&':') => {
                chars.next();
                out.push("::".to_string());
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut word = c.to_lowercase().to_string();
                while let Some(&next) = chars.peek().filter(|c| c.is_alphanumeric() || **c == '_') {
                    word.extend(next.to_lowercase());
                    chars.next();
                }
                out.push(word);
            }
            _ => {}
        }
    }
    out
}

fn skip_past(chars: &mut std::iter::Peekable<std::str::Chars>, end: char) {
    for c in chars.by_ref() {
        if c == end {
            return;
        }
    }
}

/// The names a statement defines or reads objects by: those after a naming word (and
/// the rest of a `FROM a, b` list). A `schema.name` counts by its last part.
fn named(statement: &str) -> Vec<String> {
    let words = words(statement);
    let mut names = Vec::new();
    let mut listing = false;
    let mut at = 0;
    while at < words.len() {
        let word = words[at].as_str();
        let naming = NAMING_WORDS.contains(&word) || (listing && word == ",");
        listing = (listing && !CLAUSE_WORDS.contains(&word)) || word == "from";
        at += 1;
        if !naming {
            continue;
        }
        while at < words.len() && FILLER_WORDS.contains(&words[at].as_str()) {
            at += 1;
        }
        // `INHERITS (p)`: the parent inside the parentheses.
        if word == "inherits" && words.get(at).is_some_and(|w| w == "(") {
            at += 1;
        }
        // `CREATE INDEX ON t`: the next word names on its own.
        if let Some(name) = words
            .get(at)
            .filter(|w| is_name(w) && !NAMING_WORDS.contains(&w.as_str()))
        {
            names.push(name.clone());
        }
    }
    names
}

fn is_name(word: &str) -> bool {
    !matches!(word, "(" | "," | "::") && !word.chars().all(|c| c.is_ascii_digit())
}

/// The names a statement touches: [`named`] ones and the functions it calls.
fn touched_names(statement: &str) -> Vec<String> {
    let words = words(statement);
    let calls = words
        .windows(2)
        .filter(|pair| pair[1] == "(" && is_name(&pair[0]))
        .map(|pair| pair[0].clone());
    // `x::t`: the cast's type.
    let casts = words
        .windows(2)
        .filter(|pair| pair[0] == "::" && is_name(&pair[1]))
        .map(|pair| pair[1].clone());
    let mut names = named(statement);
    names.extend(calls);
    names.extend(casts);
    names.extend(column_types(&words));
    names
}

/// The type names of a `CREATE TABLE`'s columns (the word after each column's name): a
/// table of a type a refused `CREATE TYPE` or `CREATE DOMAIN` made follows that refusal.
fn column_types(words: &[String]) -> Vec<String> {
    let create_table =
        words.first().is_some_and(|w| w == "create") && words.iter().take(4).any(|w| w == "table");
    if !create_table {
        return Vec::new();
    }
    words
        .windows(3)
        .filter(|w| (w[0] == "(" || w[0] == ",") && is_name(&w[1]) && is_name(&w[2]))
        .map(|w| w[2].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_naming_words_and_from_lists() {
        assert_eq!(
            named("CREATE TABLE IF NOT EXISTS t (val halfvec(3))"),
            vec!["t"]
        );
        assert_eq!(named("CREATE INDEX ON t USING hnsw (val)"), vec!["t"]);
        assert_eq!(
            named("SELECT * FROM a, b JOIN c ON a.x = 'from z' WHERE y IN (SELECT 1 FROM d)"),
            vec!["a", "b", "c", "a", "d"]
        );
        assert_eq!(touched_names("SELECT f(x) FROM t"), vec!["t", "f"]);
        assert_eq!(
            touched_names("CREATE TABLE t (a int, b comptype[])"),
            vec!["t", "t", "int", "comptype"]
        );
        assert_eq!(named("ANALYZE t"), vec!["t"]);
        assert_eq!(touched_names("SELECT x::ct1 FROM t"), vec!["t", "ct1"]);
        assert_eq!(named("CREATE TABLE c (a int) INHERITS (p)"), vec!["c", "p"]);
    }
}
