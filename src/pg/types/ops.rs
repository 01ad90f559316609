//! Arithmetic and the other binary operators: integers checked for overflow, intervals,
//! text concatenation, pgvector's distance operators, the date/time types' arithmetic
//! (`datetime_ops.rs`) and jsonb's operators (`jsonb_ops.rs`).

use crate::pg::error::*;
use crate::pg::types::cast::cast;
use crate::pg::types::numeric_cast::as_float;
use crate::pg::types::pg_type::{fit_integer, Type};
use crate::pg::types::value::{Interval, Typed, Value};
use sqlparser::ast::BinaryOperator;

use crate::pg::types::interval_ops;

/// `l op r` for every operator but the comparisons and the logical ones.
pub(crate) fn arithmetic(op: &BinaryOperator, l: Typed, r: Typed) -> PgResult<Typed> {
    let (l, r) = settle_unknown(op, l, r)?;
    let (l, r) = crate::pg::types::vector_fn::settle_kinds(op, l, r)?;
    let result_type = result_type(op, l.t, r.t)?;
    let kind = l.t.vector_kind();
    if l.v.is_null() || r.v.is_null() {
        return Ok(Typed::null(result_type));
    }
    if crate::pg::types::datetime_ops::result_type(op, l.t, r.t).is_some() {
        let v = crate::pg::types::datetime_ops::apply(op, l, r)?;
        return Ok(Typed::new(v, result_type));
    }
    if result_type == Type::Numeric {
        let v = crate::pg::types::numeric_fn::arithmetic(op, &l.v, &r.v)?;
        return Ok(Typed::new(v, result_type));
    }
    // `||` prints a numeric as itself (`'x' || 4.0` is `x4.0`), not as the float the
    // other operators compute in.
    let concatenated = (*op == BinaryOperator::StringConcat).then(|| (l.v.clone(), r.v.clone()));
    let (lv, rv) = (as_float(l.v)?, as_float(r.v)?);
    let v = match (op, lv, rv) {
        (BinaryOperator::AtAt, a, b) => crate::pg::types::tsearch_fn::match_operator(a, b)?,
        (op, Value::Jsonb(a), b) if crate::pg::types::jsonb_ops::is_operator(op, l.t, r.t) => {
            crate::pg::types::jsonb_ops::apply(op, *a, b)?
        }
        (op, Value::Jsonb(a), b) if crate::pg::types::jsonb_path::is_operator(op, l.t, r.t) => {
            crate::pg::types::jsonb_path::apply(op, *a, b)?
        }
        (op, Value::Text(a), b) if l.t == Type::Json => crate::pg::types::json::apply(op, &a, b)?,
        (BinaryOperator::StringConcat, Value::Vector(a), Value::Vector(b)) => {
            let kind = kind.expect("a vector operand");
            Value::Vector(crate::pg::types::vector_fn::concat(kind, &a, &b)?)
        }
        (
            op @ (BinaryOperator::Plus | BinaryOperator::Minus | BinaryOperator::Multiply),
            Value::Vector(a),
            Value::Vector(b),
        ) => {
            let kind = kind.expect("a vector operand");
            Value::Vector(crate::pg::types::vector_fn::elementwise(op, kind, &a, &b)?)
        }
        (BinaryOperator::StringConcat, a, b) => {
            let (a, b) = concatenated.unwrap_or((a, b));
            let text =
                |v: Value, t: Type| crate::pg::types::text::format(&v, t).unwrap_or_default();
            Value::Text(text(a, l.t) + &text(b, r.t))
        }
        (op, Value::Int(a), Value::Int(b)) => Value::Int(integer(op, a, b, result_type)?),
        (op, Value::Float(a), Value::Float(b)) if result_type == Type::Float4 => {
            Value::Float(float4(op, a, b)?)
        }
        (op, a @ (Value::Int(_) | Value::Float(_)), b @ (Value::Int(_) | Value::Float(_))) => {
            Value::Float(float(op, as_f64(&a), as_f64(&b))?)
        }
        (op, Value::Interval(a), Value::Interval(b)) => Value::Interval(add_intervals(op, a, b)?),
        (BinaryOperator::Multiply, Value::Interval(i), b @ (Value::Float(_) | Value::Int(_))) => {
            Value::Interval(interval_ops::multiply(i, as_f64(&b))?)
        }
        (BinaryOperator::Multiply, a @ (Value::Float(_) | Value::Int(_)), Value::Interval(i)) => {
            Value::Interval(interval_ops::multiply(i, as_f64(&a))?)
        }
        (BinaryOperator::Divide, Value::Interval(i), b @ (Value::Float(_) | Value::Int(_))) => {
            Value::Interval(interval_ops::divide(i, as_f64(&b))?)
        }
        (op, Value::Vector(a), Value::Vector(b)) => {
            let kind = kind.expect("a vector operand");
            match crate::pg::types::vector_fn::distance(op, kind, &a, &b) {
                Some(distance) => Value::Float(distance?),
                None => return Err(no_operator(op, l.t, r.t)),
            }
        }
        (op, Value::Bit(a), Value::Bit(b)) => {
            match crate::pg::types::bit_fn::distance(op, &a, &b) {
                Some(distance) => Value::Float(distance?),
                None => return Err(no_operator(op, l.t, r.t)),
            }
        }
        (op, Value::Sparse(a), Value::Sparse(b)) => {
            match crate::pg::types::vector_fn::sparse_distance(op, &a, &b) {
                Some(distance) => Value::Float(distance?),
                None => return Err(no_operator(op, l.t, r.t)),
            }
        }
        (op, _, _) => return Err(no_operator(op, l.t, r.t)),
    };
    Ok(Typed::new(v, result_type))
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

fn no_operator(op: &BinaryOperator, l: Type, r: Type) -> PgError {
    if crate::pg::types::builtin_names::is_operator(&op.to_string(), Some(l), r) {
        return PgError::unsupported(format!("the operator {} {op} {}", l.name(), r.name()));
    }
    PgError::new(
        UNDEFINED_FUNCTION,
        format!("operator does not exist: {} {op} {}", l.name(), r.name()),
    )
}

/// The type an untyped operand of `op` takes beside an operand of type `other`.
pub(crate) fn unknown_operand_type(op: &BinaryOperator, other: Type) -> Type {
    use BinaryOperator::*;
    if let Some(t) = crate::pg::types::jsonb_path::unknown_operand_type(op, other) {
        return t;
    }
    if let Some(t) = crate::pg::types::datetime_ops::unknown_operand_type(op, other) {
        return t;
    }
    match (op, other) {
        (StringConcat, t @ (Type::Jsonb | Type::Vector | Type::Halfvec)) => t,
        (StringConcat, _) => Type::Text,
        // PostgreSQL prefers the string category: `-> 'k'` is a key, not an index.
        (Arrow | LongArrow | Question, Type::Jsonb) => Type::Text,
        (AtAt, Type::Tsquery) => Type::Tsvector,
        (AtAt, Type::Tsvector) => Type::Tsquery,
        (Multiply | Divide, Type::Interval) => Type::Float8,
        (_, t) => t,
    }
}

/// An untyped literal beside a typed operand takes the type the operator wants there.
fn settle_unknown(op: &BinaryOperator, l: Typed, r: Typed) -> PgResult<(Typed, Typed)> {
    let want = |other: Type| unknown_operand_type(op, other);
    match (l.t, r.t) {
        (Type::Unknown, Type::Unknown) if matches!(op, BinaryOperator::StringConcat) => {
            Ok((cast(l, Type::Text, None)?, cast(r, Type::Text, None)?))
        }
        (Type::Unknown, t) if t != Type::Unknown => Ok((cast(l, want(t), None)?, r)),
        (t, Type::Unknown) if t != Type::Unknown => {
            let r = cast(r, want(t), None)?;
            Ok((l, r))
        }
        _ => Ok((l, r)),
    }
}

/// The operator's result type for its operand types, or PostgreSQL's "does not exist".
pub(crate) fn result_type(op: &BinaryOperator, l: Type, r: Type) -> PgResult<Type> {
    use BinaryOperator::*;
    if let Some(t) = crate::pg::types::jsonb_path::result_type(op, l, r) {
        return Ok(t);
    }
    if let Some(t) = crate::pg::types::datetime_ops::result_type(op, l, r) {
        return t;
    }
    let t = match (op, l, r) {
        (StringConcat, Type::Jsonb, Type::Jsonb) => Type::Jsonb,
        (StringConcat | Plus | Minus | Multiply, a, b)
            if crate::pg::types::vector_fn::operand_type(a, b).is_some() =>
        {
            crate::pg::types::vector_fn::operand_type(a, b).expect("vector operands")
        }
        // Array concatenation (`anyarray || anyelement` and its kin) is not modelled.
        (StringConcat, a, b) if a.element().is_some() || b.element().is_some() => {
            return Err(PgError::unsupported(format!(
                "{} || {} (array concatenation)",
                a.name(),
                b.name()
            )))
        }
        // `anynonarray || text` wants a string on one side at least.
        (StringConcat, a, b) if !concatenates(a, b) => return Err(no_operator(op, l, r)),
        (StringConcat, _, _) => Type::Text,
        (Arrow, Type::Jsonb, k) if k.is_text() || matches!(k, Type::Int2 | Type::Int4) => {
            Type::Jsonb
        }
        (LongArrow, Type::Jsonb, k) if k.is_text() || matches!(k, Type::Int2 | Type::Int4) => {
            Type::Text
        }
        (AtArrow | ArrowAt, Type::Jsonb, Type::Jsonb) => Type::Bool,
        (AtAt, Type::Tsvector, Type::Tsquery) | (AtAt, Type::Tsquery, Type::Tsvector) => Type::Bool,
        (Question, Type::Jsonb, k) if k.is_text() => Type::Bool,
        (LtDashGt | Spaceship, a, b)
            if crate::pg::types::vector_fn::distance_operand_type(a, b).is_some() =>
        {
            Type::Float8
        }
        (op, Type::Bit, Type::Bit) if crate::pg::types::bit_fn::is_operator(op) => Type::Float8,
        (Custom(name), a, b)
            if matches!(name.as_str(), "<#>" | "<+>")
                && crate::pg::types::vector_fn::distance_operand_type(a, b).is_some() =>
        {
            Type::Float8
        }
        (Plus | Minus | Multiply | Divide | Modulo, a, b) if a.is_integer() && b.is_integer() => {
            if a == Type::Int8 || b == Type::Int8 {
                Type::Int8
            } else if a == Type::Int2 && b == Type::Int2 {
                Type::Int2
            } else {
                Type::Int4
            }
        }
        (op, a, b) if crate::pg::types::numeric_fn::is_numeric_operation(op, a, b) => Type::Numeric,
        (Plus | Minus | Multiply | Divide, Type::Float4, Type::Float4) => Type::Float4,
        (Plus | Minus | Multiply | Divide, a, b) if a.is_numeric() && b.is_numeric() => {
            Type::Float8
        }
        (Plus | Minus, Type::Interval, Type::Interval) => Type::Interval,
        (Multiply, Type::Interval, n) | (Multiply, n, Type::Interval) if n.is_numeric() => {
            Type::Interval
        }
        (Divide, Type::Interval, n) if n.is_numeric() => Type::Interval,
        (op, l, r) => return Err(no_operator(op, l, r)),
    };
    Ok(t)
}

/// Whether PostgreSQL has a `||` for the operand types (neither an array): a string on
/// one side, or two of bytea, tsvector or tsquery.
fn concatenates(a: Type, b: Type) -> bool {
    let string = |t: Type| t.is_text() || t == Type::Unknown;
    string(a) || string(b) || (a == b && matches!(a, Type::Bytea | Type::Tsvector | Type::Tsquery))
}

fn integer(op: &BinaryOperator, a: i64, b: i64, t: Type) -> PgResult<i64> {
    let out_of_range = || {
        PgError::new(
            NUMERIC_VALUE_OUT_OF_RANGE,
            format!("{} out of range", t.name()),
        )
    };
    let result = match op {
        BinaryOperator::Plus => a.checked_add(b),
        BinaryOperator::Minus => a.checked_sub(b),
        BinaryOperator::Multiply => a.checked_mul(b),
        BinaryOperator::Divide | BinaryOperator::Modulo if b == 0 => {
            return Err(PgError::new(DIVISION_BY_ZERO, "division by zero"))
        }
        BinaryOperator::Divide => a.checked_div(b),
        // int8mod and its kin answer 0 for -1 rather than overflow on the minimum.
        BinaryOperator::Modulo if b == -1 => Some(0),
        BinaryOperator::Modulo => a.checked_rem(b),
        other => return Err(no_operator(other, t, t)),
    };
    fit_integer(result.ok_or_else(out_of_range)?, t)
}

fn float(op: &BinaryOperator, a: f64, b: f64) -> PgResult<f64> {
    let result = match op {
        BinaryOperator::Plus => a + b,
        BinaryOperator::Minus => a - b,
        BinaryOperator::Multiply => a * b,
        // float8div: NaN divided by zero is NaN, not an error.
        BinaryOperator::Divide if b == 0.0 && !a.is_nan() => {
            return Err(PgError::new(DIVISION_BY_ZERO, "division by zero"))
        }
        BinaryOperator::Divide => a / b,
        other => return Err(no_operator(other, Type::Float8, Type::Float8)),
    };
    check_float(op, a, b, result)?;
    Ok(result)
}

/// `float4 op float4`, computed in `float4` as PostgreSQL's `float4pl` and its kin do
/// (through `f64`: for these four operations rounding twice gives the `f32` result).
fn float4(op: &BinaryOperator, a: f64, b: f64) -> PgResult<f64> {
    let result = float(op, a, b)? as f32;
    check_float(op, a, b, f64::from(result))?;
    Ok(f64::from(result))
}

/// PostgreSQL's overflow and underflow checks of a float operation's result.
fn check_float(op: &BinaryOperator, a: f64, b: f64, result: f64) -> PgResult<()> {
    let out_of_range = |what: &str| {
        PgError::new(
            NUMERIC_VALUE_OUT_OF_RANGE,
            format!("value out of range: {what}"),
        )
    };
    if result.is_infinite() && a.is_finite() && b.is_finite() {
        return Err(out_of_range("overflow"));
    }
    let underflow = match op {
        BinaryOperator::Multiply => result == 0.0 && a != 0.0 && b != 0.0,
        BinaryOperator::Divide => result == 0.0 && a != 0.0 && !b.is_infinite(),
        _ => false,
    };
    match underflow {
        true => Err(out_of_range("underflow")),
        false => Ok(()),
    }
}

fn add_intervals(op: &BinaryOperator, a: Interval, b: Interval) -> PgResult<Interval> {
    match op {
        BinaryOperator::Plus => interval_ops::add(a, b),
        BinaryOperator::Minus => interval_ops::subtract(a, b),
        other => Err(no_operator(other, Type::Interval, Type::Interval)),
    }
}
