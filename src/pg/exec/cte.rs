//! Common table expressions: `WITH x [(a, b)] AS [[NOT] MATERIALIZED] (SELECT …) …`. Each
//! CTE runs once, before the query's body, and its rows stand in for a table of its name
//! in the body and in the CTEs after it (a nested query sees the CTEs around it). The
//! model runs every CTE as if MATERIALIZED: a CTE that only reads gives the same rows
//! either way. `WITH RECURSIVE` runs in `recursive`, data-modifying CTEs in `dml_cte`.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Named, Rows};
use crate::pg::sql::names::ident;
use crate::pg::types::pg_type::Type;
use sqlparser::ast::{Cte, Query, With};

/// CTEs visible at once (the statement's and its nested queries').
const CTES_MAX: usize = 64;

impl Exec<'_> {
    /// Run `with`'s CTEs into scope (`describe`: only their columns); the caller drops
    /// them with [`Exec::leave_ctes`] once the body is done.
    pub(crate) fn enter_ctes(
        &mut self,
        with: &With,
        parent: Option<&Frame<'_>>,
        describe: bool,
    ) -> FlowResult<()> {
        for cte in &with.cte_tables {
            if self.ctes.len() >= CTES_MAX {
                return Err(PgError::new(
                    PROGRAM_LIMIT_EXCEEDED,
                    format!("the model holds at most {CTES_MAX} CTEs at once"),
                )
                .into());
            }
            let without_returning = self.check_cte_writes(cte, parent)?;
            let outer_min = std::mem::replace(&mut self.subqueries.read_depth_min, u32::MAX);
            let rows = match with.recursive {
                true => self.recursive_cte(cte, parent, describe),
                false => self
                    .cte_rows(cte, parent, describe)
                    .and_then(|rows| Ok(renamed(cte, rows)?)),
            };
            let read_depth_min = self.subqueries.read_depth_min;
            self.subqueries.read_depth_min = outer_min.min(read_depth_min);
            let name = ident(&cte.alias.name);
            self.ctes.push(Named {
                name,
                rows: rows?,
                without_returning,
                read_depth_min,
            });
        }
        Ok(())
    }

    pub(crate) fn cte_rows(
        &mut self,
        cte: &Cte,
        parent: Option<&Frame<'_>>,
        describe: bool,
    ) -> FlowResult<Rows> {
        let frame = parent.copied().unwrap_or(Frame::EMPTY);
        match describe {
            true => Ok(Rows {
                columns: self.describe_query(&cte.query, &frame)?,
                rows: Vec::new(),
            }),
            false => self.subquery(&cte.query, &frame, None),
        }
    }

    /// Drop the CTEs entered since the scope held `depth`.
    pub(crate) fn leave_ctes(&mut self, depth: usize) {
        self.ctes.truncate(depth);
    }

    /// Whether a FROM clause reads a CTE.
    pub(crate) fn reads_cte(&self, from: &[sqlparser::ast::TableWithJoins]) -> bool {
        from.iter()
            .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
            .any(|f| matches!(f, sqlparser::ast::TableFactor::Table { name, .. } if self.cte(&crate::pg::sql::names::object_name(name)).is_some()))
    }

    /// The innermost CTE named `name`.
    pub(crate) fn cte(&self, name: &[String]) -> Option<&Named> {
        let [name] = name else { return None };
        self.ctes.iter().rev().find(|c| c.name == *name)
    }

    /// `query` with its WITH clause run first, its CTEs in scope for `body`.
    pub(crate) fn with_ctes<T>(
        &mut self,
        query: &Query,
        parent: Option<&Frame<'_>>,
        describe: bool,
        body: impl FnOnce(&mut Self) -> FlowResult<T>,
    ) -> FlowResult<T> {
        let depth = self.ctes.len();
        let result = match &query.with {
            Some(with) => self
                .enter_ctes(with, parent, describe)
                .and_then(|()| body(self)),
            None => body(self),
        };
        self.leave_ctes(depth);
        result
    }
}

/// The CTE's rows under the column names its alias list gives (`WITH x(a, b) AS …`).
fn renamed(cte: &Cte, rows: Rows) -> PgResult<Rows> {
    renamed_by(&cte.alias, "WITH query", rows)
}

/// `rows` under the column names `alias` lists (`AS s(a, b)`, `WITH x(a, b)`), the
/// first ones renamed and the rest kept; more names than columns is PostgreSQL's 42P10.
pub(crate) fn renamed_by(
    alias: &sqlparser::ast::TableAlias,
    what: &str,
    mut rows: Rows,
) -> PgResult<Rows> {
    rename_columns(alias, what, &mut rows.columns)?;
    Ok(rows)
}

/// `columns` under the names `alias` lists, if any (a table's, a CTE's or a catalog
/// relation's `AS t(a, b)` as much as a subquery's).
pub(crate) fn rename_columns(
    alias: &sqlparser::ast::TableAlias,
    what: &str,
    columns: &mut [(String, Type)],
) -> PgResult<()> {
    let names = &alias.columns;
    if names.len() > columns.len() {
        return Err(PgError::new(
            INVALID_COLUMN_REFERENCE,
            format!(
                "{what} \"{}\" has {} columns available but {} columns specified",
                ident(&alias.name),
                columns.len(),
                names.len()
            ),
        ));
    }
    for (column, name) in columns.iter_mut().zip(names) {
        column.0 = ident(&name.name);
    }
    Ok(())
}
