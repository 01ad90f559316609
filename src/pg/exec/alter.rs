//! ALTER TABLE: the statement under ACCESS EXCLUSIVE, its operations one after another on
//! the table (each as PostgreSQL checks it against the rows the table holds), the table
//! kept first (`storage/schema.rs`) so that an error, a rolled-back savepoint or an
//! aborted transaction leaves it as it was: DDL is transactional in PostgreSQL. Here: the
//! columns (ADD, DROP, RENAME) and the table's name; `alter_column.rs` and
//! `alter_constraint.rs` hold the rest.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::sql::names::{ident, table_name};
use crate::pg::storage::db::{undefined_table, TableLockMode};
use crate::pg::storage::heap::{Column, Table};
use crate::pg::storage::txn::XID_NONE;
use crate::pg::types::cast::cast;
use crate::pg::types::value::Value;
use sqlparser::ast::{
    AlterTable, AlterTableOperation, ColumnDef, ColumnOption, Ident, TableConstraint,
};

/// Columns a table may have (PostgreSQL's limit).
const COLUMNS_MAX: usize = 1_600;

/// Functions whose default differs row by row: PostgreSQL evaluates such a default for
/// each row (a rewrite), any other once (the "fast default").
const VOLATILE: [&str; 5] = [
    "gen_random_uuid",
    "random",
    "clock_timestamp",
    "nextval",
    "timeofday",
];

