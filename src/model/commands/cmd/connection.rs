//! Connection commands: HELLO, AUTH, SELECT, PING, ECHO, CLIENT, QUIT, RESET.
//!
//! What clients send when they connect: redis-rs, redis-py, Jedis, go-redis and Lettuce
//! open with `HELLO <2|3> [AUTH user pass] [SETNAME name]` (or `AUTH` and
//! `CLIENT SETNAME`), then `CLIENT SETINFO LIB-NAME`/`LIB-VER` (Redis 7.2), `SELECT`.
//! `CLIENT SETINFO` and `CLIENT NO-TOUCH` answer as Redis 7.2 does when
//! [`ModelConfig::client_commands_7_2`](crate::model::ModelConfig) is on, else Redis
//! 7.0.15's unknown-subcommand error (the command table decides, before the handler).

use crate::model::protocol::args::{arity_error, int, is, CmdResult};
use crate::model::protocol::reply::{Protocol, Reply};
use crate::model::state::ctx::Ctx;
use bytes::Bytes;

/// The Redis version the model answers as (the differential tests' reference).
pub const REDIS_VERSION: &str = "7.0.15";

pub fn hello(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let mut protocol = ctx.client.protocol;
    let mut rest = &args[1..];
    if let Some((version, tail)) = rest.split_first() {
        protocol = match int(version) {
            Ok(2) => Protocol::Resp2,
            Ok(3) => Protocol::Resp3,
            Ok(_) => return Err(Reply::error("NOPROTO unsupported protocol version")),
            Err(_) => {
                return Err(Reply::error(
                    "ERR Protocol version is not an integer or out of range",
                ))
            }
        };
        rest = tail;
    }
    let mut credentials = None;
    let mut name = None;
    while let Some((option, tail)) = rest.split_first() {
        if is(option, "auth") && tail.len() >= 2 {
            credentials = Some((tail[0].clone(), tail[1].clone()));
            rest = &tail[2..];
        } else if is(option, "setname") && !tail.is_empty() {
            // Checked in argument order, before authentication (Redis 7.0 and 7.2 alike);
            // set only once authenticated (7.2: a refused HELLO leaves the name as it was).
            name = Some(validated_name(tail[0].clone())?);
            rest = &tail[1..];
        } else {
            let option = formatted(option);
            return Err(Reply::error(format!(
                "ERR Syntax error in HELLO option '{option}'"
            )));
        }
    }
    if let Some((user, password)) = credentials {
        check_credentials(ctx, Some(&user), &password)?;
        ctx.client.authenticated = true;
    }
    if !ctx.client.authenticated {
        return Err(Reply::error(
            "NOAUTH HELLO must be called with the client already authenticated, otherwise the \
             HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and \
             select the RESP protocol version at the same time",
        ));
    }
    if let Some(name) = name {
        ctx.client.name = name;
    }
    ctx.client.protocol = protocol;
    Ok(hello_map(ctx.client.id, protocol))
}

fn hello_map(id: u64, protocol: Protocol) -> Reply {
    let proto = match protocol {
        Protocol::Resp2 => 2,
        Protocol::Resp3 => 3,
    };
    let field = |name: &'static str| Reply::bulk(Bytes::from_static(name.as_bytes()));
    Reply::Map(vec![
        (field("server"), field("redis")),
        (field("version"), field(REDIS_VERSION)),
        (field("proto"), Reply::Integer(proto)),
        (field("id"), Reply::Integer(id as i64)),
        (field("mode"), field("standalone")),
        (field("role"), field("master")),
        (field("modules"), Reply::Array(Vec::new())),
    ])
}

pub fn auth(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let (user, password) = match args.len() {
        2 => (None, &args[1]),
        3 => (Some(&args[1]), &args[2]),
        _ => return Err(Reply::error(crate::model::protocol::args::SYNTAX)),
    };
    if user.is_none() && ctx.node.config.password.is_none() {
        return Err(Reply::error(
            "ERR AUTH <password> called without any password configured for the default user. \
             Are you sure your configuration is correct?",
        ));
    }
    check_credentials(ctx, user, password)?;
    ctx.client.authenticated = true;
    Ok(Reply::ok())
}

/// The only user is `default`, with `requirepass` as its password (or none at all).
fn check_credentials(ctx: &Ctx, user: Option<&Bytes>, password: &[u8]) -> Result<(), Reply> {
    let user_ok = user.is_none_or(|user| user.as_ref() == b"default");
    let password_ok = match &ctx.node.config.password {
        Some(expected) => expected.as_bytes() == password,
        None => true,
    };
    if user_ok && password_ok {
        Ok(())
    } else {
        Err(Reply::error(
            "WRONGPASS invalid username-password pair or user is disabled.",
        ))
    }
}

