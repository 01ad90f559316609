//! The aggregates (`count`, `min`, `max`, `sum`, `avg`, `array_agg`, `bool_and`,
//! `bool_or`, `every`, `string_agg`, and the JSON ones of `types/json_agg.rs`): each call
//! in a grouped query's projection, HAVING or ORDER BY is computed over the group's rows
//! (its FILTER, DISTINCT and ORDER BY applied by `aggregate_input.rs`) before the
//! projection is evaluated; evaluation then reads it back by the call's address.

use crate::pg::error::*;
use crate::pg::exec::aggregate_input::{Call, Input};
use crate::pg::exec::context::{Exec, Frame, Joined};
use crate::pg::sql::names::{ident, object_name};
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{compare, Typed, Value};
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Select, SelectItem};
use std::cmp::Ordering;

const AGGREGATES: [&str; 14] = [
    "count",
    "min",
    "max",
    "sum",
    "avg",
    "array_agg",
    "bool_and",
    "bool_or",
    "every",
    "string_agg",
    "json_agg",
    "jsonb_agg",
    "json_object_agg",
    "jsonb_object_agg",
];

/// PostgreSQL's other aggregates. The model computes none of them, but it must know them
/// as aggregates: evaluated as ordinary functions they would answer no row over no input,
/// where PostgreSQL answers one (a NULL); as aggregates they are refused when computed.
const AGGREGATES_UNMODELLED: [&str; 31] = [
    "any_value",
    "bit_and",
    "bit_or",
    "bit_xor",
    "corr",
    "covar_pop",
    "covar_samp",
    "json_agg_strict",
    "json_arrayagg",
    "json_object_agg_strict",
    "json_objectagg",
    "jsonb_agg_strict",
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
    "variance",
];

/// Whether `e` calls an aggregate as an aggregate. A call with `OVER` is a window
/// function's (`window.rs`), never computed as a plain aggregate of the whole input.
pub(crate) fn is_aggregate(e: &Expr) -> bool {
    match e {
        Expr::Function(f) if f.over.is_none() => object_name(&f.name).last().is_some_and(|n| {
            AGGREGATES.contains(&n.as_str()) || AGGREGATES_UNMODELLED.contains(&n.as_str())
        }),
        _ => false,
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
            // A window's keys are evaluated per group: `rank() OVER (ORDER BY count(*))`.
            if let Some(sqlparser::ast::WindowType::WindowSpec(spec)) = &f.over {
                spec.partition_by.iter().for_each(|e| calls(e, out));
                spec.order_by.iter().for_each(|k| calls(&k.expr, out));
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
    let keys = group_keys(select, sources)?;
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
pub(crate) fn group_keys<'s>(select: &'s Select, sources: &[Source]) -> PgResult<Vec<&'s Expr>> {
    let sqlparser::ast::GroupByExpr::Expressions(keys, _) = &select.group_by else {
        return Err(PgError::unsupported("GROUP BY ALL"));
    };
    keys.iter()
        .map(|key| group_key(select, key, sources))
        .collect()
}

fn group_key<'s>(select: &'s Select, key: &'s Expr, sources: &[Source]) -> PgResult<&'s Expr> {
    if let Expr::Identifier(name) = key {
        return Ok(output_named(select, &ident(name), sources)?.unwrap_or(key));
    }
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

/// A bare GROUP BY name that no FROM item has but a select item is named: that item's
/// expression (`findTargetlistEntrySQL92` reads the FROM items first).
fn output_named<'s>(
    select: &'s Select,
    name: &str,
    sources: &[Source],
) -> PgResult<Option<&'s Expr>> {
    if crate::pg::sql::scope::resolve(sources, &[name.to_string()])?.is_some() {
        return Ok(None);
    }
    Ok(select.projection.iter().find_map(|item| match item {
        SelectItem::ExprWithAlias { expr, alias } if ident(alias) == name => Some(expr),
        _ => None,
    }))
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
            Expr::Function(f) => {
                if let Some(sqlparser::ast::WindowType::WindowSpec(spec)) = &f.over {
                    each(&mut spec.partition_by.iter())?;
                    each(&mut spec.order_by.iter().map(|k| &k.expr))?;
                }
                match &f.args {
                    FunctionArguments::List(list) => {
                        each(&mut list.args.iter().filter_map(|arg| match arg {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(inner)) => Some(inner),
                            _ => None,
                        }))
                    }
                    _ => Ok(()),
                }
            }
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

/// Every aggregate call of `select`, computed over `group` (sorted first as the planner
/// presorts it for the calls that ask for an order).
pub(crate) fn compute(
    exec: &mut Exec<'_>,
    select: &Select,
    query: &sqlparser::ast::Query,
    group: &[Joined],
    sources: &[Source],
    parent: Option<&Frame<'_>>,
) -> FlowResult<Vec<(usize, Typed)>> {
    let found = select_calls(select, query);
    let mut parsed = Vec::with_capacity(found.len());
    for call in &found {
        let Expr::Function(f) = call else {
            unreachable!("an aggregate call")
        };
        parsed.push(crate::pg::exec::aggregate_input::call(f)?);
    }
    let presort = crate::pg::exec::aggregate_input::presort_keys(&parsed);
    let sorted = exec.sorted_group(&presort, group, sources, parent)?;
    let mut results = Vec::with_capacity(found.len());
    for (expr, call) in found.iter().zip(&parsed) {
        let value = one(exec, call, &sorted, sources, parent)?;
        results.push((*expr as *const Expr as usize, value));
    }
    Ok(results)
}

