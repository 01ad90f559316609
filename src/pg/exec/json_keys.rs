//! `json` has no equality and no order, so PostgreSQL refuses it, before reading a row,
//! as an ORDER BY key ("could not identify an ordering operator"), a GROUP BY key or a
//! DISTINCT column ("could not identify an equality operator"), in that order. The model
//! evaluates keys row by row, so it checks their types here first, as PostgreSQL's
//! parser does, and an empty table gives the error too.

use crate::pg::error::{FlowResult, PgError, UNDEFINED_FUNCTION};
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::sql::names::ident;
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use sqlparser::ast::{Distinct, Expr, GroupByExpr, OrderByKind, Query, Select};

fn no_operator(what: &str) -> PgError {
    PgError::new(
        UNDEFINED_FUNCTION,
        format!("could not identify an {what} operator for type json"),
    )
}

impl Exec<'_> {
    /// PostgreSQL's error when a key of `select` (whose output is `columns`) is json.
    pub(crate) fn refuse_json_keys(
        &mut self,
        select: &Select,
        query: &Query,
        columns: &[(String, Type)],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<()> {
        if let Some(order_by) = &query.order_by {
            if let OrderByKind::Expressions(keys) = &order_by.kind {
                for key in keys {
                    if self.key_type(&key.expr, columns, sources, parent) == Some(Type::Json) {
                        return Err(no_operator("ordering").into());
                    }
                }
            }
        }
        if let GroupByExpr::Expressions(keys, _) = &select.group_by {
            for key in keys {
                if self.key_type(key, columns, sources, parent) == Some(Type::Json) {
                    return Err(no_operator("equality").into());
                }
            }
        }
        let distinct_json = match &select.distinct {
            Some(Distinct::Distinct) => columns.iter().any(|(_, t)| *t == Type::Json),
            Some(Distinct::On(keys)) => keys
                .iter()
                .any(|k| self.key_type(k, columns, sources, parent) == Some(Type::Json)),
            _ => false,
        };
        match distinct_json {
            true => Err(no_operator("equality").into()),
            false => Ok(()),
        }
    }

    /// A key's type: an output column's when it is an ordinal or an output name, else
    /// its own over the input (`None` when that fails: evaluating it will say why).
    fn key_type(
        &mut self,
        key: &Expr,
        columns: &[(String, Type)],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> Option<Type> {
        match key {
            Expr::Value(v) => {
                if let sqlparser::ast::Value::Number(n, _) = &v.value {
                    let at = n.parse::<usize>().ok()?;
                    return columns.get(at.wrapping_sub(1)).map(|(_, t)| *t);
                }
            }
            Expr::Identifier(i) => {
                let name = ident(i);
                let mut named = columns.iter().filter(|(n, _)| *n == name);
                if let (Some((_, t)), None) = (named.next(), named.next()) {
                    return Some(*t);
                }
            }
            _ => {}
        }
        self.infer(key, sources, parent).ok()
    }
}

/// PostgreSQL's error for a btree or hash index (a key, a unique constraint) over a json
/// column: json has no operator class.
pub(crate) fn refuse_json_index(
    mut types: impl Iterator<Item = Type>,
    method: &str,
) -> Result<(), PgError> {
    if matches!(method, "btree" | "hash") && types.any(|t| t == Type::Json) {
        return Err(PgError::new(
            crate::pg::error::UNDEFINED_OBJECT,
            format!("data type json has no default operator class for access method \"{method}\""),
        ));
    }
    Ok(())
}
