//! The ISO 8601 forms of an interval's text (`DecodeISO8601Interval`): designators
//! (`P1Y2M3DT4H5M6S`, fractions carried down as PostgreSQL carries them) and the
//! alternative format (`P0002-10-15T10:30:20`).

use crate::pg::types::interval_parts::{
    add_days, add_fraction_days, add_fraction_us, add_months, add_us, add_years, overflow_unless,
    Decoded, Fail, Parts, DAY_US, HOUR_US, MINUTE_US, MONTH_DAYS, SECOND_US,
};

/// `DecodeISO8601Interval`: `P[nY][nM][nW][nD][T[nH][nM][nS]]`, or the alternative
/// forms `PYYYYMMDDThhmmss` and `PYYYY-MM-DDThh:mm:ss`.
pub(crate) fn iso8601(text: &str) -> Decoded<Parts> {
    let body = text.strip_prefix('P').ok_or(Fail::Bad)?;
    if body.is_empty() {
        return Err(Fail::Bad);
    }
    let mut parts = Parts::default();
    let mut s = body;
    let mut date_part = true;
    let mut have_field = false;
    while !s.is_empty() {
        if let Some(rest) = s.strip_prefix('T') {
            date_part = false;
            have_field = false;
            s = rest;
            continue;
        }
        let start = s;
        let (whole, fraction, rest) = iso_number(s)?;
        s = rest.get(1..).unwrap_or("");
        let field = IsoField {
            unit: rest.chars().next(),
            whole,
            fraction,
            start,
            have_field,
            rest: s,
        };
        let step = match date_part {
            true => iso_date_field(&mut parts, field)?,
            false => iso_time_field(&mut parts, field)?,
        };
        match step {
            Step::Done => return Ok(parts),
            Step::Field => have_field = true,
            Step::Time(rest) => {
                date_part = false;
                have_field = false;
                s = rest;
            }
        }
    }
    Ok(parts)
}

/// One number of an ISO 8601 text and what follows it.
#[derive(Clone, Copy)]
struct IsoField<'a> {
    /// The designator after the number (`Y`, `H`, `T`, `-`, `:`), if any.
    unit: Option<char>,
    whole: i64,
    fraction: f64,
    /// The text from the number on (its digit count tells the basic formats apart).
    start: &'a str,
    /// Whether a designated field came before it in this part (date or time).
    have_field: bool,
    /// The text after the designator.
    rest: &'a str,
}

/// What an ISO 8601 field left to read.
enum Step<'a> {
    /// A designated field (`2Y`): read on.
    Field,
    /// An alternative-form date ended at `T`: the time part follows.
    Time(&'a str),
    /// The text ended.
    Done,
}

fn iso_date_field<'a>(parts: &mut Parts, field: IsoField<'a>) -> Decoded<Step<'a>> {
    let IsoField {
        unit,
        whole,
        fraction,
        start,
        have_field,
        rest,
    } = field;
    match unit {
        Some('Y') => overflow_unless(add_years(parts, whole, fraction, 1))?,
        Some('M') => overflow_unless(
            add_months(parts, whole) && add_fraction_days(parts, fraction, MONTH_DAYS),
        )?,
        Some('W') => {
            overflow_unless(add_days(parts, whole, 7) && add_fraction_days(parts, fraction, 7))?
        }
        Some('D') => {
            overflow_unless(add_days(parts, whole, 1) && add_fraction_us(parts, fraction, DAY_US))?
        }
        Some('T') | None if integer_width(start) == 8 && !have_field => {
            overflow_unless(
                add_years(parts, whole / 10000, 0.0, 1)
                    && add_months(parts, whole / 100 % 100)
                    && add_days(parts, whole % 100, 1)
                    && add_fraction_us(parts, fraction, DAY_US),
            )?;
            return Ok(match unit {
                None => Step::Done,
                _ => Step::Time(rest),
            });
        }
        Some('T' | '-') | None => return iso_extended_date(parts, field),
        _ => return Err(Fail::Bad),
    }
    Ok(Step::Field)
}

/// `YYYY-MM-DD[T…]`: years, then months, then days, each optional from the right.
fn iso_extended_date<'a>(parts: &mut Parts, field: IsoField<'a>) -> Decoded<Step<'a>> {
    let IsoField {
        unit,
        whole,
        fraction,
        have_field,
        rest,
        ..
    } = field;
    if have_field {
        return Err(Fail::Bad);
    }
    overflow_unless(add_years(parts, whole, fraction, 1))?;
    match unit {
        None => return Ok(Step::Done),
        Some('T') => return Ok(Step::Time(rest)),
        _ => {}
    }
    let (whole, fraction, s) = iso_number(rest)?;
    overflow_unless(add_months(parts, whole) && add_fraction_days(parts, fraction, MONTH_DAYS))?;
    if s.is_empty() {
        return Ok(Step::Done);
    }
    if let Some(s) = s.strip_prefix('T') {
        return Ok(Step::Time(s));
    }
    let s = s.strip_prefix('-').ok_or(Fail::Bad)?;
    let (whole, fraction, s) = iso_number(s)?;
    overflow_unless(add_days(parts, whole, 1) && add_fraction_us(parts, fraction, DAY_US))?;
    if s.is_empty() {
        return Ok(Step::Done);
    }
    match s.strip_prefix('T') {
        Some(s) => Ok(Step::Time(s)),
        None => Err(Fail::Bad),
    }
}

