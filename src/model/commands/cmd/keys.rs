//! Keyspace commands: DEL, EXISTS, TYPE, RENAME, KEYS, SCAN, the EXPIRE family, TTL,
//! PERSIST, DBSIZE, FLUSHDB, FLUSHALL, RANDOMKEY, TOUCH, OBJECT.

use crate::model::data::glob;
use crate::model::data::number::parse_strict_i64;
use crate::model::data::value::Value;
use crate::model::protocol::args::{int, is, syntax_error, CmdResult};
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::Ctx;
use bytes::Bytes;
use rand::Rng;

pub fn del(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let removed = args[1..]
        .iter()
        .filter(|key| {
            db.expire_if_needed(key, now_ms);
            db.remove(key).is_some()
        })
        .count();
    Ok(Reply::Integer(removed as i64))
}

pub fn exists(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let present = args[1..]
        .iter()
        .filter(|key| db.contains(key, now_ms))
        .count();
    Ok(Reply::Integer(present as i64))
}

pub fn type_(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let name = ctx
        .db()
        .get(&args[1], now_ms)
        .map_or("none", |e| e.value.type_name());
    Ok(Reply::status(name))
}

pub fn rename(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    if !db.contains(&args[1], now_ms) {
        return Err(Reply::error("ERR no such key"));
    }
    if args[1] == args[2] {
        return Ok(Reply::ok());
    }
    db.expire_if_needed(&args[2], now_ms);
    let entry = db.remove(&args[1]).expect("checked above");
    db.remove(&args[2]);
    db.set(args[2].clone(), entry.value, entry.expire_at_ms);
    Ok(Reply::ok())
}

/// RENAMENX: like RENAME, but only when the destination does not exist (answers 0 then,
/// and also when source and destination are the same key).
pub fn renamenx(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    if !db.contains(&args[1], now_ms) {
        return Err(Reply::error("ERR no such key"));
    }
    if args[1] == args[2] || db.contains(&args[2], now_ms) {
        return Ok(Reply::Integer(0));
    }
    let entry = db.remove(&args[1]).expect("checked above");
    db.set(args[2].clone(), entry.value, entry.expire_at_ms);
    Ok(Reply::Integer(1))
}

pub fn keys(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let matching: Vec<Bytes> = db
        .keys()
        .filter(|key| glob::matches(&args[1], key) && !db.is_logically_expired(key, now_ms))
        .cloned()
        .collect();
    Ok(Reply::bulks(matching))
}

/// SCAN options after the cursor.
struct ScanOptions {
    pattern: Option<Bytes>,
    count: usize,
    type_name: Option<String>,
}

fn scan_options(args: &[Bytes]) -> Result<ScanOptions, Reply> {
    let mut options = ScanOptions {
        pattern: None,
        count: 10,
        type_name: None,
    };
    let mut rest = args;
    while let Some((option, tail)) = rest.split_first() {
        let Some(value) = tail.first() else {
            return Err(syntax_error());
        };
        if is(option, "match") {
            options.pattern = Some(value.clone());
        } else if is(option, "count") {
            let count = int(value)?;
            if count < 1 {
                return Err(syntax_error());
            }
            options.count = count as usize;
        } else if is(option, "type") {
            options.type_name = Some(String::from_utf8_lossy(value).to_ascii_lowercase());
        } else {
            return Err(syntax_error());
        }
        rest = &tail[1..];
    }
    Ok(options)
}

