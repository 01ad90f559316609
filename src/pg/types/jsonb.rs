//! The `jsonb` value as PostgreSQL keeps it: objects with unique keys (the last of a
//! duplicate wins) stored shorter key first, then bytewise; numbers as `numeric`; text
//! output with PostgreSQL's spacing (`{"a": 1, "b": [1, 2]}`); the binary form (version
//! byte 1, then the text); and the btree order of `ORDER BY` and `=`. Text input is
//! `jsonb_parse.rs`, the operators `jsonb_ops.rs`.

use crate::pg::error::{PgError, PgResult, PROGRAM_LIMIT_EXCEEDED};
use crate::pg::types::json_number;
use crate::pg::types::pg_type::VALUE_BYTES_MAX;
use std::cmp::Ordering;

/// The version byte of jsonb's binary form (`jsonb_send`).
pub(crate) const BINARY_VERSION: u8 = 1;
/// Nesting levels a jsonb value may have in the model (PostgreSQL's bound is its stack
/// depth): every walk over a value recurses, so the bound keeps each one shallow.
pub(crate) const DEPTH_MAX: usize = 512;

/// A jsonb value. The top level may be a scalar (PostgreSQL's "raw scalar").
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// numeric_out's text of the number (`json_number::normalise`).
    Number(String),
    String(String),
    Array(Vec<Json>),
    /// Keys unique, in jsonb's storage order ([`key_order`]).
    Object(Vec<(String, Json)>),
}

/// jsonb's storage order of object keys: shorter first, then bytewise.
pub(crate) fn key_order(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// An object of `pairs` in any order: sorted into storage order, the last of each
/// duplicated key kept (PostgreSQL's `uniqueifyJsonbObject`).
pub(crate) fn object(mut pairs: Vec<(String, Json)>) -> Json {
    // A stable sort keeps duplicates in input order, so the last of a run is the last given.
    pairs.sort_by(|a, b| key_order(&a.0, &b.0));
    let mut unique: Vec<(String, Json)> = Vec::with_capacity(pairs.len());
    for pair in pairs {
        match unique.last_mut() {
            Some(last) if last.0 == pair.0 => *last = pair,
            _ => unique.push(pair),
        }
    }
    Json::Object(unique)
}

impl Json {
    /// The value under `key` of an object (`None` for a missing key or a non-object).
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        let Json::Object(pairs) = self else {
            return None;
        };
        pairs
            .binary_search_by(|(k, _)| key_order(k, key))
            .ok()
            .map(|at| &pairs[at].1)
    }

    pub(crate) fn is_scalar(&self) -> bool {
        !matches!(self, Json::Array(_) | Json::Object(_))
    }

    /// The rank of the value's kind in jsonb's order: null < string < number < boolean
    /// < array < object.
    fn kind_rank(&self) -> u8 {
        match self {
            Json::Null => 0,
            Json::String(_) => 1,
            Json::Number(_) => 2,
            Json::Bool(_) => 3,
            Json::Array(_) => 4,
            Json::Object(_) => 5,
        }
    }
}

/// A jsonb an operator or a function made, held to the bounds text input is held to:
/// `||` and `jsonb_build_object` may double a value's size, or nest it a level deeper,
/// each time a statement applies them to a stored value.
pub(crate) fn bounded(json: Json) -> PgResult<Json> {
    if depth(&json) > DEPTH_MAX {
        // PostgreSQL goes deeper (to its stack depth, then 54001): beyond the model's
        // bound the value is refused, not answered with an error PostgreSQL would not raise.
        return Err(PgError::unsupported(format!(
            "jsonb nested deeper than {DEPTH_MAX} levels"
        )));
    }
    if format(&json).len() > VALUE_BYTES_MAX {
        return Err(PgError::new(
            PROGRAM_LIMIT_EXCEEDED,
            format!("jsonb longer than the model's {VALUE_BYTES_MAX} bytes"),
        ));
    }
    Ok(json)
}

/// Containers nested in `json` (0 for a scalar); its parts are within the bound already,
/// so the recursion is at most one level past it.
fn depth(json: &Json) -> usize {
    let deepest = |values: &mut dyn Iterator<Item = &Json>| values.map(depth).max().unwrap_or(0);
    match json {
        Json::Array(items) => 1 + deepest(&mut items.iter()),
        Json::Object(pairs) => 1 + deepest(&mut pairs.iter().map(|(_, v)| v)),
        _ => 0,
    }
}

/// `json` as `jsonb_out` prints it.
pub(crate) fn format(json: &Json) -> String {
    let mut out = String::new();
    write(&mut out, json);
    out
}

fn write(out: &mut String, json: &Json) {
    match json {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::String(s) => write_string(out, s),
        Json::Array(items) => {
            out.push('[');
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push_str(", ");
                }
                write(out, item);
            }
            out.push(']');
        }
        Json::Object(pairs) => {
            out.push('{');
            for (at, (key, value)) in pairs.iter().enumerate() {
                if at > 0 {
                    out.push_str(", ");
                }
                write_string(out, key);
                out.push_str(": ");
                write(out, value);
            }
            out.push('}');
        }
    }
}

