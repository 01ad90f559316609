//! `INSERT` (with `ON CONFLICT … DO NOTHING / DO UPDATE`), `UPDATE` and `DELETE`, with
//! PostgreSQL's row-level concurrency: a row another open transaction changed makes the
//! statement wait for it; once it committed, READ COMMITTED follows the row to its newest
//! version and re-checks the WHERE there (EvalPlanQual), REPEATABLE READ fails with a
//! serialization error. Unique keys are checked against every version that is live or
//! may become so (a concurrent insert of the same key waits, then conflicts); foreign
//! keys when the statement ends (`fk`).

use crate::pg::error::*;
use crate::pg::exec::context::{Event, Exec, Frame, Joined, LockWait, Locked, Rows};
use crate::pg::sql::names::{ident, object_name, table_name};
use crate::pg::sql::scope::Source;
use crate::pg::storage::db::TableLockMode;
use crate::pg::storage::heap::{deleter, RowLockMode, Table, Version};
use crate::pg::storage::txn::{Status, Xid, XID_NONE};
use crate::pg::types::cast::{cast, check_modifier};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};
use sqlparser::ast::{
    Assignment, AssignmentTarget, Delete, Expr, FromTable, Insert, OnConflictAction, OnInsert,
    SelectItem, SetExpr, Statement, TableFactor, TableObject, Update,
};

/// Versions of one row an update chain may hold before the model gives up.
const CHAIN_MAX: usize = 10_000;

/// A command's count and its RETURNING rows.
pub(crate) struct Written {
    pub count: u64,
    pub returning: Option<Rows>,
}

