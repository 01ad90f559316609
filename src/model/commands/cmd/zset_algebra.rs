//! ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD, as Redis 7.0.15's
//! `zunionInterDiffGenericCommand` reads its arguments: sets count as sorted sets whose
//! members all score 1, WEIGHTS and AGGREGATE apply to union and intersection, and a
//! NaN from a weight or a sum counts as 0.

use crate::model::commands::cmd::zsets::{range_reply, store_zset};
use crate::model::data::value::{Score, Value};
use crate::model::protocol::args::{float, int, is, syntax_error, wrong_type, CmdResult};
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::Ctx;
use bytes::Bytes;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Union,
    Inter,
    Diff,
}

#[derive(Clone, Copy)]
enum Aggregate {
    Sum,
    Min,
    Max,
}

impl Aggregate {
    fn apply(self, target: f64, value: f64) -> f64 {
        match self {
            Aggregate::Sum => {
                let sum = target + value;
                if sum.is_nan() {
                    0.0
                } else {
                    sum
                }
            }
            Aggregate::Min => target.min(value),
            Aggregate::Max => target.max(value),
        }
    }
}

/// What the caller wants back.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    Reply,
    Store,
    Cardinality,
}

/// One input: its members with scores (empty for a missing key) and its weight.
struct Source {
    members: Vec<(Bytes, f64)>,
    weight: f64,
}

struct Parsed {
    sources: Vec<Source>,
    aggregate: Aggregate,
    with_scores: bool,
    limit: usize,
}

fn parse(
    ctx: &mut Ctx,
    args: &[Bytes],
    op: Op,
    output: Output,
    name: &str,
) -> Result<Parsed, Reply> {
    let setnum = int(&args[0])?;
    if setnum < 1 {
        return Err(Reply::error(format!(
            "ERR at least 1 input key is needed for '{name}' command"
        )));
    }
    if setnum as u64 > (args.len() - 1) as u64 {
        return Err(syntax_error());
    }
    let setnum = setnum as usize;
    let mut sources = Vec::with_capacity(setnum);
    for key in &args[1..=setnum] {
        sources.push(Source {
            members: members_of(ctx, key)?,
            weight: 1.0,
        });
    }
    let mut parsed = Parsed {
        sources,
        aggregate: Aggregate::Sum,
        with_scores: false,
        limit: 0,
    };
    let mut j = setnum + 1;
    let weighted = op != Op::Diff && output != Output::Cardinality;
    while j < args.len() {
        let remaining = args.len() - j;
        if weighted && remaining > setnum && is(&args[j], "weights") {
            for (i, source) in parsed.sources.iter_mut().enumerate() {
                source.weight = float(&args[j + 1 + i])
                    .map_err(|_| Reply::error("ERR weight value is not a float"))?;
            }
            j += 1 + setnum;
        } else if weighted && remaining >= 2 && is(&args[j], "aggregate") {
            parsed.aggregate = match &args[j + 1] {
                a if is(a, "sum") => Aggregate::Sum,
                a if is(a, "min") => Aggregate::Min,
                a if is(a, "max") => Aggregate::Max,
                _ => return Err(syntax_error()),
            };
            j += 2;
        } else if output == Output::Reply && is(&args[j], "withscores") {
            parsed.with_scores = true;
            j += 1;
        } else if output == Output::Cardinality && remaining >= 2 && is(&args[j], "limit") {
            parsed.limit = match int(&args[j + 1]) {
                Ok(n) if n >= 0 => n as usize,
                _ => return Err(Reply::error("ERR LIMIT can't be negative")),
            };
            j += 2;
        } else {
            return Err(syntax_error());
        }
    }
    Ok(parsed)
}

/// A sorted set's members, or a set's at score 1; WRONGTYPE for anything else.
fn members_of(ctx: &mut Ctx, key: &Bytes) -> Result<Vec<(Bytes, f64)>, Reply> {
    let now_ms = ctx.now_ms;
    Ok(match ctx.db().get(key, now_ms).map(|e| &e.value) {
        None => Vec::new(),
        Some(Value::ZSet(zset)) => zset.iter().map(|(m, s)| (m.clone(), s)).collect(),
        Some(Value::Set(set)) => set.iter().map(|m| (m.clone(), 1.0)).collect(),
        Some(_) => return Err(wrong_type()),
    })
}

