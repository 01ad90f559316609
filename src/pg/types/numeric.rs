//! PostgreSQL's `numeric`: an arbitrary-precision decimal with a display scale (`1.50`
//! keeps its two digits), NaN and the infinities. A finite value is an integer of digits
//! and a scale (`digits × 10^-scale`, `num-bigint` for the digits: exact, and its
//! multiplication is sub-quadratic); the arithmetic takes PostgreSQL's result scales
//! (`numeric.c`: `+ -` the larger, `*` the sum, `/` `select_div_scale`) and rounds half
//! away from zero as `round_var` does. The sizes are PostgreSQL's: 131072 digits before
//! the point, 16383 after.

use crate::pg::error::{
    PgError, PgResult, DIVISION_BY_ZERO, INVALID_PARAMETER_VALUE, NUMERIC_VALUE_OUT_OF_RANGE,
};
use num_bigint::{BigInt, Sign};
use std::cmp::Ordering;

/// Decimal digits before the point (the weight is an int16 of base-10000 digits).
const INTEGER_DIGITS_MAX: i64 = 131_072;
/// Decimal digits after the point (dscale is 14 bits).
pub(crate) const SCALE_MAX: i64 = 16_383;
/// `NUMERIC_MIN_SIG_DIGITS`: a quotient's significant digits at least.
const DIV_SIG_DIGITS_MIN: i64 = 16;
/// `NUMERIC_MAX_DISPLAY_SCALE`: a quotient's scale at most (unless an input has more).
const DIV_SCALE_MAX: i64 = 1000;
/// numeric_in refuses an exponent from `INT_MAX / 2` on.
const EXPONENT_MAX: i64 = (i32::MAX / 2) as i64;
/// `numeric(p, s)`: p in 1..=1000, s in -1000..=1000.
const TYPMOD_PRECISION_MAX: i64 = 1000;
/// Base-10000 digits a binary value may carry (PostgreSQL's
/// `NUMERIC_MAX_PRECISION + NUMERIC_MAX_RESULT_SCALE`).
const BINARY_DIGITS_MAX: usize = 3000;
/// 22P03 (only numeric_recv raises it in the model).
const INVALID_BINARY_REPRESENTATION: &str = "22P03";

/// A numeric value.
#[derive(Clone, Debug)]
pub(crate) enum Numeric {
    NaN,
    Infinity,
    NegInfinity,
    /// `digits × 10^-scale`; `scale` is the display scale (0..=16383).
    Finite {
        digits: BigInt,
        scale: u16,
    },
}

