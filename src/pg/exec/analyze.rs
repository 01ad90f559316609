//! Parse analysis before execution: what PostgreSQL's `transformStmt` raises before a
//! statement reads a row (an unknown column or FROM item, a condition that is not
//! boolean, an operator or function with no matching signature, a quoted literal its type
//! cannot read), raised by the model before it reads one too, so an empty table or a
//! subquery never reached does not hide it.
//!
//! The pass is Describe's (`infer.rs`, `statement.rs`'s `describe`): it resolves every
//! name with the executor's own rules (`Frame::column` over frames without values) and
//! types every expression in PostgreSQL's order. Where it cannot judge (it refuses a
//! construct, 0A000) the statement is left to the run, as before: no new refusals.

use crate::pg::error::*;
use crate::pg::exec::context::Exec;
use sqlparser::ast::{SetExpr, Statement};

/// The SQLSTATEs Describe's pass raises as PostgreSQL's parse analysis does (an unknown
/// column or FROM item, no such operator or function, a condition or argument of the wrong
/// type, a grouping error, an ambiguous or repeated name; a quoted literal its type cannot read).
const ANALYSIS_ERRORS: [&str; 12] = [
    "42703", "42702", "42712", "42P01", "42883", "42804", "42803", "42846", "42725", "22P02",
    "22007", "22008",
];

impl Exec<'_> {
    /// Parse analysis's errors (class 42: an unknown column, table or function, a type
    /// that does not fit, a condition that is not boolean; a quoted literal's cast) in
    /// PostgreSQL's order, before the planner's: the statement described (Describe's pass
    /// over types, which meets them as `transformStmt` does), its refusals (0A000) left
    /// to the walks and the run, which may take another path.
    pub(crate) fn check_analysis(&mut self, statement: &Statement) -> PgResult<()> {
        let described = match statement {
            Statement::Query(query) => {
                matches!(
                    &*query.body,
                    SetExpr::Select(_) | SetExpr::SetOperation { .. }
                )
            }
            Statement::Update(_) | Statement::Delete(_) | Statement::Insert(_) => true,
            _ => false,
        };
        if !described || !self.params.is_empty() {
            return Ok(());
        }
        let hints = self.param_hints.clone();
        let result = self.describe(statement);
        self.param_hints = hints;
        match result {
            Err(Flow::Error(e)) if ANALYSIS_ERRORS.contains(&e.code) => Err(e),
            _ => Ok(()),
        }
    }
}
