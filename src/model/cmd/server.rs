//! INFO (a minimal server section), TIME (the node's clock, virtual in a simulation) and
//! the one DEBUG subcommand tests need: SET-ACTIVE-EXPIRE.

use crate::model::args::{is, CmdResult};
use crate::model::cmd::connection::REDIS_VERSION;
use crate::model::node::Ctx;
use crate::model::reply::{Protocol, Reply};
use bytes::Bytes;

pub fn info(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    let stats = &ctx.node.stats;
    let keys: usize = ctx.node.dbs.iter().map(|db| db.len()).sum();
    // Redis draws a random 40-hex-digit id per process start; here it counts starts, so
    // a store can tell a restarted server (as with Redis) and every run stays the same.
    let run_id = format!("{:040x}", stats.restarts + 1);
    let text = format!(
        "# Server\r\nredis_version:{REDIS_VERSION}\r\nredis_mode:standalone\r\nrun_id:{run_id}\r\namnesia_model:1\r\n\r\n\
         # Stats\r\ntotal_connections_received:{}\r\ntotal_commands_processed:{}\r\nexpired_keys:{}\r\n\r\n\
         # Keyspace\r\nkeys:{keys}\r\n",
        stats.connections_received, stats.commands_processed, stats.expired_keys,
    );
    Ok(match ctx.client.protocol {
        Protocol::Resp2 => Reply::Bulk(Bytes::from(text)),
        Protocol::Resp3 => Reply::Verbatim(Bytes::from(text)),
    })
}

pub fn time(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    let seconds = ctx.now_ms / 1000;
    let micros = (ctx.now_ms % 1000) * 1000;
    Ok(Reply::bulks([
        Bytes::from(seconds.to_string()),
        Bytes::from(micros.to_string()),
    ]))
}

/// DEBUG SET-ACTIVE-EXPIRE 0|1 switches the periodic expiry cycle (keys then expire only
/// when touched, as Redis's own tests arrange). Other subcommands are not modelled.
pub fn debug(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if is(&args[1], "set-active-expire") && args.len() == 3 {
        // Redis reads the flag with atoi: anything not starting with a nonzero number is 0.
        ctx.node.active_expire = atoi(&args[2]) != 0;
        return Ok(Reply::ok());
    }
    let sub = String::from_utf8_lossy(&args[1][..args[1].len().min(128)]).into_owned();
    Err(Reply::error(format!(
        "ERR unknown subcommand or wrong number of arguments for '{sub}'. Try DEBUG HELP."
    )))
}

/// C's `atoi`: optional blanks and sign, then digits; 0 when none.
fn atoi(arg: &[u8]) -> i64 {
    let text = String::from_utf8_lossy(arg);
    let text = text.trim_start();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let digits: String = digits
        .chars()
        .take_while(char::is_ascii_digit)
        .take(18)
        .collect();
    let value = digits.parse::<i64>().unwrap_or(0);
    if negative {
        -value
    } else {
        value
    }
}