impl Exec<'_> {
    pub(crate) fn alter_table(&mut self, alter: &AlterTable) -> FlowResult<()> {
        if alter.location.is_some() || alter.on_cluster.is_some() || alter.table_type.is_some() {
            return Err(PgError::syntax("syntax error at or near \"ALTER\"").into());
        }
        let name = table_name(&alter.name)?;
        if !self.db.tables.contains_key(&name) {
            return match alter.if_exists {
                true => Ok(()),
                false => Err(undefined_table(&name).into()),
            };
        }
        assert_ne!(self.xid, XID_NONE, "ALTER TABLE runs in a transaction");
        self.lock_table(&name, TableLockMode::AccessExclusive)?;
        let undo = self
            .db
            .keep_schema(self.xid, &name)
            .expect("the table exists");
        self.undo.push(undo);
        let mut name = name;
        for operation in &alter.operations {
            name = self.alter_operation(&name, operation)?;
        }
        Ok(())
    }

    /// A statement naming a table whose schema another open transaction changed waits
    /// for it first, as PostgreSQL's parse analysis takes ACCESS SHARE on every table a
    /// statement names before it reads a column of one (the change holds ACCESS
    /// EXCLUSIVE): it never sees a schema not committed. Names are found among the
    /// statement's words, so a word naming such a table otherwise waits too.
    pub(crate) fn wait_for_schema_changes(
        &mut self,
        statement: &sqlparser::ast::Statement,
    ) -> FlowResult<()> {
        let changed = self.db.altered.changed_by_others(self.xid);
        if changed.is_empty() {
            return Ok(());
        }
        let text = statement.to_string().to_lowercase();
        let words: Vec<&str> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .collect();
        for table in changed.iter().filter(|t| words.contains(&t.as_str())) {
            self.lock_table(table, TableLockMode::AccessShare)?;
        }
        Ok(())
    }

    /// One operation on `table`; the table's name after it.
    fn alter_operation(
        &mut self,
        table: &str,
        operation: &AlterTableOperation,
    ) -> FlowResult<String> {
        use AlterTableOperation as Op;
        match operation {
            Op::AddColumn {
                if_not_exists,
                column_def,
                column_position: None,
                ..
            } => self.add_column(table, column_def, *if_not_exists)?,
            Op::DropColumn {
                column_names,
                if_exists,
                drop_behavior,
                ..
            } => {
                let cascade = matches!(drop_behavior, Some(sqlparser::ast::DropBehavior::Cascade));
                for column in column_names {
                    self.drop_column(table, &ident(column), *if_exists, cascade)?;
                }
            }
            Op::RenameColumn {
                old_column_name,
                new_column_name,
            } => self.rename_column(table, old_column_name, new_column_name)?,
            Op::RenameTable { table_name: to } => {
                let to = match to {
                    sqlparser::ast::RenameTableNameKind::To(n)
                    | sqlparser::ast::RenameTableNameKind::As(n) => table_name(n)?,
                };
                self.rename_table(table, &to)?;
                return Ok(to);
            }
            Op::AlterColumn { column_name, op } => self.alter_column(table, column_name, op)?,
            Op::AddConstraint {
                constraint,
                not_valid,
            } => self.add_constraint(table, constraint, *not_valid)?,
            Op::DropConstraint {
                if_exists,
                name,
                drop_behavior,
            } => {
                let cascade = matches!(drop_behavior, Some(sqlparser::ast::DropBehavior::Cascade));
                self.drop_constraint(table, &ident(name), *if_exists, cascade)?
            }
            other => {
                return Err(PgError::unsupported(format!("ALTER TABLE … {other}")).into());
            }
        }
        Ok(table.to_string())
    }

    /// ADD COLUMN: every version of every row gets the column's default (NULL without
    /// one), a NOT NULL column without a default fails on a table with rows.
    fn add_column(&mut self, table: &str, def: &ColumnDef, if_not_exists: bool) -> FlowResult<()> {
        let name = ident(&def.name);
        let t = self.db.table(table)?;
        if t.column(&name).is_some() {
            return match if_not_exists {
                true => Ok(()),
                false => Err(PgError::new(
                    DUPLICATE_COLUMN,
                    format!("column \"{name}\" of relation \"{table}\" already exists"),
                )
                .into()),
            };
        }
        if t.columns.len() >= COLUMNS_MAX {
            return Err(PgError::new(
                PROGRAM_LIMIT_EXCEEDED,
                "tables can have at most 1600 columns",
            )
            .into());
        }
        let (column, constraints) = self.added_column(name, def)?;
        self.fill_column(table, &column)?;
        self.db.table_mut(table)?.columns.push(column.clone());
        let at = self.db.table(table)?.columns.len() - 1;
        if column.not_null && self.has_null(table, at)? {
            return Err(contains_nulls(&column.name, table).into());
        }
        for constraint in &constraints {
            self.add_constraint(table, constraint, false)?;
        }
        Ok(())
    }

    /// The column ADD COLUMN defines, and its constraints (CHECKs, keys), added after it.
    fn added_column(
        &self,
        name: String,
        def: &ColumnDef,
    ) -> FlowResult<(Column, Vec<TableConstraint>)> {
        let (ty, modifier) = self.sql_type(&def.data_type)?;
        if def.data_type.to_string().to_lowercase().contains("serial") {
            return Err(PgError::unsupported("ADD COLUMN of a serial column").into());
        }
        let mut column = Column {
            name,
            ty,
            not_null: false,
            default: None,
            serial: false,
            modifier,
        };
        let mut constraints = Vec::new();
        for option in &def.options {
            match &option.option {
                ColumnOption::Check(check) => {
                    let mut check = check.clone();
                    check.name = check.name.or_else(|| option.name.clone());
                    constraints.push(TableConstraint::Check(check));
                }
                other => self.column_option(&mut column, other, &mut constraints)?,
            }
        }
        Ok((column, constraints))
    }

    /// The new column's value in every version: its default, evaluated once (or, for a
    /// volatile default, once per row a snapshot taken now sees, in heap order).
    fn fill_column(&mut self, table: &str, column: &Column) -> FlowResult<()> {
        let Some(default) = &column.default else {
            return self.fill_with(table, |_| Value::Null);
        };
        let text = default.to_string().to_lowercase();
        if !VOLATILE.iter().any(|f| text.contains(f)) {
            let value = cast(
                self.eval(default, &Frame::EMPTY)?,
                column.ty,
                column.modifier,
            )?
            .v;
            return self.fill_with(table, |_| value.clone());
        }
        let live: Vec<u64> = self
            .scan_latest(table)?
            .into_iter()
            .map(|(tid, _)| tid)
            .collect();
        self.rewrite_heap(table)?;
        let mut values = std::collections::BTreeMap::new();
        for tid in live {
            let value = cast(
                self.eval(default, &Frame::EMPTY)?,
                column.ty,
                column.modifier,
            )?
            .v;
            values.insert(tid, value);
        }
        self.fill_with(table, |tid| {
            values.get(&tid).cloned().unwrap_or(Value::Null)
        })
    }

    /// A rewrite (PostgreSQL's new relfilenode): the rows a snapshot taken now sees,
    /// written again by this transaction, the rest gone. Not MVCC-safe, as PostgreSQL's
    /// is not: a snapshot taken before sees the table empty.
    pub(crate) fn rewrite_heap(&mut self, table: &str) -> FlowResult<()> {
        let live: Vec<u64> = self
            .scan_latest(table)?
            .into_iter()
            .map(|(tid, _)| tid)
            .collect();
        let (xid, cid) = (self.xid, self.cid);
        let t = self.db.table_mut(table)?;
        t.heap.retain(|tid, _| live.binary_search(tid).is_ok());
        for (_, version) in t.heap.rewrite() {
            (version.xmin, version.cmin, version.xmax, version.next) = (xid, cid, XID_NONE, None);
            version.lockers.clear();
        }
        Ok(())
    }

    fn fill_with(&mut self, table: &str, value: impl Fn(u64) -> Value) -> FlowResult<()> {
        let t = self.db.table_mut(table)?;
        let width = t.columns.len();
        for (tid, version) in t.heap.rewrite() {
            assert_eq!(version.data.len(), width, "every version has every column");
            version.data.push(value(*tid));
        }
        Ok(())
    }

    /// Whether a row a snapshot taken now sees holds NULL in `column`.
    pub(crate) fn has_null(&mut self, table: &str, column: usize) -> FlowResult<bool> {
        Ok(self
            .scan_latest(table)?
            .iter()
            .any(|(_, row)| row[column].is_null()))
    }

    /// DROP COLUMN: the column leaves every version; its indexes, keys and CHECKs go
    /// with it, as PostgreSQL drops them. A key of another table on it needs CASCADE.
    fn drop_column(
        &mut self,
        table: &str,
        name: &str,
        if_exists: bool,
        cascade: bool,
    ) -> FlowResult<()> {
        let t = self.db.table(table)?;
        let Some(at) = t.column(name) else {
            return match if_exists {
                true => Ok(()),
                false => Err(undefined_column(name, table).into()),
            };
        };
        if t.columns.len() == 1 {
            return Err(PgError::unsupported("a table without columns").into());
        }
        if t.indexes.iter().any(|i| !i.expressions.is_empty()) {
            return Err(
                PgError::unsupported("DROP COLUMN on a table with an expression index").into(),
            );
        }
        let referencing = self.db.tables.values().any(|c| {
            c.foreign_keys
                .iter()
                .any(|fk| fk.parent == table && fk.parent_columns.contains(&at))
        });
        if referencing && cascade {
            return Err(
                PgError::unsupported("DROP COLUMN … CASCADE of a referenced column").into(),
            );
        }
        if referencing {
            return Err(PgError::new(
                DEPENDENT_OBJECTS_STILL_EXIST,
                format!(
                    "cannot drop column {name} of table {table} because other objects depend on it"
                ),
            )
            .into());
        }
        self.keep_children_keys(table)?;
        let t = self.db.table_mut(table)?;
        let checks = std::mem::take(&mut t.checks);
        let t_ref: &Table = t;
        let kept: Vec<_> = checks
            .into_iter()
            .filter(|c| !crate::pg::exec::check::referenced_columns(t_ref, &c.expr).contains(&at))
            .collect();
        t.checks = kept;
        drop_column_at(t, at);
        for child in self.db.tables.values_mut() {
            for fk in child
                .foreign_keys
                .iter_mut()
                .filter(|fk| fk.parent == table)
            {
                fk.parent_columns
                    .iter_mut()
                    .for_each(|c| *c -= usize::from(*c > at));
            }
        }
        Ok(())
    }

    /// The other tables referencing `table` are kept too (their keys' column numbers
    /// change with a dropped column), their keys only: their rows are theirs.
    fn keep_children_keys(&mut self, table: &str) -> PgResult<()> {
        let children: Vec<String> = self
            .db
            .tables
            .values()
            .filter(|c| c.name != table && c.foreign_keys.iter().any(|fk| fk.parent == table))
            .map(|c| c.name.clone())
            .collect();
        for child in children {
            let undo = self
                .db
                .keep_keys(self.xid, &child)
                .expect("the table exists");
            self.undo.push(undo);
        }
        Ok(())
    }

    fn rename_column(&mut self, table: &str, from: &Ident, to: &Ident) -> FlowResult<()> {
        let (from, to) = (ident(from), ident(to));
        let t = self.db.table_mut(table)?;
        let Some(at) = t.column(&from) else {
            return Err(undefined_column(&from, table).into());
        };
        if t.column(&to).is_some() {
            return Err(PgError::new(
                DUPLICATE_COLUMN,
                format!("column \"{to}\" of relation \"{table}\" already exists"),
            )
            .into());
        }
        for check in &mut t.checks {
            check.expr = crate::pg::exec::check::renamed(&check.expr, &from, &to)?;
        }
        t.columns[at].name = to;
        Ok(())
    }

    /// RENAME TO: the table under its new name, locked under both; a table another
    /// table's key references is refused (the keys name their parent).
    fn rename_table(&mut self, table: &str, to: &str) -> FlowResult<()> {
        if self.db.tables.contains_key(to) {
            return Err(
                PgError::new(DUPLICATE_TABLE, format!("relation \"{to}\" already exists")).into(),
            );
        }
        let referenced = self
            .db
            .tables
            .values()
            .any(|c| c.foreign_keys.iter().any(|fk| fk.parent == table));
        if referenced {
            return Err(
                PgError::unsupported("RENAME TO of a table a foreign key references").into(),
            );
        }
        self.lock_table(to, TableLockMode::AccessExclusive)?;
        let mut t = self.db.tables.remove(table).expect("locked above");
        t.name = to.to_string();
        self.db.tables.insert(to.to_string(), t);
        self.db.altered.renamed(self.xid, table, to);
        Ok(())
    }
}

