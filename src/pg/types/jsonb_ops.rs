//! jsonb's operators as PostgreSQL defines them: `->` and `->>` (an object's key, an
//! array's index, negative from the end), `@>` and `<@` (containment, with
//! `JsonbDeepContains`'s rules: a top-level scalar is a one-element array, so an array
//! contains a scalar it holds), `?` (a top-level key or string element) and `||`
//! (objects merged, anything else concatenated as arrays), and the casts of a scalar to
//! `boolean`, the integers and the floats. Every walk is bounded by the
//! values' nesting ([`crate::pg::types::jsonb::DEPTH_MAX`]).

use crate::pg::error::{
    PgError, PgResult, INVALID_PARAMETER_VALUE, NUMERIC_VALUE_OUT_OF_RANGE, UNDEFINED_FUNCTION,
};
use crate::pg::types::jsonb::{object, scalars_equal, Json};
use crate::pg::types::pg_type::{fit_integer, Type};
use crate::pg::types::value::Value;
use sqlparser::ast::BinaryOperator;

/// Whether `l op r` is one of jsonb's operators (jsonb || text is text's concatenation).
pub(crate) fn is_operator(op: &BinaryOperator, l: Type, r: Type) -> bool {
    use BinaryOperator::*;
    match op {
        StringConcat => l == Type::Jsonb && r == Type::Jsonb,
        Arrow | LongArrow | AtArrow | ArrowAt | Question => l == Type::Jsonb,
        _ => false,
    }
}

/// `a op b` for a jsonb `a` (the operand types already checked by `ops::result_type`).
pub(crate) fn apply(op: &BinaryOperator, a: Json, b: Value) -> PgResult<Value> {
    let selected = |a: &Json, b: &Value| match b {
        Value::Text(key) => field(a, key).cloned(),
        Value::Int(index) => element(a, *index).cloned(),
        _ => None,
    };
    let v = match (op, b) {
        (BinaryOperator::Arrow, b) => {
            selected(&a, &b).map_or(Value::Null, |j| Value::Jsonb(Box::new(j)))
        }
        (BinaryOperator::LongArrow, b) => selected(&a, &b)
            .and_then(|j| as_text(&j))
            .map_or(Value::Null, Value::Text),
        (BinaryOperator::AtArrow, Value::Jsonb(b)) => Value::Bool(contains(&a, &b)),
        (BinaryOperator::ArrowAt, Value::Jsonb(b)) => Value::Bool(contains(&b, &a)),
        (BinaryOperator::Question, Value::Text(key)) => Value::Bool(exists(&a, &key)),
        (BinaryOperator::StringConcat, Value::Jsonb(b)) => {
            Value::Jsonb(Box::new(crate::pg::types::jsonb::bounded(concat(a, *b))?))
        }
        (op, _) => {
            return Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!("operator does not exist: jsonb {op} unknown"),
            ))
        }
    };
    Ok(v)
}

/// `json -> key`: an object's value (`None`: SQL NULL).
pub(crate) fn field<'j>(json: &'j Json, key: &str) -> Option<&'j Json> {
    json.get(key)
}

/// `json -> index`: an array's element, counted from the end when negative. A top-level
/// scalar is a one-element array to PostgreSQL (`'5'::jsonb -> 0` is `5`).
pub(crate) fn element(json: &Json, index: i64) -> Option<&Json> {
    let items = match json {
        Json::Array(items) => items.as_slice(),
        Json::Object(_) => return None,
        scalar => std::slice::from_ref(scalar),
    };
    let at = if index < 0 {
        (items.len() as i64).checked_add(index)?
    } else {
        index
    };
    usize::try_from(at).ok().and_then(|at| items.get(at))
}

/// `->>`'s text of a value: a string unquoted, JSON null as SQL NULL, anything else as
/// jsonb prints it.
pub(crate) fn as_text(json: &Json) -> Option<String> {
    match json {
        Json::Null => None,
        Json::String(s) => Some(s.clone()),
        other => Some(crate::pg::types::jsonb::format(other)),
    }
}

/// `a @> b`.
pub(crate) fn contains(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(_), Json::Object(_)) => contains_nested(a, b),
        (Json::Object(_), _) | (_, Json::Object(_)) => false,
        (Json::Array(items), Json::Array(wanted)) => array_contains(items, wanted),
        (Json::Array(items), scalar) => array_contains(items, std::slice::from_ref(scalar)),
        // A top-level scalar never contains an array, only an equal scalar.
        (_, Json::Array(_)) => false,
        (x, y) => scalars_equal(x, y),
    }
}

/// Containment below the top level: containers of one kind, or equal scalars.
fn contains_nested(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(pairs), Json::Object(wanted)) => {
            pairs.len() >= wanted.len()
                && wanted.iter().all(|(key, value)| {
                    a.get(key).is_some_and(|have| match have.is_scalar() {
                        true => scalars_equal(have, value),
                        false => contains_nested(have, value),
                    })
                })
        }
        (Json::Array(items), Json::Array(wanted)) => array_contains(items, wanted),
        (x, y) => scalars_equal(x, y),
    }
}

/// Every element of `wanted` is in `items`: a scalar equal to one, a container contained
/// in one (an O(n²) search, as PostgreSQL's).
fn array_contains(items: &[Json], wanted: &[Json]) -> bool {
    wanted.iter().all(|want| match want.is_scalar() {
        true => items.iter().any(|item| scalars_equal(item, want)),
        false => items
            .iter()
            .any(|item| !item.is_scalar() && contains_nested(item, want)),
    })
}

/// `json ? key`: a top-level key, or a top-level string element (a string scalar is a
/// one-element array).
pub(crate) fn exists(json: &Json, key: &str) -> bool {
    match json {
        Json::Object(_) => json.get(key).is_some(),
        Json::Array(items) => items
            .iter()
            .any(|item| matches!(item, Json::String(s) if s == key)),
        Json::String(s) => s == key,
        _ => false,
    }
}

