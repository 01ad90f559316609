//! An array parameter in binary (PostgreSQL's `array_recv`), as sqlx and tokio-postgres
//! send a Rust `Vec`: the number of dimensions, a has-null flag (0 or 1), the element
//! type's OID, each dimension's length and lower bound, then every element as a length
//! (-1 for NULL) and its bytes in the element type's binary form.
//!
//! Every header field is checked as `array_recv` checks it, in its order, with its
//! SQLSTATE: a short message is a protocol violation (08P01), a bad field or element
//! length an invalid binary representation (22P03), a size past PostgreSQL's limits
//! 54000. The element OID is held to the expected one only when both are built-in (below
//! 10000), as PostgreSQL does: an extension's OID (pgvector's `vector`) differs per
//! database, so any is taken. The model keeps one-dimensional arrays with lower bound 1;
//! other shapes are read through (so a malformed one fails as on PostgreSQL) and then
//! refused with 0A000.

use crate::pg::error::*;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::Value;

/// PostgreSQL's `MAXDIM`.
const DIMENSIONS_MAX: i32 = 6;
/// PostgreSQL's `MaxArraySize`: elements one array may have.
const ITEMS_MAX: i64 = 134_217_727;
/// OIDs below this are built in (`FirstGenbkiObjectId`), stable across databases.
const BUILTIN_OID_END: u32 = 10_000;
/// `invalid_binary_representation`.
const INVALID_BINARY_REPRESENTATION: &str = "22P03";

fn insufficient() -> PgError {
    PgError::new(PROTOCOL_VIOLATION, "insufficient data left in message")
}

fn invalid(message: impl Into<String>) -> PgError {
    PgError::new(INVALID_BINARY_REPRESENTATION, message)
}

fn too_large(message: impl Into<String>) -> PgError {
    PgError::new(PROGRAM_LIMIT_EXCEEDED, message)
}

/// A binary array of type `t` (an array type), the whole parameter.
/// How an element's bytes become a value (`binary::decode`, handed in by the caller so
/// that the element types' forms stay in one place).
pub(crate) type DecodeElement = fn(&[u8], Type) -> PgResult<Value>;

pub(crate) fn decode(bytes: &[u8], t: Type, decode_element: DecodeElement) -> PgResult<Value> {
    let element = t.element().expect("an array type");
    let mut reader = Reader { bytes, at: 0 };
    let dimensions = reader.i32()?;
    if dimensions < 0 {
        return Err(invalid(format!(
            "invalid number of dimensions: {dimensions}"
        )));
    }
    if dimensions > DIMENSIONS_MAX {
        return Err(too_large(format!("number of array dimensions ({dimensions}) exceeds the maximum allowed ({DIMENSIONS_MAX})")));
    }
    let flags = reader.i32()?;
    if flags != 0 && flags != 1 {
        return Err(invalid("invalid array flags"));
    }
    check_element_oid(reader.i32()? as u32, element)?;
    let shape = read_shape(&mut reader, dimensions)?;
    let mut items = Vec::new();
    for at in 0..shape.items {
        items.push(read_item(&mut reader, element, at + 1, decode_element)?);
    }
    if reader.at != bytes.len() {
        return Err(invalid("incorrect binary data format in bind parameter"));
    }
    if shape.items > 0 && (dimensions > 1 || !shape.lower_bounds_one) {
        return Err(PgError::unsupported(
            "an array with several dimensions or a lower bound other than 1",
        ));
    }
    Ok(Value::Array(items))
}

/// `binary data has array element type …` when both OIDs are built in and differ.
fn check_element_oid(sent: u32, element: Type) -> PgResult<()> {
    let expected = element.oid();
    if sent == expected || sent >= BUILTIN_OID_END || expected >= BUILTIN_OID_END {
        return Ok(());
    }
    let name = Type::from_oid(sent).map_or("???", Type::name);
    Err(PgError::new(
        DATATYPE_MISMATCH,
        format!(
            "binary data has array element type {sent} ({name}) instead of expected {expected} ({})",
            element.name()
        ),
    ))
}

/// What the dimensions say: how many elements follow, whether every lower bound is 1.
struct Shape {
    items: i64,
    lower_bounds_one: bool,
}

/// The dimensions' lengths and lower bounds, checked as `ArrayGetNItems` and
/// `ArrayCheckBounds` check them.
fn read_shape(reader: &mut Reader<'_>, dimensions: i32) -> PgResult<Shape> {
    let mut bounds = Vec::with_capacity(dimensions as usize);
    for _ in 0..dimensions {
        bounds.push((reader.i32()?, reader.i32()?));
    }
    let size_error = || {
        too_large(format!(
            "array size exceeds the maximum allowed ({ITEMS_MAX})"
        ))
    };
    let mut items: i64 = 1;
    for (length, _) in &bounds {
        if *length < 0 {
            return Err(size_error());
        }
        items = items.saturating_mul(i64::from(*length));
        if items > ITEMS_MAX {
            return Err(size_error());
        }
    }
    for (length, lower) in &bounds {
        if lower.checked_add(*length).is_none() {
            return Err(too_large(format!(
                "array lower bound is too large: {lower}"
            )));
        }
    }
    Ok(Shape {
        items: if dimensions == 0 { 0 } else { items },
        lower_bounds_one: bounds.iter().all(|(_, lower)| *lower == 1),
    })
}

