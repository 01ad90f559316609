//! The casts between numeric and the other types, as PostgreSQL's `numeric.c` and
//! `float.c` do them: integers exactly, floats through their printed digits both ways
//! (`float8_numeric` prints 15 significant digits, `numeric_float8` reads the printed
//! numeric), numeric to integer rounded half away from zero, jsonb numbers as they are
//! kept; and `numeric(p, s)`'s rounding and overflow check.

use crate::pg::error::PgResult;
use crate::pg::types::jsonb::Json;
use crate::pg::types::numeric::Numeric;
use crate::pg::types::pg_type::{fit_integer, Type};
use crate::pg::types::value::{Typed, Value};

/// Significant digits `float8_numeric` prints (`DBL_DIG`) and `float4_numeric` (`FLT_DIG`).
const FLOAT8_DIGITS: usize = 15;
const FLOAT4_DIGITS: usize = 6;

fn boxed(n: Numeric) -> Value {
    Value::Numeric(Box::new(n))
}

/// Whether `from → to` is a numeric cast this file makes.
pub(crate) fn applies(from: Type, to: Type) -> bool {
    let other = |t: Type| t.is_integer() || matches!(t, Type::Float4 | Type::Float8);
    (from == Type::Numeric && (other(to) || to == Type::Numeric))
        || (to == Type::Numeric && (other(from) || from == Type::Jsonb))
}

/// `v` (of type `from`) as `to`, one of them numeric.
pub(crate) fn cast(v: Value, from: Type, to: Type, _modifier: Option<u32>) -> PgResult<Value> {
    Ok(match (v, to) {
        (Value::Numeric(n), t) if t.is_integer() => {
            let out_of_range = || {
                crate::pg::error::PgError::new(
                    crate::pg::error::NUMERIC_VALUE_OUT_OF_RANGE,
                    format!("{} out of range", t.name()),
                )
            };
            let name = match t {
                Type::Int2 => "smallint",
                Type::Int4 => "integer",
                _ => "bigint",
            };
            let whole = n.to_i64(name)?.ok_or_else(out_of_range)?;
            Value::Int(fit_integer(whole, t)?)
        }
        (Value::Numeric(n), Type::Float4) => Value::Float(n.to_float(true)?),
        (Value::Numeric(n), Type::Float8) => Value::Float(n.to_float(false)?),
        (Value::Numeric(n), _) => Value::Numeric(n),
        (Value::Int(i), _) => boxed(Numeric::from_i64(i)),
        (Value::Float(f), _) if from == Type::Float4 => {
            boxed(Numeric::from_float(f as f32 as f64, FLOAT4_DIGITS)?)
        }
        (Value::Float(f), _) => boxed(Numeric::from_float(f, FLOAT8_DIGITS)?),
        (Value::Jsonb(json), _) => match *json {
            Json::Number(text) => boxed(crate::pg::types::numeric::parse(&text)?),
            other => crate::pg::types::jsonb_ops::to_scalar(&other, Type::Numeric)?,
        },
        (other, _) => other,
    })
}

/// `numeric(p, s)`: the value rounded to the scale, refused when too large; other types
/// pass unchanged.
pub(crate) fn apply_modifier(v: Value, to: Type, modifier: Option<u32>) -> PgResult<Value> {
    match (v, to, modifier) {
        (Value::Numeric(n), Type::Numeric, Some(typmod)) => Ok(boxed(n.apply_typmod(typmod)?)),
        (v, _, _) => Ok(v),
    }
}

/// Two operands of a comparison, one of them numeric: beside a float both compare as
/// float8 (numeric's implicit cast), beside an integer as numeric.
pub(crate) fn coerce_pair(a: Typed, b: Typed) -> PgResult<(Typed, Typed)> {
    let float = |t: Type| matches!(t, Type::Float4 | Type::Float8);
    let as_float8 = |x: Typed| -> PgResult<Typed> {
        match x.v {
            Value::Numeric(n) => Ok(Typed::new(Value::Float(n.to_float(false)?), Type::Float8)),
            _ => Ok(x),
        }
    };
    if float(a.t) || float(b.t) {
        return Ok((as_float8(a)?, as_float8(b)?));
    }
    Ok((a, b))
}

/// An operand of an operator whose result is not numeric: a numeric becomes float8.
pub(crate) fn as_float(v: Value) -> PgResult<Value> {
    match v {
        Value::Numeric(n) => Ok(Value::Float(n.to_float(false)?)),
        other => Ok(other),
    }
}

/// An integer or numeric operand as numeric.
pub(crate) fn as_numeric(v: &Value) -> Option<Numeric> {
    match v {
        Value::Numeric(n) => Some((**n).clone()),
        Value::Int(i) => Some(Numeric::from_i64(*i)),
        _ => None,
    }
}

/// The typmod of `numeric(p[, s])` from the text after the parenthesis (`10,2)`).
pub(crate) fn typmod_spelled(spelled: &str) -> PgResult<u32> {
    let inner = spelled.trim_end_matches(')');
    let mut parts = inner.split(',').map(|p| p.trim().parse::<i64>());
    let invalid =
        || crate::pg::error::PgError::syntax(format!("syntax error at or near \"{inner}\""));
    let precision = parts.next().and_then(Result::ok).ok_or_else(invalid)?;
    let scale = match parts.next() {
        None => 0,
        Some(s) => s.map_err(|_| invalid())?,
    };
    if parts.next().is_some() {
        return Err(crate::pg::error::PgError::new(
            crate::pg::error::INVALID_PARAMETER_VALUE,
            "invalid NUMERIC type modifier",
        ));
    }
    crate::pg::types::numeric::typmod(precision, scale)
}

/// The common type of two numeric-category types (an ARRAY's elements): the later of
/// int2, int4, int8, numeric, float4, float8; `None` unless both are numbers.
pub(crate) fn common_type(a: Type, b: Type) -> Option<Type> {
    let rank = |t: Type| {
        [
            Type::Int2,
            Type::Int4,
            Type::Int8,
            Type::Numeric,
            Type::Float4,
            Type::Float8,
        ]
        .iter()
        .position(|x| *x == t)
    };
    match (rank(a), rank(b)) {
        (Some(x), Some(y)) => Some(if x >= y { a } else { b }),
        _ => None,
    }
}
