//! `UNNEST(a1, a2, …) [WITH ORDINALITY] [AS t(c1, c2, …)]` as a FROM item: PostgreSQL's
//! multi-argument `unnest`, which zips its arrays into rows (a shorter array padded with
//! NULL) — swiftide's bulk upsert binds one array per column and inserts the rows.
//!
//! Naming follows PostgreSQL's for a function in FROM: the item is called `unnest`, or its
//! alias; its columns `unnest` each (a single array aliased `t` without a column list
//! gives one column `t`), then `ordinality` (bigint, from 1); an alias's column list
//! renames them from the left. The arrays are evaluated once, before any row, so an array
//! may not read an earlier FROM item (PostgreSQL's implicit LATERAL): such a reference is
//! refused with 0A000 rather than answered.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Joined};
use crate::pg::sql::names::ident;
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};
use sqlparser::ast::{Expr, TableAlias, TableFactor};

/// PostgreSQL's SQLSTATE `ambiguous_function`: `unnest` of an untyped literal.
const AMBIGUOUS_FUNCTION: &str = "42725";

/// The syntax of an `UNNEST` FROM item, borrowed from the statement.
pub(crate) struct Unnest<'s> {
    pub arrays: &'s [Expr],
    pub alias: Option<&'s TableAlias>,
    pub with_ordinality: bool,
}

impl<'s> Unnest<'s> {
    /// `factor` when it is an `UNNEST`; BigQuery's `WITH OFFSET` is no PostgreSQL syntax.
    pub(crate) fn of(factor: &'s TableFactor) -> Option<PgResult<Unnest<'s>>> {
        let TableFactor::UNNEST {
            alias,
            array_exprs,
            with_offset,
            with_offset_alias,
            with_ordinality,
        } = factor
        else {
            return None;
        };
        if *with_offset || with_offset_alias.is_some() {
            return Some(Err(PgError::syntax("syntax error at or near \"OFFSET\"")));
        }
        Some(Ok(Unnest {
            arrays: array_exprs,
            alias: alias.as_ref(),
            with_ordinality: *with_ordinality,
        }))
    }

    /// The FROM item's name and columns, from its arrays' types.
    pub(crate) fn source(&self, array_types: &[Type], offset: usize) -> PgResult<Source> {
        let mut elements = Vec::with_capacity(array_types.len());
        for t in array_types {
            elements.push(element_of(*t)?);
        }
        let alias = self.alias.map_or("unnest".to_string(), |a| ident(&a.name));
        let default_name = match (self.alias, elements.len()) {
            (Some(_), 1) => alias.clone(),
            _ => "unnest".to_string(),
        };
        let columns: Vec<(String, Type)> = elements
            .into_iter()
            .map(|t| (default_name.clone(), t))
            .collect();
        function_source(self.alias, alias, columns, self.with_ordinality, offset)
    }
}

/// A FROM function's source: its `columns`, then `ordinality` when asked, renamed from
/// the left by the alias's column list, as PostgreSQL names them.
pub(crate) fn function_source(
    alias: Option<&TableAlias>,
    name: String,
    mut columns: Vec<(String, Type)>,
    with_ordinality: bool,
    offset: usize,
) -> PgResult<Source> {
    if with_ordinality {
        columns.push(("ordinality".to_string(), Type::Int8));
    }
    let names = alias.map_or(&[][..], |a| a.columns.as_slice());
    if names.len() > columns.len() {
        return Err(PgError::new(
            INVALID_COLUMN_REFERENCE,
            format!(
                "table \"{name}\" has {} columns available but {} columns specified",
                columns.len(),
                names.len()
            ),
        ));
    }
    for (column, named) in columns.iter_mut().zip(names) {
        if named.data_type.is_some() {
            return Err(PgError::unsupported(
                "a column definition list on a function in FROM",
            ));
        }
        column.0 = ident(&named.name);
    }
    Ok(Source {
        alias: name,
        columns,
        offset,
    })
}

/// The element type of an `unnest` argument, or PostgreSQL's error for a non-array.
fn element_of(t: Type) -> PgResult<Type> {
    match (t, t.element()) {
        (_, Some(element)) => Ok(element),
        (Type::Unknown, None) => Err(PgError::new(
            AMBIGUOUS_FUNCTION,
            "function unnest(unknown) is not unique",
        )
        .with_detail("Could not choose a best candidate function. You might need to add explicit type casts.")),
        (t, None) => Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("function unnest({}) does not exist", t.name()),
        )),
    }
}

