//! The functions on the date/time types: `current_date` and `localtimestamp` (the
//! transaction's clock, as `now()`), `date(x)`, `date_trunc`, `extract` (numeric, as
//! PostgreSQL ≥ 14 returns it) and `date_part` (double precision), `age` of two
//! timestamps. Units are read as PostgreSQL's `DecodeUnits` reads them (lower case, the
//! first 10 characters, its abbreviations). The others PostgreSQL has (`to_char`,
//! `to_date`, `make_*`, `justify_*`, `date_bin`, `age` of one timestamp, `julian`, the
//! time types) are refused (0A000).

use crate::pg::error::{PgError, PgResult, INVALID_PARAMETER_VALUE};
use crate::pg::types::datetime::DAY_US;
use crate::pg::types::datetime::{civil_from_pg_days, days_in_month, pg_days_from_civil, split_us};
use crate::pg::types::datetime_cast::{is_datetime, promote};
use crate::pg::types::pg_type::Type;
use crate::pg::types::pg_type::PG_EPOCH_UNIX_US;
use crate::pg::types::value::{Interval, Typed, Value};

/// The date/time functions PostgreSQL has and the model leaves out.
const REFUSED: [&str; 14] = [
    "to_char",
    "to_date",
    "make_date",
    "make_timestamp",
    "make_timestamptz",
    "make_interval",
    "make_time",
    "date_bin",
    "isfinite",
    "timeofday",
    "localtime",
    "current_time",
    "date_add",
    "date_subtract",
];

/// Whether `name` with `count` arguments is one of this file's functions.
pub(crate) fn knows(name: &str, count: usize) -> bool {
    REFUSED.contains(&name)
        || matches!(
            (name, count),
            ("current_date" | "localtimestamp", 0)
                | ("date", 1)
                | ("age", 1 | 2)
                | ("date_trunc", 2 | 3)
                | ("date_part", 2)
                | ("justify_days" | "justify_hours" | "justify_interval", 1)
        )
}

/// The result type of `name(args)`, `None` for a function this file does not know.
pub(crate) fn return_type(name: &str, args: &[Type]) -> Option<Type> {
    let t = match name {
        "current_date" | "date" => Type::Date,
        "localtimestamp" => Type::Timestamp,
        "age" | "justify_days" | "justify_hours" | "justify_interval" => Type::Interval,
        "date_part" => Type::Float8,
        "date_trunc" => match args.get(1) {
            Some(Type::Timestamp) => Type::Timestamp,
            _ => Type::Timestamptz,
        },
        _ => return None,
    };
    Some(t)
}

/// `name(args)` on the transaction's clock `now_us` (microseconds since 2000, UTC).
pub(crate) fn call(name: &str, args: Vec<Typed>, now_us: i64) -> PgResult<Typed> {
    let partial = matches!((name, args.len()), ("age", 1) | ("date_trunc", 3));
    if REFUSED.contains(&name) || partial {
        return Err(PgError::unsupported(format!(
            "the function {name} of {} arguments",
            args.len()
        )));
    }
    let mut args = args.into_iter();
    let mut next = || args.next().expect("the caller counted the arguments");
    match name {
        "current_date" => Ok(Typed::new(
            Value::Date(now_us.div_euclid(DAY_US) as i32),
            Type::Date,
        )),
        "localtimestamp" => Ok(Typed::new(Value::Timestamp(now_us), Type::Timestamp)),
        "date" => as_datetime(next(), Type::Date),
        "age" => age(next(), next()),
        "date_trunc" => date_trunc(next(), next()),
        "date_part" => date_part(next(), next()),
        "justify_days" | "justify_hours" | "justify_interval" => justify(name, next()),
        other => unreachable!("{other} is not a date/time function"),
    }
}

/// An argument as the date/time type `t` (an untyped literal read as one); another
/// type is no such function.
fn as_datetime(arg: Typed, t: Type) -> PgResult<Typed> {
    match arg.t {
        Type::Unknown => crate::pg::types::cast::cast(arg, t, None),
        from if is_datetime(from) => promote(arg, t),
        from => Err(no_function(from)),
    }
}

fn no_function(t: Type) -> PgError {
    PgError::new(
        crate::pg::error::UNDEFINED_FUNCTION,
        format!("function for type {} does not exist", t.name()),
    )
}

