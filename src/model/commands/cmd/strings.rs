//! String commands: GET, SET (all options), SETNX, SETEX, PSETEX, GETSET, MGET, MSET,
//! MSETNX, the INCR family and INCRBYFLOAT, APPEND, STRLEN, GETDEL, GETEX, GETRANGE (SUBSTR), SETRANGE.

use crate::model::data::keyspace::Db;
use crate::model::data::number::parse_strict_i64;
use crate::model::data::value::Value;
use crate::model::protocol::args::{
    arity_error, int, int_bytes, is, syntax_error, wrong_type, CmdResult, NOT_INTEGER, OVERFLOW,
};
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::Ctx;
use bytes::{Bytes, BytesMut};

/// The string at `key`: `Ok(None)` if missing, `Err(WRONGTYPE)` if another type.
fn read_string(db: &mut Db, key: &[u8], now_ms: u64) -> Result<Option<Bytes>, Reply> {
    match db.get(key, now_ms) {
        None => Ok(None),
        Some(entry) => match &entry.value {
            Value::Str(data) => Ok(Some(data.clone())),
            _ => Err(wrong_type()),
        },
    }
}

pub fn get(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    read_string(ctx.db(), &args[1], now_ms).map(Reply::bulk_or_nil)
}

/// A requested expiry, before conversion to an absolute time.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ExpiryOption {
    None,
    Seconds,
    Millis,
    UnixSeconds,
    UnixMillis,
    KeepTtl,
    Persist,
}

/// Options of SET and GETEX, parsed Redis's way (`parseExtendedStringArgumentsOrReply`).
struct StringOptions {
    nx: bool,
    xx: bool,
    get: bool,
    expiry: ExpiryOption,
    expiry_arg: Option<Bytes>,
}

fn string_options(args: &[Bytes], is_set: bool) -> Result<StringOptions, Reply> {
    let mut o = StringOptions {
        nx: false,
        xx: false,
        get: false,
        expiry: ExpiryOption::None,
        expiry_arg: None,
    };
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let next = args.get(i + 1);
        // Repeating an expiry option is allowed (the last wins); mixing two is not.
        let allows = |kind| o.expiry == ExpiryOption::None || o.expiry == kind;
        if is_set && is(arg, "nx") && !o.xx {
            o.nx = true;
        } else if is_set && is(arg, "xx") && !o.nx {
            o.xx = true;
        } else if is_set && is(arg, "get") {
            o.get = true;
        } else if is_set && is(arg, "keepttl") && allows(ExpiryOption::KeepTtl) {
            o.expiry = ExpiryOption::KeepTtl;
        } else if !is_set && is(arg, "persist") && allows(ExpiryOption::Persist) {
            o.expiry = ExpiryOption::Persist;
        } else if let (Some(kind), Some(value)) = (timed_option(arg).filter(|&k| allows(k)), next) {
            o.expiry = kind;
            o.expiry_arg = Some(value.clone());
            i += 1;
        } else {
            return Err(syntax_error());
        }
        i += 1;
    }
    Ok(o)
}

fn timed_option(arg: &[u8]) -> Option<ExpiryOption> {
    [
        ("ex", ExpiryOption::Seconds),
        ("px", ExpiryOption::Millis),
        ("exat", ExpiryOption::UnixSeconds),
        ("pxat", ExpiryOption::UnixMillis),
    ]
    .into_iter()
    .find(|(name, _)| is(arg, name))
    .map(|(_, kind)| kind)
}

/// The absolute expiry in unix ms of a timed option, with Redis's validation.
fn absolute_expiry_ms(o: &StringOptions, now_ms: u64, command: &str) -> Result<Option<u64>, Reply> {
    let Some(arg) = &o.expiry_arg else {
        return Ok(None);
    };
    let amount = int(arg)?;
    let invalid = || Reply::error(format!("ERR invalid expire time in '{command}' command"));
    let seconds = matches!(o.expiry, ExpiryOption::Seconds | ExpiryOption::UnixSeconds);
    if amount <= 0 || (seconds && amount > i64::MAX / 1000) {
        return Err(invalid());
    }
    let mut at_ms = if seconds { amount * 1000 } else { amount };
    if matches!(o.expiry, ExpiryOption::Seconds | ExpiryOption::Millis) {
        at_ms = at_ms.checked_add(now_ms as i64).ok_or_else(invalid)?;
    }
    Ok(Some(at_ms as u64))
}

pub fn set(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let options = string_options(&args[3..], true)?;
    let now_ms = ctx.now_ms;
    let expire_at_ms = absolute_expiry_ms(&options, now_ms, "set")?;
    let (key, value) = (&args[1], &args[2]);
    let db = ctx.db();
    let old = if options.get {
        read_string(db, key, now_ms)?
    } else {
        None
    };
    let found = db.contains(key, now_ms);
    if (options.nx && found) || (options.xx && !found) {
        return Ok(if options.get {
            Reply::bulk_or_nil(old)
        } else {
            Reply::Nil
        });
    }
    let value = Value::Str(value.clone());
    if options.expiry == ExpiryOption::KeepTtl {
        db.set_keep_ttl(key.clone(), value, now_ms);
    } else {
        db.set(key.clone(), value, expire_at_ms);
    }
    // An absolute time in the past leaves the key logically expired, as Redis 7.0 does.
    Ok(if options.get {
        Reply::bulk_or_nil(old)
    } else {
        Reply::ok()
    })
}

