//! Values in PostgreSQL's text form, both ways: what the simple query protocol sends and
//! a text-format parameter or a literal holds. Timestamps are printed in UTC (the model's
//! `TimeZone`), floats with PostgreSQL's shortest round-trip digits.

use crate::pg::error::{PgError, PgResult, NUMERIC_VALUE_OUT_OF_RANGE};
use crate::pg::types::pg_type::{fit_integer, invalid_input, Type, VALUE_BYTES_MAX};
use crate::pg::types::value::Value;

/// `value` (of type `t`) as PostgreSQL prints it; `None` for NULL.
pub(crate) fn format(value: &Value, t: Type) -> Option<String> {
    let text = match value {
        Value::Null => return None,
        Value::Bool(b) => if *b { "t" } else { "f" }.to_string(),
        Value::Int(_) if t == Type::Regconfig => "simple".to_string(),
        Value::Int(i) if t == Type::Regtype => crate::pg::types::regtype::format(*i),
        Value::Int(i) => i.to_string(),
        Value::Float(f) if t == Type::Float4 => crate::pg::vector::value::format_float4(*f as f32),
        Value::Float(f) => format_float8(*f),
        Value::Numeric(n) => n.format(),
        Value::Tsvector(v) => crate::pg::types::tsearch::format_tsvector(v),
        Value::Tsquery(q) => crate::pg::types::tsearch::format_tsquery(q),
        Value::Text(s) => s.clone(),
        Value::Bytea(b) => format_bytea(b),
        Value::Timestamptz(us) => format_timestamptz(*us),
        Value::Timestamp(us) => crate::pg::types::datetime::format_timestamp(*us, ' ', ""),
        Value::Date(days) => crate::pg::types::datetime::format_date(i64::from(*days)),
        Value::Interval(i) => crate::pg::types::interval_ops::format(i),
        Value::Vector(v) => crate::pg::vector::value::format_text(v),
        Value::Sparse(v) => crate::pg::vector::sparse::format_text(v),
        Value::Bit(bits) => crate::pg::types::bit::format(bits),
        Value::Uuid(u) => crate::pg::types::uuid::format(u),
        Value::Jsonb(j) => crate::pg::types::jsonb::format(j),
        Value::Array(items) => format_array(items, t.element().unwrap_or(Type::Text)),
    };
    Some(text)
}

/// `f` rounded to a float4, as float4 stores it; `None` when it overflows or underflows
/// to zero (PostgreSQL's 22003).
pub(crate) fn float4(f: f64) -> Option<f64> {
    let rounded = f as f32;
    let overflow = f.is_finite() && rounded.is_infinite();
    let underflow = rounded == 0.0 && f != 0.0;
    (!overflow && !underflow).then_some(f64::from(rounded))
}

/// float8out: shortest round-trip digits, fixed notation for decimal exponents -4..15.
pub(crate) fn format_float8(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    shortest_to_pg(&format!("{f:e}"), 15)
}

