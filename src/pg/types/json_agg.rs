//! The JSON aggregates over their input rows, as PostgreSQL writes them: `json_agg` as
//! `[a, b]` (", " between elements, and a line break before each later array, each as
//! `to_json` writes it, NULL as `null`),
//! `json_object_agg` as `{ "k" : v, "k" : w }` (duplicate keys kept, in input order),
//! `jsonb_agg` and `jsonb_object_agg` as jsonb (the last of a duplicated key wins). Over
//! no rows each is NULL; the caller folds only when there is a row.

use crate::pg::error::*;
use crate::pg::types::jsonb::{object, Json};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};

/// Whether `name` is one of this file's aggregates.
pub(crate) fn knows(name: &str) -> bool {
    matches!(
        name,
        "json_agg" | "jsonb_agg" | "json_object_agg" | "jsonb_object_agg"
    )
}

/// The result type of this file's aggregate `name`.
pub(crate) fn result_type(name: &str) -> Type {
    match name {
        "json_agg" | "json_object_agg" => Type::Json,
        _ => Type::Jsonb,
    }
}

/// `name` over `rows` (each row its arguments' values, of `types`); at least one row.
pub(crate) fn fold(
    name: &str,
    types: &[Type],
    rows: Vec<Vec<Value>>,
    zone: &str,
) -> PgResult<Typed> {
    assert!(!rows.is_empty(), "a JSON aggregate over no rows is NULL");
    let arity = if name.contains("object") { 2 } else { 1 };
    if types.len() != arity {
        return Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!(
                "function {name} with {} arguments does not exist",
                types.len()
            ),
        ));
    }
    match name {
        "json_agg" => json_array(types[0], rows, zone),
        "jsonb_agg" => jsonb_array(types[0], rows, zone),
        "json_object_agg" => json_object(types, rows, zone),
        _ => jsonb_object(types, rows, zone),
    }
}

fn first(row: Vec<Value>) -> Value {
    row.into_iter().next().expect("one argument")
}

fn pair(row: Vec<Value>) -> (Value, Value) {
    let mut row = row.into_iter();
    let key = row.next().expect("a key");
    (key, row.next().expect("a value"))
}

/// A value as `to_json` writes it, NULL as `null`.
fn json_text(v: Value, t: Type, zone: &str) -> PgResult<String> {
    match v.is_null() {
        true => Ok("null".into()),
        false => crate::pg::types::json_build::value_text(v, t, zone),
    }
}

fn json_array(t: Type, rows: Vec<Vec<Value>>, zone: &str) -> PgResult<Typed> {
    let mut out = String::from("[");
    for (at, row) in rows.into_iter().enumerate() {
        let value = first(row);
        if at > 0 {
            out.push_str(", ");
            // PostgreSQL's json_agg_transfn breaks the line before a later non-NULL array.
            if t.element().is_some() && !value.is_null() {
                out.push_str("\n ");
            }
        }
        out.push_str(&json_text(value, t, zone)?);
        bounded(&out)?;
    }
    out.push(']');
    crate::pg::types::json_build::json(out)
}

fn jsonb_array(t: Type, rows: Vec<Vec<Value>>, zone: &str) -> PgResult<Typed> {
    let mut items = Vec::with_capacity(rows.len());
    for row in rows {
        items.push(crate::pg::types::jsonb_build::value_to_json(
            first(row),
            t,
            zone,
        )?);
    }
    crate::pg::types::jsonb_build::jsonb(Json::Array(items))
}

fn json_object(types: &[Type], rows: Vec<Vec<Value>>, zone: &str) -> PgResult<Typed> {
    let mut out = String::from("{ ");
    for (at, row) in rows.into_iter().enumerate() {
        let (key, value) = pair(row);
        if at > 0 {
            out.push_str(", ");
        }
        let key = crate::pg::types::json_build::key_text(Typed::new(key, types[0]), zone)?;
        crate::pg::types::jsonb::write_string(&mut out, &key);
        out.push_str(" : ");
        out.push_str(&json_text(value, types[1], zone)?);
        bounded(&out)?;
    }
    out.push_str(" }");
    crate::pg::types::json_build::json(out)
}

fn jsonb_object(types: &[Type], rows: Vec<Vec<Value>>, zone: &str) -> PgResult<Typed> {
    let mut pairs = Vec::with_capacity(rows.len());
    for row in rows {
        let (key, value) = pair(row);
        let key = crate::pg::types::jsonb_build::key_text(2, Typed::new(key, types[0]), zone)?;
        let value = crate::pg::types::jsonb_build::value_to_json(value, types[1], zone)?;
        pairs.push((key, value));
    }
    crate::pg::types::jsonb_build::jsonb(object(pairs))
}

/// A text being built stays within the model's bound on a value (checked as it grows,
/// so a huge group fails early rather than after building it whole).
fn bounded(text: &str) -> PgResult<()> {
    match text.len() > crate::pg::types::pg_type::VALUE_BYTES_MAX {
        true => Err(PgError::new(
            PROGRAM_LIMIT_EXCEEDED,
            "json longer than the model's bound on a value",
        )),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(t: PgResult<Typed>) -> String {
        match t.expect("folded").v {
            Value::Text(s) => s,
            Value::Jsonb(j) => crate::pg::types::jsonb::format(&j),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn json_agg_separates_with_comma_space_and_keeps_nulls() {
        let rows = vec![vec![Value::Int(1)], vec![Value::Null], vec![Value::Int(2)]];
        assert_eq!(
            text_of(fold("json_agg", &[Type::Int4], rows, "UTC")),
            "[1, null, 2]"
        );
        let arrays = vec![
            vec![Value::Array(vec![Value::Int(1)])],
            vec![Value::Null],
            vec![Value::Array(vec![])],
        ];
        let got = text_of(fold("json_agg", &[Type::Int4Array], arrays, "UTC"));
        assert_eq!(got, "[[1], null, \n []]");
    }

    #[test]
    fn json_object_agg_keeps_duplicates_jsonb_keeps_the_last() {
        let rows = || {
            vec![
                vec![Value::Text("b".into()), Value::Int(1)],
                vec![Value::Text("a".into()), Value::Null],
                vec![Value::Text("b".into()), Value::Int(3)],
            ]
        };
        let types = [Type::Text, Type::Int4];
        assert_eq!(
            text_of(fold("json_object_agg", &types, rows(), "UTC")),
            r#"{ "b" : 1, "a" : null, "b" : 3 }"#
        );
        assert_eq!(
            text_of(fold("jsonb_object_agg", &types, rows(), "UTC")),
            r#"{"a": null, "b": 3}"#
        );
    }
}