/// The timestamp type a date/time argument is read as: a timestamp as itself, a date
/// and an untyped literal as PostgreSQL's preferred `timestamptz`.
fn timestamp_argument(arg: Typed) -> PgResult<Typed> {
    match arg.t {
        Type::Timestamp | Type::Timestamptz => Ok(arg),
        Type::Date => promote(arg, Type::Timestamptz),
        Type::Unknown => Err(PgError::unsupported(
            "a date/time function of an untyped literal",
        )),
        other => Err(PgError::unsupported(format!(
            "a date/time function of type {}",
            other.name()
        ))),
    }
}

/// A unit's name as `DecodeUnits` matches it: lower case, at most 10 characters.
fn unit_key(unit: &str) -> String {
    unit.to_ascii_lowercase().chars().take(10).collect()
}

/// The units of `deltatktbl` (intervals' units, which `date_trunc` and `extract` share).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Microseconds,
    Milliseconds,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    Decade,
    Century,
    Millennium,
    Timezone,
}

fn unit(key: &str) -> Option<Unit> {
    let unit = match key {
        "microsecon" | "us" | "usec" | "usecond" | "useconds" | "usecs" => Unit::Microseconds,
        "millisecon" | "ms" | "msec" | "msecond" | "mseconds" | "msecs" => Unit::Milliseconds,
        "s" | "sec" | "second" | "seconds" | "secs" => Unit::Second,
        "m" | "min" | "mins" | "minute" | "minutes" => Unit::Minute,
        "h" | "hour" | "hours" | "hr" | "hrs" => Unit::Hour,
        "d" | "day" | "days" => Unit::Day,
        "w" | "week" | "weeks" => Unit::Week,
        "mon" | "mons" | "month" | "months" => Unit::Month,
        "qtr" | "quarter" => Unit::Quarter,
        "y" | "year" | "years" | "yr" | "yrs" => Unit::Year,
        "dec" | "decade" | "decades" | "decs" => Unit::Decade,
        "c" | "cent" | "centuries" | "century" => Unit::Century,
        "mil" | "millennia" | "millennium" | "mils" => Unit::Millennium,
        "timezone" | "timezone_h" | "timezone_m" => Unit::Timezone,
        _ => return None,
    };
    Some(unit)
}

/// The units `extract` reads besides `deltatktbl`'s (`datetktbl`'s reserved words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Unit(Unit),
    Epoch,
    Dow,
    IsoDow,
    Doy,
    IsoYear,
}

/// `datetktbl`'s other words: a unit PostgreSQL knows but does not support here (0A000).
const SPECIAL_WORDS: [&str; 20] = [
    "julian",
    "j",
    "jd",
    "today",
    "now",
    "tomorrow",
    "yesterday",
    "infinity",
    "-infinity",
    "allballs",
    "am",
    "pm",
    "ad",
    "bc",
    "at",
    "on",
    "t",
    "mm",
    "zulu",
    "z",
];

fn field(key: &str) -> Option<Field> {
    let field = match key {
        "epoch" => Field::Epoch,
        "dow" => Field::Dow,
        "isodow" => Field::IsoDow,
        "doy" => Field::Doy,
        "isoyear" => Field::IsoYear,
        key => Field::Unit(unit(key)?),
    };
    Some(field)
}

fn not_recognized(key: &str, t: Type) -> PgError {
    PgError::new(
        INVALID_PARAMETER_VALUE,
        format!("unit \"{key}\" not recognized for type {}", t.name()),
    )
}

fn not_supported(key: &str, t: Type) -> PgError {
    PgError::new(
        crate::pg::error::FEATURE_NOT_SUPPORTED,
        format!("unit \"{key}\" not supported for type {}", t.name()),
    )
}

/// The unit argument's text; `None` when NULL.
fn unit_text(unit: Typed) -> PgResult<Option<String>> {
    match crate::pg::types::cast::cast(unit, Type::Text, None)?.v {
        Value::Text(text) => Ok(Some(text)),
        _ => Ok(None),
    }
}

/// A civil date and time of day, as PostgreSQL's `timestamp2tm` splits a timestamp
/// (the year astronomical: 0 is 1 BC).
struct Civil {
    days_since_2000: i64,
    year: i64,
    month: u32,
    day: u32,
    us_of_day: i64,
}

impl Civil {
    fn of(pg_us: i64) -> Civil {
        let (days_since_2000, us_of_day) = split_us(pg_us);
        Civil {
            us_of_day,
            ..Civil::of_days(days_since_2000)
        }
    }

