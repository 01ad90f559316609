//! SQL values made jsonb, as PostgreSQL's `to_jsonb` makes them (`datum_to_jsonb`):
//! booleans and numbers as themselves (a float's NaN or infinity as a string), text as a
//! string, jsonb as it is, arrays element by element, other types as the string of their
//! text output (but a timestamptz in ISO 8601, `json_time.rs`). The functions `to_jsonb`,
//! `jsonb_build_object`, `jsonb_typeof` and `jsonb_array_length` are here.

use crate::pg::error::*;
use crate::pg::types::json_number;
use crate::pg::types::jsonb::{object, Json};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};

/// Arguments a function call may have (PostgreSQL's `FUNC_MAX_ARGS`).
const FUNCTION_ARGS_MAX: usize = 100;

/// `name(args)` of this file's functions (`name` is one [`knows`]); `zone` is the
/// session's `TimeZone`.
pub(crate) fn call(name: &str, args: Vec<Typed>, zone: &str) -> PgResult<Typed> {
    match (name, args.len()) {
        ("to_jsonb", 1) => to_jsonb(args, zone),
        ("jsonb_build_object", _) => build_object(args, zone),
        ("jsonb_typeof", 1) => typeof_(args),
        ("jsonb_array_length", 1) => array_length(args),
        (name, n) => Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("function {name} with {n} arguments does not exist"),
        )),
    }
}

/// Whether `name` is one of this file's functions.
pub(crate) fn knows(name: &str) -> bool {
    matches!(
        name,
        "to_jsonb" | "jsonb_build_object" | "jsonb_typeof" | "jsonb_array_length"
    )
}

/// The result type of this file's function `name`.
pub(crate) fn return_type(name: &str) -> Type {
    match name {
        "jsonb_typeof" => Type::Text,
        "jsonb_array_length" => Type::Int4,
        _ => Type::Jsonb,
    }
}

/// A made jsonb as a SQL value, once it is within the model's bounds.
pub(crate) fn jsonb(json: Json) -> PgResult<Typed> {
    let json = crate::pg::types::jsonb::bounded(json)?;
    Ok(Typed::new(Value::Jsonb(Box::new(json)), Type::Jsonb))
}

fn to_jsonb(args: Vec<Typed>, zone: &str) -> PgResult<Typed> {
    let arg = args.into_iter().next().expect("one argument");
    if arg.v.is_null() {
        return Ok(Typed::null(Type::Jsonb));
    }
    jsonb(value_to_json(arg.v, arg.t, zone)?)
}

/// `jsonb_build_object(k1, v1, k2, v2, …)`: keys as text (never NULL), values as
/// `to_jsonb` makes them, the last of a duplicated key kept.
fn build_object(args: Vec<Typed>, zone: &str) -> PgResult<Typed> {
    if args.len() > FUNCTION_ARGS_MAX {
        return Err(PgError::new(
            "54023",
            format!("cannot pass more than {FUNCTION_ARGS_MAX} arguments to a function"),
        ));
    }
    if args.len() % 2 != 0 {
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "argument list must have even number of elements",
        ));
    }
    let mut pairs = Vec::with_capacity(args.len() / 2);
    let mut args = args.into_iter().enumerate();
    while let (Some((at, key)), Some((_, value))) = (args.next(), args.next()) {
        let key = key_text(at + 1, key, zone)?;
        pairs.push((key, value_to_json(value.v, value.t, zone)?));
    }
    jsonb(object(pairs))
}

/// An object key: any scalar's text output.
pub(crate) fn key_text(position: usize, key: Typed, zone: &str) -> PgResult<String> {
    if key.v.is_null() {
        // PostgreSQL 18 raises this with invalid_parameter_value, not null_value_not_allowed.
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            format!("argument {position}: key must not be null"),
        ));
    }
    if matches!(key.t, Type::Jsonb | Type::Json) || key.t.element().is_some() {
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "key value must be scalar, not array, composite, or json",
        ));
    }
    match key.v {
        Value::Timestamptz(us) => crate::pg::types::json_time::iso(us, zone),
        Value::Timestamp(us) => Ok(crate::pg::types::json_time::iso_local(us)),
        Value::Bool(b) => Ok(b.to_string()),
        v => Ok(crate::pg::types::text::format(&v, key.t).unwrap_or_default()),
    }
}

