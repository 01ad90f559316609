//! The few catalog queries a client sends on its own. tokio-postgres looks up a type it
//! does not know (pgvector's `vector`) by OID, joining `pg_type` to `pg_namespace` and
//! `pg_range`: the model answers that one query shape from its fixed type list. Other
//! clients read two catalog relations the model offers as rows: `pg_catalog.pg_type`
//! (`oid`, `typname`, the kind, category, element, base and array type: sqlx's lookups,
//! with `regtype`) and `information_schema.tables` (`table_schema`, `table_name`,
//! `table_type`: mem0's list of its tables). Their rows are what the model knows (its
//! types, its tables in `public`), so a `pg_type` query that finds none is refused rather
//! than answered: PostgreSQL's catalog holds types the model lacks.

use crate::pg::error::*;
use crate::pg::exec::context::{Outcome, Rows};
use crate::pg::sql::names::object_name;
use crate::pg::storage::db::Db;
use crate::pg::types::pg_type::{Type, VECTOR_ARRAY_OID, VECTOR_OID};
use crate::pg::types::regtype::typname;
use crate::pg::types::value::{Typed, Value};
use sqlparser::ast::{SetExpr, Statement, TableFactor, TableWithJoins};

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

/// tokio-postgres's typeinfo query (and its fallback without `pg_range`): the only one
/// joining `pg_type` to `pg_namespace`.
fn is_catalog_sql(sql: &str) -> bool {
    sql.contains("pg_catalog.pg_type") && sql.contains("pg_catalog.pg_namespace")
}

/// Parse and Describe of a catalog query: its parameters and columns.
pub(crate) fn describe(sql: &str) -> Option<crate::pg::exec::context::Described> {
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
    let names = |t: &TableWithJoins, relation: &str| {
        std::iter::once(&t.relation)
            .chain(t.joins.iter().map(|j| &j.relation))
            .any(|f| matches!(f, TableFactor::Table { name, .. } if name.to_string() == relation))
    };
    select.from.iter().any(|t| names(t, "pg_catalog.pg_type"))
        && select
            .from
            .iter()
            .any(|t| names(t, "pg_catalog.pg_namespace"))
}

/// A catalog relation's columns and rows, or `None` when `name` names none.
pub(crate) fn relation(db: &Db, name: &[String]) -> Option<Rows> {
    match name {
        [_, table] if is_relation(name) && table == "pg_type" => Some(pg_type()),
        [table] | [_, table] if is_relation(name) && table == "pg_extension" => {
            Some(pg_extension(db))
        }
        _ if is_relation(name) => Some(information_schema_tables(db)),
        _ => None,
    }
}

/// Whether a FROM clause reads `pg_type`, whose empty answer the model refuses (an empty
/// `information_schema.tables` is a database without tables, as PostgreSQL's is).
pub(crate) fn reads_pg_type(from: &[TableWithJoins]) -> bool {
    from.iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
        .any(|f| matches!(f, TableFactor::Table { name, .. } if object_name(name) == ["pg_catalog", "pg_type"]))
}

fn is_relation(name: &[String]) -> bool {
    matches!(name, [s, t] if s == "pg_catalog" && t == "pg_type" || s == "information_schema" && t == "tables")
        || matches!(name, [t] | [_, t] if t == "pg_extension" && (name.len() == 1 || name[0] == "pg_catalog"))
}

/// `pg_extension`: plpgsql (always there) and the extensions created. The OIDs and owner
/// are the model's own (PostgreSQL assigns them per installation).
fn pg_extension(db: &Db) -> Rows {
    let columns = [
        ("oid", Type::Oid),
        ("extname", Type::Name),
        ("extowner", Type::Oid),
        ("extnamespace", Type::Oid),
        ("extrelocatable", Type::Bool),
        ("extversion", Type::Text),
        ("extconfig", Type::OidArray),
        ("extcondition", Type::TextArray),
    ]
    .into_iter()
    .map(|(n, t)| (n.to_string(), t))
    .collect();
    // (name, oid, namespace, relocatable, version): pg_catalog is 11, public 2200.
    let known = [
        ("plpgsql", 12_771, 11, false, "1.0"),
        ("vector", VECTOR_OID as i64 - 1, 2200, true, "0.8.2"),
    ];
    let rows = known
        .iter()
        .filter(|(name, ..)| *name == "plpgsql" || db.extensions.contains(*name))
        .map(|(name, oid, namespace, relocatable, version)| {
            vec![
                Value::Int(*oid),
                Value::Text((*name).into()),
                Value::Int(10),
                Value::Int(*namespace),
                Value::Bool(*relocatable),
                Value::Text((*version).into()),
                Value::Null,
                Value::Null,
            ]
        })
        .collect();
    Rows { columns, rows }
}

