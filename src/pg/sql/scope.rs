//! What a name in a query can refer to: the FROM items in scope ([`Source`]: each one's
//! alias and columns, and where they start in a joined row) and how a column reference
//! resolves among them, with PostgreSQL's errors for an unknown or ambiguous column.

use crate::pg::error::*;
use crate::pg::sql::names::ident;
use crate::pg::types::pg_type::Type;
use sqlparser::ast::Expr;

/// One FROM item's columns, and where they start in a joined row.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    pub alias: String,
    pub columns: Vec<(String, Type)>,
    pub offset: usize,
}

/// The alias of a subquery in FROM without one (PostgreSQL 16 on): no qualifier can name
/// it, and two of them are no repeated name.
pub(crate) const UNNAMED: &str = "";

/// PostgreSQL's system columns, which every table has and the model keeps none of.
const SYSTEM_COLUMNS: [&str; 6] = ["ctid", "xmin", "xmax", "cmin", "cmax", "tableoid"];

/// Whether `name` is a system column's (refused where a column of that name is missing).
pub(crate) fn is_system_column(name: &str) -> bool {
    SYSTEM_COLUMNS.contains(&name)
}

pub(crate) fn undefined_column(parts: &[String]) -> PgError {
    if parts.last().is_some_and(|n| is_system_column(n)) {
        return PgError::unsupported("system columns (ctid, xmin, …)");
    }
    match parts {
        [table, column] => PgError::new(
            UNDEFINED_COLUMN,
            format!("column {table}.{column} does not exist"),
        ),
        _ => PgError::new(
            UNDEFINED_COLUMN,
            format!("column \"{}\" does not exist", parts.join(".")),
        ),
    }
}

/// A qualifier that names no FROM item in scope.
pub(crate) fn missing_from_entry(qualifier: &str) -> PgError {
    PgError::new(
        UNDEFINED_TABLE,
        format!("missing FROM-clause entry for table \"{qualifier}\""),
    )
}

/// A name no column has but a FROM item's (`json_agg(m)`, `to_jsonb(t)`): PostgreSQL
/// reads it as the whole row, a composite value the model does not have (0A000).
pub(crate) fn refuse_whole_row(sources: &[Source], parts: &[String]) -> PgResult<()> {
    match parts {
        [name] if sources.iter().any(|s| &s.alias == name) => Err(PgError::unsupported(format!(
            "the whole-row reference {name}"
        ))),
        _ => Ok(()),
    }
}

/// Where `parts` is in a row of `sources`: `None` if no source has it.
pub(crate) fn resolve(sources: &[Source], parts: &[String]) -> PgResult<Option<(usize, Type)>> {
    let (qualifier, name) = match parts {
        [name] => (None, name),
        [qualifier, name] => (Some(qualifier), name),
        _ => {
            return Err(PgError::unsupported(
                "a column reference with more than two parts",
            ))
        }
    };
    if let Some(q) = qualifier {
        if !sources.iter().any(|s| &s.alias == q) {
            return Ok(None);
        }
    }
    let mut found = None;
    for source in sources
        .iter()
        .filter(|s| qualifier.is_none_or(|q| &s.alias == q))
    {
        if let Some(i) = source.columns.iter().position(|(n, _)| n == name) {
            if found.is_some() {
                return Err(PgError::new(
                    AMBIGUOUS_COLUMN,
                    format!("column reference \"{name}\" is ambiguous"),
                ));
            }
            found = Some((source.offset + i, source.columns[i].1));
        }
    }
    Ok(found)
}

/// Where in the FROM row a column reference (`id`, `t.id`) reads, when it names exactly
/// one column of `sources`.
pub(crate) fn column_at(sources: &[Source], e: &Expr) -> Option<usize> {
    let parts: Vec<String> = match e {
        Expr::Identifier(i) => vec![ident(i)],
        Expr::CompoundIdentifier(parts) => parts.iter().map(ident).collect(),
        _ => return None,
    };
    let (alias, name) = match parts.as_slice() {
        [name] => (None, name),
        [alias, name] => (Some(alias), name),
        _ => return None,
    };
    let mut found = sources
        .iter()
        .filter(|s| alias.is_none_or(|a| *a == s.alias))
        .flat_map(|s| {
            s.columns
                .iter()
                .enumerate()
                .filter(|(_, (n, _))| n == name)
                .map(move |(at, _)| s.offset + at)
        });
    match (found.next(), found.next()) {
        (Some(at), None) => Some(at),
        _ => None,
    }
}
