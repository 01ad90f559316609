//! Window functions (`… OVER (PARTITION BY … ORDER BY … frame)`, named windows of
//! `WINDOW w AS (…)`): `row_number`, `rank`, `dense_rank`, `percent_rank`, `cume_dist`,
//! `ntile`, `lag`, `lead`, `first_value`, `last_value`, `nth_value`, and the modelled
//! aggregates over a frame (`window_frame.rs`).
//!
//! As in PostgreSQL they run after WHERE, GROUP BY and HAVING, over the rows those leave
//! (a grouped query's groups, whose aggregates the window's keys and arguments may read),
//! and before DISTINCT, ORDER BY and LIMIT. Each call sorts the rows by its partition
//! keys (ascending, NULLs last and equal) then its ORDER BY, stably; its results are kept
//! per row by the call's address and read back when the row is projected or ordered.
//! Where PostgreSQL's parse analysis refuses a window function (WHERE, GROUP BY, HAVING,
//! FILTER, inside an aggregate or another window function) the model raises its error
//! ([`check_placement`]); what it does not model is refused (0A000).

use crate::pg::error::*;
use crate::pg::exec::aggregate_input::{Input, SortKey};
use crate::pg::exec::context::{Exec, Frame, Joined};
use crate::pg::exec::window_frame::{Bound, FrameSpec, Peers, RangeKey, Units};
use crate::pg::sql::names::{ident, object_name};
use crate::pg::sql::scope::Source;
use crate::pg::types::cast::{cast, common_type};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{not_distinct, sort_order, Typed, Value};
use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    NamedWindowDefinition, NamedWindowExpr, OrderByKind, Query, Select, SelectItem,
    WindowFrameBound, WindowFrameUnits, WindowSpec, WindowType,
};

/// Named windows one may copy through (`WINDOW b AS (a …)`), deeper refused.
const NAMED_WINDOW_DEPTH_MAX: usize = 16;

/// The window functions that are no aggregate.
const WINDOW_ONLY: [&str; 11] = [
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
];

/// A grouped or plain row the windows run over: its FROM row and its group's aggregates.
pub(crate) struct Kept {
    pub row: Joined,
    pub aggregates: Vec<(usize, Typed)>,
}

/// `name(…)` without OVER when `name` is a window function only (PostgreSQL's 42809).
pub(crate) fn refuse_without_over(f: &Function, name: &str) -> PgResult<()> {
    match f.over.is_none() && WINDOW_ONLY.contains(&name) {
        true => Err(PgError::new(
            WRONG_OBJECT_TYPE,
            format!("window function {name} requires an OVER clause"),
        )),
        false => Ok(()),
    }
}

/// The window calls of `select`'s projection and of `query`'s ORDER BY, in order.
pub(crate) fn calls<'q>(select: &'q Select, query: &'q Query) -> Vec<&'q Expr> {
    let mut found = Vec::new();
    for item in &select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            window_calls(e, &mut found);
        }
    }
    if let Some(sqlparser::ast::OrderBy {
        kind: OrderByKind::Expressions(keys),
        ..
    }) = &query.order_by
    {
        keys.iter().for_each(|k| window_calls(&k.expr, &mut found));
    }
    found
}

fn window_calls<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Function(f) if f.over.is_some() => out.push(e),
        _ => children(e).into_iter().for_each(|c| window_calls(c, out)),
    }
}

/// Whether `e` calls a window function (outside its subqueries).
fn has_window(e: &Expr) -> bool {
    let mut found = Vec::new();
    window_calls(e, &mut found);
    !found.is_empty()
}

/// The expressions `e` holds directly (not its subqueries').
fn children(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BinaryOp { left, right, .. }
        | Expr::IsDistinctFrom(left, right)
        | Expr::IsNotDistinctFrom(left, right) => vec![left, right],
        Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
            vec![expr, pattern]
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
        | Expr::Extract { expr, .. } => vec![expr],
        Expr::In { expr, .. } => vec![expr],
        Expr::Between {
            expr, low, high, ..
        } => vec![expr, low, high],
        Expr::Function(f) => function_children(f),
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => operand
            .iter()
            .map(|o| &**o)
            .chain(conditions.iter().flat_map(|w| [&w.condition, &w.result]))
            .chain(else_result.iter().map(|o| &**o))
            .collect(),
        _ => Vec::new(),
    }
}

