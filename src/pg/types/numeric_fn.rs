//! numeric's operators, functions and aggregates: `+ - * / %` on numeric (an integer
//! operand made numeric first), `round`, `abs`, and `sum`/`avg` as PostgreSQL computes
//! them (`sum(int8)`, `sum(numeric)` and every integer `avg` in numeric; `avg` divides
//! with `/`'s result scale).

use crate::pg::error::{PgError, PgResult, UNDEFINED_FUNCTION};
use crate::pg::types::numeric::Numeric;
use crate::pg::types::numeric_cast::as_numeric;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};
use sqlparser::ast::BinaryOperator;

fn boxed(n: Numeric) -> Value {
    Value::Numeric(Box::new(n))
}

/// The result type of `l op r` when it is numeric: an arithmetic operator between
/// numeric and numeric or an integer.
pub(crate) fn is_numeric_operation(op: &BinaryOperator, l: Type, r: Type) -> bool {
    use BinaryOperator::*;
    let operand = |t: Type| t == Type::Numeric || t.is_integer();
    matches!(op, Plus | Minus | Multiply | Divide | Modulo)
        && operand(l)
        && operand(r)
        && (l == Type::Numeric || r == Type::Numeric)
}

/// `l op r` in numeric (both operands integers or numerics, neither NULL).
pub(crate) fn arithmetic(op: &BinaryOperator, l: &Value, r: &Value) -> PgResult<Value> {
    let (Some(a), Some(b)) = (as_numeric(l), as_numeric(r)) else {
        unreachable!("numeric operands")
    };
    let result = match op {
        BinaryOperator::Plus => a.add(&b)?,
        BinaryOperator::Minus => a.sub(&b)?,
        BinaryOperator::Multiply => a.mul(&b)?,
        BinaryOperator::Divide => a.div(&b)?,
        BinaryOperator::Modulo => a.rem(&b)?,
        other => unreachable!("{other} is not arithmetic"),
    };
    Ok(boxed(result))
}

/// Whether `name(args…)` is a numeric function this file computes.
pub(crate) fn knows(name: &str, args: &[Typed]) -> bool {
    match (name, args) {
        ("round", [x]) => x.t != Type::Unknown,
        ("round", [_, _]) => true,
        ("abs", [x]) => x.t == Type::Numeric,
        _ => false,
    }
}

/// `round(x)` (numeric for numeric, float8's round-half-even for the rest, as PostgreSQL
/// resolves an integer to `round(float8)`), `round(x, s)` and `abs(x)`.
pub(crate) fn call(name: &str, args: Vec<Typed>) -> PgResult<Typed> {
    let mut args = args.into_iter();
    let x = args.next().expect("an argument");
    match (name, args.next()) {
        ("abs", None) => Ok(unary(x, |n| Ok(n.abs()))?),
        ("round", None) if x.t == Type::Numeric => Ok(unary(x, |n| n.round(0))?),
        ("round", None) => {
            let x = crate::pg::types::cast::cast(x, Type::Float8, None)?;
            Ok(match x.v {
                Value::Float(f) => Typed::new(Value::Float(f.round_ties_even()), Type::Float8),
                _ => Typed::null(Type::Float8),
            })
        }
        (_, Some(scale)) => {
            if !(x.t == Type::Numeric || x.t.is_integer() || x.t == Type::Unknown) {
                return Err(PgError::new(
                    UNDEFINED_FUNCTION,
                    format!("function round({}, integer) does not exist", x.t.name()),
                ));
            }
            let x = crate::pg::types::cast::cast(x, Type::Numeric, None)?;
            let scale = crate::pg::types::cast::cast(scale, Type::Int4, None)?;
            match scale.v {
                Value::Int(s) => unary(x, |n| n.round(s)),
                _ => Ok(Typed::null(Type::Numeric)),
            }
        }
        _ => unreachable!("a known numeric function"),
    }
}

fn unary(x: Typed, f: impl Fn(&Numeric) -> PgResult<Numeric>) -> PgResult<Typed> {
    match x.v {
        Value::Numeric(n) => Ok(Typed::new(boxed(f(&n)?), Type::Numeric)),
        _ => Ok(Typed::null(Type::Numeric)),
    }
}

/// `sum` over integers or numerics in numeric (its result is numeric for int8 and
/// numeric arguments).
pub(crate) fn sum(values: &[Value]) -> PgResult<Value> {
    let mut total = Numeric::from_i64(0);
    for v in values {
        if let Some(n) = as_numeric(v) {
            total = total.add(&n)?;
        }
    }
    Ok(boxed(total))
}

/// `avg` over integers or numerics: the numeric sum divided by the count.
pub(crate) fn avg(values: &[Value]) -> PgResult<Value> {
    let Value::Numeric(total) = sum(values)? else {
        unreachable!("sum is numeric")
    };
    Ok(boxed(total.div(&Numeric::from_i64(values.len() as i64))?))
}

/// The result type of a numeric function of `args`, `None` for another function.
pub(crate) fn return_type(name: &str, args: &[Type]) -> Option<Type> {
    match (name, args) {
        ("round", [Type::Numeric]) => Some(Type::Numeric),
        ("round", [_]) => Some(Type::Float8),
        ("round", [_, _]) => Some(Type::Numeric),
        ("abs", [Type::Numeric]) => Some(Type::Numeric),
        _ => None,
    }
}
