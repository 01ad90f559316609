//! `generate_series(start, stop [, step]) [WITH ORDINALITY] [AS t(c)]` as a FROM item:
//! the integer (int4, int8), numeric, and timestamp/timestamptz-with-interval forms of
//! PostgreSQL's set-returning function, what seed data, backfills and tests write.
//!
//! As PostgreSQL does: the step defaults to 1, a zero step is 22023, a NULL argument gives
//! no rows, an integer series ends where the next value would overflow, and a `date`
//! start or stop is read as `timestamptz` (the datetime category's preferred type). The
//! item is named `generate_series` or its alias; its one column takes the alias's name
//! (a scalar function's rule), then `ordinality`. The arguments are evaluated once,
//! before any row, so like `unnest` an argument may not read an earlier FROM item.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Joined};
use crate::pg::exec::unnest::function_source;
use crate::pg::sql::names::{ident, object_name};
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Interval, Typed, Value};
use sqlparser::ast::{BinaryOperator, Expr, FunctionArg, FunctionArgExpr, TableAlias, TableFactor};

/// The syntax of a `generate_series` FROM item, borrowed from the statement.
pub(crate) struct Series<'s> {
    pub args: Vec<&'s Expr>,
    pub alias: Option<&'s TableAlias>,
    pub with_ordinality: bool,
}

impl<'s> Series<'s> {
    /// `factor` when it calls `generate_series` (with or without `pg_catalog.`).
    pub(crate) fn of(factor: &'s TableFactor) -> Option<PgResult<Series<'s>>> {
        let TableFactor::Table {
            name,
            alias,
            args: Some(args),
            with_ordinality,
            ..
        } = factor
        else {
            return None;
        };
        let named = match object_name(name).as_slice() {
            [function] | [_, function] => function == "generate_series",
            _ => false,
        };
        let schema_ok = object_name(name).len() == 1 || object_name(name)[0] == "pg_catalog";
        if !named || !schema_ok {
            return None;
        }
        let mut exprs = Vec::with_capacity(args.args.len());
        for arg in &args.args {
            match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => exprs.push(e),
                _ => {
                    let refused = PgError::unsupported("a named or * argument to generate_series");
                    return Some(Err(refused));
                }
            }
        }
        Some(Ok(Series {
            args: exprs,
            alias: alias.as_ref(),
            with_ordinality: *with_ordinality,
        }))
    }

    /// The FROM item's name and columns for a series of `element`s.
    pub(crate) fn source(&self, element: Type, offset: usize) -> PgResult<Source> {
        let alias = self
            .alias
            .map_or("generate_series".to_string(), |a| ident(&a.name));
        let columns = vec![(alias.clone(), element)];
        function_source(self.alias, alias, columns, self.with_ordinality, offset)
    }
}

/// The rows a series may have: an infinite timestamp bound would never end.
const SERIES_ROWS_MAX: usize = 1_000_000;

/// PostgreSQL's checks of a numeric series' bounds and step: neither NaN nor infinite.
fn check_numeric_bounds(start: &Value, stop: &Value, step: &Value) -> PgResult<()> {
    use crate::pg::types::numeric::Numeric;
    let named = [
        (start, "start value"),
        (stop, "stop value"),
        (step, "step size"),
    ];
    for (value, name) in named {
        let Value::Numeric(n) = value else {
            continue;
        };
        let what = match **n {
            Numeric::NaN => "NaN",
            Numeric::Infinity | Numeric::NegInfinity => "infinity",
            Numeric::Finite { .. } => continue,
        };
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            format!("{name} cannot be {what}"),
        ));
    }
    Ok(())
}

/// The element type of `generate_series(types…)`, as PostgreSQL resolves the overloads.
pub(crate) fn element_type(types: &[Type]) -> PgResult<Type> {
    let integer = |t: Type| matches!(t, Type::Int2 | Type::Int4 | Type::Int8 | Type::Unknown);
    let numeric = |t: Type| integer(t) || t == Type::Numeric;
    let datetime = |t: Type| {
        matches!(
            t,
            Type::Timestamp | Type::Timestamptz | Type::Date | Type::Unknown
        )
    };
    match types {
        [a, b] | [a, b, _] if types.iter().all(|t| integer(*t)) => {
            let wide = [*a, *b].contains(&Type::Int8) || types.get(2) == Some(&Type::Int8);
            Ok(if wide { Type::Int8 } else { Type::Int4 })
        }
        [_, _] | [_, _, _] if types.iter().all(|t| numeric(*t)) => Ok(Type::Numeric),
        [a, b, step]
            if datetime(*a) && datetime(*b) && matches!(step, Type::Interval | Type::Unknown) =>
        {
            let both = [*a, *b];
            if both
                .iter()
                .all(|t| matches!(t, Type::Timestamp | Type::Unknown))
                && both.contains(&Type::Timestamp)
            {
                Ok(Type::Timestamp)
            } else if both.contains(&Type::Unknown)
                && !both.contains(&Type::Date)
                && !both.contains(&Type::Timestamptz)
            {
                Err(not_unique(types))
            } else {
                Ok(Type::Timestamptz)
            }
        }
        _ => Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!(
                "function generate_series({}) does not exist",
                type_list(types)
            ),
        )),
    }
}

