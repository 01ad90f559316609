//! Hash commands. Fields keep insertion order (Redis 7.0's listpack encoding for small
//! hashes); a hash that becomes empty is deleted; HSET keeps the key's TTL.

use crate::model::data::collections::Hash;
use crate::model::data::keyspace::Db;
use crate::model::data::number::parse_strict_i64;
use crate::model::data::value::Value;
use crate::model::protocol::args::{arity_error, int, int_bytes, wrong_type, CmdResult, OVERFLOW};
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::Ctx;
use bytes::Bytes;

pub(crate) fn hash_mut<'a>(
    db: &'a mut Db,
    key: &[u8],
    now_ms: u64,
) -> Result<Option<&'a mut Hash>, Reply> {
    match db.get_mut(key, now_ms) {
        None => Ok(None),
        Some(entry) => match &mut entry.value {
            Value::Hash(hash) => Ok(Some(hash)),
            _ => Err(wrong_type()),
        },
    }
}

/// The hash at `key`, created empty if missing.
fn hash_or_create<'a>(db: &'a mut Db, key: &Bytes, now_ms: u64) -> Result<&'a mut Hash, Reply> {
    if hash_mut(db, key, now_ms)?.is_none() {
        db.set(key.clone(), Value::Hash(Hash::default()), None);
    }
    db.touch(key);
    Ok(hash_mut(db, key, now_ms)?.expect("just created"))
}

/// Set field/value pairs; returns how many fields are new.
fn set_pairs(ctx: &mut Ctx, args: &[Bytes], name: &str) -> Result<usize, Reply> {
    if args.len() % 2 != 0 {
        return Err(arity_error(name));
    }
    let now_ms = ctx.now_ms;
    let hash = hash_or_create(ctx.db(), &args[1], now_ms)?;
    let created = args[2..]
        .chunks(2)
        .filter(|pair| hash.insert(pair[0].clone(), pair[1].clone()).is_none())
        .count();
    Ok(created)
}

pub fn hset(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    set_pairs(ctx, args, "hset").map(|created| Reply::Integer(created as i64))
}

pub fn hmset(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    set_pairs(ctx, args, "hmset").map(|_| Reply::ok())
}

pub fn hsetnx(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    if hash_mut(db, &args[1], now_ms)?.is_some_and(|hash| hash.contains_key(&args[2])) {
        return Ok(Reply::Integer(0));
    }
    hash_or_create(db, &args[1], now_ms)?.insert(args[2].clone(), args[3].clone());
    Ok(Reply::Integer(1))
}

pub fn hget(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let value = hash_mut(ctx.db(), &args[1], now_ms)?.and_then(|hash| hash.get(&args[2]).cloned());
    Ok(Reply::bulk_or_nil(value))
}

pub fn hmget(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let hash = hash_mut(ctx.db(), &args[1], now_ms)?;
    let values = args[2..]
        .iter()
        .map(|field| Reply::bulk_or_nil(hash.as_ref().and_then(|h| h.get(field).cloned())))
        .collect();
    Ok(Reply::Array(values))
}

pub fn hgetall(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let pairs = hash_mut(ctx.db(), &args[1], now_ms)?
        .map(|hash| {
            hash.iter()
                .map(|(f, v)| (Reply::Bulk(f.clone()), Reply::Bulk(v.clone())))
                .collect()
        })
        .unwrap_or_default();
    Ok(Reply::Map(pairs))
}

pub fn hdel(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(hash) = hash_mut(db, &args[1], now_ms)? else {
        return Ok(Reply::Integer(0));
    };
    let removed = args[2..]
        .iter()
        .filter(|field| hash.shift_remove(field).is_some())
        .count();
    if removed > 0 {
        db.touch(&args[1]);
        db.remove_if_empty(&args[1]);
    }
    Ok(Reply::Integer(removed as i64))
}

pub fn hlen(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let len = hash_mut(ctx.db(), &args[1], now_ms)?.map_or(0, |hash| hash.len());
    Ok(Reply::Integer(len as i64))
}

pub fn hexists(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let found =
        hash_mut(ctx.db(), &args[1], now_ms)?.is_some_and(|hash| hash.contains_key(&args[2]));
    Ok(Reply::Integer(i64::from(found)))
}

