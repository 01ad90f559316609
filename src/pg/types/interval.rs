//! The interval type's text input, as PostgreSQL's `interval_in` reads it: the text cut
//! into fields (`ParseDateTime`), the fields read right to left into years, months, days
//! and microseconds (`DecodeInterval`: `1 day 2 hours`, `@ 1 minute ago`, `1-2`,
//! `1 2:03:04`, `infinity`), or else the ISO 8601 forms (`P1Y2M`, `P0002-10-15T10:30:20`,
//! `DecodeISO8601Interval`); then a typmod's fields and precision (`DAY TO SECOND(2)`,
//! `AdjustIntervalForTypmod`). Every field is added with PostgreSQL's overflow checks:
//! 22015 for a field, 22008 for the whole. The `postgres` `IntervalStyle`'s reading only
//! (the session refuses intervals under the other styles).

use crate::pg::error::{PgError, PgResult, DATETIME_OVERFLOW, INVALID_DATETIME_FORMAT};
use crate::pg::types::interval_iso::iso8601;
use crate::pg::types::interval_parts::{
    add_days, add_fraction_days, add_fraction_us, add_months, add_us, add_years, Decoded, Fail,
    Parts, MONTH_DAYS,
};
pub(crate) use crate::pg::types::interval_parts::{DAY_US, HOUR_US, MINUTE_US, SECOND_US};
use crate::pg::types::value::Interval;

/// `infinity`: every field at its largest, as PostgreSQL 17 stores it.
pub(crate) const INFINITY: Interval = Interval {
    months: i32::MAX,
    days: i32::MAX,
    us: i64::MAX,
};
/// `-infinity`: every field at its smallest.
pub(crate) const NEG_INFINITY: Interval = Interval {
    months: i32::MIN,
    days: i32::MIN,
    us: i64::MIN,
};

/// 22015, PostgreSQL's `ERRCODE_INTERVAL_FIELD_OVERFLOW`.
const INTERVAL_FIELD_OVERFLOW: &str = "22015";

/// A typmod's field bits (PostgreSQL's `INTERVAL_MASK`).
pub(crate) const YEAR: u8 = 1;
pub(crate) const MONTH: u8 = 2;
pub(crate) const DAY: u8 = 4;
pub(crate) const HOUR: u8 = 8;
pub(crate) const MINUTE: u8 = 16;
pub(crate) const SECOND: u8 = 32;

/// An interval column's or literal's typmod: its fields (0: all) and fractional-second
/// precision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Typmod {
    pub range: u8,
    pub precision: Option<u8>,
}

/// What the decoding found: an interval's parts, or an infinity.
enum Found {
    Parts(Parts),
    Infinite(Interval),
}

/// `text` as an interval of the typmod `typmod`.
pub(crate) fn parse(text: &str, typmod: Typmod) -> PgResult<Interval> {
    let found = match fields(text).and_then(|f| decode(&f, typmod.range)) {
        Err(Fail::Bad) => iso8601(text).map(Found::Parts),
        other => other,
    };
    match found {
        Ok(Found::Infinite(i)) => Ok(i),
        Ok(Found::Parts(parts)) => adjust(finish(parts)?, typmod),
        Err(Fail::Bad) => Err(PgError::new(
            INVALID_DATETIME_FORMAT,
            format!("invalid input syntax for type interval: \"{text}\""),
        )),
        Err(Fail::FieldOverflow) => Err(PgError::new(
            INTERVAL_FIELD_OVERFLOW,
            format!("interval field value out of range: \"{text}\""),
        )),
    }
}

pub(crate) fn out_of_range() -> PgError {
    PgError::new(DATETIME_OVERFLOW, "interval out of range")
}

/// Years and months as one count of months (`itmin2interval`).
fn finish(parts: Parts) -> PgResult<Interval> {
    let months = i64::from(parts.years) * 12 + i64::from(parts.months);
    Ok(Interval {
        months: i32::try_from(months).map_err(|_| out_of_range())?,
        days: parts.days,
        us: parts.us,
    })
}

