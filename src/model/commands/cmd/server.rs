//! INFO (the sections and fields the model keeps), TIME (the node's clock, virtual in a simulation) and
//! the one DEBUG subcommand tests need: SET-ACTIVE-EXPIRE.

use crate::model::commands::cmd::connection::REDIS_VERSION;
use crate::model::protocol::args::{is, CmdResult};
use crate::model::protocol::reply::{Protocol, Reply};
use crate::model::state::ctx::Ctx;
use bytes::Bytes;

/// INFO's sections in Redis's order; `default` and `all` name all of them (the model has
/// no modules, cluster, command or latency statistics).
const SECTIONS: &[&str] = &[
    "server",
    "clients",
    "memory",
    "persistence",
    "stats",
    "replication",
    "cpu",
    "errorstats",
    "keyspace",
];

/// INFO [section ...]: the sections asked for (case-insensitive; unknown ones add
/// nothing), each a `# Title` and `field:value` lines, as Redis 7.0 prints them. The
/// fields are those the model keeps; memory and CPU use are not modelled (reported 0).
pub fn info(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let wanted: Vec<String> = args[1..]
        .iter()
        .map(|a| String::from_utf8_lossy(a).to_ascii_lowercase())
        .collect();
    let every = wanted.is_empty()
        || wanted
            .iter()
            .any(|w| matches!(w.as_str(), "default" | "all" | "everything"));
    let mut text = String::new();
    for section in SECTIONS {
        if !every && !wanted.iter().any(|w| w == section) {
            continue;
        }
        if !text.is_empty() {
            text.push_str("\r\n");
        }
        text.push_str(&section_text(ctx, section));
    }
    Ok(match ctx.client.protocol {
        Protocol::Resp2 => Reply::Bulk(Bytes::from(text)),
        Protocol::Resp3 => Reply::Verbatim(Bytes::from(text)),
    })
}

fn section_text(ctx: &Ctx, section: &str) -> String {
    let title = match section {
        "cpu" => "CPU".to_string(),
        "errorstats" => "Errorstats".to_string(),
        other => format!("{}{}", other[..1].to_ascii_uppercase(), &other[1..]),
    };
    let mut lines = vec![format!("# {title}")];
    let mut field = |name: &str, value: String| lines.push(format!("{name}:{value}"));
    section_fields(ctx, section, &mut field);
    let mut text = lines.join("\r\n");
    text.push_str("\r\n");
    text
}

/// The `field:value` pairs of one section, in Redis's order: apart from `section_text` so
/// the framing (title, line ends) and the contents read separately.
fn section_fields(ctx: &Ctx, section: &str, field: &mut dyn FnMut(&str, String)) {
    let node = &*ctx.node;
    let stats = &node.stats;
    match section {
        "server" => server_fields(ctx, field),
        "clients" => {
            field("connected_clients", stats.connected_clients.to_string());
            field("blocked_clients", node.blocked.len().to_string());
            field("tracking_clients", "0".into());
        }
        "memory" => {
            field("used_memory", node.used_memory_bytes().to_string());
            field("number_of_cached_scripts", node.scripting.len().to_string());
            let limits = node.config.maxmemory;
            field("maxmemory", limits.bytes.to_string());
            field("maxmemory_policy", limits.policy.name().into());
        }
        "persistence" => {
            field("loading", "0".into());
            let aof = node.config.persistence != crate::model::setup::config::Persistence::None;
            field("aof_enabled", u8::from(aof).to_string());
            field("aof_rewrite_in_progress", "0".into());
            field("aof_last_write_status", "ok".into());
        }
        "stats" => {
            field(
                "total_connections_received",
                stats.connections_received.to_string(),
            );
            field(
                "total_commands_processed",
                stats.commands_processed.to_string(),
            );
            field("expired_keys", stats.expired_keys.to_string());
            field("evicted_keys", stats.evicted_keys.to_string());
            let errors: u64 = stats.error_replies.values().sum();
            field("total_error_replies", errors.to_string());
        }
        "replication" => {
            field("role", "master".into());
            field("connected_slaves", "0".into());
        }
        "cpu" => {
            for name in ["used_cpu_sys", "used_cpu_user"] {
                field(name, "0.000000".into());
            }
        }
        "errorstats" => {
            for (prefix, count) in &stats.error_replies {
                field(&format!("errorstat_{prefix}"), format!("count={count}"));
            }
        }
        _ => {
            for (index, db) in node.dbs.iter().enumerate().filter(|(_, db)| !db.is_empty()) {
                let expires = db.expires_len();
                field(
                    &format!("db{index}"),
                    format!("keys={},expires={expires},avg_ttl=0", db.len()),
                );
            }
        }
    }
}

