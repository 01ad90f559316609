//! A setting's value read and printed as PostgreSQL's `guc.c` reads and prints it: booleans
//! by `parse_bool`, integers and reals by `parse_int` and `parse_real` (with their memory
//! and time units), enums by name, and each printed as `SHOW` prints it.

use crate::pg::error::{PgError, PgResult, INVALID_PARAMETER_VALUE};

/// Memory units in bytes and time units in milliseconds, largest first (`guc.c`'s
/// conversion tables, whose order decides which unit `SHOW` prints).
const MEMORY_UNITS_B: [(&str, f64); 5] = [
    ("TB", 1_099_511_627_776.0),
    ("GB", 1_073_741_824.0),
    ("MB", 1_048_576.0),
    ("kB", 1_024.0),
    ("B", 1.0),
];
const TIME_UNITS_MS: [(&str, f64); 6] = [
    ("d", 86_400_000.0),
    ("h", 3_600_000.0),
    ("min", 60_000.0),
    ("s", 1_000.0),
    ("ms", 1.0),
    ("us", 0.001),
];

/// A setting's base unit (`pg_settings.unit`: `kB`, `8kB`, `ms`, …): the table of units
/// it takes, and the base unit's size in that table's measure.
fn units_of(base: &str) -> Option<(&'static [(&'static str, f64)], f64)> {
    match base {
        "8kB" => Some((&MEMORY_UNITS_B, 8_192.0)),
        "" => None,
        _ => MEMORY_UNITS_B
            .iter()
            .find(|(unit, _)| *unit == base)
            .map(|(_, size)| (&MEMORY_UNITS_B[..], *size))
            .or_else(|| {
                let size = TIME_UNITS_MS.iter().find(|(unit, _)| *unit == base)?.1;
                Some((&TIME_UNITS_MS[..], size))
            }),
    }
}

/// `parse_bool`: `true`, `false`, `yes`, `no` and their prefixes, `on`, `off` (`of`),
/// `1`, `0`, any case.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    let lower = text.to_ascii_lowercase();
    let prefix_of =
        |word: &str, shortest: usize| lower.len() >= shortest && word.starts_with(&lower);
    match lower.as_bytes().first()? {
        b't' if prefix_of("true", 1) => Some(true),
        b'f' if prefix_of("false", 1) => Some(false),
        b'y' if prefix_of("yes", 1) => Some(true),
        b'n' if prefix_of("no", 1) => Some(false),
        b'o' if lower == "on" => Some(true),
        b'o' if prefix_of("off", 2) => Some(false),
        b'1' if lower.len() == 1 => Some(true),
        b'0' if lower.len() == 1 => Some(false),
        _ => None,
    }
}

/// A boolean setting's value, printed `on` or `off`.
pub(crate) fn boolean(name: &str, value: &str) -> PgResult<String> {
    match parse_bool(value) {
        Some(true) => Ok("on".into()),
        Some(false) => Ok("off".into()),
        None => Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            format!("parameter \"{name}\" requires a Boolean value"),
        )),
    }
}

/// An enum setting's value: one of `options` in any case, printed as listed; where the
/// options hold `on` and `off`, the boolean spellings name them too (`guc.c`'s hidden
/// entries).
pub(crate) fn enumerated(name: &str, value: &str, options: &[&str]) -> PgResult<String> {
    if let Some(option) = options.iter().find(|o| o.eq_ignore_ascii_case(value)) {
        return Ok(option.to_string());
    }
    let boolean = options.contains(&"on") && options.contains(&"off");
    match parse_bool(value).filter(|_| boolean) {
        Some(on) => Ok(if on { "on" } else { "off" }.into()),
        None => Err(invalid_value(name, value)),
    }
}

/// A number and its unit as `parse_int`/`parse_real` read them, in the setting's base
/// unit (`base`, empty for none): a unit another setting takes, or a unit on a setting
/// without units, is invalid.
fn number_in_base(name: &str, value: &str, base: &str) -> PgResult<f64> {
    let text = value.trim_start();
    let split = number_length(text);
    let number: f64 = text[..split]
        .parse()
        .ok()
        .filter(|n: &f64| !n.is_nan())
        .ok_or_else(|| invalid_value(name, value))?;
    let unit = text[split..].trim();
    if unit.is_empty() {
        return Ok(number);
    }
    let (table, base_size) = units_of(base).ok_or_else(|| invalid_value(name, value))?;
    let at = table
        .iter()
        .position(|(u, _)| *u == unit)
        .ok_or_else(|| invalid_value(name, value))?;
    let in_base = number * table[at].1 / base_size;
    // A fraction ("1.5GB") is rounded to a whole count of the next smaller unit.
    Ok(match table.get(at + 1) {
        Some((_, smaller)) => {
            (in_base / (smaller / base_size)).round_ties_even() * (smaller / base_size)
        }
        None => in_base,
    })
}

