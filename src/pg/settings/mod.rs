//! The run-time settings a connection may `SET`, `SET LOCAL`, `SHOW` and `RESET`: the
//! planner switches and pgvector's search knobs the stores turn, and the few a client
//! reads at startup. An unknown name is refused as PostgreSQL refuses it, but a dotted
//! one (`app.user_id`) is a custom option, as applications set for row-level security:
//! taken as text, unchecked, and known to the session from its first `SET` on.

mod catalog;
mod value;

use crate::pg::error::{PgError, PgResult, UNDEFINED_PARAMETER};
use std::collections::BTreeMap;

/// Each setting and its default, as PostgreSQL 18 with pgvector 0.8 loaded prints it.
const DEFAULTS: [(&str, &str); 26] = [
    ("application_name", ""),
    ("client_encoding", "UTF8"),
    ("datestyle", "ISO, MDY"),
    ("deadlock_timeout", "1s"),
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

/// The default of a setting the model acts on (`DEFAULTS`).
fn modelled(name: &str) -> Option<&'static str> {
    DEFAULTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, default)| *default)
}

/// What `SHOW` prints for a setting never set: the model's own settings' default, else
/// PostgreSQL's (the catalogue's).
fn default_of(name: &str) -> PgResult<&'static str> {
    match modelled(name) {
        Some(default) => Ok(default),
        None => catalog::lookup(name)
            .ok_or_else(|| unrecognized(name))?
            .shown_default(),
    }
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
    if modelled(name).is_some() {
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
        let default = modelled(name).expect("a setting the model reads is one of DEFAULTS");
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
        let default = default_of(&name)?;
        let value = self.local.get(&name).or(self.session.get(&name));
        Ok(value.map_or(default, String::as_str).to_string())
    }

    /// The column `SHOW name` answers in: the setting's own name, with the capitals of
    /// PostgreSQL's three mixed-case ones.
    pub(crate) fn column_name(name: &str) -> String {
        let lower = name.to_lowercase();
        let canonical = ["DateStyle", "IntervalStyle", "TimeZone"]
            .into_iter()
            .find(|known| known.to_lowercase() == lower);
        canonical.map_or(lower, str::to_string)
    }

    /// A boolean setting's value.
    pub(crate) fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), "on" | "true" | "yes" | "1")
    }

    /// A time setting's value in milliseconds (0: none).
    pub(crate) fn duration_ms(&self, name: &str) -> u64 {
        value::duration_ms(self.get(name)).unwrap_or(0).max(0) as u64
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
        let value = match (custom, modelled(&name), catalog::lookup(&name)) {
            (true, _, _) => value,
            (false, Some(_), _) => check_value(&name, value)?,
            (false, None, Some(guc)) => guc.check(&value)?,
            (false, None, None) => return Err(unrecognized(&name)),
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
                    .retain(|name, _| name.contains('.') && modelled(name).is_none());
                self.session.values_mut().for_each(String::clear);
            }
            Some(name) => {
                let name = name.to_lowercase();
                if custom(&name)? {
                    self.session.insert(name, String::new());
                    return Ok(());
                }
                match (modelled(&name), catalog::lookup(&name)) {
                    (Some(_), _) => {}
                    (None, Some(guc)) => guc.settable()?,
                    (None, None) => return Err(unrecognized(&name)),
                }
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
        "hnsw.ef_search" => value::integer(name, &value, "", 1, 1000),
        "lock_timeout" | "statement_timeout" | "idle_in_transaction_session_timeout" => {
            value::integer(name, &value, "ms", 0, i32::MAX as i64)
        }
        "deadlock_timeout" => value::integer(name, &value, "ms", 1, i32::MAX as i64),
        "default_transaction_isolation" => match lower.trim() {
            // Refused, never run as another level: the model has no predicate locks.
            "serializable" => Err(serializable_refused()),
            level @ ("repeatable read" | "read committed" | "read uncommitted") => {
                Ok(level.to_string())
            }
            _ => Err(invalid("")),
        },
        "ivfflat.probes" | "ivfflat.max_probes" => value::integer(name, &value, "", 1, 32768),
        "hnsw.max_scan_tuples" => value::integer(name, &value, "", 1, i32::MAX as i64),
        "hnsw.scan_mem_multiplier" => value::real(name, &value, "", 1.0, 1000.0),
        // Timestamps print in UTC only: another zone would print them wrongly.
        "timezone" if !UTC_NAMES.contains(&lower.as_str()) => Err(PgError::unsupported(format!(
            "TimeZone {value} (the model prints timestamps in UTC only)"
        ))),
        "application_name" | "timezone" => Ok(value),
        _ => printing(name, &value),
    }
}

/// The settings that decide how answers print, which the model prints one way only: the
/// value that way is taken (as `SHOW` prints it), any other valid one refused.
fn printing(name: &str, value: &str) -> PgResult<String> {
    let lower = value.trim().to_ascii_lowercase();
    let only = |default: &str, taken: bool| match taken {
        true => Ok(default.to_string()),
        false => Err(PgError::unsupported(format!(
            "{name} = '{value}' (the model prints answers as under {default} only)"
        ))),
    };
    match name {
        "client_encoding" => only(
            "UTF8",
            matches!(lower.as_str(), "utf8" | "utf-8" | "unicode"),
        ),
        "datestyle" => {
            let words = lower.split([',', ' ']).filter(|w| !w.is_empty());
            let iso_mdy = words
                .into_iter()
                .all(|w| matches!(w, "iso" | "mdy" | "us" | "noneuropean"));
            only("ISO, MDY", iso_mdy && !lower.trim().is_empty())
        }
        // Output is shortest-exact for every positive value, as PostgreSQL 12+ prints it.
        "extra_float_digits" => {
            let digits = value::integer(name, value, "", -15, 3)?;
            only(&digits, digits.parse::<i64>().is_ok_and(|d| d > 0))
        }
        "intervalstyle" => {
            let styles = ["postgres", "postgres_verbose", "sql_standard", "iso_8601"];
            let style = value::enumerated(name, value, &styles)?;
            only("postgres", style == "postgres")
        }
        "standard_conforming_strings" => {
            let on = value::boolean(name, value)?;
            only("on", on == "on")
        }
        "search_path" => search_path(value),
        _ => unreachable!("every setting of DEFAULTS is checked: {name}"),
    }
}

/// `search_path`: the model has the one schema `public`; a path naming it resolves as
/// PostgreSQL resolves it (schemas that do not exist are skipped), one without it is
/// refused. Printed with each name quoted as `quote_ident` would.
fn search_path(value: &str) -> PgResult<String> {
    let names: Vec<&str> = value
        .split(',')
        .map(|n| n.trim().trim_matches('"'))
        .collect();
    if !names.contains(&"public") {
        return Err(PgError::unsupported(format!(
            "search_path = '{value}' (the model has the schema public only)"
        )));
    }
    let plain = |n: &str| {
        n.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '$')
    };
    let quoted = names.iter().map(|n| match plain(n) {
        true => n.to_string(),
        false => format!("\"{n}\""),
    });
    Ok(quoted.collect::<Vec<_>>().join(", "))
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
    fn every_modelled_setting_takes_its_own_default_back() {
        // `printing` ends in `unreachable!`: each name must have its arm before it.
        for (name, default) in DEFAULTS {
            if name == "server_version" {
                continue; // internal: SET refuses it before any value is checked
            }
            match check_value(name, default.to_string()) {
                Ok(taken) => assert_eq!(taken, default, "{name}"),
                Err(e) => panic!("{name} = {default}: {}", e.message),
            }
        }
    }

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
