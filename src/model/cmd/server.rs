//! INFO (a minimal server section) and TIME (the node's clock, virtual in a simulation).

use crate::model::args::CmdResult;
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