/// A string quoted as PostgreSQL's `escape_json` quotes it: the short escapes, other
/// control characters as `\u00XX`, everything else (`/`, non-ASCII) as it is.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The btree order of two jsonb values (`compareJsonbContainers`).
pub(crate) fn compare(a: &Json, b: &Json) -> Ordering {
    match (a.is_scalar(), b.is_scalar()) {
        // A top-level scalar is a one-element array that sorts before a real one of the
        // same length; element counts come first (so `[]` sorts before `null`).
        (true, false) | (false, true) => {
            let (count_a, count_b) = (root_count(a), root_count(b));
            let scalar_first = if a.is_scalar() {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            match (a, b) {
                (Json::Object(_), _) | (_, Json::Object(_)) => a.kind_rank().cmp(&b.kind_rank()),
                _ => count_a.cmp(&count_b).then(scalar_first),
            }
        }
        _ => compare_nested(a, b),
    }
}

fn root_count(json: &Json) -> usize {
    match json {
        Json::Array(items) => items.len(),
        Json::Object(pairs) => pairs.len(),
        _ => 1,
    }
}

/// Two values inside containers (or two top-level values of the same shape).
fn compare_nested(a: &Json, b: &Json) -> Ordering {
    match (a, b) {
        (Json::Array(x), Json::Array(y)) => x.len().cmp(&y.len()).then_with(|| {
            x.iter()
                .zip(y)
                .map(|(p, q)| compare_nested(p, q))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        }),
        (Json::Object(x), Json::Object(y)) => x.len().cmp(&y.len()).then_with(|| {
            x.iter()
                .zip(y)
                .map(|((ka, va), (kb, vb))| {
                    ka.as_bytes()
                        .cmp(kb.as_bytes())
                        .then_with(|| compare_nested(va, vb))
                })
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        }),
        _ => compare_scalars(a, b),
    }
}

fn compare_scalars(a: &Json, b: &Json) -> Ordering {
    match (a, b) {
        (Json::Null, Json::Null) => Ordering::Equal,
        (Json::Bool(x), Json::Bool(y)) => x.cmp(y),
        (Json::Number(x), Json::Number(y)) => json_number::compare(x, y),
        (Json::String(x), Json::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => a.kind_rank().cmp(&b.kind_rank()),
    }
}

/// Two scalars equal as jsonb's containment and `?` compare them (numbers by value).
pub(crate) fn scalars_equal(a: &Json, b: &Json) -> bool {
    a.is_scalar() && b.is_scalar() && compare_scalars(a, b).is_eq()
}

/// jsonb's binary form: the version byte, then the text.
pub(crate) fn encode_binary(json: &Json) -> Vec<u8> {
    let mut out = vec![BINARY_VERSION];
    out.extend(format(json).into_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::error::FEATURE_NOT_SUPPORTED;

    fn num(n: &str) -> Json {
        Json::Number(n.into())
    }

    #[test]
    fn objects_keep_the_last_duplicate_in_storage_order() {
        let pairs = vec![
            ("bb".to_string(), num("1")),
            ("a".to_string(), num("2")),
            ("c".to_string(), num("3")),
            ("a".to_string(), num("4")),
        ];
        let json = object(pairs);
        assert_eq!(format(&json), r#"{"a": 4, "c": 3, "bb": 1}"#);
        assert_eq!(json.get("bb"), Some(&num("1")));
        assert_eq!(json.get("zz"), None);
    }

    #[test]
    fn made_values_are_bounded() {
        let mut json = Json::Null;
        for _ in 0..DEPTH_MAX {
            json = Json::Array(vec![json]);
        }
        let json = bounded(json).expect("at the bound");
        let deeper = bounded(Json::Array(vec![json])).unwrap_err();
        assert_eq!(
            deeper.code, FEATURE_NOT_SUPPORTED,
            "refused: PostgreSQL goes deeper"
        );
        let long = Json::String("x".repeat(VALUE_BYTES_MAX));
        assert_eq!(bounded(long).unwrap_err().code, PROGRAM_LIMIT_EXCEEDED);
    }

    #[test]
    fn strings_are_escaped_as_escape_json() {
        let json = Json::String("a\"\\\n\u{1}/é".into());
        assert_eq!(format(&json), r#""a\"\\\n\u0001/é""#);
    }

    #[test]
    fn order_follows_compare_jsonb_containers() {
        let empty = Json::Array(vec![]);
        assert_eq!(compare(&empty, &Json::Null), Ordering::Less);
        assert_eq!(compare(&num("1.0"), &num("1")), Ordering::Equal);
        assert_eq!(compare(&Json::Bool(false), &num("9")), Ordering::Greater);
        let one = Json::Array(vec![num("1")]);
        assert_eq!(compare(&num("1"), &one), Ordering::Less);
        let two = Json::Array(vec![num("1"), num("2")]);
        assert_eq!(compare(&num("5"), &two), Ordering::Less);
        let object = Json::Object(vec![]);
        assert_eq!(compare(&object, &two), Ordering::Greater);
        assert_eq!(
            compare(&Json::String("b".into()), &num("1")),
            Ordering::Less
        );
    }
}
