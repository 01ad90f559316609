//! Expressions evaluated as PostgreSQL evaluates them: three-valued logic, a literal's
//! type taken from the other operand, integer overflow checked, the vector operators.
//! Columns resolve through [`Frame`]s: a row of the current query and, for a correlated
//! subquery, the rows of the queries around it.

use crate::pg::error::*;
use crate::pg::exec::Exec;
use crate::pg::text;
use crate::pg::types::{compare, fit_integer, Interval, Type, Value};
use sqlparser::ast::{BinaryOperator, Expr, UnaryOperator, Value as Literal};
use std::cmp::Ordering;

/// A value with its type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Typed {
    pub v: Value,
    pub t: Type,
}

impl Typed {
    pub(crate) fn new(v: Value, t: Type) -> Typed {
        Typed { v, t }
    }

    pub(crate) fn null(t: Type) -> Typed {
        Typed { v: Value::Null, t }
    }

    pub(crate) fn bool(b: Option<bool>) -> Typed {
        Typed::new(b.map_or(Value::Null, Value::Bool), Type::Bool)
    }
}

/// One FROM item's columns, and where they start in a joined row.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    pub alias: String,
    pub columns: Vec<(String, Type)>,
    pub offset: usize,
}

/// The row an expression is evaluated on, and the rows of the queries around it.
#[derive(Clone, Copy)]
pub(crate) struct Frame<'f> {
    pub sources: &'f [Source],
    pub values: &'f [Value],
    pub parent: Option<&'f Frame<'f>>,
    /// How many subqueries enclose the query whose row this is (0: the statement's own).
    /// A subquery that reads no column of a frame shallower than itself is uncorrelated.
    pub depth: u32,
}

impl Frame<'_> {
    pub(crate) const EMPTY: Frame<'static> = Frame {
        sources: &[],
        values: &[],
        parent: None,
        depth: 0,
    };

    /// The value and type of a column named by `parts` (`x` or `t.x`), and the depth of
    /// the frame that holds it.
    pub(crate) fn column(&self, parts: &[String]) -> PgResult<(Typed, u32)> {
        let found = resolve(self.sources, parts)?;
        match (found, self.parent) {
            (Some((at, t)), _) => Ok((Typed::new(self.values[at].clone(), t), self.depth)),
            (None, Some(parent)) => parent.column(parts),
            (None, None) => Err(undefined_column(parts)),
        }
    }
}

pub(crate) fn undefined_column(parts: &[String]) -> PgError {
    match parts {
        [table, column] => PgError::new(
            UNDEFINED_COLUMN,
            format!("column {table}.{column} does not exist"),
        ),
        _ => PgError::new(
            UNDEFINED_COLUMN,
            format!("column \"{}\" does not exist", parts.join(".")),
        ),
    }
}

/// Where `parts` is in a row of `sources`: `None` if no source has it.
pub(crate) fn resolve(sources: &[Source], parts: &[String]) -> PgResult<Option<(usize, Type)>> {
    let (qualifier, name) = match parts {
        [name] => (None, name),
        [qualifier, name] => (Some(qualifier), name),
        _ => {
            return Err(PgError::unsupported(
                "a column reference with more than two parts",
            ))
        }
    };
    if let Some(q) = qualifier {
        if !sources.iter().any(|s| &s.alias == q) {
            return Ok(None);
        }
    }
    let mut found = None;
    for source in sources
        .iter()
        .filter(|s| qualifier.is_none_or(|q| &s.alias == q))
    {
        if let Some(i) = source.columns.iter().position(|(n, _)| n == name) {
            if found.is_some() {
                return Err(PgError::new(
                    AMBIGUOUS_COLUMN,
                    format!("column reference \"{name}\" is ambiguous"),
                ));
            }
            found = Some((source.offset + i, source.columns[i].1));
        }
    }
    Ok(found)
}

/// An identifier as PostgreSQL folds it: unquoted to lower case.
pub(crate) fn ident(i: &sqlparser::ast::Ident) -> String {
    match i.quote_style {
        Some(_) => i.value.clone(),
        None => i.value.to_lowercase(),
    }
}

pub(crate) fn object_name(name: &sqlparser::ast::ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|part| match part {
            sqlparser::ast::ObjectNamePart::Identifier(i) => ident(i),
            other => other.to_string().to_lowercase(),
        })
        .collect()
}

