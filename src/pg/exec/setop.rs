//! Set operations: `UNION [ALL]`, `INTERSECT [ALL]`, `EXCEPT [ALL]` (INTERSECT binds
//! tighter, as sqlparser parses it), parenthesised operands, and the ORDER BY / OFFSET /
//! LIMIT that apply to the whole result (ORDER BY names an output column or its position,
//! as PostgreSQL allows nothing else there).
//!
//! Types are resolved node by node as PostgreSQL's `transformSetOperationTree` does: a
//! leaf's bare literals (`'a'`, `NULL`) stay unknown and take the other side's type, two
//! unknowns make text, and two known types go through `select_common_type`'s rule (same
//! category, else 42804; within a category the implicit casts decide). Pairs whose
//! resolution the model does not know are refused (0A000), never guessed.
//!
//! Rows compare as `IS NOT DISTINCT FROM` does (two NULLs are equal). Duplicates are
//! found by sorting, so the work is bounded by the statement's work limit.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Rows};
use crate::pg::sql::names::{ident, is_unknown_literal};
use crate::pg::types::cast::cast;
use crate::pg::types::pg_type::Type;
use crate::pg::types::select_common::common_type;
use crate::pg::types::value::sort_order;
use crate::pg::types::value::{Typed, Value};
use sqlparser::ast::{
    Expr, OrderByKind, Query, SelectItem, SetExpr, SetOperator, SetQuantifier, Value as Literal,
};
use std::cmp::Ordering;