pub(crate) fn overflow() -> PgError {
    PgError::new(NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format")
}

fn pow10(n: i64) -> BigInt {
    debug_assert!(n >= 0);
    BigInt::from(10u32).pow(n as u32)
}

/// Decimal digits of `|n|` (1 for zero).
fn digit_count(n: &BigInt) -> i64 {
    let magnitude = n.magnitude();
    if magnitude.bits() <= 127 {
        let small = u128::try_from(magnitude).expect("fits");
        return small.checked_ilog10().map_or(1, |l| l as i64 + 1);
    }
    // A lower bound from the bit length, then up to the true count.
    let mut count = ((magnitude.bits() - 1) as f64 * std::f64::consts::LOG10_2 - 1e-9) as i64 + 1;
    let mut bound = pow10(count);
    while magnitude >= bound.magnitude() {
        bound *= 10u32;
        count += 1;
    }
    count
}

/// `n / d` rounded half away from zero.
fn div_round(n: &BigInt, d: &BigInt) -> BigInt {
    let (q, r) = (n / d, n % d);
    let twice: BigInt = r.magnitude().clone().into();
    if twice * 2u32 >= d.magnitude().clone().into() {
        let away = if (n.sign() == Sign::Minus) != (d.sign() == Sign::Minus) {
            -1
        } else {
            1
        };
        q + away
    } else {
        q
    }
}

impl Numeric {
    pub(crate) fn from_i64(i: i64) -> Numeric {
        Numeric::Finite {
            digits: BigInt::from(i),
            scale: 0,
        }
    }

    fn zero(scale: u16) -> Numeric {
        Numeric::Finite {
            digits: BigInt::from(0),
            scale,
        }
    }

    /// A finite value, refused as PostgreSQL's make_result refuses one too large.
    fn finite(digits: BigInt, scale: i64) -> PgResult<Numeric> {
        if scale > SCALE_MAX {
            return Err(overflow());
        }
        assert!(scale >= 0, "a numeric's scale is never negative");
        if digits.sign() != Sign::NoSign && digit_count(&digits) - scale > INTEGER_DIGITS_MAX {
            return Err(overflow());
        }
        Ok(Numeric::Finite {
            digits,
            scale: scale as u16,
        })
    }

    /// -1, 0 or 1 (NaN counts as 0: callers settle NaN first).
    fn sign(&self) -> i32 {
        match self {
            Numeric::Infinity => 1,
            Numeric::NegInfinity => -1,
            Numeric::NaN => 0,
            Numeric::Finite { digits, .. } => match digits.sign() {
                Sign::Minus => -1,
                Sign::NoSign => 0,
                Sign::Plus => 1,
            },
        }
    }

    fn infinity(sign: i32) -> Numeric {
        if sign < 0 {
            Numeric::NegInfinity
        } else {
            Numeric::Infinity
        }
    }

    /// Both digits at the larger scale.
    fn aligned(a: (&BigInt, u16), b: (&BigInt, u16)) -> (BigInt, BigInt, i64) {
        let scale = a.1.max(b.1) as i64;
        let up = |d: &BigInt, s: u16| d * pow10(scale - s as i64);
        (up(a.0, a.1), up(b.0, b.1), scale)
    }

    pub(crate) fn add(&self, other: &Numeric) -> PgResult<Numeric> {
        use Numeric::*;
        match (self, other) {
            (NaN, _) | (_, NaN) => Ok(NaN),
            (Infinity, NegInfinity) | (NegInfinity, Infinity) => Ok(NaN),
            (Infinity | NegInfinity, _) => Ok(self.clone()),
            (_, Infinity | NegInfinity) => Ok(other.clone()),
            (
                Finite {
                    digits: a,
                    scale: sa,
                },
                Finite {
                    digits: b,
                    scale: sb,
                },
            ) => {
                let (a, b, scale) = Self::aligned((a, *sa), (b, *sb));
                Self::finite(a + b, scale)
            }
        }
    }

    pub(crate) fn neg(&self) -> Numeric {
        match self {
            Numeric::NaN => Numeric::NaN,
            Numeric::Infinity => Numeric::NegInfinity,
            Numeric::NegInfinity => Numeric::Infinity,
            Numeric::Finite { digits, scale } => Numeric::Finite {
                digits: -digits,
                scale: *scale,
            },
        }
    }

    pub(crate) fn abs(&self) -> Numeric {
        if self.sign() < 0 {
            self.neg()
        } else {
            self.clone()
        }
    }

    pub(crate) fn sub(&self, other: &Numeric) -> PgResult<Numeric> {
        self.add(&other.neg())
    }

    pub(crate) fn mul(&self, other: &Numeric) -> PgResult<Numeric> {
        use Numeric::*;
        match (self, other) {
            (NaN, _) | (_, NaN) => Ok(NaN),
            (
                Finite {
                    digits: a,
                    scale: sa,
                },
                Finite {
                    digits: b,
                    scale: sb,
                },
            ) => {
                let scale = *sa as i64 + *sb as i64;
                let product = a * b;
                if scale > SCALE_MAX {
                    let digits = div_round(&product, &pow10(scale - SCALE_MAX));
                    return Self::finite(digits, SCALE_MAX);
                }
                Self::finite(product, scale)
            }
            _ => match self.sign() * other.sign() {
                0 => Ok(NaN),
                sign => Ok(Self::infinity(sign)),
            },
        }
    }

    /// The weight (base-10000 exponent) of the leading digit and that digit, as
    /// numeric.c's `select_div_scale` reads them; zero gives (0, 0).
    fn leading_base_digit(digits: &BigInt, scale: u16) -> (i64, u32) {
        if digits.sign() == Sign::NoSign {
            return (0, 0);
        }
        let count = digit_count(digits);
        let exponent10 = count - 1 - scale as i64;
        let weight = exponent10.div_euclid(4);
        let width = (exponent10 - 4 * weight + 1) as usize;
        let text = digits.magnitude().to_string();
        let mut lead: String = text.chars().take(width).collect();
        while lead.len() < width {
            lead.push('0');
        }
        (weight, lead.parse().expect("at most four digits"))
    }

    /// `select_div_scale`: at least 16 significant digits, at least either input's scale,
    /// at most 1000 unless an input has more.
    fn div_scale(a: (&BigInt, u16), b: (&BigInt, u16)) -> i64 {
        let (weight1, first1) = Self::leading_base_digit(a.0, a.1);
        let (weight2, first2) = Self::leading_base_digit(b.0, b.1);
        let mut weight = weight1 - weight2;
        if first1 <= first2 {
            weight -= 1;
        }
        let scale = (DIV_SIG_DIGITS_MIN - weight * 4)
            .max(a.1 as i64)
            .max(b.1 as i64)
            .max(0);
        scale.min(DIV_SCALE_MAX)
    }

    pub(crate) fn div(&self, other: &Numeric) -> PgResult<Numeric> {
        use Numeric::*;
        let zero_divisor = || PgError::new(DIVISION_BY_ZERO, "division by zero");
        match (self, other) {
            (NaN, _) | (_, NaN) => Ok(NaN),
            (
                Finite {
                    digits: a,
                    scale: sa,
                },
                Finite {
                    digits: b,
                    scale: sb,
                },
            ) => {
                if b.sign() == Sign::NoSign {
                    return Err(zero_divisor());
                }
                let scale = Self::div_scale((a, *sa), (b, *sb));
                // a/10^sa ÷ b/10^sb at `scale`: a × 10^(scale + sb - sa) ÷ b.
                let shift = scale + *sb as i64 - *sa as i64;
                let quotient = if shift >= 0 {
                    div_round(&(a * pow10(shift)), b)
                } else {
                    div_round(a, &(b * pow10(-shift)))
                };
                Self::finite(quotient, scale)
            }
            (Finite { .. }, _) => Ok(Self::zero(0)),
            (_, Finite { digits, .. }) if digits.sign() == Sign::NoSign => Err(zero_divisor()),
            (_, Finite { .. }) => Ok(Self::infinity(self.sign() * other.sign())),
            _ => Ok(NaN),
        }
    }

    /// `%`: the remainder of the quotient truncated toward zero (the dividend's sign).
    pub(crate) fn rem(&self, other: &Numeric) -> PgResult<Numeric> {
        use Numeric::*;
        match (self, other) {
            (NaN, _) | (_, NaN) => Ok(NaN),
            (
                Finite {
                    digits: a,
                    scale: sa,
                },
                Finite {
                    digits: b,
                    scale: sb,
                },
            ) => {
                if b.sign() == Sign::NoSign {
                    return Err(PgError::new(DIVISION_BY_ZERO, "division by zero"));
                }
                let (a, b, scale) = Self::aligned((a, *sa), (b, *sb));
                Self::finite(a % b, scale)
            }
            (Finite { .. }, _) => Ok(self.clone()),
            (_, Finite { digits, .. }) if digits.sign() == Sign::NoSign => {
                Err(PgError::new(DIVISION_BY_ZERO, "division by zero"))
            }
            _ => Ok(NaN),
        }
    }

    /// `round(x, scale)`: half away from zero; a negative scale rounds left of the point.
    pub(crate) fn round(&self, scale: i64) -> PgResult<Numeric> {
        let Numeric::Finite {
            digits,
            scale: have,
        } = self
        else {
            return Ok(self.clone());
        };
        let scale = scale.clamp(-(INTEGER_DIGITS_MAX + 4), SCALE_MAX);
        let have = *have as i64;
        if scale >= have {
            return Self::finite(digits * pow10(scale - have), scale);
        }
        let rounded = div_round(digits, &pow10(have - scale));
        if scale >= 0 {
            return Self::finite(rounded, scale);
        }
        if rounded.sign() == Sign::NoSign {
            return Ok(Self::zero(0));
        }
        Self::finite(rounded * pow10(-scale), 0)
    }

    /// Rounded to a whole number and fitted into `[min, max]`, or `None` when outside.
    pub(crate) fn to_i64(&self, name: &str) -> PgResult<Option<i64>> {
        let unsupported = |what: &str| {
            PgError::new(
                crate::pg::error::FEATURE_NOT_SUPPORTED,
                format!("cannot convert {what} to {name}"),
            )
        };
        match self.round(0)? {
            Numeric::NaN => Err(unsupported("NaN")),
            Numeric::Infinity | Numeric::NegInfinity => Err(unsupported("infinity")),
            Numeric::Finite { digits, .. } => Ok(i64::try_from(digits).ok()),
        }
    }

    /// `float8_numeric`/`float4_numeric`: the float printed with `%.{significant}g`
    /// (15 digits for float8, 6 for float4) read back.
    pub(crate) fn from_float(f: f64, significant: usize) -> PgResult<Numeric> {
        if f.is_nan() {
            return Ok(Numeric::NaN);
        }
        if f.is_infinite() {
            return Ok(Self::infinity(if f > 0.0 { 1 } else { -1 }));
        }
        // `{:.Ne}` rounds exactly (as glibc's printf does), to N+1 significant digits.
        let printed = format!("{:.*e}", significant - 1, f);
        let (mantissa, exponent) = printed.split_once('e').expect("an exponent");
        let mantissa = if mantissa.contains('.') {
            mantissa.trim_end_matches('0').trim_end_matches('.')
        } else {
            mantissa
        };
        parse(&format!("{mantissa}e{exponent}")).map_err(|_| overflow())
    }

    /// `numeric(p, s)`'s check: rounded to `s`, then fewer than `p - s` digits before the
    /// point (22003 otherwise, with PostgreSQL's detail).
    pub(crate) fn apply_typmod(&self, typmod: u32) -> PgResult<Numeric> {
        let (precision, scale) = typmod_parts(typmod);
        match self {
            Numeric::NaN => return Ok(Numeric::NaN),
            Numeric::Infinity | Numeric::NegInfinity => {
                return Err(field_overflow(precision, scale, true))
            }
            Numeric::Finite { .. } => {}
        }
        let rounded = self.round(scale)?;
        let Numeric::Finite {
            digits,
            scale: have,
        } = &rounded
        else {
            unreachable!("a finite value rounds to a finite one")
        };
        if digits.sign() != Sign::NoSign {
            let integer_digits = digit_count(digits) - *have as i64;
            if integer_digits > precision - scale {
                return Err(field_overflow(precision, scale, false));
            }
        }
        Ok(rounded)
    }

    /// The value as `numeric_out` prints it.
    pub(crate) fn format(&self) -> String {
        let (digits, scale) = match self {
            Numeric::NaN => return "NaN".into(),
            Numeric::Infinity => return "Infinity".into(),
            Numeric::NegInfinity => return "-Infinity".into(),
            Numeric::Finite { digits, scale } => (digits, *scale as usize),
        };
        let mut text = digits.magnitude().to_string();
        if text.len() <= scale {
            text = "0".repeat(scale + 1 - text.len()) + &text;
        }
        let sign = if digits.sign() == Sign::Minus {
            "-"
        } else {
            ""
        };
        if scale == 0 {
            return format!("{sign}{text}");
        }
        let (integer, fraction) = text.split_at(text.len() - scale);
        format!("{sign}{integer}.{fraction}")
    }

    /// `numeric_float8`/`numeric_float4`: the printed digits read as a float, out of range
    /// when they overflow or underflow it.
    pub(crate) fn to_float(&self, float4: bool) -> PgResult<f64> {
        match self {
            Numeric::NaN => Ok(f64::NAN),
            Numeric::Infinity => Ok(f64::INFINITY),
            Numeric::NegInfinity => Ok(f64::NEG_INFINITY),
            Numeric::Finite { digits, .. } => {
                let text = self.format();
                let value = if float4 {
                    text.parse::<f32>().map(f64::from).unwrap_or(f64::NAN)
                } else {
                    text.parse::<f64>().unwrap_or(f64::NAN)
                };
                if value.is_infinite() || (value == 0.0 && digits.sign() != Sign::NoSign) {
                    let name = if float4 { "real" } else { "double precision" };
                    return Err(PgError::new(
                        NUMERIC_VALUE_OUT_OF_RANGE,
                        format!("\"{text}\" is out of range for type {name}"),
                    ));
                }
                Ok(value)
            }
        }
    }
}

fn field_overflow(precision: i64, scale: i64, infinite: bool) -> PgError {
    let detail = if infinite {
        format!("A field with precision {precision}, scale {scale} cannot hold an infinite value.")
    } else if precision != scale {
        format!(
            "A field with precision {precision}, scale {scale} must round to an absolute value less than 10^{}.",
            precision - scale
        )
    } else {
        format!(
            "A field with precision {precision}, scale {scale} must round to an absolute value less than 1."
        )
    };
    PgError::new(NUMERIC_VALUE_OUT_OF_RANGE, "numeric field overflow").with_detail(detail)
}

/// PostgreSQL's typmod of `numeric(p, s)`: `((p << 16) | (s & 0x7ff)) + 4`.
pub(crate) fn typmod(precision: i64, scale: i64) -> PgResult<u32> {
    if !(1..=TYPMOD_PRECISION_MAX).contains(&precision) {
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            format!("NUMERIC precision {precision} must be between 1 and 1000"),
        ));
    }
    if !(-TYPMOD_PRECISION_MAX..=TYPMOD_PRECISION_MAX).contains(&scale) {
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            format!("NUMERIC scale {scale} must be between -1000 and 1000"),
        ));
    }
    Ok((((precision as u32) << 16) | (scale as u32 & 0x7ff)) + 4)
}