impl Exec<'_> {
    /// Lock version `tid` of `table` with `mode`, as `heap_lock_tuple` does. A transaction
    /// holding the row in a conflicting mode makes the statement wait for it (joining
    /// the row's queue: waiters take the row first come, first served), skip the row or
    /// fail, as `wait` says; a change that committed is followed to the newest version
    /// (READ COMMITTED's re-check) or fails the transaction (REPEATABLE READ). A key
    /// share never waits for an update that kept the key: it locks the version found and
    /// every newer one, so that no later delete of the key can pass it.
    pub(crate) fn lock_row(
        &mut self,
        table: &str,
        mut tid: u64,
        mode: RowLockMode,
        wait: LockWait,
    ) -> FlowResult<Locked> {
        let mut moved = false;
        // The version a key share found before following a kept-key update's chain.
        let mut found: Option<(u64, Vec<Value>)> = None;
        for _ in 0..CHAIN_MAX {
            self.tick()?;
            if let Some(head) = self.db.queued_ahead(table, tid, self.backend) {
                return Err(Flow::Wait { backend: head });
            }
            let v = &self.db.table(table)?.heap[&tid];
            if let Some(holder) = self.conflicting_holder(v, mode) {
                let holder = self
                    .db
                    .txns
                    .owner(holder)
                    .expect("a transaction in progress has a backend");
                return match wait {
                    LockWait::Block => Err(Flow::Wait {
                        backend: self.db.enqueue(table, tid, self.backend, holder),
                    }),
                    LockWait::Skip => Ok(Locked::Skipped),
                    LockWait::NoWait => Err(PgError::new(
                        LOCK_NOT_AVAILABLE,
                        format!("could not obtain lock on row in relation \"{table}\""),
                    )
                    .into()),
                };
            }
            let key_kept = mode == RowLockMode::KeyShare && v.xmax_mode < RowLockMode::Update;
            let (data, next) = (v.data.clone(), v.next);
            match deleter(&self.db.txns, v) {
                Some((x, _)) if x != self.xid && key_kept && next.is_some() => {
                    self.add_lock(table, tid, mode)?;
                    found.get_or_insert((tid, data));
                    tid = next.expect("checked");
                }
                None | Some((_, Status::InProgress)) => {
                    self.add_lock(table, tid, mode)?;
                    let (tid, data) = found.unwrap_or((tid, data));
                    return Ok(Locked::Row { tid, data, moved });
                }
                Some((_, _)) if self.repeatable_read => {
                    return Err(PgError::new(
                        SERIALIZATION_FAILURE,
                        "could not serialize access due to concurrent update",
                    )
                    .into());
                }
                Some((_, _)) => match next {
                    None => return Ok(Locked::Gone),
                    Some(next) => {
                        // A committed update past the kept-key ones changed the key (or
                        // the lock is stronger): the version found first no longer
                        // stands; the newest is re-checked, as PostgreSQL's
                        // EvalPlanQual does (isolation spec `lock-update-delete`).
                        found = None;
                        (tid, moved) = (next, true);
                    }
                },
            }
        }
        Err(PgError::new(
            PROGRAM_LIMIT_EXCEEDED,
            "a row's update chain is longer than the model follows",
        )
        .into())
    }

    /// An open transaction other than this one holding `v` in a mode that conflicts with
    /// `mode`: its updater first, then its lockers oldest first.
    fn conflicting_holder(&self, v: &Version, mode: RowLockMode) -> Option<Xid> {
        let txns = &self.db.txns;
        let open = |xid: Xid| xid != self.xid && txns.status(xid) == Status::InProgress;
        if v.xmax != XID_NONE && open(v.xmax) && v.xmax_mode.conflicts(mode) {
            return Some(v.xmax);
        }
        v.lockers
            .iter()
            .find(|l| open(l.xid) && l.mode.conflicts(mode))
            .map(|l| l.xid)
    }

    /// Lock `tid` with `mode` and, when it moved, re-check `condition` on its newest
    /// version.
    fn lock_and_recheck(
        &mut self,
        table: &str,
        tid: u64,
        mode: RowLockMode,
        condition: Option<&Expr>,
        sources: &[Source],
    ) -> FlowResult<Option<(u64, Vec<Value>)>> {
        match self.lock_row(table, tid, mode, LockWait::Block)? {
            Locked::Gone | Locked::Skipped => Ok(None),
            Locked::Row { tid, data, moved } => {
                if moved {
                    if let Some(c) = condition {
                        if !self.holds(c, &data, sources, None)? {
                            return Ok(None);
                        }
                    }
                }
                Ok(Some((tid, data)))
            }
        }
    }

    /// SELECT … FOR UPDATE (and its weaker forms): lock `row` (of a one-table FROM) with
    /// `mode`; re-checked if it moved. `None` when it is gone, no longer matches, or is
    /// skipped.
    pub(crate) fn lock_selected(
        &mut self,
        row: &Joined,
        (mode, wait): (RowLockMode, LockWait),
        condition: Option<&Expr>,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Option<(Joined, bool)>> {
        let [Some((table, tid))] = row.tids.as_slice() else {
            return Err(PgError::unsupported("FOR UPDATE over a join or a subquery").into());
        };
        let table = table.clone();
        self.lock_table(&table, TableLockMode::RowShare)?;
        let (tid, data, moved) = match self.lock_row(&table, *tid, mode, wait)? {
            Locked::Gone | Locked::Skipped => return Ok(None),
            Locked::Row { tid, data, moved } => (tid, data, moved),
        };
        if let (true, Some(c)) = (moved, condition) {
            if !self.holds(c, &data, sources, parent)? {
                return Ok(None);
            }
        }
        let joined = Joined {
            values: data,
            tids: vec![Some((table, tid))],
        };
        Ok(Some((joined, moved)))
    }

    /// The row lock an UPDATE setting `assignments` takes: `FOR UPDATE` when it assigns a
    /// key column (of a unique constraint), else `FOR NO KEY UPDATE`. PostgreSQL's
    /// `heap_update` compares the key's values, so `SET id = id` keeps the weaker lock
    /// there; the model decides by the columns named, as PostgreSQL's ON CONFLICT does.
    pub(crate) fn update_mode(
        &self,
        table: &str,
        assignments: &[Assignment],
    ) -> PgResult<RowLockMode> {
        let t = self.db.table(table)?;
        let keyed = assignments.iter().any(|a| match &a.target {
            AssignmentTarget::ColumnName(name) => {
                let column = object_name(name).last().cloned().unwrap_or_default();
                t.column(&column)
                    .is_some_and(|at| t.uniques.iter().any(|u| u.columns.contains(&at)))
            }
            _ => true,
        });
        Ok(match keyed {
            true => RowLockMode::Update,
            false => RowLockMode::NoKeyUpdate,
        })
    }

    pub(crate) fn update(&mut self, update: &Update) -> FlowResult<Written> {
        match (&update.from, update.table.joins.is_empty()) {
            (None, true) => {}
            (Some(sqlparser::ast::UpdateTableFromKind::AfterSet(items)), true) => {
                return self.update_from(update, items);
            }
            _ => return Err(PgError::unsupported("this UPDATE … FROM form").into()),
        }
        let (table, alias) = target(&update.table.relation)?;
        let sources = vec![self.source_of(&table, alias)?];
        self.lock_table(&table, TableLockMode::RowExclusive)?;
        let nulls = vec![Value::Null; sources[0].columns.len()];
        self.check_assignments(&table, &update.assignments, &nulls, &sources)?;
        let candidates = self.matching(&table, update.selection.as_ref(), &sources)?;
        let mode = self.update_mode(&table, &update.assignments)?;
        let mut written = Vec::new();
        for (tid, _) in candidates {
            let condition = update.selection.as_ref();
            let Some((tid, old)) = self.lock_and_recheck(&table, tid, mode, condition, &sources)?
            else {
                continue;
            };
            let new = self.assign(&table, &update.assignments, &old, &sources)?;
            self.replace(&table, tid, new.clone(), mode)?;
            written.push(new);
        }
        self.fire_fk()?;
        self.written(&table, &sources, update.returning.as_deref(), written)
    }

    pub(crate) fn delete(&mut self, delete: &Delete) -> FlowResult<Written> {
        let from = match &delete.from {
            FromTable::WithFromKeyword(f) | FromTable::WithoutKeyword(f) => f,
        };
        let item = match (from.as_slice(), &delete.using) {
            ([item], None) if delete.tables.is_empty() && item.joins.is_empty() => item,
            ([item], Some(using)) if delete.tables.is_empty() && item.joins.is_empty() => {
                return self.delete_using(delete, item, using);
            }
            _ => return Err(PgError::unsupported("DELETE of several tables").into()),
        };
        let (table, alias) = target(&item.relation)?;
        let sources = vec![self.source_of(&table, alias)?];
        self.lock_table(&table, TableLockMode::RowExclusive)?;
        let candidates = self.matching(&table, delete.selection.as_ref(), &sources)?;
        let mut deleted = Vec::new();
        for (tid, _) in candidates {
            let condition = delete.selection.as_ref();
            let Some((tid, old)) =
                self.lock_and_recheck(&table, tid, RowLockMode::Update, condition, &sources)?
            else {
                continue;
            };
            self.mark(&table, tid, RowLockMode::Update, None)?;
            self.queue_fk(Event::Removed {
                table: table.clone(),
                row: old.clone(),
                deleted: true,
            })?;
            deleted.push(old);
        }
        self.fire_fk()?;
        self.written(&table, &sources, delete.returning.as_deref(), deleted)
    }

    pub(crate) fn insert(&mut self, insert: &Insert) -> FlowResult<Written> {
        let TableObject::TableName(name) = &insert.table else {
            return Err(PgError::unsupported("INSERT into a function").into());
        };
        let table = table_name(name)?;
        let alias = insert.table_alias.as_ref().map(|a| ident(&a.alias));
        let sources = vec![self.source_of(&table, alias)?];
        self.lock_table(&table, TableLockMode::RowExclusive)?;
        let columns = self.insert_columns(&table, &insert.columns)?;
        let source = insert
            .source
            .as_ref()
            .ok_or_else(|| PgError::unsupported("INSERT without VALUES or SELECT"))?;
        // Without a column list, fewer values fill the first columns (the rest take
        // their defaults), as PostgreSQL's target list is cut to the values given.
        crate::pg::exec::dml_cte::refuse_nested_writes(source)?;
        let implicit = insert.columns.is_empty();
        let rows = self.insert_rows(source, columns.len(), implicit)?;
        let conflict = match &insert.on {
            None => None,
            Some(OnInsert::OnConflict(c)) => Some(c),
            Some(_) => return Err(PgError::unsupported("ON DUPLICATE KEY").into()),
        };
        if let Some(conflict) = conflict {
            self.check_arbiter(&table, conflict)?;
        }
        let mut written = Vec::new();
        for values in rows {
            let row = self.complete_row(&table, &columns, values)?;
            if let Some(row) = self.insert_one(&table, row, conflict, &sources)? {
                written.push(row);
            }
        }
        self.fire_fk()?;
        self.written(&table, &sources, insert.returning.as_deref(), written)
    }

    /// What PostgreSQL's parse analysis raises about `assignments` before any row is
    /// read (an unknown column, a type that cannot be assigned), tried on a row of NULLs.
    pub(crate) fn check_assignments(
        &mut self,
        table: &str,
        assignments: &[Assignment],
        nulls: &[Value],
        sources: &[Source],
    ) -> FlowResult<()> {
        self.assign(table, assignments, nulls, sources)
            .map(|_| ())
            .or_else(|flow| match flow {
                Flow::Error(e) if [UNDEFINED_COLUMN, DATATYPE_MISMATCH].contains(&e.code) => {
                    Err(Flow::Error(e))
                }
                _ => Ok(()),
            })
    }

    pub(crate) fn source_of(&self, table: &str, alias: Option<String>) -> PgResult<Source> {
        let t = self.db.table(table)?;
        let columns = t.columns.iter().map(|c| (c.name.clone(), c.ty)).collect();
        Ok(Source {
            alias: alias.unwrap_or_else(|| table.to_string()),
            columns,
            offset: 0,
        })
    }

    /// The visible rows of `table` that `condition` holds for.
    fn matching(
        &mut self,
        table: &str,
        condition: Option<&Expr>,
        sources: &[Source],
    ) -> FlowResult<Vec<(u64, Vec<Value>)>> {
        let keyed = match condition {
            Some(c) => self.keyed_rows(table, c, sources)?,
            None => None,
        };
        let rows = match keyed {
            Some(rows) => rows,
            None => self.scan(table)?,
        };
        let mut found = Vec::new();
        for (tid, data) in rows {
            let keep = match condition {
                None => true,
                Some(c) => self.holds(c, &data, sources, None)?,
            };
            if keep {
                found.push((tid, data));
            }
        }
        Ok(found)
    }

    /// The row `assignments` make of `old`.
    pub(crate) fn assign(
        &mut self,
        table: &str,
        assignments: &[Assignment],
        old: &[Value],
        sources: &[Source],
    ) -> FlowResult<Vec<Value>> {
        let mut new = old.to_vec();
        for assignment in assignments {
            let AssignmentTarget::ColumnName(name) = &assignment.target else {
                return Err(PgError::unsupported("a tuple assignment").into());
            };
            let column = object_name(name).last().cloned().unwrap_or_default();
            let t = self.db.table(table)?;
            let at = t.column(&column).ok_or_else(|| {
                PgError::new(
                    UNDEFINED_COLUMN,
                    format!("column \"{column}\" of relation \"{table}\" does not exist"),
                )
            })?;
            let (ty, modifier) = (t.columns[at].ty, t.columns[at].modifier);
            if values_are_nulls(old) {
                // The statement's check before any row (PostgreSQL's parse analysis).
                let from = self.infer(&assignment.value, sources, None)?;
                check_assignable(&column, from, ty)?;
            }
            let frame = Frame {
                sources,
                values: old,
                parent: None,
                depth: self.nesting,
            };
            let value = self.eval(&assignment.value, &frame)?;
            new[at] = cast(value, ty, modifier)?.v;
        }
        self.check_row(table, &new)?;
        self.check_constraints(table, &new)?;
        Ok(new)
    }

    /// Replace version `tid` by `new`, holding the old one with `mode`: unique keys
    /// checked, the new version at the end.
    pub(crate) fn replace(
        &mut self,
        table: &str,
        tid: u64,
        new: Vec<Value>,
        mode: RowLockMode,
    ) -> FlowResult<()> {
        let old = self.db.table(table)?.heap[&tid].data.clone();
        self.mark(table, tid, mode, None)?;
        if let Some((constraint, _)) = self.unique_conflict(table, &new)? {
            return Err(self.duplicate(table, constraint, &new).into());
        }
        let new_tid = self.insert_version(table, new)?;
        // The old version's key-share lockers still running hold the new one too (the
        // only lockers an update can pass): `heap_update` carries them to it, so a later
        // delete of the row still waits for them.
        let carried: Vec<_> = self.db.table(table)?.heap[&tid]
            .lockers
            .iter()
            .filter(|l| l.xid != self.xid && self.db.txns.status(l.xid) == Status::InProgress)
            .copied()
            .collect();
        if !carried.is_empty() {
            let v = self.db.table_mut(table)?.heap.get_mut(&new_tid);
            v.expect("written above").lockers = carried;
        }
        self.queue_fk(Event::Removed {
            table: table.to_string(),
            row: old,
            deleted: false,
        })?;
        self.queue_fk(Event::Written {
            table: table.to_string(),
            tid: new_tid,
        })?;
        let v = self
            .db
            .table_mut(table)?
            .heap
            .get_mut(&tid)
            .expect("marked above");
        v.next = Some(new_tid);
        self.index_insert(table, new_tid)?;
        Ok(())
    }

    fn insert_columns(
        &self,
        table: &str,
        named: &[sqlparser::ast::ObjectName],
    ) -> PgResult<Vec<usize>> {
        let t = self.db.table(table)?;
        if named.is_empty() {
            return Ok((0..t.columns.len()).collect());
        }
        named
            .iter()
            .map(|n| {
                let name = object_name(n).last().cloned().unwrap_or_default();
                t.column(&name).ok_or_else(|| {
                    PgError::new(
                        UNDEFINED_COLUMN,
                        format!("column \"{name}\" of relation \"{table}\" does not exist"),
                    )
                })
            })
            .collect()
    }

    fn insert_rows(
        &mut self,
        source: &sqlparser::ast::Query,
        width: usize,
        implicit: bool,
    ) -> FlowResult<Vec<Vec<Typed>>> {
        let rows: Vec<Vec<Typed>> = match &*source.body {
            SetExpr::Values(values) => {
                let mut rows = Vec::with_capacity(values.rows.len());
                for row in &values.rows {
                    let mut typed = Vec::with_capacity(row.content.len());
                    for e in &row.content {
                        typed.push(self.eval(e, &Frame::EMPTY)?);
                    }
                    rows.push(typed);
                }
                rows
            }
            _ => {
                let result = self.query(source, None)?;
                let types: Vec<_> = result.columns.iter().map(|(_, t)| *t).collect();
                result
                    .rows
                    .into_iter()
                    .map(|row| {
                        row.into_iter()
                            .zip(&types)
                            .map(|(v, t)| Typed::new(v, *t))
                            .collect()
                    })
                    .collect()
            }
        };
        let fits = |row: &Vec<Typed>| row.len() == width || (implicit && row.len() < width);
        if let Some(row) = rows.iter().find(|r| !fits(r)) {
            let more = if row.len() > width {
                "more expressions than target columns"
            } else {
                "more target columns than expressions"
            };
            return Err(PgError::syntax(format!("INSERT has {more}")).into());
        }
        Ok(rows)
    }

    /// A full row from the given columns' values, the rest from defaults and sequences.
    fn complete_row(
        &mut self,
        table: &str,
        columns: &[usize],
        values: Vec<Typed>,
    ) -> FlowResult<Vec<Value>> {
        let definition = self.db.table(table)?.columns.clone();
        let mut row: Vec<Option<Value>> = vec![None; definition.len()];
        for (at, value) in columns.iter().zip(values) {
            let column = &definition[*at];
            check_assignable(&column.name, value.t, column.ty)?;
            row[*at] = Some(cast(value, column.ty, column.modifier)?.v);
        }
        let mut out = Vec::with_capacity(row.len());
        for (at, value) in row.into_iter().enumerate() {
            let column = &definition[at];
            let value = match (value, column.serial, &column.default) {
                (Some(v), _, _) => v,
                (None, true, _) => {
                    let t = self.db.table_mut(table)?;
                    t.sequence += 1;
                    Value::Int(t.sequence)
                }
                (None, false, Some(default)) => {
                    cast(
                        self.eval(default, &Frame::EMPTY)?,
                        column.ty,
                        column.modifier,
                    )?
                    .v
                }
                (None, false, None) => Value::Null,
            };
            out.push(value);
        }
        self.check_row(table, &out)?;
        self.check_constraints(table, &out)?;
        Ok(out)
    }

    /// NOT NULL and the type modifiers.
    fn check_row(&self, table: &str, row: &[Value]) -> PgResult<()> {
        let t = self.db.table(table)?;
        for (column, value) in t.columns.iter().zip(row) {
            if column.not_null && value.is_null() {
                return Err(PgError::new(NOT_NULL_VIOLATION, format!("null value in column \"{}\" of relation \"{table}\" violates not-null constraint", column.name)).with_constraint(table, ""));
            }
            check_modifier(value, column.ty, column.modifier)?;
        }
        Ok(())
    }

    /// Insert `row` unless it conflicts; on a conflict, ON CONFLICT decides. The row
    /// written (new or updated), if any.
    fn insert_one(
        &mut self,
        table: &str,
        row: Vec<Value>,
        conflict: Option<&sqlparser::ast::OnConflict>,
        sources: &[Source],
    ) -> FlowResult<Option<Vec<Value>>> {
        for _ in 0..CHAIN_MAX {
            let Some((constraint, tid)) = self.unique_conflict(table, &row)? else {
                let tid = self.insert_version(table, row.clone())?;
                self.index_insert(table, tid)?;
                self.queue_fk(Event::Written {
                    table: table.to_string(),
                    tid,
                })?;
                return Ok(Some(row));
            };
            let Some(conflict) = conflict else {
                return Err(self.duplicate(table, constraint, &row).into());
            };
            self.check_conflict_target(table, conflict, constraint)?;
            let OnConflictAction::DoUpdate(action) = &conflict.action else {
                self.check_visible_conflict(table, tid)?;
                return Ok(None);
            };
            match self.conflict_update(table, tid, &row, action, sources)? {
                Some(written) => return Ok(written),
                None => continue,
            }
        }
        Err(PgError::new(
            PROGRAM_LIMIT_EXCEEDED,
            "ON CONFLICT retried more often than the model allows",
        )
        .into())
    }

    /// REPEATABLE READ may not skip (or update) a conflicting row its snapshot does not see.
    fn check_visible_conflict(&self, table: &str, tid: u64) -> PgResult<()> {
        let v = &self.db.table(table)?.heap[&tid];
        let visible = v.xmin == self.xid
            || crate::pg::storage::heap::sees_version(&self.db.txns, self.viewer(), v);
        if self.repeatable_read && !visible {
            return Err(PgError::new(
                SERIALIZATION_FAILURE,
                "could not serialize access due to concurrent update",
            ));
        }
        Ok(())
    }

    /// DO UPDATE on the conflicting version `tid`: `None` when it vanished meanwhile (the
    /// insert is tried again), else the row written (`Some(None)`: the WHERE said no).
    fn conflict_update(
        &mut self,
        table: &str,
        tid: u64,
        proposed: &[Value],
        action: &sqlparser::ast::DoUpdate,
        sources: &[Source],
    ) -> FlowResult<Option<Option<Vec<Value>>>> {
        let v = &self.db.table(table)?.heap[&tid];
        if v.xmin == self.xid && v.cmin == self.cid {
            return Err(PgError::new(CARDINALITY_VIOLATION, "ON CONFLICT DO UPDATE command cannot affect row a second time")
                .with_detail("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
                .into());
        }
        self.check_visible_conflict(table, tid)?;
        let mode = self.update_mode(table, &action.assignments)?;
        let (tid, existing) = match self.lock_row(table, tid, mode, LockWait::Block)? {
            Locked::Gone | Locked::Skipped => return Ok(None),
            Locked::Row { moved: true, .. } => return Ok(None),
            Locked::Row { tid, data, .. } => (tid, data),
        };
        let mut both = sources.to_vec();
        let width = existing.len();
        both.push(Source {
            alias: "excluded".into(),
            columns: sources[0].columns.clone(),
            offset: width,
        });
        let mut values = existing.clone();
        values.extend(proposed.iter().cloned());
        if let Some(condition) = &action.selection {
            if !self.holds(condition, &values, &both, None)? {
                return Ok(Some(None));
            }
        }
        let mut new = self.assign(table, &action.assignments, &values, &both)?;
        new.truncate(width);
        self.replace(table, tid, new.clone(), mode)?;
        Ok(Some(Some(new)))
    }

    /// ON CONFLICT's target must name a unique constraint, conflict or not.
    fn check_arbiter(&self, table: &str, conflict: &sqlparser::ast::OnConflict) -> PgResult<()> {
        let t = self.db.table(table)?;
        for at in 0..t.uniques.len() {
            match self.check_conflict_target(table, conflict, at) {
                Err(e) if e.code == UNIQUE_VIOLATION => continue,
                other => return other,
            }
        }
        match t.uniques.is_empty() && conflict.conflict_target.is_some() {
            true => Err(PgError::new(
                INVALID_COLUMN_REFERENCE,
                "there is no unique or exclusion constraint matching the ON CONFLICT specification",
            )),
            false => Ok(()),
        }
    }

    fn check_conflict_target(
        &self,
        table: &str,
        conflict: &sqlparser::ast::OnConflict,
        constraint: usize,
    ) -> PgResult<()> {
        let t = self.db.table(table)?;
        let no_match = || {
            PgError::new(
                INVALID_COLUMN_REFERENCE,
                "there is no unique or exclusion constraint matching the ON CONFLICT specification",
            )
        };
        match &conflict.conflict_target {
            None if matches!(conflict.action, OnConflictAction::DoNothing) => Ok(()),
            None => Err(PgError::syntax(
                "ON CONFLICT DO UPDATE requires inference specification or constraint name",
            )),
            Some(sqlparser::ast::ConflictTarget::Columns {
                columns,
                predicate: None,
            }) => {
                let mut wanted: Vec<usize> = columns
                    .iter()
                    .map(|c| t.column(&ident(c)).ok_or_else(no_match))
                    .collect::<PgResult<_>>()?;
                wanted.sort_unstable();
                let matches = |u: &crate::pg::storage::heap::Unique| {
                    let mut have = u.columns.clone();
                    have.sort_unstable();
                    have == wanted
                };
                if !t.uniques.iter().any(matches) {
                    return Err(no_match());
                }
                match matches(&t.uniques[constraint]) {
                    true => Ok(()),
                    false => Err(self.duplicate_of(t, constraint)),
                }
            }
            Some(sqlparser::ast::ConflictTarget::OnConstraint(name)) => {
                let name = object_name(name).last().cloned().unwrap_or_default();
                match t.uniques.iter().position(|u| u.name == name) {
                    Some(at) if at == constraint => Ok(()),
                    Some(_) => Err(self.duplicate_of(t, constraint)),
                    None => Err(PgError::new(
                        UNDEFINED_OBJECT,
                        format!("constraint \"{name}\" for table \"{table}\" does not exist"),
                    )),
                }
            }
            Some(_) => Err(PgError::unsupported("ON CONFLICT with a WHERE")),
        }
    }

    fn duplicate_of(&self, t: &Table, constraint: usize) -> PgError {
        PgError::new(
            UNIQUE_VIOLATION,
            format!(
                "duplicate key value violates unique constraint \"{}\"",
                t.uniques[constraint].name
            ),
        )
        .with_constraint(&t.name, &t.uniques[constraint].name)
    }

    fn duplicate(&self, table: &str, constraint: usize, row: &[Value]) -> PgError {
        let t = self.db.table(table).expect("checked by the caller");
        let u = &t.uniques[constraint];
        let names: Vec<&str> = u
            .columns
            .iter()
            .map(|c| t.columns[*c].name.as_str())
            .collect();
        let values: Vec<String> = u
            .columns
            .iter()
            .map(|c| crate::pg::types::text::format(&row[*c], t.columns[*c].ty).unwrap_or_default())
            .collect();
        self.duplicate_of(t, constraint).with_detail(format!(
            "Key ({})=({}) already exists.",
            names.join(", "),
            values.join(", ")
        ))
    }

    /// The first unique constraint `row` would break, and the version it meets; waits for
    /// a version whose insert or delete is still open.
    fn unique_conflict(&mut self, table: &str, row: &[Value]) -> FlowResult<Option<(usize, u64)>> {
        let uniques = self.db.table(table)?.uniques.clone();
        for (at, unique) in uniques.iter().enumerate() {
            // The versions holding the key, by the constraint's index (`keys.rs`).
            let holders = self
                .db
                .table_mut(table)?
                .heap
                .with_key(&unique.columns, row);
            self.work += holders.len() as u64 + 1;
            self.tick()?;
            let t = self.db.table(table)?;
            for tid in holders {
                let v = &t.heap[&tid];
                if v.xmin != self.xid {
                    match self.db.txns.status(v.xmin) {
                        Status::Aborted => continue,
                        Status::InProgress => {
                            return Err(Flow::Wait {
                                backend: self.db.txns.owner(v.xmin).expect("open"),
                            })
                        }
                        Status::Committed => {}
                    }
                }
                match deleter(&self.db.txns, v) {
                    Some((x, _)) if x == self.xid => continue,
                    Some((x, Status::InProgress)) => {
                        return Err(Flow::Wait {
                            backend: self.db.txns.owner(x).expect("open"),
                        })
                    }
                    Some((_, Status::Committed)) => continue,
                    _ => return Ok(Some((at, tid))),
                }
            }
        }
        Ok(None)
    }

    pub(crate) fn written(
        &mut self,
        table: &str,
        sources: &[Source],
        returning: Option<&[SelectItem]>,
        rows: Vec<Vec<Value>>,
    ) -> FlowResult<Written> {
        let count = rows.len() as u64;
        let Some(items) = returning else {
            return Ok(Written {
                count,
                returning: None,
            });
        };
        let columns = self.output_columns(items, sources, None)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let frame = Frame {
                sources,
                values: &row,
                parent: None,
                depth: self.nesting,
            };
            let mut values = Vec::with_capacity(columns.len());
            for item in items {
                match item {
                    SelectItem::Wildcard(_) => values.extend(row.iter().cloned()),
                    SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                        let value = self.eval(e, &frame)?;
                        values.push(cast(value, columns[values.len()].1, None)?.v);
                    }
                    _ => return Err(PgError::unsupported(format!("RETURNING {item}")).into()),
                }
            }
            out.push(values);
        }
        let _ = table;
        Ok(Written {
            count,
            returning: Some(Rows { columns, rows: out }),
        })
    }
}

