//! Set commands: SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SMOVE, SPOP and
//! SRANDMEMBER (drawn from the node's seeded stream), SINTER/SUNION/SDIFF with their
//! STORE forms, SINTERCARD.

use crate::model::data::collections::Set;
use crate::model::data::keyspace::Db;
use crate::model::data::value::Value;
use crate::model::protocol::args::{
    int, is, repeated_picks_bound, syntax_error, wrong_type, CmdResult,
};
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::Ctx;
use bytes::Bytes;
use rand::Rng;
use std::collections::BTreeSet;

fn set_mut<'a>(db: &'a mut Db, key: &[u8], now_ms: u64) -> Result<Option<&'a mut Set>, Reply> {
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
        db.set(args[1].clone(), Value::Set(Set::default()), None);
    }
    let set = set_mut(db, &args[1], now_ms)?.expect("just created");
    let added = args[2..]
        .iter()
        .filter(|member| set.insert((*member).clone()))
        .count();
    // Redis signals the change (breaking WATCHes) only when a member was added.
    if added > 0 {
        db.touch(&args[1]);
    }
    Ok(Reply::Integer(added as i64))
}

pub fn srem(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(set) = set_mut(db, &args[1], now_ms)? else {
        return Ok(Reply::Integer(0));
    };
    let removed = args[2..].iter().filter(|member| set.remove(member)).count();
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

pub fn smismember(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let set = set_mut(ctx.db(), &args[1], now_ms)?;
    let found = args[2..]
        .iter()
        .map(|m| Reply::Integer(i64::from(set.as_ref().is_some_and(|s| s.contains(m)))))
        .collect();
    Ok(Reply::Array(found))
}

/// SMOVE source destination member.
pub fn smove(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let (source, destination, member) = (&args[1], &args[2], &args[3]);
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let source_kind = db
        .get(source, now_ms)
        .map(|e| matches!(e.value, Value::Set(_)));
    let destination_kind = db
        .get(destination, now_ms)
        .map(|e| matches!(e.value, Value::Set(_)));
    let Some(source_is_set) = source_kind else {
        return Ok(Reply::Integer(0));
    };
    if !source_is_set || destination_kind == Some(false) {
        return Err(wrong_type());
    }
    if source == destination {
        let found = set_mut(db, source, now_ms)?.is_some_and(|s| s.contains(member));
        return Ok(Reply::Integer(i64::from(found)));
    }
    let set = set_mut(db, source, now_ms)?.expect("checked above");
    if !set.remove(member) {
        return Ok(Reply::Integer(0));
    }
    db.touch(source);
    db.remove_if_empty(source);
    if destination_kind.is_none() {
        db.set(destination.clone(), Value::Set(Set::default()), None);
    }
    let target = set_mut(db, destination, now_ms)?.expect("ensured above");
    if target.insert(member.clone()) {
        db.touch(destination);
    }
    Ok(Reply::Integer(1))
}

fn distinct_positions(ctx: &mut Ctx, len: usize, count: usize) -> Vec<usize> {
    crate::model::protocol::args::distinct_positions(&mut ctx.node.rng, len, count)
}

/// SPOP key [count]: random members removed; logged as the SREM (or DEL) of what went.
pub fn spop(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if args.len() > 3 {
        return Err(syntax_error());
    }
    let count = crate::model::protocol::args::optional_count(args.get(2))?;
    let now_ms = ctx.now_ms;
    let key = args[1].clone();
    let Some(set) = set_mut(ctx.db(), &key, now_ms)? else {
        return Ok(count.map_or(Reply::Nil, |_| Reply::Set(Vec::new())));
    };
    let members: Vec<Bytes> = set.iter().cloned().collect();
    let wanted = count.unwrap_or(1);
    if wanted == 0 {
        return Ok(Reply::Set(Vec::new()));
    }
    if count.is_some() && wanted >= members.len() {
        // Redis replies the whole set as SUNION would (an intset's members sorted) and
        // deletes the key, logged as a DEL.
        let all = Value::set_members_ordered(set);
        ctx.db().remove(&key);
        ctx.propagate(vec![vec![Bytes::from_static(b"DEL"), key]]);
        return Ok(Reply::Set(all.into_iter().map(Reply::Bulk).collect()));
    }
    let taken: Vec<Bytes> = distinct_positions(ctx, members.len(), wanted)
        .into_iter()
        .map(|at| members[at].clone())
        .collect();
    let db = ctx.db();
    let set = set_mut(db, &key, now_ms)?.expect("checked above");
    for member in &taken {
        set.remove(member);
    }
    db.touch(&key);
    db.remove_if_empty(&key);
    let mut srem = vec![Bytes::from_static(b"SREM"), key];
    srem.extend(taken.iter().cloned());
    ctx.propagate(vec![srem]);
    Ok(match count {
        None => Reply::Bulk(taken.into_iter().next().expect("a set is never empty")),
        Some(_) => Reply::Set(taken.into_iter().map(Reply::Bulk).collect()),
    })
}

/// SRANDMEMBER key [count]: a negative count may repeat members.
pub fn srandmember(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if args.len() > 3 {
        return Err(syntax_error());
    }
    let count = match args.get(2) {
        Some(arg) => Some(match int(arg)? {
            i64::MIN => {
                return Err(Reply::error(
                    "ERR value is out of range, value must between -9223372036854775807 and \
                     9223372036854775807",
                ))
            }
            n => n,
        }),
        None => None,
    };
    let now_ms = ctx.now_ms;
    let Some(set) = set_mut(ctx.db(), &args[1], now_ms)? else {
        return Ok(count.map_or(Reply::Nil, |_| Reply::Array(Vec::new())));
    };
    repeated_picks_bound(count.unwrap_or(0))?;
    let members: Vec<Bytes> = set.iter().cloned().collect();
    let len = members.len();
    let chosen: Vec<Bytes> = match count {
        None | Some(0) => distinct_positions(ctx, len, usize::from(count.is_none()))
            .into_iter()
            .map(|at| members[at].clone())
            .collect(),
        Some(n) if n < 0 => (0..n.unsigned_abs())
            .map(|_| members[ctx.node.rng.random_range(0..len)].clone())
            .collect(),
        // The whole set in its iteration order (an intset's is sorted).
        Some(n) if n as u64 >= len as u64 => Value::set_members_ordered(set),
        Some(n) => distinct_positions(ctx, len, n as usize)
            .into_iter()
            .map(|at| members[at].clone())
            .collect(),
    };
    Ok(match count {
        None => Reply::Bulk(chosen.into_iter().next().expect("a set is never empty")),
        Some(_) => Reply::bulks(chosen),
    })
}

/// The sets at `keys` (`None` for a missing key), or WRONGTYPE for any other type.
fn sets_of(ctx: &mut Ctx, keys: &[Bytes]) -> Result<Vec<Option<BTreeSet<Bytes>>>, Reply> {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    keys.iter()
        .map(|key| Ok(set_mut(db, key, now_ms)?.map(|s| BTreeSet::clone(s))))
        .collect()
}

/// Which set algebra.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Algebra {
    Inter,
    Union,
    Diff,
}