/// The type a SQL type name spells (`bigint`, `vector(64)`, `text[]`).
pub(crate) fn sql_type(data_type: &sqlparser::ast::DataType) -> PgResult<(Type, Option<u32>)> {
    let spelled = data_type.to_string().to_lowercase();
    let (base, array) = match spelled.strip_suffix("[]") {
        Some(base) => (base.to_string(), true),
        None => (spelled.clone(), false),
    };
    let (name, modifier) = match base.split_once('(') {
        Some((name, rest)) => (
            name.trim().to_string(),
            rest.trim_end_matches(')').trim().parse().ok(),
        ),
        None => (base.trim().to_string(), None),
    };
    let name = match name.as_str() {
        "timestamp with time zone" | "timestamptz" => "timestamptz".to_string(),
        "character varying" => "varchar".into(),
        "double" => "double precision".into(),
        other => other.to_string(),
    };
    let unknown = || PgError::new(UNDEFINED_OBJECT, format!("type \"{name}\" does not exist"));
    let (t, serial) = Type::from_sql_name(&name).ok_or_else(unknown)?;
    if serial && array {
        return Err(unknown());
    }
    let t = if array {
        t.array_of()
            .ok_or_else(|| PgError::unsupported(format!("type {spelled}")))?
    } else {
        t
    };
    let modifier = match (t, base.split_once('(')) {
        (Type::Numeric, Some((_, spelled))) => {
            Some(crate::pg::numeric_cast::typmod_spelled(spelled)?)
        }
        _ => modifier,
    };
    if let (Type::Vector | Type::VectorArray, Some(n)) = (t, modifier) {
        crate::pg::vector::typmod_in(n as i64).map_err(|e| PgError::new(e.sqlstate, e.message))?;
    }
    Ok((t, modifier))
}