fn typmod_parts(typmod: u32) -> (i64, i64) {
    let bits = typmod - 4;
    let precision = (bits >> 16) as i64;
    // The scale is 11 bits, sign-extended.
    let scale = (((bits & 0x7ff) ^ 0x400) as i64) - 0x400;
    (precision, scale)
}

impl PartialEq for Numeric {
    fn eq(&self, other: &Numeric) -> bool {
        compare(self, other) == Ordering::Equal
    }
}

/// PostgreSQL's numeric order: -Infinity, the numbers, Infinity, NaN (NaN equals NaN).
pub(crate) fn compare(a: &Numeric, b: &Numeric) -> Ordering {
    use Numeric::*;
    let rank = |n: &Numeric| match n {
        NegInfinity => 0,
        Finite { .. } => 1,
        Infinity => 2,
        NaN => 3,
    };
    match (a, b) {
        (
            Finite {
                digits: x,
                scale: sx,
            },
            Finite {
                digits: y,
                scale: sy,
            },
        ) => {
            let (x, y, _) = Numeric::aligned((x, *sx), (y, *sy));
            x.cmp(&y)
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

/// `numeric_in` (decimal digits, an exponent, NaN and the infinities; the underscores and
/// the 0x/0o/0b forms of PostgreSQL 16 are refused as unsupported).
pub(crate) fn parse(text: &str) -> PgResult<Numeric> {
    let invalid = || {
        PgError::new(
            crate::pg::error::INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type numeric: \"{text}\""),
        )
    };
    let trimmed = text.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
    let lower = trimmed.to_ascii_lowercase();
    if lower == "nan" {
        return Ok(Numeric::NaN);
    }
    let (negative, unsigned) = match lower.as_bytes().first() {
        Some(b'-') => (true, &lower[1..]),
        Some(b'+') => (false, &lower[1..]),
        _ => (false, lower.as_str()),
    };
    if unsigned == "infinity" || unsigned == "inf" {
        return Ok(Numeric::infinity(if negative { -1 } else { 1 }));
    }
    if unsigned.contains('_') || ["0x", "0o", "0b"].iter().any(|p| unsigned.starts_with(p)) {
        return Err(PgError::unsupported(
            "a numeric written with underscores or in hexadecimal, octal or binary",
        ));
    }
    let (mantissa, exponent) = match unsigned.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (unsigned, None),
    };
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if integer.len() + fraction.len() == 0 || !all_digits(integer) || !all_digits(fraction) {
        return Err(invalid());
    }
    let exponent = match exponent {
        None => 0,
        Some(e) => parse_exponent(e).ok_or_else(invalid)??,
    };
    let digits_text = [integer, fraction].concat();
    let significant = digits_text.trim_start_matches('0');
    let scale = (fraction.len() as i64 - exponent).max(0);
    if scale > SCALE_MAX {
        return Err(overflow());
    }
    if significant.is_empty() {
        return Ok(Numeric::zero(scale as u16));
    }
    // The leading digit's power of ten, checked before any power is built.
    let exponent10 = significant.len() as i64 - 1 - fraction.len() as i64 + exponent;
    if exponent10 >= INTEGER_DIGITS_MAX {
        return Err(overflow());
    }
    let mut digits: BigInt = significant.parse().map_err(|_| invalid())?;
    if negative {
        digits = -digits;
    }
    let shift = exponent - fraction.len() as i64;
    if shift > 0 {
        digits *= pow10(shift);
    }
    Numeric::finite(digits, scale)
}

/// The exponent after `e`: `None` when malformed, the overflow error when too large.
fn parse_exponent(text: &str) -> Option<PgResult<i64>> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 12 {
        return Some(Err(overflow()));
    }
    let magnitude: i64 = significant.parse().unwrap_or(0);
    if magnitude >= EXPONENT_MAX {
        return Some(Err(overflow()));
    }
    Some(Ok(if negative { -magnitude } else { magnitude }))
}

