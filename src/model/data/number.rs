//! Numbers as Redis reads and prints them: its `string2ll` (every request header and
//! integer argument, every integer-looking value), C's `printf("%.<precision>g")` for
//! doubles (how Redis formats a Lua number passed to `redis.call`, `%.17g`, and how
//! lua-cjson encodes one, `%.14g`) and C's double-to-integer conversion.

/// `value` formatted as C's `%.{precision}g` (glibc: `inf`, `-inf`, `nan`, `-nan`).
pub(crate) fn format_g(value: f64, precision: usize) -> String {
    if value.is_nan() {
        return if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        }
        .into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.into();
    }
    let precision = precision.max(1);
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let scientific = format!("{:.*e}", precision - 1, value);
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} exponent is an integer");
    if exponent >= -4 && exponent < precision as i32 {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        strip_fraction_zeros(format!("{value:.decimals$}"))
    } else {
        let mantissa = strip_fraction_zeros(mantissa.to_string());
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    }
}

fn strip_fraction_zeros(mut text: String) -> String {
    if text.contains('.') {
        while text.ends_with('0') {
            text.pop();
        }
        if text.ends_with('.') {
            text.pop();
        }
    }
    text
}

/// A double converted to `long long` the way x86-64 does it (`cvttsd2si`): truncated
/// toward zero, and `i64::MIN` for NaN or out of range (what Redis answers for
/// `return 1e30`).
pub(crate) fn truncate_to_i64(value: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if value.is_nan() || !(-LIMIT..LIMIT).contains(&value) {
        i64::MIN
    } else {
        value as i64
    }
}

/// Redis's `string2ll`: optional minus, digits, no leading zeros, no plus, no spaces.
pub fn parse_strict_i64(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix(b"-") {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    let leading_zero = digits.len() > 1 && digits[0] == b'0';
    if digits.is_empty() || leading_zero || (negative && digits == b"0") {
        return None;
    }
    // The magnitude as u64, since i64::MIN's does not fit an i64; every request header
    // goes through here, so no UTF-8 check and `str::parse`.
    let mut magnitude: u64 = 0;
    for &digit in digits {
        if !digit.is_ascii_digit() {
            return None;
        }
        magnitude = magnitude
            .checked_mul(10)?
            .checked_add(u64::from(digit - b'0'))?;
    }
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_printf() {
        assert_eq!(format_g(0.1, 14), "0.1");
        assert_eq!(format_g(1.0 / 3.0, 14), "0.33333333333333");
        assert_eq!(format_g(1e20, 14), "1e+20");
        assert_eq!(format_g(12345678901234567.0, 14), "1.2345678901235e+16");
        assert_eq!(format_g(-0.0, 14), "-0");
        assert_eq!(format_g(3.0, 17), "3");
        assert_eq!(format_g(0.1, 17), "0.10000000000000001");
        assert_eq!(format_g(1e-5, 14), "1e-05");
        assert_eq!(format_g(0.0001, 14), "0.0001");
        assert_eq!(format_g(f64::NEG_INFINITY, 17), "-inf");
        assert_eq!(truncate_to_i64(-3.99), -3);
        assert_eq!(truncate_to_i64(1e30), i64::MIN);
        assert_eq!(truncate_to_i64(f64::NAN), i64::MIN);
    }

    #[test]
    fn strict_integers() {
        assert_eq!(parse_strict_i64(b"12"), Some(12));
        assert_eq!(parse_strict_i64(b"-3"), Some(-3));
        assert_eq!(parse_strict_i64(b"0"), Some(0));
        assert_eq!(parse_strict_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_strict_i64(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [
            &b"012"[..],
            b"+1",
            b"",
            b"-",
            b" 1",
            b"1 ",
            b"-0",
            b"99999999999999999999",
            b"9223372036854775808",
            b"-9223372036854775809",
            b"18446744073709551616",
            b"-00",
            b"1-",
            b"--1",
        ] {
            assert_eq!(parse_strict_i64(bad), None, "{bad:?}");
        }
    }
}