impl Exec<'_> {
    /// A column of `frame` or of a frame around it, the depth read noted for the
    /// subquery cache.
    fn column(&mut self, frame: &Frame<'_>, parts: &[String]) -> FlowResult<Typed> {
        let (typed, depth) = frame.column(parts)?;
        let reads = &mut self.subqueries.read_depth_min;
        *reads = (*reads).min(depth);
        Ok(typed)
    }

    /// `expr` on `frame`'s row.
    pub(crate) fn eval(&mut self, expr: &Expr, frame: &Frame<'_>) -> FlowResult<Typed> {
        self.tick()?;
        match expr {
            Expr::Identifier(i) => self.column(frame, &[ident(i)]),
            Expr::CompoundIdentifier(parts) => {
                self.column(frame, &parts.iter().map(ident).collect::<Vec<_>>())
            }
            Expr::Value(v) => Ok(self.literal(&v.value)?),
            Expr::Nested(inner) => self.eval(inner, frame),
            Expr::BinaryOp { left, op, right } => self.binary(left, op, right, frame),
            Expr::UnaryOp { op, expr } => self.unary(op, expr, frame),
            Expr::IsNull(e) => Ok(Typed::bool(Some(self.eval(e, frame)?.v.is_null()))),
            Expr::IsNotNull(e) => Ok(Typed::bool(Some(!self.eval(e, frame)?.v.is_null()))),
            Expr::IsTrue(e) => Ok(Typed::bool(Some(
                self.eval(e, frame)?.v == Value::Bool(true),
            ))),
            Expr::IsFalse(e) => Ok(Typed::bool(Some(
                self.eval(e, frame)?.v == Value::Bool(false),
            ))),
            Expr::IsDistinctFrom(a, b) => self.distinct(a, b, frame, true),
            Expr::IsNotDistinctFrom(a, b) => self.distinct(a, b, frame, false),
            Expr::Cast {
                expr, data_type, ..
            } => {
                let value = self.eval(expr, frame)?;
                let (to, modifier) = sql_type(data_type)?;
                Ok(cast(truncate_varchar(value, to, modifier), to, modifier)?)
            }
            Expr::TypedString(typed) => {
                let (to, modifier) = sql_type(&typed.data_type)?;
                Ok(cast(self.literal(&typed.value.value)?, to, modifier)?)
            }
            Expr::Interval(interval) => self.interval(interval, frame),
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let ge = self.compare_op(expr, &BinaryOperator::GtEq, low, frame)?;
                let le = self.compare_op(expr, &BinaryOperator::LtEq, high, frame)?;
                Ok(Typed::bool(and(ge, le).map(|b| b != *negated)))
            }
            Expr::In {
                expr,
                target,
                negated,
                ..
            } => self.in_target(expr, target, *negated, frame),
            Expr::AnyOp {
                left,
                compare_op,
                right,
                ..
            } => self.any(left, compare_op, right, frame),
            Expr::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char,
            } => self.like(
                expr,
                pattern,
                escape_char.as_deref(),
                (*negated, false),
                frame,
            ),
            Expr::ILike {
                negated,
                any: false,
                expr,
                pattern,
                escape_char,
            } => self.like(
                expr,
                pattern,
                escape_char.as_deref(),
                (*negated, true),
                frame,
            ),
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.case(
                operand.as_deref(),
                conditions,
                else_result.as_deref(),
                frame,
            ),
            Expr::Function(_) if crate::pg::aggregate::is_aggregate(expr) => {
                self.aggregate_result(expr)
            }
            Expr::Function(function) => self.function(function, frame),
            Expr::Exists { subquery, negated } => {
                let rows = self.subquery(subquery, frame, Some(1))?;
                Ok(Typed::bool(Some(rows.rows.is_empty() == *negated)))
            }
            Expr::Subquery(query) => self.scalar_subquery(query, frame),
            Expr::Array(array) => self.array_literal(&array.elem, frame),
            Expr::Tuple(_) => Err(PgError::unsupported("a row constructor").into()),
            other => Err(PgError::unsupported(format!("the expression `{other}`")).into()),
        }
    }

    pub(crate) fn literal(&self, literal: &Literal) -> PgResult<Typed> {
        match literal {
            Literal::Null => Ok(Typed::null(Type::Unknown)),
            Literal::Boolean(b) => Ok(Typed::new(Value::Bool(*b), Type::Bool)),
            Literal::Number(n, _) => number_literal(n),
            Literal::SingleQuotedString(s) => Ok(Typed::new(Value::Text(s.clone()), Type::Unknown)),
            Literal::EscapedStringLiteral(s) => {
                Ok(Typed::new(Value::Text(s.clone()), Type::Unknown))
            }
            Literal::DollarQuotedString(s) => {
                Ok(Typed::new(Value::Text(s.value.clone()), Type::Unknown))
            }
            Literal::Placeholder(p) => self.param(p),
            other => Err(PgError::unsupported(format!("the literal {other}"))),
        }
    }

    fn param(&self, placeholder: &str) -> PgResult<Typed> {
        let index: usize = placeholder
            .strip_prefix('$')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| PgError::syntax(format!("syntax error at or near \"{placeholder}\"")))?;
        self.params
            .get(index.wrapping_sub(1))
            .cloned()
            .ok_or_else(|| {
                PgError::new(
                    UNDEFINED_PARAMETER,
                    format!("there is no parameter ${index}"),
                )
            })
    }

    fn interval(
        &mut self,
        interval: &sqlparser::ast::Interval,
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        let value = self.eval(&interval.value, frame)?;
        let Value::Text(mut spelled) = value.v else {
            return Err(PgError::unsupported("an interval of a non-text value").into());
        };
        if let Some(field) = &interval.leading_field {
            spelled = format!("{spelled} {field}");
        }
        let parsed = text::parse_interval(&spelled)
            .ok_or_else(|| crate::pg::types::invalid_input(Type::Interval, &spelled))?;
        Ok(Typed::new(Value::Interval(parsed), Type::Interval))
    }

    fn unary(&mut self, op: &UnaryOperator, expr: &Expr, frame: &Frame<'_>) -> FlowResult<Typed> {
        let value = self.eval(expr, frame)?;
        match (op, value.v) {
            (UnaryOperator::Not, v) => Ok(Typed::bool(v.truth()?.map(|b| !b))),
            (UnaryOperator::Minus, Value::Int(i)) => {
                let t = if value.t == Type::Unknown {
                    Type::Int4
                } else {
                    value.t
                };
                Ok(Typed::new(Value::Int(fit_integer(-i, t)?), t))
            }
            (UnaryOperator::Minus, Value::Float(f)) => Ok(Typed::new(Value::Float(-f), value.t)),
            (UnaryOperator::Minus, Value::Numeric(n)) => {
                Ok(Typed::new(Value::Numeric(Box::new(n.neg())), value.t))
            }
            (UnaryOperator::Minus, Value::Interval(i)) => Ok(Typed::new(
                Value::Interval(Interval {
                    months: -i.months,
                    days: -i.days,
                    us: -i.us,
                }),
                Type::Interval,
            )),
            (UnaryOperator::Plus, v) => Ok(Typed::new(v, value.t)),
            (_, Value::Null) => Ok(Typed::null(value.t)),
            (op, _) => Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!("operator does not exist: {op} {}", value.t.name()),
            )
            .into()),
        }
    }

    fn distinct(
        &mut self,
        a: &Expr,
        b: &Expr,
        frame: &Frame<'_>,
        distinct: bool,
    ) -> FlowResult<Typed> {
        let (a, b) = coerce_pair(self.eval(a, frame)?, self.eval(b, frame)?)?;
        let same = match (&a.v, &b.v) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            (x, y) => compare(x, y) == Ordering::Equal,
        };
        Ok(Typed::bool(Some(same != distinct)))
    }

    fn binary(
        &mut self,
        left: &Expr,
        op: &BinaryOperator,
        right: &Expr,
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        match op {
            BinaryOperator::And => {
                let l = self.eval(left, frame)?.v.truth()?;
                if l == Some(false) {
                    return Ok(Typed::bool(Some(false)));
                }
                Ok(Typed::bool(and(l, self.eval(right, frame)?.v.truth()?)))
            }
            BinaryOperator::Or => {
                let l = self.eval(left, frame)?.v.truth()?;
                if l == Some(true) {
                    return Ok(Typed::bool(Some(true)));
                }
                Ok(Typed::bool(or(l, self.eval(right, frame)?.v.truth()?)))
            }
            op if is_comparison(op) => Ok(Typed::bool(self.compare_op(left, op, right, frame)?)),
            op => {
                let (l, r) = (self.eval(left, frame)?, self.eval(right, frame)?);
                Ok(crate::pg::ops::arithmetic(op, l, r)?)
            }
        }
    }

    pub(crate) fn compare_op(
        &mut self,
        left: &Expr,
        op: &BinaryOperator,
        right: &Expr,
        frame: &Frame<'_>,
    ) -> FlowResult<Option<bool>> {
        let (l, r) = (self.eval(left, frame)?, self.eval(right, frame)?);
        Ok(compare_values(op, l, r)?)
    }

    fn in_target(
        &mut self,
        expr: &Expr,
        target: &sqlparser::ast::InTarget,
        negated: bool,
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        let needle = self.eval(expr, frame)?;
        let candidates = match target {
            sqlparser::ast::InTarget::List(list) => {
                let mut values = Vec::with_capacity(list.len());
                for item in list {
                    values.push(self.eval(item, frame)?);
                }
                values
            }
            sqlparser::ast::InTarget::Subquery(query) => {
                let result = self.subquery(query, frame, None)?;
                let t = result.single_column_type()?;
                result
                    .rows
                    .into_iter()
                    .map(|mut row| Typed::new(row.swap_remove(0), t))
                    .collect()
            }
            _ => return Err(PgError::unsupported("IN of this form").into()),
        };
        let found = any_equal(&needle, candidates)?;
        Ok(Typed::bool(found.map(|f| f != negated)))
    }

    fn any(
        &mut self,
        left: &Expr,
        op: &BinaryOperator,
        right: &Expr,
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        let needle = self.eval(left, frame)?;
        let array = self.eval(right, frame)?;
        let element = array.t.element().unwrap_or(needle.t);
        let items = match array.v {
            Value::Null => return Ok(Typed::bool(None)),
            Value::Array(items) => items,
            _ => {
                return Err(PgError::new(
                    DATATYPE_MISMATCH,
                    "op ANY/ALL (array) requires array on right side",
                )
                .into())
            }
        };
        let mut result = Some(false);
        for item in items {
            match compare_values(op, needle.clone(), Typed::new(item, element))? {
                Some(true) => return Ok(Typed::bool(Some(true))),
                None => result = None,
                Some(false) => {}
            }
        }
        Ok(Typed::bool(result))
    }

    /// `LIKE`/`ILIKE` (`flags` = negated, insensitive); NULL when any operand is NULL.
    fn like(
        &mut self,
        expr: &Expr,
        pattern: &Expr,
        escape: Option<&Expr>,
        (negated, insensitive): (bool, bool),
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        let (value, pattern) = (self.eval(expr, frame)?, self.eval(pattern, frame)?);
        let escape = match escape {
            None => Value::Text("\\".into()),
            Some(e) => self.eval(e, frame)?.v,
        };
        match (value.v, pattern.v, escape) {
            (Value::Text(s), Value::Text(p), Value::Text(e)) => {
                let escape = crate::pg::like::escape_char(&e)?;
                let found = crate::pg::like::like(&s, &p, escape, insensitive)?;
                Ok(Typed::bool(Some(found != negated)))
            }
            (Value::Null, _, _) | (_, Value::Null, _) | (_, _, Value::Null) => {
                Ok(Typed::bool(None))
            }
            _ => Err(PgError::new(
                UNDEFINED_FUNCTION,
                "operator does not exist: LIKE on non-text",
            )
            .into()),
        }
    }

    fn case(
        &mut self,
        operand: Option<&Expr>,
        conditions: &[sqlparser::ast::CaseWhen],
        otherwise: Option<&Expr>,
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        let subject = match operand {
            Some(e) => Some(self.eval(e, frame)?),
            None => None,
        };
        let mut result_type = Type::Unknown;
        for when in conditions {
            let hit = match &subject {
                Some(s) => compare_values(
                    &BinaryOperator::Eq,
                    s.clone(),
                    self.eval(&when.condition, frame)?,
                )?,
                None => self.eval(&when.condition, frame)?.v.truth()?,
            };
            if hit == Some(true) {
                return self.eval(&when.result, frame);
            }
        }
        if let Some(e) = otherwise {
            return self.eval(e, frame);
        }
        if let Some(first) = conditions.first() {
            result_type = self
                .eval(&first.result, frame)
                .map(|t| t.t)
                .unwrap_or(Type::Unknown);
        }
        Ok(Typed::null(result_type))
    }

    fn scalar_subquery(
        &mut self,
        query: &sqlparser::ast::Query,
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        let result = self.subquery(query, frame, Some(2))?;
        let t = result.single_column_type()?;
        match result.rows.len() {
            0 => Ok(Typed::null(t)),
            1 => Ok(Typed::new(
                result.rows.into_iter().next().expect("one")[0].clone(),
                t,
            )),
            _ => Err(PgError::new(
                CARDINALITY_VIOLATION,
                "more than one row returned by a subquery used as an expression",
            )
            .into()),
        }
    }

    fn array_literal(&mut self, elements: &[Expr], frame: &Frame<'_>) -> FlowResult<Typed> {
        let mut items = Vec::with_capacity(elements.len());
        let mut element = Type::Unknown;
        for e in elements {
            let value = self.eval(e, frame)?;
            if value.t != Type::Unknown {
                element = crate::pg::numeric_cast::common_type(element, value.t).unwrap_or(value.t);
            }
            items.push(value);
        }
        let element = if element == Type::Unknown {
            Type::Text
        } else {
            element
        };
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            values.push(cast(item, element, None)?.v);
        }
        let t = element
            .array_of()
            .ok_or_else(|| PgError::unsupported(format!("an array of {}", element.name())))?;
        Ok(Typed::new(Value::Array(values), t))
    }
}

