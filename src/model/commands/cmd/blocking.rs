//! The blocking commands: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX,
//! BZMPOP. A call that finds data is served at once like its non-blocking form (and logged
//! as that form); one that finds none blocks its connection until a write makes one of its
//! keys ready or its timeout passes on the node's clock (`server::execute` serves blocked
//! clients in the order they blocked, after the command that wrote). Inside MULTI or a
//! script a blocking command never blocks: it answers as if timed out.

use crate::model::commands::cmd::lists::{self, end, list_mut, move_item, multi_pop_args, End};
use crate::model::commands::cmd::zsets::{pop_members, zset_mut, PopShape};
use crate::model::data::value::Value;
use crate::model::protocol::args::{is, parse_float, CmdResult};
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::{command_line, BlockRequest, Ctx};
use bytes::Bytes;

/// A timeout in seconds (`getTimeoutFromObjectOrReply`): `None` for 0 (forever), else the
/// deadline on the node's clock.
fn deadline(ctx: &Ctx, arg: &[u8]) -> Result<Option<u64>, Reply> {
    let seconds = parse_float(arg)
        .ok_or_else(|| Reply::error("ERR timeout is not a float or out of range"))?;
    let ms = (seconds * 1000.0).ceil();
    // C's conversion of an out-of-range value gives LLONG_MIN on x86.
    let ms = if ms.is_finite() && ms.abs() < 9.2e18 {
        ms as i64
    } else {
        i64::MIN
    };
    if ms < 0 {
        return Err(Reply::error("ERR timeout is negative"));
    }
    Ok((ms > 0).then(|| ctx.now_ms.saturating_add(ms as u64)))
}

/// Which blocking command, with what it needs besides its keys.
enum Blocking {
    /// BLPOP / BRPOP.
    Pop { left: bool },
    /// BLMOVE / BRPOPLPUSH: the destination and the ends.
    Move {
        destination: Bytes,
        from: End,
        to: End,
    },
    /// BLMPOP.
    MultiPop { left: bool, count: usize },
    /// BZPOPMIN / BZPOPMAX.
    ZPop { min: bool },
    /// BZMPOP.
    ZMultiPop { min: bool, count: usize },
}

/// A parsed blocking call: what it does, its keys and its deadline.
struct Call {
    blocking: Blocking,
    keys: Vec<Bytes>,
    deadline_ms: Option<u64>,
}

fn parse(ctx: &Ctx, args: &[Bytes]) -> Result<Call, Reply> {
    let name = &args[0];
    let last = args.len() - 1;
    if is(name, "blpop") || is(name, "brpop") {
        return Ok(Call {
            blocking: Blocking::Pop {
                left: is(name, "blpop"),
            },
            keys: args[1..last].to_vec(),
            deadline_ms: deadline(ctx, &args[last])?,
        });
    }
    if is(name, "bzpopmin") || is(name, "bzpopmax") {
        return Ok(Call {
            blocking: Blocking::ZPop {
                min: is(name, "bzpopmin"),
            },
            keys: args[1..last].to_vec(),
            deadline_ms: deadline(ctx, &args[last])?,
        });
    }
    if is(name, "blmove") || is(name, "brpoplpush") {
        let (from, to, timeout) = if is(name, "blmove") {
            (end(&args[3])?, end(&args[4])?, &args[5])
        } else {
            (End::Right, End::Left, &args[3])
        };
        return Ok(Call {
            blocking: Blocking::Move {
                destination: args[2].clone(),
                from,
                to,
            },
            keys: vec![args[1].clone()],
            deadline_ms: deadline(ctx, timeout)?,
        });
    }
    let deadline_ms = deadline(ctx, &args[1])?;
    if is(name, "blmpop") {
        let pop = multi_pop_args(&args[2..], ["left", "right"])?;
        return Ok(Call {
            blocking: Blocking::MultiPop {
                left: pop.first,
                count: pop.count,
            },
            keys: pop.keys,
            deadline_ms,
        });
    }
    assert!(is(name, "bzmpop"), "only blocking commands come here");
    let pop = multi_pop_args(&args[2..], ["min", "max"])?;
    Ok(Call {
        blocking: Blocking::ZMultiPop {
            min: pop.first,
            count: pop.count,
        },
        keys: pop.keys,
        deadline_ms,
    })
}

