//! The few catalog queries a client sends on its own: tokio-postgres looks up a type it
//! does not know (pgvector's `vector`) in `pg_catalog.pg_type`. The model answers that
//! one query shape from its fixed type list; any other catalog query is refused.

use crate::pg::error::*;
use crate::pg::exec::Rows;
use crate::pg::expr::Typed;
use crate::pg::session::Outcome;
use crate::pg::types::{Type, Value, VECTOR_OID};
use sqlparser::ast::{SetExpr, Statement, TableFactor};

/// The columns of tokio-postgres's type lookup (`typeinfo`).
fn typeinfo_columns() -> Vec<(String, Type)> {
    [
        ("typname", Type::Name),
        ("typtype", Type::Char),
        ("typelem", Type::Oid),
        ("rngsubtype", Type::Oid),
        ("typbasetype", Type::Oid),
        ("nspname", Type::Name),
        ("typrelid", Type::Oid),
    ]
    .into_iter()
    .map(|(n, t)| (n.to_string(), t))
    .collect()
}

fn is_catalog_sql(sql: &str) -> bool {
    sql.contains("pg_catalog.pg_type")
}

/// Parse and Describe of a catalog query: its parameters and columns.
pub(crate) fn describe(sql: &str) -> Option<crate::pg::Described> {
    if !is_catalog_sql(sql) {
        return None;
    }
    Some((vec![Type::Oid], Some(typeinfo_columns())))
}

fn reads_catalog(statement: &Statement) -> bool {
    let Statement::Query(query) = statement else {
        return false;
    };
    let SetExpr::Select(select) = &*query.body else {
        return false;
    };
    select.from.iter().any(|item| matches!(&item.relation, TableFactor::Table { name, .. } if name.to_string().starts_with("pg_catalog.pg_type")))
}

/// The type lookup's answer for the OID in `params`.
pub(crate) fn run(statement: &Statement, params: &[Typed]) -> Option<Outcome> {
    if !reads_catalog(statement) {
        return None;
    }
    let oid = match params.first().map(|p| &p.v) {
        Some(Value::Int(oid)) => *oid as u32,
        _ => 0,
    };
    let mut rows = Rows {
        columns: typeinfo_columns(),
        rows: Vec::new(),
    };
    if let Some(t) = Type::from_oid(oid) {
        let (kind, element) = match t.element() {
            Some(e) => ("b", e.oid()),
            None => ("b", 0),
        };
        let name = if oid == VECTOR_OID {
            "vector".to_string()
        } else {
            t.typname().to_string()
        };
        let namespace = if oid == VECTOR_OID {
            "public"
        } else {
            "pg_catalog"
        };
        rows.rows.push(vec![
            Value::Text(name),
            Value::Text(kind.into()),
            Value::Int(element as i64),
            Value::Null,
            Value::Int(0),
            Value::Text(namespace.into()),
            Value::Int(0),
        ]);
    }
    let tag = format!("SELECT {}", rows.rows.len());
    Some(Outcome {
        rows: Some(rows),
        tag,
        warning: None,
    })
}

/// The highest `$n` in `sql`, outside strings, quoted names and comments.
pub(crate) fn placeholders(sql: &str) -> usize {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let Ok(tokens) = sqlparser::tokenizer::Tokenizer::new(&dialect, sql).tokenize() else {
        return 0;
    };
    tokens
        .iter()
        .filter_map(|t| match t {
            sqlparser::tokenizer::Token::Placeholder(p) => {
                p.strip_prefix('$')?.parse::<usize>().ok()
            }
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .min(crate::pg::PARAMS_MAX)
}

#[allow(dead_code)]
fn refused() -> PgError {
    PgError::new(UNDEFINED_TABLE, "the model has no catalog tables")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tokio-postgres's `typeinfo` query, as it sends it.
    const TYPEINFO_QUERY: &str = "SELECT t.typname, t.typtype, t.typelem, r.rngsubtype, \
        t.typbasetype, n.nspname, t.typrelid FROM pg_catalog.pg_type t \
        LEFT OUTER JOIN pg_catalog.pg_range r ON r.rngtypid = t.oid \
        INNER JOIN pg_catalog.pg_namespace n ON t.typnamespace = n.oid WHERE t.oid = $1";

    fn lookup(oid: u32) -> Vec<Vec<Value>> {
        let statement = crate::pg::parse(TYPEINFO_QUERY).expect("parses").remove(0);
        let param = Typed::new(Value::Int(oid as i64), Type::Oid);
        let outcome = run(&statement, &[param]).expect("a catalog query");
        outcome.rows.expect("rows").rows
    }

    #[test]
    fn uuid_and_jsonb_types_are_found_with_their_arrays() {
        let text = |s: &str| Value::Text(s.into());
        for (oid, name, element) in [
            (2950, "uuid", 0),
            (3802, "jsonb", 0),
            (2951, "_uuid", 2950),
            (3807, "_jsonb", 3802),
        ] {
            let rows = lookup(oid);
            assert_eq!(rows.len(), 1, "{oid}");
            assert_eq!(rows[0][0], text(name));
            assert_eq!(rows[0][1], text("b"));
            assert_eq!(rows[0][2], Value::Int(element));
            assert_eq!(rows[0][5], text("pg_catalog"));
        }
        assert!(lookup(1).is_empty());
    }
}
