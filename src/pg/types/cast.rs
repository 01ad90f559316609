//! The casts and coercions between types: what `::type` and an operator's operands go
//! through, as PostgreSQL's `parse_coerce.c` and each type's cast functions do them (json
//! ↔ jsonb among them, and pgvector's `array_to_vector`).

use crate::pg::error::*;
use crate::pg::types::datetime_cast::is_datetime;
use crate::pg::types::pg_type::{fit_integer, Type};
use crate::pg::types::text;
use crate::pg::types::value::{compare, Typed, Value};
use sqlparser::ast::BinaryOperator;
use std::cmp::Ordering;

pub(crate) fn number_literal(n: &str) -> PgResult<Typed> {
    if let Ok(i) = n.parse::<i64>() {
        let t = if i32::try_from(i).is_ok() {
            Type::Int4
        } else {
            Type::Int8
        };
        return Ok(Typed::new(Value::Int(i), t));
    }
    crate::pg::types::numeric::parse(n)
        .map(|v| Typed::new(Value::Numeric(Box::new(v)), Type::Numeric))
}

/// Bring two operands to one type: an untyped literal takes the other's type.
pub(crate) fn coerce_pair(a: Typed, b: Typed) -> PgResult<(Typed, Typed)> {
    // regtype has no operators of its own: PostgreSQL compares it as the oid it is.
    let as_oid_type = |v: Typed| match v.t {
        Type::Regtype => Typed::new(v.v, Type::Oid),
        _ => v,
    };
    let (a, b) = (as_oid_type(a), as_oid_type(b));
    match (a.t, b.t) {
        (x, y) if x == y => Ok((a, b)),
        (Type::Unknown, t) => Ok((cast(a, t, None)?, b)),
        (t, Type::Unknown) => Ok((a, cast(b, t, None)?)),
        (x, y) if x.is_numeric() && y.is_numeric() => {
            crate::pg::types::numeric_cast::coerce_pair(a, b)
        }
        (x, y) if x.is_text() && y.is_text() => Ok((a, b)),
        (x, y) if is_datetime(x) && is_datetime(y) => {
            crate::pg::types::datetime_cast::coerce_pair(a, b)
        }
        // pgvector's implicit casts: a vector beside a halfvec becomes one, a dense
        // value beside a sparsevec one too.
        (Type::Vector, Type::Halfvec) => Ok((cast(a, Type::Halfvec, None)?, b)),
        (Type::Halfvec, Type::Vector) => Ok((a, cast(b, Type::Halfvec, None)?)),
        (Type::Vector | Type::Halfvec, Type::Sparsevec) => Ok((cast(a, Type::Sparsevec, None)?, b)),
        (Type::Sparsevec, Type::Vector | Type::Halfvec) => Ok((a, cast(b, Type::Sparsevec, None)?)),
        // An integer compares with an oid as an oid (its implicit cast).
        (Type::Oid, y) if y.is_integer() => Ok((a, as_oid(b)?)),
        (x, Type::Oid) if x.is_integer() => Ok((as_oid(a)?, b)),
        (x, y) => Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("operator does not exist: {} = {}", x.name(), y.name()),
        )),
    }
}

/// An integer as an oid: the model takes only those in the oid range.
fn as_oid(v: Typed) -> PgResult<Typed> {
    match v.v {
        Value::Int(n) if u32::try_from(n).is_ok() => Ok(Typed::new(Value::Int(n), Type::Oid)),
        Value::Null => Ok(Typed::null(Type::Oid)),
        _ => Err(PgError::unsupported(
            "an oid comparison with a negative or too large integer",
        )),
    }
}

pub(crate) fn compare_values(op: &BinaryOperator, l: Typed, r: Typed) -> PgResult<Option<bool>> {
    let (l, r) = coerce_pair(l, r)?;
    if l.t == Type::Json {
        return Err(crate::pg::types::json::no_equality(op));
    }
    if l.v.is_null() || r.v.is_null() {
        return Ok(None);
    }
    let order = compare(&l.v, &r.v);
    let nan = matches!((&l.v, &r.v), (Value::Float(a), _) if a.is_nan())
        || matches!((&l.v, &r.v), (_, Value::Float(b)) if b.is_nan());
    let _ = nan;
    Ok(Some(match op {
        BinaryOperator::Eq => order == Ordering::Equal,
        BinaryOperator::NotEq => order != Ordering::Equal,
        BinaryOperator::Lt => order == Ordering::Less,
        BinaryOperator::LtEq => order != Ordering::Greater,
        BinaryOperator::Gt => order == Ordering::Greater,
        BinaryOperator::GtEq => order != Ordering::Less,
        other => return Err(PgError::unsupported(format!("the operator {other}"))),
    }))
}