const SIGN_POSITIVE: u16 = 0x0000;
const SIGN_NEGATIVE: u16 = 0x4000;
const SIGN_NAN: u16 = 0xC000;
const SIGN_INFINITY: u16 = 0xD000;
const SIGN_NEG_INFINITY: u16 = 0xF000;

/// `numeric_send`: ndigits, weight, sign, dscale (int16s), then base-10000 digits, the
/// leading and trailing zero digits left out.
pub(crate) fn encode_binary(n: &Numeric) -> Vec<u8> {
    let header = |ndigits: u16, weight: i16, sign: u16, dscale: u16| {
        let mut out = Vec::with_capacity(8);
        out.extend(ndigits.to_be_bytes());
        out.extend(weight.to_be_bytes());
        out.extend(sign.to_be_bytes());
        out.extend(dscale.to_be_bytes());
        out
    };
    let (digits, scale) = match n {
        Numeric::NaN => return header(0, 0, SIGN_NAN, 0),
        Numeric::Infinity => return header(0, 0, SIGN_INFINITY, 0),
        Numeric::NegInfinity => return header(0, 0, SIGN_NEG_INFINITY, 0),
        Numeric::Finite { digits, scale } => (digits, *scale),
    };
    if digits.sign() == Sign::NoSign {
        return header(0, 0, SIGN_POSITIVE, scale);
    }
    // Scale up to a whole number of base-10000 digits after the point.
    let groups_after = (scale as i64 + 3) / 4;
    let whole = digits.magnitude() * pow10(groups_after * 4 - scale as i64).magnitude();
    let text = whole.to_string();
    let padded = "0".repeat((4 - text.len() % 4) % 4) + &text;
    let mut base: Vec<u16> = padded
        .as_bytes()
        .chunks(4)
        .map(|c| {
            std::str::from_utf8(c)
                .expect("digits")
                .parse()
                .expect("four digits")
        })
        .collect();
    let mut weight = base.len() as i64 - 1 - groups_after;
    while base.last() == Some(&0) {
        base.pop();
    }
    while base.first() == Some(&0) {
        base.remove(0);
        weight -= 1;
    }
    let sign = if digits.sign() == Sign::Minus {
        SIGN_NEGATIVE
    } else {
        SIGN_POSITIVE
    };
    let mut out = header(base.len() as u16, weight as i16, sign, scale);
    for d in base {
        out.extend(d.to_be_bytes());
    }
    out
}

