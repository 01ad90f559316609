//! The run-time settings a connection may `SET`, `SET LOCAL`, `SHOW` and `RESET`: the
//! planner switches and pgvector's search knobs the stores turn, and the few a client
//! reads at startup. An unknown name is refused as PostgreSQL refuses it, but a dotted
//! one (`app.user_id`) is a custom option, as applications set for row-level security:
//! taken as text, unchecked, and known to the session from its first `SET` on.

use crate::pg::error::{PgError, PgResult, UNDEFINED_PARAMETER};
use std::collections::BTreeMap;

/// Each setting and its default, as PostgreSQL 18 with pgvector 0.8 loaded prints it.
const DEFAULTS: [(&str, &str); 28] = [
    ("application_name", ""),
    ("bytea_output", "hex"),
    ("client_encoding", "UTF8"),
    ("datestyle", "ISO, MDY"),
    ("deadlock_timeout", "1s"),
    ("default_transaction_isolation", "read committed"),
    ("enable_bitmapscan", "on"),
    ("escape_string_warning", "on"),
    ("enable_indexscan", "on"),
    ("enable_seqscan", "on"),
    ("enable_sort", "on"),
    ("extra_float_digits", "1"),
    ("hnsw.ef_search", "40"),
    ("hnsw.iterative_scan", "off"),
    ("hnsw.max_scan_tuples", "20000"),
    ("hnsw.scan_mem_multiplier", "1"),
    ("idle_in_transaction_session_timeout", "0"),
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
    /// The values at the transaction's start, then at each savepoint since (innermost
    /// last): what a rollback restores, as PostgreSQL's `AtEOXact_GUC` and
    /// `AtEOSubXact_GUC` restore them. Empty outside a transaction.
    saved: Vec<(BTreeMap<String, String>, BTreeMap<String, String>)>,
}

fn known(name: &str) -> PgResult<&'static str> {
    DEFAULTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, default)| *default)
        .ok_or_else(|| unrecognized(name))
}

fn unrecognized(name: &str) -> PgError {
    PgError::new(
        UNDEFINED_PARAMETER,
        format!("unrecognized configuration parameter \"{name}\""),
    )
}

