//! Values in PostgreSQL's binary form, both ways: what tokio-postgres (and the `pgvector`
//! crate) send as parameters and ask for as results.

use crate::pg::error::{PgError, PgResult, PROTOCOL_VIOLATION};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Interval, Value};

fn malformed(t: Type) -> PgError {
    PgError::new(
        PROTOCOL_VIOLATION,
        format!(
            "incorrect binary data format in bind parameter of type {}",
            t.name()
        ),
    )
}

/// `value` of type `t` in binary.
pub(crate) fn encode(value: &Value, t: Type) -> Vec<u8> {
    match (value, t) {
        (Value::Bool(b), _) => vec![u8::from(*b)],
        (Value::Int(i), Type::Int2) => (*i as i16).to_be_bytes().to_vec(),
        (Value::Int(i), Type::Int4) => (*i as i32).to_be_bytes().to_vec(),
        (Value::Int(i), Type::Oid | Type::Regconfig | Type::Regtype) => {
            (*i as u32).to_be_bytes().to_vec()
        }
        (Value::Int(i), _) => i.to_be_bytes().to_vec(),
        (Value::Float(f), Type::Float4) => (*f as f32).to_be_bytes().to_vec(),
        (Value::Float(f), _) => f.to_be_bytes().to_vec(),
        (Value::Numeric(n), _) => crate::pg::types::numeric::encode_binary(n),
        (Value::Tsvector(v), _) => crate::pg::types::tsearch::encode_tsvector(v),
        (Value::Tsquery(q), _) => crate::pg::types::tsearch::encode_tsquery(q),
        (Value::Text(s), _) => s.as_bytes().to_vec(),
        (Value::Bytea(b), _) => b.clone(),
        (Value::Timestamptz(us) | Value::Timestamp(us), _) => us.to_be_bytes().to_vec(),
        (Value::Date(days), _) => days.to_be_bytes().to_vec(),
        (Value::Interval(i), _) => encode_interval(i),
        (Value::Vector(v), t) => {
            let kind = t.vector_kind().expect("a vector value has a vector type");
            crate::pg::vector::value::encode_binary(kind, v)
        }
        (Value::Sparse(v), _) => crate::pg::vector::sparse::encode_binary(v),
        (Value::Bit(bits), _) => crate::pg::types::bit::encode_binary(bits),
        (Value::Uuid(u), _) => u.to_vec(),
        (Value::Jsonb(j), _) => crate::pg::types::jsonb::encode_binary(j),
        (Value::Array(items), t) => encode_array(items, t.element().unwrap_or(Type::Text)),
        (Value::Null, _) => Vec::new(),
    }
}

fn encode_interval(i: &Interval) -> Vec<u8> {
    let mut out = i.us.to_be_bytes().to_vec();
    out.extend(i.days.to_be_bytes());
    out.extend(i.months.to_be_bytes());
    out
}

fn encode_array(items: &[Value], element: Type) -> Vec<u8> {
    let mut out = Vec::new();
    let has_null = items.iter().any(Value::is_null);
    let dimensions: i32 = if items.is_empty() { 0 } else { 1 };
    out.extend(dimensions.to_be_bytes());
    out.extend(i32::from(has_null).to_be_bytes());
    out.extend(element.oid().to_be_bytes());
    if items.is_empty() {
        return out;
    }
    out.extend((items.len() as i32).to_be_bytes());
    out.extend(1i32.to_be_bytes());
    for item in items {
        if item.is_null() {
            out.extend((-1i32).to_be_bytes());
            continue;
        }
        let bytes = encode(item, element);
        out.extend((bytes.len() as i32).to_be_bytes());
        out.extend(bytes);
    }
    out
}

