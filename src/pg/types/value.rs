//! The model's values ([`Value`], and [`Typed`]: a value with its type) and the order
//! `ORDER BY` sorts them by. Text collates bytewise, as under the `C` collation. The types
//! themselves are `pg_type.rs`'s; a value's text and binary forms `text.rs`' and
//! `binary.rs`'.

use crate::pg::error::{PgError, PgResult};
use crate::pg::types::pg_type::Type;
use std::cmp::Ordering;

/// PostgreSQL's interval: months, days and microseconds, kept apart as it keeps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Interval {
    pub months: i32,
    pub days: i32,
    pub us: i64,
}

/// A value; its type travels beside it (a column's, an expression's).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    /// int2, int4 and int8 alike: the type bounds it.
    Int(i64),
    /// float4, float8.
    Float(f64),
    Numeric(Box<crate::pg::types::numeric::Numeric>),
    Tsvector(Box<crate::pg::types::tsearch::Tsvector>),
    Tsquery(Box<crate::pg::types::tsearch::Tsquery>),
    Text(String),
    Bytea(Vec<u8>),
    /// Microseconds since 2000-01-01 UTC.
    Timestamptz(i64),
    /// `timestamp` (without time zone): microseconds since 2000-01-01 on the wall clock.
    Timestamp(i64),
    /// `date`: days since 2000-01-01.
    Date(i32),
    Interval(Interval),
    /// pgvector's `vector` or `halfvec` (its `Type` says which): a halfvec's elements are
    /// the `f32`s its halves widen to, so the two share their order and distances.
    Vector(Vec<f32>),
    /// pgvector's `sparsevec`: its non-zero elements (`vector/sparse.rs`).
    Sparse(Box<crate::pg::vector::sparse::Sparse>),
    /// `bit(n)`: its bits, first first (`bit.rs`).
    Bit(Vec<bool>),
    Uuid([u8; crate::pg::types::uuid::UUID_BYTES]),
    Jsonb(Box<crate::pg::types::jsonb::Json>),
    Array(Vec<Value>),
}

impl Value {
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// SQL's three-valued truth: `None` for NULL.
    pub(crate) fn truth(&self) -> PgResult<Option<bool>> {
        match self {
            Value::Null => Ok(None),
            Value::Bool(b) => Ok(Some(*b)),
            other => Err(PgError::new(
                crate::pg::error::DATATYPE_MISMATCH,
                format!("argument of WHERE must be type boolean, not {other:?}"),
            )),
        }
    }
}

/// The order of `ORDER BY … ASC` between two non-NULL values of one type.
pub(crate) fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Int(x), Value::Float(y)) => float_order(*x as f64, *y),
        (Value::Float(x), Value::Int(y)) => float_order(*x, *y as f64),
        (Value::Float(x), Value::Float(y)) => float_order(*x, *y),
        (Value::Numeric(x), Value::Numeric(y)) => crate::pg::types::numeric::compare(x, y),
        (Value::Int(x), Value::Numeric(y)) => {
            crate::pg::types::numeric::compare(&crate::pg::types::numeric::Numeric::from_i64(*x), y)
        }
        (Value::Numeric(x), Value::Int(y)) => {
            crate::pg::types::numeric::compare(x, &crate::pg::types::numeric::Numeric::from_i64(*y))
        }
        (Value::Numeric(x), Value::Float(y)) => {
            float_order(x.to_float(false).unwrap_or(f64::NAN), *y)
        }
        (Value::Float(x), Value::Numeric(y)) => {
            float_order(*x, y.to_float(false).unwrap_or(f64::NAN))
        }
        (Value::Text(x), Value::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bytea(x), Value::Bytea(y)) => x.cmp(y),
        (Value::Timestamptz(x), Value::Timestamptz(y)) => x.cmp(y),
        (Value::Timestamp(x), Value::Timestamp(y)) => x.cmp(y),
        (Value::Date(x), Value::Date(y)) => x.cmp(y),
        (Value::Interval(x), Value::Interval(y)) => interval_span_us(x).cmp(&interval_span_us(y)),
        (Value::Vector(x), Value::Vector(y)) => vector_order(x, y),
        (Value::Sparse(x), Value::Sparse(y)) => crate::pg::vector::sparse::compare(x, y),
        // `bit_cmp`: the bits in order, then the length.
        (Value::Bit(x), Value::Bit(y)) => x.cmp(y),
        (Value::Uuid(x), Value::Uuid(y)) => x.cmp(y),
        (Value::Jsonb(x), Value::Jsonb(y)) => crate::pg::types::jsonb::compare(x, y),
        (Value::Array(x), Value::Array(y)) => array_order(x, y),
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Greater,
        (_, Value::Null) => Ordering::Less,
        _ => Ordering::Equal,
    }
}

/// PostgreSQL's float order: NaN after every number, equal to itself.
fn float_order(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => x.partial_cmp(&y).expect("not NaN"),
    }
}

fn vector_order(x: &[f32], y: &[f32]) -> Ordering {
    for (a, b) in x.iter().zip(y) {
        let order = float_order(*a as f64, *b as f64);
        if order != Ordering::Equal {
            return order;
        }
    }
    x.len().cmp(&y.len())
}

fn array_order(x: &[Value], y: &[Value]) -> Ordering {
    for (a, b) in x.iter().zip(y) {
        let order = compare(a, b);
        if order != Ordering::Equal {
            return order;
        }
    }
    x.len().cmp(&y.len())
}

/// An interval's length for comparison, with PostgreSQL's 30-day months.
pub(crate) fn interval_span_us(i: &Interval) -> i128 {
    const DAY_US: i128 = 86_400_000_000;
    i.us as i128 + (i.days as i128 + i.months as i128 * 30) * DAY_US
}

/// A value with its type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Typed {
    pub v: Value,
    pub t: Type,
}

impl Typed {
    pub(crate) fn new(v: Value, t: Type) -> Typed {
        Typed { v, t }
    }

    pub(crate) fn null(t: Type) -> Typed {
        Typed { v: Value::Null, t }
    }

    pub(crate) fn bool(b: Option<bool>) -> Typed {
        Typed::new(b.map_or(Value::Null, Value::Bool), Type::Bool)
    }
}

/// Rows equal as DISTINCT, GROUP BY, window partitions and peers compare them: NULL
/// equals NULL (`IS NOT DISTINCT FROM`, column by column).
pub(crate) fn not_distinct(a: &[Value], b: &[Value]) -> bool {
    debug_assert_eq!(a.len(), b.len(), "rows compared column by column");
    a.iter()
        .zip(b)
        .all(|(x, y)| match (x.is_null(), y.is_null()) {
            (true, true) => true,
            (false, false) => compare(x, y) == Ordering::Equal,
            _ => false,
        })
}

/// ASC sorts NULLs last, DESC first (unless NULLS FIRST/LAST says otherwise).
pub(crate) fn sort_order(a: &[Value], b: &[Value], directions: &[(bool, bool)]) -> Ordering {
    for ((x, y), (descending, nulls_first)) in a.iter().zip(b).zip(directions) {
        let order = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => {
                if *nulls_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (false, true) => {
                if *nulls_first {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            (false, false) if *descending => compare(y, x),
            (false, false) => compare(x, y),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}
