//! `CREATE TABLE name [(column, …)] AS query`: a table of the query's columns and types,
//! holding its rows, what migrations and backfills write (copy a table before reshaping
//! it, snapshot a filtered set).
//!
//! The table is made by CREATE TABLE's own path from a definition of the result's
//! columns (so rollback, limits and the catalog treat it as any other), then the rows go
//! in as new versions of the statement's transaction. As in PostgreSQL: the tag is
//! `SELECT n` (`CREATE TABLE AS` when IF NOT EXISTS skips); an untyped (`unknown`) column becomes `text`; a column list renames the
//! first columns and may not be longer than the query's; the table has no constraints,
//! defaults or indexes. The columns keep no type modifier (PostgreSQL keeps a plain
//! column's, `vector(3)` among them): the model's result rows carry none.

use crate::pg::error::*;
use crate::pg::exec::context::Exec;
use crate::pg::sql::names::{ident, table_name};
use crate::pg::types::pg_type::Type;
use sqlparser::ast::{CreateTable, DataType, Query, Statement};

impl Exec<'_> {
    /// Runs `CREATE TABLE … AS query`; the rows written, `None` when IF NOT EXISTS found
    /// the table (PostgreSQL's tag is then `CREATE TABLE AS`).
    pub(crate) fn create_table_as(
        &mut self,
        create: &CreateTable,
        query: &Query,
    ) -> FlowResult<Option<usize>> {
        let name = table_name(&create.name)?;
        if self.db.tables.contains_key(&name) && create.if_not_exists {
            return Ok(None);
        }
        let result = self.query(query, None)?;
        let mut columns = result.columns.clone();
        if create.columns.len() > columns.len() {
            return Err(PgError::syntax("too many column names were specified").into());
        }
        for (column, named) in columns.iter_mut().zip(&create.columns) {
            if named.data_type != DataType::Unspecified || !named.options.is_empty() {
                return Err(PgError::syntax(format!(
                    "syntax error at or near \"{}\"",
                    named.data_type
                ))
                .into());
            }
            column.0 = ident(&named.name);
        }
        let definition = definition(create, &columns)?;
        self.create_table(&definition)?;
        let count = result.rows.len();
        for row in result.rows {
            self.work += 1;
            self.tick()?;
            let tid = self.insert_version(&name, row)?;
            self.index_insert(&name, tid)?;
        }
        Ok(Some(count))
    }
}

/// The plain CREATE TABLE of `columns`, under `create`'s name and options.
fn definition(create: &CreateTable, columns: &[(String, Type)]) -> PgResult<CreateTable> {
    let list: Vec<String> = columns
        .iter()
        .map(|(name, ty)| {
            let ty = if *ty == Type::Unknown {
                Type::Text
            } else {
                *ty
            };
            format!("\"{}\" {}", name.replace('"', "\"\""), ty.name())
        })
        .collect();
    let sql = format!("CREATE TABLE x ({})", list.join(", "));
    let mut statements = crate::pg::sql::parse::parse(&sql)?;
    let Some(Statement::CreateTable(mut definition)) = statements.pop() else {
        unreachable!("a CREATE TABLE parses as one");
    };
    definition.name = create.name.clone();
    definition.if_not_exists = create.if_not_exists;
    definition.temporary = create.temporary;
    Ok(definition)
}
