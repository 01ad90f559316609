//! The errors PostgreSQL raises before a statement reads a row, so an empty table does not
//! hide them: parse analysis coerces every quoted literal cast to its type (`'x'::int`
//! fails wherever it stands, in a CASE arm never taken too), and the planner folds every
//! constant subexpression of immutable operators and functions (`eval_const_expressions`:
//! `1 / 0`, `('a' || 1)::int`, `2147483647 + 1` fail at plan time). The fold prunes as
//! the planner does: a CASE arm whose condition folds to false or NULL is dropped unfolded,
//! the arms after one that folds to true and the ELSE are not folded, AND stops at a
//! constant false and OR at a constant true, COALESCE at its first constant non-NULL
//! argument. Only operators and functions PostgreSQL marks immutable are evaluated here
//! (nothing of a timestamptz's or an interval's text, no `jsonb_build_object`, no volatile
//! function: they are left to run time, as PostgreSQL leaves them).
//!
//! `Exec::statement` runs both passes over the whole statement (its subqueries and CTEs
//! included, as PostgreSQL plans them), the parse pass first, after parse analysis's own
//! checks (`analyze.rs`).

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::sql::names::object_name;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};
use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, JoinConstraint,
    JoinOperator, Query, Select, SelectItem, SetExpr, Statement, TableFactor, UnaryOperator,
    Value as Literal,
};

/// How deep the walk descends (the parser bounds nesting already; this bounds the walk).
const DEPTH_MAX: u32 = 256;

/// The immutable functions the fold evaluates when every argument is constant.
const IMMUTABLE: [&str; 20] = [
    "abs",
    "lower",
    "upper",
    "length",
    "round",
    "nullif",
    "greatest",
    "least",
    "hashtext",
    "array_length",
    "cardinality",
    "jsonb_typeof",
    "jsonb_array_length",
    "json_typeof",
    "l2_distance",
    "cosine_distance",
    "inner_product",
    "l1_distance",
    "vector_dims",
    "vector_norm",
];

/// A walk's pass and the CTE names in scope where it is.
struct Walk {
    pass: Pass,
    ctes: Vec<String>,
}

/// A pass over a statement: `Parse` evaluates quoted literal casts everywhere, `Plan`
/// folds constants with the planner's pruning.
#[derive(Clone, Copy, PartialEq)]
enum Pass {
    Parse,
    Plan,
}