fn type_list(types: &[Type]) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
    names.join(", ")
}

fn not_unique(types: &[Type]) -> PgError {
    PgError::new(
        "42725",
        format!(
            "function generate_series({}) is not unique",
            type_list(types)
        ),
    )
}

impl Exec<'_> {
    /// A `generate_series` FROM item's source and rows, its arguments evaluated in `parent`.
    pub(crate) fn series(
        &mut self,
        series: &Series<'_>,
        parent: Option<&Frame<'_>>,
        earlier: &[Source],
    ) -> FlowResult<(Source, Vec<Joined>)> {
        let offset = earlier.iter().map(|s| s.columns.len()).sum();
        let args = self.function_args(series.args.iter().copied(), parent, earlier)?;
        let types: Vec<Type> = args.iter().map(|a| a.t).collect();
        let element = element_type(&types)?;
        let source = series.source(element, offset)?;
        let values = self.series_values(args, element)?;
        let rows = values
            .into_iter()
            .enumerate()
            .map(|(at, v)| {
                let mut values = vec![v];
                if series.with_ordinality {
                    values.push(Value::Int(at as i64 + 1));
                }
                Joined {
                    values,
                    tids: vec![None],
                }
            })
            .collect();
        Ok((source, rows))
    }

    /// Describe of a `generate_series` FROM item: its arguments' parameters settled.
    pub(crate) fn describe_series(
        &mut self,
        series: &Series<'_>,
        parent: &Frame<'_>,
        earlier: &[Source],
    ) -> FlowResult<Source> {
        let offset = earlier.iter().map(|s| s.columns.len()).sum();
        let types = self.function_arg_types(series.args.iter().copied(), parent, earlier)?;
        Ok(series.source(element_type(&types)?, offset)?)
    }

    /// The series' values: from start while not past stop, each the last plus step.
    fn series_values(&mut self, args: Vec<Typed>, element: Type) -> FlowResult<Vec<Value>> {
        if args.iter().any(|a| a.v.is_null()) {
            return Ok(Vec::new());
        }
        let datetime = matches!(element, Type::Timestamp | Type::Timestamptz);
        let step_type = if datetime { Type::Interval } else { element };
        let cast = |a: Typed, t: Type| crate::pg::types::cast::cast(a, t, None);
        let mut args = args.into_iter();
        let start = cast(args.next().expect("two arguments at least"), element)?;
        let stop = cast(args.next().expect("two arguments at least"), element)?;
        let step = match args.next() {
            Some(step) => cast(step, step_type)?,
            None => Typed {
                v: Value::Int(1),
                t: element,
            },
        };
        check_numeric_bounds(&start.v, &stop.v, &step.v)?;
        let zero = match step_type {
            Type::Interval => Value::Interval(Interval::default()),
            _ => {
                cast(
                    Typed {
                        v: Value::Int(0),
                        t: Type::Int4,
                    },
                    step_type,
                )?
                .v
            }
        };
        let ascending = match crate::pg::types::value::compare(&step.v, &zero) {
            std::cmp::Ordering::Equal => {
                return Err(
                    PgError::new(INVALID_PARAMETER_VALUE, "step size cannot equal zero").into(),
                )
            }
            order => order == std::cmp::Ordering::Greater,
        };
        let past = if ascending {
            BinaryOperator::Gt
        } else {
            BinaryOperator::Lt
        };
        let mut values = Vec::new();
        let mut current = start;
        loop {
            let beyond =
                crate::pg::types::cast::compare_values(&past, current.clone(), stop.clone())?;
            if beyond != Some(false) {
                return Ok(values);
            }
            if values.len() == SERIES_ROWS_MAX {
                return Err(PgError::new(
                    PROGRAM_LIMIT_EXCEEDED,
                    "the model's generate_series returns at most 1,000,000 rows",
                )
                .into());
            }
            values.push(current.v.clone());
            self.work += 1;
            self.tick()?;
            current = match crate::pg::types::ops::arithmetic(
                &BinaryOperator::Plus,
                current,
                step.clone(),
            ) {
                Ok(next) => cast(next, element)?,
                // PostgreSQL ends an integer series where the next value would overflow.
                Err(e) if e.code == NUMERIC_VALUE_OUT_OF_RANGE => return Ok(values),
                Err(e) => return Err(e.into()),
            };
        }
    }
}