/// An interval cut to a typmod's fields and rounded to its precision
/// (`AdjustIntervalForTypmod`); infinities pass unchanged.
pub(crate) fn adjust(mut i: Interval, typmod: Typmod) -> PgResult<Interval> {
    if is_infinite(&i) {
        return Ok(i);
    }
    let truncate = |us: i64, unit: i64| us / unit * unit;
    match typmod.range {
        YEAR => {
            i = Interval {
                months: i.months / 12 * 12,
                days: 0,
                us: 0,
            }
        }
        MONTH | 3 => {
            i = Interval {
                days: 0,
                us: 0,
                ..i
            }
        }
        DAY => i.us = 0,
        HOUR | 12 => i.us = truncate(i.us, HOUR_US),
        MINUTE | 28 | 24 => i.us = truncate(i.us, MINUTE_US),
        _ => {}
    }
    if let Some(precision) = typmod.precision.filter(|p| *p < 6) {
        let scale = 10i64.pow(6 - u32::from(precision));
        let offset = scale / 2;
        let shifted = match i.us >= 0 {
            true => i.us.checked_add(offset),
            false => i.us.checked_sub(offset),
        };
        let shifted = shifted.ok_or_else(out_of_range)?;
        i.us = shifted - shifted % scale;
    }
    Ok(i)
}

/// The typmod of `INTERVAL leading [TO last] [(precision)]`; the field pairs PostgreSQL's
/// grammar lacks, and precisions above 6 (which it reduces with a warning), refused.
pub(crate) fn typmod(
    leading: Option<&str>,
    last: Option<&str>,
    precision: Option<u64>,
) -> PgResult<Typmod> {
    let bit = |name: &str| match name.to_ascii_lowercase().as_str() {
        "year" => Some(YEAR),
        "month" => Some(MONTH),
        "day" => Some(DAY),
        "hour" => Some(HOUR),
        "minute" => Some(MINUTE),
        "second" => Some(SECOND),
        _ => None,
    };
    let refused = || PgError::unsupported("this interval qualifier");
    let range = match (leading.map(bit), last.map(bit)) {
        (None, None) => 0,
        (Some(Some(l)), None) => l,
        (Some(Some(l)), Some(Some(t))) if l < t && (l != MONTH) && !(l == YEAR && t != MONTH) => {
            // Every field from the leading one to the last.
            (l..=t)
                .filter(|b| b.is_power_of_two())
                .fold(0, |m, b| m | b)
        }
        _ => return Err(refused()),
    };
    match precision {
        Some(p) if p > 6 || (range != 0 && range & SECOND == 0) => Err(refused()),
        p => Ok(Typmod {
            range,
            precision: p.map(|p| p as u8),
        }),
    }
}

impl Typmod {
    /// The typmod as a type modifier (`(range << 8) | precision`, 255: none).
    pub(crate) fn modifier(self) -> Option<u32> {
        let full = self.range == 0 && self.precision.is_none();
        (!full).then(|| u32::from(self.range) << 8 | u32::from(self.precision.unwrap_or(255)))
    }

    pub(crate) fn of(modifier: Option<u32>) -> Typmod {
        let Some(m) = modifier else {
            return Typmod::default();
        };
        let precision = (m & 255) as u8;
        Typmod {
            range: (m >> 8) as u8,
            precision: (precision != 255).then_some(precision),
        }
    }
}

pub(crate) fn is_infinite(i: &Interval) -> bool {
    *i == INFINITY || *i == NEG_INFINITY
}

/// A field of the text, as `ParseDateTime` classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Number,
    Date,
    Time,
    /// A sign and a digit: a signed time, number or year-month.
    Signed,
    Word,
    /// A sign and a letter (`-infinity`).
    Special,
}

/// PostgreSQL's `MAXDATEFIELDS` and its work buffer's size.
const FIELDS_MAX: usize = 25;
const WORK_BYTES_MAX: usize = 256;