impl Exec<'_> {
    /// Both passes over `statement` (the DML and queries; DDL has its own checks).
    pub(crate) fn check_constants(&mut self, statement: &Statement) -> PgResult<()> {
        for pass in [Pass::Parse, Pass::Plan] {
            let w = &mut Walk {
                pass,
                ctes: Vec::new(),
            };
            match statement {
                Statement::Query(query) => self.fold_query(w, query, 0)?,
                Statement::Insert(insert) => {
                    if let Some(source) = &insert.source {
                        self.fold_query(w, source, 0)?;
                    }
                    if let Some(sqlparser::ast::OnInsert::OnConflict(c)) = &insert.on {
                        if let sqlparser::ast::OnConflictAction::DoUpdate(u) = &c.action {
                            for a in &u.assignments {
                                self.fold(w, &a.value, 0)?;
                            }
                            if let Some(p) = &u.selection {
                                self.fold(w, p, 0)?;
                            }
                        }
                    }
                    self.fold_items(w, insert.returning.as_deref().unwrap_or(&[]), 0)?;
                }
                Statement::Update(update) => {
                    for a in &update.assignments {
                        self.fold(w, &a.value, 0)?;
                        if pass == Pass::Parse && quoted(&a.value) {
                            self.coerce_assigned(update, a)?;
                        }
                    }
                    self.fold_items(w, update.returning.as_deref().unwrap_or(&[]), 0)?;
                    if let Some(p) = &update.selection {
                        self.fold(w, p, 0)?;
                    }
                }
                Statement::Delete(delete) => {
                    self.fold_items(w, delete.returning.as_deref().unwrap_or(&[]), 0)?;
                    if let Some(p) = &delete.selection {
                        self.fold(w, p, 0)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// `UPDATE … SET c = 'text'`: the literal is read as the column's type in parse
    /// analysis, rows or none.
    fn coerce_assigned(
        &mut self,
        update: &sqlparser::ast::Update,
        assignment: &sqlparser::ast::Assignment,
    ) -> PgResult<()> {
        let sqlparser::ast::AssignmentTarget::ColumnName(name) = &assignment.target else {
            return Ok(());
        };
        let Ok((table, _)) = crate::pg::exec::dml::target(&update.table.relation) else {
            return Ok(());
        };
        let column = object_name(name).last().cloned().unwrap_or_default();
        let Ok(t) = self.db.table(&table) else {
            return Ok(());
        };
        let Some(at) = t.column(&column) else {
            return Ok(());
        };
        let (ty, modifier) = (t.columns[at].ty, t.columns[at].modifier);
        let Some(value) = self.evaluated(&assignment.value)? else {
            return Ok(());
        };
        crate::pg::types::cast::cast(value, ty, modifier).map(|_| ())
    }

    fn fold_query(&mut self, w: &mut Walk, query: &Query, depth: u32) -> PgResult<()> {
        if depth > DEPTH_MAX {
            return Ok(());
        }
        let scope = w.ctes.len();
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                self.fold_query(w, &cte.query, depth + 1)?;
                w.ctes.push(crate::pg::sql::names::ident(&cte.alias.name));
            }
        }
        let result = match &*query.body {
            SetExpr::Select(select) => self.fold_select(w, select, depth + 1),
            SetExpr::Query(inner) => self.fold_query(w, inner, depth + 1),
            SetExpr::Values(values) => {
                for row in &values.rows {
                    for e in &row.content {
                        self.fold(w, e, depth + 1)?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        };
        w.ctes.truncate(scope);
        result
    }

    /// 42P01 for a table of a FROM clause that neither the database nor a CTE in scope
    /// has: PostgreSQL's parse analysis fails on it though no row would reach it.
    fn check_relation(&self, w: &Walk, factor: &TableFactor) -> PgResult<()> {
        let TableFactor::Table {
            name, args: None, ..
        } = factor
        else {
            return Ok(());
        };
        let parts = object_name(name);
        let [table] = parts.as_slice() else {
            return Ok(());
        };
        if w.pass != Pass::Parse || w.ctes.contains(table) || table.starts_with("pg_") {
            return Ok(());
        }
        self.db.table(table).map(|_| ())
    }

    fn fold_select(&mut self, w: &mut Walk, select: &Select, depth: u32) -> PgResult<()> {
        // PostgreSQL's order: FROM (its subqueries, then the join conditions), the
        // target list, WHERE, HAVING.
        let mut conditions = Vec::new();
        for from in &select.from {
            let factors =
                std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation));
            for factor in factors {
                self.check_relation(w, factor)?;
                if let TableFactor::Derived { subquery, .. } = factor {
                    self.fold_query(w, subquery, depth + 1)?;
                }
            }
            for join in &from.joins {
                let constraint = match &join.join_operator {
                    JoinOperator::Join(c)
                    | JoinOperator::Inner(c)
                    | JoinOperator::Left(c)
                    | JoinOperator::LeftOuter(c) => c,
                    _ => continue,
                };
                if let JoinConstraint::On(e) = constraint {
                    conditions.push(e);
                }
            }
        }
        if w.pass == Pass::Parse {
            for e in &conditions {
                self.fold(w, e, depth + 1)?;
            }
        }
        self.fold_items(w, &select.projection, depth + 1)?;
        if w.pass == Pass::Plan {
            for e in &conditions {
                self.fold(w, e, depth + 1)?;
            }
        }
        for e in select.selection.iter().chain(&select.having) {
            self.fold(w, e, depth + 1)?;
        }
        Ok(())
    }

    fn fold_items(&mut self, w: &mut Walk, items: &[SelectItem], depth: u32) -> PgResult<()> {
        for item in items {
            if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
                self.fold(w, e, depth)?;
            }
        }
        Ok(())
    }

    /// `e`'s constant value after folding (`None`: not a constant), or the error its
    /// folding raised. In the parse pass nothing is pruned and only literal casts run.
    fn fold(&mut self, w: &mut Walk, e: &Expr, depth: u32) -> PgResult<Option<Typed>> {
        Ok(self
            .fold_pure(w, e, depth)?
            .filter(|k| k.pure)
            .map(|k| k.value))
    }

    /// `fold`, with constants that pruning made of expressions holding columns (`x AND
    /// false`): their value holds, but the expression cannot be evaluated again without
    /// a row, so an enclosing operator is not folded on them.
    fn fold_pure(&mut self, w: &mut Walk, e: &Expr, depth: u32) -> PgResult<Option<Konst>> {
        let pure = |v: Option<Typed>| v.map(|value| Konst { value, pure: true });
        Ok(match e {
            Expr::BinaryOp { left, op, right }
                if matches!(op, BinaryOperator::And | BinaryOperator::Or) =>
            {
                let d = depth + 1;
                let plan = w.pass == Pass::Plan;
                let stop = Value::Bool(*op == BinaryOperator::Or);
                // The whole is pure only when both sides are: a side left unfolded, or
                // holding a column, must not be evaluated without a row.
                let l = self.fold_pure(w, left, d)?;
                if plan && l.as_ref().is_some_and(|k| k.value.v == stop) {
                    return Ok(l.map(|k| Konst { pure: false, ..k }));
                }
                let r = self.fold_pure(w, right, d)?;
                if plan && r.as_ref().is_some_and(|k| k.value.v == stop) {
                    let pure = l.as_ref().is_some_and(|k| k.pure);
                    return Ok(r.map(|k| Konst {
                        pure: pure && k.pure,
                        ..k
                    }));
                }
                match (l, r) {
                    (Some(l), Some(r)) if plan && l.pure && r.pure => pure(self.evaluated(e)?),
                    _ => None,
                }
            }
            Expr::Nested(inner) => self.fold_pure(w, inner, depth + 1)?,
            Expr::IsNull(inner) | Expr::IsNotNull(inner) if depth <= DEPTH_MAX => {
                let k = self.fold_pure(w, inner, depth + 1)?;
                match k {
                    Some(k) if w.pass == Pass::Plan && !k.pure => Some(Konst {
                        value: Typed {
                            v: Value::Bool(k.value.v.is_null() == matches!(e, Expr::IsNull(_))),
                            t: Type::Bool,
                        },
                        pure: false,
                    }),
                    Some(_) if w.pass == Pass::Plan => pure(self.evaluated(e)?),
                    _ => None,
                }
            }
            Expr::BinaryOp { left, op, right } if comparison(op) && depth <= DEPTH_MAX => {
                self.fold_comparison(w, e, left, right, depth + 1)?
            }
            _ => pure(self.fold_one(w, e, depth)?),
        })
    }

    /// A comparison `left op right`, folded as any operator when both sides are
    /// constant; and, every comparison operator being strict, NULL when one side is a
    /// constant NULL whatever the other (`evaluate_function`'s `has_null_input`): so a
    /// CASE arm behind `NULL >= col` is dropped unfolded. That NULL holds for every row
    /// but is not pure: it cannot be evaluated again without the other side's row.
    fn fold_comparison(
        &mut self,
        w: &mut Walk,
        e: &Expr,
        left: &Expr,
        right: &Expr,
        d: u32,
    ) -> PgResult<Option<Konst>> {
        let l = self.fold(w, left, d)?;
        let r = self.fold(w, right, d)?;
        if w.pass != Pass::Plan {
            return Ok(None);
        }
        let null_input = [&l, &r]
            .iter()
            .any(|k| k.as_ref().is_some_and(|v| v.v.is_null()));
        let value = match (l, r) {
            (Some(l), Some(r)) if comparable(l.t, r.t) => self.evaluated(e)?,
            (Some(_), Some(_)) if null_input => self.evaluated(e).ok().flatten(),
            _ if null_input => {
                return Ok(Some(Konst {
                    value: Typed::null(Type::Bool),
                    pure: false,
                }))
            }
            _ => None,
        };
        Ok(value.map(|value| Konst { value, pure: true }))
    }

    /// `e` evaluated without a row: its value, or the error it raised.
    fn evaluated(&mut self, e: &Expr) -> PgResult<Option<Typed>> {
        match self.eval(e, &Frame::EMPTY) {
            Ok(v) => Ok(Some(v)),
            Err(crate::pg::error::Flow::Error(error)) => Err(error),
            // A wait cannot come of a constant; leave it to run time.
            Err(_) => Ok(None),
        }
    }

    /// A COALESCE whose argument before the dropped ones is constant, evaluated: the
    /// dropped ones still type the call, and one naming a column cannot be typed without
    /// its row (parse analysis already found every column, so that is the only 42703).
    fn coalesced(&mut self, e: &Expr) -> PgResult<Option<Typed>> {
        match self.evaluated(e) {
            Err(error) if error.code == UNDEFINED_COLUMN || error.code == UNDEFINED_TABLE => {
                Ok(None)
            }
            other => other,
        }
    }

    fn fold_one(&mut self, w: &mut Walk, e: &Expr, depth: u32) -> PgResult<Option<Typed>> {
        if depth > DEPTH_MAX {
            return Ok(None);
        }
        let d = depth + 1;
        let plan = w.pass == Pass::Plan;
        match e {
            Expr::Value(v) => Ok(match (&v.value, plan) {
                (Literal::Placeholder(_), _) => None,
                (_, true) => self.evaluated(e)?,
                (_, false) => None,
            }),
            Expr::TypedString(_) => self.evaluated(e),
            Expr::Cast {
                expr, data_type, ..
            } => {
                if quoted(expr) || crate::pg::exec::expr::is_empty_array(expr) {
                    return self.evaluated(e);
                }
                let to = crate::pg::types::regtype::sql_type(data_type).map(|(t, _)| t);
                if let Some((items, _)) = to
                    .ok()
                    .and_then(|to| crate::pg::exec::expr::cast_elements(expr, to))
                {
                    // The cast types the elements (not their common type): folded whole.
                    let mut constant = true;
                    for item in items {
                        constant &= self.fold(w, item, d)?.is_some_and(|v| simple(v.t));
                    }
                    return match constant && plan {
                        true => self.evaluated(e),
                        false => Ok(None),
                    };
                }
                if plan && matches!(unnested(expr), Expr::Value(v) if v.value == Literal::Null) {
                    // A NULL's cast is a NULL constant of the type (`coerce_type`).
                    return Ok(self.evaluated(e).ok().flatten());
                }
                let inner = self.fold(w, expr, d)?;
                let to = crate::pg::types::regtype::sql_type(data_type).map(|(t, _)| t);
                match (inner, to) {
                    (Some(v), Ok(to)) if plan && immutable_cast(v.t, to) => self.evaluated(e),
                    _ => Ok(None),
                }
            }
            Expr::UnaryOp { op, expr } => {
                let inner = self.fold(w, expr, d)?;
                let known = matches!(
                    op,
                    UnaryOperator::Not | UnaryOperator::Minus | UnaryOperator::Plus
                );
                match inner {
                    Some(v) if plan && known && simple(v.t) => self.evaluated(e),
                    _ => Ok(None),
                }
            }
            Expr::BinaryOp { left, right, .. }
            | Expr::IsDistinctFrom(left, right)
            | Expr::IsNotDistinctFrom(left, right) => {
                let l = self.fold(w, left, d)?;
                let r = self.fold(w, right, d)?;
                let strict = matches!(e, Expr::BinaryOp { .. });
                match (l, r) {
                    (Some(l), Some(r)) if plan && simple(l.t) && simple(r.t) => self.evaluated(e),
                    // A strict operator with a constant NULL input is never called, whatever
                    // its volatility (`evaluate_function`): a NULL, which cannot fail.
                    (Some(l), Some(r)) if plan && strict && (l.v.is_null() || r.v.is_null()) => {
                        Ok(self.evaluated(e).ok().flatten())
                    }
                    _ => Ok(None),
                }
            }
            Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
                let l = self.fold(w, expr, d)?;
                let r = self.fold(w, pattern, d)?;
                match (l, r) {
                    (Some(_), Some(_)) if plan => self.evaluated(e),
                    _ => Ok(None),
                }
            }
            Expr::IsNull(inner)
            | Expr::IsNotNull(inner)
            | Expr::IsTrue(inner)
            | Expr::IsFalse(inner)
            | Expr::IsNotTrue(inner)
            | Expr::IsNotFalse(inner) => match self.fold(w, inner, d)? {
                Some(_) if plan => self.evaluated(e),
                _ => Ok(None),
            },
            Expr::Between {
                expr, low, high, ..
            } => {
                let parts = [
                    self.fold(w, expr, d)?,
                    self.fold(w, low, d)?,
                    self.fold(w, high, d)?,
                ];
                match parts
                    .iter()
                    .all(|p| p.as_ref().is_some_and(|v| simple(v.t)))
                {
                    true if plan => self.evaluated(e),
                    _ => Ok(None),
                }
            }
            Expr::In { expr, target, .. } => {
                let mut constant = self.fold(w, expr, d)?.is_some_and(|v| simple(v.t));
                match target {
                    sqlparser::ast::InTarget::List(list) => {
                        for item in list {
                            constant &= self.fold(w, item, d)?.is_some_and(|v| simple(v.t));
                        }
                    }
                    sqlparser::ast::InTarget::Subquery(query) => {
                        self.fold_query(w, query, d)?;
                        constant = false;
                    }
                    _ => constant = false,
                }
                match constant && plan {
                    true => self.evaluated(e),
                    false => Ok(None),
                }
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                if let Some(operand) = operand {
                    self.fold(w, operand, d)?;
                }
                // Constant when every condition before the arm taken is (PostgreSQL then
                // replaces the CASE by that arm's folded result). A simple CASE's test is
                // `operand = value`, folded as such (the operand stands in for CaseTestExpr).
                let mut decided = plan;
                for when in conditions {
                    let test = operand.as_ref().map(|o| Expr::BinaryOp {
                        left: o.clone(),
                        op: BinaryOperator::Eq,
                        right: Box::new(when.condition.clone()),
                    });
                    let condition =
                        self.fold_pure(w, test.as_ref().unwrap_or(&when.condition), d)?;
                    let constant = plan;
                    decided &= condition.as_ref().is_some_and(|c| c.pure);
                    match condition.map(|c| c.value.v) {
                        Some(Value::Bool(false) | Value::Null) if constant => continue,
                        Some(Value::Bool(true)) if constant => {
                            let result = self.fold(w, &when.result, d)?;
                            return Ok(result.filter(|_| decided));
                        }
                        _ => {
                            self.fold(w, &when.result, d)?;
                        }
                    }
                }
                let result = match else_result {
                    Some(e) => self.fold(w, e, d)?,
                    None => Some(Typed::null(Type::Unknown)),
                };
                Ok(result.filter(|_| decided))
            }
            Expr::Function(f) => {
                let name = object_name(&f.name).last().cloned().unwrap_or_default();
                let FunctionArguments::List(list) = &f.args else {
                    return Ok(None);
                };
                if !plan {
                    crate::pg::exec::infer::polymorphic_unknown(&name, &list.args)?;
                }
                let mut all_constant = f.over.is_none() && f.filter.is_none();
                for arg in &list.args {
                    let FunctionArg::Unnamed(FunctionArgExpr::Expr(arg)) = arg else {
                        all_constant = false;
                        continue;
                    };
                    let value = self.fold(w, arg, d)?;
                    if name == "coalesce" && plan && value.as_ref().is_some_and(|v| !v.v.is_null())
                    {
                        // The rest are dropped unfolded; the call is that argument when
                        // every one before it was a constant NULL (evaluated again: the
                        // model's COALESCE stops at its first non-NULL argument too).
                        return match all_constant {
                            true => self.coalesced(e),
                            false => Ok(None),
                        };
                    }
                    all_constant &= value.is_some_and(|v| simple(v.t));
                }
                let immutable = IMMUTABLE.contains(&name.as_str())
                    || crate::pg::types::text_fn::immutable(&name);
                match all_constant && plan && immutable {
                    true => self.evaluated(e),
                    false => Ok(None),
                }
            }
            Expr::Substring { .. } | Expr::Trim { .. } | Expr::Position { .. } => {
                let Some(Ok((_, args))) = crate::pg::exec::string_syntax::lowered(e) else {
                    return Ok(None);
                };
                let mut constant = true;
                for arg in args {
                    constant &= self.fold(w, arg, d)?.is_some_and(|v| simple(v.t));
                }
                match constant && plan {
                    true => self.evaluated(e),
                    false => Ok(None),
                }
            }
            Expr::AnyOp { left, right, .. } | Expr::AllOp { left, right, .. } => {
                let l = self.fold(w, left, d)?;
                let r = self.fold(w, right, d)?;
                match (l, r) {
                    (Some(l), Some(r)) if plan && simple(l.t) && r.t.element().is_some() => {
                        self.evaluated(e)
                    }
                    _ => Ok(None),
                }
            }
            Expr::Array(array) => {
                let mut constant = true;
                for item in &array.elem {
                    constant &= self.fold(w, item, d)?.is_some_and(|v| simple(v.t));
                }
                match constant && plan {
                    true => self.evaluated(e),
                    false => Ok(None),
                }
            }
            Expr::Subquery(query)
            | Expr::Exists {
                subquery: query, ..
            } => {
                self.fold_query(w, query, d)?;
                Ok(None)
            }
            _ => Ok(None),
        }
    }
}

/// The comparison operators, all strict (PostgreSQL's for every type the model has).
fn comparison(op: &BinaryOperator) -> bool {
    use BinaryOperator::*;
    matches!(op, Eq | NotEq | Lt | LtEq | Gt | GtEq)
}

/// The expression inside any parentheses.
fn unnested(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(inner) => unnested(inner),
        other => other,
    }
}

