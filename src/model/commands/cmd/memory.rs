//! MEMORY USAGE (and MEMORY HELP): what a key costs, as Redis 7.0's `memoryCommand`
//! answers it (`data::memory`'s `sizeof`-based figure). Redis samples at most SAMPLES
//! elements of a large collection and scales; the model keeps every collection's exact
//! tally, so SAMPLES is read and checked but changes nothing. DOCTOR, STATS,
//! MALLOC-STATS and PURGE are not modelled.

use crate::model::protocol::args::{int, is, syntax_error, CmdResult};
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::Ctx;
use bytes::Bytes;

pub fn memory(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    if is(&args[1], "help") {
        return Ok(Reply::Array(
            HELP.iter().map(|l| Reply::status(l)).collect(),
        ));
    }
    assert!(
        is(&args[1], "usage"),
        "the table admits USAGE and HELP only"
    );
    let mut options = args[3..].iter();
    while let Some(option) = options.next() {
        let samples = options.next().filter(|_| is(option, "samples"));
        let Some(samples) = samples else {
            return Err(syntax_error());
        };
        if int(samples)? < 0 {
            return Err(syntax_error());
        }
    }
    // Redis looks the key up in the dictionary itself: a key past its TTL is still there.
    let usage = ctx.db().usage_bytes(&args[2]);
    Ok(usage.map_or(Reply::Nil, |bytes| Reply::Integer(bytes as i64)))
}

const HELP: &[&str] = &[
    "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DOCTOR",
    "    Return memory problems reports.",
    "MALLOC-STATS",
    "    Return internal statistics report from the memory allocator.",
    "PURGE",
    "    Attempt to purge dirty pages for reclamation by the allocator.",
    "STATS",
    "    Return information about the memory usage of the server.",
    "USAGE <key> [SAMPLES <count>]",
    "    Return memory in bytes used by <key> and its value. Nested values are",
    "    sampled up to <count> times (default: 5, 0 means sample all).",
    "HELP",
    "    Prints this help.",
];