/// SCAN walks keys in byte order; a cursor names the last key handed out, so every key
/// present for the whole iteration is returned, as Redis guarantees.
pub fn scan(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let cursor = parse_cursor(&args[1]).ok_or_else(|| Reply::error("ERR invalid cursor"))?;
    let options = scan_options(&args[2..])?;
    let db_index = ctx.client.db;
    let resume_after = match cursor {
        0 => None,
        cursor => match ctx.node.resume_scan_cursor(db_index, cursor) {
            Some(key) => Some(key),
            // A cursor this node never handed out (or forgot): the iteration is over.
            None => return Ok(scan_reply(0, Vec::new())),
        },
    };
    let now_ms = ctx.now_ms;
    let db = &ctx.node.dbs[db_index];
    let visited: Vec<(Bytes, bool)> = db
        .keys_after(resume_after.as_ref())
        .take(options.count)
        .map(|(key, entry)| {
            let type_ok = options
                .type_name
                .as_deref()
                .is_none_or(|t| t == entry.value.type_name());
            let pattern_ok = options
                .pattern
                .as_ref()
                .is_none_or(|p| glob::matches(p, key));
            let live = entry.expire_at_ms.is_none_or(|at| at > now_ms);
            (key.clone(), type_ok && pattern_ok && live)
        })
        .collect();
    let last = visited.last().map(|(key, _)| key.clone());
    let more = last
        .as_ref()
        .is_some_and(|key| db.keys_after(Some(key)).next().is_some());
    let found = visited
        .into_iter()
        .filter(|(_, keep)| *keep)
        .map(|(key, _)| key)
        .collect();
    let next = match (more, last) {
        (true, Some(last)) => ctx.node.open_scan_cursor(db_index, last),
        _ => 0,
    };
    Ok(scan_reply(next, found))
}

/// A cursor read like Redis's `parseScanCursorOrReply`: `strtoul` must consume it all, so
/// a sign is allowed (`-1` wraps around), the empty string is 0, blanks first are not.
pub(crate) fn parse_cursor(arg: &[u8]) -> Option<u64> {
    let (negative, digits) = match arg.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        Some((first, _)) if first.is_ascii_whitespace() => return None,
        _ => (false, arg),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return arg.is_empty().then_some(0);
    }
    let value: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some(if negative {
        value.wrapping_neg()
    } else {
        value
    })
}

pub(crate) fn scan_reply(cursor: u64, keys: Vec<Bytes>) -> Reply {
    Reply::Array(vec![
        Reply::bulk(Bytes::from(cursor.to_string())),
        Reply::bulks(keys),
    ])
}

/// EXPIRE's NX/XX/GT/LT conditions.
#[derive(Default)]
struct ExpireCondition {
    nx: bool,
    xx: bool,
    gt: bool,
    lt: bool,
}

fn expire_condition(args: &[Bytes]) -> Result<ExpireCondition, Reply> {
    let mut condition = ExpireCondition::default();
    for option in args {
        if is(option, "nx") {
            condition.nx = true;
        } else if is(option, "xx") {
            condition.xx = true;
        } else if is(option, "gt") {
            condition.gt = true;
        } else if is(option, "lt") {
            condition.lt = true;
        } else {
            // Redis formats it with `%s`: the option ends at its first NUL byte.
            let end = option.iter().position(|&b| b == 0).unwrap_or(option.len());
            let option = String::from_utf8_lossy(&option[..end]);
            return Err(Reply::error(format!("ERR Unsupported option {option}")));
        }
    }
    if condition.nx && (condition.xx || condition.gt || condition.lt) {
        return Err(Reply::error(
            "ERR NX and XX, GT or LT options at the same time are not compatible",
        ));
    }
    if condition.gt && condition.lt {
        return Err(Reply::error(
            "ERR GT and LT options at the same time are not compatible",
        ));
    }
    Ok(condition)
}

impl ExpireCondition {
    /// True if the new deadline may replace `current` (`None`: no TTL, i.e. infinite).
    fn allows(&self, when_ms: i64, current: Option<i64>) -> bool {
        match current {
            None => !self.xx && !self.gt,
            Some(current) => {
                let refused_gt = self.gt && when_ms <= current;
                let refused_lt = self.lt && when_ms >= current;
                !self.nx && !refused_gt && !refused_lt
            }
        }
    }
}

