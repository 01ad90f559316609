//! An aggregate call's modifiers, applied to a group's rows before the aggregate sees
//! them as PostgreSQL applies them: `FILTER (WHERE …)` keeps the rows it holds TRUE for,
//! `ORDER BY` sorts them (stably: ties keep their order), `DISTINCT` keeps one of each run
//! of equal argument lists (two NULLs equal) after sorting by them.
//!
//! Also PostgreSQL 16's presorted aggregates (`adjust_group_pathkeys_for_groupagg`): when
//! some aggregates ask for an order (ORDER BY or DISTINCT), the planner sorts the group's
//! input once, by the order that suits the most of them, and every aggregate without an
//! order of its own sees the rows in it (`array_agg(y)` beside `count(DISTINCT x)` lists
//! `y` in `x`'s order). The model sorts the group the same way first ([`presort_keys`]).

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Joined};
use crate::pg::sql::names::object_name;
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{not_distinct, sort_order, Value};
use sqlparser::ast::{
    DuplicateTreatment, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentClause,
    FunctionArguments, OrderByExpr,
};

/// An aggregate call, its modifiers read.
pub(crate) struct Call<'e> {
    pub name: String,
    /// The arguments; none for `count(*)`.
    pub args: Vec<&'e Expr>,
    pub distinct: bool,
    pub order: &'e [OrderByExpr],
    pub filter: Option<&'e Expr>,
}

/// What an aggregate folds: its arguments' types and, per kept row, their values.
pub(crate) struct Input {
    pub types: Vec<Type>,
    pub rows: Vec<Vec<Value>>,
}

/// `f`'s name, arguments and modifiers; a modifier the model does not know is refused.
pub(crate) fn call(f: &Function) -> PgResult<Call<'_>> {
    let name = object_name(&f.name).last().cloned().unwrap_or_default();
    let FunctionArguments::List(list) = &f.args else {
        return Err(PgError::syntax(format!("syntax error in {name}()")));
    };
    if !f.within_group.is_empty() || f.null_treatment.is_some() {
        return Err(PgError::unsupported(format!(
            "WITHIN GROUP or NULLS in {name}"
        )));
    }
    let mut order: &[OrderByExpr] = &[];
    for clause in &list.clauses {
        match clause {
            FunctionArgumentClause::OrderBy(keys) => order = keys,
            other => return Err(PgError::unsupported(format!("`{other}` in an aggregate"))),
        }
    }
    let mut args = Vec::with_capacity(list.args.len());
    for arg in &list.args {
        match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => args.push(e),
            FunctionArg::Unnamed(FunctionArgExpr::Wildcard) if name == "count" => {}
            // `count(t.*)`: a whole row, a composite value the model does not have.
            FunctionArg::Unnamed(FunctionArgExpr::QualifiedWildcard(_)) => {
                return Err(PgError::unsupported(format!(
                    "a whole row (t.*) as {name}'s argument"
                )))
            }
            _ => {
                return Err(PgError::new(
                    UNDEFINED_FUNCTION,
                    format!("function {name} with these arguments does not exist"),
                ))
            }
        }
    }
    let distinct = matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
    let call = Call {
        name,
        args,
        distinct,
        order,
        filter: f.filter.as_deref(),
    };
    check_distinct_order(&call)?;
    Ok(call)
}

/// With DISTINCT, every ORDER BY key must be an argument (PostgreSQL's 42P10).
fn check_distinct_order(call: &Call<'_>) -> PgResult<()> {
    let stray = call.distinct && call.order.iter().any(|k| !call.args.contains(&&k.expr));
    match stray {
        true => Err(PgError::new(
            INVALID_COLUMN_REFERENCE,
            "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list",
        )),
        false => Ok(()),
    }
}

/// A sort key of an aggregate: its expression and direction (descending, nulls first).
#[derive(Clone, Copy)]
pub(crate) struct SortKey<'e> {
    pub expr: &'e Expr,
    pub direction: (bool, bool),
}