pub fn hincrby(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let delta = int(&args[3])?;
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let current = match hash_mut(db, &args[1], now_ms)?.and_then(|hash| hash.get(&args[2]).cloned())
    {
        None => 0,
        Some(value) => parse_strict_i64(&value)
            .ok_or_else(|| Reply::error("ERR hash value is not an integer"))?,
    };
    let next = current
        .checked_add(delta)
        .ok_or_else(|| Reply::error(OVERFLOW))?;
    hash_or_create(db, &args[1], now_ms)?.insert(args[2].clone(), int_bytes(next));
    Ok(Reply::Integer(next))
}

pub fn hkeys(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let keys =
        hash_mut(ctx.db(), &args[1], now_ms)?.map(|hash| hash.keys().cloned().collect::<Vec<_>>());
    Ok(Reply::bulks(keys.unwrap_or_default()))
}

pub fn hvals(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let values = hash_mut(ctx.db(), &args[1], now_ms)?
        .map(|hash| hash.values().cloned().collect::<Vec<_>>());
    Ok(Reply::bulks(values.unwrap_or_default()))
}

pub fn hstrlen(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let len = hash_mut(ctx.db(), &args[1], now_ms)?
        .and_then(|hash| hash.get(&args[2]).map(Bytes::len))
        .unwrap_or(0);
    Ok(Reply::Integer(len as i64))
}

/// HRANDFIELD key [count [WITHVALUES]]: fields drawn from the node's seeded stream.
pub fn hrandfield(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    use crate::model::commands::cmd::zsets::{random_count, random_pick};
    let count = random_count(args, "withvalues")?;
    let now_ms = ctx.now_ms;
    let protocol = ctx.client.protocol;
    let Some(hash) = hash_mut(ctx.db(), &args[1], now_ms)? else {
        return Ok(count.map_or(Reply::Nil, |_| Reply::Array(Vec::new())));
    };
    let all: Vec<(Bytes, Bytes)> = hash.iter().map(|(f, v)| (f.clone(), v.clone())).collect();
    let Some((count, with_values)) = count else {
        return Ok(Reply::Bulk(random_pick(ctx, &all, 1)[0].0.clone()));
    };
    crate::model::protocol::args::repeated_picks_bound(count)?;
    let picked = random_pick(ctx, &all, count);
    Ok(Reply::Array(match (with_values, protocol) {
        (false, _) => picked.into_iter().map(|(f, _)| Reply::Bulk(f)).collect(),
        (true, crate::model::protocol::reply::Protocol::Resp2) => picked
            .into_iter()
            .flat_map(|(f, v)| [Reply::Bulk(f), Reply::Bulk(v)])
            .collect(),
        (true, crate::model::protocol::reply::Protocol::Resp3) => picked
            .into_iter()
            .map(|(f, v)| Reply::Array(vec![Reply::Bulk(f), Reply::Bulk(v)]))
            .collect(),
    }))
}

/// HINCRBYFLOAT: long double arithmetic as INCRBYFLOAT; logged as the HSET of the result.
pub fn hincrbyfloat(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    use crate::model::data::long_double::LongDouble;
    let increment = match LongDouble::parse(&args[3]) {
        Ok(increment) => increment,
        Err(crate::model::data::long_double::Invalid::Infinite) => {
            return Err(Reply::error("ERR value is NaN or Infinity"))
        }
        Err(_) => return Err(Reply::error("ERR value is not a valid float")),
    };
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let (key, field) = (&args[1], &args[2]);
    let invalid = || Reply::error("ERR increment would produce NaN or Infinity");
    let current = match hash_or_create(db, key, now_ms)?.get(field) {
        None => LongDouble::ZERO,
        Some(value) => match LongDouble::parse(value) {
            Ok(value) => value,
            // A stored `inf` is a float; the sum is not.
            Err(crate::model::data::long_double::Invalid::Infinite) => return Err(invalid()),
            Err(_) => return Err(Reply::error("ERR hash value is not a float")),
        },
    };
    let sum = current.add(&increment).map_err(|_| invalid())?;
    let text = Bytes::from(sum.to_human());
    hash_or_create(db, key, now_ms)?.insert(field.clone(), text.clone());
    let hset = vec![
        Bytes::from_static(b"HSET"),
        key.clone(),
        field.clone(),
        text.clone(),
    ];
    ctx.propagate(vec![hset]);
    Ok(Reply::Bulk(text))
}
