//! The run-time settings a connection may `SET`, `SET LOCAL`, `SHOW` and `RESET`: the
//! planner switches and pgvector's search knobs the stores turn, and the few a client
//! reads at startup. An unknown name is refused as PostgreSQL refuses it.

use crate::pg::error::{PgError, PgResult, UNDEFINED_PARAMETER};
use std::collections::BTreeMap;

/// Each setting and its default, as PostgreSQL 18 with pgvector 0.8 loaded prints it.
const DEFAULTS: [(&str, &str); 24] = [
    ("application_name", ""),
    ("client_encoding", "UTF8"),
    ("datestyle", "ISO, MDY"),
    ("default_transaction_isolation", "read committed"),
    ("enable_bitmapscan", "on"),
    ("enable_indexscan", "on"),
    ("enable_seqscan", "on"),
    ("enable_sort", "on"),
    ("extra_float_digits", "1"),
    ("hnsw.ef_search", "40"),
    ("hnsw.iterative_scan", "off"),
    ("hnsw.max_scan_tuples", "20000"),
    ("hnsw.scan_mem_multiplier", "1"),
    ("intervalstyle", "postgres"),
    ("ivfflat.iterative_scan", "off"),
    ("ivfflat.max_probes", "32768"),
    ("ivfflat.probes", "1"),
    ("lock_timeout", "0"),
    ("search_path", "\"$user\", public"),
    ("server_version", crate::pg::settings::SERVER_VERSION),
    ("standard_conforming_strings", "on"),
    ("statement_timeout", "0"),
    ("synchronous_commit", "on"),
    ("timezone", "UTC"),
];

/// Settings of one connection: its session values, and the transaction's `SET LOCAL`s.
#[derive(Clone, Debug, Default)]
pub(crate) struct Settings {
    session: BTreeMap<String, String>,
    local: BTreeMap<String, String>,
}

fn known(name: &str) -> PgResult<&'static str> {
    DEFAULTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, default)| *default)
        .ok_or_else(|| {
            PgError::new(
                UNDEFINED_PARAMETER,
                format!("unrecognized configuration parameter \"{name}\""),
            )
        })
}

impl Settings {
    /// The value in force.
    pub(crate) fn get(&self, name: &str) -> &str {
        let default = known(name).expect("a setting the model reads is known");
        self.local
            .get(name)
            .or(self.session.get(name))
            .map_or(default, String::as_str)
    }

    pub(crate) fn show(&self, name: &str) -> PgResult<String> {
        let name = name.to_lowercase();
        known(&name)?;
        Ok(self.get(&name).to_string())
    }

    /// A boolean setting's value.
    pub(crate) fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), "on" | "true" | "yes" | "1")
    }

    pub(crate) fn number(&self, name: &str) -> u64 {
        self.get(name).parse().unwrap_or(0)
    }

    pub(crate) fn set(&mut self, name: &str, value: String, local: bool) -> PgResult<()> {
        let name = name.to_lowercase();
        if name == "server_version" {
            return Err(PgError::new(
                crate::pg::error::CANT_CHANGE_RUNTIME_PARAM,
                "parameter \"server_version\" cannot be changed",
            ));
        }
        known(&name)?;
        let value = check_value(&name, value)?;
        match local {
            true => self.local.insert(name, value),
            false => self.session.insert(name, value),
        };
        Ok(())
    }

    pub(crate) fn reset(&mut self, name: Option<&str>) -> PgResult<()> {
        match name {
            None => self.session.clear(),
            Some(name) => {
                let name = name.to_lowercase();
                known(&name)?;
                self.session.remove(&name);
            }
        }
        Ok(())
    }

    /// The transaction ended: its `SET LOCAL`s go.
    pub(crate) fn end_transaction(&mut self) {
        self.local.clear();
    }
}

/// The zone names of UTC itself (the `TimeZone` values the model takes).
const UTC_NAMES: [&str; 10] = [
    "utc",
    "etc/utc",
    "uct",
    "etc/uct",
    "gmt",
    "etc/gmt",
    "universal",
    "etc/universal",
    "zulu",
    "etc/zulu",
];

/// Values the model's settings accept, normalized as `SHOW` prints them.
fn check_value(name: &str, value: String) -> PgResult<String> {
    let invalid = |expected: &str| {
        PgError::new(
            crate::pg::error::INVALID_PARAMETER_VALUE,
            format!("invalid value for parameter \"{name}\": \"{value}\"{expected}"),
        )
    };
    let lower = value.to_lowercase();
    match name {
        n if n.starts_with("enable_") || n == "synchronous_commit" => match lower.as_str() {
            "on" | "true" | "yes" | "1" => Ok("on".into()),
            "off" | "false" | "no" | "0" => Ok("off".into()),
            "local" | "remote_write" | "remote_apply" if n == "synchronous_commit" => Ok(lower),
            _ => Err(invalid("")),
        },
        "hnsw.iterative_scan" => match lower.as_str() {
            "off" | "strict_order" | "relaxed_order" => Ok(lower),
            _ => Err(invalid("")),
        },
        "ivfflat.iterative_scan" => match lower.as_str() {
            "off" | "relaxed_order" => Ok(lower),
            _ => Err(invalid("")),
        },
        "hnsw.ef_search" => integer(name, &value, 1, 1000),
        "ivfflat.probes" | "ivfflat.max_probes" => integer(name, &value, 1, 32768),
        "hnsw.max_scan_tuples" => integer(name, &value, 1, i32::MAX as i64),
        "hnsw.scan_mem_multiplier" => real(name, &value, 1.0, 1000.0),
        // Timestamps print in UTC only: another zone would print them wrongly.
        "timezone" if !UTC_NAMES.contains(&lower.as_str()) => Err(PgError::unsupported(format!(
            "TimeZone {value} (the model prints timestamps in UTC only)"
        ))),
        _ => Ok(value),
    }
}

