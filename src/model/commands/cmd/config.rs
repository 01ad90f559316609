//! CONFIG GET / CONFIG SET for the parameters a store may read or change, with Redis
//! 7.0.15's parsing, bounds and error texts (`config.c`).
//!
//! Parameters that change what the model does are applied: `proto-max-bulk-len`,
//! `client-query-buffer-limit`, `requirepass`, `appendonly`, `appendfsync`, `hz`,
//! `maxmemory`, `maxmemory-policy`, `maxmemory-samples`, `lfu-log-factor` and
//! `lfu-decay-time` (`state::evict`), and `busy-reply-threshold` (alias `lua-time-limit`:
//! when `amnesia serve-model` answers other clients BUSY during a script, read by
//! `Node::busy_reply_threshold_ms`). The encoding thresholds and `timeout` are kept and
//! answered but change nothing (the model's encodings follow the defaults; it has no idle
//! timeout). A pattern matches only the parameters
//! listed here, where Redis knows about two hundred.

use crate::model::data::glob;
use crate::model::data::number::parse_strict_i64;
use crate::model::protocol::args::{is, syntax_error, CmdResult};
use crate::model::protocol::reply::Reply;
use crate::model::setup::eviction::EvictionPolicy;
use crate::model::state::ctx::Ctx;
use crate::model::state::node::Node;
use bytes::Bytes;

/// How a parameter's value is parsed.
#[derive(Clone, Copy)]
enum Kind {
    /// A signed integer (`int`, `long long`).
    Signed {
        min: i64,
        max: i64,
    },
    /// An unsigned integer (`size_t`, `unsigned long long`).
    Unsigned {
        min: u64,
        max: u64,
    },
    /// A byte count, with Redis's units (`1kb`, `5m`, ...).
    Memory {
        min: u64,
        max: u64,
    },
    Bool,
    Enum(&'static [&'static str]),
    Text,
}

/// One parameter: its name, its old name, how it parses, and its default.
struct Param {
    name: &'static str,
    alias: Option<&'static str>,
    kind: Kind,
    immutable: bool,
    default: &'static str,
}

const LONG_MAX: i64 = i64::MAX;
const INT_MAX: i64 = i32::MAX as i64;

const fn param(name: &'static str, kind: Kind, default: &'static str) -> Param {
    Param {
        name,
        alias: None,
        kind,
        immutable: false,
        default,
    }
}

const fn aliased(
    name: &'static str,
    alias: &'static str,
    kind: Kind,
    default: &'static str,
) -> Param {
    Param {
        name,
        alias: Some(alias),
        kind,
        immutable: false,
        default,
    }
}

const SIZE: Kind = Kind::Unsigned {
    min: 0,
    max: LONG_MAX as u64,
};
const SIZE_MEMORY: Kind = Kind::Memory {
    min: 0,
    max: LONG_MAX as u64,
};

static PARAMS: &[Param] = &[
    param("appendonly", Kind::Bool, "no"),
    param(
        "appendfsync",
        Kind::Enum(&["everysec", "always", "no"]),
        "everysec",
    ),
    aliased(
        "busy-reply-threshold",
        "lua-time-limit",
        Kind::Signed {
            min: 0,
            max: LONG_MAX,
        },
        "5000",
    ),
    Param {
        immutable: true,
        ..param(
            "databases",
            Kind::Signed {
                min: 1,
                max: INT_MAX,
            },
            "16",
        )
    },
    param(
        "client-query-buffer-limit",
        Kind::Memory {
            min: 1024 * 1024,
            max: LONG_MAX as u64,
        },
        "1073741824",
    ),
    aliased(
        "hash-max-listpack-entries",
        "hash-max-ziplist-entries",
        SIZE,
        "512",
    ),
    aliased(
        "hash-max-listpack-value",
        "hash-max-ziplist-value",
        SIZE_MEMORY,
        "64",
    ),
    param(
        "hz",
        Kind::Signed {
            min: 0,
            max: INT_MAX,
        },
        "10",
    ),
    param(
        "list-compress-depth",
        Kind::Signed {
            min: 0,
            max: INT_MAX,
        },
        "0",
    ),
    aliased(
        "list-max-listpack-size",
        "list-max-ziplist-size",
        Kind::Signed {
            min: i32::MIN as i64,
            max: INT_MAX,
        },
        "-2",
    ),
    param(
        "maxmemory",
        Kind::Memory {
            min: 0,
            max: u64::MAX,
        },
        "0",
    ),
    param(
        "maxmemory-policy",
        Kind::Enum(&[
            "volatile-lru",
            "volatile-lfu",
            "volatile-random",
            "volatile-ttl",
            "allkeys-lru",
            "allkeys-lfu",
            "allkeys-random",
            "noeviction",
        ]),
        "noeviction",
    ),
    param(
        "maxmemory-samples",
        Kind::Signed {
            min: 1,
            max: INT_MAX,
        },
        "5",
    ),
    param(
        "lfu-decay-time",
        Kind::Signed {
            min: 0,
            max: INT_MAX,
        },
        "1",
    ),
    param(
        "lfu-log-factor",
        Kind::Signed {
            min: 0,
            max: INT_MAX,
        },
        "10",
    ),
    param(
        "proto-max-bulk-len",
        Kind::Memory {
            min: 1024 * 1024,
            max: LONG_MAX as u64,
        },
        "536870912",
    ),
    param("requirepass", Kind::Text, ""),
    param("set-max-intset-entries", SIZE, "512"),
    param(
        "timeout",
        Kind::Signed {
            min: 0,
            max: INT_MAX,
        },
        "0",
    ),
    aliased(
        "zset-max-listpack-entries",
        "zset-max-ziplist-entries",
        SIZE,
        "128",
    ),
    aliased(
        "zset-max-listpack-value",
        "zset-max-ziplist-value",
        SIZE_MEMORY,
        "64",
    ),
];