pub fn setnx(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    if db.contains(&args[1], now_ms) {
        return Ok(Reply::Integer(0));
    }
    db.set(args[1].clone(), Value::Str(args[2].clone()), None);
    Ok(Reply::Integer(1))
}

pub fn mget(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let values = args[1..]
        .iter()
        .map(|key| Reply::bulk_or_nil(read_string(db, key, now_ms).ok().flatten()))
        .collect();
    Ok(Reply::Array(values))
}

pub fn mset(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if args.len() % 2 == 0 {
        return Err(arity_error("mset"));
    }
    let db = ctx.db();
    for pair in args[1..].chunks(2) {
        db.set(pair[0].clone(), Value::Str(pair[1].clone()), None);
    }
    Ok(Reply::ok())
}

/// INCRBY and friends: the stored value must be a canonical integer; TTL is kept.
fn incr_by(ctx: &mut Ctx, key: &Bytes, delta: i64) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let current = match read_string(db, key, now_ms)? {
        None => 0,
        Some(data) => parse_strict_i64(&data).ok_or_else(|| Reply::error(NOT_INTEGER))?,
    };
    let next = current
        .checked_add(delta)
        .ok_or_else(|| Reply::error(OVERFLOW))?;
    db.set_keep_ttl(key.clone(), Value::Str(int_bytes(next)), now_ms);
    Ok(Reply::Integer(next))
}

pub fn incr(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    incr_by(ctx, &args[1], 1)
}

pub fn decr(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    incr_by(ctx, &args[1], -1)
}

pub fn incrby(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let delta = int(&args[2])?;
    incr_by(ctx, &args[1], delta)
}

pub fn decrby(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let delta = int(&args[2])?;
    if delta == i64::MIN {
        return Err(Reply::error("ERR decrement would overflow"));
    }
    incr_by(ctx, &args[1], -delta)
}

pub fn append(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let bulk_bytes_max = ctx.node.config.bulk_bytes_max;
    let db = ctx.db();
    let mut data = BytesMut::from(&read_string(db, &args[1], now_ms)?.unwrap_or_default()[..]);
    if (data.len() + args[2].len()) as u64 > bulk_bytes_max {
        return Err(Reply::error(TOO_LONG));
    }
    data.extend_from_slice(&args[2]);
    let len = data.len();
    db.set_keep_ttl(args[1].clone(), Value::Str(data.freeze()), now_ms);
    Ok(Reply::Integer(len as i64))
}

pub fn strlen(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let len = read_string(ctx.db(), &args[1], now_ms)?.map_or(0, |data| data.len());
    Ok(Reply::Integer(len as i64))
}

pub fn getdel(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let value = read_string(db, &args[1], now_ms)?;
    if value.is_some() {
        db.remove(&args[1]);
    }
    Ok(Reply::bulk_or_nil(value))
}

pub fn getex(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let options = string_options(&args[2..], false)?;
    let now_ms = ctx.now_ms;
    // Redis 7.0 looks the key up before it validates the expiry.
    let Some(value) = read_string(ctx.db(), &args[1], now_ms)? else {
        return Ok(Reply::Nil);
    };
    let expire_at_ms = absolute_expiry_ms(&options, now_ms, "getex")?;
    let db = ctx.db();
    match (expire_at_ms, options.expiry) {
        (Some(at), _) if at <= now_ms => {
            db.remove(&args[1]);
        }
        (Some(at), _) => {
            db.set_expiry(&args[1], Some(at));
        }
        (None, ExpiryOption::Persist)
            if db
                .get(&args[1], now_ms)
                .is_some_and(|e| e.expire_at_ms.is_some()) =>
        {
            db.set_expiry(&args[1], None);
        }
        _ => {}
    }
    Ok(Reply::Bulk(value))
}

/// SETEX / PSETEX: SET with EX / PX, the expiry validated first.
fn set_with_expiry(ctx: &mut Ctx, args: &[Bytes], expiry: ExpiryOption, name: &str) -> CmdResult {
    let options = StringOptions {
        nx: false,
        xx: false,
        get: false,
        expiry,
        expiry_arg: Some(args[2].clone()),
    };
    let now_ms = ctx.now_ms;
    let expire_at_ms = absolute_expiry_ms(&options, now_ms, name)?;
    ctx.db()
        .set(args[1].clone(), Value::Str(args[3].clone()), expire_at_ms);
    Ok(Reply::ok())
}