/// From Rust's shortest `d.ddde±x` form to PostgreSQL's layout (`digits_max` is
/// DBL_DIG or FLT_DIG: exponents from there on print in scientific notation).
pub(crate) fn shortest_to_pg(sci: &str, digits_max: i32) -> String {
    let (mantissa, exponent) = sci.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if exponent < -4 || exponent >= digits_max {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}{fraction}e{esign}{:02}", exponent.abs());
    }
    if exponent < 0 {
        let zeros = "0".repeat((-exponent - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let point = exponent as usize + 1;
    if digits.len() <= point {
        return format!("{sign}{digits}{}", "0".repeat(point - digits.len()));
    }
    format!("{sign}{}.{}", &digits[..point], &digits[point..])
}

fn format_bytea(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(2 + bytes.len() * 2);
    text.push_str("\\x");
    for byte in bytes {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

/// `YYYY-MM-DD HH:MM:SS[.ffffff]+00`, trailing zeros of the fraction dropped.
pub(crate) fn format_timestamptz(pg_us: i64) -> String {
    crate::pg::types::datetime::format_timestamp(pg_us, ' ', "+00")
}

fn format_array(items: &[Value], element: Type) -> String {
    let texts: Vec<String> = items
        .iter()
        .map(|item| match format(item, element) {
            None => "NULL".to_string(),
            Some(text) => quote_array_element(&text),
        })
        .collect();
    format!("{{{}}}", texts.join(","))
}

fn quote_array_element(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.eq_ignore_ascii_case("null")
        && !text
            .chars()
            .any(|c| matches!(c, '"' | '\\' | '{' | '}' | ',') || c.is_ascii_whitespace());
    if plain {
        return text.to_string();
    }
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

/// A text value (a literal, a text-format parameter) as type `t`.
pub(crate) fn parse(text: &str, t: Type) -> PgResult<Value> {
    if text.len() > VALUE_BYTES_MAX {
        return Err(PgError::new(
            crate::pg::error::PROGRAM_LIMIT_EXCEEDED,
            format!("value longer than the model's {VALUE_BYTES_MAX} bytes"),
        ));
    }
    let trimmed = text.trim();
    match t {
        Type::Bool => parse_bool(trimmed).ok_or_else(|| invalid_input(t, text)),
        Type::Oid => text
            .trim()
            .parse::<u32>()
            .map(|o| Value::Int(o as i64))
            .map_err(|_| invalid_input(t, text)),
        Type::Regtype => crate::pg::types::regtype::parse(text),
        Type::Name | Type::Char => Ok(Value::Text(text.to_string())),
        Type::Int2 | Type::Int4 | Type::Int8 => match parse_integer(trimmed) {
            Some(Some(value)) => Ok(Value::Int(fit_integer(value, t)?)),
            Some(None) => Err(PgError::new(
                NUMERIC_VALUE_OUT_OF_RANGE,
                format!("value \"{text}\" is out of range for type {}", t.name()),
            )),
            None => Err(invalid_input(t, text)),
        },
        Type::Numeric => {
            crate::pg::types::numeric::parse(text).map(|n| Value::Numeric(Box::new(n)))
        }
        Type::Tsvector => {
            crate::pg::types::tsearch::parse_tsvector(text).map(|v| Value::Tsvector(Box::new(v)))
        }
        Type::Tsquery => Err(PgError::unsupported("tsquery text input")),
        Type::Regconfig => crate::pg::types::regtype::regconfig(trimmed),
        Type::Float4 => {
            let f = parse_float(trimmed).ok_or_else(|| invalid_input(t, text))?;
            float4(f)
                .filter(|_| !beyond_float8(trimmed, f))
                .map(Value::Float)
                .ok_or_else(|| {
                    PgError::new(
                        NUMERIC_VALUE_OUT_OF_RANGE,
                        format!("\"{trimmed}\" is out of range for type real"),
                    )
                })
        }
        Type::Float8 => {
            let f = parse_float(trimmed).ok_or_else(|| invalid_input(t, text))?;
            match beyond_float8(trimmed, f) {
                true => Err(PgError::new(
                    NUMERIC_VALUE_OUT_OF_RANGE,
                    format!("\"{trimmed}\" is out of range for type double precision"),
                )),
                false => Ok(Value::Float(f)),
            }
        }
        Type::Text | Type::Varchar | Type::Unknown => Ok(Value::Text(text.to_string())),
        Type::Bytea => parse_bytea(text).map(Value::Bytea),
        Type::Timestamptz => crate::pg::types::datetime::parse(text, t).map(Value::Timestamptz),
        Type::Timestamp => crate::pg::types::datetime::parse(text, t).map(Value::Timestamp),
        Type::Date => {
            crate::pg::types::datetime::parse(text, t).map(|days| Value::Date(days as i32))
        }
        Type::Interval => {
            crate::pg::types::interval::parse(text, Default::default()).map(Value::Interval)
        }
        Type::Vector | Type::Halfvec => {
            let kind = t.vector_kind().expect("a vector type");
            crate::pg::vector::value::parse_text(kind, text)
                .map(Value::Vector)
                .map_err(|e| PgError::new(e.sqlstate, e.message))
        }
        Type::Sparsevec => crate::pg::vector::sparse::parse_text(text, None)
            .map(|v| Value::Sparse(Box::new(v)))
            .map_err(crate::pg::error::PgError::from),
        Type::Bit => crate::pg::types::bit::parse(text, None).map(Value::Bit),
        Type::Uuid => crate::pg::types::uuid::parse(text).map(Value::Uuid),
        Type::Jsonb => {
            crate::pg::types::jsonb_parse::parse(text).map(|j| Value::Jsonb(Box::new(j)))
        }
        Type::Json => crate::pg::types::json::parse(text),
        Type::Void => Ok(Value::Null),
        array => parse_array(text, array),
    }
}

fn parse_bool(text: &str) -> Option<Value> {
    let lower = text.to_ascii_lowercase();
    // boolin takes any prefix of true, false, yes and no, and of on and off one of at
    // least two letters (a lone "o" is ambiguous).
    let prefix = |word: &str, least: usize| lower.len() >= least && word.starts_with(&lower);
    let value = match lower.as_str() {
        "1" => true,
        "0" => false,
        _ if prefix("true", 1) || prefix("yes", 1) || prefix("on", 2) => true,
        _ if prefix("false", 1) || prefix("no", 1) || prefix("off", 2) => false,
        _ => return None,
    };
    Some(Value::Bool(value))
}

fn parse_float(text: &str) -> Option<f64> {
    match text.to_ascii_lowercase().as_str() {
        "nan" => Some(f64::NAN),
        "infinity" | "inf" | "+infinity" => Some(f64::INFINITY),
        "-infinity" | "-inf" => Some(f64::NEG_INFINITY),
        lower
            if lower
                .chars()
                .all(|c| c.is_ascii_digit() || "+-.e".contains(c)) =>
        {
            lower.parse().ok()
        }
        _ => None,
    }
}

/// Whether digits `text` read as `f` overflowed a double or underflowed it to zero:
/// `float8in`'s ERANGE from strtod (a denormal result is kept, as there).
fn beyond_float8(text: &str, f: f64) -> bool {
    let lower = text.to_ascii_lowercase();
    if lower.contains("inf") || lower.contains("nan") {
        return false;
    }
    let mantissa = lower.split('e').next().unwrap_or_default();
    f.is_infinite() || (f == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)))
}

fn parse_bytea(text: &str) -> PgResult<Vec<u8>> {
    let Some(hex) = text.strip_prefix("\\x") else {
        return parse_bytea_escape(text).ok_or_else(|| invalid_input(Type::Bytea, text));
    };
    let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if digits.len() % 2 == 1 {
        return Err(PgError::new(
            crate::pg::error::INVALID_PARAMETER_VALUE,
            "invalid hexadecimal data: odd number of digits",
        ));
    }
    digits
        .chunks(2)
        .map(|pair| {
            let pair = std::str::from_utf8(pair).unwrap_or("zz");
            u8::from_str_radix(pair, 16).map_err(|_| {
                PgError::new(
                    crate::pg::error::INVALID_PARAMETER_VALUE,
                    format!("invalid hexadecimal digit: \"{}\"", &pair[..1]),
                )
            })
        })
        .collect()
}

/// The escape format: bytes as they are, `\\` for a backslash, `\ooo` in octal (the first
/// digit 0 to 3); any other backslash is no bytea (`None`).
fn parse_bytea_escape(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).filter(|d| {
            (b'0'..=b'3').contains(&d[0]) && d[1..].iter().all(|b| (b'0'..=b'7').contains(b))
        });
        match (bytes[i], bytes.get(i + 1), octal) {
            (b'\\', Some(b'\\'), _) => (out.push(b'\\'), i += 2).1,
            (b'\\', _, Some(d)) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            (b'\\', _, None) => return None,
            (byte, _, _) => (out.push(byte), i += 1).1,
        }
    }
    Some(out)
}

/// An integer as PostgreSQL's `pg_strtoint64` reads one (trimmed): an optional sign, then
/// decimal digits, or `0x`, `0o` or `0b` and that base's digits, with single `_`s between
/// digits (and after a base's prefix). `None`: not an integer; `Some(None)`: one out of
/// `bigint`'s range.
fn parse_integer(text: &str) -> Option<Option<i64>> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let prefix = body.get(..2).map(str::to_ascii_lowercase);
    let (radix, digits, prefixed) = match prefix.as_deref() {
        Some("0x") => (16, &body[2..], true),
        Some("0o") => (8, &body[2..], true),
        Some("0b") => (2, &body[2..], true),
        _ => (10, body, false),
    };
    // Past this, the magnitude is out of range whatever follows: it stops growing.
    let magnitude_max = i64::MAX as u128 + 1;
    let (mut magnitude, mut seen, mut underscore) = (0u128, false, false);
    for c in digits.chars() {
        match (c, c.to_digit(radix)) {
            (_, Some(digit)) => {
                magnitude = (magnitude * radix as u128 + digit as u128).min(magnitude_max + 1);
                (seen, underscore) = (true, false);
            }
            ('_', None) if !underscore && (seen || prefixed) => underscore = true,
            _ => return None,
        }
    }
    if !seen || underscore {
        return None;
    }
    let value = match negative {
        true => 0i128 - magnitude as i128,
        false => magnitude as i128,
    };
    Some(i64::try_from(value).ok())
}

