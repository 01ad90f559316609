//! Scripting commands: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (LOAD, EXISTS,
//! FLUSH, KILL, HELP, DEBUG NO), with Redis 7.0's argument checks, shebang flags and
//! replies. The Lua engine is `model::script`.
//!
//! A script is atomic like a transaction, and the append-only log records its effects:
//! the write commands it called, in order (with the SELECTs between them), never the
//! script itself, so a restart replays the data without running Lua. The script cache
//! lives in the node and a restart empties it (EVALSHA then answers NOSCRIPT, as a
//! restarted Redis does).
//!
//! Under `amnesia serve-model` (real time) a script runs as long as it runs, off the event
//! loop: other clients wait, then past `busy-reply-threshold` are answered BUSY, and
//! SCRIPT KILL stops a script that has not written (`server::busy`, `state::script_watch`).
//!
//! In a simulation, a script that exhausts the instruction budget (the model's
//! `lua-time-limit`) is, as far as anyone can tell, still running: its caller gets no reply, every other client
//! gets `BUSY ...` (but for the commands Redis allows then) until SCRIPT KILL, which
//! answers the caller with the killed-script error, or is refused `UNKILLABLE` when the
//! script wrote; then only a restart ends it, and its writes, never logged, are lost. The
//! node records each such script (`Node::scripts_stopped`). What differs from Redis
//! 7.0.15: a script that would have finished after the limit never finishes, and a
//! script inside MULTI/EXEC is stopped at the budget with the killed-script error (its
//! writes kept), since EXEC's reply cannot wait.

use crate::model::protocol::args::{int, is, CmdResult};
use crate::model::protocol::reply::Reply;
use crate::model::script::engine::{self, Script};
use crate::model::state::ctx::{BlockRequest, Ctx};
use crate::model::state::node::BusyScript;
use crate::model::state::script_cache::{CachedScript, ScriptFlags, StoppedScript};
use bytes::Bytes;

const NOSCRIPT: &str = "NOSCRIPT No matching script. Please use EVAL.";

pub fn eval(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    eval_generic(ctx, args, false, false)
}

pub fn evalsha(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    eval_generic(ctx, args, true, false)
}

pub fn eval_ro(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    eval_generic(ctx, args, false, true)
}

pub fn evalsha_ro(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    eval_generic(ctx, args, true, true)
}

/// The SHA1 of a script body, as 40 lowercase hex digits.
pub(crate) fn sha1hex(body: &[u8]) -> String {
    sha1_smol::Sha1::from(body).digest().to_string()
}

/// Redis's `evalGenericCommand`.
fn eval_generic(ctx: &mut Ctx, args: &[Bytes], by_sha: bool, ro: bool) -> CmdResult {
    if by_sha && args[1].len() != 40 {
        return Err(Reply::error(NOSCRIPT));
    }
    let numkeys = int(&args[2])?;
    if numkeys > (args.len() - 3) as i64 {
        return Err(Reply::error(
            "ERR Number of keys can't be greater than number of args",
        ));
    }
    if numkeys < 0 {
        return Err(Reply::error("ERR Number of keys can't be negative"));
    }
    let (sha, script) = if by_sha {
        let sha = String::from_utf8_lossy(&args[1]).to_ascii_lowercase();
        match ctx.node.scripting.get(&sha) {
            Some(script) => (sha, script.clone()),
            None => return Err(Reply::error(NOSCRIPT)),
        }
    } else {
        create_function(ctx, &args[1])?
    };
    if !script.flags.compat && !script.flags.no_writes && ro {
        return Err(Reply::error(
            "ERR Can not execute a script with write flag using *_ro command.",
        ));
    }
    let read_only = ro || (!script.flags.compat && script.flags.no_writes);
    let numkeys = numkeys as usize;
    let (keys, argv) = args[3..].split_at(numkeys);
    let run = Script {
        sha: &sha,
        code: &script.body[script.shebang_len..],
        read_only,
    };
    let (reply, outcome) = engine::run(ctx, &run, keys, argv);
    if outcome.stopped {
        let stopped = StoppedScript {
            sha,
            at_ms: ctx.now_ms,
            wrote: outcome.wrote,
        };
        ctx.node.scripting.record_stopped(stopped);
        if ctx.may_block {
            // Past `lua-time-limit` the script runs on as far as anyone can tell: its caller
            // waits, every other client is answered BUSY until SCRIPT KILL (refused once it
            // wrote) or a restart. Its writes stay in memory only: Redis logs a script's
            // effects when it ends, and this one never does.
            ctx.node.busy_script = Some(BusyScript {
                client: ctx.client.id,
                wrote: outcome.wrote,
                killed: reply,
            });
            ctx.propagate(Vec::new());
            ctx.block = Some(BlockRequest {
                keys: Vec::new(),
                deadline_ms: None,
            });
            return Ok(Reply::Nil);
        }
    }
    ctx.propagate(outcome.effects);
    Ok(reply)
}

