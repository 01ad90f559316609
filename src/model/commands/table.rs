//! The command table: every supported command with Redis 7.0's arity and the flags that
//! decide how the node executes it.

use crate::model::commands::cmd::{
    blocking, collection_scan, config, connection, databases, hashes, keys, lists, memory,
    scripting, server, sets, strings, transactions, zset_algebra, zsets,
};
use crate::model::protocol::args::arity_error;
use crate::model::protocol::args::CmdResult;
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::Ctx;
use bytes::Bytes;
use rustc_hash::FxHashMap;

/// How the node treats a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flags(u8);

impl Flags {
    pub const NONE: Flags = Flags(0);
    /// May modify data: logged to the append-only file when it did.
    pub const WRITE: Flags = Flags(1);
    /// Allowed before AUTH.
    pub const NO_AUTH: Flags = Flags(2);
    /// Runs immediately inside MULTI instead of being queued.
    pub const TX_CONTROL: Flags = Flags(4);
    /// The connection closes after the reply.
    pub const CLOSES: Flags = Flags(8);
    /// Reads or writes keys: the commands an injected error reply may hit.
    pub const DATA: Flags = Flags(16);
    /// May use more memory (Redis's `denyoom`): refused with `-OOM` when the node is over
    /// `maxmemory` and can evict nothing.
    pub const DENYOOM: Flags = Flags(32);