pub fn select(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let index = int(&args[1])?;
    if index < 0 || index as usize >= ctx.node.dbs.len() {
        return Err(Reply::error("ERR DB index is out of range"));
    }
    ctx.client.db = index as usize;
    Ok(Reply::ok())
}

pub fn ping(_ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    match args.len() {
        1 => Ok(Reply::status("PONG")),
        2 => Ok(Reply::Bulk(args[1].clone())),
        _ => Err(arity_error("ping")),
    }
}

pub fn echo(_ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    // A test's handler that panics: the node's failure isolation.
    #[cfg(test)]
    if args[1].as_ref() == b"amnesia-test-panic" {
        panic!("ECHO amnesia-test-panic was called");
    }
    Ok(Reply::Bulk(args[1].clone()))
}

pub fn client(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    // The command table checked the subcommand and its arity.
    let sub = &args[1];
    if is(sub, "id") {
        Ok(Reply::Integer(ctx.client.id as i64))
    } else if is(sub, "getname") {
        Ok(Reply::bulk_or_nil(ctx.client.name.clone()))
    } else if is(sub, "setinfo") {
        client_setinfo(&args[2], &args[3])
    } else if is(sub, "no-evict") {
        // Accepted and kept nowhere: the model never evicts a client (it has no
        // `maxmemory-clients`), so the flag has nothing to exempt it from.
        on_off(&args[2]).map(|_| Reply::ok())
    } else if is(sub, "no-touch") {
        ctx.client.no_touch = on_off(&args[2])?;
        Ok(Reply::ok())
    } else {
        assert!(is(sub, "setname"));
        ctx.client.name = validated_name(args[2].clone())?;
        Ok(Reply::ok())
    }
}

/// `CLIENT SETINFO LIB-NAME|LIB-VER value` (Redis 7.2's `clientSetinfoCommand`): the
/// attribute, then the value's characters. The model keeps neither (it has no
/// `CLIENT LIST` or `CLIENT INFO` to show them).
fn client_setinfo(attribute: &Bytes, value: &Bytes) -> CmdResult {
    if !is(attribute, "lib-name") && !is(attribute, "lib-ver") {
        let attribute = formatted(attribute);
        return Err(Reply::error(format!(
            "ERR Unrecognized option '{attribute}'"
        )));
    }
    if !printable(value) {
        // Redis formats the attribute as the client sent it.
        let attribute = formatted(attribute);
        return Err(Reply::error(format!(
            "ERR {attribute} cannot contain spaces, newlines or special characters."
        )));
    }
    Ok(Reply::ok())
}

/// `ON` or `OFF` (any case) as a flag; Redis's syntax error otherwise.
fn on_off(value: &Bytes) -> Result<bool, Reply> {
    if is(value, "on") {
        Ok(true)
    } else if is(value, "off") {
        Ok(false)
    } else {
        Err(Reply::error(crate::model::protocol::args::SYNTAX))
    }
}

/// Redis's `validateClientAttr`: printable ASCII without spaces (what keeps `CLIENT LIST`
/// splittable on spaces), read as a C string: a NUL ends what is checked.
fn printable(value: &[u8]) -> bool {
    c_string(value).iter().all(|b| (b'!'..=b'~').contains(b))
}

/// The bytes up to the first NUL, as C's `%s` and `strlen` see them.
fn c_string(value: &[u8]) -> &[u8] {
    value.split(|&b| b == 0).next().unwrap_or(value)
}

/// An argument as `addReplyErrorFormat`'s `%s` prints it: up to a NUL, with CR and LF
/// made spaces (an error reply is one line).
fn formatted(value: &[u8]) -> String {
    String::from_utf8_lossy(c_string(value)).replace(['\r', '\n'], " ")
}

/// A client name: printable ASCII without spaces; empty clears it.
fn validated_name(name: Bytes) -> Result<Option<Bytes>, Reply> {
    if name.is_empty() {
        return Ok(None);
    }
    if !printable(&name) {
        return Err(Reply::error(
            "ERR Client names cannot contain spaces, newlines or special characters.",
        ));
    }
    Ok(Some(name))
}

pub fn quit(_ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    Ok(Reply::ok())
}

pub fn reset(ctx: &mut Ctx, _args: &[Bytes]) -> CmdResult {
    ctx.client.end_multi();
    ctx.node.unwatch_all(ctx.client);
    ctx.client.protocol = Protocol::Resp2;
    ctx.client.db = 0;
    ctx.client.name = None;
    ctx.client.no_touch = false;
    ctx.client.authenticated = ctx.node.config.password.is_none();
    Ok(Reply::status("RESET"))
}