fn sort_key(k: &OrderByExpr) -> SortKey<'_> {
    let descending = matches!(k.options.sort, Some(sqlparser::ast::OrderBySort::Desc));
    SortKey {
        expr: &k.expr,
        direction: (descending, k.options.nulls_first.unwrap_or(descending)),
    }
}

impl PartialEq for SortKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.expr == other.expr && self.direction == other.direction
    }
}

/// The order `call` sorts its input by: ORDER BY, and with DISTINCT the arguments ORDER
/// BY leaves out (ascending), as PostgreSQL builds `aggdistinct`. Literal keys and repeated
/// expressions order nothing and are dropped, as the planner drops redundant path keys.
pub(crate) fn sort_keys<'e>(call: &Call<'e>) -> Vec<SortKey<'e>> {
    let mut keys: Vec<SortKey<'e>> = call.order.iter().map(sort_key).collect();
    if call.distinct {
        for arg in &call.args {
            if !keys.iter().any(|k| k.expr == *arg) {
                keys.push(SortKey {
                    expr: arg,
                    direction: (false, false),
                });
            }
        }
    }
    let mut kept: Vec<SortKey<'e>> = Vec::with_capacity(keys.len());
    for key in keys {
        let redundant =
            matches!(key.expr, Expr::Value(_)) || kept.iter().any(|k| k.expr == key.expr);
        if !redundant {
            kept.push(key);
        }
    }
    kept
}

/// The order the planner sorts a group's input by for its aggregates: of the calls that
/// ask for an order, the keys that suit the most (one suits another's keys when it is a
/// prefix of them), PostgreSQL's passes over the calls not yet suited.
pub(crate) fn presort_keys<'e>(calls: &[Call<'e>]) -> Vec<SortKey<'e>> {
    let orders = calls
        .iter()
        .filter(|c| c.distinct || !c.order.is_empty())
        .map(sort_keys)
        .collect();
    best_order(orders)
}