pub(crate) fn number_literal(n: &str) -> PgResult<Typed> {
    if let Ok(i) = n.parse::<i64>() {
        let t = if i32::try_from(i).is_ok() {
            Type::Int4
        } else {
            Type::Int8
        };
        return Ok(Typed::new(Value::Int(i), t));
    }
    crate::pg::numeric::parse(n).map(|v| Typed::new(Value::Numeric(Box::new(v)), Type::Numeric))
}

fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

pub(crate) fn is_comparison(op: &BinaryOperator) -> bool {
    use BinaryOperator::*;
    matches!(op, Eq | NotEq | Lt | LtEq | Gt | GtEq)
}

/// Bring two operands to one type: an untyped literal takes the other's type.
pub(crate) fn coerce_pair(a: Typed, b: Typed) -> PgResult<(Typed, Typed)> {
    // regtype has no operators of its own: PostgreSQL compares it as the oid it is.
    let as_oid_type = |v: Typed| match v.t {
        Type::Regtype => Typed::new(v.v, Type::Oid),
        _ => v,
    };
    let (a, b) = (as_oid_type(a), as_oid_type(b));
    match (a.t, b.t) {
        (x, y) if x == y => Ok((a, b)),
        (Type::Unknown, t) => Ok((cast(a, t, None)?, b)),
        (t, Type::Unknown) => Ok((a, cast(b, t, None)?)),
        (x, y) if x.is_numeric() && y.is_numeric() => crate::pg::numeric_cast::coerce_pair(a, b),
        (x, y) if x.is_text() && y.is_text() => Ok((a, b)),
        // An integer compares with an oid as an oid (its implicit cast).
        (Type::Oid, y) if y.is_integer() => Ok((a, as_oid(b)?)),
        (x, Type::Oid) if x.is_integer() => Ok((as_oid(a)?, b)),
        (x, y) => Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("operator does not exist: {} = {}", x.name(), y.name()),
        )),
    }
}