/// The zipped rows of `arrays`: row i holds each array's i-th element (NULL past an
/// array's end or for a NULL array), then i + 1 when `ordinality`.
pub(crate) fn zip_rows(arrays: &[Value], ordinality: bool) -> Vec<Vec<Value>> {
    let items = |v: &Value| match v {
        Value::Array(items) => items.len(),
        _ => 0,
    };
    let count = arrays.iter().map(items).max().unwrap_or(0);
    (0..count)
        .map(|at| {
            let mut row: Vec<Value> = arrays
                .iter()
                .map(|a| match a {
                    Value::Array(items) => items.get(at).cloned().unwrap_or(Value::Null),
                    _ => Value::Null,
                })
                .collect();
            if ordinality {
                row.push(Value::Int(at as i64 + 1));
            }
            row
        })
        .collect()
}

impl Exec<'_> {
    /// An `UNNEST` FROM item's source and rows, its arrays evaluated in `parent`.
    pub(crate) fn unnest(
        &mut self,
        unnest: &Unnest<'_>,
        parent: Option<&Frame<'_>>,
        earlier: &[Source],
    ) -> FlowResult<(Source, Vec<Joined>)> {
        let offset = earlier.iter().map(|s| s.columns.len()).sum();
        let args = self.function_args(unnest.arrays.iter(), parent, earlier)?;
        let (values, types): (Vec<Value>, Vec<Type>) = args.into_iter().map(|a| (a.v, a.t)).unzip();
        let source = unnest.source(&types, offset)?;
        let rows = zip_rows(&values, unnest.with_ordinality);
        self.work += rows.len() as u64;
        self.tick()?;
        let rows = rows
            .into_iter()
            .map(|values| Joined {
                values,
                tids: vec![None],
            })
            .collect();
        Ok((source, rows))
    }

    /// Describe of an `UNNEST` FROM item: its arrays' parameters settled, its columns.
    pub(crate) fn describe_unnest(
        &mut self,
        unnest: &Unnest<'_>,
        parent: &Frame<'_>,
        earlier: &[Source],
    ) -> FlowResult<Source> {
        let offset = earlier.iter().map(|s| s.columns.len()).sum();
        let types = self.function_arg_types(unnest.arrays.iter(), parent, earlier)?;
        Ok(unnest.source(&types, offset)?)
    }

    /// A FROM function's arguments, evaluated once in `parent`, before any row.
    pub(crate) fn function_args<'e>(
        &mut self,
        args: impl Iterator<Item = &'e Expr>,
        parent: Option<&Frame<'_>>,
        earlier: &[Source],
    ) -> FlowResult<Vec<Typed>> {
        let frame = parent.copied().unwrap_or(Frame::EMPTY);
        args.map(|e| {
            self.eval(e, &frame)
                .map_err(|f| lateral_refused(f, earlier))
        })
        .collect()
    }

    /// A FROM function's arguments' types, for Describe.
    pub(crate) fn function_arg_types<'e>(
        &mut self,
        args: impl Iterator<Item = &'e Expr>,
        parent: &Frame<'_>,
        earlier: &[Source],
    ) -> FlowResult<Vec<Type>> {
        args.map(|e| {
            self.infer(e, &[], Some(parent))
                .map_err(|f| lateral_refused(f, earlier))
        })
        .collect()
    }
}

/// A FROM function's argument (an `unnest` array, a `generate_series` bound) that names
/// a column it cannot see may read an earlier FROM item (PostgreSQL's implicit LATERAL),
/// which the model does not do.
pub(crate) fn lateral_refused(flow: Flow, earlier: &[Source]) -> Flow {
    let unknown = |e: &PgError| e.code == UNDEFINED_COLUMN || e.code == UNDEFINED_TABLE;
    match flow {
        Flow::Error(e) if unknown(&e) && !earlier.is_empty() => {
            Flow::Error(PgError::unsupported(format!(
                "a FROM function's argument reading another FROM item ({})",
                e.message
            )))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorter_arrays_are_padded_with_null() {
        let a = Value::Array(vec![Value::Int(1), Value::Int(2)]);
        let b = Value::Array(vec![Value::Text("x".into())]);
        let rows = zip_rows(&[a, b, Value::Null], true);
        assert_eq!(
            rows,
            vec![
                vec![
                    Value::Int(1),
                    Value::Text("x".into()),
                    Value::Null,
                    Value::Int(1)
                ],
                vec![Value::Int(2), Value::Null, Value::Null, Value::Int(2)],
            ]
        );
        assert!(zip_rows(&[Value::Null], false).is_empty());
    }
}
