//! `REINDEX { INDEX | TABLE } [CONCURRENTLY] name` and `DROP INDEX CONCURRENTLY`, which
//! sqlparser cannot read, rewritten before parsing into the DROP statement it reads with
//! a marker as the first part of the name (as `parse.rs` marks PostgreSQL's key locks):
//! the executor reads the marker back and runs the statement meant ([`marked`]); no
//! schema holds a name with the marker's colon.

use crate::pg::error::{PgError, PgResult};
use sqlparser::ast::ObjectName;
use sqlparser::tokenizer::{Token, Tokenizer};

/// What a marked DROP stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marked {
    Reindex { concurrently: bool },
    DropConcurrently,
}

const REINDEX: &str = "amnesia:reindex";
const REINDEX_CONCURRENTLY: &str = "amnesia:reindex-concurrently";
const DROP_CONCURRENTLY: &str = "amnesia:drop-concurrently";

/// `sql` rewritten when it is one of the statements above; `None` when it is not.
pub(crate) fn rewrite(sql: &str) -> PgResult<Option<String>> {
    let head: Vec<String> = sql
        .split_whitespace()
        .take(3)
        .map(str::to_ascii_lowercase)
        .collect();
    let reindex = head.first().is_some_and(|w| w == "reindex");
    let drop = head.len() == 3 && head[..2] == ["drop", "index"] && head[2] == "concurrently";
    if !reindex && !drop {
        return Ok(None);
    }
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize() else {
        return Ok(None);
    };
    let words: Vec<(usize, String)> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t, Token::Whitespace(_)))
        .map(|(at, t)| match t {
            Token::Word(w) if w.quote_style.is_none() => (at, w.value.to_ascii_lowercase()),
            other => (at, other.to_string()),
        })
        .collect();
    let word = |i: usize| words.get(i).map_or("", |(_, w)| w.as_str());
    let (prefix, marker, name_at) = match (word(1), word(2)) {
        _ if drop => {
            let name_at = if word(3) == "if" && word(4) == "exists" {
                5
            } else {
                3
            };
            let prefix = if name_at == 5 {
                "DROP INDEX IF EXISTS"
            } else {
                "DROP INDEX"
            };
            (prefix, DROP_CONCURRENTLY, name_at)
        }
        ("index" | "table", "concurrently") => (kind(word(1)), REINDEX_CONCURRENTLY, 3),
        ("index" | "table", _) => (kind(word(1)), REINDEX, 2),
        _ => {
            return Err(PgError::unsupported(
                "REINDEX of a schema, a database, the system or with options",
            ))
        }
    };
    let Some((start, _)) = words.get(name_at) else {
        return Ok(None);
    };
    let rest: String = tokens[*start..].iter().map(Token::to_string).collect();
    Ok(Some(format!("{prefix} \"{marker}\".{rest}")))
}

fn kind(word: &str) -> &'static str {
    match word {
        "index" => "DROP INDEX",
        _ => "DROP TABLE",
    }
}

/// What a DROP's name stands for when it carries a marker, and the name without it.
pub(crate) fn marked(name: &ObjectName) -> Option<(Marked, ObjectName)> {
    let first = name.0.first()?.as_ident()?;
    let marked = match first.value.as_str() {
        REINDEX => Marked::Reindex {
            concurrently: false,
        },
        REINDEX_CONCURRENTLY => Marked::Reindex { concurrently: true },
        DROP_CONCURRENTLY => Marked::DropConcurrently,
        _ => return None,
    };
    Some((marked, ObjectName(name.0[1..].to_vec())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reindex_and_drop_concurrently_become_marked_drops() {
        let cases = [
            ("REINDEX INDEX t_v", "DROP INDEX \"amnesia:reindex\".t_v"),
            (
                "reindex table concurrently \"T\";",
                "DROP TABLE \"amnesia:reindex-concurrently\".\"T\";",
            ),
            (
                "DROP INDEX CONCURRENTLY IF EXISTS x",
                "DROP INDEX IF EXISTS \"amnesia:drop-concurrently\".x",
            ),
        ];
        for (sql, rewritten) in cases {
            assert_eq!(rewrite(sql).unwrap().as_deref(), Some(rewritten), "{sql}");
        }
        assert_eq!(rewrite("SELECT 1").unwrap(), None);
        assert!(rewrite("REINDEX SCHEMA public").is_err());
    }
}