/// A binary parameter of type `t`.
pub(crate) fn decode(bytes: &[u8], t: Type) -> PgResult<Value> {
    let fixed = |n: usize| -> PgResult<&[u8]> {
        (bytes.len() == n)
            .then_some(bytes)
            .ok_or_else(|| malformed(t))
    };
    let value = match t {
        Type::Bool => Value::Bool(fixed(1)?[0] != 0),
        Type::Int2 => Value::Int(i16::from_be_bytes(fixed(2)?.try_into().expect("2")) as i64),
        Type::Int4 => Value::Int(i32::from_be_bytes(fixed(4)?.try_into().expect("4")) as i64),
        Type::Int8 => Value::Int(i64::from_be_bytes(fixed(8)?.try_into().expect("8"))),
        Type::Oid | Type::Regtype => {
            Value::Int(u32::from_be_bytes(fixed(4)?.try_into().expect("4")) as i64)
        }
        Type::Name | Type::Char => Value::Text(utf8(bytes)?.to_string()),
        Type::Float4 => Value::Float(f32::from_be_bytes(fixed(4)?.try_into().expect("4")) as f64),
        Type::Float8 => Value::Float(f64::from_be_bytes(fixed(8)?.try_into().expect("8"))),
        Type::Text | Type::Varchar | Type::Unknown => Value::Text(utf8(bytes)?.to_string()),
        Type::Bytea => Value::Bytea(bytes.to_vec()),
        Type::Timestamptz => {
            Value::Timestamptz(i64::from_be_bytes(fixed(8)?.try_into().expect("8")))
        }
        Type::Timestamp => Value::Timestamp(crate::pg::types::datetime::receive_timestamp(
            i64::from_be_bytes(fixed(8)?.try_into().expect("8")),
        )?),
        Type::Date => Value::Date(crate::pg::types::datetime::receive_date(
            i32::from_be_bytes(fixed(4)?.try_into().expect("4")),
        )?),
        Type::Interval => decode_interval(fixed(16)?),
        Type::Vector | Type::Halfvec => {
            let kind = t.vector_kind().expect("a vector type");
            crate::pg::vector::value::decode_binary(kind, bytes)
                .map(Value::Vector)
                .map_err(|e| PgError::new(e.sqlstate, e.message))?
        }
        Type::Sparsevec => crate::pg::vector::sparse::decode_binary(bytes, None)
            .map(|v| Value::Sparse(Box::new(v)))
            .map_err(crate::pg::error::PgError::from)?,
        Type::Uuid => Value::Uuid(fixed(16)?.try_into().expect("16")),
        Type::Jsonb => decode_jsonb(bytes)?,
        // json_recv: the text, checked.
        Type::Json => crate::pg::types::text::parse(utf8(bytes)?, Type::Json)?,
        Type::Void => Value::Null,
        Type::Tsvector | Type::Tsquery | Type::Regconfig | Type::Bit => {
            return Err(PgError::unsupported(format!(
                "a binary {} parameter",
                t.name()
            )))
        }
        Type::Numeric => Value::Numeric(Box::new(crate::pg::types::numeric::decode_binary(bytes)?)),
        array if array.element().is_some() => {
            crate::pg::types::array_recv::decode(bytes, array, decode)?
        }
        other => return Err(malformed(other)),
    };
    Ok(value)
}

/// `jsonb_recv`: the version byte (only 1 exists), then the text.
fn decode_jsonb(bytes: &[u8]) -> PgResult<Value> {
    let Some((&version, text)) = bytes.split_first() else {
        return Err(malformed(Type::Jsonb));
    };
    if version != crate::pg::types::jsonb::BINARY_VERSION {
        return Err(PgError::new(
            crate::pg::error::INTERNAL_ERROR,
            format!("unsupported jsonb version number {version}"),
        ));
    }
    crate::pg::types::text::parse(utf8(text)?, Type::Jsonb)
}

/// Text received in binary, checked as `pq_getmsgtext` checks it.
fn utf8(bytes: &[u8]) -> PgResult<&str> {
    crate::pg::types::encoding::verify(bytes)
}

fn decode_interval(bytes: &[u8]) -> Value {
    let us = i64::from_be_bytes(bytes[..8].try_into().expect("8"));
    let days = i32::from_be_bytes(bytes[8..12].try_into().expect("4"));
    let months = i32::from_be_bytes(bytes[12..16].try_into().expect("4"));
    Value::Interval(Interval { months, days, us })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_round_trip() {
        let array = Value::Array(vec![Value::Bytea(vec![1, 2]), Value::Null]);
        let bytes = encode(&array, Type::ByteaArray);
        assert_eq!(decode(&bytes, Type::ByteaArray).unwrap(), array);
        let empty = Value::Array(vec![]);
        assert_eq!(
            decode(&encode(&empty, Type::TextArray), Type::TextArray).unwrap(),
            empty
        );
    }

    #[test]
    fn truncated_input_is_refused() {
        assert!(decode(&[0, 0, 1], Type::Int4).is_err());
        assert!(decode(&[0, 0, 0, 1, 0, 0], Type::Int8Array).is_err());
    }
}