/// A call's arguments, FILTER and aggregate ORDER BY keys, and its window's keys.
fn function_children(f: &Function) -> Vec<&Expr> {
    let mut out: Vec<&Expr> = argument_exprs(f);
    if let FunctionArguments::List(list) = &f.args {
        for clause in &list.clauses {
            if let sqlparser::ast::FunctionArgumentClause::OrderBy(keys) = clause {
                out.extend(keys.iter().map(|k| &k.expr));
            }
        }
    }
    out.extend(f.filter.as_deref());
    if let Some(WindowType::WindowSpec(spec)) = &f.over {
        out.extend(spec.partition_by.iter());
        out.extend(spec.order_by.iter().map(|k| &k.expr));
    }
    out
}

fn argument_exprs(f: &Function) -> Vec<&Expr> {
    match &f.args {
        FunctionArguments::List(list) => list
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// PostgreSQL's parse-analysis errors for a window function where none may be: WHERE,
/// GROUP BY, HAVING (42P20), an aggregate's arguments (42803), FILTER and another window
/// function's arguments or keys (42P20).
pub(crate) fn check_placement(select: &Select) -> PgResult<()> {
    let not_here = |clause: &str| {
        Err(PgError::new(
            WINDOWING_ERROR,
            format!("window functions are not allowed in {clause}"),
        ))
    };
    if select.selection.as_ref().is_some_and(has_window) {
        return not_here("WHERE");
    }
    if let GroupByExpr::Expressions(keys, _) = &select.group_by {
        if keys.iter().any(has_window) {
            return not_here("GROUP BY");
        }
    }
    if select.having.as_ref().is_some_and(has_window) {
        return not_here("HAVING");
    }
    for item in &select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            check_nesting(e)?;
        }
    }
    Ok(())
}

/// No window call inside an aggregate call or another window call.
fn check_nesting(e: &Expr) -> PgResult<()> {
    let Expr::Function(f) = e else {
        return children(e).into_iter().try_for_each(check_nesting);
    };
    let inner = function_children(f);
    if f.filter.as_deref().is_some_and(has_window) {
        return Err(PgError::new(
            WINDOWING_ERROR,
            "window functions are not allowed in FILTER",
        ));
    }
    if inner.iter().any(|c| has_window(c)) {
        if f.over.is_some() {
            return Err(PgError::new(
                WINDOWING_ERROR,
                "window function calls cannot be nested",
            ));
        }
        if crate::pg::exec::aggregate::is_aggregate(e) {
            return Err(PgError::new(
                GROUPING_ERROR,
                "aggregate function calls cannot contain window function calls",
            ));
        }
    }
    inner.into_iter().try_for_each(check_nesting)
}

/// A window as a call sees it, its named window resolved.
struct Spec<'q> {
    partition: Vec<&'q Expr>,
    order: Vec<SortKey<'q>>,
    frame: Option<&'q sqlparser::ast::WindowFrame>,
}

fn resolve<'q>(over: &'q WindowType, named: &'q [NamedWindowDefinition]) -> PgResult<Spec<'q>> {
    match over {
        WindowType::NamedWindow(name) => named_spec(&ident(name), named, 0),
        WindowType::WindowSpec(spec) => spec_of(spec, named, 0),
    }
}

fn named_spec<'q>(
    name: &str,
    named: &'q [NamedWindowDefinition],
    depth: usize,
) -> PgResult<Spec<'q>> {
    if depth > NAMED_WINDOW_DEPTH_MAX {
        return Err(PgError::unsupported("named windows copied this deep"));
    }
    let found = named.iter().find(|d| ident(&d.0) == name);
    match found.map(|d| &d.1) {
        Some(NamedWindowExpr::WindowSpec(spec)) => spec_of(spec, named, depth + 1),
        Some(NamedWindowExpr::NamedWindow(_)) => {
            Err(PgError::unsupported("a window named as another window"))
        }
        None => Err(PgError::new(
            UNDEFINED_OBJECT,
            format!("window \"{name}\" does not exist"),
        )),
    }
}

