//! Sorted set commands: ZADD (NX/XX/GT/LT/CH/INCR), ZREM, the ZRANGE family, ZCARD,
//! ZSCORE, ZCOUNT, ZREMRANGEBYRANK, ZREMRANGEBYSCORE.

use crate::model::args::{
    float, index_range, int, is, strtod, syntax_error, wrong_type, CmdResult,
};
use crate::model::keyspace::Db;
use crate::model::node::Ctx;
use crate::model::reply::{Protocol, Reply};
use crate::model::value::{Value, ZSet};
use bytes::Bytes;

fn zset_mut<'a>(db: &'a mut Db, key: &[u8], now_ms: u64) -> Result<Option<&'a mut ZSet>, Reply> {
    match db.get_mut(key, now_ms) {
        None => Ok(None),
        Some(entry) => match &mut entry.value {
            Value::ZSet(zset) => Ok(Some(zset)),
            _ => Err(wrong_type()),
        },
    }
}

#[derive(Default)]
struct ZaddFlags {
    nx: bool,
    xx: bool,
    gt: bool,
    lt: bool,
    ch: bool,
    incr: bool,
}

/// ZADD's flags, then its score/member pairs, checked in Redis 7.0's order.
fn zadd_parse(args: &[Bytes]) -> Result<(ZaddFlags, Vec<(f64, Bytes)>), Reply> {
    let mut flags = ZaddFlags::default();
    let mut at = 2;
    while let Some(arg) = args.get(at) {
        let flag = match () {
            _ if is(arg, "nx") => &mut flags.nx,
            _ if is(arg, "xx") => &mut flags.xx,
            _ if is(arg, "gt") => &mut flags.gt,
            _ if is(arg, "lt") => &mut flags.lt,
            _ if is(arg, "ch") => &mut flags.ch,
            _ if is(arg, "incr") => &mut flags.incr,
            _ => break,
        };
        *flag = true;
        at += 1;
    }
    let elements = &args[at..];
    if elements.is_empty() || elements.len() % 2 != 0 {
        return Err(syntax_error());
    }
    if flags.nx && flags.xx {
        return Err(Reply::error(
            "ERR XX and NX options at the same time are not compatible",
        ));
    }
    let exclusive = [flags.gt, flags.lt, flags.nx];
    if exclusive.into_iter().filter(|&flag| flag).count() > 1 {
        return Err(Reply::error(
            "ERR GT, LT, and/or NX options at the same time are not compatible",
        ));
    }
    if flags.incr && elements.len() > 2 {
        return Err(Reply::error(
            "ERR INCR option supports a single increment-element pair",
        ));
    }
    let pairs = elements
        .chunks(2)
        .map(|pair| float(&pair[0]).map(|score| (score, pair[1].clone())))
        .collect::<Result<Vec<_>, Reply>>()?;
    Ok((flags, pairs))
}

pub fn zadd(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let (flags, pairs) = zadd_parse(args)?;
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let key = &args[1];
    if zset_mut(db, key, now_ms)?.is_none() {
        if flags.xx {
            return Ok(if flags.incr {
                Reply::Nil
            } else {
                Reply::Integer(0)
            });
        }
        db.set(key.clone(), Value::ZSet(ZSet::default()), None);
    }
    let zset = zset_mut(db, key, now_ms)?.expect("exists");
    let (mut added, mut changed, mut incr_result) = (0, 0, None);
    for (score, member) in pairs {
        let current = zset.score(&member);
        let new_score = match (current, flags.incr) {
            (Some(current), true) => current + score,
            _ => score,
        };
        if new_score.is_nan() {
            db.remove_if_empty(key);
            return Err(Reply::error("ERR resulting score is not a number (NaN)"));
        }
        let skip = match current {
            Some(current) => {
                flags.nx || (flags.gt && new_score <= current) || (flags.lt && new_score >= current)
            }
            None => flags.xx,
        };
        if skip {
            continue;
        }
        incr_result = Some(new_score);
        match current {
            None => added += 1,
            Some(current) if current != new_score => changed += 1,
            Some(_) => {}
        }
        zset.insert(member, new_score);
    }
    db.touch(key);
    db.remove_if_empty(key);
    Ok(match flags.incr {
        true => incr_result.map_or(Reply::Nil, Reply::Double),
        false => Reply::Integer(added + if flags.ch { changed } else { 0 }),
    })
}