/// `value::to` as PostgreSQL casts (the casts the model knows).
pub(crate) fn cast(value: Typed, to: Type, modifier: Option<u32>) -> PgResult<Typed> {
    let from = value.t;
    let v = match (value.v, from, to) {
        (Value::Null, _, _) => Value::Null,
        (v, f, t) if f == t => v,
        (v, Type::Json, Type::Jsonb) | (v, Type::Jsonb, Type::Json) => {
            crate::pg::types::cast::convert(v, from, to)?
        }
        // A literal reads with the typmod's fields (`'1'::interval year` is a year).
        (Value::Text(s), Type::Unknown, Type::Interval) => {
            Value::Interval(crate::pg::types::interval::parse(
                &s,
                crate::pg::types::interval::Typmod::of(modifier),
            )?)
        }
        // `sparsevec_in` checks the typmod before the indices.
        (Value::Text(s), _, Type::Sparsevec) if from == Type::Unknown || from.is_text() => {
            let sparse =
                crate::pg::vector::sparse::parse_text(&s, modifier).map_err(vector_error)?;
            Value::Sparse(Box::new(sparse))
        }
        // A literal read as bit; a length other than bit(n)'s is padded or cut by an
        // explicit cast and refused by an assignment, which `check_modifier` cannot tell
        // apart (it refuses both).
        (Value::Text(s), _, Type::Bit) if from == Type::Unknown || from.is_text() => {
            Value::Bit(crate::pg::types::bit::parse(&s, None)?)
        }
        (Value::Text(s), _, t) if from == Type::Unknown || from.is_text() => text::parse(&s, t)?,
        (v, f, t) if is_datetime(f) && is_datetime(t) => {
            crate::pg::types::datetime_cast::convert(v, t)?
        }
        (Value::Jsonb(json), Type::Jsonb, t)
            if matches!(t, Type::Bool | Type::Float4 | Type::Float8) || t.is_integer() =>
        {
            crate::pg::types::jsonb_ops::to_scalar(&json, t)?
        }
        // `booltext`: a boolean cast to text is spelled out (its output form is `t`/`f`).
        (Value::Bool(b), Type::Bool, t) if t.is_text() => {
            Value::Text(if b { "true" } else { "false" }.into())
        }
        (v, _, t) if t.is_text() => Value::Text(text::format(&v, from).unwrap_or_default()),
        (Value::Int(i), Type::Oid | Type::Regtype, Type::Oid | Type::Regtype) => Value::Int(i),
        (Value::Int(i), f, Type::Oid | Type::Regtype) if f.is_integer() => {
            as_oid(Typed::new(Value::Int(i), Type::Oid))?.v
        }
        (v, f, t) if crate::pg::types::numeric_cast::applies(f, t) => {
            crate::pg::types::numeric_cast::cast(v, f, t, modifier)?
        }
        (Value::Int(i), _, t) if t.is_integer() => Value::Int(fit_integer(i, t)?),
        (Value::Int(i), _, Type::Float4) => Value::Float(f64::from(i as f32)),
        (Value::Int(i), _, Type::Float8) => Value::Float(i as f64),
        (Value::Float(f), _, Type::Float4) => Value::Float(text::float4(f).ok_or_else(|| {
            PgError::new(NUMERIC_VALUE_OUT_OF_RANGE, "value out of range: overflow")
        })?),
        (Value::Float(f), _, Type::Float8) => Value::Float(f),
        (Value::Float(f), _, t) if t.is_integer() => {
            let rounded = f.round_ties_even();
            // FLOAT8_FITS_IN_INT64: `as` would saturate what lies beyond bigint.
            if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&rounded) {
                return Err(PgError::new(
                    NUMERIC_VALUE_OUT_OF_RANGE,
                    format!("{} out of range", t.name()),
                ));
            }
            Value::Int(fit_integer(rounded as i64, t)?)
        }
        (Value::Bytea(bytes), Type::Bytea, t) if t.is_integer() => bytea_integer(&bytes, t)?,
        (Value::Int(i), _, Type::Bool) if from == Type::Int4 => Value::Bool(i != 0),
        // `bool_int4`, the only cast from boolean to a number PostgreSQL has.
        (Value::Bool(b), Type::Bool, Type::Int4) => Value::Int(i64::from(b)),
        (Value::Array(items), _, t) if t.element().is_some() && from.element().is_some() => {
            let element = t.element().expect("an array type");
            let from_element = from.element().expect("an array type");
            let mut cast_items = Vec::with_capacity(items.len());
            for item in items {
                cast_items.push(cast(Typed::new(item, from_element), element, None)?.v);
            }
            Value::Array(cast_items)
        }
        (Value::Array(items), _, t) if casts_to_vector(from) && t.vector_kind().is_some() => {
            Value::Vector(array_to_vector(t, items, modifier)?)
        }
        (Value::Array(items), _, Type::Sparsevec) if casts_to_vector(from) => {
            Value::Sparse(Box::new(array_to_sparsevec(items, modifier)?))
        }
        (Value::Vector(items), Type::Vector | Type::Halfvec, Type::Vector | Type::Halfvec) => {
            Value::Vector(vector_to_vector(to, &items, modifier)?)
        }
        (Value::Vector(items), Type::Vector | Type::Halfvec, Type::Sparsevec) => {
            let sparse =
                crate::pg::vector::sparse::from_dense(&items, modifier).map_err(vector_error)?;
            Value::Sparse(Box::new(sparse))
        }
        // `vector_to_float4` (`halfvec_to_float4`): the elements as they are.
        (Value::Vector(items), Type::Vector | Type::Halfvec, Type::Float4Array) => {
            Value::Array(items.iter().map(|x| Value::Float(f64::from(*x))).collect())
        }
        (Value::Sparse(sparse), Type::Sparsevec, t @ (Type::Vector | Type::Halfvec)) => {
            let kind = t.vector_kind().expect("a dense vector type");
            Value::Vector(
                crate::pg::vector::sparse::to_dense(kind, &sparse, modifier)
                    .map_err(vector_error)?,
            )
        }
        (_, f, t) => {
            return Err(PgError::new(
                crate::pg::error::CANNOT_COERCE,
                format!("cannot cast type {} to {}", f.name(), t.name()),
            ))
        }
    };
    let v = crate::pg::types::numeric_cast::apply_modifier(v, to, modifier)?;
    let v = crate::pg::types::datetime_cast::apply_precision(v, to, modifier)?;
    let v = match (v, to) {
        (Value::Interval(i), Type::Interval) if modifier.is_some() => {
            Value::Interval(crate::pg::types::interval::adjust(
                i,
                crate::pg::types::interval::Typmod::of(modifier),
            )?)
        }
        (v, _) => v,
    };
    check_modifier(&v, to, modifier)?;
    Ok(Typed::new(v, to))
}

