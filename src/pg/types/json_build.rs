//! The `json` functions: `to_json` and `json_build_object` as PostgreSQL writes them
//! (`datum_to_json`: `{"k" : v, …}`, arrays `[a,b]` without spaces, json as written, jsonb
//! as it prints, a float as its text unless that is no JSON number, timestamptz in ISO
//! 8601, other types as the string of their text output), `json_typeof` and
//! `json_array_length`, which read a stored text without unescaping it.

use crate::pg::error::*;
use crate::pg::types::jsonb::Json;
use crate::pg::types::jsonb_parse::{parse_with, Build};
use crate::pg::types::pg_type::{Type, VALUE_BYTES_MAX};
use crate::pg::types::value::{Typed, Value};
use std::ops::Range;

/// Arguments a function call may have (PostgreSQL's `FUNC_MAX_ARGS`).
const FUNCTION_ARGS_MAX: usize = 100;

/// Whether `name` is one of this file's functions.
pub(crate) fn knows(name: &str) -> bool {
    matches!(
        name,
        "to_json" | "json_build_object" | "json_typeof" | "json_array_length"
    )
}

/// The result type of this file's function `name`.
pub(crate) fn return_type(name: &str) -> Type {
    match name {
        "json_typeof" => Type::Text,
        "json_array_length" => Type::Int4,
        _ => Type::Json,
    }
}

/// The argument types of this file's function `name` (`None`: any).
pub(crate) fn argument_type(name: &str) -> Option<Type> {
    matches!(name, "json_typeof" | "json_array_length").then_some(Type::Json)
}

/// `name(args)` of this file's functions; `zone` is the session's `TimeZone`.
pub(crate) fn call(name: &str, args: Vec<Typed>, zone: &str) -> PgResult<Typed> {
    match (name, args.len()) {
        ("to_json", 1) => {
            let arg = args.into_iter().next().expect("one argument");
            match arg.v.is_null() {
                true => Ok(Typed::null(Type::Json)),
                false => json(value_text(arg.v, arg.t, zone)?),
            }
        }
        ("json_build_object", _) => build_object(args, zone),
        ("json_typeof", 1) => typeof_(args),
        ("json_array_length", 1) => array_length(args),
        (name, n) => Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("function {name} with {n} arguments does not exist"),
        )),
    }
}

/// A made json text as a SQL value, once it is within the model's bound.
pub(crate) fn json(text: String) -> PgResult<Typed> {
    if text.len() > VALUE_BYTES_MAX {
        return Err(PgError::new(
            PROGRAM_LIMIT_EXCEEDED,
            format!("json longer than the model's {VALUE_BYTES_MAX} bytes"),
        ));
    }
    Ok(Typed::new(Value::Text(text), Type::Json))
}

/// `json_build_object(k1, v1, …)`: keys as strings (never NULL, never a container).
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
    let mut out = String::from("{");
    let mut args = args.into_iter();
    while let (Some(key), Some(value)) = (args.next(), args.next()) {
        if out.len() > 1 {
            out.push_str(", ");
        }
        crate::pg::types::jsonb::write_string(&mut out, &key_text(key, zone)?);
        out.push_str(" : ");
        out.push_str(&match value.v.is_null() {
            true => "null".to_string(),
            false => value_text(value.v, value.t, zone)?,
        });
    }
    out.push('}');
    json(out)
}

pub(crate) fn key_text(key: Typed, zone: &str) -> PgResult<String> {
    if key.v.is_null() {
        return Err(PgError::new(
            NULL_VALUE_NOT_ALLOWED,
            "null value not allowed for object key",
        ));
    }
    if matches!(key.t, Type::Json | Type::Jsonb) || key.t.element().is_some() {
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "key value must be scalar, not array, composite, or json",
        ));
    }
    scalar_text(&key.v, key.t, zone)
}

/// A scalar's text as JSON holds it (unquoted): what its text output is, but ISO 8601
/// for a timestamptz and a timestamp.
fn scalar_text(v: &Value, t: Type, zone: &str) -> PgResult<String> {
    match (v, t) {
        (_, Type::Numeric) => Err(PgError::unsupported("a numeric value made json")),
        (Value::Timestamptz(us), _) => crate::pg::types::json_time::iso(*us, zone),
        (Value::Timestamp(us), _) => Ok(crate::pg::types::json_time::iso_local(*us)),
        (Value::Bool(b), _) => Ok(b.to_string()),
        (v, t) => Ok(crate::pg::types::text::format(v, t).unwrap_or_default()),
    }
}

