//! PostgreSQL's `json` type: its text kept exactly as written (whitespace, key order,
//! duplicate keys), held as `Value::Text` beside `Type::Json`; input checked by the JSON
//! grammar (`jsonb_parse.rs`) without unescaping, as `json_in` checks it; binary form the
//! text's bytes. Its operators `->`, `->>`, `#>` and `#>>` walk a parse that keeps each
//! value's span, so a selected value prints as written in the source; that parse unescapes
//! every string, as PostgreSQL's does, so `\u0000` or a lone surrogate anywhere fails it.
//! `json` has no equality and no order (`=`, DISTINCT, GROUP BY, ORDER BY refuse it).

use crate::pg::error::{PgError, PgResult, UNDEFINED_FUNCTION};
use crate::pg::types::jsonb::Json;
use crate::pg::types::jsonb_parse::{parse_with, Build};
use crate::pg::types::value::Value;
use sqlparser::ast::BinaryOperator;
use std::ops::Range;

/// `text` as json: checked, kept as written.
pub(crate) fn parse(text: &str) -> PgResult<Value> {
    parse_with(text, &mut Validate)?;
    Ok(Value::Text(text.to_string()))
}

/// `json_in`'s check: the grammar only, escapes checked for their digits.
struct Validate;

impl Build for Validate {
    type Node = ();
    const UNESCAPE: bool = false;

    fn scalar(&mut self, _: Json, _: Range<usize>) -> PgResult<()> {
        Ok(())
    }

    fn number(&mut self, _: &str, _: Range<usize>) -> PgResult<()> {
        Ok(())
    }

    fn array(&mut self, _: Vec<()>, _: Range<usize>) {}

    fn object(&mut self, _: Vec<(String, ())>, _: Range<usize>) {}
}

/// A value of a json text, with where it stands in that text.
#[derive(Debug)]
pub(crate) struct Node {
    pub span: Range<usize>,
    pub kind: Kind,
}

#[derive(Debug)]
pub(crate) enum Kind {
    /// `null`, a boolean or a string (unescaped).
    Scalar(Json),
    Number,
    Array(Vec<Node>),
    /// In input order, duplicates kept.
    Object(Vec<(String, Node)>),
}

/// The walk PostgreSQL's json functions make: every string unescaped, spans kept.
struct Tree;

impl Build for Tree {
    type Node = Node;
    const UNESCAPE: bool = true;

    fn scalar(&mut self, json: Json, span: Range<usize>) -> PgResult<Node> {
        Ok(Node {
            span,
            kind: Kind::Scalar(json),
        })
    }

    fn number(&mut self, _: &str, span: Range<usize>) -> PgResult<Node> {
        Ok(Node {
            span,
            kind: Kind::Number,
        })
    }

    fn array(&mut self, items: Vec<Node>, span: Range<usize>) -> Node {
        Node {
            span,
            kind: Kind::Array(items),
        }
    }

    fn object(&mut self, pairs: Vec<(String, Node)>, span: Range<usize>) -> Node {
        Node {
            span,
            kind: Kind::Object(pairs),
        }
    }
}

/// A stored json text walked.
pub(crate) fn tree(text: &str) -> PgResult<Node> {
    parse_with(text, &mut Tree)
}

/// `json -> key`: an object's value under `key`, the last of duplicates (as PostgreSQL's
/// walk keeps overwriting its match).
pub(crate) fn field<'n>(node: &'n Node, key: &str) -> Option<&'n Node> {
    let Kind::Object(pairs) = &node.kind else {
        return None;
    };
    pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// `json -> index`: an array's element, from the end when negative; a scalar is no array.
pub(crate) fn element(node: &Node, index: i64) -> Option<&Node> {
    let Kind::Array(items) = &node.kind else {
        return None;
    };
    let at = match index < 0 {
        true => (items.len() as i64).checked_add(index)?,
        false => index,
    };
    usize::try_from(at).ok().and_then(|at| items.get(at))
}