/// `numeric_recv`: the value, its digits past dscale truncated away.
pub(crate) fn decode_binary(bytes: &[u8]) -> PgResult<Numeric> {
    let bad = |what: &str| {
        PgError::new(
            INVALID_BINARY_REPRESENTATION,
            format!("invalid {what} in external \"numeric\" value"),
        )
    };
    let word = |at: usize| -> PgResult<u16> {
        bytes
            .get(at..at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| {
                PgError::new(
                    INVALID_BINARY_REPRESENTATION,
                    "insufficient data left in message",
                )
            })
    };
    let ndigits = word(0)? as usize;
    if ndigits > BINARY_DIGITS_MAX {
        return Err(bad("length"));
    }
    let weight = word(2)? as i16 as i64;
    let sign = word(4)?;
    let dscale = word(6)?;
    let special = match sign {
        SIGN_POSITIVE | SIGN_NEGATIVE => None,
        SIGN_NAN => Some(Numeric::NaN),
        SIGN_INFINITY => Some(Numeric::Infinity),
        SIGN_NEG_INFINITY => Some(Numeric::NegInfinity),
        _ => return Err(bad("sign")),
    };
    if dscale as i64 > SCALE_MAX {
        return Err(bad("scale"));
    }
    let mut whole = BigInt::from(0);
    for i in 0..ndigits {
        let d = word(8 + 2 * i)?;
        if d >= 10_000 {
            return Err(bad("digit"));
        }
        whole = whole * 10_000u32 + d;
    }
    if bytes.len() != 8 + 2 * ndigits {
        return Err(PgError::new(
            crate::pg::error::PROTOCOL_VIOLATION,
            "incorrect binary data format in bind parameter",
        ));
    }
    if let Some(special) = special {
        return Ok(special);
    }
    if sign == SIGN_NEGATIVE {
        whole = -whole;
    }
    // The value is whole × 10000^(weight - ndigits + 1); as digits at scale 4×(ndigits-1-weight).
    let scale_exact = 4 * (ndigits as i64 - 1 - weight);
    if ndigits > 0 && weight >= INTEGER_DIGITS_MAX / 4 {
        return Err(overflow());
    }
    let value = if scale_exact >= 0 {
        Numeric::Finite {
            digits: whole,
            scale: 0,
        }
        .scaled_down(scale_exact)
    } else {
        Numeric::finite(whole * pow10(-scale_exact), 0)?
    };
    value.truncate(dscale as i64)
}

