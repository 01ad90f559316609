//! TRUNCATE: each table named (and, with CASCADE, every table referencing one) under
//! ACCESS EXCLUSIVE, emptied at once: the heap replaced, as PostgreSQL gives the table a
//! new file, so a snapshot taken before sees it empty too (TRUNCATE is not MVCC-safe),
//! and the table kept first so that a rollback brings its rows back. RESTART IDENTITY
//! restarts the serial columns' sequence, rolled back with the rest.

use crate::pg::error::*;
use crate::pg::exec::context::Exec;
use crate::pg::sql::names::table_name;
use crate::pg::storage::db::TableLockMode;
use sqlparser::ast::{CascadeOption, Truncate, TruncateIdentityOption};

impl Exec<'_> {
    pub(crate) fn truncate(&mut self, truncate: &Truncate) -> FlowResult<()> {
        if truncate.if_exists || truncate.partitions.is_some() || truncate.on_cluster.is_some() {
            return Err(PgError::syntax("syntax error at or near \"TRUNCATE\"").into());
        }
        let mut tables: Vec<String> = Vec::new();
        for target in &truncate.table_names {
            let name = table_name(&target.name)?;
            self.db.table(&name)?;
            if !tables.contains(&name) {
                tables.push(name);
            }
        }
        for name in &tables {
            self.lock_table(name, TableLockMode::AccessExclusive)?;
        }
        match truncate.cascade {
            Some(CascadeOption::Cascade) => self.cascade_truncate(&mut tables)?,
            _ => self.refuse_referenced(&tables)?,
        }
        let restart = matches!(truncate.identity, Some(TruncateIdentityOption::Restart));
        for name in &tables {
            self.empty_table(name, restart)?;
        }
        Ok(())
    }

    /// CASCADE: the tables referencing any in `tables`, to the end of the chain, join
    /// them (locked as they join).
    fn cascade_truncate(&mut self, tables: &mut Vec<String>) -> FlowResult<()> {
        let mut at = 0;
        while at < tables.len() {
            let children: Vec<String> = self
                .db
                .tables
                .values()
                .filter(|c| c.foreign_keys.iter().any(|fk| fk.parent == tables[at]))
                .map(|c| c.name.clone())
                .filter(|c| !tables.contains(c))
                .collect();
            for child in children {
                self.lock_table(&child, TableLockMode::AccessExclusive)?;
                tables.push(child);
            }
            at += 1;
        }
        Ok(())
    }

    /// Without CASCADE, a table another table (not truncated with it) references fails.
    fn refuse_referenced(&self, tables: &[String]) -> PgResult<()> {
        for child in self.db.tables.values() {
            let parent = child
                .foreign_keys
                .iter()
                .find(|fk| tables.contains(&fk.parent) && !tables.contains(&child.name));
            if let Some(fk) = parent {
                return Err(PgError::new(
                    FEATURE_NOT_SUPPORTED,
                    "cannot truncate a table referenced in a foreign key constraint",
                )
                .with_detail(format!(
                    "Table \"{}\" references \"{}\".",
                    child.name, fk.parent
                )));
            }
        }
        Ok(())
    }

    /// `table` with no row, its vector indexes rebuilt empty.
    fn empty_table(&mut self, table: &str, restart: bool) -> PgResult<()> {
        let undo = self.db.keep_schema(self.xid, table).expect("locked above");
        self.undo.push(undo);
        let t = self.db.table_mut(table)?;
        t.heap.clear();
        if restart {
            t.sequence = 0;
        }
        self.rebuild_vector_indexes(table, None)
    }
}