pub fn zrem(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(zset) = zset_mut(db, &args[1], now_ms)? else {
        return Ok(Reply::Integer(0));
    };
    let removed = args[2..]
        .iter()
        .filter(|member| zset.remove(member))
        .count();
    if removed > 0 {
        db.touch(&args[1]);
        db.remove_if_empty(&args[1]);
    }
    Ok(Reply::Integer(removed as i64))
}

pub fn zcard(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let len = zset_mut(ctx.db(), &args[1], now_ms)?.map_or(0, |zset| zset.len());
    Ok(Reply::Integer(len as i64))
}

pub fn zscore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let score = zset_mut(ctx.db(), &args[1], now_ms)?.and_then(|zset| zset.score(&args[2]));
    Ok(score.map_or(Reply::Nil, Reply::Double))
}

/// A score interval with optional exclusive ends (`(1.5`).
#[derive(Clone, Copy)]
struct ScoreRange {
    min: f64,
    min_exclusive: bool,
    max: f64,
    max_exclusive: bool,
}

impl ScoreRange {
    fn parse(min: &[u8], max: &[u8]) -> Result<ScoreRange, Reply> {
        let bound = |arg: &[u8]| match arg.strip_prefix(b"(") {
            Some(rest) => strtod_bound(rest).map(|v| (v, true)),
            None => strtod_bound(arg).map(|v| (v, false)),
        };
        let error = || Reply::error("ERR min or max is not a float");
        let (min, min_exclusive) = bound(min).ok_or_else(error)?;
        let (max, max_exclusive) = bound(max).ok_or_else(error)?;
        Ok(ScoreRange {
            min,
            min_exclusive,
            max,
            max_exclusive,
        })
    }

    fn contains(&self, score: f64) -> bool {
        let above_min = if self.min_exclusive {
            score > self.min
        } else {
            score >= self.min
        };
        let below_max = if self.max_exclusive {
            score < self.max
        } else {
            score <= self.max
        };
        above_min && below_max
    }
}

/// A range bound read like Redis's `_zslParseRange`: `strtod` must consume the whole
/// argument, so leading blanks and out-of-range values are allowed and an empty bound is
/// 0; NaN is refused.
fn strtod_bound(arg: &[u8]) -> Option<f64> {
    if arg.is_empty() {
        return Some(0.0);
    }
    strtod(arg).map(|(value, _)| value)
}

/// How a ZRANGE-family call selects members.
enum Selection {
    Rank { start: i64, stop: i64 },
    Score(ScoreRange),
}

struct RangeQuery {
    selection: Selection,
    reverse: bool,
    with_scores: bool,
    /// (offset, count); a negative count means all.
    limit: Option<(i64, i64)>,
}

/// The members a query selects, in reply order.
fn select(zset: &ZSet, query: &RangeQuery) -> Vec<(Bytes, f64)> {
    let ordered: Vec<(&Bytes, f64)> = if query.reverse {
        zset.iter().rev().collect()
    } else {
        zset.iter().collect()
    };
    let picked: Vec<(&Bytes, f64)> = match &query.selection {
        Selection::Rank { start, stop } => match index_range(*start, *stop, ordered.len()) {
            Some((from, to)) => ordered[from..=to].to_vec(),
            None => Vec::new(),
        },
        Selection::Score(range) => ordered
            .into_iter()
            .filter(|(_, score)| range.contains(*score))
            .collect(),
    };
    let picked = match query.limit {
        Some((offset, _)) if offset < 0 => Vec::new(),
        Some((offset, count)) => {
            let count = if count < 0 {
                usize::MAX
            } else {
                count as usize
            };
            picked
                .into_iter()
                .skip(offset as usize)
                .take(count)
                .collect()
        }
        None => picked,
    };
    picked
        .into_iter()
        .map(|(member, score)| (member.clone(), score))
        .collect()
}

fn range_reply(members: Vec<(Bytes, f64)>, with_scores: bool, protocol: Protocol) -> Reply {
    if !with_scores {
        return Reply::bulks(members.into_iter().map(|(member, _)| member));
    }
    let items = match protocol {
        Protocol::Resp2 => members
            .into_iter()
            .flat_map(|(m, s)| [Reply::Bulk(m), Reply::Double(s)])
            .collect(),
        Protocol::Resp3 => members
            .into_iter()
            .map(|(m, s)| Reply::Array(vec![Reply::Bulk(m), Reply::Double(s)]))
            .collect(),
    };
    Reply::Array(items)
}

