//! Set commands: SADD, SREM, SMEMBERS, SISMEMBER, SCARD.

use crate::model::args::{wrong_type, CmdResult};
use crate::model::keyspace::Db;
use crate::model::node::Ctx;
use crate::model::reply::Reply;
use crate::model::value::Value;
use bytes::Bytes;
use std::collections::BTreeSet;

fn set_mut<'a>(
    db: &'a mut Db,
    key: &[u8],
    now_ms: u64,
) -> Result<Option<&'a mut BTreeSet<Bytes>>, Reply> {
    match db.get_mut(key, now_ms) {
        None => Ok(None),
        Some(entry) => match &mut entry.value {
            Value::Set(set) => Ok(Some(set)),
            _ => Err(wrong_type()),
        },
    }
}

pub fn sadd(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    if set_mut(db, &args[1], now_ms)?.is_none() {
        db.set(args[1].clone(), Value::Set(BTreeSet::new()), None);
    }
    let set = set_mut(db, &args[1], now_ms)?.expect("just created");
    let added = args[2..]
        .iter()
        .filter(|member| set.insert((*member).clone()))
        .count();
    db.touch(&args[1]);
    Ok(Reply::Integer(added as i64))
}

pub fn srem(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(set) = set_mut(db, &args[1], now_ms)? else {
        return Ok(Reply::Integer(0));
    };
    let removed = args[2..]
        .iter()
        .filter(|member| set.remove(*member))
        .count();
    if removed > 0 {
        db.touch(&args[1]);
        db.remove_if_empty(&args[1]);
    }
    Ok(Reply::Integer(removed as i64))
}

pub fn smembers(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let members = set_mut(ctx.db(), &args[1], now_ms)?.map(|set| Value::set_members_ordered(set));
    Ok(Reply::Set(
        members
            .unwrap_or_default()
            .into_iter()
            .map(Reply::Bulk)
            .collect(),
    ))
}

pub fn sismember(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let found = set_mut(ctx.db(), &args[1], now_ms)?.is_some_and(|set| set.contains(&args[2]));
    Ok(Reply::Integer(i64::from(found)))
}

pub fn scard(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let len = set_mut(ctx.db(), &args[1], now_ms)?.map_or(0, |set| set.len());
    Ok(Reply::Integer(len as i64))
}
