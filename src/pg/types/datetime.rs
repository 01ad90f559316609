//! The calendar of PostgreSQL's date and time types and their text forms, both ways:
//! `date` (days since 2000-01-01), `timestamp` (microseconds since 2000-01-01, no zone)
//! and `timestamptz` (the same instant counted in UTC). Input reads the ISO forms teams
//! write (`2024-01-02`, `20240102`, `2024-01-02 03:04:05.123456`, a `T` between, an
//! offset or `Z` after, ` BC`, and `epoch`); the other forms PostgreSQL reads (month
//! names, `01/02/2024`, two-digit years, zone names) and the special values that read
//! the clock or stand for infinity are refused (0A000), never read otherwise. Output is
//! PostgreSQL's `ISO` `DateStyle`, the model's only one, in UTC, the model's only zone.

use crate::pg::error::{PgError, PgResult, DATETIME_OVERFLOW, INVALID_DATETIME_FORMAT};
use crate::pg::types::pg_type::{Type, PG_EPOCH_UNIX_US};

pub(crate) const DAY_US: i64 = 86_400_000_000;

/// Days between the Unix epoch and PostgreSQL's.
const PG_EPOCH_UNIX_DAYS: i64 = PG_EPOCH_UNIX_US / DAY_US;

/// Julian day 0 (4714-11-24 BC), where `date` and `timestamp` begin, in days since 2000.
pub(crate) const DATE_MIN_DAYS: i64 = -2_451_545;

/// The first day past `date`'s range (5874898-01-01), in days since 2000.
pub(crate) const DATE_END_DAYS: i64 = 2_147_483_494 - 2_451_545;

/// The first microsecond past `timestamp`'s range (294277-01-01), since 2000.
pub(crate) const TIMESTAMP_END_US: i64 = (109_203_528 - 2_451_545) * DAY_US;

/// The first microsecond of `timestamp`'s range, since 2000.
pub(crate) const TIMESTAMP_MIN_US: i64 = DATE_MIN_DAYS * DAY_US;

/// Days since 1970-01-01 to a civil date, the year astronomical (0 is 1 BC; Howard
/// Hinnant's algorithm).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// A civil date (the year astronomical) to days since 1970-01-01.
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = (month as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of `days_since_2000` (the year astronomical).
pub(crate) fn civil_from_pg_days(days_since_2000: i64) -> (i64, u32, u32) {
    civil_from_days(days_since_2000 + PG_EPOCH_UNIX_DAYS)
}

/// A civil date (the year astronomical) in days since 2000-01-01.
pub(crate) fn pg_days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    days_from_civil(year, month, day) - PG_EPOCH_UNIX_DAYS
}

pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    let next_first = days_from_civil(year + i64::from(month == 12), month % 12 + 1, 1);
    (next_first - days_from_civil(year, month, 1)) as u32
}

/// A timestamp's day (since 2000) and microsecond of that day.
pub(crate) fn split_us(pg_us: i64) -> (i64, i64) {
    (pg_us.div_euclid(DAY_US), pg_us.rem_euclid(DAY_US))
}

/// Shift a timestamp by whole months, clamping the day to the month's end.
pub(crate) fn add_months(pg_us: i64, months: i32) -> i64 {
    let (days, us_of_day) = split_us(pg_us);
    let (year, month, day) = civil_from_pg_days(days);
    let total = year * 12 + month as i64 - 1 + months as i64;
    let (year, month) = (total.div_euclid(12), total.rem_euclid(12) as u32 + 1);
    let days = pg_days_from_civil(year, month, day.min(days_in_month(year, month)));
    days * DAY_US + us_of_day
}

/// `YYYY-MM-DD`, and whether the year is BC (then printed as PostgreSQL prints it: 1 BC
/// is astronomical year 0).
fn date_text(days_since_2000: i64) -> (String, bool) {
    let (year, month, day) = civil_from_pg_days(days_since_2000);
    let bc = year <= 0;
    let year = if bc { 1 - year } else { year };
    (format!("{year:04}-{month:02}-{day:02}"), bc)
}

