//! Sorted set commands: ZADD (NX/XX/GT/LT/CH/INCR), ZINCRBY, ZREM, the ZRANGE family
//! (by rank, score and lex) and ZRANGESTORE, ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK,
//! ZCOUNT, ZLEXCOUNT, the ZREMRANGEBY family, ZPOPMIN/ZPOPMAX, ZMPOP, ZRANDMEMBER (drawn
//! from the node's seeded stream). The set algebra lives in `zset_algebra`.

use crate::model::data::keyspace::Db;
use crate::model::data::value::{Value, ZSet};
use crate::model::protocol::args::{
    float, index_range, int, is, strtod, syntax_error, wrong_type, CmdResult,
};
use crate::model::protocol::reply::{Protocol, Reply};
use crate::model::state::ctx::Ctx;
use bytes::Bytes;

pub(crate) fn zset_mut<'a>(
    db: &'a mut Db,
    key: &[u8],
    now_ms: u64,
) -> Result<Option<&'a mut ZSet>, Reply> {
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
    // Redis signals the change (breaking WATCHes) only when a member was added or its
    // score changed.
    if added + changed > 0 {
        db.touch(key);
    }
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
    Lex(LexRange),
}

/// A member interval of BYLEX: `[a`, `(a`, `-`, `+`.
#[derive(Clone, Debug)]
struct LexRange {
    min: LexBound,
    max: LexBound,
}

#[derive(Clone, Debug)]
enum LexBound {
    Lowest,
    Highest,
    Inclusive(Bytes),
    Exclusive(Bytes),
}

impl LexBound {
    fn parse(arg: &Bytes) -> Option<LexBound> {
        match arg.first() {
            Some(b'+') if arg.len() == 1 => Some(LexBound::Highest),
            Some(b'-') if arg.len() == 1 => Some(LexBound::Lowest),
            Some(b'(') => Some(LexBound::Exclusive(arg.slice(1..))),
            Some(b'[') => Some(LexBound::Inclusive(arg.slice(1..))),
            _ => None,
        }
    }
}

impl LexRange {
    fn parse(min: &Bytes, max: &Bytes) -> Result<LexRange, Reply> {
        let error = || Reply::error("ERR min or max not valid string range item");
        Ok(LexRange {
            min: LexBound::parse(min).ok_or_else(error)?,
            max: LexBound::parse(max).ok_or_else(error)?,
        })
    }

    fn above_min(&self, member: &[u8]) -> bool {
        match &self.min {
            LexBound::Lowest => true,
            LexBound::Highest => false,
            LexBound::Inclusive(m) => member >= &m[..],
            LexBound::Exclusive(m) => member > &m[..],
        }
    }

    fn below_max(&self, member: &[u8]) -> bool {
        match &self.max {
            LexBound::Lowest => false,
            LexBound::Highest => true,
            LexBound::Inclusive(m) => member <= &m[..],
            LexBound::Exclusive(m) => member < &m[..],
        }
    }

    /// A range that can hold nothing whatever the members (`zzlIsInLexRange`'s first test,
    /// with `sdscmplex`'s order of the `-` and `+` bounds).
    fn always_empty(&self) -> bool {
        use std::cmp::Ordering;
        let cmp = match (&self.min, &self.max) {
            (LexBound::Lowest, LexBound::Lowest) | (LexBound::Highest, LexBound::Highest) => {
                Ordering::Equal
            }
            (LexBound::Lowest, _) | (_, LexBound::Highest) => Ordering::Less,
            (LexBound::Highest, _) | (_, LexBound::Lowest) => Ordering::Greater,
            (
                LexBound::Inclusive(a) | LexBound::Exclusive(a),
                LexBound::Inclusive(b) | LexBound::Exclusive(b),
            ) => a.cmp(b),
        };
        let exclusive = |bound: &LexBound| !matches!(bound, LexBound::Inclusive(_));
        cmp == Ordering::Greater
            || (cmp == Ordering::Equal && (exclusive(&self.min) || exclusive(&self.max)))
    }