/// Whether `e` is a quoted literal (in parentheses or not): parse analysis reads it as the
/// type its context gives.
fn quoted(e: &Expr) -> bool {
    matches!(unnested(e), Expr::Value(v) if matches!(v.value, Literal::SingleQuotedString(_)))
}

/// A folded constant: its value, and whether its expression is constant throughout.
struct Konst {
    value: Typed,
    pure: bool,
}

/// Whether operators on a value of type `t` are immutable: not on a timestamptz or an
/// interval (their text forms and arithmetic read the time zone: stable), nor on what the
/// fold does not know. A date's and a timestamp's are (`date_pli`, `timestamp_mi`,
/// their comparisons).
fn simple(t: Type) -> bool {
    t.is_numeric()
        || t.is_text()
        || matches!(
            t,
            Type::Bool
                | Type::Unknown
                | Type::Jsonb
                | Type::Uuid
                | Type::Vector
                | Type::Halfvec
                | Type::Sparsevec
                | Type::Bytea
                | Type::Date
                | Type::Timestamp
        )
}

/// Whether comparing a `a` with a `b` is immutable: as any operator on simple types, and
/// two timestamptz's or two intervals (`timestamptz_ge`, `interval_lt`: only their text
/// forms and arithmetic read the time zone), an unknown literal being coerced to the
/// other's type at parse time. Not a timestamptz against a date or timestamp (stable).
fn comparable(a: Type, b: Type) -> bool {
    let zoned = |t: Type| matches!(t, Type::Timestamptz | Type::Interval);
    let same = |x: Type, y: Type| x == y || y == Type::Unknown;
    (simple(a) && simple(b)) || (zoned(a) && same(a, b)) || (zoned(b) && same(b, a))
}

/// Whether the cast from `from` to `to` is immutable (PostgreSQL folds it): not a date's
/// or a timestamp's text form, either way (`date_in`, `date_out` read `DateStyle`).
fn immutable_cast(from: Type, to: Type) -> bool {
    let datetime_text = |a: Type, b: Type| {
        matches!(a, Type::Date | Type::Timestamp) && (b.is_text() || b == Type::Unknown)
    };
    simple(from)
        && simple(to)
        && !(from == Type::Jsonb && to.is_text())
        && !datetime_text(from, to)
        && !datetime_text(to, from)
}
