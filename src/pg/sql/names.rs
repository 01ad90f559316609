//! Names as PostgreSQL reads them from the syntax tree: identifiers folded to lower case
//! unless quoted, qualified object names, a table's name (`public.` allowed), a SQL type's
//! spelling made one of the model's types, the comparison operators.

use crate::pg::error::*;
use crate::pg::types::value::Type;
use sqlparser::ast::BinaryOperator;

/// An identifier as PostgreSQL folds it: unquoted to lower case.
pub(crate) fn ident(i: &sqlparser::ast::Ident) -> String {
    match i.quote_style {
        Some(_) => i.value.clone(),
        None => i.value.to_lowercase(),
    }
}

pub(crate) fn object_name(name: &sqlparser::ast::ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|part| match part {
            sqlparser::ast::ObjectNamePart::Identifier(i) => ident(i),
            other => other.to_string().to_lowercase(),
        })
        .collect()
}

/// The type a SQL type name spells (`bigint`, `vector(64)`, `text[]`).
pub(crate) fn sql_type(data_type: &sqlparser::ast::DataType) -> PgResult<(Type, Option<u32>)> {
    let spelled = data_type.to_string().to_lowercase();
    let (base, array) = match spelled.strip_suffix("[]") {
        Some(base) => (base.to_string(), true),
        None => (spelled.clone(), false),
    };
    let (name, modifier) = match base.split_once('(') {
        Some((name, rest)) => (
            name.trim().to_string(),
            rest.trim_end_matches(')').trim().parse().ok(),
        ),
        None => (base.trim().to_string(), None),
    };
    let name = match name.as_str() {
        "timestamp with time zone" | "timestamptz" => "timestamptz".to_string(),
        "character varying" => "varchar".into(),
        "double" => "double precision".into(),
        other => other.to_string(),
    };
    let unknown = || PgError::new(UNDEFINED_OBJECT, format!("type \"{name}\" does not exist"));
    let (t, serial) = Type::from_sql_name(&name).ok_or_else(unknown)?;
    if serial && array {
        return Err(unknown());
    }
    let t = if array {
        t.array_of()
            .ok_or_else(|| PgError::unsupported(format!("type {spelled}")))?
    } else {
        t
    };
    let modifier = match (t, base.split_once('(')) {
        (Type::Numeric, Some((_, spelled))) => {
            Some(crate::pg::types::numeric_cast::typmod_spelled(spelled)?)
        }
        _ => modifier,
    };
    if let (Type::Vector | Type::VectorArray, Some(n)) = (t, modifier) {
        crate::pg::vector::value::typmod_in(n as i64)
            .map_err(|e| PgError::new(e.sqlstate, e.message))?;
    }
    Ok((t, modifier))
}

pub(crate) fn is_comparison(op: &BinaryOperator) -> bool {
    use BinaryOperator::*;
    matches!(op, Eq | NotEq | Lt | LtEq | Gt | GtEq)
}

pub(crate) fn table_name(name: &sqlparser::ast::ObjectName) -> PgResult<String> {
    match object_name(name).as_slice() {
        [table] => Ok(table.clone()),
        [schema, table] if schema == "public" => Ok(table.clone()),
        _ => Err(PgError::unsupported(format!("the relation name {name}"))),
    }
}