/// The text cut into fields (`ParseDateTime`), letters lowercased.
fn fields(text: &str) -> Decoded<Vec<(Kind, String)>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    let mut bytes = 0;
    while at < chars.len() {
        let c = chars[at];
        if c.is_ascii_whitespace() {
            at += 1;
            continue;
        }
        let start = at;
        let kind = if c.is_ascii_digit() {
            digits_field(&chars, &mut at)
        } else if c == '.' {
            at += 1;
            take(&chars, &mut at, |c| c.is_ascii_digit());
            Kind::Number
        } else if c.is_ascii_alphabetic() {
            word_field(&chars, &mut at)
        } else if c == '+' || c == '-' {
            signed_field(&chars, &mut at)?
        } else if c.is_ascii_punctuation() {
            at += 1;
            continue;
        } else {
            return Err(Fail::Bad);
        };
        let field: String = chars[start..at]
            .iter()
            .filter(|c| !c.is_ascii_whitespace())
            .map(char::to_ascii_lowercase)
            .collect();
        bytes += field.len() + 1;
        if out.len() >= FIELDS_MAX || bytes > WORK_BYTES_MAX {
            return Err(Fail::Bad);
        }
        out.push((kind, field));
    }
    Ok(out)
}

fn take(chars: &[char], at: &mut usize, keep: impl Fn(char) -> bool) {
    while *at < chars.len() && keep(chars[*at]) {
        *at += 1;
    }
}

/// A field starting with a digit: a time (`2:03`), a date (`1-2`, `20.10.2001`) or a
/// number (`1.5`).
fn digits_field(chars: &[char], at: &mut usize) -> Kind {
    take(chars, at, |c| c.is_ascii_digit());
    let Some(&next) = chars.get(*at) else {
        return Kind::Number;
    };
    if next == ':' {
        take(chars, at, |c| c.is_ascii_digit() || c == ':' || c == '.');
        return Kind::Time;
    }
    if !matches!(next, '-' | '/' | '.') {
        return Kind::Number;
    }
    *at += 1;
    if !chars.get(*at).is_some_and(char::is_ascii_digit) {
        take(chars, at, |c| c.is_ascii_alphanumeric() || c == next);
        return Kind::Date;
    }
    take(chars, at, |c| c.is_ascii_digit());
    if chars.get(*at) == Some(&next) {
        take(chars, at, |c| c.is_ascii_digit() || c == next);
        return Kind::Date;
    }
    match next {
        '.' => Kind::Number,
        _ => Kind::Date,
    }
}

/// A field starting with a letter: a word, or a date spelled with one (`jan-2`).
fn word_field(chars: &[char], at: &mut usize) -> Kind {
    let start = *at;
    take(chars, at, |c| c.is_ascii_alphabetic());
    let word: String = chars[start..*at].iter().collect::<String>().to_lowercase();
    let is_date = match chars.get(*at) {
        Some('-' | '/' | '.') => true,
        Some(&c) if c == '+' || c.is_ascii_digit() => !DATE_WORDS.contains(&word.as_str()),
        _ => false,
    };
    if is_date {
        take(chars, at, |c| {
            c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '/' | '_' | '.' | ':')
        });
        return Kind::Date;
    }
    Kind::Word
}

/// A field starting with a sign: a signed number or time, or a signed word.
fn signed_field(chars: &[char], at: &mut usize) -> Decoded<Kind> {
    *at += 1;
    take(chars, at, |c| c.is_ascii_whitespace());
    match chars.get(*at) {
        Some(c) if c.is_ascii_digit() => {
            take(chars, at, |c| {
                c.is_ascii_digit() || matches!(c, ':' | '.' | '-')
            });
            Ok(Kind::Signed)
        }
        Some(c) if c.is_ascii_alphabetic() => {
            take(chars, at, |c| c.is_ascii_alphabetic());
            Ok(Kind::Special)
        }
        _ => Err(Fail::Bad),
    }
}