/// Element `number` (from 1): its length, then its bytes in `element`'s binary form.
fn read_item(
    reader: &mut Reader<'_>,
    element: Type,
    number: i64,
    decode_element: DecodeElement,
) -> PgResult<Value> {
    let length = reader.i32()?;
    if length == -1 {
        return Ok(Value::Null);
    }
    let remaining = reader.bytes.len() - reader.at;
    if length < -1 || length as usize > remaining {
        return Err(invalid("insufficient data left in message"));
    }
    let bytes = reader.take(length as usize)?;
    let improper = || invalid(format!("improper binary format in array element {number}"));
    // A fixed-size element's receive function reads its size: fewer bytes run out of
    // message, more are left over.
    if let Ok(size) = usize::try_from(element.size()) {
        if bytes.len() < size {
            return Err(insufficient());
        }
        if bytes.len() > size {
            return Err(improper());
        }
    }
    if element.is_text() {
        check_text(bytes)?;
    }
    decode_element(bytes, element).map_err(|e| match e.code {
        INVALID_BINARY_REPRESENTATION => improper(),
        _ => e,
    })
}

/// Text elements are checked as the server encoding's input is: UTF-8 without NUL.
fn check_text(bytes: &[u8]) -> PgResult<()> {
    let bad = |byte: u8| {
        PgError::new(
            CHARACTER_NOT_IN_REPERTOIRE,
            format!("invalid byte sequence for encoding \"UTF8\": 0x{byte:02x}"),
        )
    };
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(bad(bytes[e.valid_up_to()]));
    }
    match bytes.iter().position(|b| *b == 0) {
        Some(_) => Err(bad(0)),
        None => Ok(()),
    }
}

struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> PgResult<&'b [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len());
        let end = end.ok_or_else(insufficient)?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn i32(&mut self) -> PgResult<i32> {
        Ok(i32::from_be_bytes(self.take(4)?.try_into().expect("4")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|at| u8::from_str_radix(&text[at..at + 2], 16).expect("hex"))
            .collect()
    }

    fn words(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_be_bytes()).collect()
    }

    /// The decoder as the binary form calls it, with its own element decoder.
    fn decode(bytes: &[u8], t: Type) -> PgResult<Value> {
        super::decode(bytes, t, crate::pg::types::binary::decode)
    }

    fn code(bytes: &[u8], t: Type) -> &'static str {
        decode(bytes, t).expect_err("malformed").code
    }

    /// `array_send`'s output on PostgreSQL 18.3 + pgvector 0.8.2 reads back as the array.
    #[test]
    fn postgres_array_send_output_is_read() {
        let uuids = hex("000000010000000100000b860000000200000001000000105e0a6f0c000040008000000000000001ffffffff");
        let Value::Array(items) = decode(&uuids, Type::UuidArray).unwrap() else {
            panic!("an array")
        };
        assert_eq!(
            crate::pg::types::uuid::format(match &items[0] {
                Value::Uuid(u) => u,
                _ => panic!(),
            }),
            "5e0a6f0c-0000-4000-8000-000000000001"
        );
        assert_eq!(items[1], Value::Null);
        // vector's element OID is that database's (19140), not the model's.
        let vectors = hex("000000010000000000004ac400000002000000010000000c000200003f800000400000000000000c000200004040000040800000");
        assert_eq!(
            decode(&vectors, Type::VectorArray).unwrap(),
            Value::Array(vec![
                Value::Vector(vec![1.0, 2.0]),
                Value::Vector(vec![3.0, 4.0])
            ])
        );
        let jsonb = hex("000000010000000000000eda000000010000000100000009017b2261223a20317d");
        let Value::Array(items) = decode(&jsonb, Type::JsonbArray).unwrap() else {
            panic!("an array")
        };
        assert_eq!(
            crate::pg::types::text::format(&items[0], Type::Jsonb).unwrap(),
            "{\"a\": 1}"
        );
        let text = hex("0000000100000000000000190000000200000001000000017800000002797a");
        assert_eq!(
            decode(&text, Type::TextArray).unwrap(),
            Value::Array(vec![Value::Text("x".into()), Value::Text("yz".into())])
        );
        let empty = hex("000000000000000000000019");
        assert_eq!(
            decode(&empty, Type::TextArray).unwrap(),
            Value::Array(vec![])
        );
    }

    /// Each malformed header gets PostgreSQL's SQLSTATE (probed on 18.3 through Bind).
    #[test]
    fn malformed_headers_get_postgres_errors() {
        let t = Type::TextArray;
        let a = |rest: &[u8]| [words(&[1, 0, 25, 1, 1]), rest.to_vec()].concat();
        assert_eq!(code(&words(&[-1, 0, 25]), t), "22P03");
        assert_eq!(code(&words(&[7, 0, 25]), t), "54000");
        assert_eq!(code(&words(&[1, 2, 25, 1, 1, 1, 97]), t), "22P03");
        assert_eq!(code(&words(&[1, 0, 23, 1, 1, 1, 97]), t), "42804");
        assert_eq!(code(&words(&[1, 0, 25, -1, 1]), t), "54000");
        assert_eq!(code(&words(&[1, 0, 25, 200_000_000, 1]), t), "54000");
        assert_eq!(code(&words(&[1, 0, 25, 2, i32::MAX]), t), "54000");
        assert_eq!(code(&words(&[1, 0]), t), "08P01");
        assert_eq!(code(&words(&[0, 0, 25, 5]), t), "22P03");
        assert_eq!(code(&a(&words(&[-2])), t), "22P03");
        assert_eq!(code(&a(&[0, 0, 0, 5, 97, 98]), t), "22P03");
        assert_eq!(code(&a(&[0, 0, 0, 1, 0xff]), t), "22021");
        assert_eq!(
            code(&[words(&[1, 0, 25, 2, 1, 1]), vec![97]].concat(), t),
            "08P01"
        );
        // A length of 0 or a flag that disagrees with the elements is taken.
        assert_eq!(
            decode(&words(&[1, 0, 25, 0, 1]), t).unwrap(),
            Value::Array(vec![])
        );
        assert!(decode(&[words(&[1, 0, 20_000, 1, 1, 1]), vec![97]].concat(), t).is_ok());
        assert_eq!(
            decode(&[words(&[1, 1, 25, 1, 1, 1]), vec![97]].concat(), t).unwrap(),
            Value::Array(vec![Value::Text("a".into())])
        );
    }

    #[test]
    fn malformed_elements_get_postgres_errors() {
        let one = |oid: i32, item: &[u8]| {
            [words(&[1, 0, oid, 1, 1, item.len() as i32]), item.to_vec()].concat()
        };
        assert_eq!(code(&one(23, &[0, 0, 1]), Type::Int4Array), "08P01");
        assert_eq!(code(&one(23, &[0, 0, 0, 1, 0]), Type::Int4Array), "22P03");
        assert_eq!(code(&one(2950, &[1; 15]), Type::UuidArray), "08P01");
        assert_eq!(code(&one(2950, &[1; 17]), Type::UuidArray), "22P03");
        assert_eq!(code(&one(3802, b"\x02{}"), Type::JsonbArray), "XX000");
        assert_eq!(code(&one(3802, b""), Type::JsonbArray), "08P01");
        assert_eq!(code(&one(3802, b"\x01{"), Type::JsonbArray), "22P02");
        assert_eq!(code(&one(25, b"a\0b"), Type::TextArray), "22021");
        let vector = |dims: u16, unused: u16, floats: &[f32]| {
            let mut out = [dims.to_be_bytes(), unused.to_be_bytes()].concat();
            floats.iter().for_each(|f| out.extend(f.to_be_bytes()));
            out
        };
        let v = vector(2, 0, &[1.0, 2.0]);
        assert_eq!(code(&one(0, &v[..v.len() - 1]), Type::VectorArray), "08P01");
        assert_eq!(
            code(&one(0, &[v.clone(), vec![0]].concat()), Type::VectorArray),
            "22P03"
        );
        assert_eq!(
            code(&one(701, &vector(1, 1, &[1.0])), Type::VectorArray),
            "22000"
        );
        assert_eq!(
            code(&one(0, &vector(0, 0, &[])), Type::VectorArray),
            "22000"
        );
        assert_eq!(
            code(&one(0, &vector(1, 0, &[f32::NAN])), Type::VectorArray),
            "22000"
        );
        // Several dimensions or another lower bound are read through, then refused.
        assert_eq!(
            code(&words(&[2, 0, 25, 1, 1, 1, 1]), Type::TextArray),
            "08P01"
        );
        let two = [words(&[2, 0, 25, 1, 1, 1, 1, 1]), vec![97]].concat();
        assert_eq!(code(&two, Type::TextArray), "0A000");
        let zero = [words(&[1, 0, 25, 1, 0, 1]), vec![97]].concat();
        assert_eq!(code(&zero, Type::TextArray), "0A000");
    }
}