/// `{a,b,"c d",NULL}` of a one-dimensional array.
fn parse_array(text: &str, t: Type) -> PgResult<Value> {
    crate::pg::types::array_text::parse(text, t, parse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_read_as_pg_strtoint64_reads_them() {
        for (text, value) in [
            ("42", 42),
            ("-0x10", -16),
            ("0X1f", 31),
            ("0o17", 15),
            ("0b101", 5),
            ("1_000", 1_000),
            ("0x_1F", 31),
            ("-9223372036854775808", i64::MIN),
            ("0x7FFFFFFFFFFFFFFF", i64::MAX),
        ] {
            assert_eq!(parse_integer(text), Some(Some(value)), "{text}");
        }
        for bad in [
            "", "-", "0x", "_1", "1_", "1__0", "0x1G", "1.5", "1e3", "0b2",
        ] {
            assert_eq!(parse_integer(bad), None, "{bad}");
        }
        for big in [
            "9223372036854775808",
            "-9223372036854775809",
            "0x8000000000000000",
        ] {
            assert_eq!(parse_integer(big), Some(None), "{big}");
        }
        let huge = "9".repeat(400);
        assert_eq!(parse_integer(&huge), Some(None));
    }

    #[test]
    fn floats_print_as_postgres_does() {
        assert_eq!(format_float8(0.1), "0.1");
        assert_eq!(format_float8(1e20), "1e+20");
        assert_eq!(format_float8(1.5e-5), "1.5e-05");
        assert_eq!(format_float8(123456.0), "123456");
        assert_eq!(format_float8(-2.5), "-2.5");
        assert_eq!(format_float8(0.0001), "0.0001");
        assert_eq!(format_float8(1e15), "1e+15");
        assert_eq!(format_float8(1e14), "100000000000000");
    }

    #[test]
    fn timestamps_round_trip_in_utc() {
        let Ok(Value::Timestamptz(us)) = parse("2026-12-04 05:23:39.5+00", Type::Timestamptz)
        else {
            panic!("parses");
        };
        assert_eq!(format_timestamptz(us), "2026-12-04 05:23:39.5+00");
        assert_eq!(format_timestamptz(0), "2000-01-01 00:00:00+00");
        assert_eq!(
            format_timestamptz(crate::pg::types::datetime::add_months(0, 1) - 1),
            "2000-01-31 23:59:59.999999+00"
        );
    }

    #[test]
    fn byteas_and_arrays() {
        assert_eq!(
            parse("\\x0aff", Type::Bytea).unwrap(),
            Value::Bytea(vec![10, 255])
        );
        let array = Value::Array(vec![Value::Bytea(vec![1]), Value::Null]);
        assert_eq!(
            format(&array, Type::ByteaArray).unwrap(),
            "{\"\\\\x01\",NULL}"
        );
        let parsed = parse("{a,\"b c\",NULL}", Type::TextArray).unwrap();
        assert_eq!(
            parsed,
            Value::Array(vec![
                Value::Text("a".into()),
                Value::Text("b c".into()),
                Value::Null
            ])
        );
    }
}