/// An integer as an oid: the model takes only those in the oid range.
fn as_oid(v: Typed) -> PgResult<Typed> {
    match v.v {
        Value::Int(n) if u32::try_from(n).is_ok() => Ok(Typed::new(Value::Int(n), Type::Oid)),
        Value::Null => Ok(Typed::null(Type::Oid)),
        _ => Err(PgError::unsupported(
            "an oid comparison with a negative or too large integer",
        )),
    }
}

pub(crate) fn compare_values(op: &BinaryOperator, l: Typed, r: Typed) -> PgResult<Option<bool>> {
    let (l, r) = coerce_pair(l, r)?;
    if l.t == Type::Json {
        return Err(crate::pg::json::no_equality(op));
    }
    if l.v.is_null() || r.v.is_null() {
        return Ok(None);
    }
    let order = compare(&l.v, &r.v);
    let nan = matches!((&l.v, &r.v), (Value::Float(a), _) if a.is_nan())
        || matches!((&l.v, &r.v), (_, Value::Float(b)) if b.is_nan());
    let _ = nan;
    Ok(Some(match op {
        BinaryOperator::Eq => order == Ordering::Equal,
        BinaryOperator::NotEq => order != Ordering::Equal,
        BinaryOperator::Lt => order == Ordering::Less,
        BinaryOperator::LtEq => order != Ordering::Greater,
        BinaryOperator::Gt => order == Ordering::Greater,
        BinaryOperator::GtEq => order != Ordering::Less,
        other => return Err(PgError::unsupported(format!("the operator {other}"))),
    }))
}

