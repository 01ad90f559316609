//! Argument parsing with Redis's exact error replies.

use crate::model::data::number::parse_strict_i64;
use crate::model::protocol::reply::Reply;
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

/// Random picks with repetition (`SRANDMEMBER key -N`, ZRANDMEMBER, HRANDFIELD) one reply
/// may hold. Redis builds any such reply, however large, until memory runs out; the model
/// refuses past this bound rather than stall or exhaust the simulator.
pub const REPEATED_PICKS_MAX: u64 = 1 << 20;

/// The model's refusal of a negative random-pick count past [`REPEATED_PICKS_MAX`].
pub fn repeated_picks_bound(count: i64) -> Result<(), Reply> {
    if count < 0 && count.unsigned_abs() > REPEATED_PICKS_MAX {
        return Err(Reply::error(format!(
            "ERR the amnesia model answers at most {REPEATED_PICKS_MAX} repeated random picks"
        )));
    }
    Ok(())
}

/// The optional count of LPOP/RPOP/SPOP/ZPOPMIN (`getPositiveLongFromObjectOrReply`).
pub fn optional_count(arg: Option<&Bytes>) -> Result<Option<usize>, Reply> {
    match arg.map(|a| int(a)) {
        None => Ok(None),
        Some(Ok(n)) if n >= 0 => Ok(Some(n as usize)),
        Some(_) => Err(Reply::error("ERR value is out of range, must be positive")),
    }
}

/// `count` distinct positions of `0..len` (all of them if fewer), by a partial
/// Fisher-Yates shuffle drawing from `rng`: `count` draws whatever `len` is.
pub fn distinct_positions(rng: &mut impl rand::Rng, len: usize, count: usize) -> Vec<usize> {
    let count = count.min(len);
    let mut positions: Vec<usize> = (0..len).collect();
    for i in 0..count {
        let j = rng.random_range(i..len);
        positions.swap(i, j);
    }
    positions.truncate(count);
    positions
}

/// A C `int` argument (`getIntFromObjectOrReply`).
pub fn int32(arg: &[u8]) -> Result<i32, Reply> {
    i32::try_from(int(arg)?).map_err(|_| {
        Reply::error("ERR value is out of range, value must between -2147483648 and 2147483647")
    })
}

/// A float argument, Redis's `string2d`: no blanks, no NaN, `inf` allowed.
pub fn float(arg: &[u8]) -> Result<f64, Reply> {
    parse_float(arg).ok_or_else(|| Reply::error(NOT_FLOAT))
}

pub fn parse_float(arg: &[u8]) -> Option<f64> {
    let starts_blank = arg.first().is_some_and(u8::is_ascii_whitespace);
    if arg.is_empty() || starts_blank {
        return None;
    }
    match strtod(arg)? {
        (_, Range::Overflow | Range::Underflow) => None,
        (value, Range::Ok) => Some(value),
    }
}

/// Whether `strtod` set `ERANGE`: a finite text too large, or nonzero but rounding to 0.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Range {
    Ok,
    Overflow,
    Underflow,
}

/// C's `strtod` where it must consume the whole text (after leading blanks): decimal,
/// hexadecimal (`0x1p4`), `inf`/`infinity`; NaN is refused. `None` if not all consumed.
pub fn strtod(arg: &[u8]) -> Option<(f64, Range)> {
    let text = std::str::from_utf8(arg).ok()?;
    let text = text.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let lower = unsigned.to_ascii_lowercase();
    let magnitude = match lower.as_str() {
        "inf" | "infinity" => f64::INFINITY,
        _ if lower.starts_with("0x") => hex_float(&lower[2..])?,
        _ if lower.starts_with(|c: char| c.is_ascii_digit() || c == '.') => lower.parse().ok()?,
        _ => return None,
    };
    let value = if negative { -magnitude } else { magnitude };
    let mantissa = match lower.strip_prefix("0x") {
        Some(hex) => hex.split('p').next(),
        None => lower.split('e').next(),
    };
    let nonzero =
        mantissa.is_some_and(|m| m.bytes().any(|b| b.is_ascii_alphanumeric() && b != b'0'));
    let range = if magnitude.is_infinite() && !lower.starts_with("inf") {
        Range::Overflow
    } else if magnitude == 0.0 && nonzero {
        Range::Underflow
    } else {
        Range::Ok
    };
    Some((value, range))
}

/// The digits of a hexadecimal float after `0x`: `h[.h][p[+-]d]`.
fn hex_float(text: &str) -> Option<f64> {
    let (digits, exponent) = match text.split_once('p') {
        Some((digits, exponent)) => (digits, exponent.parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut value = 0f64;
    for c in whole.chars().chain(fraction.chars()) {
        value = value * 16.0 + f64::from(c.to_digit(16)?);
    }
    let scale = exponent - 4 * fraction.len() as i32;
    Some(value * 2f64.powi(scale))
}

/// Case-insensitive comparison of an argument with an ASCII keyword.
pub fn is(arg: &[u8], keyword: &str) -> bool {
    arg.eq_ignore_ascii_case(keyword.as_bytes())
}

/// Redis's normalisation of an index range (LRANGE, LTRIM, ZRANGE by rank): negative
/// indexes count from the end; `None` when the range selects nothing.
pub fn index_range(start: i64, stop: i64, len: usize) -> Option<(usize, usize)> {
    let len = len as i64;
    let start = if start < 0 {
        (len + start).max(0)
    } else {
        start
    };
    let stop = if stop < 0 { len + stop } else { stop };
    if start > stop || start >= len {
        return None;
    }
    Some((start as usize, stop.min(len - 1) as usize))
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
        assert_eq!(parse_float(b"0x10"), Some(16.0));
        assert_eq!(parse_float(b"-0x1.8p1"), Some(-3.0));
        for bad in [
            &b"nan"[..],
            b" 1",
            b"1 ",
            b"",
            b"abc",
            b"1.5x",
            b"1e400",
            b"1e-400",
            b"0x",
        ] {
            assert_eq!(parse_float(bad), None, "{bad:?}");
        }
    }
}
