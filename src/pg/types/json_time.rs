//! The date/time types as `to_json`, `to_jsonb` and the build functions write them
//! (PostgreSQL's `JsonEncodeDateTime`): ISO 8601 with a `T`; a timestamptz with the offset
//! as `+HH:MM` in the session's `TimeZone`, a timestamp without one, a date as its text.
//! The model prints timestamps in UTC only, so under another zone a timestamptz is
//! refused rather than written with the wrong offset.

use crate::pg::error::{PgError, PgResult};
use crate::pg::types::datetime::DAY_US;

/// Whether the `TimeZone` setting names UTC (the zone whose offset the model knows).
pub(crate) fn zone_is_utc(zone: &str) -> bool {
    let zone = zone.to_ascii_lowercase();
    let zone = zone.strip_prefix("etc/").unwrap_or(&zone);
    matches!(
        zone,
        "utc" | "uct" | "gmt" | "gmt0" | "gmt+0" | "gmt-0" | "zulu" | "universal" | "greenwich"
    )
}

/// `pg_us` (microseconds since 2000-01-01 UTC) as JSON's text, unquoted.
pub(crate) fn iso(pg_us: i64, zone: &str) -> PgResult<String> {
    match pg_us {
        i64::MAX => return Ok("infinity".into()),
        i64::MIN => return Ok("-infinity".into()),
        _ => {}
    }
    if !zone_is_utc(zone) {
        return Err(PgError::unsupported(format!(
            "a timestamptz made JSON under the time zone {zone}"
        )));
    }
    let first_ad_us = crate::pg::types::datetime::pg_days_from_civil(1, 1, 1) * DAY_US;
    if pg_us < first_ad_us {
        return Err(PgError::unsupported("a timestamptz before 1 AD made JSON"));
    }
    Ok(crate::pg::types::datetime::format_timestamp(
        pg_us, 'T', "+00:00",
    ))
}

/// A timestamp (microseconds since 2000-01-01, no zone) as JSON's text, unquoted:
/// `2024-01-02T03:04:05.5`, ` BC` after a year before 1 AD.
pub(crate) fn iso_local(pg_us: i64) -> String {
    crate::pg::types::datetime::format_timestamp(pg_us, 'T', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_text_in_utc_only() {
        let us = 1_000_000 * 86_400 * 366 + 500_000;
        assert_eq!(iso(us, "UTC").unwrap(), "2001-01-01T00:00:00.5+00:00");
        assert_eq!(iso(i64::MAX, "Europe/Paris").unwrap(), "infinity");
        assert!(iso(us, "Europe/Paris").is_err());
        assert!(zone_is_utc("Etc/UTC") && zone_is_utc("gmt"));
        assert_eq!(iso_local(us), "2001-01-01T00:00:00.5");
    }
}