/// A window spec; one naming a base window copies its PARTITION BY and ORDER BY, which it
/// may not override, and never a frame (PostgreSQL's 42P20s).
fn spec_of<'q>(
    spec: &'q WindowSpec,
    named: &'q [NamedWindowDefinition],
    depth: usize,
) -> PgResult<Spec<'q>> {
    let own = Spec {
        partition: spec.partition_by.iter().collect(),
        order: spec.order_by.iter().map(sort_key).collect(),
        frame: spec.window_frame.as_ref(),
    };
    let Some(base_name) = &spec.window_name else {
        return Ok(own);
    };
    let base_name = ident(base_name);
    let base = named_spec(&base_name, named, depth)?;
    let wrong = |what: String| Err(PgError::new(WINDOWING_ERROR, what));
    if !own.partition.is_empty() {
        return wrong(format!(
            "cannot override PARTITION BY clause of window \"{base_name}\""
        ));
    }
    if !own.order.is_empty() && !base.order.is_empty() {
        return wrong(format!(
            "cannot override ORDER BY clause of window \"{base_name}\""
        ));
    }
    if base.frame.is_some() {
        return wrong(format!(
            "cannot copy window \"{base_name}\" because it has a frame clause"
        ));
    }
    Ok(Spec {
        partition: base.partition,
        order: if own.order.is_empty() {
            base.order
        } else {
            own.order
        },
        frame: own.frame,
    })
}

fn sort_key(k: &sqlparser::ast::OrderByExpr) -> SortKey<'_> {
    let descending = matches!(k.options.sort, Some(sqlparser::ast::OrderBySort::Desc));
    SortKey {
        expr: &k.expr,
        direction: (descending, k.options.nulls_first.unwrap_or(descending)),
    }
}

/// What a window call computes.
enum Kind {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    /// lag (-1) or lead (+1).
    Shift(i64),
    FirstValue,
    LastValue,
    NthValue,
    Aggregate,
}

fn kind(name: &str) -> Option<Kind> {
    Some(match name {
        "row_number" => Kind::RowNumber,
        "rank" => Kind::Rank,
        "dense_rank" => Kind::DenseRank,
        "percent_rank" => Kind::PercentRank,
        "cume_dist" => Kind::CumeDist,
        "ntile" => Kind::Ntile,
        "lag" => Kind::Shift(-1),
        "lead" => Kind::Shift(1),
        "first_value" => Kind::FirstValue,
        "last_value" => Kind::LastValue,
        "nth_value" => Kind::NthValue,
        _ => return None,
    })
}

/// The argument counts each window function takes.
fn arity_fits(kind: &Kind, n: usize) -> bool {
    match kind {
        Kind::RowNumber | Kind::Rank | Kind::DenseRank | Kind::PercentRank | Kind::CumeDist => {
            n == 0
        }
        Kind::Ntile | Kind::FirstValue | Kind::LastValue => n == 1,
        Kind::NthValue => n == 2,
        Kind::Shift(_) => (1..=3).contains(&n),
        Kind::Aggregate => true,
    }
}

fn function_name(f: &Function) -> String {
    object_name(&f.name).last().cloned().unwrap_or_default()
}