/// The EXPIRE family: `unit_ms` converts the argument, `relative` adds the current time.
fn expire_generic(
    ctx: &mut Ctx,
    args: &[Bytes],
    name: &str,
    unit_ms: i64,
    relative: bool,
) -> CmdResult {
    let condition = expire_condition(&args[3..])?;
    let amount = int(&args[2])?;
    let invalid = || Reply::error(format!("ERR invalid expire time in '{name}' command"));
    let mut when_ms = amount.checked_mul(unit_ms).ok_or_else(invalid)?;
    if relative {
        when_ms = when_ms.checked_add(ctx.now_ms as i64).ok_or_else(invalid)?;
    }
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(entry) = db.get(&args[1], now_ms) else {
        return Ok(Reply::Integer(0));
    };
    let current = entry.expire_at_ms.map(|at| at as i64);
    if !condition.allows(when_ms, current) {
        return Ok(Reply::Integer(0));
    }
    if when_ms <= now_ms as i64 {
        db.remove(&args[1]);
    } else {
        db.set_expiry(&args[1], Some(when_ms as u64));
    }
    Ok(Reply::Integer(1))
}

pub fn expire(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    expire_generic(ctx, args, "expire", 1000, true)
}

pub fn pexpire(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    expire_generic(ctx, args, "pexpire", 1, true)
}

pub fn expireat(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    expire_generic(ctx, args, "expireat", 1000, false)
}

pub fn pexpireat(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    expire_generic(ctx, args, "pexpireat", 1, false)
}

/// The remaining TTL of a key: -2 missing, -1 no TTL.
fn remaining_ms(ctx: &mut Ctx, key: &[u8]) -> Result<i64, i64> {
    let now_ms = ctx.now_ms;
    match ctx.db().get(key, now_ms) {
        None => Err(-2),
        Some(entry) => match entry.expire_at_ms {
            None => Err(-1),
            Some(at) => Ok((at as i64 - now_ms as i64).max(0)),
        },
    }
}

pub fn ttl(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let seconds = remaining_ms(ctx, &args[1]).map_or_else(|code| code, |ms| (ms + 500) / 1000);
    Ok(Reply::Integer(seconds))
}

pub fn pttl(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    Ok(Reply::Integer(
        remaining_ms(ctx, &args[1]).unwrap_or_else(|code| code),
    ))
}

fn expire_time(ctx: &mut Ctx, key: &[u8], unit_ms: i64) -> CmdResult {
    let now_ms = ctx.now_ms;
    let value = match ctx.db().get(key, now_ms) {
        None => -2,
        Some(entry) => entry.expire_at_ms.map_or(-1, |at| at as i64 / unit_ms),
    };
    Ok(Reply::Integer(value))
}

pub fn expiretime(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    expire_time(ctx, &args[1], 1000)
}

pub fn pexpiretime(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    expire_time(ctx, &args[1], 1)
}

pub fn persist(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let had_ttl = db
        .get(&args[1], now_ms)
        .is_some_and(|e| e.expire_at_ms.is_some());
    if had_ttl {
        db.set_expiry(&args[1], None);
    }
    Ok(Reply::Integer(i64::from(had_ttl)))
}

pub fn dbsize(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    Ok(Reply::Integer(ctx.db().len() as i64))
}

/// FLUSHDB / FLUSHALL take an optional ASYNC or SYNC.
fn flush_mode_ok(args: &[Bytes]) -> Result<(), Reply> {
    match args {
        [_] => Ok(()),
        [_, mode] if is(mode, "async") || is(mode, "sync") => Ok(()),
        _ => Err(syntax_error()),
    }
}

pub fn flushdb(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    flush_mode_ok(args)?;
    ctx.db().clear();
    Ok(Reply::ok())
}

pub fn flushall(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    flush_mode_ok(args)?;
    ctx.node.dbs.iter_mut().for_each(|db| db.clear());
    Ok(Reply::ok())
}

/// RANDOMKEY: a key drawn from the node's seeded stream; a drawn key whose TTL passed is
/// deleted and another drawn, as Redis does.
pub fn randomkey(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let index = ctx.client.db;
    loop {
        let db = &ctx.node.dbs[index];
        if db.is_empty() {
            return Ok(Reply::Nil);
        }
        let at = ctx.node.rng.random_range(0..db.len());
        let key = db.keys().nth(at).expect("in range").clone();
        if !ctx.node.dbs[index].expire_if_needed(&key, now_ms) {
            return Ok(Reply::Bulk(key));
        }
    }
}