    /// Redis walks from the first member inside the range while members stay inside it
    /// (members of equal score are in byte order; with mixed scores the walk is Redis's
    /// listpack walk). Nothing when the last member (by position) is below the minimum or
    /// the first above the maximum, as `zzlIsInLexRange` checks.
    fn select<'a>(&self, ordered: Vec<(&'a Bytes, f64)>, reverse: bool) -> Vec<(&'a Bytes, f64)> {
        let (first, last) = match reverse {
            false => (ordered.first(), ordered.last()),
            true => (ordered.last(), ordered.first()),
        };
        let (Some(first), Some(last)) = (first, last) else {
            return Vec::new();
        };
        if self.always_empty() || !self.above_min(last.0) || !self.below_max(first.0) {
            return Vec::new();
        }
        if reverse {
            ordered
                .into_iter()
                .skip_while(|(m, _)| !self.below_max(m))
                .take_while(|(m, _)| self.above_min(m))
                .collect()
        } else {
            ordered
                .into_iter()
                .skip_while(|(m, _)| !self.above_min(m))
                .take_while(|(m, _)| self.below_max(m))
                .collect()
        }
    }
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
        Selection::Lex(range) => range.select(ordered, query.reverse),
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

/// Members with scores as Redis replies them: flat in RESP2, pairs in RESP3.
pub(crate) fn range_reply(
    members: Vec<(Bytes, f64)>,
    with_scores: bool,
    protocol: Protocol,
) -> Reply {
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

/// What a range command fixes before its options are read (`zrangeGenericCommand`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Rank,
    Score,
    Lex,
}

#[derive(Clone, Copy)]
struct RangeCommand {
    /// Index of the source key; `min` and `max` follow it.
    key_at: usize,
    /// ZRANGESTORE: no WITHSCORES.
    store: bool,
    kind: Option<Kind>,
    reverse: Option<bool>,
}

const ZRANGE: RangeCommand = RangeCommand {
    key_at: 1,
    store: false,
    kind: None,
    reverse: None,
};

fn parse_range(args: &[Bytes], command: RangeCommand) -> Result<RangeQuery, Reply> {
    let (mut kind, mut reverse) = (command.kind, command.reverse);
    let (mut with_scores, mut limit) = (false, None);
    let mut at = command.key_at + 3;
    while let Some(arg) = args.get(at) {
        let args_left = args.len() - at - 1;
        if !command.store && is(arg, "withscores") {
            with_scores = true;
        } else if is(arg, "limit") && args_left >= 2 {
            limit = Some((int(&args[at + 1])?, int(&args[at + 2])?));
            at += 2;
        } else if reverse.is_none() && is(arg, "rev") {
            reverse = Some(true);
        } else if kind.is_none() && is(arg, "bylex") {
            kind = Some(Kind::Lex);
        } else if kind.is_none() && is(arg, "byscore") {
            kind = Some(Kind::Score);
        } else {
            return Err(syntax_error());
        }
        at += 1;
    }
    let (kind, reverse) = (kind.unwrap_or(Kind::Rank), reverse.unwrap_or(false));
    if limit.is_some_and(|(_, count)| count != -1) && kind == Kind::Rank {
        return Err(Reply::error(
            "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX",
        ));
    }
    if with_scores && kind == Kind::Lex {
        return Err(Reply::error(
            "ERR syntax error, WITHSCORES not supported in combination with BYLEX",
        ));
    }
    let (low, high) = (&args[command.key_at + 1], &args[command.key_at + 2]);
    let (low, high) = if reverse && kind != Kind::Rank {
        (high, low)
    } else {
        (low, high)
    };
    let selection = match kind {
        Kind::Rank => Selection::Rank {
            start: int(low)?,
            stop: int(high)?,
        },
        Kind::Score => Selection::Score(ScoreRange::parse(low, high)?),
        Kind::Lex => Selection::Lex(LexRange::parse(low, high)?),
    };
    Ok(RangeQuery {
        selection,
        reverse,
        with_scores,
        limit: limit.filter(|_| kind != Kind::Rank),
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
    range_generic(ctx, args, ZRANGE)
}

fn preset(kind: Kind, reverse: bool) -> RangeCommand {
    RangeCommand {
        kind: Some(kind),
        reverse: Some(reverse),
        ..ZRANGE
    }
}

pub fn zrangebyscore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    range_generic(ctx, args, preset(Kind::Score, false))
}

pub fn zrevrangebyscore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    range_generic(ctx, args, preset(Kind::Score, true))
}

pub fn zrevrange(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    range_generic(ctx, args, preset(Kind::Rank, true))
}

pub fn zrangebylex(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    range_generic(ctx, args, preset(Kind::Lex, false))
}

pub fn zrevrangebylex(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    range_generic(ctx, args, preset(Kind::Lex, true))
}

/// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count].
pub fn zrangestore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let command = RangeCommand {
        key_at: 2,
        store: true,
        ..ZRANGE
    };
    let query = parse_range(args, command)?;
    let now_ms = ctx.now_ms;
    let picked = match zset_mut(ctx.db(), &args[2], now_ms)? {
        Some(zset) => select(zset, &query),
        None => Vec::new(),
    };
    Ok(Reply::Integer(store_zset(ctx, &args[1], picked) as i64))
}