/// Column `at` leaves `t`: its versions' values, and every index, key and vector index
/// on it; the later columns' numbers move down by one.
fn drop_column_at(t: &mut Table, at: usize) {
    t.columns.remove(at);
    for (_, version) in t.heap.rewrite() {
        version.data.remove(at);
    }
    t.uniques.retain(|u| !u.columns.contains(&at));
    t.foreign_keys.retain(|fk| !fk.columns.contains(&at));
    let gone: Vec<String> = t
        .indexes
        .iter()
        .filter(|i| i.columns.contains(&at))
        .map(|i| i.name.clone())
        .collect();
    t.indexes.retain(|i| !gone.contains(&i.name));
    t.vector_indexes.retain(|name, _| !gone.contains(name));
    let shift = |c: &mut usize| *c -= usize::from(*c > at);
    t.uniques
        .iter_mut()
        .for_each(|u| u.columns.iter_mut().for_each(shift));
    t.indexes
        .iter_mut()
        .for_each(|i| i.columns.iter_mut().for_each(shift));
    t.vector_indexes
        .values_mut()
        .for_each(|v| shift(&mut v.column));
    for fk in &mut t.foreign_keys {
        fk.columns.iter_mut().for_each(shift);
        if fk.parent == t.name {
            fk.parent_columns.iter_mut().for_each(shift);
        }
    }
}

pub(crate) fn undefined_column(name: &str, table: &str) -> PgError {
    PgError::new(
        UNDEFINED_COLUMN,
        format!("column \"{name}\" of relation \"{table}\" does not exist"),
    )
}

pub(crate) fn contains_nulls(column: &str, table: &str) -> PgError {
    PgError::new(
        NOT_NULL_VIOLATION,
        format!("column \"{column}\" of relation \"{table}\" contains null values"),
    )
    .with_constraint(table, "")
}
