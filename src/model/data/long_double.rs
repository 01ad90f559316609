//! The x87 80-bit `long double` Redis computes INCRBYFLOAT and HINCRBYFLOAT in, in
//! software: `strtold`'s correctly rounded parse, one correctly rounded addition, and
//! `printf("%.17Lf")` with Redis's trimming (`ld2string`, `LD_STR_HUMAN`). An `f64`
//! would answer `10.59999999999999964` where Redis answers `10.6`.
//!
//! A value is `mantissa * 2^exponent` with a 64-bit mantissa whose top bit is set (or
//! zero). Exact intermediate results use `num-bigint`.

use num_bigint::{BigInt, BigUint, Sign};

/// Mantissa bits of the x87 extended format.
const MANTISSA_BITS: u64 = 64;
/// Exponent bounds (of `mantissa * 2^exponent`) of the normal extended range: below, the
/// model refuses the value as `strtold`'s underflow; above, it overflows to infinity.
const EXPONENT_MIN: i64 = -16_445;
const EXPONENT_MAX: i64 = 16_320;
/// Decimal places of `%.17Lf`.
const PLACES: u32 = 17;
/// Digits of a decimal exponent the parser accepts; beyond, the value is out of range
/// anyway (and the bignum would be huge).
const DECIMAL_EXPONENT_MAX: i64 = 6_000;

/// A finite long double.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LongDouble {
    negative: bool,
    mantissa: u64,
    exponent: i64,
}

/// Why a text or a sum is not a finite long double.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// Not a number `strtold` reads whole, NaN, or out of range.
    NotAFloat,
    /// Infinity (a valid text, but no finite value).
    Infinite,
}

impl LongDouble {
    pub(crate) const ZERO: LongDouble = LongDouble {
        negative: false,
        mantissa: 0,
        exponent: 0,
    };

    /// Redis's `string2ld`: `strtold` must read all of it, no leading blank, no NaN, no
    /// overflow or underflow. `inf` reads as [`Invalid::Infinite`].
    pub(crate) fn parse(text: &[u8]) -> Result<LongDouble, Invalid> {
        let text = std::str::from_utf8(text).map_err(|_| Invalid::NotAFloat)?;
        let (negative, unsigned) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let lower = unsigned.to_ascii_lowercase();
        if lower == "inf" || lower == "infinity" {
            return Err(Invalid::Infinite);
        }
        let (digits, binary_exponent, decimal_exponent) = match lower.strip_prefix("0x") {
            Some(hex) => parse_hex(hex)?,
            None => parse_decimal(&lower)?,
        };
        // An overflowing text is ERANGE for `strtold`: not a float, unlike `inf` itself.
        round(
            negative,
            BigInt::from(digits),
            binary_exponent,
            decimal_exponent,
        )
        .map_err(|_| Invalid::NotAFloat)
    }

    /// `self + other`, rounded to nearest even as the FPU does.
    pub(crate) fn add(&self, other: &LongDouble) -> Result<LongDouble, Invalid> {
        let exponent = self.exponent.min(other.exponent);
        let aligned = |v: &LongDouble| {
            let magnitude = BigInt::from(v.mantissa) << (v.exponent - exponent) as usize;
            if v.negative {
                -magnitude
            } else {
                magnitude
            }
        };
        let sum = aligned(self) + aligned(other);
        let negative = sum.sign() == Sign::Minus;
        round(negative, sum.magnitude().clone().into(), exponent, 0)
    }

    /// `%.17Lf` without trailing zeros (nor a trailing `.`), and `-0` as `0`.
    pub(crate) fn to_human(&self) -> String {
        let magnitude = BigUint::from(self.mantissa);
        let scaled = if self.exponent >= 0 {
            (magnitude << self.exponent as usize) * BigUint::from(10u32).pow(PLACES)
        } else {
            let numerator = magnitude * BigUint::from(10u32).pow(PLACES);
            shift_right_even(&numerator, (-self.exponent) as u64)
        };
        let unit = BigUint::from(10u32).pow(PLACES);
        let (whole, fraction) = (&scaled / &unit, &scaled % &unit);
        let fraction = format!("{:0>width$}", fraction.to_string(), width = PLACES as usize);
        let fraction = fraction.trim_end_matches('0');
        let sign = if self.negative { "-" } else { "" };
        let text = if fraction.is_empty() {
            format!("{sign}{whole}")
        } else {
            format!("{sign}{whole}.{fraction}")
        };
        if text == "-0" {
            "0".into()
        } else {
            text
        }
    }
}

/// `digits * 16^-fraction_digits * 2^p` of a hexadecimal float's text after `0x`.
fn parse_hex(text: &str) -> Result<(BigUint, i64, i64), Invalid> {
    let (mantissa, exponent) = match text.split_once('p') {
        Some((m, e)) => (m, parse_exponent(e)?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return Err(Invalid::NotAFloat);
    }
    let all: String = [whole, fraction].concat();
    if !all.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Invalid::NotAFloat);
    }
    let digits = BigUint::parse_bytes(all.as_bytes(), 16).unwrap_or_default();
    Ok((digits, exponent - 4 * fraction.len() as i64, 0))
}

/// `digits * 10^e` of a decimal float's text.
fn parse_decimal(text: &str) -> Result<(BigUint, i64, i64), Invalid> {
    let (mantissa, exponent) = match text.split_once('e') {
        Some((m, e)) => (m, parse_exponent(e)?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return Err(Invalid::NotAFloat);
    }
    let all: String = [whole, fraction].concat();
    if !all.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Invalid::NotAFloat);
    }
    let digits = BigUint::parse_bytes(all.as_bytes(), 10).unwrap_or_default();
    Ok((digits, 0, exponent - fraction.len() as i64))
}

