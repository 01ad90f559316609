//! Argument parsing with Redis's exact error replies.

use crate::model::reply::Reply;
use crate::model::request::parse_strict_i64;
use bytes::Bytes;

/// A handler's result: `Err` carries the error reply.
pub type CmdResult = Result<Reply, Reply>;

pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
pub const NOT_INTEGER: &str = "ERR value is not an integer or out of range";
pub const NOT_FLOAT: &str = "ERR value is not a valid float";
pub const SYNTAX: &str = "ERR syntax error";
pub const OVERFLOW: &str = "ERR increment or decrement would overflow";

pub fn wrong_type() -> Reply {
    Reply::error(WRONGTYPE)
}

pub fn syntax_error() -> Reply {
    Reply::error(SYNTAX)
}

/// `ERR wrong number of arguments for 'name' command`, name as Redis's full name.
pub fn arity_error(full_name: &str) -> Reply {
    Reply::error(format!(
        "ERR wrong number of arguments for '{full_name}' command"
    ))
}

/// An integer argument (`string2ll` rules).
pub fn int(arg: &[u8]) -> Result<i64, Reply> {
    parse_strict_i64(arg).ok_or_else(|| Reply::error(NOT_INTEGER))
}

/// A non-negative integer argument with a custom error (`ERR ... must be positive`).
pub fn int_with(arg: &[u8], error: &str) -> Result<i64, Reply> {
    parse_strict_i64(arg).ok_or_else(|| Reply::error(error))
}

/// A float argument, Redis's `string2d`: no blanks, no NaN, `inf` allowed.
pub fn float(arg: &[u8]) -> Result<f64, Reply> {
    parse_float(arg).ok_or_else(|| Reply::error(NOT_FLOAT))
}

pub fn parse_float(arg: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(arg).ok()?;
    let starts_blank = text.starts_with(|c: char| c.is_ascii_whitespace());
    if text.is_empty() || starts_blank || text.ends_with(|c: char| c.is_ascii_whitespace()) {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    let value: f64 = match lower.trim_start_matches(['+', '-']) {
        "inf" | "infinity" => {
            if lower.starts_with('-') {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        _ => text.parse().ok()?,
    };
    if value.is_nan() {
        None
    } else {
        Some(value)
    }
}

/// Case-insensitive comparison of an argument with an ASCII keyword.
pub fn is(arg: &[u8], keyword: &str) -> bool {
    arg.eq_ignore_ascii_case(keyword.as_bytes())
}

/// An integer formatted as Redis stores it in a string.
pub fn int_bytes(value: i64) -> Bytes {
    Bytes::from(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_like_redis() {
        assert_eq!(parse_float(b"1.5"), Some(1.5));
        assert_eq!(parse_float(b"-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float(b"+inf"), Some(f64::INFINITY));
        assert_eq!(parse_float(b"1e3"), Some(1000.0));
        for bad in [&b"nan"[..], b" 1", b"1 ", b"", b"abc", b"1.5x"] {
            assert_eq!(parse_float(bad), None, "{bad:?}");
        }
    }
}