impl Numeric {
    /// `digits × 10^-by` at an exact scale (`by` may exceed SCALE_MAX before truncation).
    fn scaled_down(self, by: i64) -> Numeric {
        let Numeric::Finite { digits, .. } = self else {
            return self;
        };
        Numeric::Finite {
            digits,
            scale: u16::try_from(by).unwrap_or(u16::MAX),
        }
    }

    /// `trunc_var`: the digits past `scale` dropped (toward zero), the scale set.
    fn truncate(&self, scale: i64) -> PgResult<Numeric> {
        let Numeric::Finite {
            digits,
            scale: have,
        } = self
        else {
            return Ok(self.clone());
        };
        let have = *have as i64;
        if scale >= have {
            return Self::finite(digits * pow10(scale - have), scale);
        }
        Self::finite(digits / pow10(have - scale), scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> Numeric {
        parse(text).expect("a numeric")
    }

    #[test]
    fn division_takes_select_div_scale() {
        let cases = [
            ("1", "3", "0.33333333333333333333"),
            ("2.0", "3", "0.66666666666666666667"),
            ("10", "4.0", "2.5000000000000000"),
            ("1e-20", "3", "0.0000000000000000000033333333333333333333"),
            ("100", "99", "1.0101010101010101"),
            ("99", "100", "0.99000000000000000000"),
            ("12345678901234567890.123", "7", "1763668414462081127.160"),
        ];
        for (a, b, want) in cases {
            assert_eq!(n(a).div(&n(b)).unwrap().format(), want, "{a}/{b}");
        }
    }

    #[test]
    fn text_forms_and_scales() {
        assert_eq!(n("  -0.00  ").format(), "0.00");
        assert_eq!(n("1e2").format(), "100");
        assert_eq!(n("1.5e-3").format(), "0.0015");
        assert_eq!(n(".5").format(), "0.5");
        assert_eq!(n("5.").format(), "5");
        assert_eq!(n("1.10").mul(&n("2.000")).unwrap().format(), "2.20000");
        assert_eq!(n("-5.5").rem(&n("-2")).unwrap().format(), "-1.5");
        assert_eq!(n("1234.5678").round(-2).unwrap().format(), "1200");
        assert!(parse("1e-20000").is_err());
        assert!(parse("-NaN").is_err());
    }

    #[test]
    fn floats_convert_as_postgresql_prints_them() {
        assert_eq!(Numeric::from_float(0.1, 15).unwrap().format(), "0.1");
        assert_eq!(
            Numeric::from_float(0.300_000_000_000_000_04, 15)
                .unwrap()
                .format(),
            "0.3"
        );
        assert_eq!(
            Numeric::from_float(1e20, 15).unwrap().format(),
            "100000000000000000000"
        );
        assert_eq!(
            Numeric::from_float(1.5e-5, 15).unwrap().format(),
            "0.000015"
        );
    }

    #[test]
    fn binary_round_trips() {
        for text in [
            "0",
            "0.00",
            "1",
            "-12345.6789",
            "10000",
            "0.0001",
            "1e100",
            "NaN",
        ] {
            let value = n(text);
            let back = decode_binary(&encode_binary(&value)).unwrap();
            assert_eq!(back.format(), value.format(), "{text}");
        }
    }

    #[test]
    fn typmods_round_and_overflow() {
        let t = typmod(4, 2).unwrap();
        assert_eq!(n("12.345").apply_typmod(t).unwrap().format(), "12.35");
        assert!(n("123.5").apply_typmod(t).is_err());
        let t = typmod(5, -2).unwrap();
        assert_eq!(n("12345").apply_typmod(t).unwrap().format(), "12300");
    }
}
