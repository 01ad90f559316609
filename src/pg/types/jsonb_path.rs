//! jsonb's path and deletion operators as PostgreSQL defines them: `#>` and `#>>` (a
//! value at a path of keys and indexes), `#-` (the value without the one at a path), `-`
//! (without a key, an index or a set of keys), `?|` and `?&` (any or all of a set of
//! keys exist); and the operand and result types of these and of `json`'s operators.
//! A path step is an array index when it reads as `strtoint` reads an int4.

use crate::pg::error::{
    PgError, PgResult, INVALID_PARAMETER_VALUE, INVALID_TEXT_REPRESENTATION, NULL_VALUE_NOT_ALLOWED,
};
use crate::pg::types::jsonb::Json;
use crate::pg::types::jsonb_ops::{as_text, element, exists};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::Value;
use sqlparser::ast::BinaryOperator;

/// The result type of this file's operators and of json's, `None` for the others.
pub(crate) fn result_type(op: &BinaryOperator, l: Type, r: Type) -> Option<Type> {
    use BinaryOperator::*;
    let index_or_key = r.is_text() || matches!(r, Type::Int2 | Type::Int4);
    let t = match (op, l, r) {
        (Arrow, Type::Json, _) if index_or_key => Type::Json,
        (LongArrow, Type::Json, _) if index_or_key => Type::Text,
        (HashArrow, Type::Json | Type::Jsonb, Type::TextArray) => l,
        (HashLongArrow, Type::Json | Type::Jsonb, Type::TextArray) => Type::Text,
        (HashMinus, Type::Jsonb, Type::TextArray) => Type::Jsonb,
        (Minus, Type::Jsonb, r) if index_or_key || r == Type::TextArray => Type::Jsonb,
        (QuestionPipe | QuestionAnd, Type::Jsonb, Type::TextArray) => Type::Bool,
        _ => return None,
    };
    Some(t)
}

/// The type an untyped right operand of `op` takes beside a json or jsonb left one.
pub(crate) fn unknown_operand_type(op: &BinaryOperator, other: Type) -> Option<Type> {
    use BinaryOperator::*;
    match (op, other) {
        (HashArrow | HashLongArrow, Type::Json | Type::Jsonb) => Some(Type::TextArray),
        (HashMinus | QuestionPipe | QuestionAnd, Type::Jsonb) => Some(Type::TextArray),
        // PostgreSQL prefers the string category: `- 'k'` is a key, `-> 'k'` too.
        (Minus, Type::Jsonb) | (Arrow | LongArrow, Type::Json) => Some(Type::Text),
        _ => None,
    }
}

/// Whether `l op r` is one of this file's jsonb operators.
pub(crate) fn is_operator(op: &BinaryOperator, l: Type, r: Type) -> bool {
    l == Type::Jsonb && !matches!(op, BinaryOperator::Arrow) && result_type(op, l, r).is_some()
}

/// `a op b` for a jsonb `a` and a non-NULL `b` of the type `result_type` accepted.
pub(crate) fn apply(op: &BinaryOperator, a: Json, b: Value) -> PgResult<Value> {
    use BinaryOperator::*;
    let jsonb = |j: Json| Value::Jsonb(Box::new(j));
    let v = match (op, b) {
        (HashArrow, Value::Array(steps)) => get(&a, &steps).cloned().map_or(Value::Null, jsonb),
        (HashLongArrow, Value::Array(steps)) => get(&a, &steps)
            .and_then(as_text)
            .map_or(Value::Null, Value::Text),
        (HashMinus, Value::Array(steps)) => jsonb(delete_path(a, &steps)?),
        (Minus, Value::Text(key)) => jsonb(delete_keys(a, &[Value::Text(key)])?),
        (Minus, Value::Array(keys)) => jsonb(delete_keys(a, &keys)?),
        (Minus, Value::Int(index)) => jsonb(delete_index(a, index)?),
        (QuestionPipe, Value::Array(keys)) => Value::Bool(texts(&keys).any(|k| exists(&a, k))),
        (QuestionAnd, Value::Array(keys)) => Value::Bool(texts(&keys).all(|k| exists(&a, k))),
        (op, b) => unreachable!("jsonb {op} {b:?} passed result_type"),
    };
    Ok(v)
}

