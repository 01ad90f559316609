//! List commands. A list that becomes empty is deleted; pushing onto an existing list keeps
//! its TTL. Argument and type checks come in the order Redis 7.0 makes them.

use crate::model::data::collections::List;
use crate::model::data::keyspace::Db;
use crate::model::data::value::Value;
use crate::model::protocol::args::{
    arity_error, index_range, int, is, syntax_error, wrong_type, CmdResult,
};
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::Ctx;
use bytes::Bytes;
use std::collections::VecDeque;

/// The list at `key` for modification: `Ok(None)` if missing, WRONGTYPE if another type.
pub(crate) fn list_mut<'a>(
    db: &'a mut Db,
    key: &[u8],
    now_ms: u64,
) -> Result<Option<&'a mut List>, Reply> {
    match db.get_mut(key, now_ms) {
        None => Ok(None),
        Some(entry) => match &mut entry.value {
            Value::List(list) => Ok(Some(list)),
            _ => Err(wrong_type()),
        },
    }
}

/// Which end of a list.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    Left,
    Right,
}

fn push(ctx: &mut Ctx, args: &[Bytes], end: End) -> CmdResult {
    push_generic(ctx, args, end, false)
}

/// LPUSH/RPUSH, and with `existing_only` LPUSHX/RPUSHX (0 for a missing key).
fn push_generic(ctx: &mut Ctx, args: &[Bytes], end: End, existing_only: bool) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let key = &args[1];
    if list_mut(db, key, now_ms)?.is_none() {
        if existing_only {
            return Ok(Reply::Integer(0));
        }
        db.set(key.clone(), Value::List(List::default()), None);
    }
    let list = list_mut(db, key, now_ms)?.expect("just created");
    for value in &args[2..] {
        match end {
            End::Left => list.push_front(value.clone()),
            End::Right => list.push_back(value.clone()),
        }
    }
    let len = list.len();
    db.touch(key);
    Ok(Reply::Integer(len as i64))
}

pub fn lpush(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    push(ctx, args, End::Left)
}

pub fn rpush(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    push(ctx, args, End::Right)
}

pub fn lpushx(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    push_generic(ctx, args, End::Left, true)
}

pub fn rpushx(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    push_generic(ctx, args, End::Right, true)
}

fn pop(ctx: &mut Ctx, args: &[Bytes], end: End, name: &str) -> CmdResult {
    if args.len() > 3 {
        return Err(arity_error(name));
    }
    let count = crate::model::protocol::args::optional_count(args.get(2))?;
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(list) = list_mut(db, &args[1], now_ms)? else {
        return Ok(if count.is_some() {
            Reply::NilArray
        } else {
            Reply::Nil
        });
    };
    let taken: Vec<Bytes> = (0..count.unwrap_or(1))
        .map_while(|_| match end {
            End::Left => list.pop_front(),
            End::Right => list.pop_back(),
        })
        .collect();
    if !taken.is_empty() {
        db.touch(&args[1]);
        db.remove_if_empty(&args[1]);
    }
    Ok(match count {
        Some(_) => Reply::bulks(taken),
        None => Reply::bulk_or_nil(taken.into_iter().next()),
    })
}

pub fn lpop(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    pop(ctx, args, End::Left, "lpop")
}

pub fn rpop(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    pop(ctx, args, End::Right, "rpop")
}

pub fn lrange(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let (start, stop) = (int(&args[2])?, int(&args[3])?);
    let now_ms = ctx.now_ms;
    let Some(list) = list_mut(ctx.db(), &args[1], now_ms)? else {
        return Ok(Reply::Array(Vec::new()));
    };
    let items = match index_range(start, stop, list.len()) {
        Some((from, to)) => list.range(from..=to).cloned().collect(),
        None => Vec::new(),
    };
    Ok(Reply::bulks(items))
}

pub fn ltrim(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let (start, stop) = (int(&args[2])?, int(&args[3])?);
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(list) = list_mut(db, &args[1], now_ms)? else {
        return Ok(Reply::ok());
    };
    match index_range(start, stop, list.len()) {
        Some((from, to)) => {
            list.keep_range(from, to);
        }
        None => list.clear(),
    }
    db.touch(&args[1]);
    db.remove_if_empty(&args[1]);
    Ok(Reply::ok())
}

pub fn llen(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let len = list_mut(ctx.db(), &args[1], now_ms)?.map_or(0, |list| list.len());
    Ok(Reply::Integer(len as i64))
}

/// A list index, negative from the tail; `None` if outside the list.
fn position(index: i64, len: usize) -> Option<usize> {
    let index = if index < 0 { len as i64 + index } else { index };
    (0..len as i64).contains(&index).then_some(index as usize)
}

