//! VACUUM and ANALYZE, accepted and doing nothing the model can observe (it keeps no
//! statistics, and its vacuum runs whenever no transaction is open): each names tables
//! that must exist and takes the lock PostgreSQL's takes on them (SHARE UPDATE
//! EXCLUSIVE; ACCESS EXCLUSIVE for VACUUM FULL). VACUUM outside a transaction block is
//! `session.rs`'s to refuse.

use crate::pg::error::*;
use crate::pg::exec::context::Exec;
use crate::pg::sql::names::table_name;
use crate::pg::storage::db::TableLockMode;
use sqlparser::ast::{Analyze, ObjectName, VacuumStatement};

impl Exec<'_> {
    pub(crate) fn vacuum(&mut self, vacuum: &VacuumStatement) -> FlowResult<()> {
        // The other words are Redshift's: PostgreSQL's grammar has none of them.
        if vacuum.sort_only
            || vacuum.delete_only
            || vacuum.reindex
            || vacuum.recluster
            || vacuum.threshold.is_some()
            || vacuum.boost
        {
            return Err(PgError::syntax("syntax error at or near \"VACUUM\"").into());
        }
        let mode = match vacuum.full {
            true => TableLockMode::AccessExclusive,
            false => TableLockMode::ShareUpdateExclusive,
        };
        self.maintain(vacuum.table_name.as_ref(), mode)
    }

    pub(crate) fn analyze(&mut self, analyze: &Analyze) -> FlowResult<()> {
        if analyze.partitions.is_some()
            || analyze.for_columns
            || analyze.cache_metadata
            || analyze.noscan
            || analyze.compute_statistics
            || analyze.has_table_keyword
        {
            return Err(PgError::syntax("syntax error at or near \"ANALYZE\"").into());
        }
        if !analyze.columns.is_empty() {
            return Err(PgError::unsupported("ANALYZE of named columns").into());
        }
        self.maintain(
            analyze.table_name.as_ref(),
            TableLockMode::ShareUpdateExclusive,
        )
    }

    /// The table named (every table when none), locked in `mode`.
    fn maintain(&mut self, table: Option<&ObjectName>, mode: TableLockMode) -> FlowResult<()> {
        let tables: Vec<String> = match table {
            Some(name) => {
                let name = table_name(name)?;
                self.db.table(&name)?;
                vec![name]
            }
            None => self.db.tables.keys().cloned().collect(),
        };
        for table in &tables {
            self.lock_table(table, mode)?;
        }
        Ok(())
    }
}
