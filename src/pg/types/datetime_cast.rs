//! The casts among `date`, `timestamp` and `timestamptz` (their text forms are
//! `datetime.rs`'), and which of them PostgreSQL applies without being asked. Every
//! conversion between a timestamptz and the other two reads the session's `TimeZone`;
//! the model's is always UTC (`settings.rs` refuses another), so a timestamptz's
//! microseconds are the timestamp's.

use crate::pg::error::PgResult;
use crate::pg::types::datetime::{check_date, midnight_us, round_to_precision, DAY_US};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};

/// Whether `t` is one of the three date/time types.
pub(crate) fn is_datetime(t: Type) -> bool {
    matches!(t, Type::Date | Type::Timestamp | Type::Timestamptz)
}

/// The rank of a date/time type among the others: the implicit casts go upwards
/// (`date` → `timestamp` → `timestamptz`, the category's preferred type).
fn rank(t: Type) -> u8 {
    match t {
        Type::Date => 0,
        Type::Timestamp => 1,
        _ => 2,
    }
}

/// The type two date/time operands meet at (a comparison, `-`, CASE, COALESCE).
pub(crate) fn common(a: Type, b: Type) -> Type {
    assert!(is_datetime(a) && is_datetime(b));
    if rank(a) >= rank(b) {
        a
    } else {
        b
    }
}

/// A date/time value as the date/time type `to` (every pair has a cast in `pg_cast`).
pub(crate) fn convert(v: Value, to: Type) -> PgResult<Value> {
    let value = match (v, to) {
        (Value::Date(days), Type::Date) => Value::Date(days),
        (Value::Date(days), t) => timestamp_of(midnight_us(i64::from(days))?, t),
        (Value::Timestamp(us) | Value::Timestamptz(us), Type::Date) => {
            Value::Date(check_date(us.div_euclid(DAY_US))? as i32)
        }
        (Value::Timestamp(us) | Value::Timestamptz(us), t) => timestamp_of(us, t),
        (other, t) => unreachable!("no date/time cast of {other:?} to {t:?}"),
    };
    Ok(value)
}

fn timestamp_of(us: i64, t: Type) -> Value {
    match t {
        Type::Timestamp => Value::Timestamp(us),
        _ => Value::Timestamptz(us),
    }
}

/// A typed date/time value brought up to the date/time type `to`.
pub(crate) fn promote(value: Typed, to: Type) -> PgResult<Typed> {
    match value.v {
        Value::Null => Ok(Typed::null(to)),
        v => Ok(Typed::new(convert(v, to)?, to)),
    }
}

/// Two date/time operands of a comparison brought to their common type.
pub(crate) fn coerce_pair(a: Typed, b: Typed) -> PgResult<(Typed, Typed)> {
    let t = common(a.t, b.t);
    Ok((promote(a, t)?, promote(b, t)?))
}

/// `timestamp(p)` and `timestamptz(p)`: the fraction rounded to `p` digits.
pub(crate) fn apply_precision(v: Value, to: Type, modifier: Option<u32>) -> PgResult<Value> {
    match (v, to, modifier) {
        (Value::Timestamp(us), Type::Timestamp, Some(p)) => {
            Ok(Value::Timestamp(round_to_precision(us, p)?))
        }
        (Value::Timestamptz(us), Type::Timestamptz, Some(p)) => {
            Ok(Value::Timestamptz(round_to_precision(us, p)?))
        }
        (v, _, _) => Ok(v),
    }
}