/// The aggregate calls of `select`'s projection, HAVING and `query`'s ORDER BY, in the
/// order written.
pub(crate) fn select_calls<'q>(
    select: &'q Select,
    query: &'q sqlparser::ast::Query,
) -> Vec<&'q Expr> {
    let mut found = Vec::new();
    for item in &select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            calls(e, &mut found);
        }
    }
    if let Some(having) = &select.having {
        calls(having, &mut found);
    }
    if let Some(sqlparser::ast::OrderBy {
        kind: sqlparser::ast::OrderByKind::Expressions(keys),
        ..
    }) = &query.order_by
    {
        keys.iter().for_each(|k| calls(&k.expr, &mut found));
    }
    found
}

fn one(
    exec: &mut Exec<'_>,
    call: &Call<'_>,
    group: &[Joined],
    sources: &[Source],
    parent: Option<&Frame<'_>>,
) -> FlowResult<Typed> {
    if !AGGREGATES.contains(&call.name.as_str()) {
        return Err(PgError::unsupported(format!("the aggregate {}", call.name)).into());
    }
    let input = exec.aggregate_input(call, group, sources, parent)?;
    let zone = exec.settings.get("timezone");
    Ok(fold(&call.name, input, zone)?)
}

/// `name` over its input rows.
pub(crate) fn fold(name: &str, input: Input, zone: &str) -> PgResult<Typed> {
    let result_type = result_type(name, &input.types)?;
    let Input { types, rows } = input;
    if name == "count" {
        let counted = match types.is_empty() {
            true => rows.len(),
            false => rows.iter().filter(|r| !r[0].is_null()).count(),
        };
        return Ok(Typed::new(Value::Int(counted as i64), Type::Int8));
    }
    if rows.is_empty() {
        return Ok(Typed::null(result_type));
    }
    if crate::pg::types::json_agg::knows(name) {
        return crate::pg::types::json_agg::fold(name, &types, rows, zone);
    }
    if name == "string_agg" {
        return Ok(Typed::new(string_agg(rows), result_type));
    }
    let values: Vec<Value> = rows
        .into_iter()
        .map(|r| r.into_iter().next().expect("one argument"))
        .collect();
    Ok(Typed::new(
        fold_values(name, types[0], result_type, values)?,
        result_type,
    ))
}

/// `string_agg(value, delimiter)`: the non-NULL values, each after the first preceded by
/// its own row's delimiter (a NULL delimiter adds nothing); NULL when every value is.
fn string_agg(rows: Vec<Vec<Value>>) -> Value {
    let mut out: Option<String> = None;
    for row in rows {
        let [value, delimiter] = <[Value; 2]>::try_from(row).expect("two arguments");
        let Value::Text(value) = value else { continue };
        match &mut out {
            None => out = Some(value),
            Some(text) => {
                if let Value::Text(d) = delimiter {
                    text.push_str(&d);
                }
                text.push_str(&value);
            }
        }
    }
    out.map_or(Value::Null, Value::Text)
}

fn fold_values(name: &str, t: Type, result_type: Type, values: Vec<Value>) -> PgResult<Value> {
    let present: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
    let v = match name {
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
        "sum" | "avg" if t.vector_kind().is_some() => {
            crate::pg::types::vector_fn::aggregate(name, t, &present)?
        }
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
        "bool_and" | "every" => Value::Bool(present.iter().all(|v| *v == Value::Bool(true))),
        "bool_or" => Value::Bool(present.contains(&Value::Bool(true))),
        other => return Err(PgError::unsupported(format!("the aggregate {other}"))),
    };
    Ok(v)
}

/// An aggregate's result type over arguments of `types` (none: `count(*)`).
pub(crate) fn result_type(name: &str, types: &[Type]) -> PgResult<Type> {
    if !AGGREGATES.contains(&name) {
        return Err(PgError::unsupported(format!("the aggregate {name}")));
    }
    let arity = match name {
        "count" if types.is_empty() => return Ok(Type::Int8),
        "string_agg" | "json_object_agg" | "jsonb_object_agg" => 2,
        _ => 1,
    };
    if types.len() != arity {
        let listed: Vec<&str> = types.iter().map(|t| t.name()).collect();
        return Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("function {name}({}) does not exist", listed.join(", ")),
        ));
    }
    if crate::pg::types::json_agg::knows(name) {
        return Ok(crate::pg::types::json_agg::result_type(name));
    }
    if name == "string_agg" {
        return string_agg_type(types);
    }
    single_result_type(name, types[0])
}

/// `string_agg(text, text)`: any text type or untyped literal; `bytea` is not modelled.
fn string_agg_type(types: &[Type]) -> PgResult<Type> {
    let texty = |t: &Type| t.is_text() || *t == Type::Unknown;
    if types.iter().all(texty) {
        return Ok(Type::Text);
    }
    if types
        .iter()
        .all(|t| *t == Type::Bytea || *t == Type::Unknown)
    {
        return Err(PgError::unsupported("string_agg(bytea, bytea)"));
    }
    let listed: Vec<&str> = types.iter().map(|t| t.name()).collect();
    Err(PgError::new(
        UNDEFINED_FUNCTION,
        format!("function string_agg({}) does not exist", listed.join(", ")),
    ))
}

/// A one-argument aggregate's result type over `t`.
fn single_result_type(name: &str, t: Type) -> PgResult<Type> {
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
        ("sum" | "avg", t) if t.vector_kind().is_some() => t,
        ("sum" | "avg", _) => return Err(refused()),
        ("array_agg", t) => t.array_of().ok_or_else(refused)?,
        ("bool_and" | "bool_or" | "every", Type::Bool | Type::Unknown) => Type::Bool,
        ("bool_and" | "bool_or" | "every", t) => {
            return Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!("function {name}({}) does not exist", t.name()),
            ))
        }
        _ => return Err(refused()),
    })
}