/// Replace `key` with a sorted set of `members` (no TTL), or delete it when there are
/// none; returns the size stored.
pub(crate) fn store_zset(ctx: &mut Ctx, key: &Bytes, members: Vec<(Bytes, f64)>) -> usize {
    let db = ctx.db();
    if members.is_empty() {
        db.remove(key);
        return 0;
    }
    let mut zset = ZSet::default();
    for (member, score) in members {
        zset.insert(member, score);
    }
    let len = zset.len();
    db.set(key.clone(), Value::ZSet(zset), None);
    len
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

pub fn zlexcount(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let range = LexRange::parse(&args[2], &args[3])?;
    let now_ms = ctx.now_ms;
    let count = zset_mut(ctx.db(), &args[1], now_ms)?
        .map_or(0, |zset| range.select(zset.iter().collect(), false).len());
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

pub fn zremrangebylex(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let selection = Selection::Lex(LexRange::parse(&args[2], &args[3])?);
    let query = RangeQuery {
        selection,
        reverse: false,
        with_scores: false,
        limit: None,
    };
    remove_selected(ctx, &args[1], query)
}

pub fn zincrby(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let as_zadd = [
        args[0].clone(),
        args[1].clone(),
        Bytes::from_static(b"INCR"),
        args[2].clone(),
        args[3].clone(),
    ];
    zadd(ctx, &as_zadd)
}

fn rank(ctx: &mut Ctx, args: &[Bytes], reverse: bool) -> CmdResult {
    let now_ms = ctx.now_ms;
    let Some(zset) = zset_mut(ctx.db(), &args[1], now_ms)? else {
        return Ok(Reply::Nil);
    };
    let Some(at) = zset.iter().position(|(member, _)| member == &args[2]) else {
        return Ok(Reply::Nil);
    };
    let rank = if reverse { zset.len() - 1 - at } else { at };
    Ok(Reply::Integer(rank as i64))
}

pub fn zrank(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    rank(ctx, args, false)
}

pub fn zrevrank(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    rank(ctx, args, true)
}

pub fn zmscore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let now_ms = ctx.now_ms;
    let zset = zset_mut(ctx.db(), &args[1], now_ms)?;
    let scores = args[2..]
        .iter()
        .map(|m| {
            let score = zset.as_ref().and_then(|z| z.score(m));
            score.map_or(Reply::Nil, Reply::Double)
        })
        .collect();
    Ok(Reply::Array(scores))
}

/// How a pop's members are replied (`genericZpopCommand`'s `emitkey` and
/// `use_nested_array`).
#[derive(Clone, Copy)]
pub(crate) struct PopShape {
    /// BZPOPMIN/BZPOPMAX, ZMPOP: the key comes first.
    pub with_key: bool,
    /// ZMPOP, and ZPOPMIN with a count in RESP3: `[member, score]` pairs.
    pub nested: bool,
}

/// Pop up to `count` lowest (or highest) members of the first of `keys` that holds a
/// sorted set, logged as `ZPOPMIN|ZPOPMAX key count`. `Ok(None)` when none does.
pub(crate) fn pop_members(
    ctx: &mut Ctx,
    keys: &[Bytes],
    min: bool,
    count: usize,
    shape: PopShape,
) -> Result<Option<Reply>, Reply> {
    let now_ms = ctx.now_ms;
    let db = ctx.db();
    let mut found = None;
    for key in keys {
        if zset_mut(db, key, now_ms)?.is_some() {
            found = Some(key.clone());
            break;
        }
    }
    let Some(key) = found else {
        return Ok(None);
    };
    if count == 0 {
        return Ok(Some(Reply::Array(Vec::new())));
    }
    let zset = zset_mut(db, &key, now_ms)?.expect("found above");
    let taken: Vec<(Bytes, f64)> = if min {
        zset.iter()
            .take(count)
            .map(|(m, s)| (m.clone(), s))
            .collect()
    } else {
        zset.iter()
            .rev()
            .take(count)
            .map(|(m, s)| (m.clone(), s))
            .collect()
    };
    for (member, _) in &taken {
        zset.remove(member);
    }
    db.touch(&key);
    db.remove_if_empty(&key);
    let name: &[u8] = if min { b"ZPOPMIN" } else { b"ZPOPMAX" };
    let n = taken.len().to_string();
    let logged = crate::model::state::ctx::command_line([name, &key[..], n.as_bytes()]);
    ctx.propagate(vec![logged]);
    let members: Vec<Reply> = if shape.nested {
        taken
            .into_iter()
            .map(|(m, s)| Reply::Array(vec![Reply::Bulk(m), Reply::Double(s)]))
            .collect()
    } else {
        taken
            .into_iter()
            .flat_map(|(m, s)| [Reply::Bulk(m), Reply::Double(s)])
            .collect()
    };
    Ok(Some(match (shape.with_key, shape.nested) {
        (false, _) => Reply::Array(members),
        (true, false) => {
            let mut items = vec![Reply::Bulk(key)];
            items.extend(members);
            Reply::Array(items)
        }
        (true, true) => Reply::Array(vec![Reply::Bulk(key), Reply::Array(members)]),
    }))
}

fn zpop(ctx: &mut Ctx, args: &[Bytes], min: bool) -> CmdResult {
    if args.len() > 3 {
        return Err(syntax_error());
    }
    let count = crate::model::protocol::args::optional_count(args.get(2))?;
    let shape = PopShape {
        with_key: false,
        nested: ctx.client.protocol == Protocol::Resp3 && count.is_some(),
    };
    let popped = pop_members(ctx, &args[1..2], min, count.unwrap_or(1), shape)?;
    Ok(popped.unwrap_or(Reply::Array(Vec::new())))
}

pub fn zpopmin(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    zpop(ctx, args, true)
}

pub fn zpopmax(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    zpop(ctx, args, false)
}

/// ZMPOP numkeys key... MIN|MAX [COUNT n].
pub fn zmpop(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let pop = crate::model::commands::cmd::lists::multi_pop_args(&args[1..], ["min", "max"])?;
    let shape = PopShape {
        with_key: true,
        nested: true,
    };
    let popped = pop_members(ctx, &pop.keys, pop.first, pop.count, shape)?;
    Ok(popped.unwrap_or(Reply::NilArray))
}

/// A random-member count (`ZRANDMEMBER`, `HRANDFIELD`): parsed, then with the
/// pairs flag, Redis's extra bound.
pub(crate) fn random_count(args: &[Bytes], pairs_word: &str) -> Result<Option<(i64, bool)>, Reply> {
    let Some(count) = args.get(2) else {
        return Ok(None);
    };
    let count = match int(count)? {
        i64::MIN => {
            return Err(Reply::error(
                "ERR value is out of range, value must between -9223372036854775807 and \
                 9223372036854775807",
            ))
        }
        n => n,
    };
    if args.len() > 4 || (args.len() == 4 && !is(&args[3], pairs_word)) {
        return Err(syntax_error());
    }
    let pairs = args.len() == 4;
    if pairs && !(-(i64::MAX / 2)..=i64::MAX / 2).contains(&count) {
        return Err(Reply::error("ERR value is out of range"));
    }
    Ok(Some((count, pairs)))
}

/// Members for a random pick of `count` out of `all` (in order): the whole collection
/// when `count` reaches its size (Redis's order then), distinct random ones below it,
/// and with repetition for a negative count.
pub(crate) fn random_pick<T: Clone>(ctx: &mut Ctx, all: &[T], count: i64) -> Vec<T> {
    use rand::Rng;
    let len = all.len();
    if count < 0 {
        let draws = count.unsigned_abs();
        return (0..draws)
            .map(|_| all[ctx.node.rng.random_range(0..len)].clone())
            .collect();
    }
    let count = count as usize;
    if count >= len {
        return all.to_vec();
    }
    crate::model::protocol::args::distinct_positions(&mut ctx.node.rng, len, count)
        .into_iter()
        .map(|at| all[at].clone())
        .collect()
}

/// ZRANDMEMBER key [count [WITHSCORES]].
pub fn zrandmember(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    let count = random_count(args, "withscores")?;
    let now_ms = ctx.now_ms;
    let protocol = ctx.client.protocol;
    let Some(zset) = zset_mut(ctx.db(), &args[1], now_ms)? else {
        return Ok(count.map_or(Reply::Nil, |_| Reply::Array(Vec::new())));
    };
    let all: Vec<(Bytes, f64)> = zset.iter().map(|(m, s)| (m.clone(), s)).collect();
    let Some((count, with_scores)) = count else {
        let picked = random_pick(ctx, &all, 1);
        return Ok(Reply::Bulk(picked[0].0.clone()));
    };
    crate::model::protocol::args::repeated_picks_bound(count)?;
    // The whole sorted set comes in Redis's iteration order for ZUNION and the like,
    // from the highest score down (`zuiInitIterator`).
    let picked = if count >= 0 && count as u64 >= all.len() as u64 {
        all.into_iter().rev().collect()
    } else {
        random_pick(ctx, &all, count)
    };
    Ok(range_reply(picked, with_scores, protocol))
}