fn any_equal(needle: &Typed, candidates: Vec<Typed>) -> PgResult<Option<bool>> {
    let mut result = Some(false);
    for candidate in candidates {
        match compare_values(&BinaryOperator::Eq, needle.clone(), candidate)? {
            Some(true) => return Ok(Some(true)),
            None => result = None,
            Some(false) => {}
        }
    }
    Ok(result)
}

/// `value::to` as PostgreSQL casts (the casts the model knows).
pub(crate) fn cast(value: Typed, to: Type, modifier: Option<u32>) -> PgResult<Typed> {
    let from = value.t;
    let v = match (value.v, from, to) {
        (Value::Null, _, _) => Value::Null,
        (v, f, t) if f == t => v,
        (v, Type::Json, Type::Jsonb) | (v, Type::Jsonb, Type::Json) => {
            crate::pg::json::convert(v, from, to)?
        }
        (Value::Text(s), _, t) if from == Type::Unknown || from.is_text() => text::parse(&s, t)?,
        (Value::Jsonb(json), Type::Jsonb, t)
            if matches!(t, Type::Bool | Type::Float4 | Type::Float8) || t.is_integer() =>
        {
            crate::pg::jsonb_ops::to_scalar(&json, t)?
        }
        (v, _, t) if t.is_text() => Value::Text(text::format(&v, from).unwrap_or_default()),
        (Value::Int(i), Type::Oid | Type::Regtype, Type::Oid | Type::Regtype) => Value::Int(i),
        (Value::Int(i), f, Type::Oid | Type::Regtype) if f.is_integer() => {
            as_oid(Typed::new(Value::Int(i), Type::Oid))?.v
        }
        (v, f, t) if crate::pg::numeric_cast::applies(f, t) => {
            crate::pg::numeric_cast::cast(v, f, t, modifier)?
        }
        (Value::Int(i), _, t) if t.is_integer() => Value::Int(fit_integer(i, t)?),
        (Value::Int(i), _, Type::Float4) => Value::Float(f64::from(i as f32)),
        (Value::Int(i), _, Type::Float8) => Value::Float(i as f64),
        (Value::Float(f), _, Type::Float4) => Value::Float(text::float4(f).ok_or_else(|| {
            PgError::new(NUMERIC_VALUE_OUT_OF_RANGE, "value out of range: overflow")
        })?),
        (Value::Float(f), _, Type::Float8) => Value::Float(f),
        (Value::Float(f), _, t) if t.is_integer() => {
            if !f.is_finite() {
                return Err(PgError::new(
                    NUMERIC_VALUE_OUT_OF_RANGE,
                    format!("{} out of range", t.name()),
                ));
            }
            Value::Int(fit_integer(f.round_ties_even() as i64, t)?)
        }
        (Value::Int(i), _, Type::Bool) if from == Type::Int4 => Value::Bool(i != 0),
        (Value::Array(items), _, t) if t.element().is_some() && from.element().is_some() => {
            let element = t.element().expect("an array type");
            let from_element = from.element().expect("an array type");
            let mut cast_items = Vec::with_capacity(items.len());
            for item in items {
                cast_items.push(cast(Typed::new(item, from_element), element, None)?.v);
            }
            Value::Array(cast_items)
        }
        (Value::Array(items), _, Type::Vector) if from.element().is_some_and(Type::is_numeric) => {
            let floats = items.iter().map(|i| match i {
                Value::Int(n) => Ok(*n as f32),
                Value::Float(f) => Ok(*f as f32),
                Value::Numeric(n) => Ok(n.to_float(true)? as f32),
                _ => Err(PgError::new(DATA_EXCEPTION, "array must not contain nulls")),
            });
            Value::Vector(floats.collect::<PgResult<Vec<f32>>>()?)
        }
        (_, f, t) => {
            return Err(PgError::new(
                crate::pg::error::CANNOT_COERCE,
                format!("cannot cast type {} to {}", f.name(), t.name()),
            ))
        }
    };
    let v = crate::pg::numeric_cast::apply_modifier(v, to, modifier)?;
    check_modifier(&v, to, modifier)?;
    Ok(Typed::new(v, to))
}