fn bc_suffix(bc: bool) -> &'static str {
    if bc {
        " BC"
    } else {
        ""
    }
}

/// `date`'s output: `2024-01-02`.
pub(crate) fn format_date(days_since_2000: i64) -> String {
    let (date, bc) = date_text(days_since_2000);
    format!("{date}{}", bc_suffix(bc))
}

/// `timestamp`'s output, `2024-01-02 03:04:05.5`; with `zone` (`+00`) timestamptz's.
/// `separator` is ` ` in text, `T` in JSON.
pub(crate) fn format_timestamp(pg_us: i64, separator: char, zone: &str) -> String {
    let (days, us_of_day) = split_us(pg_us);
    let (date, bc) = date_text(days);
    let clock = format_time_of_day(us_of_day);
    format!("{date}{separator}{clock}{zone}{}", bc_suffix(bc))
}

/// `HH:MM:SS[.ffffff]`, trailing zeros of the fraction dropped.
pub(crate) fn format_time_of_day(us: i64) -> String {
    let (seconds, fraction) = (us / 1_000_000, us % 1_000_000);
    let clock = format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if fraction == 0 {
        return clock;
    }
    let digits = format!("{fraction:06}");
    format!("{clock}.{}", digits.trim_end_matches('0'))
}

/// What a date/time text reads as: the local date and time, and the offset written
/// after it (east of UTC; 0 when none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Moment {
    days_since_2000: i64,
    us_of_day: i64,
    offset_us: i64,
}

/// Why a text is no date/time: PostgreSQL's two errors, or a form the model leaves out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unread {
    Syntax,
    FieldOutOfRange,
    Refused,
}

/// `text` as a value of the date/time type `t` (`Date`, `Timestamp`, `Timestamptz`):
/// microseconds since 2000 for the timestamps (a timestamptz's offset applied, a
/// timestamp's ignored, as PostgreSQL ignores it), days for a date.
pub(crate) fn parse(text: &str, t: Type) -> PgResult<i64> {
    assert!(matches!(
        t,
        Type::Date | Type::Timestamp | Type::Timestamptz
    ));
    let moment = read(text).map_err(|unread| match unread {
        Unread::Syntax => PgError::new(
            INVALID_DATETIME_FORMAT,
            format!("invalid input syntax for type {}: \"{text}\"", t.name()),
        ),
        Unread::FieldOutOfRange => PgError::new(
            DATETIME_OVERFLOW,
            format!("date/time field value out of range: \"{text}\""),
        ),
        Unread::Refused => PgError::unsupported(format!("the {} input \"{text}\"", t.name())),
    })?;
    let out_of_range = |what: &str| {
        PgError::new(
            DATETIME_OVERFLOW,
            format!("{what} out of range: \"{text}\""),
        )
    };
    match t {
        Type::Date => (DATE_MIN_DAYS..DATE_END_DAYS)
            .contains(&moment.days_since_2000)
            .then_some(moment.days_since_2000)
            .ok_or_else(|| out_of_range("date")),
        _ => {
            let offset_us = if t == Type::Timestamptz {
                moment.offset_us
            } else {
                0
            };
            moment
                .days_since_2000
                .checked_mul(DAY_US)
                .and_then(|us| us.checked_add(moment.us_of_day - offset_us))
                .filter(|us| (TIMESTAMP_MIN_US..TIMESTAMP_END_US).contains(us))
                .ok_or_else(|| out_of_range("timestamp"))
        }
    }
}

