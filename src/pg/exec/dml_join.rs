//! `UPDATE … FROM` and `DELETE … USING`: the target's visible rows joined with the FROM
//! (USING) items, the WHERE over both. Each target row that joins is changed once, and
//! its locking is the plain statement's: the target row is locked (waiting for an open
//! writer), and when it moved, READ COMMITTED re-checks the WHERE on its newest version
//! with the same source row (PostgreSQL's EvalPlanQual keeps the source rows it had).
//! The source tables are only read.
//!
//! A target row that joins several source rows is updated with one of them, which one
//! PostgreSQL leaves unspecified: the model takes the first in its FROM order, an answer
//! no test may rely on.

use crate::pg::error::*;
use crate::pg::exec::context::{Event, Exec, LockWait, Locked};
use crate::pg::exec::dml::{target, Written};
use crate::pg::sql::scope::Source;
use crate::pg::storage::db::TableLockMode;
use crate::pg::storage::heap::RowLockMode;
use crate::pg::types::value::Value;
use sqlparser::ast::{Delete, Expr, TableWithJoins, Update};

/// A target row that joined: its version and the source row's values.
type Match = (u64, Vec<Value>);

impl Exec<'_> {
    /// `UPDATE target SET … FROM items WHERE …`.
    pub(crate) fn update_from(
        &mut self,
        update: &Update,
        items: &[TableWithJoins],
    ) -> FlowResult<Written> {
        let (table, alias) = target(&update.table.relation)?;
        let (sources, matches) =
            self.joined_targets(&table, alias, items, update.selection.as_ref())?;
        let width = sources[0].columns.len();
        let nulls = vec![Value::Null; sources.iter().map(|s| s.columns.len()).sum()];
        self.check_assignments(&table, &update.assignments, &nulls, &sources)?;
        let mode = self.update_mode(&table, &update.assignments)?;
        let mut written = Vec::new();
        for (tid, others) in matches {
            let condition = update.selection.as_ref();
            let Some((tid, mut row)) =
                self.lock_joined(&table, tid, mode, &others, condition, &sources)?
            else {
                continue;
            };
            let mut new = self.assign(&table, &update.assignments, &row, &sources)?;
            new.truncate(width);
            self.replace(&table, tid, new.clone(), mode)?;
            row.splice(..width, new);
            written.push(row);
        }
        self.fire_fk()?;
        self.written(&table, &sources, update.returning.as_deref(), written)
    }

    /// `DELETE FROM target USING items WHERE …`.
    pub(crate) fn delete_using(
        &mut self,
        delete: &Delete,
        target_item: &TableWithJoins,
        items: &[TableWithJoins],
    ) -> FlowResult<Written> {
        let (table, alias) = target(&target_item.relation)?;
        let (sources, matches) =
            self.joined_targets(&table, alias, items, delete.selection.as_ref())?;
        let width = sources[0].columns.len();
        let mut deleted = Vec::new();
        for (tid, others) in matches {
            let condition = delete.selection.as_ref();
            let mode = RowLockMode::Update;
            let Some((tid, row)) =
                self.lock_joined(&table, tid, mode, &others, condition, &sources)?
            else {
                continue;
            };
            self.mark(&table, tid, mode, None)?;
            self.queue_fk(Event::Removed {
                table: table.clone(),
                row: row[..width].to_vec(),
                deleted: true,
            })?;
            deleted.push(row);
        }
        self.fire_fk()?;
        self.written(&table, &sources, delete.returning.as_deref(), deleted)
    }

    /// The target's sources (itself first, then the items') and each target row that
    /// joins, with the first source row it joins.
    fn joined_targets(
        &mut self,
        table: &str,
        alias: Option<String>,
        items: &[TableWithJoins],
        condition: Option<&Expr>,
    ) -> FlowResult<(Vec<Source>, Vec<Match>)> {
        let target_source = self.source_of(table, alias)?;
        self.lock_table(table, TableLockMode::RowExclusive)?;
        let (others, rows) = self.from(items, None)?;
        let width = target_source.columns.len();
        let mut sources = vec![target_source];
        for mut source in others {
            if source.alias == sources[0].alias {
                return Err(PgError::new(
                    DUPLICATE_ALIAS,
                    format!("table name \"{}\" specified more than once", source.alias),
                )
                .into());
            }
            source.offset += width;
            sources.push(source);
        }
        let mut found = Vec::new();
        for (tid, data) in self.scan(table)? {
            for row in &rows {
                self.tick()?;
                let mut values = data.clone();
                values.extend(row.values.iter().cloned());
                let keep = match condition {
                    None => true,
                    Some(c) => self.holds(c, &values, &sources, None)?,
                };
                if keep {
                    found.push((tid, row.values.clone()));
                    break;
                }
            }
        }
        Ok((sources, found))
    }

    /// Lock target version `tid`; when it moved, re-check `condition` on its newest
    /// version beside the same source row. The joined row, or `None`.
    fn lock_joined(
        &mut self,
        table: &str,
        tid: u64,
        mode: RowLockMode,
        others: &[Value],
        condition: Option<&Expr>,
        sources: &[Source],
    ) -> FlowResult<Option<(u64, Vec<Value>)>> {
        let (tid, mut row, moved) = match self.lock_row(table, tid, mode, LockWait::Block)? {
            Locked::Gone | Locked::Skipped => return Ok(None),
            Locked::Row { tid, data, moved } => (tid, data, moved),
        };
        row.extend(others.iter().cloned());
        if let (true, Some(c)) = (moved, condition) {
            if !self.holds(c, &row, sources, None)? {
                return Ok(None);
            }
        }
        Ok(Some((tid, row)))
    }
}