/// An explicit cast to `varchar(n)` cuts the text to n characters (an assignment refuses).
fn truncate_varchar(value: Typed, to: Type, modifier: Option<u32>) -> Typed {
    match (value.v, to, modifier) {
        (Value::Text(s), Type::Varchar, Some(n)) => {
            Typed::new(Value::Text(s.chars().take(n as usize).collect()), value.t)
        }
        (v, _, _) => Typed::new(v, value.t),
    }
}

/// `vector(n)` and `varchar(n)`.
pub(crate) fn check_modifier(v: &Value, t: Type, modifier: Option<u32>) -> PgResult<()> {
    let Some(n) = modifier else { return Ok(()) };
    match (v, t) {
        // `vector(3)[]`: the modifier holds for every element.
        (Value::Array(items), _) if t.element().is_some() => {
            let element = t.element().expect("an array type");
            items
                .iter()
                .try_for_each(|item| check_modifier(item, element, modifier))
        }
        (Value::Vector(items), Type::Vector) => {
            crate::pg::vector::check_expected_dimensions(Some(n as usize), items)
                .map_err(|e| PgError::new(e.sqlstate, e.message))
        }
        (Value::Text(s), Type::Varchar) if s.chars().count() > n as usize => Err(PgError::new(
            STRING_DATA_RIGHT_TRUNCATION,
            format!("value too long for type character varying({n})"),
        )),
        _ => Ok(()),
    }
}