/// The call's kind, its arguments checked against it.
fn classify(f: &Function) -> PgResult<Kind> {
    let name = function_name(f);
    let kind = match kind(&name) {
        Some(kind) => kind,
        None if crate::pg::exec::aggregate::is_aggregate(&Expr::Function(Function {
            over: None,
            ..f.clone()
        })) =>
        {
            Kind::Aggregate
        }
        // PostgreSQL's own aggregates the model lacks are refused, not called no aggregate.
        None if crate::pg::types::builtin_names::is_aggregate(&name) => {
            return Err(PgError::unsupported(format!("{name}(…) OVER (…)")))
        }
        None => {
            return Err(PgError::new(
                WRONG_OBJECT_TYPE,
                format!(
                    "OVER specified, but {name} is not a window function nor an aggregate function"
                ),
            ))
        }
    };
    if f.null_treatment.is_some() || !f.within_group.is_empty() {
        return Err(PgError::unsupported(format!(
            "IGNORE NULLS or WITHIN GROUP in {name}"
        )));
    }
    let args = argument_exprs(f);
    if !matches!(kind, Kind::Aggregate) && !arity_fits(&kind, args.len()) {
        return Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!(
                "function {name} with {} arguments does not exist",
                args.len()
            ),
        ));
    }
    if !matches!(kind, Kind::Aggregate) && f.filter.is_some() {
        return Err(PgError::new(
            WRONG_OBJECT_TYPE,
            "FILTER is not implemented for non-aggregate window functions",
        ));
    }
    if let (Kind::Aggregate, FunctionArguments::List(list)) = (&kind, &f.args) {
        if list.duplicate_treatment == Some(sqlparser::ast::DuplicateTreatment::Distinct) {
            return Err(PgError::unsupported(
                "DISTINCT is not implemented for window functions",
            ));
        }
        if !list.clauses.is_empty() {
            return Err(PgError::unsupported(
                "aggregate ORDER BY is not implemented for window functions",
            ));
        }
    }
    Ok(kind)
}

/// One call's inputs on every row: partition and order keys, arguments, FILTER's truth.
struct Evaluated {
    partition: Vec<Vec<Value>>,
    order: Vec<Vec<Value>>,
    args: Vec<Vec<Typed>>,
    kept: Vec<bool>,
}

