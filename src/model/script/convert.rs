//! Redis replies to Lua values (what `redis.call` answers) and Lua values to Redis replies
//! (what a script returns), with Redis 7.0's rules (`script_lua.c`).
//!
//! Reply to Lua, as the reply would reach a client of the script's protocol
//! (`redis.setresp`, RESP2 by default): integer → number, bulk → string, null bulk and
//! null array → `false` in RESP2 (`nil` in RESP3), status → `{ok=...}`, error →
//! `{err=...}`, array → table; in RESP2 a map is a flat array, a set an array, a double
//! a bulk string and a boolean the integer 1 or 0; in RESP3 they are `{map={k=v}}`,
//! `{set={m=true}}`, `{double=n}` and booleans.
//!
//! Lua to reply: string → bulk, number → integer (truncated), boolean → 1 or null in
//! RESP2, a boolean in RESP3; a table with a string `err` field → error, `ok` → status,
//! a number `double` → double, a table `map`/`set` → map/set, a `verbatim_string` table →
//! verbatim string; any other table → an array of its elements `1..` up to the first nil;
//! anything else → null.

use crate::model::data::number::truncate_to_i64;
use crate::model::protocol::reply::Reply;
use bytes::Bytes;
use mlua::{Lua, Result, Table, Value};

/// Deeper tables than this are answered as an error element instead of recursing (Redis
/// fails with "reached lua stack limit" about there).
const DEPTH_MAX: usize = 200;

/// Redis's `luaPushErrorBuff`: an error text (`-CODE message`, `CODE message` after
/// `redis.error_reply` added the dash, or a bare message that gets `ERR`) as the
/// `{err="CODE message"}` table scripts see.
pub(crate) fn error_table(lua: &Lua, text: &[u8]) -> Result<Table> {
    let (code, message): (&[u8], &[u8]) = match text.strip_prefix(b"-") {
        Some(rest) => match rest.iter().position(|&b| b == b' ') {
            Some(space) => (&rest[..space], &rest[space + 1..]),
            None => (b"ERR", rest),
        },
        None => (b"ERR", text),
    };
    let message = trim_newlines(message);
    let mut full = Vec::with_capacity(code.len() + 1 + message.len());
    full.extend_from_slice(code);
    full.push(b' ');
    full.extend_from_slice(message);
    let table = lua.create_table()?;
    table.raw_set("err", lua.create_string(full)?)?;
    Ok(table)
}

fn trim_newlines(mut text: &[u8]) -> &[u8] {
    while let [b'\r' | b'\n', rest @ ..] = text {
        text = rest;
    }
    while let [rest @ .., b'\r' | b'\n'] = text {
        text = rest;
    }
    text
}

/// A table with a single string field.
pub(crate) fn single_field(lua: &Lua, field: &str, value: &[u8]) -> Result<Table> {
    let table = lua.create_table()?;
    table.raw_set(field, lua.create_string(value)?)?;
    Ok(table)
}

/// The Lua value of a command's reply, as a client of `resp3` (or RESP2) would read it.
pub(crate) fn reply_to_lua(lua: &Lua, reply: &Reply, resp3: bool) -> Result<Value> {
    let value = match reply {
        Reply::Status(s) => Value::Table(single_field(lua, "ok", s)?),
        Reply::Error(e) => {
            let mut text = Vec::with_capacity(e.len() + 1);
            text.push(b'-');
            text.extend_from_slice(e.as_bytes());
            let table = error_table(lua, &text)?;
            table.raw_set("ignore_error_stats_update", true)?;
            Value::Table(table)
        }
        Reply::Integer(i) => Value::Number(*i as f64),
        Reply::Bulk(b) => Value::String(lua.create_string(b)?),
        Reply::Nil | Reply::NilArray if resp3 => Value::Nil,
        Reply::Nil | Reply::NilArray => Value::Boolean(false),
        Reply::Array(items) => array(lua, items, resp3)?,
        Reply::Set(items) if !resp3 => array(lua, items, resp3)?,
        Reply::Set(items) => {
            let set = lua.create_table()?;
            for item in items {
                set.set(reply_to_lua(lua, item, resp3)?, true)?;
            }
            Value::Table(wrap(lua, "set", set)?)
        }
        Reply::Map(pairs) if !resp3 => {
            let table = lua.create_table()?;
            for (index, item) in pairs.iter().flat_map(|(k, v)| [k, v]).enumerate() {
                table.set(index + 1, reply_to_lua(lua, item, resp3)?)?;
            }
            Value::Table(table)
        }
        Reply::Map(pairs) => {
            let map = lua.create_table()?;
            for (key, item) in pairs {
                let key = reply_to_lua(lua, key, resp3)?;
                map.set(key, reply_to_lua(lua, item, resp3)?)?;
            }
            Value::Table(wrap(lua, "map", map)?)
        }
        Reply::Double(d) if !resp3 => {
            let text = crate::model::protocol::reply::format_double(*d);
            Value::String(lua.create_string(text)?)
        }
        Reply::Double(d) => {
            let table = lua.create_table()?;
            table.raw_set("double", *d)?;
            Value::Table(table)
        }
        Reply::Bool(b) if !resp3 => Value::Number(if *b { 1.0 } else { 0.0 }),
        Reply::Bool(b) => Value::Boolean(*b),
        Reply::Verbatim(b) if !resp3 => Value::String(lua.create_string(b)?),
        Reply::Verbatim(b) => {
            let inner = lua.create_table()?;
            inner.raw_set("string", lua.create_string(b)?)?;
            inner.raw_set("format", "txt")?;
            Value::Table(wrap(lua, "verbatim_string", inner)?)
        }
    };
    Ok(value)
}

