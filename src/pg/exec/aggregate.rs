//! The aggregates (`count`, `min`, `max`, `sum`, `avg`, `array_agg`, `bool_and`,
//! `bool_or`): each call in a grouped query's projection, HAVING or ORDER BY is computed
//! over the group's rows before the projection is evaluated; evaluation then reads it
//! back by the call's address.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Joined};
use crate::pg::sql::names::object_name;
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{compare, Typed, Value};
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Select, SelectItem};
use std::cmp::Ordering;

const AGGREGATES: [&str; 8] = [
    "count",
    "min",
    "max",
    "sum",
    "avg",
    "array_agg",
    "bool_and",
    "bool_or",
];

/// PostgreSQL's other aggregates. The model computes none of them, but it must know them
/// as aggregates: evaluated as ordinary functions they would answer no row over no input,
/// where PostgreSQL answers one (a NULL); as aggregates they are refused when computed.
const AGGREGATES_UNMODELLED: [&str; 37] = [
    "any_value",
    "bit_and",
    "bit_or",
    "bit_xor",
    "corr",
    "covar_pop",
    "covar_samp",
    "every",
    "json_agg",
    "json_agg_strict",
    "json_arrayagg",
    "json_object_agg",
    "json_object_agg_strict",
    "json_objectagg",
    "jsonb_agg",
    "jsonb_agg_strict",
    "jsonb_object_agg",
    "jsonb_object_agg_strict",
    "mode",
    "percentile_cont",
    "percentile_disc",
    "range_agg",
    "range_intersect_agg",
    "regr_avgx",
    "regr_avgy",
    "regr_count",
    "regr_intercept",
    "regr_r2",
    "regr_slope",
    "regr_sxx",
    "regr_sxy",
    "regr_syy",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "string_agg",
    "variance",
];

/// Whether `e` calls an aggregate as an aggregate. A call with `OVER` is a window
/// function's, which the model refuses where it evaluates or types the call
/// ([`refuse_window`]), never computed as a plain aggregate of the whole input.
pub(crate) fn is_aggregate(e: &Expr) -> bool {
    match e {
        Expr::Function(f) if f.over.is_none() => object_name(&f.name).last().is_some_and(|n| {
            AGGREGATES.contains(&n.as_str()) || AGGREGATES_UNMODELLED.contains(&n.as_str())
        }),
        _ => false,
    }
}

/// Window functions (`… OVER (…)`) are not modelled: refused, with PostgreSQL's class for
/// a feature not supported.
pub(crate) fn refuse_window(f: &sqlparser::ast::Function) -> PgResult<()> {
    match f.over {
        Some(_) => Err(PgError::unsupported(format!(
            "the window function {}",
            f.name
        ))),
        None => Ok(()),
    }
}

/// Whether `e` calls an aggregate (outside the subqueries it holds).
pub(crate) fn contains(e: &Expr) -> bool {
    let mut found = Vec::new();
    calls(e, &mut found);
    !found.is_empty()
}

/// The aggregate calls in `e`, outside its subqueries.
fn calls<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    if is_aggregate(e) {
        out.push(e);
        return;
    }
    match e {
        Expr::BinaryOp { left, right, .. } => (calls(left, out), calls(right, out)).1,
        Expr::UnaryOp { expr, .. } | Expr::Nested(expr) | Expr::Cast { expr, .. } => {
            calls(expr, out)
        }
        Expr::IsNull(expr) | Expr::IsNotNull(expr) | Expr::Extract { expr, .. } => calls(expr, out),
        Expr::Function(f) => {
            if let FunctionArguments::List(list) = &f.args {
                for arg in &list.args {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(inner)) = arg {
                        calls(inner, out);
                    }
                }
            }
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.iter().for_each(|o| calls(o, out));
            for when in conditions {
                calls(&when.condition, out);
                calls(&when.result, out);
            }
            else_result.iter().for_each(|o| calls(o, out));
        }
        _ => {}
    }
}