/// The type two branches of a CASE or arguments of COALESCE, GREATEST or LEAST resolve
/// to (`select_common_type`): an untyped literal takes the other's type, numbers the wider
/// of the two (int2, int4, int8, numeric, float4, float8, in that order), two string types
/// text; otherwise the first (the model does not raise PostgreSQL's mismatch error here).
pub(crate) fn common_type(a: Type, b: Type) -> Type {
    let rank = |t: Type| match t {
        Type::Int2 => 0,
        Type::Int4 => 1,
        Type::Int8 => 2,
        Type::Numeric => 3,
        Type::Float4 => 4,
        _ => 5,
    };
    match (a, b) {
        (Type::Unknown, t) | (t, Type::Unknown) => t,
        (a, b) if a == b => a,
        (a, b) if a.is_numeric() && b.is_numeric() => match rank(a) >= rank(b) {
            true => a,
            false => b,
        },
        (a, b) if a.is_text() && b.is_text() => Type::Text,
        (a, b) if is_datetime(a) && is_datetime(b) => crate::pg::types::datetime_cast::common(a, b),
        (a, _) => a,
    }
}

/// The type COALESCE, GREATEST and LEAST resolve their arguments' types to: their
/// common type, text when every one is untyped.
pub(crate) fn common_of(types: impl IntoIterator<Item = Type>) -> Type {
    match types.into_iter().fold(Type::Unknown, common_type) {
        Type::Unknown => Type::Text,
        t => t,
    }
}

