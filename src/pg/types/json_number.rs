//! A JSON number as jsonb keeps it: a PostgreSQL `numeric`, printed as `numeric_out`
//! prints it (`1.50` stays `1.50`, `1e2` becomes `100`, `-0` becomes `0`), and compared
//! by value (`1.0` equals `1`). The model keeps the printed text and compares digit
//! strings, so no precision is lost and nothing is rounded.

use crate::pg::error::{PgError, NUMERIC_VALUE_OUT_OF_RANGE};
use std::cmp::Ordering;

/// Decimal digits before the point a numeric may have (its weight is an int16 of
/// base-10000 digits).
const INTEGER_DIGITS_MAX: i64 = 131_072;
/// Decimal digits after the point a numeric may keep (its dscale is 14 bits).
const SCALE_MAX: i64 = 16_383;
/// numeric_in refuses an exponent from `INT_MAX / 2` on, before anything is allocated.
const EXPONENT_MAX: i64 = (i32::MAX / 2) as i64;

fn overflow() -> PgError {
    PgError::new(NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format")
}

/// `text` (a number the JSON grammar accepted: `-?digits[.digits][e[+-]digits]`) as
/// numeric_out prints it.
pub(crate) fn normalise(text: &str) -> Result<String, PgError> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], parse_exponent(&unsigned[at + 1..])?),
        None => (unsigned, 0),
    };
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let scale = (fraction.len() as i64 - exponent).max(0);
    // Where the decimal point falls in the run of all the mantissa's digits.
    let point = integer.len() as i64 + exponent;
    let digits: String = [integer, fraction].concat();
    let first_significant = digits.bytes().position(|b| b != b'0');
    if scale > SCALE_MAX {
        return Err(overflow());
    }
    if first_significant.is_some_and(|at| point - at as i64 > INTEGER_DIGITS_MAX) {
        return Err(overflow());
    }
    let Some(first_significant) = first_significant else {
        return Ok(zero(scale));
    };
    let mut out = String::with_capacity(digits.len() + scale as usize + 2);
    if negative {
        out.push('-');
    }
    push_integer_part(
        &mut out,
        &digits[first_significant..],
        point - first_significant as i64,
    );
    if scale > 0 {
        out.push('.');
        push_fraction(&mut out, &digits, point, scale);
    }
    Ok(out)
}

/// The exponent after `e`; a huge one is numeric_in's overflow, as PostgreSQL's strtol
/// saturates.
fn parse_exponent(text: &str) -> Result<i64, PgError> {
    let digits = text.trim_start_matches(['+', '-']);
    if digits.len() > 12 {
        return Err(overflow());
    }
    let magnitude: i64 = digits.parse().map_err(|_| overflow())?;
    if magnitude >= EXPONENT_MAX {
        return Err(overflow());
    }
    Ok(if text.starts_with('-') {
        -magnitude
    } else {
        magnitude
    })
}

fn zero(scale: i64) -> String {
    match scale {
        0 => "0".to_string(),
        n => format!("0.{}", "0".repeat(n as usize)),
    }
}

/// The digits before the point: `significant` starts at its first non-zero digit and has
/// `length` digits before the point (zeros padded on, `0` if none).
fn push_integer_part(out: &mut String, significant: &str, length: i64) {
    if length <= 0 {
        out.push('0');
        return;
    }
    let length = length as usize;
    out.push_str(&significant[..length.min(significant.len())]);
    for _ in significant.len()..length {
        out.push('0');
    }
}

/// `scale` digits after the point, which sits at `point` in `digits`.
fn push_fraction(out: &mut String, digits: &str, point: i64, scale: i64) {
    for at in point..point + scale {
        let digit = usize::try_from(at)
            .ok()
            .and_then(|at| digits.as_bytes().get(at))
            .copied()
            .unwrap_or(b'0');
        out.push(digit as char);
    }
}

/// A normalised number rounded to an integer as numeric's integer casts round (half away
/// from zero); `None` when it has more digits than an i128 holds.
pub(crate) fn round(text: &str) -> Option<i128> {
    let (negative, integer, fraction) = split(text);
    let magnitude: i128 = match integer {
        "" => 0,
        digits if digits.len() > 38 => return None,
        digits => digits.parse().ok()?,
    };
    let magnitude = magnitude + i128::from(fraction.as_bytes().first() >= Some(&b'5'));
    Some(if negative { -magnitude } else { magnitude })
}

/// Two normalised numbers by value (`1.50` equals `1.5`).
pub(crate) fn compare(a: &str, b: &str) -> Ordering {
    let (a_negative, a_integer, a_fraction) = split(a);
    let (b_negative, b_integer, b_fraction) = split(b);
    let magnitude = a_integer
        .len()
        .cmp(&b_integer.len())
        .then_with(|| a_integer.cmp(b_integer))
        .then_with(|| a_fraction.cmp(b_fraction));
    match (a_negative, b_negative) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (true, true) => magnitude.reverse(),
        (false, false) => magnitude,
    }
}

/// A normalised number's sign, integer digits (no leading zeros: `0` is empty) and
/// fraction digits (no trailing zeros). Zero is never negative (numeric_out's rule).
fn split(text: &str) -> (bool, &str, &str) {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (integer, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    (
        negative,
        integer.trim_start_matches('0'),
        fraction.trim_end_matches('0'),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> String {
        normalise(text).expect("a number")
    }

    #[test]
    fn numbers_print_as_numeric_out() {
        assert_eq!(n("1.50"), "1.50");
        assert_eq!(n("1e2"), "100");
        assert_eq!(n("1.5E+1"), "15");
        assert_eq!(n("1.50e1"), "15.0");
        assert_eq!(n("1e-2"), "0.01");
        assert_eq!(n("-0"), "0");
        assert_eq!(n("-0.0"), "0.0");
        assert_eq!(n("0.00e1"), "0.0");
        assert_eq!(n("-12.345e-1"), "-1.2345");
        assert_eq!(n("123.4e-5"), "0.001234");
    }

    #[test]
    fn numbers_past_numeric_overflow() {
        assert!(normalise("1e131071").is_ok());
        assert!(normalise("1e131072").is_err());
        assert!(normalise("1e-16383").is_ok());
        assert!(normalise("1e-16384").is_err());
        assert!(normalise("0e-20000").is_err());
        assert_eq!(n("0e200000"), "0");
        assert!(normalise("1e99999999999999999999").is_err());
    }

    #[test]
    fn numbers_round_half_away_from_zero() {
        assert_eq!(round("2.5"), Some(3));
        assert_eq!(round("-2.5"), Some(-3));
        assert_eq!(round("2.49"), Some(2));
        assert_eq!(round("0.00"), Some(0));
        assert_eq!(round(&"9".repeat(39)), None);
    }

    #[test]
    fn numbers_compare_by_value() {
        assert_eq!(compare("1.50", "1.5"), Ordering::Equal);
        assert_eq!(compare("1", "1.0"), Ordering::Equal);
        assert_eq!(compare("-2", "1"), Ordering::Less);
        assert_eq!(compare("-2", "-1.5"), Ordering::Less);
        assert_eq!(compare("10", "9.99"), Ordering::Greater);
        assert_eq!(compare("0.6", "0.51"), Ordering::Greater);
        assert_eq!(compare("0", "0.00"), Ordering::Equal);
    }
}