/// An integer setting's value as `guc.c`'s `parse_int` reads it (a decimal integer, or
/// a number rounded half to even) within `min ..= max`, printed as `SHOW` prints it.
fn integer(name: &str, value: &str, min: i64, max: i64) -> PgResult<String> {
    let text = value.trim();
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    // `strtol` with base 0 reads `010` as octal and `0x10` as hex: refused, not misread.
    if digits.len() > 1 && digits.starts_with('0') && !digits.contains(['.', 'e', 'E']) {
        return Err(PgError::unsupported(format!(
            "the value \"{value}\" of \"{name}\" (an octal or hexadecimal integer)"
        )));
    }
    let number = match text.parse::<i64>() {
        Ok(n) => n as f64,
        Err(_) => text
            .parse::<f64>()
            .ok()
            .filter(|f| !f.is_nan())
            .ok_or_else(|| invalid_value(name, value))?
            .round_ties_even(),
    };
    if number > i32::MAX as f64 || number < i32::MIN as f64 {
        return Err(invalid_value(name, value));
    }
    let number = number as i64;
    if number < min || number > max {
        return Err(outside(
            name,
            &number.to_string(),
            &min.to_string(),
            &max.to_string(),
        ));
    }
    Ok(number.to_string())
}

/// A real setting's value as `parse_real` reads it, within `min ..= max`, printed `%g`.
fn real(name: &str, value: &str, min: f64, max: f64) -> PgResult<String> {
    let number = value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|f| !f.is_nan())
        .ok_or_else(|| invalid_value(name, value))?;
    if number < min || number > max {
        return Err(outside(
            name,
            &format_g(number),
            &format_g(min),
            &format_g(max),
        ));
    }
    Ok(format_g(number))
}

/// PostgreSQL's error for a value that is no number (its hint, "Value exceeds integer
/// range." for one past `int`, is not sent: the model's errors carry none).
fn invalid_value(name: &str, value: &str) -> PgError {
    PgError::new(
        crate::pg::error::INVALID_PARAMETER_VALUE,
        format!("invalid value for parameter \"{name}\": \"{value}\""),
    )
}

fn outside(name: &str, value: &str, min: &str, max: &str) -> PgError {
    PgError::new(
        crate::pg::error::INVALID_PARAMETER_VALUE,
        format!("{value} is outside the valid range for parameter \"{name}\" ({min} .. {max})"),
    )
}

/// C's `%g`: six significant digits, trailing zeros dropped, scientific notation for an
/// exponent below -4 or from 6 on.
fn format_g(value: f64) -> String {
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

/// The version the model reports (`server_version`, `SHOW server_version`).
pub(crate) const SERVER_VERSION: &str = "18.3";

pub(crate) const SERVER_VERSION_TEXT: &str = "PostgreSQL 18.3 (amnesia model) with pgvector 0.8";

/// The parameters a client is told at startup.
pub(crate) const STARTUP_PARAMETERS: [(&str, &str); 8] = [
    ("server_version", SERVER_VERSION),
    ("server_encoding", "UTF8"),
    ("client_encoding", "UTF8"),
    ("DateStyle", "ISO, MDY"),
    ("TimeZone", "UTC"),
    ("integer_datetimes", "on"),
    ("standard_conforming_strings", "on"),
    ("IntervalStyle", "postgres"),
];

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
        let ef = |v: &str| integer("hnsw.ef_search", v, 1, 1000);
        assert_eq!(ef("10.5").unwrap(), "10");
        assert_eq!(ef("11.5").unwrap(), "12");
        assert_eq!(ef(" 1e2 ").unwrap(), "100");
        let outside = ef("0").unwrap_err();
        assert_eq!(
            outside.message,
            "0 is outside the valid range for parameter \"hnsw.ef_search\" (1 .. 1000)"
        );
        for invalid in ["many", "3000000000", "NaN", ""] {
            let error = ef(invalid).unwrap_err();
            assert!(error.message.starts_with("invalid value"), "{invalid}");
        }
        assert_eq!(
            ef("010").unwrap_err().code,
            crate::pg::error::FEATURE_NOT_SUPPORTED
        );
    }
}