    pub const fn with(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
}

pub type Handler = fn(&mut Ctx, &[Bytes]) -> CmdResult;

/// One entry of the table. `arity` is Redis's: positive means exactly that many arguments
/// (the name included), negative means at least that many.
pub struct Command {
    pub name: &'static str,
    pub arity: i32,
    pub flags: Flags,
    pub handler: Handler,
}

impl Command {
    pub fn arity_ok(&self, args: usize) -> bool {
        let args = args as i32;
        if self.arity >= 0 {
            args == self.arity
        } else {
            args >= -self.arity
        }
    }
}

const W: Flags = Flags::WRITE.with(Flags::DATA);
/// A write that may use more memory.
const WM: Flags = W.with(Flags::DENYOOM);
const R: Flags = Flags::DATA;
/// Connection and server commands: never data.
const C: Flags = Flags::NONE;

macro_rules! commands {
    ($($name:literal $arity:literal $flags:expr => $handler:path),* $(,)?) => {
        &[$(Command { name: $name, arity: $arity, flags: $flags, handler: $handler }),*]
    };
}

static COMMANDS: &[Command] = commands![
    // connection
    "hello" -1 Flags::NO_AUTH => connection::hello,
    "auth" -2 Flags::NO_AUTH => connection::auth,
    "select" 2 C => connection::select,
    "ping" -1 C => connection::ping,
    "echo" 2 C => connection::echo,
    "client" -2 C => connection::client,
    "quit" -1 Flags::NO_AUTH.with(Flags::TX_CONTROL).with(Flags::CLOSES) => connection::quit,
    "reset" 1 Flags::NO_AUTH.with(Flags::TX_CONTROL) => connection::reset,
    // keys
    "del" -2 W => keys::del,
    "unlink" -2 W => keys::del,
    "exists" -2 R => keys::exists,
    "type" 2 R => keys::type_,
    "rename" 3 W => keys::rename,
    "renamenx" 3 W => keys::renamenx,
    "keys" 2 R => keys::keys,
    "scan" -2 R => keys::scan,
    "expire" -3 W => keys::expire,
    "pexpire" -3 W => keys::pexpire,
    "expireat" -3 W => keys::expireat,
    "pexpireat" -3 W => keys::pexpireat,
    "ttl" 2 R => keys::ttl,
    "pttl" 2 R => keys::pttl,
    "expiretime" 2 R => keys::expiretime,
    "pexpiretime" 2 R => keys::pexpiretime,
    "persist" 2 W => keys::persist,
    "dbsize" 1 R => keys::dbsize,
    "flushdb" -1 W => keys::flushdb,
    "flushall" -1 W => keys::flushall,
    "randomkey" 1 R => keys::randomkey,
    "touch" -2 R => keys::touch,
    "object" -2 R => keys::object,
    "copy" -3 WM => databases::copy,
    "move" 3 W => databases::move_,
    "swapdb" 3 W => databases::swapdb,
    // strings
    "get" 2 R => strings::get,
    "set" -3 WM => strings::set,
    "setnx" 3 WM => strings::setnx,
    "mget" -2 R => strings::mget,
    "mset" -3 WM => strings::mset,
    "incr" 2 WM => strings::incr,
    "decr" 2 WM => strings::decr,
    "incrby" 3 WM => strings::incrby,
    "decrby" 3 WM => strings::decrby,
    "append" 3 WM => strings::append,
    "strlen" 2 R => strings::strlen,
    "getdel" 2 W => strings::getdel,
    "getex" -2 W => strings::getex,
    "setex" 4 WM => strings::setex,
    "psetex" 4 WM => strings::psetex,
    "getset" 3 WM => strings::getset,
    "msetnx" -3 WM => strings::msetnx,
    "getrange" 4 R => strings::getrange,
    "substr" 4 R => strings::getrange,
    "setrange" 4 WM => strings::setrange,
    "incrbyfloat" 3 WM => strings::incrbyfloat,
    // lists
    "lpush" -3 WM => lists::lpush,
    "rpush" -3 WM => lists::rpush,
    "lpop" -2 W => lists::lpop,
    "rpop" -2 W => lists::rpop,
    "lrange" 4 R => lists::lrange,
    "ltrim" 4 W => lists::ltrim,
    "llen" 2 R => lists::llen,
    "lindex" 3 R => lists::lindex,
    "lset" 4 WM => lists::lset,
    "lrem" 4 W => lists::lrem,
    "linsert" 5 WM => lists::linsert,
    "lmove" 5 WM => lists::lmove,
    "lpushx" -3 WM => lists::lpushx,
    "rpushx" -3 WM => lists::rpushx,
    "rpoplpush" 3 WM => lists::rpoplpush,
    "lpos" -3 R => lists::lpos,
    "lmpop" -4 W => lists::lmpop,
    "blpop" -3 W => blocking::blocking,
    "brpop" -3 W => blocking::blocking,
    "blmove" 6 WM => blocking::blocking,
    "brpoplpush" 4 WM => blocking::blocking,
    "blmpop" -5 W => blocking::blocking,
    // hashes
    "hset" -4 WM => hashes::hset,
    "hmset" -4 WM => hashes::hmset,
    "hsetnx" 4 WM => hashes::hsetnx,
    "hget" 3 R => hashes::hget,
    "hmget" -3 R => hashes::hmget,
    "hgetall" 2 R => hashes::hgetall,
    "hdel" -3 W => hashes::hdel,
    "hlen" 2 R => hashes::hlen,
    "hexists" 3 R => hashes::hexists,
    "hincrby" 4 WM => hashes::hincrby,
    "hkeys" 2 R => hashes::hkeys,
    "hvals" 2 R => hashes::hvals,
    "hstrlen" 3 R => hashes::hstrlen,
    "hincrbyfloat" 4 WM => hashes::hincrbyfloat,
    "hrandfield" -2 R => hashes::hrandfield,
    "hscan" -3 R => collection_scan::hscan,
    // sets
    "sadd" -3 WM => sets::sadd,
    "srem" -3 W => sets::srem,
    "smembers" 2 R => sets::smembers,
    "sismember" 3 R => sets::sismember,
    "scard" 2 R => sets::scard,
    "smismember" -3 R => sets::smismember,
    "smove" 4 W => sets::smove,
    "spop" -2 W => sets::spop,
    "srandmember" -2 R => sets::srandmember,
    "sinter" -2 R => sets::sinter,
    "sinterstore" -3 WM => sets::sinterstore,
    "sunion" -2 R => sets::sunion,
    "sunionstore" -3 WM => sets::sunionstore,
    "sdiff" -2 R => sets::sdiff,
    "sdiffstore" -3 WM => sets::sdiffstore,
    "sintercard" -3 R => sets::sintercard,
    "sscan" -3 R => collection_scan::sscan,
    // sorted sets
    "zadd" -4 WM => zsets::zadd,
    "zrem" -3 W => zsets::zrem,
    "zrange" -4 R => zsets::zrange,
    "zrangebyscore" -4 R => zsets::zrangebyscore,
    "zrevrangebyscore" -4 R => zsets::zrevrangebyscore,
    "zrevrange" -4 R => zsets::zrevrange,
    "zcard" 2 R => zsets::zcard,
    "zscore" 3 R => zsets::zscore,
    "zcount" 4 R => zsets::zcount,
    "zremrangebyrank" 4 W => zsets::zremrangebyrank,
    "zremrangebyscore" 4 W => zsets::zremrangebyscore,
    "zremrangebylex" 4 W => zsets::zremrangebylex,
    "zrangebylex" -4 R => zsets::zrangebylex,
    "zrevrangebylex" -4 R => zsets::zrevrangebylex,
    "zlexcount" 4 R => zsets::zlexcount,
    "zrangestore" -5 WM => zsets::zrangestore,
    "zincrby" 4 WM => zsets::zincrby,
    "zrank" 3 R => zsets::zrank,
    "zrevrank" 3 R => zsets::zrevrank,
    "zmscore" -3 R => zsets::zmscore,
    "zpopmin" -2 W => zsets::zpopmin,
    "zpopmax" -2 W => zsets::zpopmax,
    "zmpop" -4 W => zsets::zmpop,
    "bzpopmin" -3 W => blocking::blocking,
    "bzpopmax" -3 W => blocking::blocking,
    "bzmpop" -5 W => blocking::blocking,
    "zrandmember" -2 R => zsets::zrandmember,
    "zunion" -3 R => zset_algebra::zunion,
    "zinter" -3 R => zset_algebra::zinter,
    "zdiff" -3 R => zset_algebra::zdiff,
    "zunionstore" -4 WM => zset_algebra::zunionstore,
    "zinterstore" -4 WM => zset_algebra::zinterstore,
    "zdiffstore" -4 WM => zset_algebra::zdiffstore,
    "zintercard" -3 R => zset_algebra::zintercard,
    "zscan" -3 R => collection_scan::zscan,
    // transactions
    "multi" 1 Flags::TX_CONTROL => transactions::multi,
    "exec" 1 Flags::TX_CONTROL => transactions::exec,
    "discard" 1 Flags::TX_CONTROL => transactions::discard,
    "watch" -2 Flags::TX_CONTROL => transactions::watch,
    "unwatch" 1 C => transactions::unwatch,
    // scripting: EVAL logs the write commands it ran (its effects), never itself
    "eval" -3 W => scripting::eval,
    "evalsha" -3 W => scripting::evalsha,
    "eval_ro" -3 R => scripting::eval_ro,
    "evalsha_ro" -3 R => scripting::evalsha_ro,
    "script" -2 C => scripting::script,
    // server
    "info" -1 C => server::info,
    "time" 1 C => server::time,
    "config" -2 C => config::config,
    "debug" -2 C => server::debug,
    "memory" -2 R => memory::memory,
];

/// The subcommands of container commands with their arity (Redis 7.0's command table):
/// an unknown one, or one with the wrong argument count, is rejected before it runs or
/// queues, as Redis's `processCommand` rejects it.
static SUBCOMMANDS: &[(&str, &[(&str, i32)])] = &[
    (
        "client",
        &[("getname", 2), ("id", 2), ("no-evict", 3), ("setname", 3)],
    ),
    (
        "config",
        &[
            ("get", -3),
            ("help", 2),
            ("resetstat", 2),
            ("rewrite", 2),
            ("set", -4),
        ],
    ),
    ("memory", &[("help", 2), ("usage", -3)]),
    (
        "object",
        &[
            ("encoding", 3),
            ("freq", 3),
            ("help", 2),
            ("idletime", 3),
            ("refcount", 3),
        ],
    ),
    (
        "script",
        &[
            ("debug", 3),
            ("exists", -3),
            ("flush", -2),
            ("help", 2),
            ("kill", 2),
            ("load", 3),
        ],
    ),
];

/// Redis 7.2's subcommands of the model's containers, with [`SUBCOMMANDS`] when
/// `ModelConfig::client_commands_7_2` is on.
static SUBCOMMANDS_7_2: &[(&str, &[(&str, i32)])] =
    &[("client", &[("no-touch", 3), ("setinfo", 4)])];

/// Redis's rejection of an unknown subcommand or its wrong arity, if `args` has one;
/// Redis 7.2's subcommands are known when `redis_7_2` is.
pub fn subcommand_rejection(command: &Command, args: &[Bytes], redis_7_2: bool) -> Option<Reply> {
    let (_, subs) = SUBCOMMANDS.iter().find(|(name, _)| *name == command.name)?;
    let sub = args.get(1)?;
    let known = |subs: &'static [(&'static str, i32)]| {
        subs.iter()
            .find(|(name, _)| sub.eq_ignore_ascii_case(name.as_bytes()))
    };
    let newer = || {
        SUBCOMMANDS_7_2
            .iter()
            .filter(|_| redis_7_2)
            .find(|(name, _)| *name == command.name)
            .and_then(|(_, subs)| known(subs))
    };
    let Some((name, arity)) = known(subs).or_else(newer) else {
        let shown = String::from_utf8_lossy(&sub[..sub.len().min(128)]).into_owned();
        let container = command.name.to_ascii_uppercase();
        return Some(Reply::error(format!(
            "ERR unknown subcommand '{shown}'. Try {container} HELP."
        )));
    };
    let count = args.len() as i32;
    let fits = if *arity >= 0 {
        count == *arity
    } else {
        count >= -arity
    };
    (!fits).then(|| arity_error(&format!("{}|{name}", command.name)))
}

