//! `LATERAL` subqueries in FROM: `FROM sessions s, LATERAL (SELECT … WHERE m.session =
//! s.id ORDER BY … LIMIT 2) last`, `CROSS JOIN LATERAL`, `[LEFT] JOIN LATERAL … ON …`.
//! The subquery runs once per row of the items before it, reading that row as a
//! correlated subquery reads its outer row (one that reads none runs once: the
//! statement's cache of uncorrelated subqueries). Its columns are typed before any row,
//! as Describe types them, so an empty left side still has them.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Joined, Rows};
use crate::pg::sql::names::ident;
use crate::pg::sql::scope::Source;
use crate::pg::types::value::Value;
use sqlparser::ast::{Join, JoinConstraint, JoinOperator, TableFactor};

/// Whether a FROM item is a LATERAL subquery.
pub(crate) fn is_lateral(factor: &TableFactor) -> bool {
    matches!(factor, TableFactor::Derived { lateral: true, .. })
}

impl Exec<'_> {
    /// `left` joined with the LATERAL subquery `factor` (as a plain FROM item when
    /// `join` is `None`); its source is added to `sources`.
    pub(crate) fn lateral(
        &mut self,
        left: Vec<Joined>,
        factor: &TableFactor,
        join: Option<&Join>,
        sources: &mut Vec<Source>,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Joined>> {
        let TableFactor::Derived {
            subquery, alias, ..
        } = factor
        else {
            return Err(PgError::unsupported(format!("the FROM item `{factor}`")).into());
        };
        let (condition, outer) = lateral_join(join)?;
        let offset = sources.iter().map(|s| s.columns.len()).sum();
        let typing = Frame {
            sources,
            values: &[],
            parent,
            depth: self.nesting,
        };
        let mut columns = self.describe_query(subquery, &typing)?;
        if let Some(alias) = alias {
            let rows = Rows {
                columns,
                rows: Vec::new(),
            };
            columns = crate::pg::exec::cte::renamed_by(alias, "table", rows)?.columns;
        }
        let name = alias
            .as_ref()
            .map_or(crate::pg::sql::scope::UNNAMED.to_string(), |a| {
                ident(&a.name)
            });
        if name != crate::pg::sql::scope::UNNAMED && sources.iter().any(|s| s.alias == name) {
            return Err(PgError::new(
                DUPLICATE_ALIAS,
                format!("table name \"{name}\" specified more than once"),
            )
            .into());
        }
        let width = columns.len();
        let mut all = sources.clone();
        all.push(Source {
            alias: name,
            columns,
            offset,
        });
        let mut out = Vec::new();
        for row in &left {
            let frame = Frame {
                sources,
                values: &row.values,
                parent,
                depth: self.nesting,
            };
            let right = self.subquery(subquery, &frame, None)?;
            assert_eq!(right.columns.len(), width, "described and run alike");
            let mut matched = false;
            for values in right.rows {
                self.tick()?;
                let candidate = joined(row, values);
                let keep = match condition {
                    None => true,
                    Some(c) => self.holds(c, &candidate.values, &all, parent)?,
                };
                if keep {
                    matched = true;
                    out.push(candidate);
                }
            }
            if outer && !matched {
                out.push(joined(row, vec![Value::Null; width]));
            }
        }
        *sources = all;
        Ok(out)
    }
}

/// The join's condition and whether it keeps unmatched left rows.
fn lateral_join(join: Option<&Join>) -> PgResult<(Option<&sqlparser::ast::Expr>, bool)> {
    let Some(join) = join else {
        return Ok((None, false));
    };
    match &join.join_operator {
        JoinOperator::Join(JoinConstraint::On(e)) | JoinOperator::Inner(JoinConstraint::On(e)) => {
            Ok((Some(e), false))
        }
        JoinOperator::Left(JoinConstraint::On(e))
        | JoinOperator::LeftOuter(JoinConstraint::On(e)) => Ok((Some(e), true)),
        JoinOperator::CrossJoin(JoinConstraint::None) => Ok((None, false)),
        other => Err(PgError::unsupported(format!("the LATERAL join {other:?}"))),
    }
}

fn joined(left: &Joined, right: Vec<Value>) -> Joined {
    let mut values = left.values.clone();
    values.extend(right);
    let mut tids = left.tids.clone();
    tids.push(None);
    Joined { values, tids }
}