/// Whether a value of type `from` may be stored in a column of type `to` (INSERT,
/// UPDATE's SET): PostgreSQL's assignment coercion, its implicit and assignment casts —
/// numbers among each other, anything into a string type (by its output function), json
/// and jsonb, the date/time types among each other, integers and oids, the arrays pgvector casts to `vector` and `halfvec`
/// (`AS ASSIGNMENT`), `vector` and `halfvec` both ways,
/// arrays element by element. Anything else (a boolean into an integer, text into a
/// uuid) fails with 42804 before a row is read, whatever the value.
pub(crate) fn assignable(from: Type, to: Type) -> bool {
    let oid = |t: Type| matches!(t, Type::Oid | Type::Regtype);
    from == to
        || from == Type::Unknown
        || (from.is_numeric() && to.is_numeric())
        || to.is_text()
        || matches!(
            (from, to),
            (Type::Json, Type::Jsonb) | (Type::Jsonb, Type::Json)
        )
        || (from.is_integer() && oid(to))
        || (oid(from) && (to.is_integer() || oid(to)))
        || (casts_to_vector(from) && to.is_pgvector())
        || (from.is_pgvector() && to.is_pgvector())
        || (from.vector_kind().is_some() && to == Type::Float4Array)
        || (is_datetime(from) && is_datetime(to))
        || matches!((from.element(), to.element()), (Some(f), Some(t)) if assignable(f, t))
}

/// `bytea::int2` and its kin (PostgreSQL 18): the bytes big-endian as the integer's
/// two's complement, no more of them than it is wide.
fn bytea_integer(bytes: &[u8], t: Type) -> PgResult<Value> {
    let width = match t {
        Type::Int2 => 2,
        Type::Int4 => 4,
        _ => 8,
    };
    if bytes.len() > width {
        return Err(PgError::new(
            NUMERIC_VALUE_OUT_OF_RANGE,
            format!("{} out of range", t.name()),
        ));
    }
    let bits = bytes.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b));
    let value = match width {
        2 => i64::from(bits as u16 as i16),
        4 => i64::from(bits as u32 as i32),
        _ => bits as i64,
    };
    Ok(Value::Int(value))
}

/// `vector(n)` and `varchar(n)`.
pub(crate) fn check_modifier(v: &Value, t: Type, modifier: Option<u32>) -> PgResult<()> {
    let Some(n) = modifier else { return Ok(()) };
    match (v, t) {
        // `vector(3)[]`: the modifier holds for every element.
        (Value::Array(items), _) if t.element().is_some() => {
            let element = t.element().expect("an array type");
            items
                .iter()
                .try_for_each(|item| check_modifier(item, element, modifier))
        }
        (Value::Vector(items), Type::Vector | Type::Halfvec) => {
            crate::pg::vector::value::check_expected_dimensions(Some(n as usize), items)
                .map_err(|e| PgError::new(e.sqlstate, e.message))
        }
        (Value::Sparse(sparse), Type::Sparsevec) => {
            crate::pg::vector::sparse::check_expected_dimensions(
                Some(n),
                i64::from(sparse.dimensions()),
            )
            .map_err(vector_error)
        }
        // An explicit cast pads or truncates, an assignment fails: the model cannot
        // tell them apart here, so refuses both.
        (Value::Bit(bits), Type::Bit) if bits.len() != n as usize => Err(PgError::unsupported(
            format!("a bit string of {} bits as bit({n})", bits.len()),
        )),
        (Value::Text(s), Type::Varchar) if s.chars().count() > n as usize => Err(PgError::new(
            STRING_DATA_RIGHT_TRUNCATION,
            format!("value too long for type character varying({n})"),
        )),
        _ => Ok(()),
    }
}

