//! The fields an interval's text is read into (`pg_itm_in`: years apart from months, as
//! PostgreSQL keeps them), and the additions with PostgreSQL's overflow checks that both
//! readers share: the `postgres` style's (`interval.rs`) and ISO 8601's
//! (`interval_iso.rs`).

pub(crate) const HOUR_US: i64 = 3_600_000_000;
pub(crate) const MINUTE_US: i64 = 60_000_000;
pub(crate) const SECOND_US: i64 = 1_000_000;
pub(crate) const DAY_US: i64 = 86_400_000_000;
pub(crate) const MONTH_DAYS: i32 = 30;

/// Why a text is not an interval (PostgreSQL's `DTERR_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fail {
    Bad,
    FieldOverflow,
}

pub(crate) type Decoded<T> = Result<T, Fail>;

/// The fields being read (`pg_itm_in`): years apart from months, as PostgreSQL keeps them.
#[derive(Default)]
pub(crate) struct Parts {
    pub(crate) us: i64,
    pub(crate) days: i32,
    pub(crate) months: i32,
    pub(crate) years: i32,
}

pub(crate) fn add_us(parts: &mut Parts, value: i64, fraction: f64, scale: i64) -> bool {
    let whole = value
        .checked_mul(scale)
        .and_then(|v| v.checked_add(parts.us));
    match whole {
        Some(us) => {
            parts.us = us;
            add_fraction_us(parts, fraction, scale)
        }
        None => false,
    }
}

/// `AdjustFractMicroseconds`: the fraction's whole microseconds, then its rounded rest.
pub(crate) fn add_fraction_us(parts: &mut Parts, fraction: f64, scale: i64) -> bool {
    if fraction == 0.0 {
        return true;
    }
    let scaled = fraction * scale as f64;
    let whole = scaled as i64;
    let us = whole + (scaled - whole as f64).round_ties_even() as i64;
    match parts.us.checked_add(us) {
        Some(total) => {
            parts.us = total;
            true
        }
        None => false,
    }
}

/// `AdjustFractDays`: whole days, the rest as microseconds.
pub(crate) fn add_fraction_days(parts: &mut Parts, fraction: f64, scale: i32) -> bool {
    if fraction == 0.0 {
        return true;
    }
    let scaled = fraction * f64::from(scale);
    let extra = scaled as i32;
    match parts.days.checked_add(extra) {
        Some(days) => {
            parts.days = days;
            add_fraction_us(parts, scaled - f64::from(extra), DAY_US)
        }
        None => false,
    }
}

pub(crate) fn add_days(parts: &mut Parts, value: i64, scale: i32) -> bool {
    let days = i32::try_from(value)
        .ok()
        .and_then(|v| v.checked_mul(scale))
        .and_then(|v| v.checked_add(parts.days));
    days.map(|d| parts.days = d).is_some()
}

pub(crate) fn add_months(parts: &mut Parts, value: i64) -> bool {
    let months = i32::try_from(value)
        .ok()
        .and_then(|v| v.checked_add(parts.months));
    months.map(|m| parts.months = m).is_some()
}

/// `AdjustYears` and `AdjustFractYears` (the fraction as rounded months).
pub(crate) fn add_years(parts: &mut Parts, value: i64, fraction: f64, scale: i32) -> bool {
    let years = i32::try_from(value)
        .ok()
        .and_then(|v| v.checked_mul(scale))
        .and_then(|v| v.checked_add(parts.years));
    let Some(years) = years else {
        return false;
    };
    parts.years = years;
    let extra = (fraction * f64::from(scale) * 12.0).round() as i32;
    add_months(parts, i64::from(extra))
}

pub(crate) fn overflow_unless(ok: bool) -> Decoded<()> {
    match ok {
        true => Ok(()),
        false => Err(Fail::FieldOverflow),
    }
}
