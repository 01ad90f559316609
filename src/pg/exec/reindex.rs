//! REINDEX and DROP INDEX CONCURRENTLY, which arrive as DROPs marked by
//! `sql/maintenance.rs`. REINDEX builds an index again from the rows the table holds: a
//! vector index's structure anew, an invalid unique index (a failed CREATE INDEX
//! CONCURRENTLY's) valid again if the rows no longer repeat its key (23505 and still
//! invalid if they do); a btree index's entries are not modelled. REINDEX … CONCURRENTLY
//! passes invalid indexes by (a table's, as PostgreSQL's warning says) or refuses one
//! named (PostgreSQL would build a second invalid copy on failure).

use crate::pg::error::*;
use crate::pg::exec::context::Exec;
use crate::pg::sql::maintenance::{marked, Marked};
use crate::pg::sql::names::{object_name, table_name};
use crate::pg::storage::db::TableLockMode;
use crate::pg::storage::heap::Unique;
use sqlparser::ast::{ObjectName, ObjectType};

impl Exec<'_> {
    /// The statement a marked DROP stands for; its command tag.
    pub(crate) fn marked_drop(
        &mut self,
        object_type: &ObjectType,
        names: &[ObjectName],
        if_exists: bool,
        cascade: bool,
    ) -> FlowResult<&'static str> {
        let unmarked: Vec<(Marked, ObjectName)> = names.iter().filter_map(marked).collect();
        let [(how, name)] = unmarked.as_slice() else {
            return Err(PgError::unsupported(
                "DROP INDEX CONCURRENTLY does not support dropping multiple objects",
            )
            .into());
        };
        match (how, object_type) {
            (Marked::DropConcurrently, _) if cascade => {
                Err(PgError::unsupported("DROP INDEX CONCURRENTLY does not support CASCADE").into())
            }
            (Marked::DropConcurrently, _) => {
                self.drop_index(std::slice::from_ref(name), if_exists)?;
                Ok("DROP INDEX")
            }
            (Marked::Reindex { concurrently }, ObjectType::Index) => {
                let index = object_name(name).last().cloned().unwrap_or_default();
                self.reindex_index(&index, *concurrently)?;
                Ok("REINDEX")
            }
            (Marked::Reindex { concurrently }, _) => {
                self.reindex_table(&table_name(name)?, *concurrently)?;
                Ok("REINDEX")
            }
        }
    }

    fn reindex_index(&mut self, index: &str, concurrently: bool) -> FlowResult<()> {
        let owner = self.db.tables.values().find(|t| {
            t.indexes.iter().any(|i| i.name == index) || t.uniques.iter().any(|u| u.name == index)
        });
        let Some(table) = owner.map(|t| t.name.clone()) else {
            return Err(crate::pg::storage::db::undefined_table(index).into());
        };
        self.lock_table(&table, reindex_lock(concurrently))?;
        let invalid = self
            .db
            .table(&table)?
            .indexes
            .iter()
            .any(|i| i.name == index && !i.valid);
        if invalid && concurrently {
            return Err(PgError::unsupported("REINDEX CONCURRENTLY of an invalid index").into());
        }
        Ok(self.rebuild(&table, index)?)
    }

    fn reindex_table(&mut self, table: &str, concurrently: bool) -> FlowResult<()> {
        self.db.table(table)?;
        self.lock_table(table, reindex_lock(concurrently))?;
        let indexes: Vec<String> = self
            .db
            .table(table)?
            .indexes
            .iter()
            .filter(|i| i.valid || !concurrently)
            .map(|i| i.name.clone())
            .collect();
        for index in indexes {
            self.rebuild(table, &index)?;
        }
        Ok(())
    }

    /// Index `index` of `table` built again; an invalid unique one made valid.
    fn rebuild(&mut self, table: &str, index: &str) -> PgResult<()> {
        let t = self.db.table(table)?;
        let Some(def) = t.indexes.iter().find(|i| i.name == index).cloned() else {
            // A constraint's own index: its entries are the constraint's, unchanged.
            return Ok(());
        };
        if !def.valid {
            assert!(def.unique, "only a unique build leaves an index invalid");
            self.check_unique_build(table, &def.columns, index)?;
            let t = self.db.table_mut(table)?;
            t.uniques.push(Unique {
                name: def.name.clone(),
                columns: def.columns.clone(),
                primary: false,
            });
            let at = t.indexes.iter().position(|i| i.name == index);
            t.indexes[at.expect("found above")].valid = true;
        }
        self.rebuild_vector_indexes(table, Some(index))
    }
}

/// REINDEX takes SHARE on the table (writers wait), CONCURRENTLY SHARE UPDATE EXCLUSIVE.
fn reindex_lock(concurrently: bool) -> TableLockMode {
    match concurrently {
        true => TableLockMode::ShareUpdateExclusive,
        false => TableLockMode::Share,
    }
}