/// A non-NULL value of type `t` as `to_json` writes it.
pub(crate) fn value_text(v: Value, t: Type, zone: &str) -> PgResult<String> {
    let text = match (v, t) {
        (Value::Text(text), Type::Json) => text,
        (Value::Jsonb(json), _) => crate::pg::types::jsonb::format(&json),
        (Value::Bool(b), _) => b.to_string(),
        (Value::Int(i), _) => i.to_string(),
        (v @ Value::Float(_), t) => {
            let text = scalar_text(&v, t, zone)?;
            match crate::pg::types::jsonb_parse::parse(&text) {
                Ok(Json::Number(_)) => text,
                _ => quoted(&text),
            }
        }
        (Value::Array(items), t) => {
            let element = t.element().unwrap_or(Type::Text);
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                parts.push(match item.is_null() {
                    true => "null".to_string(),
                    false => value_text(item, element, zone)?,
                });
            }
            format!("[{}]", parts.join(","))
        }
        (v, t) => quoted(&scalar_text(&v, t, zone)?),
    };
    Ok(text)
}

fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    crate::pg::types::jsonb::write_string(&mut out, text);
    out
}

/// The one argument as json (an untyped literal read as json); `None` for NULL.
fn one_json(args: Vec<Typed>) -> PgResult<Option<String>> {
    let arg = args.into_iter().next().expect("one argument");
    if arg.t == Type::Jsonb {
        return Err(PgError::new(
            UNDEFINED_FUNCTION,
            "function json_typeof(jsonb) does not exist",
        ));
    }
    match crate::pg::types::cast::cast(arg, Type::Json, None)?.v {
        Value::Text(text) => Ok(Some(text)),
        _ => Ok(None),
    }
}

fn typeof_(args: Vec<Typed>) -> PgResult<Typed> {
    let Some(text) = one_json(args)? else {
        return Ok(Typed::null(Type::Text));
    };
    // The text is valid JSON: its first token names its kind.
    let name = match text.trim_start_matches([' ', '\t', '\n', '\r']).as_bytes() {
        [b'{', ..] => "object",
        [b'[', ..] => "array",
        [b'"', ..] => "string",
        [b't' | b'f', ..] => "boolean",
        [b'n', ..] => "null",
        _ => "number",
    };
    Ok(Typed::new(Value::Text(name.into()), Type::Text))
}

/// What `json_array_length` learns of a value: an array's length, or its kind.
enum Shape {
    Scalar,
    Array(usize),
    Object,
}

/// `json_array_length`'s walk: escapes are not unescaped.
struct Shapes;

impl Build for Shapes {
    type Node = Shape;
    const UNESCAPE: bool = false;

    fn scalar(&mut self, _: Json, _: Range<usize>) -> PgResult<Shape> {
        Ok(Shape::Scalar)
    }

    fn number(&mut self, _: &str, _: Range<usize>) -> PgResult<Shape> {
        Ok(Shape::Scalar)
    }

    fn array(&mut self, items: Vec<Shape>, _: Range<usize>) -> Shape {
        Shape::Array(items.len())
    }

    fn object(&mut self, _: Vec<(String, Shape)>, _: Range<usize>) -> Shape {
        Shape::Object
    }
}

fn array_length(args: Vec<Typed>) -> PgResult<Typed> {
    let Some(text) = one_json(args)? else {
        return Ok(Typed::null(Type::Int4));
    };
    match parse_with(&text, &mut Shapes)? {
        Shape::Array(n) => Ok(Typed::new(Value::Int(n as i64), Type::Int4)),
        Shape::Object => Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "cannot get array length of a non-array",
        )),
        Shape::Scalar => Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "cannot get array length of a scalar",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Typed {
        Typed::new(Value::Text(s.into()), Type::Text)
    }

    fn made(t: PgResult<Typed>) -> String {
        match t.expect("made").v {
            Value::Text(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn build_object_writes_postgres_layout() {
        let args = vec![
            text("a"),
            Typed::null(Type::Text),
            text("b"),
            Typed::new(
                Value::Array(vec![Value::Int(1), Value::Null]),
                Type::Int4Array,
            ),
            text("c"),
            Typed::new(Value::Float(1e20), Type::Float8),
            text("d"),
            Typed::new(Value::Float(f64::NAN), Type::Float8),
            Typed::new(Value::Int(1), Type::Int4),
            Typed::new(Value::Text(r#"{"z" : 1}"#.into()), Type::Json),
        ];
        assert_eq!(
            made(build_object(args, "UTC")),
            r#"{"a" : null, "b" : [1,null], "c" : 1e+20, "d" : "NaN", "1" : {"z" : 1}}"#
        );
        let null_key = build_object(vec![Typed::null(Type::Text), text("v")], "UTC");
        assert_eq!(null_key.unwrap_err().code, NULL_VALUE_NOT_ALLOWED);
    }

    #[test]
    fn typeof_and_length_read_without_unescaping() {
        let json = |s: &str| vec![Typed::new(Value::Text(s.into()), Type::Json)];
        assert_eq!(made(typeof_(json(r#" {"a": "\u0000"}"#))), "object");
        let length = array_length(json(r#"[1, "\u0000", [2]]"#)).expect("an array");
        assert_eq!(length.v, Value::Int(3));
        assert!(array_length(json("{}")).is_err());
    }
}