fn iso_time_field<'a>(parts: &mut Parts, field: IsoField<'a>) -> Decoded<Step<'a>> {
    let IsoField {
        unit,
        whole,
        fraction,
        start,
        have_field,
        rest,
    } = field;
    match unit {
        Some('H') => overflow_unless(add_us(parts, whole, fraction, HOUR_US))?,
        Some('M') => overflow_unless(add_us(parts, whole, fraction, MINUTE_US))?,
        Some('S') => overflow_unless(add_us(parts, whole, fraction, SECOND_US))?,
        None if integer_width(start) == 6 && !have_field => {
            overflow_unless(
                add_us(parts, whole / 10000, 0.0, HOUR_US)
                    && add_us(parts, whole / 100 % 100, 0.0, MINUTE_US)
                    && add_us(parts, whole % 100, 0.0, SECOND_US)
                    && add_fraction_us(parts, fraction, 1),
            )?;
            return Ok(Step::Done);
        }
        Some(':') | None => {
            if have_field {
                return Err(Fail::Bad);
            }
            overflow_unless(add_us(parts, whole, fraction, HOUR_US))?;
            if unit.is_none() {
                return Ok(Step::Done);
            }
            let (whole, fraction, s) = iso_number(rest)?;
            overflow_unless(add_us(parts, whole, fraction, MINUTE_US))?;
            if s.is_empty() {
                return Ok(Step::Done);
            }
            let s = s.strip_prefix(':').ok_or(Fail::Bad)?;
            let (whole, fraction, s) = iso_number(s)?;
            overflow_unless(add_us(parts, whole, fraction, SECOND_US))?;
            return match s.is_empty() {
                true => Ok(Step::Done),
                false => Err(Fail::Bad),
            };
        }
        _ => return Err(Fail::Bad),
    }
    Ok(Step::Field)
}

/// The digits at the start of an ISO 8601 field, after a `-`.
fn integer_width(field: &str) -> usize {
    let field = field.strip_prefix('-').unwrap_or(field);
    field.len() - field.trim_start_matches(|c: char| c.is_ascii_digit()).len()
}

/// `ParseISO8601Number`: what `strtod` reads (a decimal with an exponent), within
/// ±1e15, as its integer part (toward zero), its fraction and the rest of the text.
fn iso_number(text: &str) -> Decoded<(i64, f64, &str)> {
    if !text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.') {
        return Err(Fail::Bad);
    }
    let (value, rest) = strtod(text)?;
    if value.is_nan() || !(-1.0e15..=1.0e15).contains(&value) {
        return Err(Fail::FieldOverflow);
    }
    let whole = value.trunc();
    Ok((whole as i64, value - whole, rest))
}

/// C's `strtod` on a decimal: sign, digits, point, digits, exponent; `inf` and `nan`
/// as themselves. Hexadecimal floats are refused as a bad format (none reach here in
/// practice: PostgreSQL would read them).
fn strtod(text: &str) -> Decoded<(f64, &str)> {
    let bytes = text.as_bytes();
    let mut at = usize::from(matches!(bytes.first(), Some(b'-' | b'+')));
    let lower = text[at..].to_ascii_lowercase();
    if lower.starts_with("inf") || lower.starts_with("nan") {
        return Err(Fail::FieldOverflow);
    }
    let digits_from = at;
    while at < bytes.len() && bytes[at].is_ascii_digit() {
        at += 1;
    }
    let mut digits = at - digits_from;
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        let from = at;
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        digits += at - from;
    }
    if digits == 0 {
        return Err(Fail::Bad);
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        let mut e = at + 1;
        if matches!(bytes.get(e), Some(b'-' | b'+')) {
            e += 1;
        }
        let from = e;
        while e < bytes.len() && bytes[e].is_ascii_digit() {
            e += 1;
        }
        if e > from {
            at = e;
        }
    }
    let value: f64 = with_point_digits(&text[..at])
        .parse()
        .map_err(|_| Fail::Bad)?;
    Ok((value, &text[at..]))
}

/// A decimal with a digit on each side of its point (`-.5e3` as `-0.5e3`, `1.` as
/// `1.0`), as Rust's parser wants it.
fn with_point_digits(number: &str) -> String {
    let Some((whole, rest)) = number.split_once('.') else {
        return number.to_string();
    };
    let whole = match whole {
        "" | "-" | "+" => format!("{whole}0"),
        w => w.to_string(),
    };
    let rest = match rest.starts_with(|c: char| c.is_ascii_digit()) {
        true => rest.to_string(),
        false => format!("0{rest}"),
    };
    format!("{whole}.{rest}")
}