/// The words of PostgreSQL's `datetktbl` (a word followed by a digit is a date unless it
/// is one of these).
const DATE_WORDS: [&str; 63] = [
    "-infinity",
    "ad",
    "allballs",
    "am",
    "apr",
    "april",
    "at",
    "aug",
    "august",
    "bc",
    "d",
    "dec",
    "december",
    "dow",
    "doy",
    "dst",
    "epoch",
    "feb",
    "february",
    "fri",
    "friday",
    "h",
    "infinity",
    "isodow",
    "isoyear",
    "j",
    "jan",
    "january",
    "jd",
    "jul",
    "julian",
    "july",
    "jun",
    "june",
    "m",
    "mar",
    "march",
    "may",
    "mm",
    "mon",
    "monday",
    "nov",
    "november",
    "now",
    "oct",
    "october",
    "on",
    "pm",
    "s",
    "sat",
    "saturday",
    "sep",
    "sept",
    "september",
    "sun",
    "sunday",
    "t",
    "thu",
    "thur",
    "thurs",
    "thursday",
    "today",
    "tomorrow",
];

/// A unit of `deltatktbl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Microsecond,
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
    Decade,
    Century,
    Millennium,
    /// A unit intervals do not take (`quarter`, `timezone`).
    Other,
}

/// PostgreSQL's `deltatktbl`, looked up by the word's first ten letters (`TOKMAXLEN`).
fn unit(word: &str) -> Option<Unit> {
    let key: String = word.chars().take(10).collect();
    let unit = match key.as_str() {
        "c" | "cent" | "centuries" | "century" => Unit::Century,
        "d" | "day" | "days" => Unit::Day,
        "dec" | "decade" | "decades" | "decs" => Unit::Decade,
        "h" | "hour" | "hours" | "hr" | "hrs" => Unit::Hour,
        "m" | "min" | "mins" | "minute" | "minutes" => Unit::Minute,
        "microsecon" | "us" | "usec" | "useconds" | "usecs" => Unit::Microsecond,
        "mil" | "millennia" | "millennium" | "mils" => Unit::Millennium,
        "millisecon" | "ms" | "msec" | "mseconds" | "msecs" => Unit::Millisecond,
        "mon" | "mons" | "month" | "months" => Unit::Month,
        "s" | "sec" | "second" | "seconds" | "secs" => Unit::Second,
        "w" | "week" | "weeks" => Unit::Week,
        "y" | "year" | "years" | "yr" | "yrs" => Unit::Year,
        "qtr" | "quarter" | "timezone" | "timezone_h" | "timezone_m" => Unit::Other,
        _ => return None,
    };
    Some(unit)
}

/// A field mask bit per unit, as `DTK_M` gives them (fractional seconds take the
/// millisecond and microsecond bits too).
fn unit_bit(unit: Unit) -> u32 {
    1 << (unit as u32)
}
const TIME_BITS: u32 = (1 << Unit::Microsecond as u32)
    | (1 << Unit::Millisecond as u32)
    | (1 << Unit::Second as u32)
    | (1 << Unit::Minute as u32)
    | (1 << Unit::Hour as u32);
const ALL_SECOND_BITS: u32 =
    (1 << Unit::Microsecond as u32) | (1 << Unit::Millisecond as u32) | (1 << Unit::Second as u32);
/// What `infinity` claims: every field.
const ALL_BITS: u32 = u32::MAX;

/// The state of reading the fields right to left (`DecodeInterval`'s locals).
struct Reader {
    parts: Parts,
    /// The unit the next number (to the left) is in; `None` before any.
    unit: Option<Unit>,
    /// A unit was read and no number for it yet.
    pending: bool,
    ago: bool,
    infinite: Option<Interval>,
    mask: u32,
    range: u8,
}