/// TOUCH: how many of the keys exist (each counts as an access).
pub fn touch(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    exists(ctx, args)
}

/// Redis's `OBJ_SHARED_REFCOUNT`: the refcount of a shared integer.
const SHARED_REFCOUNT: i64 = i32::MAX as i64;
/// Integers `0..SHARED_INTEGERS` are shared objects in Redis.
const SHARED_INTEGERS: i64 = 10_000;

/// OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT|HELP.
pub fn object(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if is(&args[1], "help") {
        return Ok(Reply::Array(
            OBJECT_HELP.iter().map(|l| Reply::status(l)).collect(),
        ));
    }
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    db.expire_if_needed(&args[2], now_ms);
    let Some(entry) = db.peek(&args[2]) else {
        return Ok(Reply::Nil);
    };
    let sub = &args[1];
    if is(sub, "encoding") {
        Ok(Reply::bulk(Bytes::from_static(
            encoding(&entry.value).as_bytes(),
        )))
    } else if is(sub, "refcount") {
        let shared = matches!(&entry.value, Value::Str(data)
            if parse_strict_i64(data).is_some_and(|i| (0..SHARED_INTEGERS).contains(&i)));
        Ok(Reply::Integer(if shared { SHARED_REFCOUNT } else { 1 }))
    } else if is(sub, "idletime") && db.lfu_params().is_some() {
        Err(Reply::error(
            "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that \
             when switching between policies at runtime LRU and LFU data will take some time \
             to adjust.",
        ))
    } else if is(sub, "idletime") {
        // Redis stamps accesses with a clock of whole seconds (`LRU_CLOCK`).
        let idle_s = (now_ms / 1000).saturating_sub(entry.accessed_ms / 1000);
        Ok(Reply::Integer(idle_s as i64))
    } else if let Some(params) = db.lfu_params() {
        // FREQ: the counter decayed to now (Redis's `LFUDecrAndReturn`), not touched.
        Ok(Reply::Integer(i64::from(entry.lfu.decayed(now_ms, params))))
    } else {
        Err(Reply::error(
            "ERR An LFU maxmemory policy is not selected, access frequency not tracked. \
             Please note that when switching between policies at runtime LRU and LFU data \
             will take some time to adjust.",
        ))
    }
}

const OBJECT_HELP: &[&str] = &[
    "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ENCODING <key>",
    "    Return the kind of internal representation used in order to store the value",
    "    associated with a <key>.",
    "FREQ <key>",
    "    Return the access frequency index of the <key>. The returned integer is",
    "    proportional to the logarithm of the recent access frequency of the key.",
    "IDLETIME <key>",
    "    Return the idle time of the <key>, that is the approximated number of",
    "    seconds elapsed since the last access to the key.",
    "REFCOUNT <key>",
    "    Return the number of references of the value associated with the specified",
    "    <key>.",
    "HELP",
    "    Prints this help.",
];

/// The encoding Redis 7.0 would report for a value of this content with default
/// thresholds. Redis never converts back (a set that once held a string stays
/// `hashtable`) and APPEND/SETRANGE leave `raw` strings: the model reports what the
/// content alone decides.
fn encoding(value: &Value) -> &'static str {
    match value {
        Value::Str(data) if data.len() <= 20 && parse_strict_i64(data).is_some() => "int",
        Value::Str(data) if data.len() <= 44 => "embstr",
        Value::Str(_) => "raw",
        Value::List(_) => "quicklist",
        Value::Hash(hash)
            if hash.len() <= 512 && hash.iter().all(|(f, v)| f.len() <= 64 && v.len() <= 64) =>
        {
            "listpack"
        }
        Value::Hash(_) => "hashtable",
        Value::Set(set)
            if set.len() <= 512 && set.iter().all(|m| parse_strict_i64(m).is_some()) =>
        {
            "intset"
        }
        Value::Set(_) => "hashtable",
        Value::ZSet(zset) if zset.len() <= 128 && zset.iter().all(|(m, _)| m.len() <= 64) => {
            "listpack"
        }
        Value::ZSet(_) => "skiplist",
    }
}