/// A custom option's name (`app.user_id`): dotted, and not one of the model's own. The
/// prefixes of the model's own dotted settings (pgvector's) are reserved to them.
fn custom(name: &str) -> PgResult<bool> {
    let Some((prefix, _)) = name.split_once('.') else {
        return Ok(false);
    };
    if known(name).is_ok() {
        return Ok(false);
    }
    match prefix {
        "hnsw" | "ivfflat" => Err(PgError::unsupported(format!(
            "the unknown setting \"{name}\" under pgvector's prefix"
        ))),
        _ => Ok(true),
    }
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
        if custom(&name)? {
            let value = self.local.get(&name).or(self.session.get(&name));
            return value.cloned().ok_or_else(|| unrecognized(&name));
        }
        known(&name)?;
        Ok(self.get(&name).to_string())
    }

    /// A boolean setting's value.
    pub(crate) fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), "on" | "true" | "yes" | "1")
    }

    /// A time setting's value in milliseconds (0: none).
    pub(crate) fn duration_ms(&self, name: &str) -> u64 {
        duration_ms(self.get(name)).unwrap_or(0).max(0) as u64
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
        let custom = custom(&name)?;
        let value = match custom {
            true => value,
            false => known(&name).and_then(|_| check_value(&name, value))?,
        };
        if local && custom && !self.session.contains_key(&name) {
            // The option exists for the session from now on; after the transaction it
            // reads empty, as PostgreSQL's placeholder does.
            self.session.insert(name.clone(), String::new());
        }
        match local {
            true => self.local.insert(name, value),
            false => self.session.insert(name, value),
        };
        Ok(())
    }

    /// RESET: a setting back to its default; a custom option stays known, empty.
    pub(crate) fn reset(&mut self, name: Option<&str>) -> PgResult<()> {
        match name {
            None => {
                self.session
                    .retain(|name, _| name.contains('.') && known(name).is_err());
                self.session.values_mut().for_each(String::clear);
            }
            Some(name) => {
                let name = name.to_lowercase();
                if custom(&name)? {
                    self.session.insert(name, String::new());
                    return Ok(());
                }
                known(&name)?;
                self.session.remove(&name);
            }
        }
        Ok(())
    }

    /// A transaction began: what a rollback returns to.
    pub(crate) fn begin_transaction(&mut self) {
        self.saved.clear();
        self.saved.push((self.session.clone(), self.local.clone()));
    }

    /// A savepoint: what rolling back to it returns to.
    pub(crate) fn savepoint(&mut self) {
        assert!(!self.saved.is_empty(), "a savepoint inside a transaction");
        self.saved.push((self.session.clone(), self.local.clone()));
    }

    /// ROLLBACK TO the `depth`th savepoint (1: the outermost): its values back; it stays.
    pub(crate) fn roll_back_to(&mut self, depth: usize) {
        assert!(
            depth >= 1 && depth < self.saved.len(),
            "a savepoint's depth"
        );
        self.saved.truncate(depth + 1);
        let (session, local) = self.saved[depth].clone();
        self.restore(session);
        self.local = local;
    }

    /// `session`'s values back; a custom option set since stays known, empty, as
    /// PostgreSQL's placeholder outlives the rollback that undid its value.
    fn restore(&mut self, mut session: BTreeMap<String, String>) {
        for name in self.session.keys().filter(|n| custom(n).unwrap_or(false)) {
            session.entry(name.clone()).or_default();
        }
        self.session = session;
    }

    /// RELEASE the `depth`th savepoint and those after it: their changes stay.
    pub(crate) fn release(&mut self, depth: usize) {
        assert!(
            depth >= 1 && depth < self.saved.len(),
            "a savepoint's depth"
        );
        self.saved.truncate(depth);
    }

    /// The transaction ended: its `SET LOCAL`s go, and an abort takes its `SET`s back.
    pub(crate) fn end_transaction(&mut self, commit: bool) {
        if let (false, Some((session, _))) = (commit, self.saved.first()) {
            self.restore(session.clone());
        }
        self.saved.clear();
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
        n if n.starts_with("enable_")
            || n == "synchronous_commit"
            || n == "escape_string_warning" =>
        {
            match lower.as_str() {
                "on" | "true" | "yes" | "1" => Ok("on".into()),
                "off" | "false" | "no" | "0" => Ok("off".into()),
                "local" | "remote_write" | "remote_apply" if n == "synchronous_commit" => Ok(lower),
                _ => Err(invalid("")),
            }
        }
        "hnsw.iterative_scan" => match lower.as_str() {
            "off" | "strict_order" | "relaxed_order" => Ok(lower),
            _ => Err(invalid("")),
        },
        "ivfflat.iterative_scan" => match lower.as_str() {
            "off" | "relaxed_order" => Ok(lower),
            _ => Err(invalid("")),
        },
        "hnsw.ef_search" => integer(name, &value, 1, 1000),
        "lock_timeout" | "statement_timeout" | "idle_in_transaction_session_timeout" => {
            milliseconds(name, &value, 0)
        }
        "deadlock_timeout" => milliseconds(name, &value, 1),
        "default_transaction_isolation" => match lower.trim() {
            // Refused, never run as another level: the model has no predicate locks.
            "serializable" => Err(serializable_refused()),
            level @ ("repeatable read" | "read committed" | "read uncommitted") => {
                Ok(level.to_string())
            }
            _ => Err(invalid("")),
        },
        "ivfflat.probes" | "ivfflat.max_probes" => integer(name, &value, 1, 32768),
        "hnsw.max_scan_tuples" => integer(name, &value, 1, i32::MAX as i64),
        "hnsw.scan_mem_multiplier" => real(name, &value, 1.0, 1000.0),
        "bytea_output" => match lower.as_str() {
            "hex" | "escape" => Ok(lower),
            _ => Err(invalid("")),
        },
        "intervalstyle" => match lower.as_str() {
            "postgres" | "postgres_verbose" | "sql_standard" | "iso_8601" => Ok(lower),
            _ => Err(invalid("")),
        },
        // Timestamps print in UTC only: another zone would print them wrongly.
        "timezone" if !UTC_NAMES.contains(&lower.as_str()) => Err(PgError::unsupported(format!(
            "TimeZone {value} (the model prints timestamps in UTC only)"
        ))),
        _ => Ok(value),
    }
}

/// The refusal of SERIALIZABLE in each of its spellings: the model runs no serializable
/// snapshot isolation, and running the level as REPEATABLE READ would let write skew
/// commit where PostgreSQL fails it.
pub(crate) fn serializable_refused() -> PgError {
    PgError::unsupported(
        "the SERIALIZABLE isolation level (the model has no serializable snapshot \
         isolation; use REPEATABLE READ or READ COMMITTED)",
    )
}

