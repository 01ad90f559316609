//! The interval type's text output in the `postgres` `IntervalStyle` (`EncodeInterval`)
//! and its arithmetic as PostgreSQL 17+ computes it: negation, `+` and `-`, `*` and `/`
//! by a float (fractions cascading down to days and time), `justify_*`; infinities kept
//! as PostgreSQL keeps them (`infinity - infinity` and `infinity * 0` are out of range),
//! and every finite result checked against the field widths and the infinities'
//! representations (22008).

use crate::pg::error::{PgError, PgResult, DIVISION_BY_ZERO};
use crate::pg::types::interval::{
    is_infinite, out_of_range, DAY_US, HOUR_US, INFINITY, MINUTE_US, NEG_INFINITY, SECOND_US,
};
use crate::pg::types::value::{interval_span_us, Interval};

/// `1 year 2 mons -3 days +04:05:06.7`: a unit plural unless its count is exactly 1, a
/// field after a negative one signed with `+` when positive, the time as `[-]hh:mm:ss`.
pub(crate) fn format(i: &Interval) -> String {
    match *i {
        INFINITY => return "infinity".into(),
        NEG_INFINITY => return "-infinity".into(),
        _ => {}
    }
    let mut out = String::new();
    let mut before_negative = false;
    let fields = [
        (i64::from(i.months / 12), "year"),
        (i64::from(i.months % 12), "mon"),
        (i64::from(i.days), "day"),
    ];
    for (n, unit) in fields.into_iter().filter(|(n, _)| *n != 0) {
        let space = if out.is_empty() { "" } else { " " };
        let sign = if before_negative && n > 0 { "+" } else { "" };
        let plural = if n == 1 { "" } else { "s" };
        out.push_str(&format!("{space}{sign}{n} {unit}{plural}"));
        before_negative = n < 0;
    }
    if out.is_empty() || i.us != 0 {
        let space = if out.is_empty() { "" } else { " " };
        let sign = match (i.us < 0, before_negative) {
            (true, _) => "-",
            (false, true) => "+",
            (false, false) => "",
        };
        out.push_str(&format!("{space}{sign}{}", clock(i.us)));
    }
    out
}

/// `hh:mm:ss[.ffffff]` of a time's magnitude, hours unbounded (every field's magnitude
/// taken apart, so the smallest microseconds print too).
fn clock(us: i64) -> String {
    let hours = (us / HOUR_US).unsigned_abs();
    let minutes = (us % HOUR_US / MINUTE_US).unsigned_abs();
    let seconds = (us % MINUTE_US / SECOND_US).unsigned_abs();
    let fraction = (us % SECOND_US).unsigned_abs();
    let clock = format!("{hours:02}:{minutes:02}:{seconds:02}");
    if fraction == 0 {
        return clock;
    }
    let digits = format!("{fraction:06}");
    format!("{clock}.{}", digits.trim_end_matches('0'))
}

/// A finite result, or 22008 when it overflowed or landed on an infinity's fields.
fn finite(months: Option<i32>, days: Option<i32>, us: Option<i64>) -> PgResult<Interval> {
    let (Some(months), Some(days), Some(us)) = (months, days, us) else {
        return Err(out_of_range());
    };
    let i = Interval { months, days, us };
    match is_infinite(&i) {
        true => Err(out_of_range()),
        false => Ok(i),
    }
}

/// `-i` (`interval_um`).
pub(crate) fn negate(i: Interval) -> PgResult<Interval> {
    match i {
        INFINITY => Ok(NEG_INFINITY),
        NEG_INFINITY => Ok(INFINITY),
        i => finite(
            i.months.checked_neg(),
            i.days.checked_neg(),
            i.us.checked_neg(),
        ),
    }
}

/// `a + b` (`interval_pl`): infinities of opposite signs are out of range.
pub(crate) fn add(a: Interval, b: Interval) -> PgResult<Interval> {
    match (a, b) {
        (INFINITY, NEG_INFINITY) | (NEG_INFINITY, INFINITY) => Err(out_of_range()),
        (a, _) if is_infinite(&a) => Ok(a),
        (_, b) if is_infinite(&b) => Ok(b),
        (a, b) => finite(
            a.months.checked_add(b.months),
            a.days.checked_add(b.days),
            a.us.checked_add(b.us),
        ),
    }
}