    fn of_days(days_since_2000: i64) -> Civil {
        let (year, month, day) = civil_from_pg_days(days_since_2000);
        Civil {
            days_since_2000,
            year,
            month,
            day,
            us_of_day: 0,
        }
    }

    /// The microseconds within the minute (seconds and fraction).
    fn second_us(&self) -> i64 {
        self.us_of_day % 60_000_000
    }

    /// 0 for Sunday (`j2day`).
    fn dow(&self) -> i64 {
        (self.days_since_2000 + 6).rem_euclid(7)
    }

    fn isodow(&self) -> i64 {
        match self.dow() {
            0 => 7,
            d => d,
        }
    }

    fn doy(&self) -> i64 {
        self.days_since_2000 - pg_days_from_civil(self.year, 1, 1) + 1
    }

    /// The ISO 8601 year and week: the week's Thursday decides the year.
    fn iso_year_week(&self) -> (i64, i64) {
        let thursday = self.days_since_2000 - self.isodow() + 4;
        let (year, _, _) = civil_from_pg_days(thursday);
        (year, (thursday - pg_days_from_civil(year, 1, 1)) / 7 + 1)
    }
}

/// The integer fields `extract` gives a date and a timestamp alike; `None` for the
/// others.
fn date_field(c: &Civil, field: Field) -> Option<i64> {
    let y = c.year;
    let value = match field {
        Field::Unit(Unit::Year) if y > 0 => y,
        Field::Unit(Unit::Year) => y - 1,
        Field::Unit(Unit::Month) => i64::from(c.month),
        Field::Unit(Unit::Day) => i64::from(c.day),
        Field::Unit(Unit::Quarter) => (i64::from(c.month) - 1) / 3 + 1,
        Field::Unit(Unit::Week) => c.iso_year_week().1,
        Field::Unit(Unit::Decade) if y >= 0 => y / 10,
        Field::Unit(Unit::Decade) => -((8 - (y - 1)) / 10),
        Field::Unit(Unit::Century) if y > 0 => (y + 99) / 100,
        Field::Unit(Unit::Century) => -((99 - (y - 1)) / 100),
        Field::Unit(Unit::Millennium) if y > 0 => (y + 999) / 1000,
        Field::Unit(Unit::Millennium) => -((999 - (y - 1)) / 1000),
        Field::Dow => c.dow(),
        Field::IsoDow => c.isodow(),
        Field::Doy => c.doy(),
        Field::IsoYear => match c.iso_year_week().0 {
            year if year <= 0 => year - 1,
            year => year,
        },
        _ => return None,
    };
    Some(value)
}

/// A field of a timestamp as `extract` gives it: an integer and its scale (digits after
/// the point: 6 for seconds and epoch, 3 for milliseconds).
fn timestamp_field(pg_us: i64, field: Field) -> Option<(i64, u32)> {
    let c = Civil::of(pg_us);
    let scaled = match field {
        Field::Unit(Unit::Microseconds) => (c.second_us(), 0),
        Field::Unit(Unit::Milliseconds) => (c.second_us(), 3),
        Field::Unit(Unit::Second) => (c.second_us(), 6),
        Field::Unit(Unit::Minute) => (c.us_of_day / 60_000_000 % 60, 0),
        Field::Unit(Unit::Hour) => (c.us_of_day / 3_600_000_000, 0),
        // Past i64 (a timestamp near the end of the range), PostgreSQL divides numerics.
        Field::Epoch => (pg_us.checked_add(PG_EPOCH_UNIX_US)?, 6),
        field => (date_field(&c, field)?, 0),
    };
    Some(scaled)
}

/// `extract(field FROM v)`: numeric.
pub(crate) fn extract(field_name: &str, v: Typed) -> PgResult<Typed> {
    let t = v.t;
    if !is_datetime(t) {
        return Err(PgError::unsupported(format!(
            "extract from type {}",
            t.name()
        )));
    }
    let key = unit_key(field_name);
    let field = recognized_field(&key, t)?;
    let scaled = match v.v {
        Value::Null => return Ok(Typed::null(Type::Numeric)),
        Value::Date(days) => date_extract(&key, i64::from(days), field)?,
        Value::Timestamp(us) | Value::Timestamptz(us) => timestamp_extract(&key, us, field, t)?,
        other => unreachable!("a date/time type holds {other:?}"),
    };
    let numeric = crate::pg::types::numeric::parse(&decimal_text(scaled.0, scaled.1))?;
    Ok(Typed::new(Value::Numeric(Box::new(numeric)), Type::Numeric))
}

