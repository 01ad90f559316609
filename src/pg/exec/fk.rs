//! Foreign keys, checked when the statement ends, as PostgreSQL's (non-deferrable)
//! referential-integrity triggers fire: after the whole statement, in the order its rows
//! were written. So a row may reference itself or a row the same statement writes later
//! (`INSERT … VALUES (1, 1)`, two rows referencing each other), and a statement may
//! delete a parent together with its children.
//!
//! Each written row queues events: a new version its keys' check (`RI_FKey_check`), a
//! removed one (deleted, or the old version of an update) its referencing rows' action
//! (`RI_FKey_noaction_*`, `ON DELETE CASCADE`); an update queues the action before the
//! check, as PostgreSQL's trigger names order them. At the end each event reads the rows
//! as they are after the statement (its own changes included); a version the statement
//! replaced or deleted again is skipped, as PostgreSQL skips a dead row. A cascade's
//! deletes queue their own events ahead of the rest, as the nested query's triggers fire
//! when it ends.
//!
//! The checks lock and look as PostgreSQL's `ri_triggers.c` queries do, so no orphan can
//! commit: a new row's parent is locked `FOR KEY SHARE` (a concurrent delete of it waits
//! for this transaction; a delete in progress makes this statement wait, then fail when
//! it committed), and a removed key's referencing rows are read with a snapshot taken
//! now, so a child committed while the delete waited for it is found.

use crate::pg::error::*;
use crate::pg::exec::context::{Event, Exec, LockWait, Locked};
use crate::pg::storage::db::TableLockMode;
use crate::pg::storage::heap::{ForeignKey, RowLockMode};
use crate::pg::types::value::{compare, Value};
use std::collections::VecDeque;

