//! SSCAN, HSCAN, ZSCAN: one call returns the whole collection (cursor 0), as Redis does
//! for the small encodings; for large ones Redis pages through its hash table, which a
//! client's loop until cursor 0 cannot tell apart. MATCH filters, COUNT is validated.

use crate::model::commands::cmd::keys::{parse_cursor, scan_reply};
use crate::model::data::glob;
use crate::model::data::value::Value;
use crate::model::protocol::args::{int, is, syntax_error, wrong_type, CmdResult};
use crate::model::protocol::reply::{format_double, Reply};
use crate::model::state::ctx::Ctx;
use bytes::Bytes;

/// Which collection type a scan reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Of {
    Set,
    Hash,
    ZSet,
}

/// The MATCH pattern of `KEY CURSOR [MATCH p] [COUNT n]` options.
fn options(args: &[Bytes]) -> Result<Option<Bytes>, Reply> {
    let mut pattern = None;
    let mut rest = args;
    while let Some((option, tail)) = rest.split_first() {
        let Some(value) = tail.first() else {
            return Err(syntax_error());
        };
        if is(option, "match") {
            pattern = Some(value.clone());
        } else if is(option, "count") {
            if int(value)? < 1 {
                return Err(syntax_error());
            }
        } else {
            return Err(syntax_error());
        }
        rest = &tail[1..];
    }
    Ok(pattern)
}

/// The (name, value) items of the collection; `None` if the key is missing.
fn items(value: &Value, of: Of) -> Option<Vec<(Bytes, Option<Bytes>)>> {
    Some(match (value, of) {
        (Value::Set(set), Of::Set) => Value::set_members_ordered(set)
            .into_iter()
            .map(|m| (m, None))
            .collect(),
        (Value::Hash(hash), Of::Hash) => hash
            .iter()
            .map(|(f, v)| (f.clone(), Some(v.clone())))
            .collect(),
        (Value::ZSet(zset), Of::ZSet) => zset
            .iter()
            .map(|(m, s)| (m.clone(), Some(Bytes::from(format_double(s)))))
            .collect(),
        _ => return None,
    })
}

fn scan(ctx: &mut Ctx, args: &[Bytes], of: Of) -> CmdResult {
    parse_cursor(&args[2]).ok_or_else(|| Reply::error("ERR invalid cursor"))?;
    let now_ms = ctx.now_ms;
    let Some(entry) = ctx.db().get(&args[1], now_ms) else {
        return Ok(scan_reply(0, Vec::new()));
    };
    let all = items(&entry.value, of).ok_or_else(wrong_type)?;
    let pattern = options(&args[3..])?;
    let found = all
        .into_iter()
        .filter(|(name, _)| pattern.as_ref().is_none_or(|p| glob::matches(p, name)))
        .flat_map(|(name, value)| std::iter::once(name).chain(value))
        .collect();
    Ok(scan_reply(0, found))
}

pub fn sscan(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    scan(ctx, args, Of::Set)
}

pub fn hscan(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    scan(ctx, args, Of::Hash)
}

pub fn zscan(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    scan(ctx, args, Of::ZSet)
}