/// The non-NULL texts of a text[] (`?|`, `?&` and `-` skip NULLs).
fn texts(items: &[Value]) -> impl Iterator<Item = &str> {
    items.iter().filter_map(|v| match v {
        Value::Text(s) => Some(s.as_str()),
        _ => None,
    })
}

/// A path step as an array index: `strtoint`'s reading (leading white space, a sign,
/// digits, nothing after), `None` when it is no int4.
pub(crate) fn path_index(step: &str) -> Option<i64> {
    let trimmed = step.trim_start_matches([' ', '\t', '\n', '\r', '\u{b}', '\u{c}']);
    let digits = trimmed.strip_prefix(['+', '-']).unwrap_or(trimmed);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = trimmed.strip_prefix('+').unwrap_or(trimmed).parse().ok()?;
    i32::try_from(n).ok().map(i64::from)
}

/// `json #> steps`: a NULL step, a missing key or index, or a step into a scalar selects
/// nothing; no steps select the whole value.
fn get<'j>(json: &'j Json, steps: &[Value]) -> Option<&'j Json> {
    let mut at = json;
    for step in steps {
        let Value::Text(step) = step else {
            return None;
        };
        at = match at {
            Json::Object(_) => at.get(step)?,
            Json::Array(_) => element(at, path_index(step)?)?,
            _ => return None,
        };
    }
    Some(at)
}

fn scalar_error(what: &str) -> PgError {
    PgError::new(INVALID_PARAMETER_VALUE, format!("cannot delete {what}"))
}

/// `json - key` and `json - keys`: an object without those keys, an array without the
/// strings equal to one.
fn delete_keys(json: Json, keys: &[Value]) -> PgResult<Json> {
    let gone = |k: &str| texts(keys).any(|key| key == k);
    match json {
        Json::Object(pairs) => Ok(Json::Object(
            pairs.into_iter().filter(|(k, _)| !gone(k)).collect(),
        )),
        Json::Array(items) => Ok(Json::Array(
            items
                .into_iter()
                .filter(|item| !matches!(item, Json::String(s) if gone(s)))
                .collect(),
        )),
        _ => Err(scalar_error("from scalar")),
    }
}

/// `json - index`: an array without one element (from the end when negative; out of
/// range changes nothing).
fn delete_index(json: Json, index: i64) -> PgResult<Json> {
    match json {
        Json::Array(mut items) => {
            if let Some(at) = resolve_index(items.len(), index) {
                items.remove(at);
            }
            Ok(Json::Array(items))
        }
        Json::Object(_) => Err(scalar_error("from object using integer index")),
        _ => Err(scalar_error("from scalar")),
    }
}

fn resolve_index(len: usize, index: i64) -> Option<usize> {
    let at = match index < 0 {
        true => (len as i64).checked_add(index)?,
        false => index,
    };
    usize::try_from(at).ok().filter(|at| *at < len)
}

/// `json #- steps` (`jsonb_delete_path`): a top-level scalar refused, an empty container
/// or path returned as it is.
fn delete_path(json: Json, steps: &[Value]) -> PgResult<Json> {
    let empty = match &json {
        Json::Array(items) => items.is_empty(),
        Json::Object(pairs) => pairs.is_empty(),
        _ => {
            return Err(PgError::new(
                INVALID_PARAMETER_VALUE,
                "cannot delete path in scalar",
            ))
        }
    };
    if empty || steps.is_empty() {
        return Ok(json);
    }
    delete_at(json, steps, 0)
}

