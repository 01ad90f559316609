//! Data-modifying statements in WITH: `WITH moved AS (DELETE … RETURNING *) INSERT INTO
//! archive SELECT * FROM moved`, `WITH ins AS (INSERT … RETURNING id) SELECT …`, and a
//! statement `WITH … INSERT/UPDATE/DELETE …` at the top level.
//!
//! PostgreSQL's semantics, as the model gets them: every sub-statement runs with the
//! statement's one snapshot and command id, so none sees another's writes (a version
//! written under the current command id is invisible to that command) — the main query
//! reads what a CTE changed only through its RETURNING rows. Each data-modifying CTE
//! runs exactly once, in order, before the main query, whether it is read or not, and
//! takes the locks its statement takes. Such a WITH is allowed only at the statement's
//! top level (PostgreSQL's 0A000 elsewhere). Two sub-statements changing one row is left
//! unspecified by PostgreSQL; the model does not promise PostgreSQL's choice there.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Outcome, Rows};
use sqlparser::ast::{Cte, Query, SetExpr, Statement};

impl Exec<'_> {
    /// Whether `cte` writes without RETURNING; 0A000 when it writes below the top level.
    pub(crate) fn check_cte_writes(
        &mut self,
        cte: &Cte,
        _parent: Option<&Frame<'_>>,
    ) -> FlowResult<bool> {
        let Some(returning) = writes(&cte.query.body) else {
            return Ok(false);
        };
        if self.nesting > 0 {
            return Err(nested().into());
        }
        Ok(!returning)
    }

    /// A data-modifying statement as a CTE's body: its RETURNING rows (none without).
    pub(crate) fn cte_dml(&mut self, body: &SetExpr) -> FlowResult<Rows> {
        let statement = statement_of(body).expect("called on INSERT, UPDATE or DELETE");
        Ok(self.dml_outcome(statement)?.rows.unwrap_or_default())
    }

    /// `WITH … INSERT/UPDATE/DELETE …`: the CTEs run, then the statement.
    pub(crate) fn with_dml(&mut self, query: &Query) -> FlowResult<Outcome> {
        let statement = statement_of(&query.body).expect("called on INSERT, UPDATE or DELETE");
        self.with_ctes(query, None, false, |exec| exec.dml_outcome(statement))
    }

    /// INSERT, UPDATE or DELETE run: its command tag and RETURNING rows.
    pub(crate) fn dml_outcome(&mut self, statement: &Statement) -> FlowResult<Outcome> {
        let (tag, written) = match statement {
            Statement::Insert(insert) => ("INSERT 0", self.insert(insert)?),
            Statement::Update(update) => ("UPDATE", self.update(update)?),
            Statement::Delete(delete) => ("DELETE", self.delete(delete)?),
            other => return Err(PgError::unsupported(format!("`{other}` in WITH")).into()),
        };
        Ok(Outcome {
            tag: format!("{tag} {}", written.count),
            rows: written.returning,
            warning: None,
        })
    }
}

/// The statement a query body that writes holds.
pub(crate) fn statement_of(body: &SetExpr) -> Option<&Statement> {
    match body {
        SetExpr::Insert(s) | SetExpr::Update(s) | SetExpr::Delete(s) => Some(s),
        _ => None,
    }
}

/// `Some(has RETURNING)` when `body` is INSERT, UPDATE or DELETE.
pub(crate) fn writes(body: &SetExpr) -> Option<bool> {
    match statement_of(body)? {
        Statement::Insert(insert) => Some(insert.returning.is_some()),
        Statement::Update(update) => Some(update.returning.is_some()),
        Statement::Delete(delete) => Some(delete.returning.is_some()),
        _ => Some(true),
    }
}

/// 0A000 when `query` (an INSERT's source) has a WITH that writes: not the top level.
pub(crate) fn refuse_nested_writes(query: &Query) -> PgResult<()> {
    let writing = query.with.as_ref().is_some_and(|with| {
        with.cte_tables
            .iter()
            .any(|cte| writes(&cte.query.body).is_some())
    });
    match writing {
        true => Err(nested()),
        false => Ok(()),
    }
}

fn nested() -> PgError {
    PgError::new(
        FEATURE_NOT_SUPPORTED,
        "WITH clause containing a data-modifying statement must be at the top level",
    )
}
