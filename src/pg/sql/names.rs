//! Names as PostgreSQL reads them from the syntax tree: identifiers folded to lower case
//! unless quoted, qualified object names, a table's name (`public.` allowed), a SQL type's
//! spelling made one of the model's types, the comparison operators, the literals typed
//! `unknown`.

use crate::pg::error::*;
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

/// The text of a numeric literal with a minus sign before it (`-9223372036854775808`),
/// which PostgreSQL's grammar folds into one constant (`doNegate`), so it takes the type
/// the negative number fits (`int4` for `-2147483648`), not the positive one's.
pub(crate) fn negated_number(
    op: &sqlparser::ast::UnaryOperator,
    e: &sqlparser::ast::Expr,
) -> Option<String> {
    use sqlparser::ast::{Expr, UnaryOperator, Value};
    // The raw parse tree has no node for parentheses, so `-(-9223372036854775808)` folds
    // twice into the one constant `9223372036854775808` (numeric), as `doNegate` does.
    let negate = |n: &str| match n.strip_prefix('-') {
        Some(positive) => positive.to_string(),
        None => format!("-{n}"),
    };
    match (op, e) {
        (UnaryOperator::Minus, Expr::Nested(inner)) => negated_number(op, inner),
        (UnaryOperator::Minus, Expr::Value(v)) => match &v.value {
            Value::Number(n, _) => Some(negate(n)),
            _ => None,
        },
        (UnaryOperator::Minus, Expr::UnaryOp { op: inner_op, expr }) => {
            negated_number(inner_op, expr).map(|n| negate(&n))
        }
        _ => None,
    }
}

/// A literal PostgreSQL types `unknown` until its context decides: a quoted string or
/// NULL.
pub(crate) fn is_unknown_literal(e: &sqlparser::ast::Expr) -> bool {
    match e {
        sqlparser::ast::Expr::Nested(inner) => is_unknown_literal(inner),
        sqlparser::ast::Expr::Value(v) => matches!(
            v.value,
            sqlparser::ast::Value::Null
                | sqlparser::ast::Value::SingleQuotedString(_)
                | sqlparser::ast::Value::DollarQuotedString(_)
                | sqlparser::ast::Value::EscapedStringLiteral(_)
        ),
        _ => false,
    }
}
