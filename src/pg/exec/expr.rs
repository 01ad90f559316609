//! Expressions evaluated as PostgreSQL evaluates them: three-valued logic, a literal's
//! type taken from the other operand, integer overflow checked, the vector operators.
//! Columns resolve through [`Frame`]s: a row of the current query and, for a correlated
//! subquery, the rows of the queries around it.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::sql::names::{ident, is_comparison, is_unknown_literal};
use crate::pg::types::builtin_names;
use crate::pg::types::cast::{cast, coerce_pair, compare_values, number_literal};
use crate::pg::types::pg_type::{fit_integer, Type};
use crate::pg::types::value::{compare, Typed, Value};
use sqlparser::ast::{BinaryOperator, Expr, UnaryOperator, Value as Literal};
use std::cmp::Ordering;

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
                // `ARRAY[]::int[]`: the cast is what types an empty array (transformArrayExpr).
                let (to, modifier) = self.sql_type(data_type)?;
                let value = match (is_empty_array(expr), cast_elements(expr, to)) {
                    (true, _) => Typed::new(Value::Array(Vec::new()), Type::TextArray),
                    (false, Some((elements, element))) => {
                        self.array_as(elements, element, to, frame)?
                    }
                    (false, None) => self.eval(expr, frame)?,
                };
                Ok(cast(truncate_varchar(value, to, modifier), to, modifier)?)
            }
            Expr::TypedString(typed) => {
                let (to, modifier) = self.sql_type(&typed.data_type)?;
                Ok(cast(self.literal(&typed.value.value)?, to, modifier)?)
            }
            Expr::Interval(interval) => self.interval(interval, frame),
            Expr::Extract { field, expr, .. } => {
                let value = self.eval(expr, frame)?;
                Ok(crate::pg::types::datetime_fn::extract(
                    &field.to_string(),
                    value,
                )?)
            }
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
            Expr::Function(f) if f.over.is_some() => self.window_result(expr),
            Expr::Function(_) if crate::pg::exec::aggregate::is_aggregate(expr) => {
                self.aggregate_result(expr)
            }
            Expr::Function(function) => self.function(function, frame),
            Expr::Substring { .. } | Expr::Trim { .. } | Expr::Position { .. } => {
                let (name, args) = crate::pg::exec::string_syntax::lowered(expr)
                    .expect("a standard string form")?;
                self.standard_string_call(name, &args, frame)
            }
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
            // `B'101'`: a bit string.
            Literal::SingleQuotedByteStringLiteral(s) => Ok(Typed::new(
                Value::Bit(crate::pg::types::bit::parse(s, None)?),
                Type::Bit,
            )),
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
        let Value::Text(spelled) = value.v else {
            return Err(PgError::unsupported("an interval of a non-text value").into());
        };
        let typmod = interval_typmod(interval)?;
        let parsed = crate::pg::types::interval::parse(&spelled, typmod)?;
        Ok(Typed::new(Value::Interval(parsed), Type::Interval))
    }

    fn unary(&mut self, op: &UnaryOperator, expr: &Expr, frame: &Frame<'_>) -> FlowResult<Typed> {
        if let Some(negative) = crate::pg::sql::names::negated_number(op, expr) {
            return Ok(number_literal(&negative)?);
        }
        let value = self.eval(expr, frame)?;
        match (op, value.v) {
            (UnaryOperator::Not, v) => Ok(Typed::bool(v.truth()?.map(|b| !b))),
            (UnaryOperator::Minus, Value::Int(i)) => {
                let t = if value.t == Type::Unknown {
                    Type::Int4
                } else {
                    value.t
                };
                // int8um: the minimum has no negation in bigint (nor in any narrower type).
                let negated = i.checked_neg().ok_or_else(|| {
                    PgError::new(NUMERIC_VALUE_OUT_OF_RANGE, "bigint out of range")
                })?;
                Ok(Typed::new(Value::Int(fit_integer(negated, t)?), t))
            }
            (UnaryOperator::Minus, Value::Float(f)) => Ok(Typed::new(Value::Float(-f), value.t)),
            (UnaryOperator::Minus, Value::Numeric(n)) => {
                Ok(Typed::new(Value::Numeric(Box::new(n.neg())), value.t))
            }
            (UnaryOperator::Minus, Value::Interval(i)) => Ok(Typed::new(
                Value::Interval(crate::pg::types::interval_ops::negate(i)?),
                Type::Interval,
            )),
            (UnaryOperator::Plus, v) => Ok(Typed::new(v, value.t)),
            (_, Value::Null) => Ok(Typed::null(value.t)),
            (op, _) if builtin_names::is_operator(&op.to_string(), None, value.t) => {
                Err(PgError::unsupported(format!("the operator {op} {}", value.t.name())).into())
            }
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
                let l = self.truth(left, frame)?;
                if l == Some(false) {
                    return Ok(Typed::bool(Some(false)));
                }
                Ok(Typed::bool(and(l, self.truth(right, frame)?)))
            }
            BinaryOperator::Or => {
                let l = self.truth(left, frame)?;
                if l == Some(true) {
                    return Ok(Typed::bool(Some(true)));
                }
                Ok(Typed::bool(or(l, self.truth(right, frame)?)))
            }
            op if is_comparison(op) => Ok(Typed::bool(self.compare_op(left, op, right, frame)?)),
            op => {
                let (l, r) = (self.eval(left, frame)?, self.eval(right, frame)?);
                Ok(crate::pg::types::ops::arithmetic(op, l, r)?)
            }
        }
    }

    /// An operand of AND or OR as a truth value: an untyped literal (`'t'`) is read as a
    /// boolean, as parse analysis coerces it.
    fn truth(&mut self, e: &Expr, frame: &Frame<'_>) -> FlowResult<Option<bool>> {
        let mut value = self.eval(e, frame)?;
        if value.t == Type::Unknown {
            value = crate::pg::types::cast::cast(value, Type::Bool, None)?;
        }
        Ok(value.v.truth()?)
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
        let mut array = self.eval(right, frame)?;
        if is_unknown_literal(right) {
            // An untyped string is an array of the left side's type (text for unknown).
            let element = Some(needle.t)
                .filter(|t| *t != Type::Unknown)
                .unwrap_or(Type::Text);
            let array_t = element
                .array_of()
                .ok_or_else(|| PgError::unsupported(format!("= ANY over {}[]", element.name())))?;
            array = cast(array, array_t, None)?;
        }
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
        if let Expr::Function(f) = pattern {
            let name = f.name.to_string().to_lowercase();
            if matches!(name.as_str(), "all" | "any" | "some") {
                return Err(
                    PgError::unsupported(format!("LIKE {} (array)", name.to_uppercase())).into(),
                );
            }
        }
        let (value, pattern) = (self.eval(expr, frame)?, self.eval(pattern, frame)?);
        let escape = match escape {
            None => Value::Text("\\".into()),
            Some(e) => self.eval(e, frame)?.v,
        };
        if value.t == Type::Bytea || pattern.t == Type::Bytea {
            return Err(PgError::unsupported("LIKE on bytea").into());
        }
        match (value.v, pattern.v, escape) {
            (Value::Text(s), Value::Text(p), Value::Text(e)) => {
                let escape = crate::pg::types::like::escape_char(&e)?;
                let found = crate::pg::types::like::like(&s, &p, escape, insensitive)?;
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

    /// `ARRAY[…]::t[]`: each element cast to `t` on its own, as transformArrayExpr does
    /// with the cast's type as its hint (`ARRAY[1, 'NaN']::float8[]` never reads 'NaN'
    /// as an integer).
    fn array_as(
        &mut self,
        elements: &[Expr],
        element: Type,
        to: Type,
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        let mut values = Vec::with_capacity(elements.len());
        for e in elements {
            values.push(cast(self.eval(e, frame)?, element, None)?.v);
        }
        Ok(Typed::new(Value::Array(values), to))
    }

    fn array_literal(&mut self, elements: &[Expr], frame: &Frame<'_>) -> FlowResult<Typed> {
        if elements.is_empty() {
            return Err(empty_array_error().into());
        }
        let mut items = Vec::with_capacity(elements.len());
        let mut element = Type::Unknown;
        for e in elements {
            let value = self.eval(e, frame)?;
            if value.t != Type::Unknown {
                element = crate::pg::types::numeric_cast::common_type(element, value.t)
                    .unwrap_or(value.t);
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

/// An explicit cast to `varchar(n)` cuts the text to n characters (an assignment refuses).
fn truncate_varchar(value: Typed, to: Type, modifier: Option<u32>) -> Typed {
    match (value.v, to, modifier) {
        (Value::Text(s), Type::Varchar, Some(n)) => {
            Typed::new(Value::Text(s.chars().take(n as usize).collect()), value.t)
        }
        (v, _, _) => Typed::new(v, value.t),
    }
}

/// The typmod of `INTERVAL '…' DAY TO SECOND(2)`: `SECOND(p)` alone holds its precision
/// where sqlparser keeps a leading field's.
fn interval_typmod(
    interval: &sqlparser::ast::Interval,
) -> PgResult<crate::pg::types::interval::Typmod> {
    use sqlparser::ast::DateTimeField;
    let name = |field: &DateTimeField| match field {
        DateTimeField::Year => Ok("year"),
        DateTimeField::Month => Ok("month"),
        DateTimeField::Day => Ok("day"),
        DateTimeField::Hour => Ok("hour"),
        DateTimeField::Minute => Ok("minute"),
        DateTimeField::Second => Ok("second"),
        other => Err(PgError::unsupported(format!("the interval field {other}"))),
    };
    let leading = interval.leading_field.as_ref().map(name).transpose()?;
    let last = interval.last_field.as_ref().map(name).transpose()?;
    let precision = match (leading, last, interval.leading_precision) {
        (_, _, None) => interval.fractional_seconds_precision,
        (Some("second"), None, Some(p)) if interval.fractional_seconds_precision.is_none() => {
            Some(p)
        }
        _ => {
            return Err(PgError::unsupported(
                "an interval's leading field precision",
            ))
        }
    };
    crate::pg::types::interval::typmod(leading, last, precision)
}

/// `ARRAY[]`, which only a cast around it gives a type.
pub(crate) fn is_empty_array(e: &Expr) -> bool {
    matches!(e, Expr::Array(array) if array.elem.is_empty())
}

/// `ARRAY[]` with no cast around it (PostgreSQL's 42P18).
pub(crate) fn empty_array_error() -> PgError {
    PgError::new(
        INDETERMINATE_DATATYPE,
        "cannot determine type of empty array",
    )
}

/// The elements of `ARRAY[…]` under a cast to the array type `to`, and `to`'s element
/// type; `None` for any other cast (or an array of arrays, typed as a whole).
pub(crate) fn cast_elements(e: &Expr, to: Type) -> Option<(&[Expr], Type)> {
    let mut e = e;
    while let Expr::Nested(inner) = e {
        e = inner;
    }
    let (Expr::Array(array), Some(element)) = (e, to.element()) else {
        return None;
    };
    let nested = array.elem.iter().any(|item| matches!(item, Expr::Array(_)));
    (!array.elem.is_empty() && !nested).then_some((array.elem.as_slice(), element))
}