impl Exec<'_> {
    /// The result type of the window call `f`.
    pub(crate) fn infer_window(
        &mut self,
        f: &Function,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Type> {
        let kind = classify(f)?;
        let mut types = Vec::new();
        for arg in argument_exprs(f) {
            types.push(self.infer(arg, sources, parent)?);
        }
        Ok(result_type(&kind, &function_name(f), &types)?)
    }

    /// Every window call's result on every row of `kept`: per row, (call address, value).
    pub(crate) fn window_values(
        &mut self,
        select: &Select,
        calls: &[&Expr],
        kept: &[Kept],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Vec<(usize, Typed)>>> {
        let mut per_row: Vec<Vec<(usize, Typed)>> = (0..kept.len()).map(|_| Vec::new()).collect();
        for call in calls {
            let values = self.window_call(select, call, kept, sources, parent)?;
            assert_eq!(values.len(), kept.len(), "a window value per row");
            for (row, value) in per_row.iter_mut().zip(values) {
                row.push((*call as *const Expr as usize, value));
            }
        }
        Ok(per_row)
    }

    /// The order PostgreSQL returns a window query's rows in before any ORDER BY: its
    /// windows' sort when they all share one (else the rows' own order, which PostgreSQL
    /// does not promise either).
    pub(crate) fn window_output_order(
        &mut self,
        select: &Select,
        calls: &[&Expr],
        kept: &[Kept],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<usize>> {
        let identity: Vec<usize> = (0..kept.len()).collect();
        let mut specs = Vec::new();
        for call in calls {
            let Expr::Function(f) = call else { continue };
            let spec = resolve(
                f.over.as_ref().expect("a window call"),
                &select.named_window,
            )?;
            specs.push(spec);
        }
        let Some(first) = specs.first() else {
            return Ok(identity);
        };
        let same = specs
            .iter()
            .all(|s| s.partition == first.partition && s.order == first.order);
        if !same {
            return Ok(identity);
        }
        let evaluated = self.evaluate_keys(first, kept, sources, parent)?;
        Ok(window_order(first, &evaluated))
    }

    fn window_call(
        &mut self,
        select: &Select,
        call: &Expr,
        kept: &[Kept],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Typed>> {
        let Expr::Function(f) = call else {
            unreachable!("a window call")
        };
        let kind = classify(f)?;
        let spec = resolve(
            f.over.as_ref().expect("a window call"),
            &select.named_window,
        )?;
        let frame = self.frame_spec(&spec)?;
        if frame.units == Units::Range && frame.has_offset() {
            self.refuse_range_key(&spec, sources, parent)?;
        }
        let mut evaluated = self.evaluate_keys(&spec, kept, sources, parent)?;
        self.evaluate_args(f, kept, sources, parent, &mut evaluated)?;
        let name = function_name(f);
        let mut types = Vec::new();
        for arg in argument_exprs(f) {
            types.push(self.infer(arg, sources, parent)?);
        }
        let result_type = result_type(&kind, &name, &types)?;
        let order = window_order(&spec, &evaluated);
        let mut out = vec![Typed::null(result_type); kept.len()];
        let mut at = 0;
        while at < order.len() {
            let len = order[at..]
                .iter()
                .take_while(|i| {
                    not_distinct(&evaluated.partition[**i], &evaluated.partition[order[at]])
                })
                .count();
            let partition = &order[at..at + len];
            let job = Partition {
                rows: partition,
                evaluated: &evaluated,
                frame: &frame,
                spec: &spec,
                name: &name,
                result_type,
                types: &types,
            };
            let values = self.partition_values(&kind, &job)?;
            for (row, value) in partition.iter().zip(values) {
                out[*row] = value;
            }
            at += len;
        }
        Ok(out)
    }

    /// The frame clause, its offsets evaluated (they read no column).
    fn frame_spec(&mut self, spec: &Spec<'_>) -> FlowResult<FrameSpec> {
        let Some(frame) = spec.frame else {
            return Ok(FrameSpec::DEFAULT);
        };
        let units = match frame.units {
            WindowFrameUnits::Rows => Units::Rows,
            WindowFrameUnits::Range => Units::Range,
            WindowFrameUnits::Groups => Units::Groups,
        };
        let start = self.bound(&frame.start_bound, "starting")?;
        let end = match &frame.end_bound {
            Some(b) => self.bound(b, "ending")?,
            None => Bound::CurrentRow,
        };
        let out = FrameSpec { units, start, end };
        crate::pg::exec::window_frame::check(&out, spec.order.len())?;
        Ok(out)
    }

    fn bound(&mut self, bound: &WindowFrameBound, which: &str) -> FlowResult<Bound> {
        let offset = |exec: &mut Self, e: &Expr| -> FlowResult<i64> {
            // sqlparser reads a quoted offset (`'inf' PRECEDING`) as an interval: whether
            // it was one, or an untyped literal the key's type reads, is lost.
            if let Expr::Interval(_) = e {
                return Err(PgError::unsupported("a quoted or interval frame offset").into());
            }
            let value = exec.eval(e, &Frame::EMPTY)?;
            if !matches!(
                value.t,
                Type::Int2 | Type::Int4 | Type::Int8 | Type::Unknown
            ) {
                return Err(PgError::unsupported(format!(
                    "a frame offset of type {}",
                    value.t.name()
                ))
                .into());
            }
            match cast(value, Type::Int8, None)?.v {
                Value::Int(n) if n >= 0 => Ok(n),
                Value::Int(_) => Err(PgError::new(
                    INVALID_PRECEDING_OR_FOLLOWING_SIZE,
                    format!("frame {which} offset must not be negative"),
                )
                .into()),
                _ => Err(PgError::new(
                    NULL_VALUE_NOT_ALLOWED,
                    format!("frame {which} offset must not be null"),
                )
                .into()),
            }
        };
        Ok(match bound {
            WindowFrameBound::CurrentRow => Bound::CurrentRow,
            WindowFrameBound::Preceding(None) => Bound::UnboundedPreceding,
            WindowFrameBound::Following(None) => Bound::UnboundedFollowing,
            WindowFrameBound::Preceding(Some(e)) => Bound::Preceding(offset(self, e)?),
            WindowFrameBound::Following(Some(e)) => Bound::Following(offset(self, e)?),
        })
    }

    /// A RANGE offset measures an integer key only here (PostgreSQL also measures
    /// numeric, float, date and time keys): refused before any row is read, as PostgreSQL
    /// refuses a key type it cannot measure.
    fn refuse_range_key(
        &mut self,
        spec: &Spec<'_>,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<()> {
        let t = self.infer(spec.order[0].expr, sources, parent)?;
        match t.is_integer() {
            true => Ok(()),
            false => Err(PgError::unsupported(format!(
                "RANGE with offset PRECEDING/FOLLOWING over type {}",
                t.name()
            ))
            .into()),
        }
    }

    /// Each row's partition and order keys (its group's aggregates in reach).
    fn evaluate_keys(
        &mut self,
        spec: &Spec<'_>,
        kept: &[Kept],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Evaluated> {
        let mut out = Evaluated {
            partition: Vec::with_capacity(kept.len()),
            order: Vec::with_capacity(kept.len()),
            args: Vec::new(),
            kept: Vec::new(),
        };
        for k in kept {
            self.aggregates = k.aggregates.clone();
            let frame = self.frame_of(&k.row, sources, parent);
            let mut partition = Vec::with_capacity(spec.partition.len());
            for e in &spec.partition {
                partition.push(self.eval(e, &frame)?.v);
            }
            let mut order = Vec::with_capacity(spec.order.len());
            for key in &spec.order {
                order.push(self.eval(key.expr, &frame)?.v);
            }
            out.partition.push(partition);
            out.order.push(order);
        }
        Ok(out)
    }

    /// Each row's arguments and, for an aggregate, FILTER's truth.
    fn evaluate_args(
        &mut self,
        f: &Function,
        kept: &[Kept],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
        out: &mut Evaluated,
    ) -> FlowResult<()> {
        let args = argument_exprs(f);
        for k in kept {
            self.aggregates = k.aggregates.clone();
            let frame = self.frame_of(&k.row, sources, parent);
            let mut values = Vec::with_capacity(args.len());
            for arg in &args {
                values.push(self.eval(arg, &frame)?);
            }
            let keep = match f.filter.as_deref() {
                None => true,
                Some(filter) => {
                    let truth = self.eval(filter, &frame)?;
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
                    truth.v.truth()? == Some(true)
                }
            };
            out.args.push(values);
            out.kept.push(keep);
        }
        Ok(())
    }

    fn partition_values(&mut self, kind: &Kind, job: &Partition<'_>) -> FlowResult<Vec<Typed>> {
        let n = job.rows.len();
        let peers = Peers::new(n, |i| not_distinct(job.order_of(i), job.order_of(i - 1)));
        let t = job.result_type;
        let int = |v: usize| Typed::new(Value::Int(v as i64), t);
        let float = |v: f64| Typed::new(Value::Float(v), t);
        let mut out = Vec::with_capacity(n);
        match kind {
            Kind::RowNumber => out.extend((0..n).map(|i| int(i + 1))),
            Kind::Rank => out.extend((0..n).map(|i| int(peers.starts[peers.group_of[i]] + 1))),
            Kind::DenseRank => out.extend((0..n).map(|i| int(peers.group_of[i] + 1))),
            Kind::PercentRank => out.extend((0..n).map(|i| match n {
                1 => float(0.0),
                _ => float(peers.starts[peers.group_of[i]] as f64 / (n - 1) as f64),
            })),
            Kind::CumeDist => {
                out.extend((0..n).map(|i| float(peers.end_of(peers.group_of[i]) as f64 / n as f64)))
            }
            Kind::Ntile => out = ntile(job)?,
            Kind::Shift(direction) => {
                for i in 0..n {
                    out.push(shift(job, i, *direction)?);
                }
            }
            Kind::FirstValue | Kind::LastValue | Kind::NthValue | Kind::Aggregate => {
                let range_values = job.range_values()?;
                let range = range_values.as_ref().map(|(values, descending)| RangeKey {
                    values,
                    descending: *descending,
                });
                for i in 0..n {
                    let frame =
                        crate::pg::exec::window_frame::frame(job.frame, &peers, range.as_ref(), i);
                    self.work += frame.len() as u64;
                    self.tick()?;
                    out.push(self.framed(kind, job, i, frame)?);
                }
            }
        }
        Ok(out)
    }

    /// A frame-reading call's value at position `i` over the frame's positions.
    fn framed(
        &mut self,
        kind: &Kind,
        job: &Partition<'_>,
        i: usize,
        frame: std::ops::Range<usize>,
    ) -> FlowResult<Typed> {
        let value_at =
            |at: usize| -> PgResult<Typed> { cast(job.arg(at, 0), job.result_type, None) };
        match kind {
            Kind::FirstValue if !frame.is_empty() => Ok(value_at(frame.start)?),
            Kind::LastValue if !frame.is_empty() => Ok(value_at(frame.end - 1)?),
            Kind::NthValue => {
                let nth = cast(job.arg(i, 1), Type::Int8, None)?;
                match nth.v {
                    Value::Int(k) if k <= 0 => Err(PgError::new(
                        INVALID_ARGUMENT_FOR_NTH_VALUE,
                        "argument of nth_value must be greater than zero",
                    )
                    .into()),
                    Value::Int(k) if (k as u64) <= frame.len() as u64 => {
                        Ok(value_at(frame.start + k as usize - 1)?)
                    }
                    _ => Ok(Typed::null(job.result_type)),
                }
            }
            Kind::Aggregate => {
                let rows = frame
                    .filter(|at| job.evaluated.kept[job.rows[*at]])
                    .map(|at| {
                        job.evaluated.args[job.rows[at]]
                            .iter()
                            .map(|a| a.v.clone())
                            .collect()
                    })
                    .collect();
                let input = Input {
                    types: job.argument_types(),
                    rows,
                };
                let zone = self.settings.get("timezone");
                Ok(crate::pg::exec::aggregate::fold(job.name, input, zone)?)
            }
            _ => Ok(Typed::null(job.result_type)),
        }
    }
}

/// One partition of one call: its rows (indices of `evaluated`) in window order.
struct Partition<'a> {
    rows: &'a [usize],
    evaluated: &'a Evaluated,
    frame: &'a FrameSpec,
    spec: &'a Spec<'a>,
    name: &'a str,
    result_type: Type,
    /// The arguments' inferred types.
    types: &'a [Type],
}

impl Partition<'_> {
    fn order_of(&self, at: usize) -> &[Value] {
        &self.evaluated.order[self.rows[at]]
    }

    fn arg(&self, at: usize, which: usize) -> Typed {
        self.evaluated.args[self.rows[at]][which].clone()
    }

    /// The arguments' types, an untyped one taken from its first value.
    fn argument_types(&self) -> Vec<Type> {
        let mut types = self.types.to_vec();
        for (which, t) in types.iter_mut().enumerate() {
            if *t == Type::Unknown {
                let first = self.evaluated.args.first().map(|a| a[which].t);
                *t = first.unwrap_or(Type::Text);
            }
        }
        types
    }

    /// The single ORDER BY key's integer values, when the frame measures RANGE offsets.
    fn range_values(&self) -> PgResult<Option<(Vec<i64>, bool)>> {
        if !(self.frame.units == Units::Range && self.frame.has_offset()) {
            return Ok(None);
        }
        let descending = self.spec.order[0].direction.0;
        let mut values = Vec::with_capacity(self.rows.len());
        for at in 0..self.rows.len() {
            match self.order_of(at).first() {
                Some(Value::Int(v)) => values.push(*v),
                _ => {
                    return Err(PgError::unsupported(
                        "RANGE with an offset over a key not a non-NULL integer",
                    ))
                }
            }
        }
        Ok(Some((values, descending)))
    }
}

/// The result type of a window call of `kind` over arguments of `types`.
fn result_type(kind: &Kind, name: &str, types: &[Type]) -> PgResult<Type> {
    let value = || match types.first().copied() {
        Some(Type::Unknown) | None => Type::Text,
        Some(t) => t,
    };
    Ok(match kind {
        Kind::RowNumber | Kind::Rank | Kind::DenseRank => Type::Int8,
        Kind::PercentRank | Kind::CumeDist => Type::Float8,
        Kind::Ntile => Type::Int4,
        Kind::FirstValue | Kind::LastValue | Kind::NthValue => value(),
        Kind::Shift(_) => shift_type(types)?,
        Kind::Aggregate => crate::pg::exec::aggregate::result_type(name, types)?,
    })
}

/// lag and lead take `anycompatible` value and default: their common type, refused when
/// their categories differ (PostgreSQL's resolution there is not modelled).
fn shift_type(types: &[Type]) -> PgResult<Type> {
    let value = types[0];
    let Some(default) = types.get(2).copied() else {
        return Ok(if value == Type::Unknown {
            Type::Text
        } else {
            value
        });
    };
    let common = common_type(value, default);
    let fits = |t: Type| {
        t == Type::Unknown
            || t == common
            || (t.is_numeric() && common.is_numeric())
            || (t.is_text() && common.is_text())
    };
    match (fits(value) && fits(default), common) {
        (true, Type::Unknown) => Ok(Type::Text),
        (true, t) => Ok(t),
        (false, _) => Err(PgError::unsupported(
            "lag or lead with a default of another type",
        )),
    }
}

/// The rows' indices in the window's order: partition keys ascending (NULLs last), then
/// the ORDER BY keys; ties where PostgreSQL's quicksort leaves them.
fn window_order(spec: &Spec<'_>, evaluated: &Evaluated) -> Vec<usize> {
    let mut order: Vec<usize> = (0..evaluated.partition.len()).collect();
    let partition_directions = vec![(false, false); spec.partition.len()];
    let order_directions: Vec<(bool, bool)> = spec.order.iter().map(|k| k.direction).collect();
    crate::pg::exec::pg_qsort::sort(&mut order, &mut |a: &usize, b: &usize| {
        sort_order(
            &evaluated.partition[*a],
            &evaluated.partition[*b],
            &partition_directions,
        )
        .then_with(|| {
            sort_order(
                &evaluated.order[*a],
                &evaluated.order[*b],
                &order_directions,
            )
        })
    });
    order
}

/// `ntile(k)`: `k` read on the partition's first row; the first `rows % k` buckets hold
/// one row more than the rest.
fn ntile(job: &Partition<'_>) -> PgResult<Vec<Typed>> {
    let n = job.rows.len();
    let buckets = match cast(job.arg(0, 0), Type::Int8, None)?.v {
        Value::Int(k) if k <= 0 => {
            return Err(PgError::new(
                INVALID_ARGUMENT_FOR_NTILE,
                "argument of ntile must be greater than zero",
            ))
        }
        Value::Int(k) => k as usize,
        _ => return Ok(vec![Typed::null(Type::Int4); n]),
    };
    let per_bucket = n / buckets;
    let remainder = n % buckets;
    let big = remainder * (per_bucket + 1);
    Ok((0..n)
        .map(|i| {
            let bucket = match i < big {
                true => i / (per_bucket + 1),
                false => remainder + (i - big) / per_bucket,
            };
            Typed::new(Value::Int(bucket as i64 + 1), Type::Int4)
        })
        .collect())
}

/// `lag`/`lead` at position `i`: the value `offset` rows back (lag) or on (lead) in the
/// partition, ignoring the frame; past either end the default (read on the current row).
fn shift(job: &Partition<'_>, i: usize, direction: i64) -> PgResult<Typed> {
    let t = job.result_type;
    let arity = job.evaluated.args[job.rows[i]].len();
    let offset = match arity {
        1 => 1,
        _ => match cast(job.arg(i, 1), Type::Int8, None)?.v {
            Value::Int(k) => k,
            _ => return Ok(Typed::null(t)),
        },
    };
    let target = i as i128 + direction as i128 * offset as i128;
    let value = match usize::try_from(target)
        .ok()
        .filter(|at| *at < job.rows.len())
    {
        Some(at) => job.arg(at, 0),
        None if arity == 3 => job.arg(i, 2),
        None => Typed::null(t),
    };
    cast(value, t, None)
}