/// `json #> path`: each step a key of an object or an index of an array; a NULL step
/// selects nothing.
pub(crate) fn path<'n>(node: &'n Node, steps: &[Value]) -> Option<&'n Node> {
    let mut at = node;
    for step in steps {
        let Value::Text(step) = step else {
            return None;
        };
        at = match &at.kind {
            Kind::Object(_) => field(at, step)?,
            Kind::Array(_) => element(at, crate::pg::types::jsonb_path::path_index(step)?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// The value as written in `text` (`->`, `#>`).
pub(crate) fn raw(text: &str, node: &Node) -> Value {
    Value::Text(text[node.span.clone()].to_string())
}

/// `->>`'s text: a string unescaped, `null` as SQL NULL, anything else as written.
pub(crate) fn as_text(text: &str, node: &Node) -> Value {
    match &node.kind {
        Kind::Scalar(Json::Null) => Value::Null,
        Kind::Scalar(Json::String(s)) => Value::Text(s.clone()),
        _ => raw(text, node),
    }
}

/// The operators json has, for operand types already checked by `ops::result_type`.
pub(crate) fn apply(op: &BinaryOperator, text: &str, b: Value) -> PgResult<Value> {
    let root = tree(text)?;
    let selected = match (op, &b) {
        (BinaryOperator::Arrow | BinaryOperator::LongArrow, Value::Text(key)) => field(&root, key),
        (BinaryOperator::Arrow | BinaryOperator::LongArrow, Value::Int(index)) => {
            element(&root, *index)
        }
        (BinaryOperator::HashArrow | BinaryOperator::HashLongArrow, Value::Array(steps)) => {
            path(&root, steps)
        }
        (op, _) => {
            return Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!("operator does not exist: json {op} unknown"),
            ))
        }
    };
    let Some(node) = selected else {
        return Ok(Value::Null);
    };
    Ok(match op {
        BinaryOperator::Arrow | BinaryOperator::HashArrow => raw(text, node),
        _ => as_text(text, node),
    })
}

/// PostgreSQL's error for `=` (and any comparison) on json.
pub(crate) fn no_equality(op: &BinaryOperator) -> PgError {
    PgError::new(
        UNDEFINED_FUNCTION,
        format!("operator does not exist: json {op} json"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::error::{INVALID_TEXT_REPRESENTATION, UNTRANSLATABLE_CHARACTER};

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn input_is_kept_as_written() {
        let written = r#" {"b": 1,  "a" : [1, 2 ], "a":3} "#;
        assert_eq!(parse(written).unwrap(), text(written));
        assert!(parse(r#"{"a": "\u0000", "b": "\ud800"}"#).is_ok());
        let bad = parse(r#"{"a"  1}"#).unwrap_err();
        assert_eq!(bad.code, INVALID_TEXT_REPRESENTATION);
        assert!(parse(r#""\uzzzz""#).is_err());
    }

    #[test]
    fn operators_select_the_text_as_written() {
        let doc = r#"{"b": "x\u00e9y",  "a" : [1,   2 ], "a": [3 ] }"#;
        let arrow = BinaryOperator::Arrow;
        assert_eq!(apply(&arrow, doc, text("a")).unwrap(), text("[3 ]"));
        assert_eq!(
            apply(&arrow, doc, text("b")).unwrap(),
            text(r#""x\u00e9y""#)
        );
        let long = BinaryOperator::LongArrow;
        assert_eq!(apply(&long, doc, text("b")).unwrap(), text("xéy"));
        assert_eq!(apply(&long, doc, Value::Int(0)).unwrap(), Value::Null);
        let path = Value::Array(vec![text("a"), text("-1")]);
        let hash = BinaryOperator::HashArrow;
        assert_eq!(apply(&hash, doc, path).unwrap(), text("3"));
        assert_eq!(
            apply(&hash, " [1] ", Value::Array(vec![])).unwrap(),
            text("[1]")
        );
        let nul = apply(&arrow, r#"{"a": 1, "b": "\u0000"}"#, text("a")).unwrap_err();
        assert_eq!(nul.code, UNTRANSLATABLE_CHARACTER);
    }
}