/// `DecodeInterval`: the fields read right to left, units before their numbers.
fn decode(fields: &[(Kind, String)], range: u8) -> Decoded<Found> {
    let mut r = Reader {
        parts: Parts::default(),
        unit: None,
        pending: false,
        ago: false,
        infinite: None,
        mask: 0,
        range,
    };
    let last = fields.len().wrapping_sub(1);
    for (at, (kind, field)) in fields.iter().enumerate().rev() {
        let bits = r.field(*kind, field, at == last)?;
        if bits & r.mask != 0 {
            return Err(Fail::Bad);
        }
        r.mask |= bits;
    }
    if r.mask == 0 || r.pending {
        return Err(Fail::Bad);
    }
    if let Some(i) = r.infinite {
        return Ok(Found::Infinite(i));
    }
    if r.ago {
        r.parts = negate_parts(r.parts)?;
    }
    Ok(Found::Parts(r.parts))
}

fn negate_parts(p: Parts) -> Decoded<Parts> {
    Ok(Parts {
        us: p.us.checked_neg().ok_or(Fail::FieldOverflow)?,
        days: p.days.checked_neg().ok_or(Fail::FieldOverflow)?,
        months: p.months.checked_neg().ok_or(Fail::FieldOverflow)?,
        years: p.years.checked_neg().ok_or(Fail::FieldOverflow)?,
    })
}

impl Reader {
    /// One field; the mask bits it claims.
    fn field(&mut self, kind: Kind, field: &str, last: bool) -> Decoded<u32> {
        match kind {
            Kind::Time => {
                let bits = self.time(field)?;
                self.unit = Some(Unit::Day);
                self.pending = false;
                Ok(bits)
            }
            Kind::Signed if field[1..].contains(':') => match self.time(&field[1..]) {
                Ok(bits) => {
                    if field.starts_with('-') {
                        self.parts.us = self.parts.us.checked_neg().ok_or(Fail::FieldOverflow)?;
                    }
                    self.unit = Some(Unit::Day);
                    self.pending = false;
                    Ok(bits)
                }
                Err(_) => self.number(field),
            },
            Kind::Signed | Kind::Date | Kind::Number => self.number(field),
            Kind::Word | Kind::Special => self.word(field, last),
        }
    }

    /// `hh:mm[:ss[.f]]` into the microseconds (`DecodeTimeForInterval`: it replaces them).
    fn time(&mut self, field: &str) -> Decoded<u32> {
        let (hours, minutes, seconds, fraction_us) = clock(field, self.range)?;
        let mut us = fraction_us;
        for (n, scale) in [(hours, HOUR_US), (minutes, MINUTE_US), (seconds, SECOND_US)] {
            us = n
                .checked_mul(scale)
                .and_then(|v| v.checked_add(us))
                .ok_or(Fail::FieldOverflow)?;
        }
        self.parts.us = us;
        Ok(TIME_BITS)
    }

    /// A number in the pending unit, or in the one the typmod's last field implies.
    fn number(&mut self, field: &str) -> Decoded<u32> {
        let unit = match self.unit {
            Some(unit) => unit,
            None => rightmost_unit(self.range),
        };
        self.unit = Some(unit);
        let (whole, rest) = leading_integer(field);
        let whole = whole.ok_or(Fail::FieldOverflow)?;
        let negative = field.starts_with('-');
        let (value, fraction, unit) = if let Some(months) = rest.strip_prefix('-') {
            let (months, after) = leading_int32(months)?;
            if !(0..12).contains(&months) {
                return Err(Fail::FieldOverflow);
            }
            if !after.is_empty() {
                return Err(Fail::Bad);
            }
            let months = if negative { -months } else { months };
            let total = whole
                .checked_mul(12)
                .and_then(|v| v.checked_add(months))
                .ok_or(Fail::FieldOverflow)?;
            self.unit = Some(Unit::Month);
            (total, 0.0, Unit::Month)
        } else if rest.starts_with('.') {
            let fraction = parse_fraction(rest)?;
            (whole, if negative { -fraction } else { fraction }, unit)
        } else if rest.is_empty() {
            (whole, 0.0, unit)
        } else {
            return Err(Fail::Bad);
        };
        self.pending = false;
        let bits = add(&mut self.parts, unit, value, fraction)?;
        if unit == Unit::Hour {
            self.unit = Some(Unit::Day);
        }
        Ok(bits)
    }

