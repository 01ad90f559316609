//! ALTER TABLE … ADD CONSTRAINT (CHECK, UNIQUE, PRIMARY KEY, FOREIGN KEY), each checked
//! against the rows the table holds unless NOT VALID, and DROP CONSTRAINT (PostgreSQL
//! 18's named NOT NULL constraints, `<table>_<column>_not_null`, included).

use crate::pg::error::*;
use crate::pg::exec::alter::contains_nulls;
use crate::pg::exec::context::Exec;
use crate::pg::sql::names::table_name;
use crate::pg::storage::db::TableLockMode;
use sqlparser::ast::TableConstraint;

impl Exec<'_> {
    pub(crate) fn add_constraint(
        &mut self,
        table: &str,
        constraint: &TableConstraint,
        not_valid: bool,
    ) -> FlowResult<()> {
        let t = self.db.table(table)?.clone();
        match constraint {
            TableConstraint::Check(check) => {
                let check = self.check_definition(&t, check)?;
                if !not_valid {
                    self.validate_check(table, &check)?;
                }
                let t = self.db.table_mut(table)?;
                t.checks.push(check);
                t.checks.sort_by(|a, b| a.name.cmp(&b.name));
            }
            TableConstraint::Unique(_) | TableConstraint::PrimaryKey(_) => {
                self.add_key(table, constraint)?
            }
            TableConstraint::ForeignKey(fk) => {
                let parent = table_name(&fk.foreign_table)?;
                if parent != table {
                    self.lock_table(&parent, TableLockMode::ShareRowExclusive)?;
                }
                let mut altered = t;
                self.table_constraint(&mut altered, constraint)?;
                let added = altered.foreign_keys.last().cloned().expect("added above");
                self.refuse_taken_name(table, &added.name)?;
                self.db.table_mut(table)?.foreign_keys.push(added);
                if !not_valid {
                    for (tid, _) in self.scan_latest(table)? {
                        self.check_parents(table, tid)?;
                    }
                }
            }
            other => {
                return Err(PgError::unsupported(format!("ADD CONSTRAINT {other}")).into());
            }
        }
        Ok(())
    }

    /// ADD UNIQUE / PRIMARY KEY: the rows may not repeat the key (23505), nor hold NULL
    /// in a primary key's columns (23502, which become NOT NULL).
    fn add_key(&mut self, table: &str, constraint: &TableConstraint) -> FlowResult<()> {
        let mut altered = self.db.table(table)?.clone();
        self.table_constraint(&mut altered, constraint)?;
        let added = match constraint {
            TableConstraint::PrimaryKey(_) => altered.uniques[0].clone(),
            _ => altered.uniques.last().cloned().expect("added above"),
        };
        self.refuse_taken_name(table, &added.name)?;
        let keys = added.columns.iter().map(|c| altered.columns[*c].ty);
        crate::pg::exec::json_keys::refuse_json_index(keys, "btree")?;
        if added.primary {
            for c in &added.columns {
                if self.has_null(table, *c)? {
                    return Err(contains_nulls(&altered.columns[*c].name, table).into());
                }
            }
        }
        self.check_unique_build(table, &added.columns, &added.name)?;
        let t = self.db.table_mut(table)?;
        for c in added.columns.iter().filter(|_| added.primary) {
            t.columns[*c].not_null = true;
        }
        match added.primary {
            true => t.uniques.insert(0, added),
            false => t.uniques.push(added),
        }
        Ok(())
    }

    /// A constraint's name may not be another's of the table, nor (for a key, whose
    /// index is a relation) any relation's.
    fn refuse_taken_name(&self, table: &str, name: &str) -> PgResult<()> {
        let t = self.db.table(table)?;
        let constraint = t.checks.iter().any(|c| c.name == name)
            || t.uniques.iter().any(|u| u.name == name)
            || t.foreign_keys.iter().any(|f| f.name == name);
        if constraint {
            return Err(PgError::new(
                DUPLICATE_OBJECT,
                format!("constraint \"{name}\" for relation \"{table}\" already exists"),
            ));
        }
        let relation = self.db.tables.values().any(|t| {
            t.name == name
                || t.indexes.iter().any(|i| i.name == name)
                || t.uniques.iter().any(|u| u.name == name)
        });
        if relation {
            return Err(PgError::new(
                DUPLICATE_TABLE,
                format!("relation \"{name}\" already exists"),
            ));
        }
        Ok(())
    }

    pub(crate) fn drop_constraint(
        &mut self,
        table: &str,
        name: &str,
        if_exists: bool,
        cascade: bool,
    ) -> FlowResult<()> {
        let t = self.db.table(table)?;
        let not_null = t.columns.iter().position(|c| {
            c.not_null && !c.serial && format!("{table}_{}_not_null", c.name) == name
        });
        if let Some(at) = not_null {
            return Ok(self.drop_not_null(table, at)?);
        }
        let key = t.uniques.iter().position(|u| u.name == name);
        if let Some(at) = key {
            let columns = t.uniques[at].columns.clone();
            let referenced = self.db.tables.values().any(|c| {
                c.foreign_keys
                    .iter()
                    .any(|fk| fk.parent == table && fk.parent_columns == columns)
            });
            if referenced {
                return Err(match cascade {
                    true => PgError::unsupported("DROP CONSTRAINT … CASCADE of a referenced key"),
                    false => PgError::new(
                        DEPENDENT_OBJECTS_STILL_EXIST,
                        format!("cannot drop constraint {name} on table {table} because other objects depend on it"),
                    ),
                }
                .into());
            }
        }
        let t = self.db.table_mut(table)?;
        let before = t.checks.len() + t.uniques.len() + t.foreign_keys.len();
        t.checks.retain(|c| c.name != name);
        t.uniques.retain(|u| u.name != name);
        t.foreign_keys.retain(|f| f.name != name);
        let found = before != t.checks.len() + t.uniques.len() + t.foreign_keys.len();
        if !found && !if_exists {
            return Err(PgError::new(
                UNDEFINED_OBJECT,
                format!("constraint \"{name}\" of relation \"{table}\" does not exist"),
            )
            .into());
        }
        Ok(())
    }
}