impl Exec<'_> {
    /// A query whose body is a set operation, a parenthesised query or VALUES, under an
    /// ORDER BY / OFFSET / LIMIT of its own: the body's rows, then those clauses.
    pub(crate) fn set_query(
        &mut self,
        query: &Query,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Rows> {
        if !query.locks.is_empty() {
            let clause = crate::pg::exec::query::lock_clauses(&query.locks)?
                .0
                .clause();
            return Err(PgError::new(
                FEATURE_NOT_SUPPORTED,
                format!("{clause} is not allowed with UNION/INTERSECT/EXCEPT"),
            )
            .into());
        }
        check_single_clauses(query)?;
        let mut rows = self.set_operand(&query.body, parent)?;
        for (_, t) in &mut rows.columns {
            if *t == Type::Unknown {
                *t = Type::Text;
            }
        }
        let ordered = self.set_order(query, rows.rows, &rows.columns)?;
        let (limit, offset) = self.limit_offset(query, parent)?;
        rows.rows = ordered
            .into_iter()
            .skip(offset)
            .take(limit.unwrap_or(usize::MAX))
            .collect();
        Ok(rows)
    }

    /// The columns a set operation (or a parenthesised query, or VALUES, under its own
    /// ORDER BY / LIMIT) returns, typed as [`Exec::set_query`] types them, nothing run
    /// but VALUES; LIMIT and OFFSET's parameters are bigint.
    pub(crate) fn describe_set(
        &mut self,
        query: &Query,
        parent: &Frame<'_>,
    ) -> FlowResult<Vec<(String, Type)>> {
        let mut columns = self.describe_operand(&query.body, parent)?;
        for (_, t) in &mut columns {
            if *t == Type::Unknown {
                *t = Type::Text;
            }
        }
        if let Some(sqlparser::ast::LimitClause::LimitOffset { limit, offset, .. }) =
            &query.limit_clause
        {
            for e in limit.iter().chain(offset.iter().map(|o| &o.value)) {
                self.infer_as(e, Type::Int8, &[], Some(parent))?;
            }
        }
        Ok(columns)
    }

    pub(crate) fn describe_operand(
        &mut self,
        body: &SetExpr,
        parent: &Frame<'_>,
    ) -> FlowResult<Vec<(String, Type)>> {
        match body {
            SetExpr::Select(select) => {
                let (_, columns) = self.describe_select(select, parent)?;
                let rows = Rows {
                    columns,
                    rows: Vec::new(),
                };
                Ok(unknown_literals(&select.projection, rows)?.columns)
            }
            SetExpr::Query(inner) if plain(inner) => self.describe_operand(&inner.body, parent),
            SetExpr::Query(inner) => {
                let columns = self.describe_query(inner, parent)?;
                let rows = Rows {
                    columns,
                    rows: Vec::new(),
                };
                match &*inner.body {
                    SetExpr::Select(select) => {
                        Ok(unknown_literals(&select.projection, rows)?.columns)
                    }
                    _ => Ok(rows.columns),
                }
            }
            SetExpr::SetOperation {
                left, op, right, ..
            } => {
                let name = op_name(*op)?;
                let left = self.describe_operand(left, parent)?;
                let right = self.describe_operand(right, parent)?;
                if left.len() != right.len() {
                    return Err(PgError::syntax(format!(
                        "each {name} query must have the same number of columns"
                    ))
                    .into());
                }
                let mut columns = Vec::with_capacity(left.len());
                for ((n, l), (_, r)) in left.into_iter().zip(right) {
                    columns.push((n, common_type(name, l, r)?));
                }
                Ok(columns)
            }
            SetExpr::Values(values) => Ok(self.set_values(values, Some(parent))?.columns),
            other => Err(PgError::unsupported(format!("`{other}` in a set operation")).into()),
        }
    }

    /// A SELECT as a set operation's leaf: its rows, a bare literal's column of unknown
    /// type.
    pub(crate) fn set_leaf(
        &mut self,
        select: &sqlparser::ast::Select,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Rows> {
        let rows = self.select(select, &bare_query(), parent)?;
        unknown_literals(&select.projection, rows)
    }

    /// One operand's rows; a column of a leaf's bare literal stays of unknown type.
    pub(crate) fn set_operand(
        &mut self,
        body: &SetExpr,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Rows> {
        match body {
            SetExpr::Select(select) => self.set_leaf(select, parent),
            SetExpr::Query(inner) if plain(inner) => self.set_operand(&inner.body, parent),
            SetExpr::Query(inner) if !inner.locks.is_empty() => {
                let clause = crate::pg::exec::query::lock_clauses(&inner.locks)?
                    .0
                    .clause();
                Err(PgError::new(
                    FEATURE_NOT_SUPPORTED,
                    format!("{clause} is not allowed with UNION/INTERSECT/EXCEPT"),
                )
                .into())
            }
            SetExpr::Query(inner) => {
                let rows = self.query(inner, parent)?;
                match &*inner.body {
                    SetExpr::Select(select) => unknown_literals(&select.projection, rows),
                    _ => Ok(rows),
                }
            }
            SetExpr::SetOperation {
                left,
                op,
                set_quantifier,
                right,
            } => {
                let all = match set_quantifier {
                    SetQuantifier::All => true,
                    SetQuantifier::None | SetQuantifier::Distinct => false,
                    other => {
                        return Err(PgError::unsupported(format!("{op} {other}")).into());
                    }
                };
                let left = self.set_operand(left, parent)?;
                let right = self.set_operand(right, parent)?;
                self.set_combine(*op, all, left, right)
            }
            SetExpr::Values(values) => self.set_values(values, parent),
            other => Err(PgError::unsupported(format!("`{other}` in a set operation")).into()),
        }
    }

    /// VALUES as an operand: each column's type resolved over its rows first, as
    /// PostgreSQL's `transformValuesClause` does (a column of bare literals only is text).
    fn set_values(
        &mut self,
        values: &sqlparser::ast::Values,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Rows> {
        let frame = parent.copied().unwrap_or(Frame::EMPTY);
        let width = values.rows.first().map_or(0, |r| r.content.len());
        let mut cells = Vec::with_capacity(values.rows.len());
        for row in &values.rows {
            if row.content.len() != width {
                return Err(PgError::syntax("VALUES lists must all be the same length").into());
            }
            let mut typed = Vec::with_capacity(width);
            for e in &row.content {
                typed.push(self.eval(e, &frame)?);
            }
            cells.push(typed);
        }
        let mut types = vec![Type::Unknown; width];
        for row in &cells {
            for (t, cell) in types.iter_mut().zip(row) {
                *t = match (*t, cell.t) {
                    (Type::Unknown, found) => found,
                    (known, Type::Unknown) => known,
                    (known, found) => common_type("VALUES", known, found)?,
                };
            }
        }
        for t in &mut types {
            if *t == Type::Unknown {
                *t = Type::Text;
            }
        }
        let mut out = Rows {
            columns: (1..=width)
                .map(|at| format!("column{at}"))
                .zip(types.iter().copied())
                .collect(),
            rows: Vec::with_capacity(cells.len()),
        };
        for row in cells {
            let mut cast_row = Vec::with_capacity(width);
            for (cell, t) in row.into_iter().zip(&types) {
                cast_row.push(cast(cell, *t, None)?.v);
            }
            out.rows.push(cast_row);
        }
        Ok(out)
    }

    /// `left op right`: the column types resolved, both sides cast to them, the rows
    /// combined.
    fn set_combine(
        &mut self,
        op: SetOperator,
        all: bool,
        left: Rows,
        right: Rows,
    ) -> FlowResult<Rows> {
        let name = op_name(op)?;
        if left.columns.len() != right.columns.len() {
            return Err(PgError::syntax(format!(
                "each {name} query must have the same number of columns"
            ))
            .into());
        }
        let mut types = Vec::with_capacity(left.columns.len());
        for ((_, l), (_, r)) in left.columns.iter().zip(&right.columns) {
            types.push(common_type(name, *l, *r)?);
        }
        let columns: Vec<(String, Type)> = left
            .columns
            .iter()
            .zip(&types)
            .map(|((n, _), t)| (n.clone(), *t))
            .collect();
        let left_rows = self.cast_rows(left, &types)?;
        let right_rows = self.cast_rows(right, &types)?;
        let rows = match (op, all) {
            (SetOperator::Union, true) => {
                let mut rows = left_rows;
                rows.extend(right_rows);
                rows
            }
            _ => self.counted(op, all, left_rows, right_rows)?,
        };
        Ok(Rows { columns, rows })
    }

    pub(crate) fn cast_rows(&mut self, rows: Rows, types: &[Type]) -> FlowResult<Vec<Vec<Value>>> {
        let from: Vec<Type> = rows.columns.iter().map(|(_, t)| *t).collect();
        let mut out = Vec::with_capacity(rows.rows.len());
        for row in rows.rows {
            self.tick()?;
            let mut cast_row = Vec::with_capacity(row.len());
            for ((v, f), t) in row.into_iter().zip(&from).zip(types) {
                cast_row.push(match f == t {
                    true => v,
                    false => cast(Typed::new(v, *f), *t, None)?.v,
                });
            }
            out.push(cast_row);
        }
        Ok(out)
    }

    /// UNION, INTERSECT [ALL], EXCEPT [ALL]: each distinct row with how often each side
    /// has it, then as many copies as the operation keeps.
    fn counted(
        &mut self,
        op: SetOperator,
        all: bool,
        left: Vec<Vec<Value>>,
        right: Vec<Vec<Value>>,
    ) -> FlowResult<Vec<Vec<Value>>> {
        let width = left.first().or(right.first()).map_or(0, Vec::len);
        let directions = vec![(false, false); width];
        let mut tagged: Vec<(Vec<Value>, bool)> = left.into_iter().map(|r| (r, true)).collect();
        tagged.extend(right.into_iter().map(|r| (r, false)));
        self.work += tagged.len() as u64;
        self.tick()?;
        tagged.sort_by(|(a, _), (b, _)| sort_order(a, b, &directions));
        let mut out = Vec::new();
        let mut at = 0;
        while at < tagged.len() {
            let end = at
                + tagged[at..]
                    .iter()
                    .take_while(|(r, _)| {
                        sort_order(r, &tagged[at].0, &directions) == Ordering::Equal
                    })
                    .count();
            let in_left = tagged[at..end].iter().filter(|(_, left)| *left).count();
            let in_right = end - at - in_left;
            let copies = match (op, all) {
                (SetOperator::Union, _) => 1,
                (SetOperator::Intersect, true) => in_left.min(in_right),
                (SetOperator::Intersect, false) => usize::from(in_left > 0 && in_right > 0),
                (_, true) => in_left.saturating_sub(in_right),
                (_, false) => usize::from(in_left > 0 && in_right == 0),
            };
            out.extend(std::iter::repeat_n(tagged[at].0.clone(), copies));
            at = end;
        }
        Ok(out)
    }

    /// ORDER BY over a set operation's result: output columns by name or position.
    fn set_order(
        &mut self,
        query: &Query,
        rows: Vec<Vec<Value>>,
        columns: &[(String, Type)],
    ) -> FlowResult<Vec<Vec<Value>>> {
        let Some(order_by) = &query.order_by else {
            return Ok(rows);
        };
        let OrderByKind::Expressions(keys) = &order_by.kind else {
            return Err(PgError::unsupported("ORDER BY ALL").into());
        };
        let mut at = Vec::with_capacity(keys.len());
        let mut directions = Vec::with_capacity(keys.len());
        // A parenthesised SELECT's ORDER BY may read its input columns too: the model
        // sorts only by output columns there, and refuses the rest.
        let set_operation = matches!(&*query.body, SetExpr::SetOperation { .. });
        for key in keys {
            let position = match output_position(&key.expr, columns) {
                Err(e) if !set_operation => Err(PgError::unsupported(format!(
                    "ORDER BY {} over a parenthesised query ({})",
                    key.expr, e.message
                ))),
                other => other,
            };
            at.push(position?);
            let descending = matches!(key.options.sort, Some(sqlparser::ast::OrderBySort::Desc));
            directions.push((descending, key.options.nulls_first.unwrap_or(descending)));
        }
        self.work += rows.len() as u64;
        self.tick()?;
        let mut keyed: Vec<(Vec<Value>, Vec<Value>)> = rows
            .into_iter()
            .map(|row| (at.iter().map(|i| row[*i].clone()).collect(), row))
            .collect();
        keyed.sort_by(|(a, _), (b, _)| sort_order(a, b, &directions));
        Ok(keyed.into_iter().map(|(_, row)| row).collect())
    }
}

/// PostgreSQL's 42601 for a parenthesised query with its own ORDER BY or LIMIT under
/// another.
fn check_single_clauses(query: &Query) -> PgResult<()> {
    let SetExpr::Query(inner) = &*query.body else {
        return Ok(());
    };
    if query.order_by.is_some() && inner.order_by.is_some() {
        return Err(PgError::syntax("multiple ORDER BY clauses not allowed"));
    }
    if query.limit_clause.is_some() && inner.limit_clause.is_some() {
        return Err(PgError::unsupported(
            "LIMIT over a parenthesised query's LIMIT",
        ));
    }
    Ok(())
}

/// The output column an ORDER BY key of a set operation names.
fn output_position(key: &Expr, columns: &[(String, Type)]) -> PgResult<usize> {
    match key {
        Expr::Value(v) => match &v.value {
            Literal::Number(n, _) => {
                let at: usize = n
                    .parse()
                    .map_err(|_| PgError::syntax("non-integer constant in ORDER BY"))?;
                match at {
                    1.. if at <= columns.len() => Ok(at - 1),
                    _ => Err(PgError::new(
                        INVALID_COLUMN_REFERENCE,
                        format!("ORDER BY position {at} is not in select list"),
                    )),
                }
            }
            _ => Err(PgError::unsupported("a constant ORDER BY key")),
        },
        Expr::Identifier(i) => {
            let name = ident(i);
            let mut named = columns.iter().enumerate().filter(|(_, (n, _))| *n == name);
            match (named.next(), named.next()) {
                (Some((at, _)), None) => Ok(at),
                (Some(_), Some(_)) => Err(PgError::unsupported("an ambiguous ORDER BY name")),
                (None, _) => Err(PgError::new(
                    UNDEFINED_COLUMN,
                    format!("column \"{name}\" does not exist"),
                )),
            }
        }
        _ => Err(PgError::new(
            FEATURE_NOT_SUPPORTED,
            "invalid UNION/INTERSECT/EXCEPT ORDER BY clause",
        )
        .with_detail("Only result column names can be used, not expressions or functions.")),
    }
}

/// A query with nothing around its body: a leaf SELECT of a set operation runs under it
/// (its ORDER BY and LIMIT belong to the whole operation).
fn bare_query() -> Query {
    Query {
        with: None,
        body: Box::new(SetExpr::Values(sqlparser::ast::Values {
            explicit_row: false,
            value_keyword: false,
            rows: Vec::new(),
        })),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: Vec::new(),
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: Vec::new(),
    }
}

/// A parenthesised query that only groups (no WITH, ORDER BY, LIMIT or locking).
fn plain(query: &Query) -> bool {
    query.with.is_none()
        && query.order_by.is_none()
        && query.limit_clause.is_none()
        && query.fetch.is_none()
        && query.locks.is_empty()
}

/// `rows` with the columns a bare literal makes marked unknown, as a set operation's
/// leaf leaves them (PostgreSQL resolves them against the other side).
fn unknown_literals(projection: &[SelectItem], mut rows: Rows) -> FlowResult<Rows> {
    let unknown: Vec<bool> = projection
        .iter()
        .map(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                is_unknown_literal(e)
            }
            _ => false,
        })
        .collect();
    if !unknown.iter().any(|u| *u) {
        return Ok(rows);
    }
    let starred = projection.iter().any(|item| {
        matches!(
            item,
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
        )
    });
    if starred {
        return Err(PgError::unsupported("a bare literal beside * in a set operation").into());
    }
    assert_eq!(
        unknown.len(),
        rows.columns.len(),
        "one column per select item"
    );
    for ((_, t), unknown) in rows.columns.iter_mut().zip(unknown) {
        if unknown {
            *t = Type::Unknown;
        }
    }
    Ok(rows)
}

fn op_name(op: SetOperator) -> PgResult<&'static str> {
    match op {
        SetOperator::Union => Ok("UNION"),
        SetOperator::Intersect => Ok("INTERSECT"),
        SetOperator::Except => Ok("EXCEPT"),
        SetOperator::Minus => Err(PgError::syntax("syntax error at or near \"MINUS\"")),
    }
}