/// PostgreSQL's passes: each pass takes the first order not yet suited and every later one
/// that extends it or that it extends (keeping the longer), until no pass could suit more
/// orders than the best so far.
fn best_order(mut unprocessed: Vec<Vec<SortKey<'_>>>) -> Vec<SortKey<'_>> {
    let (mut best, mut best_count) = (Vec::new(), 0);
    while unprocessed.len() > best_count {
        let mut current: Option<Vec<SortKey<'_>>> = None;
        let mut suited = vec![false; unprocessed.len()];
        for (at, keys) in unprocessed.iter().enumerate() {
            let longer = match &current {
                None => true,
                Some(c) if keys.starts_with(c) => true,
                Some(c) if c.starts_with(keys) => false,
                Some(_) => continue,
            };
            suited[at] = true;
            if longer {
                current = Some(keys.clone());
            }
        }
        let count = suited.iter().filter(|s| **s).count();
        assert!(count > 0, "each pass suits its first order");
        let mut flags = suited.into_iter();
        unprocessed.retain(|_| !flags.next().expect("a flag per order"));
        if count > best_count {
            (best, best_count) = (current.unwrap_or_default(), count);
        }
    }
    best
}

impl Exec<'_> {
    /// `group` sorted stably by `keys` (each evaluated on its row).
    pub(crate) fn sorted_group(
        &mut self,
        keys: &[SortKey<'_>],
        group: &[Joined],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Joined>> {
        if keys.is_empty() {
            return Ok(group.to_vec());
        }
        let mut keyed = Vec::with_capacity(group.len());
        for row in group {
            let frame = self.frame_of(row, sources, parent);
            let mut values = Vec::with_capacity(keys.len());
            for key in keys {
                values.push(self.eval(key.expr, &frame)?.v);
            }
            keyed.push((values, row.clone()));
        }
        let directions: Vec<(bool, bool)> = keys.iter().map(|k| k.direction).collect();
        keyed.sort_by(|(a, _), (b, _)| sort_order(a, b, &directions));
        Ok(keyed.into_iter().map(|(_, row)| row).collect())
    }

    /// What `call` folds over `group`: FILTER, then ORDER BY and DISTINCT.
    pub(crate) fn aggregate_input(
        &mut self,
        call: &Call<'_>,
        group: &[Joined],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Input> {
        let mut types = Vec::with_capacity(call.args.len());
        for arg in &call.args {
            types.push(self.infer(arg, sources, parent)?);
        }
        let keys = sort_keys(call);
        let mut keyed: Vec<(Vec<Value>, Vec<Value>)> = Vec::with_capacity(group.len());
        for row in group {
            let frame = self.frame_of(row, sources, parent);
            if !self.filter_holds(call, &frame)? {
                continue;
            }
            let mut values = Vec::with_capacity(call.args.len());
            for (at, arg) in call.args.iter().enumerate() {
                let value = self.eval(arg, &frame)?;
                if types[at] == Type::Unknown {
                    types[at] = value.t;
                }
                values.push(value.v);
            }
            let mut order = Vec::with_capacity(keys.len());
            for key in &keys {
                order.push(self.eval(key.expr, &frame)?.v);
            }
            keyed.push((order, values));
        }
        if call.distinct {
            refuse_unequal_types(&call.name, &types)?;
        }
        let directions: Vec<(bool, bool)> = keys.iter().map(|k| k.direction).collect();
        keyed.sort_by(|(a, _), (b, _)| sort_order(a, b, &directions));
        let mut rows: Vec<Vec<Value>> = Vec::with_capacity(keyed.len());
        for (_, values) in keyed {
            let repeated =
                call.distinct && rows.last().is_some_and(|last| not_distinct(last, &values));
            if !repeated {
                rows.push(values);
            }
        }
        Ok(Input { types, rows })
    }

    /// FILTER's condition on a row: kept only when TRUE; it must be boolean.
    fn filter_holds(&mut self, call: &Call<'_>, frame: &Frame<'_>) -> FlowResult<bool> {
        let Some(filter) = call.filter else {
            return Ok(true);
        };
        let truth = self.eval(filter, frame)?;
        if !matches!(truth.t, Type::Bool | Type::Unknown) {
            return Err(PgError::new(
                DATATYPE_MISMATCH,
                format!(
                    "argument of FILTER must be type boolean, not type {}",
                    truth.t.name()
                ),
            )
            .into());
        }
        Ok(truth.v.truth()? == Some(true))
    }

    /// A group row as a frame for evaluating expressions.
    pub(crate) fn frame_of<'f>(
        &self,
        row: &'f Joined,
        sources: &'f [Source],
        parent: Option<&'f Frame<'f>>,
    ) -> Frame<'f> {
        Frame {
            sources,
            values: &row.values,
            parent,
            depth: self.nesting,
        }
    }
}

/// DISTINCT needs an equality: json has none (PostgreSQL's 42883).
fn refuse_unequal_types(name: &str, types: &[Type]) -> PgResult<()> {
    match types.contains(&Type::Json) {
        true => Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("could not identify an equality operator for type json in {name}"),
        )),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast::Ident;

    fn key(name: &'static str, descending: bool) -> SortKey<'static> {
        let expr: &'static Expr = Box::leak(Box::new(Expr::Identifier(Ident::new(name))));
        SortKey {
            expr,
            direction: (descending, descending),
        }
    }

    #[test]
    fn the_order_suiting_most_calls_wins() {
        // y suits one call; x DESC and (x DESC, y) suit two: the presort is (x DESC, y).
        let orders = vec![
            vec![key("y", false)],
            vec![key("x", true)],
            vec![key("x", true), key("y", false)],
            vec![key("z", false)],
        ];
        assert!(best_order(orders) == vec![key("x", true), key("y", false)]);
    }

    #[test]
    fn a_tie_keeps_the_first_pass() {
        let orders = vec![vec![key("y", false)], vec![key("x", false)]];
        assert!(best_order(orders) == vec![key("y", false)]);
        assert!(best_order(Vec::new()).is_empty());
    }
}