/// The ISO forms: a date, then optionally a time (after a space or `T`) and an offset,
/// optionally ` BC` or ` AD` last; or `epoch`.
fn read(text: &str) -> Result<Moment, Unread> {
    let lower = text.trim().to_ascii_lowercase();
    match lower.as_str() {
        "epoch" => {
            let epoch = Moment {
                days_since_2000: -PG_EPOCH_UNIX_DAYS,
                us_of_day: 0,
                offset_us: 0,
            };
            return Ok(epoch);
        }
        "infinity" | "+infinity" | "-infinity" | "now" | "today" | "tomorrow" | "yesterday"
        | "allballs" => return Err(Unread::Refused),
        _ => {}
    }
    // Words PostgreSQL reads (month and day names, zone names) are left out; a text
    // without a digit is none of its forms.
    if !lower.bytes().any(|b| b.is_ascii_digit()) {
        return Err(Unread::Syntax);
    }
    let (body, bc) = match (lower.strip_suffix(" bc"), lower.strip_suffix(" ad")) {
        (Some(body), _) => (body.trim_end(), true),
        (None, Some(body)) => (body.trim_end(), false),
        (None, None) => (lower.as_str(), false),
    };
    let (date, rest) = body.split_at(body.find([' ', 't']).unwrap_or(body.len()));
    let days_since_2000 = read_date(date, bc)?;
    // A `T` promises a time: `2024-01-02T` alone is none of the model's forms.
    if rest.starts_with('t') && rest.len() == 1 {
        return Err(Unread::Refused);
    }
    let (us_of_day, offset_us) = read_time_and_zone(rest.trim_start_matches([' ', 't']))?;
    Ok(Moment {
        days_since_2000,
        us_of_day,
        offset_us,
    })
}

/// `YYYY-MM-DD` (a year of three digits or more, month and day of one or two) or
/// `YYYYMMDD`, in days since 2000.
fn read_date(date: &str, bc: bool) -> Result<i64, Unread> {
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let fields: Vec<&str> = match date.len() {
        8 if all_digits(date) => vec![&date[..4], &date[4..6], &date[6..]],
        _ => date.split('-').collect(),
    };
    let [year, month, day] = fields.as_slice() else {
        return Err(Unread::Refused);
    };
    if !fields.iter().all(|f| all_digits(f)) || month.len() > 2 || day.len() > 2 {
        return Err(Unread::Refused);
    }
    // Two-digit years PostgreSQL moves into 1970..2069: a form the model leaves out.
    if year.len() < 3 || year.len() > 9 {
        return Err(Unread::Refused);
    }
    let (year, month, day): (i64, u32, u32) = (
        year.parse().expect("digits"),
        month.parse().expect("digits"),
        day.parse().expect("digits"),
    );
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return Err(Unread::FieldOutOfRange);
    }
    let year = if bc { 1 - year } else { year };
    Ok(pg_days_from_civil(year, month, day))
}

/// `H[H]:MM[:SS[.ffffff]]` and an offset (`±HH`, `±HHMM`, `±HH:MM`, `Z`, `UTC`), in
/// microseconds; nothing at all is midnight in UTC.
fn read_time_and_zone(rest: &str) -> Result<(i64, i64), Unread> {
    let rest = rest.trim();
    let zone_at = rest.find(['+', '-', 'z', 'u', 'g']).unwrap_or(rest.len());
    let (time, zone) = rest.split_at(zone_at);
    let us_of_day = match time.trim() {
        "" => 0,
        time => read_clock(time)?,
    };
    Ok((us_of_day, read_offset(zone.trim())?))
}

/// A clock as PostgreSQL's `DecodeTime` reads it: hours up to 24 (`24:00:00` only),
/// minutes up to 59, seconds up to 60 (a leap second, without a fraction), a fraction
/// rounded to microseconds (`rint`).
fn read_clock(time: &str) -> Result<i64, Unread> {
    let number = |s: &str| -> Result<i64, Unread> {
        match !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()) {
            true => Ok(s.parse().expect("digits")),
            false => Err(Unread::Refused),
        }
    };
    let (clock, fraction) = match time.split_once('.') {
        Some((clock, fraction)) => (clock, fraction),
        None => (time, ""),
    };
    let fields: Vec<&str> = clock.split(':').collect();
    let (hours, minutes, seconds) = match fields.as_slice() {
        [h, m] => (number(h)?, number(m)?, 0),
        [h, m, s] => (number(h)?, number(m)?, number(s)?),
        _ => return Err(Unread::Refused),
    };
    if fields.len() == 2 && !fraction.is_empty() {
        return Err(Unread::Refused);
    }
    let fraction_us = read_fraction(fraction)?;
    let past_midnight = hours == 24 && (minutes > 0 || seconds > 0 || fraction_us > 0);
    let leap_fraction = seconds == 60 && fraction_us > 0;
    if hours > 24 || minutes > 59 || seconds > 60 || past_midnight || leap_fraction {
        return Err(Unread::FieldOutOfRange);
    }
    Ok((hours * 3600 + minutes * 60 + seconds) * 1_000_000 + fraction_us)
}