pub fn lindex(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let Some(list) = list_mut(ctx.db(), &args[1], now_ms)? else {
        return Ok(Reply::Nil);
    };
    let index = int(&args[2])?;
    Ok(Reply::bulk_or_nil(
        position(index, list.len()).map(|i| list[i].clone()),
    ))
}

pub fn lset(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(list) = list_mut(db, &args[1], now_ms)? else {
        return Err(Reply::error("ERR no such key"));
    };
    let index = int(&args[2])?;
    let Some(at) = position(index, list.len()) else {
        return Err(Reply::error("ERR index out of range"));
    };
    list.replace(at, args[3].clone());
    db.touch(&args[1]);
    Ok(Reply::ok())
}

pub fn lrem(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let count = int(&args[2])?;
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(list) = list_mut(db, &args[1], now_ms)? else {
        return Ok(Reply::Integer(0));
    };
    let value = &args[3];
    let limit = if count == 0 {
        usize::MAX
    } else {
        count.unsigned_abs() as usize
    };
    let mut removed = 0;
    let kept: VecDeque<Bytes> = if count >= 0 {
        list.take_all()
            .into_iter()
            .filter(|item| {
                !(item == value && removed < limit && {
                    removed += 1;
                    true
                })
            })
            .collect()
    } else {
        let mut kept: VecDeque<Bytes> = list
            .take_all()
            .into_iter()
            .rev()
            .filter(|item| {
                !(item == value && removed < limit && {
                    removed += 1;
                    true
                })
            })
            .collect();
        kept.make_contiguous().reverse();
        kept
    };
    *list = kept.into_iter().collect();
    if removed > 0 {
        db.touch(&args[1]);
        db.remove_if_empty(&args[1]);
    }
    Ok(Reply::Integer(removed as i64))
}

pub fn linsert(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let after = if is(&args[2], "after") {
        true
    } else if is(&args[2], "before") {
        false
    } else {
        return Err(syntax_error());
    };
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(list) = list_mut(db, &args[1], now_ms)? else {
        return Ok(Reply::Integer(0));
    };
    let Some(pivot) = list.iter().position(|item| item == &args[3]) else {
        return Ok(Reply::Integer(-1));
    };
    list.insert(pivot + usize::from(after), args[4].clone());
    let len = list.len();
    db.touch(&args[1]);
    Ok(Reply::Integer(len as i64))
}

pub(crate) fn end(arg: &[u8]) -> Result<End, Reply> {
    if is(arg, "left") {
        Ok(End::Left)
    } else if is(arg, "right") {
        Ok(End::Right)
    } else {
        Err(syntax_error())
    }
}

pub fn lmove(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let (from, to) = (end(&args[3])?, end(&args[4])?);
    move_item(ctx, &args[1..3], from, to)
}

pub fn rpoplpush(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    move_item(ctx, &args[1..3], End::Right, End::Left)
}

/// LMOVE's work: `keys` are the source and the destination.
pub(crate) fn move_item(ctx: &mut Ctx, keys: &[Bytes], from: End, to: End) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let (source, destination) = (&keys[0], &keys[1]);
    if list_mut(db, source, now_ms)?.is_none() {
        return Ok(Reply::Nil);
    }
    list_mut(db, destination, now_ms)?;
    let list = list_mut(db, source, now_ms)?.expect("checked above");
    let item = match from {
        End::Left => list.pop_front(),
        End::Right => list.pop_back(),
    }
    .expect("a stored list is never empty");
    db.touch(source);
    if list_mut(db, destination, now_ms)?.is_none() {
        db.set(destination.clone(), Value::List(List::default()), None);
    }
    let target = list_mut(db, destination, now_ms)?.expect("just ensured");
    match to {
        End::Left => target.push_front(item.clone()),
        End::Right => target.push_back(item.clone()),
    }
    db.touch(destination);
    // After the push, as Redis deletes an emptied source: a list's only element moved
    // onto itself keeps the key and its TTL.
    db.remove_if_empty(source);
    Ok(Reply::Bulk(item))
}

/// A positive-or-zero count with Redis's message (`getPositiveLongFromObjectOrReply`).
fn non_negative(arg: &[u8], message: &str) -> Result<i64, Reply> {
    match int(arg) {
        Ok(value) if value >= 0 => Ok(value),
        _ => Err(Reply::error(format!("ERR {message}"))),
    }
}