/// The `server` section: the longest, and the one with the restart count and the clock.
fn server_fields(ctx: &Ctx, field: &mut dyn FnMut(&str, String)) {
    let node = &*ctx.node;
    let stats = &node.stats;
    field("redis_version", REDIS_VERSION.into());
    field("redis_mode", "standalone".into());
    field("arch_bits", "64".into());
    // Redis draws a random 40-hex-digit id per process start; here it counts
    // starts, so a store can tell a restarted server and every run stays the same.
    field("run_id", format!("{:040x}", stats.restarts + 1));
    let uptime_s = ctx.now_ms.saturating_sub(stats.started_ms) / 1000;
    field("uptime_in_seconds", uptime_s.to_string());
    field("uptime_in_days", (uptime_s / 86_400).to_string());
    let hz = node.config.expire_cycles_per_second.to_string();
    field("hz", hz.clone());
    field("configured_hz", hz);
    field("amnesia_model", "1".into());
}

pub fn time(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    let seconds = ctx.now_ms / 1000;
    let micros = (ctx.now_ms % 1000) * 1000;
    Ok(Reply::bulks([
        Bytes::from(seconds.to_string()),
        Bytes::from(micros.to_string()),
    ]))
}

/// DEBUG SET-ACTIVE-EXPIRE 0|1 switches the periodic expiry cycle (keys then expire only
/// when touched, as Redis's own tests arrange). DEBUG SLEEP seconds holds the node that
/// long, as Redis's blocks its event loop: on a real clock (`amnesia serve-model`) it
/// sleeps, every client waiting; in a simulation it answers at once (its time is virtual,
/// and a command takes none of it). Other subcommands are not modelled.
pub fn debug(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if is(&args[1], "set-active-expire") && args.len() == 3 {
        // Redis reads the flag with atoi: anything not starting with a nonzero number is 0.
        ctx.node.active_expire = atoi(&args[2]) != 0;
        return Ok(Reply::ok());
    }
    if is(&args[1], "sleep") && args.len() == 3 {
        let sleep = debug_sleep_duration(&args[2]);
        if ctx.node.real_time && !sleep.is_zero() {
            std::thread::sleep(sleep);
        }
        return Ok(Reply::ok());
    }
    let sub = String::from_utf8_lossy(&args[1][..args[1].len().min(128)]).into_owned();
    Err(Reply::error(format!(
        "ERR unknown subcommand or wrong number of arguments for '{sub}'. Try DEBUG HELP."
    )))
}

/// The longest DEBUG SLEEP honoured (Redis has no bound; a typo of a few zeros should not
/// hold a test machine for days).
const DEBUG_SLEEP_MAX: std::time::Duration = std::time::Duration::from_secs(3_600);

/// DEBUG SLEEP's argument as Redis reads it (`strtod`, then whole microseconds): a
/// leading number, 0 when none or negative, at most `DEBUG_SLEEP_MAX`.
fn debug_sleep_duration(arg: &[u8]) -> std::time::Duration {
    let text = String::from_utf8_lossy(arg);
    let text = text.trim_start();
    // The longest prefix that reads as a number (strtod stops at the first other byte).
    let seconds = (1..=text.len().min(64))
        .rev()
        .filter(|&end| text.is_char_boundary(end))
        .find_map(|end| text[..end].parse::<f64>().ok())
        .unwrap_or(0.0);
    if seconds.is_nan() || seconds <= 0.0 {
        return std::time::Duration::ZERO;
    }
    let micros = (seconds * 1e6).min(DEBUG_SLEEP_MAX.as_micros() as f64);
    std::time::Duration::from_micros(micros as u64)
}

/// C's `atoi`: optional blanks and sign, then digits; 0 when none.
fn atoi(arg: &[u8]) -> i64 {
    let text = String::from_utf8_lossy(arg);
    let text = text.trim_start();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let digits: String = digits
        .chars()
        .take_while(char::is_ascii_digit)
        .take(18)
        .collect();
    let value = digits.parse::<i64>().unwrap_or(0);
    if negative {
        -value
    } else {
        value
    }
}

#[cfg(test)]
mod debug_sleep_tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn debug_sleep_reads_its_argument_as_strtod_does() {
        assert_eq!(debug_sleep_duration(b"0"), Duration::ZERO);
        assert_eq!(debug_sleep_duration(b"0.25"), Duration::from_millis(250));
        assert_eq!(debug_sleep_duration(b" 1.5s"), Duration::from_millis(1_500));
        assert_eq!(debug_sleep_duration(b"abc"), Duration::ZERO);
        assert_eq!(debug_sleep_duration(b"-3"), Duration::ZERO);
        assert_eq!(debug_sleep_duration(b"1e9"), DEBUG_SLEEP_MAX);
    }
}