pub fn setex(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    set_with_expiry(ctx, args, ExpiryOption::Seconds, "setex")
}

pub fn psetex(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    set_with_expiry(ctx, args, ExpiryOption::Millis, "psetex")
}

/// GETSET: the old value (or WRONGTYPE, then nothing is set), and the new one without TTL.
pub fn getset(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let old = read_string(db, &args[1], now_ms)?;
    db.set(args[1].clone(), Value::Str(args[2].clone()), None);
    Ok(Reply::bulk_or_nil(old))
}

/// MSETNX: all or nothing, only if none of the keys exists.
pub fn msetnx(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if args.len() % 2 == 0 {
        return Err(arity_error("msetnx"));
    }
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    // Every key is looked up (and lazily expired) until the first existing one.
    for pair in args[1..].chunks(2) {
        if db.contains(&pair[0], now_ms) {
            return Ok(Reply::Integer(0));
        }
    }
    for pair in args[1..].chunks(2) {
        db.set(pair[0].clone(), Value::Str(pair[1].clone()), None);
    }
    Ok(Reply::Integer(1))
}

/// GETRANGE / SUBSTR: Redis's clamping of `start` and `end` (inclusive, negative from the
/// end); the integers are parsed before the key is read.
pub fn getrange(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let start = int(&args[2])?;
    let end = int(&args[3])?;
    let now_ms = ctx.now_ms;
    let Some(data) = read_string(ctx.db(), &args[1], now_ms)? else {
        return Ok(Reply::bulk(Bytes::new()));
    };
    Ok(Reply::bulk(byte_range(&data, start, end)))
}

/// The bytes `start..=end` of `data` as GETRANGE selects them.
fn byte_range(data: &Bytes, start: i64, end: i64) -> Bytes {
    let len = data.len() as i64;
    if start < 0 && end < 0 && start > end {
        return Bytes::new();
    }
    let start = if start < 0 { len + start } else { start }.max(0);
    let end = if end < 0 { len + end } else { end }.max(0).min(len - 1);
    if start > end || len == 0 {
        return Bytes::new();
    }
    data.slice(start as usize..=end as usize)
}

const TOO_LONG: &str = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

/// SETRANGE: overwrite from `offset`, zero-padding a shorter string; the TTL stays.
pub fn setrange(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let offset = int(&args[2])?;
    if offset < 0 {
        return Err(Reply::error("ERR offset is out of range"));
    }
    let (key, patch) = (&args[1], &args[3]);
    let now_ms = ctx.now_ms;
    let bulk_bytes_max = ctx.node.config.bulk_bytes_max;
    let db = ctx.db();
    let old = read_string(db, key, now_ms)?;
    if patch.is_empty() {
        return Ok(Reply::Integer(old.map_or(0, |data| data.len() as i64)));
    }
    let total = offset.checked_add(patch.len() as i64);
    if total.is_none_or(|total| total as u64 > bulk_bytes_max) {
        return Err(Reply::error(TOO_LONG));
    }
    let offset = offset as usize;
    let mut data = BytesMut::from(&old.unwrap_or_default()[..]);
    if data.len() < offset + patch.len() {
        data.resize(offset + patch.len(), 0);
    }
    data[offset..offset + patch.len()].copy_from_slice(patch);
    let len = data.len();
    db.set_keep_ttl(key.clone(), Value::Str(data.freeze()), now_ms);
    Ok(Reply::Integer(len as i64))
}

/// INCRBYFLOAT: in x87 long double arithmetic, as Redis; the TTL stays; logged as the
/// SET of the result (KEEPTTL), as Redis propagates it.
pub fn incrbyfloat(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    use crate::model::data::long_double::{Invalid, LongDouble};
    let now_ms = ctx.now_ms;
    let key = &args[1];
    let current = read_string(ctx.db(), key, now_ms)?;
    // An infinite operand (`inf` is a valid float) makes the sum invalid, after both parse.
    let parse = |text: &[u8]| match LongDouble::parse(text) {
        Ok(value) => Ok(Some(value)),
        Err(Invalid::Infinite) => Ok(None),
        Err(Invalid::NotAFloat) => Err(Reply::error("ERR value is not a valid float")),
    };
    let value = match &current {
        None => Some(LongDouble::ZERO),
        Some(data) => parse(data)?,
    };
    let increment = parse(&args[2])?;
    let invalid = || Reply::error("ERR increment would produce NaN or Infinity");
    let (Some(value), Some(increment)) = (value, increment) else {
        return Err(invalid());
    };
    let sum = value.add(&increment).map_err(|_| invalid())?;
    let text = Bytes::from(sum.to_human());
    ctx.db()
        .set_keep_ttl(key.clone(), Value::Str(text.clone()), now_ms);
    let set = vec![
        Bytes::from_static(b"SET"),
        key.clone(),
        text.clone(),
        Bytes::from_static(b"KEEPTTL"),
    ];
    ctx.propagate(vec![set]);
    Ok(Reply::Bulk(text))
}