/// `a - b` (`interval_mi`): infinities of the same sign are out of range.
pub(crate) fn subtract(a: Interval, b: Interval) -> PgResult<Interval> {
    match (a, b) {
        (INFINITY, INFINITY) | (NEG_INFINITY, NEG_INFINITY) => Err(out_of_range()),
        (a, _) if is_infinite(&a) => Ok(a),
        (_, b) if is_infinite(&b) => negate(b),
        (a, b) => finite(
            a.months.checked_sub(b.months),
            a.days.checked_sub(b.days),
            a.us.checked_sub(b.us),
        ),
    }
}

/// The sign of an interval's length (`interval_sign`).
fn sign(i: &Interval) -> i128 {
    interval_span_us(i).signum()
}

/// `i * factor` (`interval_mul`).
pub(crate) fn multiply(i: Interval, factor: f64) -> PgResult<Interval> {
    if factor.is_nan() {
        return Err(out_of_range());
    }
    if is_infinite(&i) {
        return match factor {
            0.0 => Err(out_of_range()),
            f if f < 0.0 => negate(i),
            _ => Ok(i),
        };
    }
    if factor.is_infinite() {
        return match sign(&i) * if factor < 0.0 { -1 } else { 1 } {
            0 => Err(out_of_range()),
            s if s < 0 => Ok(NEG_INFINITY),
            _ => Ok(INFINITY),
        };
    }
    scaled(i, |n| n * factor)
}

/// `i / factor` (`interval_div`).
pub(crate) fn divide(i: Interval, factor: f64) -> PgResult<Interval> {
    if factor == 0.0 {
        return Err(PgError::new(DIVISION_BY_ZERO, "division by zero"));
    }
    if factor.is_nan() {
        return Err(out_of_range());
    }
    if is_infinite(&i) {
        return match factor {
            f if f.is_infinite() => Err(out_of_range()),
            f if f < 0.0 => negate(i),
            _ => Ok(i),
        };
    }
    if factor.is_infinite() {
        return Ok(Interval::default());
    }
    scaled(i, |n| n / factor)
}

/// PostgreSQL's `TSROUND`: to the microsecond's precision of a second count.
fn ts_round(x: f64) -> f64 {
    (x * 1_000_000.0).round_ties_even() / 1_000_000.0
}

/// Whether a float fits an int32 as `FLOAT8_FITS_IN_INT32` tests it.
fn fits_i32(x: f64) -> bool {
    !x.is_nan() && x >= f64::from(i32::MIN) && x < -f64::from(i32::MIN)
}

/// Each field scaled by `by`, the fractions of months and days cascading down (30-day
/// months, 86,400-second days), as `interval_mul` and `interval_div` share it.
fn scaled(i: Interval, by: impl Fn(f64) -> f64) -> PgResult<Interval> {
    let months = by(f64::from(i.months));
    let days = by(f64::from(i.days));
    if !fits_i32(months) || !fits_i32(days) {
        return Err(out_of_range());
    }
    let (whole_months, mut whole_days) = (months as i32, days as i32);
    let month_remainder_days = ts_round((months - f64::from(whole_months)) * 30.0);
    let mut sec_remainder = ts_round(
        (days - f64::from(whole_days) + month_remainder_days
            - f64::from(month_remainder_days as i32))
            * 86_400.0,
    );
    if sec_remainder.abs() >= 86_400.0 {
        let extra_days = (sec_remainder / 86_400.0) as i32;
        whole_days = whole_days
            .checked_add(extra_days)
            .ok_or_else(out_of_range)?;
        sec_remainder -= f64::from(extra_days) * 86_400.0;
    }
    let whole_days = whole_days
        .checked_add(month_remainder_days as i32)
        .ok_or_else(out_of_range)?;
    let us = (by(i.us as f64) + sec_remainder * 1_000_000.0).round_ties_even();
    let fits = !us.is_nan() && us >= i64::MIN as f64 && us < -(i64::MIN as f64);
    if !fits {
        return Err(out_of_range());
    }
    finite(Some(whole_months), Some(whole_days), Some(us as i64))
}