/// Redis's `luaCreateFunction`: the cached script, or a new one checked (shebang,
/// compilation) and cached.
fn create_function(ctx: &mut Ctx, body: &Bytes) -> Result<(String, CachedScript), Reply> {
    let sha = sha1hex(body);
    if let Some(script) = ctx.node.scripting.get(&sha) {
        return Ok((sha, script.clone()));
    }
    let (flags, shebang_len) = shebang(body)?;
    engine::compile_check(&body[shebang_len..])?;
    let script = CachedScript {
        body: body.clone(),
        shebang_len,
        flags,
    };
    ctx.node.scripting.insert(sha.clone(), script.clone());
    Ok((sha, script))
}

/// Redis's `evalExtractShebangFlags`: a first line `#!lua [flags=a,b]`.
fn shebang(body: &[u8]) -> Result<(ScriptFlags, usize), Reply> {
    if !body.starts_with(b"#!") {
        return Ok((
            ScriptFlags {
                compat: true,
                no_writes: false,
            },
            0,
        ));
    }
    let Some(len) = body.iter().position(|&b| b == b'\n') else {
        return Err(Reply::error("ERR Invalid script shebang"));
    };
    let line = String::from_utf8_lossy(&body[..len]);
    let mut parts = line.split_ascii_whitespace();
    let Some(engine) = parts.next() else {
        return Err(Reply::error("ERR Invalid engine in script shebang"));
    };
    if engine != "#!lua" {
        return Err(Reply::error(format!(
            "ERR Unexpected engine in script shebang: {engine}"
        )));
    }
    let mut flags = ScriptFlags::default();
    for part in parts {
        let Some(list) = part.strip_prefix("flags=") else {
            return Err(Reply::error(format!(
                "ERR Unknown lua shebang option: {part}"
            )));
        };
        for flag in list.split(',') {
            match flag {
                "no-writes" => flags.no_writes = true,
                "allow-oom" | "allow-stale" | "no-cluster" | "allow-cross-slot-keys" => {}
                _ => {
                    return Err(Reply::error(format!(
                        "ERR Unexpected flag in script shebang: {flag}"
                    )))
                }
            }
        }
    }
    Ok((flags, len))
}

const SCRIPT_HELP: &[&str] = &[
    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DEBUG (YES|SYNC|NO)",
    "    Set the debug mode for subsequent scripts executed.",
    "EXISTS <sha1> [<sha1> ...]",
    "    Return information about the existence of the scripts in the script cache.",
    "FLUSH [ASYNC|SYNC]",
    "    Flush the Lua scripts cache. Very dangerous on replicas.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the scripts cache.",
    "    * SYNC: Synchronously flush the scripts cache.",
    "KILL",
    "    Kill the currently executing Lua script.",
    "LOAD <script>",
    "    Load a script into the scripts cache without executing it.",
    "HELP",
    "    Prints this help.",
];

pub fn script(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    // The command table checked the subcommand and its arity.
    let name = String::from_utf8_lossy(&args[1]).to_ascii_lowercase();
    match name.as_str() {
        "help" => Ok(Reply::Array(
            SCRIPT_HELP
                .iter()
                .map(|line| Reply::Status(Bytes::from_static(line.as_bytes())))
                .collect(),
        )),
        "flush" => {
            let mode_ok = args.len() == 2
                || (args.len() == 3 && (is(&args[2], "sync") || is(&args[2], "async")));
            if !mode_ok {
                return Err(Reply::error(
                    "ERR SCRIPT FLUSH only support SYNC|ASYNC option",
                ));
            }
            ctx.node.scripting.flush();
            Ok(Reply::ok())
        }
        "exists" => Ok(Reply::Array(
            args[2..]
                .iter()
                .map(|sha| {
                    let sha = String::from_utf8_lossy(sha);
                    Reply::Integer(i64::from(ctx.node.scripting.get(&sha).is_some()))
                })
                .collect(),
        )),
        "load" => {
            let (sha, _) = create_function(ctx, &args[2])?;
            Ok(Reply::Bulk(Bytes::from(sha)))
        }
        "kill" => ctx.node.kill_script(),
        _ => {
            if is(&args[2], "no") {
                Ok(Reply::ok())
            } else if is(&args[2], "yes") || is(&args[2], "sync") {
                Err(Reply::error(
                    "ERR SCRIPT DEBUG (the Lua debugger) is not supported by the model",
                ))
            } else {
                Err(Reply::error("ERR Use SCRIPT DEBUG YES/SYNC/NO"))
            }
        }
    }
}

#[cfg(test)]
mod tests;