/// `setPath` with `JB_PATH_DELETE` at `level`: a NULL step fails once reached, an array
/// step that is no integer fails, a missing key or index or a scalar changes nothing.
fn delete_at(json: Json, steps: &[Value], level: usize) -> PgResult<Json> {
    let position = level + 1;
    let Value::Text(step) = &steps[level] else {
        return Err(PgError::new(
            NULL_VALUE_NOT_ALLOWED,
            format!("path element at position {position} is null"),
        ));
    };
    let last = level + 1 == steps.len();
    match json {
        Json::Object(mut pairs) => {
            if let Some(at) = pairs.iter().position(|(k, _)| k == step) {
                match last {
                    true => drop(pairs.remove(at)),
                    false => {
                        let value = std::mem::replace(&mut pairs[at].1, Json::Null);
                        pairs[at].1 = delete_at(value, steps, level + 1)?;
                    }
                }
            }
            Ok(Json::Object(pairs))
        }
        Json::Array(mut items) => {
            let index = path_index(step).ok_or_else(|| {
                PgError::new(
                    INVALID_TEXT_REPRESENTATION,
                    format!("path element at position {position} is not an integer: \"{step}\""),
                )
            })?;
            if let Some(at) = resolve_index(items.len(), index) {
                match last {
                    true => drop(items.remove(at)),
                    false => {
                        let value = std::mem::replace(&mut items[at], Json::Null);
                        items[at] = delete_at(value, steps, level + 1)?;
                    }
                }
            }
            Ok(Json::Array(items))
        }
        scalar => Ok(scalar),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::types::jsonb::format;
    use crate::pg::types::jsonb_parse::parse;

    fn j(text: &str) -> Json {
        parse(text).expect("valid JSON")
    }

    fn path(steps: &[Option<&str>]) -> Value {
        Value::Array(
            steps
                .iter()
                .map(|s| s.map_or(Value::Null, |s| Value::Text(s.into())))
                .collect(),
        )
    }

    fn run(op: BinaryOperator, json: &str, b: Value) -> PgResult<String> {
        Ok(match apply(&op, j(json), b)? {
            Value::Jsonb(j) => format(&j),
            other => format!("{other:?}"),
        })
    }

    #[test]
    fn indexes_read_as_strtoint() {
        assert_eq!(path_index(" 01"), Some(1));
        assert_eq!(path_index("+1"), Some(1));
        assert_eq!(path_index("-1"), Some(-1));
        assert_eq!(path_index("1x"), None);
        assert_eq!(path_index("1 "), None);
        assert_eq!(path_index(""), None);
        assert_eq!(path_index("99999999999"), None);
    }

    #[test]
    fn paths_select_and_delete() {
        let doc = r#"{"a":{"b":[1,2,3]}}"#;
        let hash = || BinaryOperator::HashArrow;
        assert_eq!(
            run(hash(), doc, path(&[Some("a"), Some("b"), Some("-1")])).unwrap(),
            "3"
        );
        assert_eq!(run(hash(), doc, path(&[Some("a"), None])).unwrap(), "Null");
        let minus = || BinaryOperator::HashMinus;
        assert_eq!(
            run(minus(), doc, path(&[Some("a"), Some("b"), Some("1")])).unwrap(),
            r#"{"a": {"b": [1, 3]}}"#
        );
        let not_integer = run(minus(), doc, path(&[Some("a"), Some("b"), Some("x")]));
        assert_eq!(not_integer.unwrap_err().code, INVALID_TEXT_REPRESENTATION);
        let null = run(minus(), doc, path(&[Some("a"), None]));
        assert_eq!(null.unwrap_err().code, NULL_VALUE_NOT_ALLOWED);
        assert_eq!(run(minus(), "[]", path(&[Some("a")])).unwrap(), "[]");
    }

    #[test]
    fn deletion_and_existence() {
        let keys = path(&[Some("a"), None, Some("c")]);
        let minus = || BinaryOperator::Minus;
        assert_eq!(
            run(minus(), r#"{"a":1,"b":2,"c":3}"#, keys.clone()).unwrap(),
            r#"{"b": 2}"#
        );
        assert_eq!(
            run(minus(), r#"["a","b","a",1]"#, Value::Text("a".into())).unwrap(),
            r#"["b", 1]"#
        );
        assert_eq!(run(minus(), "[1,2,3]", Value::Int(-1)).unwrap(), "[1, 2]");
        assert!(run(minus(), r#"{"a":1}"#, Value::Int(0)).is_err());
        assert!(run(minus(), r#""a""#, Value::Text("a".into())).is_err());
        let any = run(BinaryOperator::QuestionPipe, r#"{"c":1}"#, keys.clone());
        assert_eq!(any.unwrap(), "Bool(true)");
        let all = run(BinaryOperator::QuestionAnd, r#"{"c":1}"#, keys);
        assert_eq!(all.unwrap(), "Bool(false)");
    }
}