/// `hz` as Redis clamps it (`updateHZ`).
const HZ_MIN: i64 = 1;
const HZ_MAX: i64 = 500;

fn lookup(name: &[u8]) -> Option<&'static Param> {
    PARAMS.iter().find(|p| {
        name.eq_ignore_ascii_case(p.name.as_bytes())
            || p.alias
                .is_some_and(|a| name.eq_ignore_ascii_case(a.as_bytes()))
    })
}

/// The current value of a parameter, formatted as CONFIG GET prints it.
fn current(node: &Node, param: &Param) -> String {
    let config = &node.config;
    match param.name {
        "proto-max-bulk-len" => config.bulk_bytes_max.to_string(),
        "client-query-buffer-limit" => config.query_buffer_bytes_max.to_string(),
        "databases" => config.databases.to_string(),
        "hz" => config.expire_cycles_per_second.to_string(),
        "maxmemory" => config.maxmemory.bytes.to_string(),
        "maxmemory-policy" => config.maxmemory.policy.name().to_string(),
        "maxmemory-samples" => config.maxmemory.samples.to_string(),
        "lfu-log-factor" => config.maxmemory.lfu_log_factor.to_string(),
        "lfu-decay-time" => config.maxmemory.lfu_decay_time_min.to_string(),
        "requirepass" => config.password.clone().unwrap_or_default(),
        name => node
            .inert_params
            .values
            .get(name)
            .cloned()
            .unwrap_or_else(|| param.default.to_string()),
    }
}

pub fn config(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let sub = &args[1];
    if is(sub, "get") {
        get(ctx, &args[2..])
    } else if is(sub, "set") {
        set(ctx, args)
    } else if is(sub, "resetstat") {
        // Redis's `resetServerStats`: the counters INFO reports, not the restart count.
        let stats = &mut ctx.node.stats;
        stats.commands_processed = 0;
        stats.connections_received = 0;
        stats.expired_keys = 0;
        stats.evicted_keys = 0;
        stats.error_replies.clear();
        Ok(Reply::ok())
    } else if is(sub, "rewrite") {
        // No configuration file to rewrite.
        Ok(Reply::ok())
    } else {
        // The command table admits no other subcommand.
        assert!(is(sub, "help"));
        Ok(help())
    }
}

/// CONFIG GET pattern...: name/value pairs (a map in RESP3), each parameter once, in
/// name order (Redis's is its hash table's).
fn get(ctx: &mut Ctx, patterns: &[Bytes]) -> CmdResult {
    let mut matched: Vec<(Bytes, &'static Param)> = Vec::new();
    for pattern in patterns {
        if !pattern.iter().any(|b| b"[*?".contains(b)) {
            // An exact name is answered under the name asked.
            if let Some(p) = lookup(pattern) {
                if !matched.iter().any(|(_, q)| std::ptr::eq(*q, p)) {
                    matched.push((pattern.clone(), p));
                }
            }
            continue;
        }
        for p in PARAMS {
            let names = std::iter::once(p.name).chain(p.alias);
            for name in names {
                let taken = matched
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case(name.as_bytes()));
                if !taken && glob::matches(&pattern.to_ascii_lowercase(), name.as_bytes()) {
                    matched.push((Bytes::from_static(name.as_bytes()), p));
                }
            }
        }
    }
    matched.sort_by(|a, b| a.0.cmp(&b.0));
    let pairs = matched
        .into_iter()
        .map(|(name, p)| {
            (
                Reply::Bulk(name),
                Reply::Bulk(Bytes::from(current(ctx.node, p))),
            )
        })
        .collect();
    Ok(Reply::Map(pairs))
}