/// `justify_hours`: whole days of the time into days, the signs of the two agreeing.
pub(crate) fn justify_hours(i: Interval) -> PgResult<Interval> {
    if is_infinite(&i) {
        return Ok(i);
    }
    let mut r = i;
    let whole_days = r.us / DAY_US;
    r.us -= whole_days * DAY_US;
    r.days = r
        .days
        .checked_add(whole_days as i32)
        .ok_or_else(out_of_range)?;
    Ok(agree_days_time(r))
}

/// A day moved between days and time so their signs agree.
fn agree_days_time(mut r: Interval) -> Interval {
    if r.days > 0 && r.us < 0 {
        r.us += DAY_US;
        r.days -= 1;
    } else if r.days < 0 && r.us > 0 {
        r.us -= DAY_US;
        r.days += 1;
    }
    r
}

/// Whole 30-day months of the days into months.
fn days_into_months(mut r: Interval) -> PgResult<Interval> {
    let whole_months = r.days / 30;
    r.days -= whole_months * 30;
    r.months = r
        .months
        .checked_add(whole_months)
        .ok_or_else(out_of_range)?;
    Ok(r)
}

/// `justify_days`: whole 30-day months of the days into months, signs agreeing.
pub(crate) fn justify_days(i: Interval) -> PgResult<Interval> {
    if is_infinite(&i) {
        return Ok(i);
    }
    let mut r = days_into_months(i)?;
    if r.months > 0 && r.days < 0 {
        r.days += 30;
        r.months -= 1;
    } else if r.months < 0 && r.days > 0 {
        r.days -= 30;
        r.months += 1;
    }
    Ok(r)
}

/// `justify_interval`: both justifications, the signs of all three fields agreeing.
pub(crate) fn justify_interval(i: Interval) -> PgResult<Interval> {
    if is_infinite(&i) {
        return Ok(i);
    }
    let mut r = i;
    // Days first when that keeps the sum below from overflowing.
    if (r.days > 0 && r.us > 0) || (r.days < 0 && r.us < 0) {
        r = days_into_months(r)?;
    }
    let whole_days = r.us / DAY_US;
    r.us -= whole_days * DAY_US;
    r.days += whole_days as i32;
    r = days_into_months(r)?;
    if r.months > 0 && (r.days < 0 || (r.days == 0 && r.us < 0)) {
        r.days += 30;
        r.months -= 1;
    } else if r.months < 0 && (r.days > 0 || (r.days == 0 && r.us > 0)) {
        r.days -= 30;
        r.months += 1;
    }
    Ok(agree_days_time(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::types::interval::{parse, Typmod};

    fn read(text: &str) -> Interval {
        parse(text, Typmod::default()).expect("an interval")
    }

    #[test]
    fn the_postgres_style_prints_as_postgresql_prints_it() {
        assert_eq!(format(&read("1 day 2 hours")), "1 day 02:00:00");
        assert_eq!(format(&read("-1 days +02:03")), "-1 days +02:03:00");
        assert_eq!(
            format(&read("-9223372036854775807 us")),
            "-2562047788:00:54.775807"
        );
        assert_eq!(format(&read("0")), "00:00:00");
        assert_eq!(format(&INFINITY), "infinity");
    }

    #[test]
    fn arithmetic_cascades_and_checks_as_postgresql() {
        let product = multiply(read("4 mon"), 0.3).expect("in range");
        assert_eq!(format(&product), "1 mon 6 days");
        assert!(negate(read("-2147483648 days")).is_err());
        assert!(subtract(INFINITY, INFINITY).is_err());
        assert_eq!(multiply(read("5 days"), f64::INFINITY), Ok(INFINITY));
        let justified = justify_interval(read("1 month -1 hour")).expect("in range");
        assert_eq!(format(&justified), "29 days 23:00:00");
    }
}