    fn word(&mut self, field: &str, last: bool) -> Decoded<u32> {
        if self.pending {
            return Err(Fail::Bad);
        }
        if let Some(unit) = unit(field) {
            self.unit = Some(unit);
            self.pending = true;
            return Ok(0);
        }
        match field {
            "@" | "at" | "on" => Ok(0),
            "ago" if last => {
                self.ago = true;
                Ok(0)
            }
            "infinity" | "+infinity" | "-infinity" if last => {
                self.infinite = Some(match field {
                    "-infinity" => NEG_INFINITY,
                    _ => INFINITY,
                });
                Ok(ALL_BITS)
            }
            _ => Err(Fail::Bad),
        }
    }
}

/// The unit of a bare number that no unit follows: the typmod's last field, seconds for
/// a full interval.
fn rightmost_unit(range: u8) -> Unit {
    match range {
        YEAR => Unit::Year,
        MONTH | 3 => Unit::Month,
        DAY => Unit::Day,
        HOUR | 12 => Unit::Hour,
        MINUTE | 24 | 28 => Unit::Minute,
        _ => Unit::Second,
    }
}

/// `strtoi64`: the leading integer (`None` when it overflows; 0 when there are no
/// digits) and the rest.
fn leading_integer(field: &str) -> (Option<i64>, &str) {
    let body = field.strip_prefix(['+', '-']).unwrap_or(field);
    let digits = body.len() - body.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return (Some(0), field);
    }
    let end = field.len() - body.len() + digits;
    (field[..end].parse::<i64>().ok(), &field[end..])
}

/// `.ddd` as a fraction (`ParseFraction`: all of it, or a bad format).
fn parse_fraction(text: &str) -> Decoded<f64> {
    let digits = &text[1..];
    if !digits.chars().all(|c| c.is_ascii_digit()) || digits.is_empty() {
        return Err(Fail::Bad);
    }
    text.parse::<f64>().map_err(|_| Fail::Bad)
}

/// `value` and `fraction` of `unit` added to the parts, as `DecodeInterval`'s `Adjust*`
/// calls add them; the mask bits the unit claims.
fn add(parts: &mut Parts, unit: Unit, value: i64, fraction: f64) -> Decoded<u32> {
    let ok = match unit {
        Unit::Microsecond => add_us(parts, value, fraction, 1),
        Unit::Millisecond => add_us(parts, value, fraction, 1000),
        Unit::Second => add_us(parts, value, fraction, SECOND_US),
        Unit::Minute => add_us(parts, value, fraction, MINUTE_US),
        Unit::Hour => add_us(parts, value, fraction, HOUR_US),
        Unit::Day => add_days(parts, value, 1) && add_fraction_us(parts, fraction, DAY_US),
        Unit::Week => add_days(parts, value, 7) && add_fraction_days(parts, fraction, 7),
        Unit::Month => add_months(parts, value) && add_fraction_days(parts, fraction, MONTH_DAYS),
        Unit::Year => add_years(parts, value, fraction, 1),
        Unit::Decade => add_years(parts, value, fraction, 10),
        Unit::Century => add_years(parts, value, fraction, 100),
        Unit::Millennium => add_years(parts, value, fraction, 1000),
        Unit::Other => return Err(Fail::Bad),
    };
    if !ok {
        return Err(Fail::FieldOverflow);
    }
    Ok(match unit {
        Unit::Second if fraction != 0.0 => ALL_SECOND_BITS,
        unit => unit_bit(unit),
    })
}