fn combine(sets: Vec<Option<BTreeSet<Bytes>>>, algebra: Algebra) -> BTreeSet<Bytes> {
    let mut sets = sets.into_iter();
    let first = sets.next().flatten();
    match algebra {
        Algebra::Inter => {
            let mut result = first.unwrap_or_default();
            for set in sets {
                let set = set.unwrap_or_default();
                result.retain(|m| set.contains(m));
            }
            result
        }
        Algebra::Union => {
            let mut result = first.unwrap_or_default();
            sets.flatten().for_each(|set| result.extend(set));
            result
        }
        Algebra::Diff => {
            let mut result = first.unwrap_or_default();
            for set in sets.flatten() {
                result.retain(|m| !set.contains(m));
            }
            result
        }
    }
}

fn algebra_reply(ctx: &mut Ctx, keys: &[Bytes], algebra: Algebra) -> CmdResult {
    let result = combine(sets_of(ctx, keys)?, algebra);
    let ordered = Value::set_members_ordered(&result);
    Ok(Reply::Set(ordered.into_iter().map(Reply::Bulk).collect()))
}

/// The STORE forms: the destination is replaced (without TTL) or deleted when empty.
fn algebra_store(ctx: &mut Ctx, args: &[Bytes], algebra: Algebra) -> CmdResult {
    let result = combine(sets_of(ctx, &args[2..])?, algebra);
    let len = result.len();
    let db = ctx.db();
    if result.is_empty() {
        db.remove(&args[1]);
    } else {
        db.set(args[1].clone(), Value::Set(result.into()), None);
    }
    Ok(Reply::Integer(len as i64))
}

pub fn sinter(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    algebra_reply(ctx, &args[1..], Algebra::Inter)
}

pub fn sunion(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    algebra_reply(ctx, &args[1..], Algebra::Union)
}

pub fn sdiff(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    algebra_reply(ctx, &args[1..], Algebra::Diff)
}

pub fn sinterstore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    algebra_store(ctx, args, Algebra::Inter)
}

pub fn sunionstore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    algebra_store(ctx, args, Algebra::Union)
}

pub fn sdiffstore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    algebra_store(ctx, args, Algebra::Diff)
}

/// `numkeys key...` then options, as SINTERCARD, ZINTERCARD and the Z*STORE family
/// read them: the keys and the arguments after them.
pub(crate) fn numkeys_split<'a>(
    args: &'a [Bytes],
    not_positive: &str,
) -> Result<(&'a [Bytes], &'a [Bytes]), Reply> {
    let numkeys = match int(&args[0]) {
        Ok(n) if n >= 1 => n as usize,
        _ => return Err(Reply::error(format!("ERR {not_positive}"))),
    };
    if numkeys > args.len() - 1 {
        return Err(Reply::error(
            "ERR Number of keys can't be greater than number of args",
        ));
    }
    Ok((&args[1..=numkeys], &args[numkeys + 1..]))
}

/// A LIMIT option: 0 for none.
pub(crate) fn limit_option(options: &[Bytes]) -> Result<usize, Reply> {
    let mut limit = 0;
    let mut j = 0;
    while j < options.len() {
        if is(&options[j], "limit") && j + 1 < options.len() {
            j += 1;
            limit = match int(&options[j]) {
                Ok(n) if n >= 0 => n as usize,
                _ => return Err(Reply::error("ERR LIMIT can't be negative")),
            };
        } else {
            return Err(syntax_error());
        }
        j += 1;
    }
    Ok(limit)
}

pub fn sintercard(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let (keys, options) = numkeys_split(&args[1..], "numkeys should be greater than 0")?;
    let limit = limit_option(options)?;
    let len = combine(sets_of(ctx, keys)?, Algebra::Inter).len();
    Ok(Reply::Integer(
        if limit > 0 { len.min(limit) } else { len } as i64
    ))
}