/// The units of a time setting, in milliseconds, largest first (`guc.c`'s table).
const TIME_UNITS_MS: [(&str, f64); 6] = [
    ("d", 86_400_000.0),
    ("h", 3_600_000.0),
    ("min", 60_000.0),
    ("s", 1_000.0),
    ("ms", 1.0),
    ("us", 0.001),
];

/// A time setting kept in milliseconds, read as `parse_int` with `GUC_UNIT_MS` reads it
/// (a number, perhaps fractional, then an optional unit: `100`, `1.5s`, `2 min`), within
/// `0 ..= INT_MAX`, printed as `SHOW` prints it: in the largest unit that divides it.
fn milliseconds(name: &str, value: &str, min_ms: i64) -> PgResult<String> {
    let ms = duration_ms(value).ok_or_else(|| invalid_value(name, value))?;
    if !(min_ms..=i32::MAX as i64).contains(&ms) {
        let min = format!("{min_ms} ms");
        return Err(outside(name, &format!("{ms} ms"), &min, "2147483647 ms"));
    }
    if ms == 0 {
        return Ok("0".into());
    }
    let (unit, size) = TIME_UNITS_MS
        .iter()
        .find(|(_, size)| *size >= 1.0 && ms % (*size as i64) == 0)
        .expect("every count of milliseconds divides by one");
    Ok(format!("{}{unit}", ms / *size as i64))
}

/// A time value in milliseconds (`None`: no number, or an unknown unit).
fn duration_ms(value: &str) -> Option<i64> {
    let text = value.trim();
    let split = text
        .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.trim().parse().ok().filter(|n: &f64| n.is_finite())?;
    let size = match unit.trim() {
        "" => 1.0,
        unit => TIME_UNITS_MS.iter().find(|(u, _)| *u == unit)?.1,
    };
    let ms = (number * size).round_ties_even();
    (ms.abs() < 1e15).then_some(ms as i64)
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
    fn an_abort_or_a_savepoint_rollback_takes_sets_back() {
        let mut settings = Settings::default();
        settings.begin_transaction();
        settings.set("enable_seqscan", "off".into(), false).unwrap();
        settings.savepoint();
        settings.set("enable_sort", "off".into(), false).unwrap();
        settings.set("app.user_id", "7".into(), false).unwrap();
        settings.roll_back_to(1);
        assert_eq!(settings.get("enable_sort"), "on");
        assert_eq!(settings.get("enable_seqscan"), "off");
        assert_eq!(settings.show("app.user_id").unwrap(), "");
        settings.end_transaction(false);
        assert_eq!(settings.get("enable_seqscan"), "on");
        settings.begin_transaction();
        settings.set("enable_seqscan", "off".into(), false).unwrap();
        settings.end_transaction(true);
        assert_eq!(settings.get("enable_seqscan"), "off");
        assert_eq!(
            settings.show("app.never").unwrap_err().code,
            UNDEFINED_PARAMETER
        );
        assert!(settings.set("hnsw.nonesuch", "1".into(), false).is_err());
    }

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

    #[test]
    fn time_settings_read_units_and_print_the_largest_that_divides() {
        let ms = |v: &str| milliseconds("lock_timeout", v, 0);
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
        for refused in ["-1", "abc", "5 weeks", "5S", "3000000000"] {
            let error = ms(refused).unwrap_err();
            assert_eq!(error.code, crate::pg::error::INVALID_PARAMETER_VALUE);
        }
        let mut settings = Settings::default();
        settings.set("lock_timeout", "250".into(), false).unwrap();
        assert_eq!(settings.duration_ms("lock_timeout"), 250);
        assert_eq!(settings.show("lock_timeout").unwrap(), "250ms");
    }

    #[test]
    fn serializable_is_refused_and_unknown_levels_are_invalid() {
        let mut settings = Settings::default();
        let set = |s: &mut Settings, v: &str| {
            s.set("default_transaction_isolation", v.into(), false)
                .map_err(|e| e.code)
        };
        assert_eq!(
            set(&mut settings, "serializable"),
            Err(crate::pg::error::FEATURE_NOT_SUPPORTED)
        );
        assert_eq!(
            set(&mut settings, "SERIALIZABLE"),
            Err(crate::pg::error::FEATURE_NOT_SUPPORTED)
        );
        assert_eq!(
            set(&mut settings, "no such level"),
            Err(crate::pg::error::INVALID_PARAMETER_VALUE)
        );
        assert_eq!(set(&mut settings, "Repeatable Read"), Ok(()));
        assert_eq!(
            settings.get("default_transaction_isolation"),
            "repeatable read"
        );
    }
}