/// PostgreSQL's check of a grouped query before it runs (`parse_agg.c`'s
/// `check_ungrouped_columns`): a column of the FROM items that the projection or HAVING
/// reads outside an aggregate must be a GROUP BY key (or inside a key expression), else
/// 42803. A column beside a key of its own FROM item is refused instead (0A000): the key
/// may be its table's primary key, which makes the column functionally dependent and
/// allowed, and the model does not trace that.
pub(crate) fn check_ungrouped(select: &Select, sources: &[Source]) -> PgResult<()> {
    if matches!(select.group_by, sqlparser::ast::GroupByExpr::All(_)) {
        return Ok(());
    }
    let keys = group_keys(select)?;
    let mut key_columns = Vec::new();
    for key in &keys {
        if let Some(parts) = column_parts(key) {
            if let Some((at, _)) = crate::pg::sql::scope::resolve(sources, &parts)? {
                key_columns.push(at);
            }
        }
    }
    let grouping = Grouping {
        keys: &keys,
        key_columns: &key_columns,
        sources,
    };
    for item in &select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            grouping.check(e)?;
        }
    }
    select.having.iter().try_for_each(|e| grouping.check(e))
}

/// A grouped query's GROUP BY keys, a position (`GROUP BY 1`) read as the select list's
/// expression there, as PostgreSQL reads it (`findTargetlistEntrySQL92`).
pub(crate) fn group_keys(select: &Select) -> PgResult<Vec<&Expr>> {
    let sqlparser::ast::GroupByExpr::Expressions(keys, _) = &select.group_by else {
        return Err(PgError::unsupported("GROUP BY ALL"));
    };
    keys.iter().map(|key| group_key(select, key)).collect()
}

fn group_key<'s>(select: &'s Select, key: &'s Expr) -> PgResult<&'s Expr> {
    let Expr::Value(value) = key else {
        return Ok(key);
    };
    let sqlparser::ast::Value::Number(digits, _) = &value.value else {
        return Ok(key);
    };
    let wildcard = select.projection.iter().any(|item| {
        matches!(
            item,
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
        )
    });
    if wildcard {
        return Err(PgError::unsupported("GROUP BY a position beside a `*`"));
    }
    let item = digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|at| select.projection.get(at));
    match item {
        Some(SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) => Ok(e),
        _ => Err(PgError::new(
            INVALID_COLUMN_REFERENCE,
            format!("GROUP BY position {digits} is not in select list"),
        )),
    }
}

/// `a.b` or `b` as its parts; `None` for another expression.
fn column_parts(e: &Expr) -> Option<Vec<String>> {
    use crate::pg::sql::names::ident;
    match e {
        Expr::Identifier(i) => Some(vec![ident(i)]),
        Expr::CompoundIdentifier(parts) => Some(parts.iter().map(ident).collect()),
        Expr::Nested(inner) => column_parts(inner),
        _ => None,
    }
}

/// A grouped query's keys, for [`check_ungrouped`].
struct Grouping<'a> {
    keys: &'a [&'a Expr],
    key_columns: &'a [usize],
    sources: &'a [Source],
}