/// The length of the number at the start of `text` (`strtod`'s: sign, digits, a point,
/// an exponent).
fn number_length(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut at = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    while at < bytes.len() && (bytes[at].is_ascii_digit() || bytes[at] == b'.') {
        at += 1;
    }
    if at < bytes.len() && matches!(bytes[at], b'e' | b'E') {
        let mut end = at + 1;
        end += usize::from(matches!(bytes.get(end), Some(b'+' | b'-')));
        let digits = bytes[end..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits > 0 {
            at = end + digits;
        }
    }
    at
}

/// An integer setting's value (`parse_int`: a decimal integer, or a number rounded half
/// to even, with an optional unit) within `min ..= max` in its base unit, printed as
/// `SHOW` prints it: a positive count in the largest unit that divides it.
pub(crate) fn integer(name: &str, value: &str, base: &str, min: i64, max: i64) -> PgResult<String> {
    let text = value.trim();
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    // `strtol` with base 0 reads `010` as octal and `0x10` as hex: refused, not misread.
    let leading_zero = digits.len() > 1 && digits.starts_with('0');
    if leading_zero && digits[1..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(PgError::unsupported(format!(
            "the value \"{value}\" of \"{name}\" (an octal or hexadecimal integer)"
        )));
    }
    let number = number_in_base(name, value, base)?.round_ties_even();
    if number > i32::MAX as f64 || number < i32::MIN as f64 {
        return Err(invalid_value(name, value));
    }
    let number = number as i64;
    if number < min || number > max {
        let [number, min, max] = [number, min, max].map(|n| with_unit(n, base));
        return Err(outside(name, &number, &min, &max));
    }
    Ok(with_unit(number, base))
}

/// `n` base units as `SHOW` prints them: in the largest unit that divides them evenly
/// (or a smaller unit than the base, which always does); zero and below bare.
fn with_unit(n: i64, base: &str) -> String {
    let Some((table, base_size)) = units_of(base).filter(|_| n > 0) else {
        return n.to_string();
    };
    for (unit, size) in table {
        let multiplier = size / base_size;
        if multiplier <= 1.0 || n % (multiplier as i64) == 0 {
            return format!("{}{unit}", (n as f64 / multiplier).round_ties_even() as i64);
        }
    }
    n.to_string()
}

/// A real setting's value as `parse_real` reads it, within `min ..= max`, printed `%g`
/// (in the largest unit that gives a whole number, for one with units).
pub(crate) fn real(name: &str, value: &str, base: &str, min: f64, max: f64) -> PgResult<String> {
    let number = number_in_base(name, value, base)?;
    if number < min || number > max {
        let [number, min, max] = [number, min, max].map(format_g);
        return Err(outside(name, &number, &min, &max));
    }
    Ok(real_with_unit(number, base))
}

fn real_with_unit(value: f64, base: &str) -> String {
    let Some((table, base_size)) = units_of(base).filter(|_| value > 0.0) else {
        return format_g(value);
    };
    for (unit, size) in table {
        let converted = value / (size / base_size);
        if (converted.round_ties_even() / converted - 1.0).abs() <= 1e-8 {
            return format!("{}{unit}", format_g(converted));
        }
    }
    format_g(value)
}

/// A time value in milliseconds (`None`: no number, or an unknown unit).
pub(crate) fn duration_ms(value: &str) -> Option<i64> {
    let ms = number_in_base("", value, "ms").ok()?.round_ties_even();
    (ms.abs() < 1e15).then_some(ms as i64)
}

/// PostgreSQL's error for a value that is no number (its hint, "Value exceeds integer
/// range." for one past `int`, is not sent: the model's errors carry none).
pub(crate) fn invalid_value(name: &str, value: &str) -> PgError {
    PgError::new(
        INVALID_PARAMETER_VALUE,
        format!("invalid value for parameter \"{name}\": \"{value}\""),
    )
}

fn outside(name: &str, value: &str, min: &str, max: &str) -> PgError {
    PgError::new(
        INVALID_PARAMETER_VALUE,
        format!("{value} is outside the valid range for parameter \"{name}\" ({min} .. {max})"),
    )
}

/// C's `%g`: six significant digits, trailing zeros dropped, scientific notation for an
/// exponent below -4 or from 6 on.
pub(crate) fn format_g(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return match value {
            v if v.is_nan() => "nan".into(),
            v if v.is_infinite() => if v > 0.0 { "inf" } else { "-inf" }.into(),
            _ => "0".into(),
        };
    }
    let scientific = format!("{value:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let trim = |s: String| match s.contains('.') {
        true => s.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => s,
    };
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mantissa.to_string()), exponent.abs());
    }
    let decimals = (5 - exponent).max(0) as usize;
    trim(format!("{value:.decimals$}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_c_prints_them_with_percent_g() {
        for (value, printed) in [
            (0.0, "0"),
            (1.0, "1"),
            (2.5, "2.5"),
            (1000.0, "1000"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-0.5, "-0.5"),
        ] {
            assert_eq!(format_g(value), printed, "{value}");
        }
    }

    #[test]
    fn integer_settings_round_half_to_even_and_refuse_out_of_range() {
        let ef = |v: &str| integer("hnsw.ef_search", v, "", 1, 1000);
        assert_eq!(ef("10.5").unwrap(), "10");
        assert_eq!(ef("11.5").unwrap(), "12");
        assert_eq!(ef(" 1e2 ").unwrap(), "100");
        let outside = ef("0").unwrap_err();
        assert_eq!(
            outside.message,
            "0 is outside the valid range for parameter \"hnsw.ef_search\" (1 .. 1000)"
        );
        for invalid in ["many", "3000000000", "NaN", "", "5ms"] {
            let error = ef(invalid).unwrap_err();
            assert!(error.message.starts_with("invalid value"), "{invalid}");
        }
        assert_eq!(
            ef("010").unwrap_err().code,
            crate::pg::error::FEATURE_NOT_SUPPORTED
        );
        assert_eq!(
            ef("0x10").unwrap_err().code,
            crate::pg::error::FEATURE_NOT_SUPPORTED
        );
    }

    #[test]
    fn time_settings_read_units_and_print_the_largest_that_divides() {
        let ms = |v: &str| integer("lock_timeout", v, "ms", 0, i32::MAX as i64);
        for (value, printed) in [
            ("0", "0"),
            ("100", "100ms"),
            ("1000", "1s"),
            ("1.5s", "1500ms"),
            ("2 min", "2min"),
            ("90s", "90s"),
            ("3600000", "1h"),
            ("2d", "2d"),
            ("1500us", "2ms"),
        ] {
            let got = ms(value).unwrap_or_else(|_| "invalid".into());
            assert_eq!(got, printed, "{value}");
        }
        for refused in ["-1", "abc", "5 weeks", "5S", "3000000000", "5kB"] {
            assert_eq!(
                ms(refused).unwrap_err().code,
                INVALID_PARAMETER_VALUE,
                "{refused}"
            );
        }
    }

    #[test]
    fn memory_settings_print_as_show_prints_them() {
        let work_mem = |v: &str| integer("work_mem", v, "kB", 64, i32::MAX as i64);
        assert_eq!(work_mem("64kB").unwrap(), "64kB");
        assert_eq!(work_mem("4096").unwrap(), "4MB");
        assert_eq!(work_mem("1.5MB").unwrap(), "1536kB");
        assert_eq!(work_mem("2GB").unwrap(), "2GB");
        assert!(work_mem("63kB").is_err());
        let blocks = |v: &str| integer("effective_cache_size", v, "8kB", 1, i32::MAX as i64);
        assert_eq!(blocks("524288").unwrap(), "4GB");
        assert_eq!(blocks("3").unwrap(), "24kB");
        assert_eq!(blocks("1MB").unwrap(), "1MB");
    }

    #[test]
    fn booleans_and_enums_take_postgresql_spellings() {
        for (text, value) in [
            ("t", true),
            ("TRUE", true),
            ("of", false),
            ("on", true),
            ("0", false),
        ] {
            assert_eq!(parse_bool(text), Some(value), "{text}");
        }
        for text in ["o", "", "truest", "2", "onn"] {
            assert_eq!(parse_bool(text), None, "{text}");
        }
        let options = ["partition", "on", "off"];
        assert_eq!(
            enumerated("constraint_exclusion", "ON", &options).unwrap(),
            "on"
        );
        assert_eq!(
            enumerated("constraint_exclusion", "yes", &options).unwrap(),
            "on"
        );
        assert!(enumerated("constraint_exclusion", "maybe", &options).is_err());
        assert!(enumerated("plan_cache_mode", "yes", &["auto", "force_custom_plan"]).is_err());
    }

    #[test]
    fn reals_print_in_their_largest_whole_unit() {
        assert_eq!(
            real("random_page_cost", "1.1", "", 0.0, 1.79e308).unwrap(),
            "1.1"
        );
        assert_eq!(
            real("vacuum_cost_delay", "2", "ms", 0.0, 100.0).unwrap(),
            "2ms"
        );
        assert_eq!(
            real("vacuum_cost_delay", "0", "ms", 0.0, 100.0).unwrap(),
            "0"
        );
        assert!(real("random_page_cost", "-1", "", 0.0, 1.79e308).is_err());
    }
}
