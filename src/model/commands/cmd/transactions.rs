//! MULTI, EXEC, DISCARD, WATCH, UNWATCH with Redis's rules: a command rejected while
//! queueing makes EXEC answer EXECABORT; a watched key modified (or expired) since WATCH
//! makes EXEC answer a null array; errors of queued commands at run time are only replies.

use crate::model::commands::table;
use crate::model::protocol::args::CmdResult;
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::{Ctx, Effects};
use bytes::Bytes;

pub fn multi(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    if ctx.client.in_multi() {
        return Err(Reply::error("ERR MULTI calls can not be nested"));
    }
    ctx.client.queued = Some(Vec::new());
    Ok(Reply::ok())
}

pub fn exec(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    let Some(queued) = ctx.client.queued.take() else {
        return Err(Reply::error("ERR EXEC without MULTI"));
    };
    let failed = ctx.client.queue_failed;
    let watch_broken = ctx.node.watch_broken(ctx.client, ctx.now_ms);
    ctx.client.end_multi();
    ctx.node.unwatch_all(ctx.client);
    if failed {
        return Err(Reply::error(
            "EXECABORT Transaction discarded because of previous errors.",
        ));
    }
    if watch_broken {
        return Ok(Reply::NilArray);
    }
    let db_at_start = ctx.client.db;
    let mut modified = false;
    let mut replies = Vec::with_capacity(queued.len());
    let mut logged = Vec::with_capacity(queued.len());
    for args in queued {
        let command = table::lookup(&args[0]).expect("only known commands are queued");
        let ran = ctx.node.run(command, ctx.client, &args, ctx.now_ms);
        replies.push(ran.reply);
        modified |= ctx.node.settle_modifications(ctx.now_ms) || ran.dirty;
        // Every command is logged (a SELECT between writes must replay too), as its effect.
        match ran.effects {
            Effects::Verbatim => logged.push(args),
            Effects::Replaced(commands) => logged.extend(commands),
        }
    }
    if modified {
        ctx.node.log_transaction(db_at_start, ctx.now_ms, logged);
    }
    Ok(Reply::Array(replies))
}

pub fn discard(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    if !ctx.client.in_multi() {
        return Err(Reply::error("ERR DISCARD without MULTI"));
    }
    ctx.client.end_multi();
    ctx.node.unwatch_all(ctx.client);
    Ok(Reply::ok())
}

pub fn watch(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if ctx.client.in_multi() {
        return Err(Reply::error("ERR WATCH inside MULTI is not allowed"));
    }
    for key in &args[1..] {
        ctx.node.watch(ctx.client, key.clone(), ctx.now_ms);
    }
    Ok(Reply::ok())
}

pub fn unwatch(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    ctx.node.unwatch_all(ctx.client);
    Ok(Reply::ok())
}