impl Grouping<'_> {
    fn check(&self, e: &Expr) -> PgResult<()> {
        if is_aggregate(e) || self.keys.contains(&e) {
            return Ok(());
        }
        if let Some(parts) = column_parts(e) {
            return self.column(&parts);
        }
        let each = |items: &mut dyn Iterator<Item = &Expr>| {
            for item in items {
                self.check(item)?;
            }
            Ok(())
        };
        match e {
            Expr::BinaryOp { left, right, .. }
            | Expr::IsDistinctFrom(left, right)
            | Expr::IsNotDistinctFrom(left, right) => each(&mut [&**left, &**right].into_iter()),
            Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
                each(&mut [&**expr, &**pattern].into_iter())
            }
            Expr::UnaryOp { expr, .. }
            | Expr::Nested(expr)
            | Expr::Cast { expr, .. }
            | Expr::IsNull(expr)
            | Expr::IsNotNull(expr)
            | Expr::IsTrue(expr)
            | Expr::IsFalse(expr)
            | Expr::IsNotTrue(expr)
            | Expr::IsNotFalse(expr)
            | Expr::Extract { expr, .. }
            | Expr::In { expr, .. } => self.check(expr),
            Expr::Between {
                expr, low, high, ..
            } => each(&mut [&**expr, &**low, &**high].into_iter()),
            Expr::Function(f) => match &f.args {
                FunctionArguments::List(list) => {
                    each(&mut list.args.iter().filter_map(|arg| match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(inner)) => Some(inner),
                        _ => None,
                    }))
                }
                _ => Ok(()),
            },
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let whens = conditions.iter().flat_map(|w| [&w.condition, &w.result]);
                each(
                    &mut operand
                        .iter()
                        .map(|o| &**o)
                        .chain(whens)
                        .chain(else_result.iter().map(|o| &**o)),
                )
            }
            // Subqueries and the rest: not checked (their outer references neither).
            _ => Ok(()),
        }
    }

    fn column(&self, parts: &[String]) -> PgResult<()> {
        let Some((at, _)) = crate::pg::sql::scope::resolve(self.sources, parts)? else {
            return Ok(());
        };
        if self.key_columns.contains(&at) {
            return Ok(());
        }
        let source = self
            .sources
            .iter()
            .find(|s| (s.offset..s.offset + s.columns.len()).contains(&at));
        let keyed = source.is_some_and(|s| {
            self.key_columns
                .iter()
                .any(|k| (s.offset..s.offset + s.columns.len()).contains(k))
        });
        if keyed {
            return Err(PgError::unsupported(
                "a column not in GROUP BY beside a key of its table (functional dependency)",
            ));
        }
        Err(PgError::new(
            GROUPING_ERROR,
            format!(
                "column \"{}\" must appear in the GROUP BY clause or be used in an aggregate function",
                parts.join(".")
            ),
        ))
    }
}

/// Every aggregate call of `select`, computed over `group`.
pub(crate) fn compute(
    exec: &mut Exec<'_>,
    select: &Select,
    group: &[Joined],
    sources: &[Source],
    parent: Option<&Frame<'_>>,
) -> FlowResult<Vec<(usize, Typed)>> {
    let mut found = Vec::new();
    for item in &select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            calls(e, &mut found);
        }
    }
    if let Some(having) = &select.having {
        calls(having, &mut found);
    }
    let mut results = Vec::with_capacity(found.len());
    for call in found {
        let value = one(exec, call, group, sources, parent)?;
        results.push((call as *const Expr as usize, value));
    }
    Ok(results)
}

fn one(
    exec: &mut Exec<'_>,
    call: &Expr,
    group: &[Joined],
    sources: &[Source],
    parent: Option<&Frame<'_>>,
) -> FlowResult<Typed> {
    let Expr::Function(f) = call else {
        unreachable!("an aggregate call")
    };
    let name = object_name(&f.name).last().cloned().unwrap_or_default();
    if !AGGREGATES.contains(&name.as_str()) {
        return Err(PgError::unsupported(format!("the aggregate {name}")).into());
    }
    let FunctionArguments::List(list) = &f.args else {
        return Err(PgError::syntax(format!("syntax error in {name}()")).into());
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() || f.filter.is_some() {
        return Err(PgError::unsupported("DISTINCT, ORDER BY or FILTER in an aggregate").into());
    }
    let arg = match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)] if name == "count" => None,
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(e))] => Some(e),
        _ => {
            return Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!("function {name} with these arguments does not exist"),
            )
            .into())
        }
    };
    let Some(arg) = arg else {
        return Ok(Typed::new(Value::Int(group.len() as i64), Type::Int8));
    };
    let mut values = Vec::with_capacity(group.len());
    let mut t = exec.infer(arg, sources, parent)?;
    for row in group {
        let frame = Frame {
            sources,
            values: &row.values,
            parent,
            depth: exec.nesting,
        };
        let value = exec.eval(arg, &frame)?;
        t = if t == Type::Unknown { value.t } else { t };
        values.push(value.v);
    }
    Ok(fold(&name, t, values)?)
}