/// The digits after a second's point in microseconds, as PostgreSQL's
/// `ParseFractionalSecond` rounds them (`rint` of the double).
fn read_fraction(digits: &str) -> Result<i64, Unread> {
    if digits.is_empty() {
        return Ok(0);
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Unread::Refused);
    }
    let fraction: f64 = format!("0.{digits}").parse().map_err(|_| Unread::Refused)?;
    Ok((fraction * 1e6).round_ties_even() as i64)
}

/// An offset in microseconds east of UTC.
fn read_offset(zone: &str) -> Result<i64, Unread> {
    if matches!(zone, "" | "z" | "utc" | "gmt") {
        return Ok(0);
    }
    let sign = match zone.as_bytes()[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return Err(Unread::Refused),
    };
    let digits = zone[1..].replacen(':', "", 1);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Unread::Refused);
    }
    let (hours, minutes): (i64, i64) = match digits.len() {
        1 | 2 => (digits.parse().expect("digits"), 0),
        4 => (
            digits[..2].parse().expect("digits"),
            digits[2..].parse().expect("digits"),
        ),
        _ => return Err(Unread::Refused),
    };
    if hours > 15 || minutes > 59 {
        return Err(Unread::Refused);
    }
    Ok(sign * (hours * 3600 + minutes * 60) * 1_000_000)
}

/// `timestamp(p)`'s rounding of `pg_us` to `precision` fractional digits, halves away
/// from zero (PostgreSQL's `AdjustTimestampForTypmod`).
pub(crate) fn round_to_precision(pg_us: i64, precision: u32) -> PgResult<i64> {
    if precision > 6 {
        return Err(PgError::unsupported(format!(
            "TIMESTAMP({precision}) (PostgreSQL reduces it to 6 with a warning)"
        )));
    }
    let scale = 10i64.pow(6 - precision);
    let half = scale / 2;
    let rounded = match pg_us >= 0 {
        true => (pg_us + half) / scale * scale,
        false => -((-pg_us + half) / scale * scale),
    };
    check_timestamp(rounded)
}

/// `us` if it lies in `timestamp`'s range, else PostgreSQL's 22008.
pub(crate) fn check_timestamp(pg_us: i64) -> PgResult<i64> {
    match (TIMESTAMP_MIN_US..TIMESTAMP_END_US).contains(&pg_us) {
        true => Ok(pg_us),
        false => Err(PgError::new(DATETIME_OVERFLOW, "timestamp out of range")),
    }
}

/// The first microsecond of a date, within `timestamp`'s range (`date2timestamp`).
pub(crate) fn midnight_us(days_since_2000: i64) -> PgResult<i64> {
    days_since_2000
        .checked_mul(DAY_US)
        .filter(|us| (TIMESTAMP_MIN_US..TIMESTAMP_END_US).contains(us))
        .ok_or_else(|| PgError::new(DATETIME_OVERFLOW, "date out of range for timestamp"))
}

/// `days` if it lies in `date`'s range, else PostgreSQL's 22008.
pub(crate) fn check_date(days_since_2000: i64) -> PgResult<i64> {
    match (DATE_MIN_DAYS..DATE_END_DAYS).contains(&days_since_2000) {
        true => Ok(days_since_2000),
        false => Err(PgError::new(DATETIME_OVERFLOW, "date out of range")),
    }
}