pub(crate) fn target(factor: &TableFactor) -> PgResult<(String, Option<String>)> {
    match factor {
        TableFactor::Table { name, alias, .. } => {
            Ok((table_name(name)?, alias.as_ref().map(|a| ident(&a.name))))
        }
        other => Err(PgError::unsupported(format!("writing to `{other}`"))),
    }
}

/// Whether every value of a row is NULL: UPDATE's check of its assignments runs on such a
/// row before it reads any.
fn values_are_nulls(row: &[Value]) -> bool {
    row.iter().all(Value::is_null)
}

/// 42804 unless a value of type `from` may be assigned to column `column` of type `to`.
fn check_assignable(column: &str, from: Type, to: Type) -> PgResult<()> {
    if crate::pg::types::cast::assignable(from, to) {
        return Ok(());
    }
    Err(PgError::new(
        DATATYPE_MISMATCH,
        format!(
            "column \"{column}\" is of type {} but expression is of type {}",
            to.name(),
            from.name()
        ),
    ))
}

/// `DEFAULT` as a value in INSERT's VALUES or UPDATE's SET, which sqlparser reads as a
/// column named `default`: refused, never reported as a missing column.
pub(crate) fn refuse_default_marker(statement: &Statement) -> PgResult<()> {
    let marker = |e: &Expr| matches!(e, Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("default"));
    let found = match statement {
        Statement::Insert(insert) => insert.source.as_ref().is_some_and(|q| {
            matches!(&*q.body, SetExpr::Values(v) if v.rows.iter().flat_map(|row| &row.content).any(marker))
        }),
        Statement::Update(update) => update.assignments.iter().any(|a| marker(&a.value)),
        _ => false,
    };
    match found {
        true => Err(PgError::unsupported("DEFAULT as an INSERT or UPDATE value")),
        false => Ok(()),
    }
}
