//! List commands. A list that becomes empty is deleted; pushing onto an existing list keeps
//! its TTL. Argument and type checks come in the order Redis 7.0 makes them.

use crate::model::args::{arity_error, index_range, int, is, syntax_error, wrong_type, CmdResult};
use crate::model::keyspace::Db;
use crate::model::node::Ctx;
use crate::model::reply::Reply;
use crate::model::value::Value;
use bytes::Bytes;
use std::collections::VecDeque;

/// The list at `key` for modification: `Ok(None)` if missing, WRONGTYPE if another type.
fn list_mut<'a>(
    db: &'a mut Db,
    key: &[u8],
    now_ms: u64,
) -> Result<Option<&'a mut VecDeque<Bytes>>, Reply> {
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
enum End {
    Left,
    Right,
}

fn push(ctx: &mut Ctx, args: &[Bytes], end: End) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let key = &args[1];
    if list_mut(db, key, now_ms)?.is_none() {
        db.set(key.clone(), Value::List(VecDeque::new()), None);
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

fn pop(ctx: &mut Ctx, args: &[Bytes], end: End, name: &str) -> CmdResult {
    if args.len() > 3 {
        return Err(arity_error(name));
    }
    let count = match args.get(2) {
        Some(arg) => match int(arg) {
            Ok(count) if count >= 0 => Some(count as usize),
            _ => return Err(Reply::error("ERR value is out of range, must be positive")),
        },
        None => None,
    };
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
            list.truncate(to + 1);
            list.drain(..from);
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
    list[at] = args[3].clone();
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
        list.drain(..)
            .filter(|item| {
                !(item == value && removed < limit && {
                    removed += 1;
                    true
                })
            })
            .collect()
    } else {
        let mut kept: VecDeque<Bytes> = list
            .drain(..)
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
    *list = kept;
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

fn end(arg: &[u8]) -> Result<End, Reply> {
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
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let (source, destination) = (&args[1], &args[2]);
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
    db.remove_if_empty(source);
    if list_mut(db, destination, now_ms)?.is_none() {
        db.set(destination.clone(), Value::List(VecDeque::new()), None);
    }
    let target = list_mut(db, destination, now_ms)?.expect("just ensured");
    match to {
        End::Left => target.push_front(item.clone()),
        End::Right => target.push_back(item.clone()),
    }
    db.touch(destination);
    Ok(Reply::Bulk(item))
}
