//! The arithmetic of the date/time types, as PostgreSQL's operators on them: a timestamp
//! (with or without zone) ± an interval (months first, clamped to the month's end, then
//! days, then time; in UTC a day is always 24 hours), a date ± an interval (a timestamp),
//! a date ± days (a date), date - date (days), and the difference of two timestamps (an
//! interval of days and time). Mixed operands meet at their common type first, as the
//! implicit casts bring them there.

use crate::pg::error::{PgError, PgResult, AMBIGUOUS_FUNCTION, DATETIME_OVERFLOW};
use crate::pg::types::datetime::{add_months, check_date, check_timestamp, midnight_us, DAY_US};
use crate::pg::types::datetime_cast::{common, convert, is_datetime};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Interval, Typed, Value};
use sqlparser::ast::BinaryOperator;

/// The type an untyped operand of `op` takes beside the date/time operand `other`:
/// PostgreSQL prefers the operator whose operands are both of `other`'s type (`ts -
/// 'literal'` is a difference of two timestamps); `+` has none, so a timestamp's other
/// operand is an interval and a date's is ambiguous (`Unknown`: 42725 follows). `None`
/// for the other operators.
pub(crate) fn unknown_operand_type(op: &BinaryOperator, other: Type) -> Option<Type> {
    if !is_datetime(other) {
        return None;
    }
    match (op, other) {
        (BinaryOperator::Minus, t) => Some(t),
        (BinaryOperator::Plus, Type::Date) => Some(Type::Unknown),
        (BinaryOperator::Plus, _) => Some(Type::Interval),
        _ => None,
    }
}

/// The result type of `l op r` when an operand is a date/time type; `None` when neither is.
pub(crate) fn result_type(op: &BinaryOperator, l: Type, r: Type) -> Option<PgResult<Type>> {
    use BinaryOperator::{Minus, Plus};
    let days = |t: Type| matches!(t, Type::Int2 | Type::Int4);
    let t = match (op, l, r) {
        (Plus | Minus, Type::Timestamp | Type::Timestamptz, Type::Interval) => l,
        (Plus, Type::Interval, Type::Timestamp | Type::Timestamptz) => r,
        (Plus | Minus, Type::Date, Type::Interval) | (Plus, Type::Interval, Type::Date) => {
            Type::Timestamp
        }
        (Plus | Minus, Type::Date, n) if days(n) => Type::Date,
        (Plus, n, Type::Date) if days(n) => Type::Date,
        (Minus, Type::Date, Type::Date) => Type::Int4,
        (Minus, a, b) if is_datetime(a) && is_datetime(b) => Type::Interval,
        (Plus, Type::Date, Type::Unknown) | (Plus, Type::Unknown, Type::Date) => {
            return Some(Err(PgError::new(
                AMBIGUOUS_FUNCTION,
                format!("operator is not unique: {} + {}", l.name(), r.name()),
            )))
        }
        _ => return None,
    };
    Some(Ok(t))
}

/// `l op r` for the operand types `result_type` knows (neither NULL).
pub(crate) fn apply(op: &BinaryOperator, l: Typed, r: Typed) -> PgResult<Value> {
    use BinaryOperator::{Minus, Plus};
    let value = match (op, l.v, r.v) {
        (op, Value::Timestamp(t), Value::Interval(i)) => Value::Timestamp(shift(op, t, i)?),
        (op, Value::Timestamptz(t), Value::Interval(i)) => Value::Timestamptz(shift(op, t, i)?),
        (Plus, Value::Interval(i), Value::Timestamp(t)) => Value::Timestamp(shift(op, t, i)?),
        (Plus, Value::Interval(i), Value::Timestamptz(t)) => Value::Timestamptz(shift(op, t, i)?),
        (op, Value::Date(d), Value::Interval(i)) => Value::Timestamp(shift(op, midnight(d)?, i)?),
        (Plus, Value::Interval(i), Value::Date(d)) => Value::Timestamp(shift(op, midnight(d)?, i)?),
        (op, Value::Date(d), Value::Int(n)) => Value::Date(add_days(op, d, n)?),
        (Plus, Value::Int(n), Value::Date(d)) => Value::Date(add_days(op, d, n)?),
        (Minus, Value::Date(a), Value::Date(b)) => Value::Int(i64::from(a) - i64::from(b)),
        (Minus, a, b) => {
            let t = common(l.t, r.t);
            let (Value::Timestamp(a) | Value::Timestamptz(a)) = convert(a, t)? else {
                unreachable!("a timestamp's common type is a timestamp")
            };
            let (Value::Timestamp(b) | Value::Timestamptz(b)) = convert(b, t)? else {
                unreachable!("a timestamp's common type is a timestamp")
            };
            Value::Interval(span(a, b)?)
        }
        (op, a, b) => unreachable!("no date/time operator {a:?} {op} {b:?}"),
    };
    Ok(value)
}

/// A date as the timestamp of its midnight (`date2timestamp`).
fn midnight(days_since_2000: i32) -> PgResult<i64> {
    midnight_us(i64::from(days_since_2000))
}

/// `date ± integer`, within date's range.
fn add_days(op: &BinaryOperator, days_since_2000: i32, n: i64) -> PgResult<i32> {
    let n = if *op == BinaryOperator::Minus { -n } else { n };
    check_date(i64::from(days_since_2000) + n).map(|d| d as i32)
}

/// timestamp ± interval: months first (clamped to the month's end), then days, then
/// time; the result within timestamp's range.
fn shift(op: &BinaryOperator, t: i64, i: Interval) -> PgResult<i64> {
    let sign = match op {
        BinaryOperator::Minus => -1,
        _ => 1,
    };
    if crate::pg::types::interval::is_infinite(&i) {
        return Err(PgError::unsupported(
            "a timestamp shifted by an infinite interval",
        ));
    }
    let out_of_range = || PgError::new(DATETIME_OVERFLOW, "timestamp out of range");
    let shifted = check_timestamp(add_months(t, sign * i.months)).map_err(|_| out_of_range())?;
    (sign as i64 * i.days as i64)
        .checked_mul(DAY_US)
        .and_then(|days_us| shifted.checked_add(days_us))
        .and_then(|t| t.checked_add(sign as i64 * i.us))
        .ok_or_else(out_of_range)
        .and_then(check_timestamp)
}

/// timestamp - timestamp: whole days apart, the rest as time (PostgreSQL's
/// `interval_justify_hours`).
fn span(a_us: i64, b_us: i64) -> PgResult<Interval> {
    let us = a_us
        .checked_sub(b_us)
        .ok_or_else(|| PgError::new(DATETIME_OVERFLOW, "interval out of range"))?;
    Ok(Interval {
        months: 0,
        days: (us / DAY_US) as i32,
        us: us % DAY_US,
    })
}