/// A non-NULL-typed value of type `t` as `to_jsonb` makes it.
pub(crate) fn value_to_json(v: Value, t: Type, zone: &str) -> PgResult<Json> {
    let json = match v {
        Value::Null => Json::Null,
        Value::Text(text) if t == Type::Json => crate::pg::types::jsonb_parse::parse(&text)?,
        Value::Timestamptz(us) => Json::String(crate::pg::types::json_time::iso(us, zone)?),
        Value::Timestamp(us) => Json::String(crate::pg::types::json_time::iso_local(us)),
        Value::Bool(b) => Json::Bool(b),
        Value::Jsonb(json) => *json,
        Value::Int(i) => Json::Number(i.to_string()),
        Value::Float(_) | Value::Numeric(_) => float_to_json(&v, t)?,
        Value::Text(s) => Json::String(s),
        Value::Array(items) => {
            let element = t.element().unwrap_or(Type::Text);
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(value_to_json(item, element, zone)?);
            }
            Json::Array(out)
        }
        other => Json::String(crate::pg::types::text::format(&other, t).unwrap_or_default()),
    };
    Ok(json)
}

/// A float's output text as a number, or as a string when it is no JSON number (`NaN`,
/// `Infinity`).
fn float_to_json(v: &Value, t: Type) -> PgResult<Json> {
    let text = crate::pg::types::text::format(v, t).unwrap_or_default();
    if text.contains(['N', 'n']) {
        return Ok(Json::String(text));
    }
    Ok(Json::Number(json_number::normalise(&text)?))
}

/// The one argument as jsonb (an untyped literal read as jsonb); `None` for NULL.
fn one_jsonb(args: Vec<Typed>) -> PgResult<Option<Json>> {
    let arg = args.into_iter().next().expect("one argument");
    if arg.t == Type::Json {
        return Err(PgError::new(
            UNDEFINED_FUNCTION,
            "function jsonb_typeof(json) does not exist",
        ));
    }
    match crate::pg::types::cast::cast(arg, Type::Jsonb, None)?.v {
        Value::Jsonb(json) => Ok(Some(*json)),
        _ => Ok(None),
    }
}

fn typeof_(args: Vec<Typed>) -> PgResult<Typed> {
    let Some(json) = one_jsonb(args)? else {
        return Ok(Typed::null(Type::Text));
    };
    let name = match json {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    };
    Ok(Typed::new(Value::Text(name.into()), Type::Text))
}

fn array_length(args: Vec<Typed>) -> PgResult<Typed> {
    let Some(json) = one_jsonb(args)? else {
        return Ok(Typed::null(Type::Int4));
    };
    match json {
        Json::Array(items) => Ok(Typed::new(Value::Int(items.len() as i64), Type::Int4)),
        Json::Object(_) => Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "cannot get array length of a non-array",
        )),
        _ => Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "cannot get array length of a scalar",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::types::jsonb::format;

    fn text(s: &str) -> Typed {
        Typed::new(Value::Text(s.into()), Type::Text)
    }

    #[test]
    fn build_object_converts_each_value() {
        let args = vec![
            text("b"),
            Typed::new(Value::Float(f64::NAN), Type::Float8),
            text("a"),
            Typed::new(
                Value::Array(vec![Value::Int(1), Value::Null]),
                Type::Int4Array,
            ),
            text("c"),
            Typed::new(Value::Float(1e20), Type::Float8),
            text("a"),
            Typed::null(Type::Text),
        ];
        let Ok(Typed {
            v: Value::Jsonb(json),
            ..
        }) = build_object(args, "UTC")
        else {
            panic!("an object");
        };
        assert_eq!(
            format(&json),
            r#"{"a": null, "b": "NaN", "c": 100000000000000000000}"#
        );
    }

    #[test]
    fn build_object_refuses_bad_keys() {
        let odd = build_object(vec![text("a")], "UTC").unwrap_err();
        assert_eq!(odd.code, INVALID_PARAMETER_VALUE);
        let null_key = build_object(vec![Typed::null(Type::Text), text("v")], "UTC").unwrap_err();
        assert_eq!(null_key.code, INVALID_PARAMETER_VALUE);
        assert_eq!(null_key.message, "argument 1: key must not be null");
    }
}