/// `timestamp_recv`: infinity (`i64::MAX`, `MIN`) refused, as the model keeps none; a
/// value past the range is PostgreSQL's 22008.
pub(crate) fn receive_timestamp(pg_us: i64) -> PgResult<i64> {
    if pg_us == i64::MAX || pg_us == i64::MIN {
        return Err(PgError::unsupported("an infinite timestamp"));
    }
    check_timestamp(pg_us)
}

/// `date_recv`: infinity (`i32::MAX`, `MIN`) refused; a day past the range is 22008.
pub(crate) fn receive_date(days_since_2000: i32) -> PgResult<i32> {
    if days_since_2000 == i32::MAX || days_since_2000 == i32::MIN {
        return Err(PgError::unsupported("an infinite date"));
    }
    check_date(i64::from(days_since_2000)).map(|days| days as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> PgResult<i64> {
        parse(text, Type::Timestamp)
    }

    #[test]
    fn iso_forms_read_and_print_back() {
        for (text, printed) in [
            ("2024-01-02 03:04:05.123456", "2024-01-02 03:04:05.123456"),
            ("2024-01-02T03:04:05", "2024-01-02 03:04:05"),
            ("  2024-1-2 3:4:5 ", "2024-01-02 03:04:05"),
            ("20240102", "2024-01-02 00:00:00"),
            ("2024-01-02 03:04:05+02", "2024-01-02 03:04:05"),
            ("2024-01-02 24:00:00", "2024-01-03 00:00:00"),
            ("2024-01-02 03:04:60", "2024-01-02 03:05:00"),
            ("2024-01-02 03:04:05.9999999", "2024-01-02 03:04:06"),
            ("0044-03-15 BC", "0044-03-15 00:00:00 BC"),
            ("epoch", "1970-01-01 00:00:00"),
            (
                "294276-12-31 23:59:59.999999",
                "294276-12-31 23:59:59.999999",
            ),
        ] {
            let us = ts(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            assert_eq!(format_timestamp(us, ' ', ""), printed, "{text}");
        }
        let days = parse("2024-01-02 03:04", Type::Date).unwrap();
        assert_eq!(format_date(days), "2024-01-02");
        let zoned = parse("2024-01-02 03:04:05+05:30", Type::Timestamptz).unwrap();
        assert_eq!(
            format_timestamp(zoned, ' ', "+00"),
            "2024-01-01 21:34:05+00"
        );
    }

    #[test]
    fn bad_input_fails_with_postgresql_s_sqlstates() {
        for (text, code) in [
            ("garbage", INVALID_DATETIME_FORMAT),
            ("2024-02-30", DATETIME_OVERFLOW),
            ("0000-01-01", DATETIME_OVERFLOW),
            ("2024-01-01 25:00:00", DATETIME_OVERFLOW),
            ("2024-01-01 23:59:60.5", DATETIME_OVERFLOW),
            ("294277-01-01", DATETIME_OVERFLOW),
            ("infinity", crate::pg::error::FEATURE_NOT_SUPPORTED),
            ("01/02/2024", crate::pg::error::FEATURE_NOT_SUPPORTED),
            ("24-01-02", crate::pg::error::FEATURE_NOT_SUPPORTED),
        ] {
            assert_eq!(ts(text).unwrap_err().code, code, "{text}");
        }
    }

    #[test]
    fn precision_rounds_halves_away_from_zero() {
        assert_eq!(round_to_precision(1_500_000, 0).unwrap(), 2_000_000);
        assert_eq!(round_to_precision(-1_500_000, 0).unwrap(), -2_000_000);
        assert_eq!(round_to_precision(123_456, 3).unwrap(), 123_000);
        assert_eq!(
            add_months(pg_days_from_civil(2024, 1, 31) * DAY_US, 1),
            pg_days_from_civil(2024, 2, 29) * DAY_US
        );
    }
}