/// `a || b`: two objects merged (`b`'s value wins), anything else concatenated as arrays
/// (a scalar is a one-element array, an object beside an array one element).
pub(crate) fn concat(a: Json, b: Json) -> Json {
    match (a, b) {
        (Json::Object(mut x), Json::Object(y)) => {
            x.extend(y);
            object(x)
        }
        (a, b) => {
            let mut items = into_elements(a);
            items.extend(into_elements(b));
            Json::Array(items)
        }
    }
}

fn into_elements(json: Json) -> Vec<Json> {
    match json {
        Json::Array(items) => items,
        other => vec![other],
    }
}

/// `json::t` for a boolean, integer or float `t` (`jsonb_bool`, `jsonb_int4`, …): a JSON
/// null is SQL NULL, a number is rounded half away from zero for an integer.
pub(crate) fn to_scalar(json: &Json, t: Type) -> PgResult<Value> {
    let refuse = |kind: &str| {
        PgError::new(
            INVALID_PARAMETER_VALUE,
            format!("cannot cast jsonb {kind} to type {}", t.name()),
        )
    };
    match (json, t) {
        (Json::Null, _) => Ok(Value::Null),
        (Json::Bool(b), Type::Bool) => Ok(Value::Bool(*b)),
        (Json::Number(n), t) if t.is_integer() => {
            let out_of_range = || {
                PgError::new(
                    NUMERIC_VALUE_OUT_OF_RANGE,
                    format!("{} out of range", t.name()),
                )
            };
            let rounded = crate::pg::types::json_number::round(n).ok_or_else(out_of_range)?;
            let value = i64::try_from(rounded).map_err(|_| out_of_range())?;
            Ok(Value::Int(fit_integer(value, t)?))
        }
        (Json::Number(n), Type::Float4 | Type::Float8) => number_to_float(n, t),
        (Json::Bool(_), _) => Err(refuse("boolean")),
        (Json::Number(_), _) => Err(refuse("numeric")),
        (Json::String(_), _) => Err(refuse("string")),
        (Json::Array(_), _) => Err(refuse("array")),
        (Json::Object(_), _) => Err(refuse("object")),
    }
}

/// numeric_float8 / numeric_float4: the digits read as a float, out of range when they
/// overflow or underflow it.
fn number_to_float(n: &str, t: Type) -> PgResult<Value> {
    let out_of_range = || {
        PgError::new(
            NUMERIC_VALUE_OUT_OF_RANGE,
            format!("\"{n}\" is out of range for type {}", t.name()),
        )
    };
    let zero = n.bytes().all(|b| matches!(b, b'0' | b'.' | b'-'));
    let value = match t {
        Type::Float4 => n.parse::<f32>().map(f64::from),
        _ => n.parse::<f64>(),
    }
    .map_err(|_| out_of_range())?;
    if value.is_infinite() || (value == 0.0 && !zero) {
        return Err(out_of_range());
    }
    Ok(Value::Float(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::types::jsonb::format;
    use crate::pg::types::jsonb_parse::parse;

    fn j(text: &str) -> Json {
        parse(text).expect("valid JSON")
    }

    #[test]
    fn containment_follows_jsonb_deep_contains() {
        assert!(contains(
            &j(r#"{"a":1,"b":{"c":[1,2]}}"#),
            &j(r#"{"b":{"c":[2]}}"#)
        ));
        assert!(!contains(&j(r#"{"a":1}"#), &j(r#"{"a":1,"b":2}"#)));
        assert!(contains(&j("[1,2,3]"), &j("[3,1,1]")));
        assert!(contains(&j(r#"["foo","bar"]"#), &j(r#""foo""#)));
        assert!(!contains(&j(r#""foo""#), &j(r#"["foo"]"#)));
        assert!(contains(&j("[1,[2,3]]"), &j("[[3]]")));
        assert!(!contains(&j("[1,[2,3]]"), &j("[3]")));
        assert!(contains(&j("1.0"), &j("1")));
        assert!(!contains(&j(r#"{"a":[1]}"#), &j(r#"{"a":1}"#)));
        assert!(!contains(&j("[]"), &j("{}")));
        assert!(contains(&j("[{\"a\":1,\"b\":2}]"), &j("[{\"a\":1}]")));
    }

    #[test]
    fn access_and_existence() {
        let json = j(r#"{"a":[10,20,30],"s":"x","n":null}"#);
        let array = field(&json, "a").expect("a");
        assert_eq!(element(array, -1), Some(&j("30")));
        assert_eq!(element(array, 3), None);
        assert_eq!(element(array, -4), None);
        assert_eq!(element(&j("5"), 0), Some(&j("5")));
        assert_eq!(as_text(field(&json, "s").expect("s")).as_deref(), Some("x"));
        assert_eq!(as_text(field(&json, "n").expect("n")), None);
        assert!(exists(&json, "a") && !exists(&json, "x"));
        assert!(exists(&j(r#"["x",1]"#), "x") && !exists(&j("[1]"), "1"));
    }

    #[test]
    fn concatenation() {
        let merged = concat(j(r#"{"a":1,"b":2}"#), j(r#"{"b":3}"#));
        assert_eq!(format(&merged), r#"{"a": 1, "b": 3}"#);
        assert_eq!(format(&concat(j("[1]"), j("2"))), "[1, 2]");
        assert_eq!(
            format(&concat(j(r#"{"a":1}"#), j("[2]"))),
            r#"[{"a": 1}, 2]"#
        );
        assert_eq!(format(&concat(j("1"), j("2"))), "[1, 2]");
    }
}