/// json ↔ jsonb: jsonb reads json's text; json is jsonb's normalised text.
pub(crate) fn convert(v: Value, from: Type, to: Type) -> PgResult<Value> {
    match (v, from, to) {
        (Value::Text(text), Type::Json, Type::Jsonb) => {
            crate::pg::types::text::parse(&text, Type::Jsonb)
        }
        (Value::Jsonb(json), Type::Jsonb, Type::Json) => {
            Ok(Value::Text(crate::pg::types::jsonb::format(&json)))
        }
        (v, _, _) => Ok(v),
    }
}

/// The array types pgvector casts to `vector`, `halfvec` and `sparsevec`.
fn casts_to_vector(from: Type) -> bool {
    matches!(
        from,
        Type::Int4Array | Type::Float4Array | Type::Float8Array | Type::NumericArray
    )
}

/// `array_to_vector` (`array_to_halfvec`): an `integer[]`, `double precision[]` or
/// `numeric[]` as a vector of type `to` (of `modifier` dimensions if given), its checks
/// in pgvector's order: one dimension, no nulls, the length, each element read as a
/// float4 and stored, each element finite.
fn array_to_vector(to: Type, items: Vec<Value>, modifier: Option<u32>) -> PgResult<Vec<f32>> {
    let kind = to.vector_kind().expect("a vector type");
    let error = |e: crate::pg::vector::value::VectorError| PgError::new(e.sqlstate, e.message);
    check_vector_array(&items)?;
    let expected = modifier.map(|m| m as usize);
    crate::pg::vector::value::check_array_dimensions(kind, items.len(), expected).map_err(error)?;
    let floats = array_floats(&items)?;
    crate::pg::vector::value::store_elements(kind, &floats).map_err(error)
}

/// `array_to_sparsevec`: the array's checks as `array_to_vector`'s, then the length's
/// (a sparsevec's dimensions), then the elements read as float4s, the non-zero kept.
fn array_to_sparsevec(
    items: Vec<Value>,
    modifier: Option<u32>,
) -> PgResult<crate::pg::vector::sparse::Sparse> {
    use crate::pg::vector::sparse;
    check_vector_array(&items)?;
    sparse::check_length(items.len() as i64, modifier).map_err(vector_error)?;
    let floats = array_floats(&items)?;
    sparse::from_floats(&floats, modifier).map_err(vector_error)
}

/// pgvector's error as PostgreSQL reports it.
fn vector_error(e: crate::pg::vector::value::VectorError) -> PgError {
    PgError::from(e)
}

/// An array a pgvector cast reads: one dimension, no NULL.
fn check_vector_array(items: &[Value]) -> PgResult<()> {
    if items.iter().any(|item| matches!(item, Value::Array(_))) {
        return Err(PgError::new(DATA_EXCEPTION, "array must be 1-D"));
    }
    if items.iter().any(Value::is_null) {
        return Err(PgError::new(
            NULL_VALUE_NOT_ALLOWED,
            "array must not contain nulls",
        ));
    }
    Ok(())
}

/// An array's elements read as float4s, as pgvector's casts read them.
fn array_floats(items: &[Value]) -> PgResult<Vec<f32>> {
    items
        .iter()
        .map(|item| match item {
            Value::Int(n) => Ok(*n as f32),
            // C's double-to-float conversion: past float4's range, an infinity.
            Value::Float(f) => Ok(*f as f32),
            Value::Numeric(n) => Ok(n.to_float(true)? as f32),
            other => Err(PgError::new(
                DATA_EXCEPTION,
                format!("unsupported array element {other:?}"),
            )),
        })
        .collect::<PgResult<Vec<f32>>>()
}

/// `vector_to_halfvec`, `halfvec_to_vector` (and the typmod casts `vector(n)`,
/// `halfvec(n)`): the dimensions checked, each element stored as `to` stores it.
fn vector_to_vector(to: Type, items: &[f32], modifier: Option<u32>) -> PgResult<Vec<f32>> {
    let kind = to.vector_kind().expect("a vector type");
    let error = |e: crate::pg::vector::value::VectorError| PgError::new(e.sqlstate, e.message);
    let expected = modifier.map(|m| m as usize);
    crate::pg::vector::value::check_array_dimensions(kind, items.len(), expected).map_err(error)?;
    crate::pg::vector::value::store_elements(kind, items).map_err(error)
}