impl Exec<'_> {
    /// Queue `event` when a foreign key concerns its table (most tables have none).
    pub(crate) fn queue_fk(&mut self, event: Event) -> PgResult<()> {
        let table = match &event {
            Event::Written { table, .. } | Event::Removed { table, .. } => table,
        };
        let concerned = match &event {
            Event::Written { .. } => !self.db.table(table)?.foreign_keys.is_empty(),
            Event::Removed { .. } => !self.children_of(table).is_empty(),
        };
        if concerned {
            self.fk_pending.events.push(event);
        }
        Ok(())
    }

    /// Fire the statement's queued events (the statement's end).
    pub(crate) fn fire_fk(&mut self) -> FlowResult<()> {
        let mut queue: VecDeque<Event> = std::mem::take(&mut self.fk_pending.events).into();
        while let Some(event) = queue.pop_front() {
            self.tick()?;
            match event {
                Event::Written { table, tid } => self.check_parents(&table, tid)?,
                Event::Removed {
                    table,
                    row,
                    deleted,
                } => {
                    let cascaded = self.act_on_children(&table, &row, deleted)?;
                    // The cascade's own events fire before the statement's next ones.
                    for event in cascaded.into_iter().rev() {
                        queue.push_front(event);
                    }
                }
            }
        }
        Ok(())
    }

    /// The rows of `table` as they are after the statement so far: its own changes seen.
    fn rows_after(&mut self, table: &str) -> FlowResult<Vec<(u64, Vec<Value>)>> {
        self.scan_at(table, self.cid + 1)
    }

    /// Every foreign key of `table` finds its parent row, for version `tid` if it is
    /// still live.
    pub(crate) fn check_parents(&mut self, table: &str, tid: u64) -> FlowResult<()> {
        let Some(row) = self
            .rows_after(table)?
            .into_iter()
            .find_map(|(at, row)| (at == tid).then_some(row))
        else {
            return Ok(());
        };
        let keys = self.db.table(table)?.foreign_keys.clone();
        for fk in keys {
            let key: Vec<Value> = fk.columns.iter().map(|c| row[*c].clone()).collect();
            if key.iter().any(Value::is_null) {
                continue;
            }
            if !self.parent_locked(&fk.parent, &fk.parent_columns, &key)? {
                let names = self.column_names(table, &fk.columns)?;
                return Err(PgError::new(FOREIGN_KEY_VIOLATION, format!("insert or update on table \"{table}\" violates foreign key constraint \"{}\"", fk.name))
                    .with_detail(format!("Key ({names})=({}) is not present in table \"{}\".", key_text(&key), fk.parent))
                    .with_constraint(table, &fk.name)
                    .into());
            }
        }
        Ok(())
    }

    /// Whether a row of `table` has `key` in `columns`, locked `FOR KEY SHARE` (as
    /// `RI_FKey_check`'s query locks it): READ COMMITTED looks with a snapshot taken now,
    /// REPEATABLE READ with its own; either sees this transaction's writes.
    fn parent_locked(&mut self, table: &str, columns: &[usize], key: &[Value]) -> FlowResult<bool> {
        let rows = match self.repeatable_read {
            true => self.rows_after(table)?,
            false => self.scan_latest(table)?,
        };
        let candidates: Vec<u64> = rows
            .into_iter()
            .filter(|(_, row)| matches_key(row, columns, key))
            .map(|(tid, _)| tid)
            .collect();
        self.lock_table(table, TableLockMode::RowShare)?;
        for tid in candidates {
            let locked = self.lock_row(table, tid, RowLockMode::KeyShare, LockWait::Block)?;
            if let Locked::Row { data, .. } = locked {
                if matches_key(&data, columns, key) {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Whether a row of `table` after the statement has `key` in `columns`.
    fn holds_key(&mut self, table: &str, columns: &[usize], key: &[Value]) -> FlowResult<bool> {
        Ok(self
            .rows_after(table)?
            .iter()
            .any(|(_, row)| matches_key(row, columns, key)))
    }

    /// The foreign keys referencing `parent`, with their tables, in table-name order.
    fn children_of(&self, parent: &str) -> Vec<(String, ForeignKey)> {
        self.db
            .tables
            .values()
            .flat_map(|t| {
                t.foreign_keys
                    .iter()
                    .filter(|fk| fk.parent == parent)
                    .map(|fk| (t.name.clone(), fk.clone()))
            })
            .collect()
    }

    /// The rows referencing removed `row` of `parent`: deleted with it (`ON DELETE
    /// CASCADE`, returning their events), or the statement fails (NO ACTION) unless its
    /// key is still there (an update that kept it, another row holding it).
    fn act_on_children(
        &mut self,
        parent: &str,
        row: &[Value],
        deleted: bool,
    ) -> FlowResult<Vec<Event>> {
        let mut cascaded = Vec::new();
        for (child, fk) in self.children_of(parent) {
            let key: Vec<Value> = fk.parent_columns.iter().map(|c| row[*c].clone()).collect();
            if key.iter().any(Value::is_null) {
                continue;
            }
            let cascade = fk.cascade && deleted;
            if !cascade && self.holds_key(parent, &fk.parent_columns, &key)? {
                continue;
            }
            // A snapshot taken now, as `ri_PerformCheck`'s `detectNewRows`: a referencing
            // row committed while this statement waited is seen.
            let referencing: Vec<(u64, Vec<Value>)> = self
                .scan_latest(&child)?
                .into_iter()
                .filter(|(_, r)| matches_key(r, &fk.columns, &key))
                .collect();
            if referencing.is_empty() {
                continue;
            }
            if !cascade {
                let names = self.column_names(parent, &fk.parent_columns)?;
                return Err(PgError::new(FOREIGN_KEY_VIOLATION, format!("update or delete on table \"{parent}\" violates foreign key constraint \"{}\" on table \"{child}\"", fk.name))
                    .with_detail(format!("Key ({names})=({}) is still referenced from table \"{child}\".", key_text(&key)))
                    .with_constraint(&child, &fk.name)
                    .into());
            }
            for (tid, _) in referencing {
                if let Locked::Row { tid, data, .. } =
                    self.lock_row(&child, tid, RowLockMode::Update, LockWait::Block)?
                {
                    self.mark(&child, tid, RowLockMode::Update, None)?;
                    if !self.children_of(&child).is_empty() {
                        cascaded.push(Event::Removed {
                            table: child.clone(),
                            row: data,
                            deleted: true,
                        });
                    }
                }
            }
        }
        Ok(cascaded)
    }

    fn column_names(&self, table: &str, columns: &[usize]) -> PgResult<String> {
        let t = self.db.table(table)?;
        Ok(columns
            .iter()
            .map(|c| t.columns[*c].name.clone())
            .collect::<Vec<_>>()
            .join(", "))
    }
}

fn matches_key(row: &[Value], columns: &[usize], key: &[Value]) -> bool {
    columns
        .iter()
        .zip(key)
        .all(|(c, v)| !row[*c].is_null() && compare(&row[*c], v).is_eq())
}

/// A key's values as PostgreSQL's DETAIL prints them.
fn key_text(key: &[Value]) -> String {
    key.iter()
        .map(|v| {
            crate::pg::types::text::format(v, crate::pg::types::pg_type::Type::Text)
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(", ")
}