/// A unit `extract` and `date_part` know for type `t`, or PostgreSQL's error.
fn recognized_field(key: &str, t: Type) -> PgResult<Field> {
    match field(key) {
        Some(field) => Ok(field),
        None if key == "julian" || key == "j" => {
            Err(PgError::unsupported(format!("the unit {key}")))
        }
        None if SPECIAL_WORDS.contains(&key) => Err(not_supported(key, t)),
        None => Err(not_recognized(key, t)),
    }
}

fn date_extract(key: &str, days_since_2000: i64, field: Field) -> PgResult<(i64, u32)> {
    if field == Field::Epoch {
        return Ok(((days_since_2000 + PG_EPOCH_UNIX_US / DAY_US) * 86_400, 0));
    }
    let c = Civil::of_days(days_since_2000);
    date_field(&c, field)
        .map(|value| (value, 0))
        .ok_or_else(|| not_supported(key, Type::Date))
}

fn timestamp_extract(key: &str, pg_us: i64, field: Field, t: Type) -> PgResult<(i64, u32)> {
    match field {
        // The offset of UTC, the model's only zone.
        Field::Unit(Unit::Timezone) if t == Type::Timestamptz => Ok((0, 0)),
        field => timestamp_field(pg_us, field).ok_or_else(|| not_supported(key, t)),
    }
}

/// `value / 10^scale` as decimal text with `scale` digits after the point.
fn decimal_text(value: i64, scale: u32) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let magnitude = value.unsigned_abs();
    if scale == 0 {
        return format!("{sign}{magnitude}");
    }
    let divisor = 10u64.pow(scale);
    let width = scale as usize;
    format!(
        "{sign}{}.{:0width$}",
        magnitude / divisor,
        magnitude % divisor
    )
}

/// `date_part(text, v)`: double precision, a date read as a timestamp (PostgreSQL's
/// `date_part(text, date)` casts it), computed as PostgreSQL computes it in floats.
fn date_part(unit: Typed, v: Typed) -> PgResult<Typed> {
    let v = match v.t {
        Type::Date => promote(v, Type::Timestamp)?,
        _ => timestamp_argument(v)?,
    };
    let Some(key) = unit_text(unit)? else {
        return Ok(Typed::null(Type::Float8));
    };
    let key = unit_key(&key);
    let field = recognized_field(&key, v.t)?;
    let (Value::Timestamp(us) | Value::Timestamptz(us)) = v.v else {
        return Ok(Typed::null(Type::Float8));
    };
    let (value, scale) = timestamp_extract(&key, us, field, v.t)?;
    let float = match (field, scale) {
        (_, 0) => value as f64,
        // `tm_sec * 1000.0 + fsec / 1000.0` and `tm_sec + fsec / 1000000.0`, as PostgreSQL
        // adds them.
        (Field::Unit(Unit::Milliseconds), _) => {
            (value / 1_000_000) as f64 * 1000.0 + (value % 1_000_000) as f64 / 1000.0
        }
        (Field::Unit(Unit::Second), _) => {
            (value / 1_000_000) as f64 + (value % 1_000_000) as f64 / 1_000_000.0
        }
        _ => value as f64 / 1_000_000.0,
    };
    Ok(Typed::new(Value::Float(float), Type::Float8))
}

/// `date_trunc(unit, ts)`: the timestamp with every field below `unit` at its start.
fn date_trunc(unit: Typed, v: Typed) -> PgResult<Typed> {
    let v = timestamp_argument(v)?;
    let t = v.t;
    let Some(key) = unit_text(unit)? else {
        return Ok(Typed::null(t));
    };
    let key = unit_key(&key);
    let unit = match self::unit(&key) {
        Some(Unit::Timezone) => return Err(not_supported(&key, t)),
        Some(unit) => unit,
        None => return Err(not_recognized(&key, t)),
    };
    let (Value::Timestamp(us) | Value::Timestamptz(us)) = v.v else {
        return Ok(Typed::null(t));
    };
    // A BC millennium's start may lie before the range begins.
    let truncated = crate::pg::types::datetime::check_timestamp(truncate(us, unit))?;
    let value = match t {
        Type::Timestamp => Value::Timestamp(truncated),
        _ => Value::Timestamptz(truncated),
    };
    Ok(Typed::new(value, t))
}