/// An exponent's digits with an optional sign, clamped (a huge one is out of range).
fn parse_exponent(text: &str) -> Result<i64, Invalid> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Invalid::NotAFloat);
    }
    let magnitude: i64 = digits
        .parse()
        .unwrap_or(i64::MAX)
        .min(DECIMAL_EXPONENT_MAX * 4);
    Ok(if text.starts_with('-') {
        -magnitude
    } else {
        magnitude
    })
}

/// `magnitude * 2^binary * 10^decimal` rounded to a 64-bit mantissa, nearest even.
fn round(
    negative: bool,
    magnitude: BigInt,
    binary: i64,
    decimal: i64,
) -> Result<LongDouble, Invalid> {
    let magnitude = magnitude.magnitude().clone();
    if magnitude.bits() == 0 {
        return Ok(LongDouble {
            negative,
            ..LongDouble::ZERO
        });
    }
    if decimal.abs() > DECIMAL_EXPONENT_MAX {
        return Err(Invalid::NotAFloat);
    }
    let ten = BigUint::from(10u32).pow(decimal.unsigned_abs() as u32);
    let (mut numerator, mut denominator) = if decimal >= 0 {
        (magnitude * ten, BigUint::from(1u32))
    } else {
        (magnitude, ten)
    };
    if binary >= 0 {
        numerator <<= binary as usize;
    } else {
        denominator <<= (-binary) as usize;
    }
    // Scale so that the quotient has exactly 64 bits: q = n * 2^s / d.
    let mut shift = MANTISSA_BITS as i64 - (numerator.bits() as i64 - denominator.bits() as i64);
    let quotient_bits = |shift: i64| {
        let (n, d) = scaled(&numerator, &denominator, shift);
        (&n / &d).bits()
    };
    if quotient_bits(shift) > MANTISSA_BITS {
        shift -= 1;
    }
    if quotient_bits(shift) < MANTISSA_BITS {
        shift += 1;
    }
    let (n, d) = scaled(&numerator, &denominator, shift);
    let (mut quotient, remainder) = (&n / &d, &n % &d);
    let twice = remainder << 1usize;
    let odd = quotient.bit(0);
    if twice > d || (twice == d && odd) {
        quotient += 1u32;
    }
    let mut exponent = -shift;
    if quotient.bits() > MANTISSA_BITS {
        quotient >>= 1usize;
        exponent += 1;
    }
    if exponent > EXPONENT_MAX {
        return Err(Invalid::Infinite);
    }
    if exponent < EXPONENT_MIN {
        return Err(Invalid::NotAFloat);
    }
    let mantissa = quotient.to_u64_digits().first().copied().unwrap_or(0);
    Ok(LongDouble {
        negative,
        mantissa,
        exponent,
    })
}

/// `(n * 2^shift, d)` or `(n, d * 2^-shift)`.
fn scaled(n: &BigUint, d: &BigUint, shift: i64) -> (BigUint, BigUint) {
    if shift >= 0 {
        (n << shift as usize, d.clone())
    } else {
        (n.clone(), d << (-shift) as usize)
    }
}

/// `value / 2^bits`, rounded to nearest even.
fn shift_right_even(value: &BigUint, bits: u64) -> BigUint {
    let quotient = value >> bits as usize;
    let remainder = value - (&quotient << bits as usize);
    let half = BigUint::from(1u32) << (bits as usize - 1);
    if remainder > half || (remainder == half && quotient.bit(0)) {
        quotient + 1u32
    } else {
        quotient
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(a: &str, b: &str) -> String {
        let a = LongDouble::parse(a.as_bytes()).unwrap();
        let b = LongDouble::parse(b.as_bytes()).unwrap();
        a.add(&b).unwrap().to_human()
    }

    #[test]
    fn sums_print_as_redis_prints_them() {
        // Values taken from redis-server 7.0.15 (INCRBYFLOAT).
        assert_eq!(sum("10.5", "0.1"), "10.6");
        assert_eq!(sum("0", "3.0e3"), "3000");
        assert_eq!(sum("1", "-1"), "0");
        assert_eq!(sum("-0", "-0"), "0");
        assert_eq!(sum("5.0e3", "2.0e2"), "5200");
        assert_eq!(sum("0.1", "0.2"), "0.3");
        assert_eq!(sum("1", "0x10"), "17");
        assert_eq!(sum("1", "1e-20"), "1");
    }

    #[test]
    fn parse_refuses_what_string2ld_refuses() {
        for bad in [
            "", " 1", "1 ", "abc", "1e", "nan", ".", "0x", "1e-6000", "1.5x",
        ] {
            assert_eq!(
                LongDouble::parse(bad.as_bytes()),
                Err(Invalid::NotAFloat),
                "{bad:?}"
            );
        }
        assert_eq!(LongDouble::parse(b"-inf"), Err(Invalid::Infinite));
        assert!(
            LongDouble::parse(b"1e4000").is_ok(),
            "long double's range is wider"
        );
        assert_eq!(LongDouble::parse(b"1e5000"), Err(Invalid::NotAFloat));
        let max = LongDouble::parse(b"1e4932").unwrap();
        assert_eq!(max.add(&max), Err(Invalid::Infinite));
    }

    #[test]
    fn a_large_value_prints_all_its_digits() {
        // redis-server 7.0.15: INCRBYFLOAT k 1e30 (the long double nearest 1e30).
        let v = LongDouble::parse(b"1e30").unwrap();
        assert_eq!(v.to_human(), "1000000000000000000024696061952");
    }
}