/// CONFIG SET name value [name value ...]: all or none, Redis's first error.
fn set(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if args.len() % 2 == 1 {
        return Err(syntax_error());
    }
    let pairs: Vec<(&Bytes, &Bytes)> = args[2..].chunks(2).map(|p| (&p[0], &p[1])).collect();
    let mut params: Vec<&'static Param> = Vec::with_capacity(pairs.len());
    let mut refusal: Option<(&Bytes, &str)> = None;
    for (name, _) in &pairs {
        let Some(p) = lookup(name) else {
            let name = String::from_utf8_lossy(name);
            return Err(Reply::error(format!(
                "ERR Unknown option or number of arguments for CONFIG SET - '{name}'"
            )));
        };
        if refusal.is_none() && p.immutable {
            refusal = Some((name, "can't set immutable config"));
        } else if refusal.is_none() && params.iter().any(|q| std::ptr::eq(*q, p)) {
            refusal = Some((name, "duplicate parameter"));
        }
        params.push(p);
    }
    if let Some((name, why)) = refusal {
        return Err(set_failed(&String::from_utf8_lossy(name), why));
    }
    let mut values = Vec::with_capacity(pairs.len());
    for (p, (_, value)) in params.iter().zip(&pairs) {
        values.push(parse(p, value).map_err(|why| set_failed(p.name, &why))?);
    }
    for (p, value) in params.into_iter().zip(values) {
        apply(ctx, p, value);
    }
    Ok(Reply::ok())
}

fn set_failed(name: &str, why: &str) -> Reply {
    Reply::error(format!(
        "ERR CONFIG SET failed (possibly related to argument '{name}') - {why}"
    ))
}

/// The value CONFIG GET will answer, or Redis's reason for refusing it.
fn parse(param: &Param, value: &[u8]) -> Result<String, String> {
    let text = String::from_utf8_lossy(value);
    match param.kind {
        Kind::Text => Ok(text.into_owned()),
        Kind::Bool if is(value, "yes") => Ok("yes".into()),
        Kind::Bool if is(value, "no") => Ok("no".into()),
        Kind::Bool => Err("argument must be 'yes' or 'no'".into()),
        Kind::Enum(names) => names
            .iter()
            .find(|n| is(value, n))
            .map(|n| n.to_string())
            .ok_or_else(|| {
                format!(
                    "argument(s) must be one of the following: {}",
                    names.join(", ")
                )
            }),
        Kind::Signed { min, max } => {
            let v = parse_strict_i64(value).ok_or("argument couldn't be parsed into an integer")?;
            if !(min..=max).contains(&v) {
                return Err(format!(
                    "argument must be between {min} and {max} inclusive"
                ));
            }
            Ok(v.to_string())
        }
        Kind::Unsigned { min, max } => {
            let v = parse_strict_i64(value).ok_or("argument couldn't be parsed into an integer")?;
            unsigned_in(v as u64, min, max)
        }
        Kind::Memory { min, max } => {
            let v = memory_bytes(value).ok_or("argument must be a memory value")?;
            unsigned_in(v, min, max)
        }
    }
}

fn unsigned_in(v: u64, min: u64, max: u64) -> Result<String, String> {
    if !(min..=max).contains(&v) {
        return Err(format!(
            "argument must be between {min} and {max} inclusive"
        ));
    }
    Ok(v.to_string())
}

/// Redis's `memtoull`: digits and an optional unit (b, k, kb, m, mb, g, gb; any case).
fn memory_bytes(value: &[u8]) -> Option<u64> {
    let digits_end = value
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(value.len());
    let (digits, unit) = value.split_at(digits_end);
    let unit = String::from_utf8_lossy(unit).to_ascii_lowercase();
    let scale: u64 = match unit.as_str() {
        "" | "b" => 1,
        "k" => 1_000,
        "kb" => 1_024,
        "m" => 1_000_000,
        "mb" => 1_024 * 1_024,
        "g" => 1_000_000_000,
        "gb" => 1_024 * 1_024 * 1_024,
        _ => return None,
    };
    let number: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    number.checked_mul(scale)
}

/// Make a parsed value current.
fn apply(ctx: &mut Ctx, param: &'static Param, value: String) {
    let node = &mut *ctx.node;
    let number = || value.parse::<u64>().expect("parsed above");
    match param.name {
        "proto-max-bulk-len" => node.config.bulk_bytes_max = number(),
        "client-query-buffer-limit" => node.config.query_buffer_bytes_max = number() as usize,
        "hz" => {
            let hz = (number() as i64).clamp(HZ_MIN, HZ_MAX);
            node.config.expire_cycles_per_second = hz as u32;
        }
        "requirepass" => node.config.password = (!value.is_empty()).then_some(value),
        "maxmemory" | "maxmemory-policy" | "maxmemory-samples" | "lfu-log-factor"
        | "lfu-decay-time" => {
            let limits = &mut node.config.maxmemory;
            let int = || u32::try_from(number()).expect("bounded by INT_MAX");
            match param.name {
                "maxmemory" => limits.bytes = number(),
                "maxmemory-policy" => {
                    limits.policy = EvictionPolicy::from_name(&value).expect("parsed above");
                }
                "maxmemory-samples" => limits.samples = int(),
                "lfu-log-factor" => limits.lfu_log_factor = int(),
                _ => limits.lfu_decay_time_min = int(),
            }
            node.apply_maxmemory();
        }
        "appendonly" | "appendfsync" => {
            node.inert_params.values.insert(param.name, value);
            node.reconfigure_persistence(ctx.now_ms);
        }
        name => {
            node.inert_params.values.insert(name, value);
        }
    }
}

fn help() -> Reply {
    let lines = [
        "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
        "HELP",
        "    Prints this help.",
    ];
    Reply::Array(lines.into_iter().map(Reply::status).collect())
}