fn weighted(score: f64, weight: f64) -> f64 {
    let value = score * weight;
    if value.is_nan() {
        0.0
    } else {
        value
    }
}

/// The result, sorted as a sorted set orders it.
fn compute(parsed: &Parsed, op: Op) -> Vec<(Bytes, f64)> {
    let mut result: BTreeMap<Bytes, f64> = BTreeMap::new();
    let sources = &parsed.sources;
    match op {
        Op::Union => {
            // Redis adds the inputs smallest first (`zuiCompareByCardinality`, a stable
            // sort here as glibc's merge sort is): with infinities the order is the sum.
            let mut order: Vec<&Source> = sources.iter().collect();
            order.sort_by_key(|s| s.members.len());
            for source in order {
                for (member, score) in &source.members {
                    let value = weighted(*score, source.weight);
                    result
                        .entry(member.clone())
                        .and_modify(|s| *s = parsed.aggregate.apply(*s, value))
                        .or_insert(value);
                }
            }
        }
        Op::Inter => {
            // Redis iterates the smallest input and aggregates the others in size order.
            let mut order: Vec<&Source> = sources.iter().collect();
            order.sort_by_key(|s| s.members.len());
            let lookups: Vec<BTreeMap<&Bytes, f64>> = order
                .iter()
                .map(|s| s.members.iter().map(|(m, v)| (m, *v)).collect())
                .collect();
            'members: for (member, score) in &order[0].members {
                let mut total = weighted(*score, order[0].weight);
                for (source, lookup) in order.iter().zip(&lookups).skip(1) {
                    let Some(value) = lookup.get(member) else {
                        continue 'members;
                    };
                    total = parsed.aggregate.apply(total, value * source.weight);
                }
                result.insert(member.clone(), total);
            }
        }
        Op::Diff => {
            let others: BTreeSet<&Bytes> = sources[1..]
                .iter()
                .flat_map(|s| s.members.iter().map(|(m, _)| m))
                .collect();
            for (member, score) in &sources[0].members {
                if !others.contains(member) {
                    result.insert(member.clone(), *score);
                }
            }
        }
    }
    let mut sorted: Vec<(Bytes, f64)> = result.into_iter().collect();
    sorted.sort_by(|a, b| (Score(a.1 + 0.0), &a.0).cmp(&(Score(b.1 + 0.0), &b.0)));
    sorted
}

fn generic(ctx: &mut Ctx, args: &[Bytes], op: Op, output: Output) -> CmdResult {
    let name = String::from_utf8_lossy(&args[0]).to_ascii_lowercase();
    let (destination, rest) = match output {
        Output::Store => (Some(args[1].clone()), &args[2..]),
        _ => (None, &args[1..]),
    };
    let parsed = parse(ctx, rest, op, output, &name)?;
    let result = compute(&parsed, op);
    Ok(match (output, destination) {
        (Output::Store, Some(destination)) => {
            Reply::Integer(store_zset(ctx, &destination, result) as i64)
        }
        (Output::Cardinality, _) => {
            let len = result.len();
            let capped = if parsed.limit > 0 {
                len.min(parsed.limit)
            } else {
                len
            };
            Reply::Integer(capped as i64)
        }
        _ => range_reply(result, parsed.with_scores, ctx.client.protocol),
    })
}

pub fn zunion(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    generic(ctx, args, Op::Union, Output::Reply)
}

pub fn zinter(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    generic(ctx, args, Op::Inter, Output::Reply)
}

pub fn zdiff(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    generic(ctx, args, Op::Diff, Output::Reply)
}

pub fn zunionstore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    generic(ctx, args, Op::Union, Output::Store)
}

pub fn zinterstore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    generic(ctx, args, Op::Inter, Output::Store)
}

pub fn zdiffstore(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    generic(ctx, args, Op::Diff, Output::Store)
}

pub fn zintercard(ctx: &mut Ctx, args: &[Bytes]) -> CmdResult {
    generic(ctx, args, Op::Inter, Output::Cardinality)
}