/// The answer when a `pg_type` query finds no row: PostgreSQL may hold one the model lacks.
pub(crate) fn none_found() -> PgError {
    PgError::unsupported("a pg_type query finding a type the model does not know")
}

/// `pg_type`'s columns the model fills (sqlx reads the kind, category, element and base
/// type of a type it met by OID).
const PG_TYPE_COLUMNS: [(&str, Type); 8] = [
    ("oid", Type::Oid),
    ("typname", Type::Name),
    ("typtype", Type::Char),
    ("typcategory", Type::Char),
    ("typrelid", Type::Oid),
    ("typelem", Type::Oid),
    ("typbasetype", Type::Oid),
    ("typarray", Type::Oid),
];

fn pg_type() -> Rows {
    let columns = PG_TYPE_COLUMNS
        .iter()
        .map(|(name, t)| (name.to_string(), *t))
        .collect();
    let rows: Vec<Vec<Value>> = Type::all()
        .iter()
        .map(|t| {
            let element = match (t.element(), t) {
                (Some(e), _) => e.oid(),
                // name is a fixed array of char.
                (None, Type::Name) => Type::Char.oid(),
                (None, _) => 0,
            };
            let kind = if matches!(t, Type::Void | Type::Unknown) {
                "p"
            } else {
                "b"
            };
            pg_type_row(
                t.oid(),
                typname(*t),
                kind,
                category(*t),
                element,
                array_oid(*t),
            )
        })
        .collect();
    Rows { columns, rows }
}

fn pg_type_row(
    oid: u32,
    name: String,
    kind: &str,
    category: char,
    element: u32,
    array: u32,
) -> Vec<Value> {
    let oid_value = |oid: u32| Value::Int(i64::from(oid));
    vec![
        oid_value(oid),
        Value::Text(name),
        Value::Text(kind.into()),
        Value::Text(category.to_string()),
        oid_value(0),
        oid_value(element),
        oid_value(0),
        oid_value(array),
    ]
}

/// `pg_type.typcategory`, as PostgreSQL 18's catalog has it.
fn category(t: Type) -> char {
    match t {
        _ if t.element().is_some() => 'A',
        Type::Bool => 'B',
        Type::Timestamptz | Type::Timestamp | Type::Date => 'D',
        Type::Interval => 'T',
        Type::Text | Type::Varchar | Type::Name => 'S',
        Type::Char => 'Z',
        Type::Void => 'P',
        Type::Unknown => 'X',
        _ if t.is_numeric() || matches!(t, Type::Oid | Type::Regtype) => 'N',
        _ => 'U',
    }
}

/// `pg_type.typarray`: the OID of the array of `t` in PostgreSQL 18, whether or not
/// the model has that array type.
fn array_oid(t: Type) -> u32 {
    match t {
        Type::Bool => 1000,
        Type::Bytea => 1001,
        Type::Char => 1002,
        Type::Name => 1003,
        Type::Int2 => 1005,
        Type::Int4 => 1007,
        Type::Text => 1009,
        Type::Varchar => 1015,
        Type::Int8 => 1016,
        Type::Float4 => 1021,
        Type::Float8 => 1022,
        Type::Oid => 1028,
        Type::Timestamptz => 1185,
        Type::Timestamp => 1115,
        Type::Date => 1182,
        Type::Interval => 1187,
        Type::Numeric => 1231,
        Type::Regtype => 2211,
        Type::Uuid => 2951,
        Type::Jsonb => 3807,
        Type::Vector => VECTOR_ARRAY_OID,
        Type::Halfvec => crate::pg::types::pg_type::HALFVEC_ARRAY_OID,
        Type::Sparsevec => crate::pg::types::pg_type::SPARSEVEC_ARRAY_OID,
        _ => 0,
    }
}

fn information_schema_tables(db: &Db) -> Rows {
    let columns = ["table_schema", "table_name", "table_type"]
        .into_iter()
        .map(|n| (n.to_string(), Type::Name))
        .collect();
    let rows = db
        .tables
        .keys()
        .map(|name| {
            vec![
                Value::Text("public".into()),
                Value::Text(name.clone()),
                Value::Text("BASE TABLE".into()),
            ]
        })
        .collect();
    Rows { columns, rows }
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
        let name = typname(t);
        // pgvector's types live where `CREATE EXTENSION` put them.
        let namespace = match oid {
            VECTOR_OID | VECTOR_ARRAY_OID => "public",
            _ => "pg_catalog",
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
        let statement = crate::pg::sql::parse::parse(TYPEINFO_QUERY)
            .expect("parses")
            .remove(0);
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