/// LPOS key element [RANK rank] [COUNT count] [MAXLEN len].
pub fn lpos(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let (mut rank, mut count, mut maxlen) = (1i64, None, 0i64);
    let mut j = 3;
    while j < args.len() {
        let more = j + 1 < args.len();
        if is(&args[j], "rank") && more {
            j += 1;
            rank = int(&args[j])?;
            if rank == 0 {
                return Err(Reply::error(
                    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the \
                     second ... or use negative to start from the end of the list",
                ));
            }
        } else if is(&args[j], "count") && more {
            j += 1;
            count = Some(non_negative(&args[j], "COUNT can't be negative")?);
        } else if is(&args[j], "maxlen") && more {
            j += 1;
            maxlen = non_negative(&args[j], "MAXLEN can't be negative")?;
        } else {
            return Err(syntax_error());
        }
        j += 1;
    }
    let now_ms = ctx.now_ms;
    let Some(list) = list_mut(ctx.db(), &args[1], now_ms)? else {
        return Ok(count.map_or(Reply::Nil, |_| Reply::Array(Vec::new())));
    };
    let from_tail = rank < 0;
    let rank = rank.unsigned_abs();
    let len = list.len();
    let scanned = if maxlen == 0 {
        len
    } else {
        len.min(maxlen as usize)
    };
    let order: Box<dyn Iterator<Item = usize>> = if from_tail {
        Box::new((0..len).rev().take(scanned))
    } else {
        Box::new((0..len).take(scanned))
    };
    let mut found = Vec::new();
    let mut matches = 0u64;
    for at in order {
        if list[at] != args[2] {
            continue;
        }
        matches += 1;
        if matches < rank {
            continue;
        }
        found.push(Reply::Integer(at as i64));
        let enough = match count {
            None => true,
            Some(0) => false,
            Some(n) => found.len() as i64 >= n,
        };
        if enough {
            break;
        }
    }
    Ok(match count {
        Some(_) => Reply::Array(found),
        None => found.into_iter().next().unwrap_or(Reply::Nil),
    })
}

/// The keys, end and count of LMPOP-style arguments starting at `numkeys` (also ZMPOP's,
/// whose ends are MIN/MAX).
pub(crate) struct MultiPop {
    pub keys: Vec<Bytes>,
    /// LEFT or MIN.
    pub first: bool,
    pub count: usize,
}

/// Parse `numkeys key... where [COUNT n]` the way `lmpopGenericCommand` does.
pub(crate) fn multi_pop_args(args: &[Bytes], ends: [&str; 2]) -> Result<MultiPop, Reply> {
    let range_error = |message: &str| Reply::error(format!("ERR {message}"));
    let numkeys = match int(&args[0]) {
        Ok(n) if n >= 1 => n as usize,
        _ => return Err(range_error("numkeys should be greater than 0")),
    };
    let where_at = numkeys.checked_add(1).filter(|&at| at < args.len());
    let Some(where_at) = where_at else {
        return Err(syntax_error());
    };
    let first = if is(&args[where_at], ends[0]) {
        true
    } else if is(&args[where_at], ends[1]) {
        false
    } else {
        return Err(syntax_error());
    };
    let mut count = None;
    let mut j = where_at + 1;
    while j < args.len() {
        if count.is_none() && is(&args[j], "count") && j + 1 < args.len() {
            j += 1;
            count = match int(&args[j]) {
                Ok(n) if n >= 1 => Some(n as usize),
                _ => return Err(range_error("count should be greater than 0")),
            };
        } else {
            return Err(syntax_error());
        }
        j += 1;
    }
    Ok(MultiPop {
        keys: args[1..where_at].to_vec(),
        first,
        count: count.unwrap_or(1),
    })
}

/// LMPOP numkeys key... LEFT|RIGHT [COUNT n]: from the first non-empty list.
pub fn lmpop(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let pop = multi_pop_args(&args[1..], ["left", "right"])?;
    for key in &pop.keys {
        if let Some(reply) = pop_range_with_key(ctx, key, pop.first, pop.count)? {
            return Ok(reply);
        }
    }
    Ok(Reply::NilArray)
}

/// Pop up to `count` items of the list at `key` as `[key, [items]]`, logged as
/// `LPOP|RPOP key n`; `None` when there is no list.
pub(crate) fn pop_range_with_key(
    ctx: &mut Ctx,
    key: &Bytes,
    left: bool,
    count: usize,
) -> Result<Option<Reply>, Reply> {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(list) = list_mut(db, key, now_ms)? else {
        return Ok(None);
    };
    let taken: Vec<Bytes> = (0..count)
        .map_while(|_| {
            if left {
                list.pop_front()
            } else {
                list.pop_back()
            }
        })
        .collect();
    db.touch(key);
    db.remove_if_empty(key);
    let name: &[u8] = if left { b"LPOP" } else { b"RPOP" };
    let n = taken.len().to_string();
    let logged = crate::model::state::ctx::command_line([name, &key[..], n.as_bytes()]);
    ctx.propagate(vec![logged]);
    Ok(Some(Reply::Array(vec![
        Reply::Bulk(key.clone()),
        Reply::bulks(taken),
    ])))
}
