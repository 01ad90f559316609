//! `CREATE EXTENSION`, `CREATE TABLE`, `CREATE INDEX`, `DROP TABLE`/`DROP INDEX`. CREATE
//! TABLE is undone with its transaction or savepoint (`storage/schema.rs`), as ALTER
//! TABLE and TRUNCATE are (`alter.rs`, `truncate.rs`); the others are not transactional
//! in the model: an index or extension exists from its CREATE on and a dropped table is
//! gone, whatever the transaction around it does (the stores create their schema in a
//! transaction that commits); README lists this difference.

use crate::pg::error::*;
use crate::pg::exec::context::Exec;
use crate::pg::sql::names::{ident, object_name, table_name};
use crate::pg::storage::db::{TableLockMode, TABLES_MAX};
use crate::pg::storage::heap::{Column, ForeignKey, IndexDef, Table, Unique};
use sqlparser::ast::{
    ColumnOption, CreateIndex, CreateTable, Expr, Ident, ReferentialAction, TableConstraint,
};

/// Columns a table may have (PostgreSQL's limit).
const COLUMNS_MAX: usize = 1_600;
/// The extensions the model has.
const EXTENSIONS: [&str; 2] = ["vector", "plpgsql"];

impl Exec<'_> {
    pub(crate) fn create_extension(&mut self, name: &Ident, if_not_exists: bool) -> PgResult<()> {
        let name = ident(name);
        if !EXTENSIONS.contains(&name.as_str()) {
            return Err(PgError::new(
                UNDEFINED_FILE,
                format!("extension \"{name}\" is not available"),
            ));
        }
        if !self.db.extensions.insert(name.clone()) && !if_not_exists {
            return Err(PgError::new(
                DUPLICATE_OBJECT,
                format!("extension \"{name}\" already exists"),
            ));
        }
        Ok(())
    }

    pub(crate) fn create_table(&mut self, create: &CreateTable) -> FlowResult<()> {
        let name = table_name(&create.name)?;
        // A temporary table of a taken name hides the other in PostgreSQL (pg_temp comes
        // first in the search path); the model keeps one namespace.
        if let Some(taken) = self.db.tables.get(&name) {
            if create.temporary != taken.temporary {
                return Err(
                    PgError::unsupported("a temporary table and another of its name").into(),
                );
            }
        }
        if self.db.tables.contains_key(&name) {
            return match create.if_not_exists {
                true => Ok(()),
                false => Err(PgError::new(
                    DUPLICATE_TABLE,
                    format!("relation \"{name}\" already exists"),
                )
                .into()),
            };
        }
        refuse_unmodelled(create)?;
        if create.columns.is_empty() {
            return Err(PgError::unsupported("a table without columns").into());
        }
        if self.db.tables.len() >= TABLES_MAX || create.columns.len() > COLUMNS_MAX {
            return Err(PgError::new(
                PROGRAM_LIMIT_EXCEEDED,
                "the model holds at most 256 tables of 1 to 1600 columns",
            )
            .into());
        }
        let mut table = Table::new(name.clone(), Vec::new());
        table.temporary = create.temporary;
        let mut constraints: Vec<TableConstraint> = create.constraints.clone();
        // PostgreSQL names the columns' CHECKs before the table's.
        let mut checks = Vec::new();
        for column in &create.columns {
            let (ty, modifier) = self.sql_type(&column.data_type)?;
            let serial = column
                .data_type
                .to_string()
                .to_lowercase()
                .contains("serial");
            let mut def = Column {
                name: ident(&column.name),
                ty,
                not_null: serial,
                default: None,
                serial,
                modifier,
            };
            for option in &column.options {
                if let ColumnOption::Check(check) = &option.option {
                    let mut check = check.clone();
                    check.name = check.name.or_else(|| option.name.clone());
                    checks.push(check);
                    continue;
                }
                self.column_option(&mut def, &option.option, &mut constraints)?;
            }
            if table.column(&def.name).is_some() {
                return Err(PgError::new(
                    DUPLICATE_COLUMN,
                    format!("column \"{}\" specified more than once", def.name),
                )
                .into());
            }
            table.columns.push(def);
        }
        for constraint in &constraints {
            match constraint {
                TableConstraint::Check(check) => checks.push(check.clone()),
                other => self.table_constraint(&mut table, other)?,
            }
        }
        for check in &checks {
            let check = self.check_definition(&table, check)?;
            table.checks.push(check);
        }
        table.checks.sort_by(|a, b| a.name.cmp(&b.name));
        let keys = table.uniques.iter().flat_map(|u| &u.columns);
        crate::pg::exec::json_keys::refuse_json_index(keys.map(|c| table.columns[*c].ty), "btree")?;
        self.db.tables.insert(name.clone(), table);
        let undo = self.db.keep_created(self.xid, &name);
        self.undo.push(undo);
        Ok(())
    }

    /// A column's own options; its inline keys become table constraints on it.
    pub(crate) fn column_option(
        &self,
        def: &mut Column,
        option: &ColumnOption,
        constraints: &mut Vec<TableConstraint>,
    ) -> PgResult<()> {
        // The name is folded already: quoted, it stays as it is when read back as a key.
        let column = Ident::with_quote('"', def.name.clone());
        match option {
            ColumnOption::NotNull => def.not_null = true,
            ColumnOption::Null => {}
            ColumnOption::Default(e) => def.default = Some(e.clone()),
            ColumnOption::PrimaryKey(pk) => {
                let mut pk = pk.clone();
                pk.columns = vec![index_column(&column)];
                constraints.push(TableConstraint::PrimaryKey(pk));
            }
            ColumnOption::Unique(u) => {
                let mut u = u.clone();
                u.columns = vec![index_column(&column)];
                constraints.push(TableConstraint::Unique(u));
            }
            ColumnOption::ForeignKey(fk) => {
                let mut fk = fk.clone();
                fk.columns = vec![column];
                constraints.push(TableConstraint::ForeignKey(fk));
            }
            other => return Err(PgError::unsupported(format!("the column option {other}"))),
        }
        Ok(())
    }

    pub(crate) fn table_constraint(
        &self,
        table: &mut Table,
        constraint: &TableConstraint,
    ) -> PgResult<()> {
        let columns_of = |t: &Table, names: &[String]| -> PgResult<Vec<usize>> {
            names
                .iter()
                .map(|n| {
                    t.column(n).ok_or_else(|| {
                        PgError::new(
                            UNDEFINED_COLUMN,
                            format!("column \"{n}\" named in key does not exist"),
                        )
                    })
                })
                .collect()
        };
        refuse_unmodelled_key(constraint)?;
        match constraint {
            TableConstraint::PrimaryKey(pk) => {
                let columns = columns_of(
                    table,
                    &pk.columns
                        .iter()
                        .map(key_column)
                        .collect::<PgResult<Vec<_>>>()?,
                )?;
                if table.uniques.iter().any(|u| u.primary) {
                    return Err(PgError::new(
                        INVALID_TABLE_DEFINITION,
                        format!(
                            "multiple primary keys for table \"{}\" are not allowed",
                            table.name
                        ),
                    ));
                }
                columns
                    .iter()
                    .for_each(|c| table.columns[*c].not_null = true);
                let name = pk
                    .name
                    .as_ref()
                    .map_or(format!("{}_pkey", table.name), ident);
                table.uniques.insert(
                    0,
                    Unique {
                        name,
                        columns,
                        primary: true,
                    },
                );
            }
            TableConstraint::Unique(u) => {
                let names: Vec<String> =
                    u.columns.iter().map(key_column).collect::<PgResult<_>>()?;
                let columns = columns_of(table, &names)?;
                let name = u
                    .name
                    .as_ref()
                    .map_or(format!("{}_{}_key", table.name, names.join("_")), ident);
                table.uniques.push(Unique {
                    name,
                    columns,
                    primary: false,
                });
            }
            TableConstraint::ForeignKey(fk) => {
                let names: Vec<String> = fk.columns.iter().map(ident).collect();
                let columns = columns_of(table, &names)?;
                let parent = table_name(&fk.foreign_table)?;
                let parent_table = if parent == table.name {
                    &*table
                } else {
                    self.db.table(&parent)?
                };
                let parent_names: Vec<String> = match fk.referred_columns.is_empty() {
                    true => parent_table
                        .uniques
                        .iter()
                        .find(|u| u.primary)
                        .map(|u| {
                            u.columns
                                .iter()
                                .map(|c| parent_table.columns[*c].name.clone())
                                .collect()
                        })
                        .unwrap_or_default(),
                    false => fk.referred_columns.iter().map(ident).collect(),
                };
                let parent_columns = columns_of(parent_table, &parent_names)?;
                if parent_columns.len() != columns.len() {
                    return Err(PgError::new(
                        INVALID_FOREIGN_KEY,
                        "number of referencing and referenced columns for foreign key disagree",
                    ));
                }
                let cascade = matches!(fk.on_delete, Some(ReferentialAction::Cascade));
                // NO ACTION and ON DELETE CASCADE are modeled (`fk`); the other actions
                // and deferred checking are refused, not run as NO ACTION.
                let no_action = |a: &Option<ReferentialAction>| {
                    matches!(a, None | Some(ReferentialAction::NoAction))
                };
                if !(no_action(&fk.on_delete) || cascade)
                    || !no_action(&fk.on_update)
                    || fk.characteristics.as_ref().is_some_and(|c| {
                        c.deferrable == Some(true)
                            || c.initially == Some(sqlparser::ast::DeferrableInitial::Deferred)
                            || c.enforced == Some(false)
                    })
                {
                    return Err(PgError::unsupported(format!("the foreign key {fk}")));
                }
                let name = fk
                    .name
                    .as_ref()
                    .map_or(format!("{}_{}_fkey", table.name, names.join("_")), ident);
                table.foreign_keys.push(ForeignKey {
                    name,
                    columns,
                    parent,
                    parent_columns,
                    cascade,
                });
            }
            other => return Err(PgError::unsupported(format!("the constraint {other}"))),
        }
        Ok(())
    }

    /// CREATE INDEX waits for the table's writers (SHARE); CONCURRENTLY does not (its
    /// phases' waits for older transactions are not modelled).
    pub(crate) fn create_index(&mut self, create: &CreateIndex) -> FlowResult<()> {
        let table = table_name(&create.table_name)?;
        if self.db.tables.contains_key(&table) {
            let mode = match create.concurrently {
                true => TableLockMode::ShareUpdateExclusive,
                false => TableLockMode::Share,
            };
            self.lock_table(&table, mode)?;
        }
        Ok(self.create_index_locked(create)?)
    }

    fn create_index_locked(&mut self, create: &CreateIndex) -> PgResult<()> {
        if create.nulls_distinct == Some(false) {
            return Err(PgError::unsupported(
                "a unique index with NULLS NOT DISTINCT",
            ));
        }
        let table = table_name(&create.table_name)?;
        let name = match &create.name {
            Some(n) => object_name(n).last().cloned().unwrap_or_default(),
            None => {
                let taken = |n: &str| self.relation_named(n);
                crate::pg::exec::index_name::choose(&table, create, taken).ok_or_else(|| {
                    PgError::new(DUPLICATE_TABLE, "could not choose a name for the index")
                })?
            }
        };
        if self.relation_named(&name) {
            return match create.if_not_exists {
                true => Ok(()),
                false => Err(PgError::new(
                    DUPLICATE_TABLE,
                    format!("relation \"{name}\" already exists"),
                )),
            };
        }
        let method = create
            .using
            .as_ref()
            .map_or("btree".to_string(), |m| m.to_string().to_lowercase());
        self.db.table(&table)?;
        if create.unique && method != "btree" {
            return Err(PgError::new(
                FEATURE_NOT_SUPPORTED,
                format!("access method \"{method}\" does not support unique indexes"),
            ));
        }
        // A partial btree index changes no answer (the model scans), but a partial unique
        // one constrains only the rows its predicate holds for, and a partial vector
        // index serves only queries that imply it: neither is modelled, so both refuse.
        let vector = matches!(method.as_str(), "hnsw" | "ivfflat");
        if create.predicate.is_some() && (create.unique || vector) {
            return Err(PgError::unsupported(
                "a partial unique or vector index (CREATE INDEX … WHERE)",
            ));
        }
        // The predicate is read as a WHERE over the table (its names, its type), though
        // the model keeps no partial index.
        if let Some(predicate) = &create.predicate {
            let source = self.source_of(&table, None)?;
            if let Err(Flow::Error(e)) = self.infer_condition(predicate, "WHERE", &[source], None) {
                return Err(e);
            }
        }
        let mut columns = Vec::new();
        let mut expressions = Vec::new();
        let mut opclass = None;
        for c in &create.columns {
            let Expr::Identifier(i) = &c.column.expr else {
                if create.unique || c.operator_class.is_some() {
                    return Err(PgError::unsupported(
                        "a unique index or an operator class on an expression",
                    ));
                }
                expressions.push(self.index_expression(&table, &c.column.expr, &method)?);
                continue;
            };
            let t = self.db.table(&table)?;
            let column = ident(i);
            columns.push(t.column(&column).ok_or_else(|| {
                if crate::pg::sql::scope::is_system_column(&column) {
                    return PgError::unsupported("an index on a system column");
                }
                PgError::new(
                    UNDEFINED_COLUMN,
                    format!("column \"{column}\" does not exist"),
                )
            })?);
            opclass = c.operator_class.as_ref().map(|o| object_name(o).join("."));
        }
        let table_def = self.db.table(&table)?;
        let types = columns.iter().map(|c| table_def.columns[*c].ty);
        crate::pg::exec::json_keys::refuse_json_index(types, &method)?;
        let options = create
            .with
            .iter()
            .map(index_option)
            .collect::<PgResult<Vec<_>>>()?;
        if !expressions.is_empty() && !columns.is_empty() {
            return Err(PgError::unsupported(
                "an index on both columns and expressions",
            ));
        }
        let index = IndexDef {
            name: name.clone(),
            columns: columns.clone(),
            expressions,
            method,
            opclass,
            options,
            unique: create.unique,
            valid: true,
        };
        if create.unique {
            let built = self.check_unique_build(&table, &columns, &name);
            if built.is_err() && create.concurrently {
                // CONCURRENTLY committed the index's catalog entry before its build
                // failed: it stays, invalid, unused and not maintained.
                let invalid = IndexDef {
                    valid: false,
                    ..index.clone()
                };
                self.db.table_mut(&table)?.indexes.push(invalid);
            }
            built?;
        }
        // Built first: an index that fails to build leaves no constraint behind.
        self.build_index(&table, index)?;
        if create.unique {
            let t = self.db.table_mut(&table)?;
            t.uniques.push(Unique {
                name,
                columns,
                primary: false,
            });
        }
        Ok(())
    }

    /// Whether a table, an index or a key's index already has `name` (one namespace).
    fn relation_named(&self, name: &str) -> bool {
        self.db.tables.contains_key(name)
            || self.db.tables.values().any(|t| {
                t.indexes.iter().any(|i| i.name == name) || t.uniques.iter().any(|u| u.name == name)
            })
    }

    /// A unique index over rows that already repeat a key fails to build (23505), as
    /// PostgreSQL's does: among the versions not known dead (an aborted insert's, or one a
    /// committed transaction deleted), two with the same key and no NULL in it.
    pub(crate) fn check_unique_build(
        &self,
        table: &str,
        columns: &[usize],
        name: &str,
    ) -> PgResult<()> {
        use crate::pg::storage::txn::{Status, XID_NONE};
        let t = self.db.table(table)?;
        let txns = &self.db.txns;
        let mut keys: Vec<Vec<crate::pg::types::value::Value>> = t
            .heap
            .values()
            .filter(|v| {
                let aborted = v.xmin != XID_NONE && txns.status(v.xmin) == Status::Aborted;
                // Row locks live in `lockers`: an `xmax` is a delete or an update.
                let deleted = v.xmax != XID_NONE && txns.status(v.xmax) == Status::Committed;
                !aborted && !deleted
            })
            .map(|v| {
                columns
                    .iter()
                    .map(|c| v.data[*c].clone())
                    .collect::<Vec<_>>()
            })
            .filter(|key| !key.iter().any(crate::pg::types::value::Value::is_null))
            .collect();
        keys.sort_by(|a, b| {
            a.iter()
                .zip(b)
                .map(|(x, y)| crate::pg::types::value::compare(x, y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let repeated = keys.windows(2).any(|pair| {
            pair[0]
                .iter()
                .zip(&pair[1])
                .all(|(x, y)| crate::pg::types::value::compare(x, y).is_eq())
        });
        match repeated {
            true => Err(PgError::new(
                UNIQUE_VIOLATION,
                format!("could not create unique index \"{name}\""),
            )),
            false => Ok(()),
        }
    }

    /// DROP TABLE: every table named goes, or none (a missing one fails the statement
    /// before any is dropped). A table another one references (one not dropped with it)
    /// fails with 2BP01; with CASCADE PostgreSQL drops the referencing constraints, which
    /// the model refuses.
    pub(crate) fn drop_table(
        &mut self,
        names: &[sqlparser::ast::ObjectName],
        if_exists: bool,
        cascade: bool,
    ) -> FlowResult<()> {
        let names = names.iter().map(table_name).collect::<PgResult<Vec<_>>>()?;
        let mut dropped = Vec::with_capacity(names.len());
        for name in names {
            match self.db.tables.contains_key(&name) {
                true if !dropped.contains(&name) => dropped.push(name),
                true => {}
                false if if_exists => {}
                false => return Err(crate::pg::storage::db::undefined_table(&name).into()),
            }
        }
        for name in &dropped {
            // DROP waits for every open reader and writer of the table (ACCESS EXCLUSIVE).
            self.lock_table(name, TableLockMode::AccessExclusive)?;
        }
        for name in &dropped {
            let referenced = self.db.tables.values().any(|t| {
                !dropped.contains(&t.name) && t.foreign_keys.iter().any(|fk| fk.parent == *name)
            });
            match (referenced, cascade) {
                (false, _) => {}
                (true, true) => {
                    return Err(PgError::unsupported(
                        "DROP TABLE … CASCADE of a table another table references",
                    )
                    .into())
                }
                (true, false) => {
                    return Err(PgError::new(
                        DEPENDENT_OBJECTS_STILL_EXIST,
                        format!("cannot drop table {name} because other objects depend on it"),
                    )
                    .into())
                }
            }
        }
        for name in &dropped {
            self.db.tables.remove(name);
        }
        Ok(())
    }

    pub(crate) fn drop_index(
        &mut self,
        names: &[sqlparser::ast::ObjectName],
        if_exists: bool,
    ) -> FlowResult<()> {
        for name in names {
            let name = object_name(name).last().cloned().unwrap_or_default();
            let owner = self.db.tables.values().find(|t| {
                t.indexes.iter().any(|i| i.name == name)
                    || t.uniques.iter().any(|u| u.name == name && !u.primary)
            });
            if let Some(owner) = owner.map(|t| t.name.clone()) {
                self.lock_table(&owner, TableLockMode::AccessExclusive)?;
            }
            let mut found = false;
            for t in self.db.tables.values_mut() {
                let before = t.indexes.len();
                t.indexes.retain(|i| i.name != name);
                t.uniques.retain(|u| u.name != name || u.primary);
                t.vector_indexes.remove(&name);
                found |= t.indexes.len() != before;
            }
            if !found && !if_exists {
                return Err(PgError::new(
                    UNDEFINED_OBJECT,
                    format!("index \"{name}\" does not exist"),
                )
                .into());
            }
        }
        Ok(())
    }

    /// LOCK TABLE: each table in the mode named (ACCESS EXCLUSIVE when none) until the
    /// transaction ends, waiting as any table lock waits; NOWAIT fails at once (55P03)
    /// where it would wait.
    pub(crate) fn lock_tables(&mut self, lock: &sqlparser::ast::Lock) -> FlowResult<()> {
        use sqlparser::ast::LockTableMode as Named;
        let mode = match lock.lock_mode {
            Some(Named::AccessShare) => TableLockMode::AccessShare,
            Some(Named::RowShare) => TableLockMode::RowShare,
            Some(Named::RowExclusive) => TableLockMode::RowExclusive,
            Some(Named::ShareUpdateExclusive) => TableLockMode::ShareUpdateExclusive,
            Some(Named::Share) => TableLockMode::Share,
            Some(Named::ShareRowExclusive) => TableLockMode::ShareRowExclusive,
            Some(Named::Exclusive) => TableLockMode::Exclusive,
            Some(Named::AccessExclusive) | None => TableLockMode::AccessExclusive,
        };
        for target in &lock.tables {
            let name = table_name(&target.name)?;
            self.db.table(&name)?;
            let held = self
                .db
                .table_locks
                .get(&name)
                .is_some_and(|locks| locks.iter().any(|l| l.xid == self.xid && l.mode == mode));
            if lock.nowait && !held {
                let blocked = self
                    .db
                    .table_lock_blocker(&name, self.xid, self.backend, mode)
                    .is_some();
                if blocked {
                    // It joined the queue to find out; it never waits there.
                    self.db.stop_waiting(self.backend);
                    return Err(PgError::new(
                        LOCK_NOT_AVAILABLE,
                        format!("could not obtain lock on relation \"{name}\""),
                    )
                    .into());
                }
            }
            self.lock_table(&name, mode)?;
        }
        Ok(())
    }
}

fn index_column(column: &Ident) -> sqlparser::ast::IndexColumn {
    sqlparser::ast::IndexColumn {
        column: sqlparser::ast::OrderByExpr {
            expr: Expr::Identifier(column.clone()),
            options: sqlparser::ast::OrderByOptions {
                sort: None,
                nulls_first: None,
            },
            with_fill: None,
        },
        operator_class: None,
    }
}

/// A column of a PRIMARY KEY or UNIQUE list, folded as PostgreSQL folds identifiers (a
/// quoted name keeps its case and loses its quotes); the grammar allows only names there.
fn key_column(c: &sqlparser::ast::IndexColumn) -> PgResult<String> {
    match &c.column.expr {
        Expr::Identifier(i) => Ok(ident(i)),
        other => Err(PgError::syntax(format!(
            "syntax error at or near \"{other}\""
        ))),
    }
}

/// `WITH (m = 16)`'s `(m, 16)`.
fn index_option(e: &Expr) -> PgResult<(String, String)> {
    match e {
        Expr::BinaryOp {
            left,
            op: sqlparser::ast::BinaryOperator::Eq,
            right,
        } => {
            let value = match &**right {
                Expr::Value(v) => v.value.to_string().trim_matches('\'').to_string(),
                other => other.to_string(),
            };
            let name = match &**left {
                Expr::Identifier(i) => ident(i),
                other => other.to_string().to_lowercase(),
            };
            Ok((name, value))
        }
        other => Err(PgError::syntax(format!(
            "syntax error at or near \"{other}\""
        ))),
    }
}

/// A unique key whose NULLs are equal (`NULLS NOT DISTINCT`) or whose check waits for
/// the statement's end (`DEFERRABLE`): the model's keys are neither, so refused.
fn refuse_unmodelled_key(constraint: &TableConstraint) -> PgResult<()> {
    let (characteristics, nulls) = match constraint {
        TableConstraint::PrimaryKey(pk) => (&pk.characteristics, None),
        TableConstraint::Unique(u) => (&u.characteristics, Some(&u.nulls_distinct)),
        _ => return Ok(()),
    };
    if characteristics
        .as_ref()
        .is_some_and(|c| c.deferrable == Some(true))
    {
        return Err(PgError::unsupported("a DEFERRABLE unique key"));
    }
    match nulls {
        Some(sqlparser::ast::NullsDistinctOption::NotDistinct) => {
            Err(PgError::unsupported("UNIQUE NULLS NOT DISTINCT"))
        }
        _ => Ok(()),
    }
}

/// The parts of CREATE TABLE the model has no table for: inheritance, partitioning, a
/// copied definition, ON COMMIT. Refused, never created as a plain table that answers
/// otherwise.
fn refuse_unmodelled(create: &CreateTable) -> PgResult<()> {
    let what = if create.inherits.is_some() {
        "INHERITS"
    } else if create.partition_by.is_some() {
        "PARTITION BY"
    } else if create.partition_of.is_some() {
        "PARTITION OF"
    } else if create.like.is_some() || create.clone.is_some() {
        "LIKE"
    } else if create.on_commit.is_some() {
        "ON COMMIT"
    } else {
        return Ok(());
    };
    Err(PgError::unsupported(format!("CREATE TABLE … {what}")))
}