fn truncate(pg_us: i64, unit: Unit) -> i64 {
    let c = Civil::of(pg_us);
    let at_day = |days: i64| days * DAY_US;
    let first_of = |year: i64, month: u32| at_day(pg_days_from_civil(year, month, 1));
    let y = c.year;
    let within_day = |unit_us: i64| at_day(c.days_since_2000) + c.us_of_day / unit_us * unit_us;
    match unit {
        Unit::Microseconds => pg_us,
        Unit::Milliseconds => within_day(1000),
        Unit::Second => within_day(1_000_000),
        Unit::Minute => within_day(60_000_000),
        Unit::Hour => within_day(3_600_000_000),
        Unit::Day => at_day(c.days_since_2000),
        Unit::Week => at_day(c.days_since_2000 - c.isodow() + 1),
        Unit::Month => first_of(y, c.month),
        Unit::Quarter => first_of(y, (c.month - 1) / 3 * 3 + 1),
        Unit::Year => first_of(y, 1),
        Unit::Decade if y > 0 => first_of(y / 10 * 10, 1),
        Unit::Decade => first_of(-((8 - (y - 1)) / 10) * 10, 1),
        Unit::Century if y > 0 => first_of((y + 99) / 100 * 100 - 99, 1),
        Unit::Century => first_of(-((99 - (y - 1)) / 100) * 100 + 1, 1),
        Unit::Millennium if y > 0 => first_of((y + 999) / 1000 * 1000 - 999, 1),
        Unit::Millennium => first_of(-((999 - (y - 1)) / 1000) * 1000 + 1, 1),
        Unit::Timezone => unreachable!("refused by the caller"),
    }
}

/// `age(a, b)`: `a - b` in years, months, days and time, each field's borrow taken from
/// the next as PostgreSQL's `timestamp_age` takes it (a month borrowed is as long as the
/// earlier operand's month).
fn age(a: Typed, b: Typed) -> PgResult<Typed> {
    // An untyped literal beside a timestamp is read as that timestamp's type.
    let (a, b) = match (a.t, b.t) {
        (Type::Unknown, t) if is_datetime(t) => (crate::pg::types::cast::cast(a, t, None)?, b),
        (t, Type::Unknown) if is_datetime(t) => (a, crate::pg::types::cast::cast(b, t, None)?),
        _ => (a, b),
    };
    let (a, b) = (timestamp_argument(a)?, timestamp_argument(b)?);
    match (micros(&a.v), micros(&b.v)) {
        (Some(a_us), Some(b_us)) => Ok(Typed::new(
            Value::Interval(age_of(a_us, b_us)),
            Type::Interval,
        )),
        _ => Ok(Typed::null(Type::Interval)),
    }
}

fn micros(v: &Value) -> Option<i64> {
    match v {
        Value::Timestamp(us) | Value::Timestamptz(us) => Some(*us),
        _ => None,
    }
}

fn age_of(a_us: i64, b_us: i64) -> Interval {
    let (a, b) = (Civil::of(a_us), Civil::of(b_us));
    let negative = a_us < b_us;
    let sign = if negative { -1 } else { 1 };
    let mut us = sign * (a.us_of_day - b.us_of_day);
    let mut days = sign * (i64::from(a.day) - i64::from(b.day));
    let mut months = sign * ((a.year - b.year) * 12 + i64::from(a.month) - i64::from(b.month));
    if us < 0 {
        us += DAY_US;
        days -= 1;
    }
    // The month borrowed is the earlier operand's: `b`'s when a ≥ b, else `a`'s.
    let borrowed = if negative { &a } else { &b };
    while days < 0 {
        days += i64::from(days_in_month(borrowed.year, borrowed.month));
        months -= 1;
    }
    Interval {
        months: (sign * months) as i32,
        days: (sign * days) as i32,
        us: sign * us,
    }
}

/// `justify_days`, `justify_hours` and `justify_interval` of an interval (an untyped
/// literal read as one).
fn justify(name: &str, arg: Typed) -> PgResult<Typed> {
    let arg = match arg.t {
        Type::Unknown => crate::pg::types::cast::cast(arg, Type::Interval, None)?,
        Type::Interval => arg,
        from => return Err(no_function(from)),
    };
    let Value::Interval(i) = arg.v else {
        return Ok(Typed::null(Type::Interval));
    };
    let justified = match name {
        "justify_days" => crate::pg::types::interval_ops::justify_days(i)?,
        "justify_hours" => crate::pg::types::interval_ops::justify_hours(i)?,
        _ => crate::pg::types::interval_ops::justify_interval(i)?,
    };
    Ok(Typed::new(Value::Interval(justified), Type::Interval))
}