fn array(lua: &Lua, items: &[Reply], resp3: bool) -> Result<Value> {
    let table = lua.create_table()?;
    for (index, item) in items.iter().enumerate() {
        // `lua_settable` with a nil value (a RESP3 null) leaves a hole, as in Redis.
        table.set(index + 1, reply_to_lua(lua, item, resp3)?)?;
    }
    Ok(Value::Table(table))
}

fn wrap(lua: &Lua, field: &str, inner: Table) -> Result<Table> {
    let table = lua.create_table()?;
    table.raw_set(field, inner)?;
    Ok(table)
}

/// Redis's `luaReplyToRedisReply`; `resp3` is the script's protocol (`redis.setresp`),
/// which decides how booleans are answered.
pub(crate) fn lua_to_reply(value: &Value, resp3: bool) -> Reply {
    to_reply(value, resp3, 0)
}

fn to_reply(value: &Value, resp3: bool, depth: usize) -> Reply {
    if depth > DEPTH_MAX {
        return Reply::error("ERR reached lua stack limit");
    }
    match value {
        Value::String(s) => Reply::Bulk(Bytes::copy_from_slice(&s.as_bytes())),
        Value::Boolean(b) if resp3 => Reply::Bool(*b),
        Value::Boolean(true) => Reply::Integer(1),
        Value::Boolean(false) => Reply::Nil,
        Value::Integer(i) => Reply::Integer(*i),
        Value::Number(n) => Reply::Integer(truncate_to_i64(*n)),
        Value::Table(table) => table_to_reply(table, resp3, depth),
        _ => Reply::Nil,
    }
}

fn table_to_reply(table: &Table, resp3: bool, depth: usize) -> Reply {
    let field = |name: &str| table.raw_get::<Value>(name).unwrap_or(Value::Nil);
    if let Value::String(err) = field("err") {
        return Reply::Error(one_line(&err.as_bytes()));
    }
    if let Value::String(ok) = field("ok") {
        return Reply::Status(Bytes::from(one_line(&ok.as_bytes()).into_bytes()));
    }
    match field("double") {
        Value::Number(d) => return Reply::Double(d),
        Value::Integer(i) => return Reply::Double(i as f64),
        _ => {}
    }
    if let Value::Table(verbatim) = field("verbatim_string") {
        let format = verbatim.raw_get::<Value>("format").unwrap_or(Value::Nil);
        let string = verbatim.raw_get::<Value>("string").unwrap_or(Value::Nil);
        if let (Value::String(_), Value::String(s)) = (format, string) {
            return Reply::Verbatim(Bytes::copy_from_slice(&s.as_bytes()));
        }
    }
    if let Value::Table(map) = field("map") {
        let pairs = map
            .pairs::<Value, Value>()
            .filter_map(|pair| pair.ok())
            .map(|(k, v)| {
                (
                    to_reply(&k, resp3, depth + 1),
                    to_reply(&v, resp3, depth + 1),
                )
            })
            .collect();
        return Reply::Map(pairs);
    }
    if let Value::Table(set) = field("set") {
        let members = set
            .pairs::<Value, Value>()
            .filter_map(|pair| pair.ok())
            .map(|(k, _)| to_reply(&k, resp3, depth + 1))
            .collect();
        return Reply::Set(members);
    }
    let mut items = Vec::new();
    for index in 1.. {
        match table.raw_get::<Value>(index) {
            Ok(Value::Nil) | Err(_) => break,
            Ok(item) => items.push(to_reply(&item, resp3, depth + 1)),
        }
    }
    Reply::Array(items)
}

/// Error and status texts on one line, as Redis sends them (`\r` and `\n` become spaces).
pub(crate) fn one_line(text: &[u8]) -> String {
    String::from_utf8_lossy(text).replace(['\r', '\n'], " ")
}