/// `DecodeTime`: `h:m`, `h:m:s[.f]`, `m:s.f` (and `m:s` under `MINUTE TO SECOND`), as
/// hours, minutes, seconds and microseconds.
fn clock(field: &str, range: u8) -> Decoded<(i64, i64, i64, i64)> {
    let (hours, rest) = leading_integer(field);
    let mut hours = hours.ok_or(Fail::FieldOverflow)?;
    let rest = rest.strip_prefix(':').ok_or(Fail::Bad)?;
    let (minutes, rest) = leading_int32(rest)?;
    let (mut minutes, mut seconds, mut fraction_us) = (minutes, 0, 0);
    let as_minutes_seconds = |hours: i64| i32::try_from(hours).map_err(|_| Fail::FieldOverflow);
    if rest.is_empty() {
        if range == MINUTE | SECOND {
            seconds = minutes;
            minutes = i64::from(as_minutes_seconds(hours)?);
            hours = 0;
        }
    } else if rest.starts_with('.') {
        fraction_us = fractional_second(rest)?;
        seconds = minutes;
        minutes = i64::from(as_minutes_seconds(hours)?);
        hours = 0;
    } else if let Some(rest) = rest.strip_prefix(':') {
        let (s, rest) = leading_int32(rest)?;
        seconds = s;
        if rest.starts_with('.') {
            fraction_us = fractional_second(rest)?;
        } else if !rest.is_empty() {
            return Err(Fail::Bad);
        }
    } else {
        return Err(Fail::Bad);
    }
    let sane = hours >= 0
        && (0..60).contains(&minutes)
        && (0..=60).contains(&seconds)
        && (0..=SECOND_US).contains(&fraction_us);
    match sane {
        true => Ok((hours, minutes, seconds, fraction_us)),
        false => Err(Fail::FieldOverflow),
    }
}

/// `strtoint`: an int32 and the rest (out of range: a field overflow).
fn leading_int32(text: &str) -> Decoded<(i64, &str)> {
    let (value, rest) = leading_integer(text);
    match value.filter(|v| i32::try_from(*v).is_ok()) {
        Some(v) => Ok((v, rest)),
        None => Err(Fail::FieldOverflow),
    }
}

/// `.ddd` seconds as rounded microseconds (`ParseFractionalSecond`).
fn fractional_second(text: &str) -> Decoded<i64> {
    let fraction = parse_fraction(text)?;
    Ok((fraction * 1e6).round_ties_even() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Interval {
        parse(text, Typmod::default()).expect("an interval")
    }

    #[test]
    fn postgres_forms_read_as_postgresql_reads_them() {
        let i = read("@ 1 minute");
        assert_eq!(i.us, MINUTE_US);
        let i = read("1.5 weeks");
        assert_eq!((i.days, i.us), (10, 12 * HOUR_US));
        let i = read("-1 +02:03");
        assert_eq!((i.days, i.us), (-1, 2 * HOUR_US + 3 * MINUTE_US));
        assert_eq!(read("1-2").months, 14);
        assert_eq!(read("14 seconds ago").us, -14 * SECOND_US);
        assert_eq!(read("-infinity"), NEG_INFINITY);
    }

    #[test]
    fn iso_8601_forms_read() {
        assert_eq!(read("P1Y2M").months, 14);
        let i = read("P0002-10-15T10:30:20");
        assert_eq!((i.months, i.days), (34, 15));
        assert_eq!(read("P10.5e4Y").months, 105_000 * 12);
        assert!(parse("P.Y0M3DT4H5M6S", Typmod::default()).is_err());
    }

    #[test]
    fn overflows_and_bad_forms_fail_with_postgresql_codes() {
        let code = |text: &str| parse(text, Typmod::default()).unwrap_err().code;
        assert_eq!(code("2147483648 days"), INTERVAL_FIELD_OVERFLOW);
        assert_eq!(code("2147483647 years"), DATETIME_OVERFLOW);
        assert_eq!(code("1 day 1 day"), INVALID_DATETIME_FORMAT);
        assert_eq!(code("infinity years"), INVALID_DATETIME_FORMAT);
        assert_eq!(code("hour 5 months"), INVALID_DATETIME_FORMAT);
    }
}
