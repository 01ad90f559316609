//! Commands that move keys between databases or swap them: COPY, MOVE, SWAPDB, with Redis
//! 7.0's argument order and errors.

use crate::model::protocol::args::{int32, is, syntax_error, CmdResult};
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::Ctx;
use bytes::Bytes;

const SAME_OBJECT: &str = "ERR source and destination objects are the same";
const OUT_OF_RANGE: &str = "ERR DB index is out of range";

/// A database index argument: an `int`, then in range.
fn db_index(ctx: &Ctx, arg: &[u8]) -> Result<usize, Reply> {
    let index = int32(arg)?;
    if index < 0 || index as usize >= ctx.node.dbs.len() {
        return Err(Reply::error(OUT_OF_RANGE));
    }
    Ok(index as usize)
}

/// COPY source destination [DB index] [REPLACE]: the value and its TTL.
pub fn copy(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let src = ctx.client.db;
    let mut dst = src;
    let mut replace = false;
    let mut j = 3;
    while j < args.len() {
        if is(&args[j], "replace") {
            replace = true;
        } else if is(&args[j], "db") && j + 1 < args.len() {
            dst = db_index(ctx, &args[j + 1])?;
            j += 1;
        } else {
            return Err(syntax_error());
        }
        j += 1;
    }
    let (key, new_key) = (&args[1], &args[2]);
    if src == dst && key == new_key {
        return Err(Reply::error(SAME_OBJECT));
    }
    let now_ms = ctx.now_ms;
    let Some(entry) = ctx.node.dbs[src].get(key, now_ms).cloned() else {
        return Ok(Reply::Integer(0));
    };
    let target = &mut ctx.node.dbs[dst];
    if target.contains(new_key, now_ms) {
        if !replace {
            return Ok(Reply::Integer(0));
        }
        target.remove(new_key);
    }
    target.set(new_key.clone(), entry.value, entry.expire_at_ms);
    Ok(Reply::Integer(1))
}

/// MOVE key db: only if the key is absent there.
pub fn move_(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let src = ctx.client.db;
    let dst = db_index(ctx, &args[2])?;
    if src == dst {
        return Err(Reply::error(SAME_OBJECT));
    }
    let (key, now_ms) = (&args[1], ctx.now_ms);
    if !ctx.node.dbs[src].contains(key, now_ms) || ctx.node.dbs[dst].contains(key, now_ms) {
        return Ok(Reply::Integer(0));
    }
    let entry = ctx.node.dbs[src].remove(key).expect("checked above");
    ctx.node.dbs[dst].set(key.clone(), entry.value, entry.expire_at_ms);
    Ok(Reply::Integer(1))
}

/// SWAPDB a b: clients stay on their database numbers and see the other contents; their
/// watches follow Redis's `touchAllWatchedKeysInDb`.
pub fn swapdb(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let a = db_index_swap(ctx, &args[1], "invalid first DB index")?;
    let b = db_index_swap(ctx, &args[2], "invalid second DB index")?;
    let (Some(a), Some(b)) = (a, b) else {
        return Err(Reply::error(OUT_OF_RANGE));
    };
    if a != b {
        let now_ms = ctx.now_ms;
        let node = &mut *ctx.node;
        let dbs = &node.dbs;
        let exists = |db: usize, key: &[u8]| dbs[db].holds(key);
        let expired = |db: usize, key: &[u8]| dbs[db].is_logically_expired(key, now_ms);
        node.watches.touch_swapped(a, b, exists, expired);
        node.watches.touch_swapped(b, a, exists, expired);
        node.dbs.swap(a, b);
        for db in [a, b] {
            let swapped = &node.dbs[db];
            node.blocked.signal_present(db, |key| swapped.holds(key));
        }
    }
    // Redis counts a swap of a database with itself as a change too.
    ctx.mark_dirty();
    Ok(Reply::ok())
}

/// SWAPDB's indexes: both must be `int`s before either is range-checked.
fn db_index_swap(ctx: &Ctx, arg: &[u8], not_int: &str) -> Result<Option<usize>, Reply> {
    let index = int32(arg).map_err(|_| Reply::error(format!("ERR {not_int}")))?;
    let in_range = index >= 0 && (index as usize) < ctx.node.dbs.len();
    Ok(in_range.then_some(index as usize))
}