/// Which spelling of the range command is being parsed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RangeCommand {
    /// ZRANGE: BYSCORE, REV, LIMIT and WITHSCORES are all options.
    Unified,
    /// ZRANGEBYSCORE / ZREVRANGEBYSCORE: scores, WITHSCORES and LIMIT.
    ByScore { reverse: bool },
    /// ZREVRANGE: ranks and WITHSCORES.
    RevRank,
}

fn parse_range(args: &[Bytes], command: RangeCommand) -> Result<RangeQuery, Reply> {
    let mut reverse = matches!(
        command,
        RangeCommand::ByScore { reverse: true } | RangeCommand::RevRank
    );
    let mut by_score = matches!(command, RangeCommand::ByScore { .. });
    let (mut with_scores, mut limit) = (false, None);
    let mut at = 4;
    while let Some(arg) = args.get(at) {
        let args_left = args.len() - at - 1;
        if is(arg, "withscores") {
            with_scores = true;
        } else if is(arg, "limit") && args_left >= 2 {
            limit = Some((int(&args[at + 1])?, int(&args[at + 2])?));
            at += 2;
        } else if command == RangeCommand::Unified && is(arg, "rev") && !reverse {
            reverse = true;
        } else if command == RangeCommand::Unified && is(arg, "byscore") && !by_score {
            by_score = true;
        } else {
            return Err(syntax_error());
        }
        at += 1;
    }
    if limit.is_some_and(|(_, count)| count != -1) && !by_score {
        return Err(Reply::error(
            "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX",
        ));
    }
    let (low, high) = if reverse && by_score {
        (&args[3], &args[2])
    } else {
        (&args[2], &args[3])
    };
    let selection = if by_score {
        Selection::Score(ScoreRange::parse(low, high)?)
    } else {
        Selection::Rank {
            start: int(low)?,
            stop: int(high)?,
        }
    };
    Ok(RangeQuery {
        selection,
        reverse,
        with_scores,
        limit: limit.filter(|_| by_score),
    })
}

fn range_generic(ctx: &mut Ctx, args: &[Bytes], command: RangeCommand) -> CmdResult {
    let query = parse_range(args, command)?;
    let now_ms = ctx.now_ms;
    let protocol = ctx.client.protocol;
    let Some(zset) = zset_mut(ctx.db(), &args[1], now_ms)? else {
        return Ok(Reply::Array(Vec::new()));
    };
    Ok(range_reply(
        select(zset, &query),
        query.with_scores,
        protocol,
    ))
}

pub fn zrange(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    range_generic(ctx, args, RangeCommand::Unified)
}

pub fn zrangebyscore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    range_generic(ctx, args, RangeCommand::ByScore { reverse: false })
}

pub fn zrevrangebyscore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    range_generic(ctx, args, RangeCommand::ByScore { reverse: true })
}

pub fn zrevrange(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    range_generic(ctx, args, RangeCommand::RevRank)
}

pub fn zcount(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let range = ScoreRange::parse(&args[2], &args[3])?;
    let now_ms = ctx.now_ms;
    let count = zset_mut(ctx.db(), &args[1], now_ms)?.map_or(0, |zset| {
        zset.iter()
            .filter(|(_, score)| range.contains(*score))
            .count()
    });
    Ok(Reply::Integer(count as i64))
}

/// Remove the members `query` selects; returns how many.
fn remove_selected(ctx: &mut Ctx, key: &Bytes, query: RangeQuery) -> CmdResult {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let Some(zset) = zset_mut(db, key, now_ms)? else {
        return Ok(Reply::Integer(0));
    };
    let doomed = select(zset, &query);
    doomed.iter().for_each(|(member, _)| {
        zset.remove(member);
    });
    if !doomed.is_empty() {
        db.touch(key);
        db.remove_if_empty(key);
    }
    Ok(Reply::Integer(doomed.len() as i64))
}

pub fn zremrangebyrank(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let selection = Selection::Rank {
        start: int(&args[2])?,
        stop: int(&args[3])?,
    };
    let query = RangeQuery {
        selection,
        reverse: false,
        with_scores: false,
        limit: None,
    };
    remove_selected(ctx, &args[1], query)
}

pub fn zremrangebyscore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let selection = Selection::Score(ScoreRange::parse(&args[2], &args[3])?);
    let query = RangeQuery {
        selection,
        reverse: false,
        with_scores: false,
        limit: None,
    };
    remove_selected(ctx, &args[1], query)
}