/// Serve `blocking` from `key` if it holds data of its type now: `Ok(None)` when it holds
/// none, WRONGTYPE when it holds another type.
fn serve_key(ctx: &mut Ctx, blocking: &Blocking, key: &Bytes) -> Result<Option<Reply>, Reply> {
    let now_ms = ctx.now_ms;
    match blocking {
        Blocking::Pop { left } => {
            let Some(Reply::Array(mut parts)) = lists::pop_range_with_key(ctx, key, *left, 1)?
            else {
                return Ok(None);
            };
            let side: &[u8] = if *left { b"LPOP" } else { b"RPOP" };
            ctx.propagate(vec![command_line([side, &key[..]])]);
            let Some(Reply::Array(mut values)) = parts.pop() else {
                unreachable!("[key, [values]]")
            };
            parts.push(values.pop().expect("one popped"));
            Ok(Some(Reply::Array(parts)))
        }
        Blocking::MultiPop { left, count } => lists::pop_range_with_key(ctx, key, *left, *count),
        Blocking::Move {
            destination,
            from,
            to,
        } => {
            if list_mut(ctx.db(), key, now_ms)?.is_none() {
                return Ok(None);
            }
            let keys = [key.clone(), destination.clone()];
            let reply = move_item(ctx, &keys, *from, *to)?;
            let word = |end: End| -> &'static [u8] {
                match end {
                    End::Left => b"LEFT",
                    End::Right => b"RIGHT",
                }
            };
            let lmove =
                command_line([b"LMOVE", &key[..], &destination[..], word(*from), word(*to)]);
            ctx.propagate(vec![lmove]);
            Ok(Some(reply))
        }
        Blocking::ZPop { min } => {
            let shape = PopShape {
                with_key: true,
                nested: false,
            };
            pop_members(ctx, std::slice::from_ref(key), *min, 1, shape)
        }
        Blocking::ZMultiPop { min, count } => {
            if zset_mut(ctx.db(), key, now_ms)?.is_none() {
                return Ok(None);
            }
            let shape = PopShape {
                with_key: true,
                nested: true,
            };
            pop_members(ctx, std::slice::from_ref(key), *min, *count, shape)
        }
    }
}

/// What a call that may not block answers (inside MULTI or a script).
fn timed_out(blocking: &Blocking) -> Reply {
    match blocking {
        Blocking::Move { .. } => Reply::Nil,
        _ => Reply::NilArray,
    }
}

/// Every blocking command's handler.
pub fn blocking(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let call = parse(ctx, args)?;
    for key in &call.keys {
        if let Some(reply) = serve_key(ctx, &call.blocking, key)? {
            return Ok(reply);
        }
    }
    if !ctx.may_block {
        return Ok(timed_out(&call.blocking));
    }
    ctx.block = Some(BlockRequest {
        keys: call.keys,
        deadline_ms: call.deadline_ms,
    });
    Ok(Reply::Nil)
}

/// A blocked client's command, re-run for a key that became ready: `None` when the key
/// still holds nothing of its type (the client stays blocked).
pub(crate) fn serve_ready(ctx: &mut Ctx, args: &[Bytes], key: &Bytes) -> Option<Reply> {
    let call = parse(ctx, args).expect("it parsed when it blocked");
    match serve_key(ctx, &call.blocking, key) {
        Ok(served) => served,
        // A ready source of another type leaves the client blocked; a list source with a
        // destination of another type answers BLMOVE WRONGTYPE and unblocks it, as Redis.
        Err(error) => {
            let source_is_list = ctx
                .db()
                .peek(key)
                .is_some_and(|e| matches!(e.value, Value::List(_)));
            let moving = matches!(call.blocking, Blocking::Move { .. });
            (moving && source_is_list).then_some(error)
        }
    }
}

/// The reply of a blocked client whose timeout passed: a null array for every blocking
/// command, BLMOVE's too (`replyToBlockedClientTimedOut`).
pub(crate) fn timeout_reply() -> Reply {
    Reply::NilArray
}