fn fold(name: &str, t: Type, values: Vec<Value>) -> PgResult<Typed> {
    let present: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
    let result_type = result_type(name, t)?;
    let v = match name {
        "count" => Value::Int(present.len() as i64),
        "array_agg" => Value::Array(values),
        _ if present.is_empty() => Value::Null,
        // Of equal values PostgreSQL keeps the later one (`float8smaller`, `numeric_smaller`:
        // the new value unless the kept one is strictly smaller), which shows where equal
        // values differ: -0 and 0, 1.0 and 1.00.
        "min" => present
            .into_iter()
            .min_by(|a, b| compare(a, b).then(Ordering::Greater))
            .expect("non-empty"),
        "max" => present.into_iter().max_by(compare).expect("non-empty"),
        "sum" | "avg" if result_type == Type::Numeric => match name {
            "sum" => crate::pg::types::numeric_fn::sum(&present)?,
            _ => crate::pg::types::numeric_fn::avg(&present)?,
        },
        "sum" if t.is_integer() => Value::Int(
            present
                .iter()
                .map(|v| if let Value::Int(i) = v { *i } else { 0 })
                .sum(),
        ),
        "sum" | "avg" => {
            let total: f64 = present
                .iter()
                .map(|v| if let Value::Float(f) = v { *f } else { 0.0 })
                .sum();
            Value::Float(if name == "avg" {
                total / present.len() as f64
            } else {
                total
            })
        }
        "bool_and" => Value::Bool(present.iter().all(|v| *v == Value::Bool(true))),
        "bool_or" => Value::Bool(present.contains(&Value::Bool(true))),
        other => return Err(PgError::unsupported(format!("the aggregate {other}"))),
    };
    Ok(Typed::new(v, result_type))
}

/// An aggregate's result type over `t`.
pub(crate) fn result_type(name: &str, t: Type) -> PgResult<Type> {
    let refused = || PgError::unsupported(format!("{name}({}) (numeric)", t.name()));
    Ok(match (name, t) {
        ("count", _) => Type::Int8,
        // json has no order, and jsonb's btree order has no min or max aggregate.
        ("min" | "max", Type::Json | Type::Jsonb) => {
            return Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!("function {name}({}) does not exist", t.name()),
            ))
        }
        // The types PostgreSQL has min and max for (`pg_aggregate`): none for boolean,
        // uuid or a vector.
        ("min" | "max", t)
            if t.is_numeric()
                || t.is_text()
                || t.element().is_some()
                || matches!(
                    t,
                    Type::Unknown
                        | Type::Oid
                        | Type::Timestamptz
                        | Type::Timestamp
                        | Type::Date
                        | Type::Interval
                        | Type::Bytea
                ) =>
        {
            t
        }
        ("min" | "max", t) => {
            return Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!("function {name}({}) does not exist", t.name()),
            ))
        }
        ("sum", Type::Int2 | Type::Int4) => Type::Int8,
        ("sum", Type::Int8 | Type::Numeric) | ("avg", Type::Numeric) => Type::Numeric,
        ("avg", t) if t.is_integer() => Type::Numeric,
        ("sum" | "avg", Type::Float4 | Type::Float8) => Type::Float8,
        ("sum" | "avg", _) => return Err(refused()),
        ("array_agg", t) => t.array_of().ok_or_else(refused)?,
        ("bool_and" | "bool_or", _) => Type::Bool,
        _ => return Err(refused()),
    })
}