/// Longest command name in the table: a longer name is unknown without a search.
const NAME_BYTES_MAX: usize = 16;

/// The table entry for a command name, case-insensitively.
pub fn lookup(name: &[u8]) -> Option<&'static Command> {
    // Every request looks its command up (and EXEC each queued one): one hash lookup of
    // the lowercased name instead of a search of the table.
    if name.len() > NAME_BYTES_MAX {
        return None;
    }
    let mut lower = [0u8; NAME_BYTES_MAX];
    let lower = &mut lower[..name.len()];
    lower.copy_from_slice(name);
    lower.make_ascii_lowercase();
    by_name().get(&*lower).copied()
}

/// The table by name (the table itself keeps its documentation order).
fn by_name() -> &'static FxHashMap<&'static [u8], &'static Command> {
    static BY_NAME: std::sync::OnceLock<FxHashMap<&'static [u8], &'static Command>> =
        std::sync::OnceLock::new();
    BY_NAME.get_or_init(|| {
        let mut index = FxHashMap::default();
        for command in COMMANDS {
            assert!(command.name.len() <= NAME_BYTES_MAX);
            assert!(command
                .name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_'));
            let previous = index.insert(command.name.as_bytes(), command);
            assert!(previous.is_none(), "command names are unique");
        }
        index
    })
}

/// Every supported command name, for documentation and the differential tests.
pub fn names() -> impl Iterator<Item = &'static str> {
    COMMANDS.iter().map(|command| command.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_finds_every_name_in_any_case() {
        for command in COMMANDS {
            let upper = command.name.to_ascii_uppercase();
            assert_eq!(lookup(command.name.as_bytes()).unwrap().name, command.name);
            assert_eq!(lookup(upper.as_bytes()).unwrap().name, command.name);
        }
        for unknown in [
            &b""[..],
            b"gett",
            b"ge",
            b"zrevrangebyscorex",
            b"g\xc3\xa9t",
        ] {
            assert!(lookup(unknown).is_none(), "{unknown:?}");
        }
        assert_eq!(
            NAME_BYTES_MAX,
            COMMANDS.iter().map(|c| c.name.len()).max().unwrap()
        );
    }
}
