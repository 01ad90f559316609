//! ALTER TABLE … ALTER COLUMN: SET/DROP DEFAULT, SET/DROP NOT NULL (SET checked against
//! the rows the table holds), and SET DATA TYPE for the changes the model makes exactly
//! (a wider integer, `varchar(n)` to `text` or to another length, `text` to `varchar(n)`);
//! any other change of type, and USING, are refused.

use crate::pg::error::*;
use crate::pg::exec::alter::{contains_nulls, undefined_column};
use crate::pg::exec::context::Exec;
use crate::pg::sql::names::ident;
use crate::pg::types::cast::check_modifier;
use crate::pg::types::pg_type::Type;
use sqlparser::ast::{AlterColumnOperation, DataType, Ident};

impl Exec<'_> {
    pub(crate) fn alter_column(
        &mut self,
        table: &str,
        column: &Ident,
        op: &AlterColumnOperation,
    ) -> FlowResult<()> {
        let name = ident(column);
        let at = self
            .db
            .table(table)?
            .column(&name)
            .ok_or_else(|| undefined_column(&name, table))?;
        match op {
            AlterColumnOperation::SetDefault { value } => {
                self.db.table_mut(table)?.columns[at].default = Some(value.clone());
            }
            AlterColumnOperation::DropDefault => {
                let column = &mut self.db.table_mut(table)?.columns[at];
                (column.default, column.serial) = (None, false);
            }
            AlterColumnOperation::SetNotNull => {
                if self.has_null(table, at)? {
                    return Err(contains_nulls(&name, table).into());
                }
                self.db.table_mut(table)?.columns[at].not_null = true;
            }
            AlterColumnOperation::DropNotNull => self.drop_not_null(table, at)?,
            AlterColumnOperation::SetDataType {
                data_type,
                using: None,
                ..
            } => self.set_data_type(table, at, data_type)?,
            other => {
                return Err(PgError::unsupported(format!("ALTER COLUMN … {other}")).into());
            }
        }
        Ok(())
    }

    /// DROP NOT NULL; a primary key's column keeps it (42P16).
    pub(crate) fn drop_not_null(&mut self, table: &str, at: usize) -> PgResult<()> {
        let t = self.db.table_mut(table)?;
        if t.uniques
            .iter()
            .any(|u| u.primary && u.columns.contains(&at))
        {
            return Err(PgError::new(
                INVALID_TABLE_DEFINITION,
                format!("column \"{}\" is in a primary key", t.columns[at].name),
            ));
        }
        t.columns[at].not_null = false;
        Ok(())
    }

    /// SET DATA TYPE where every value stays as it is: the values are checked against
    /// the new length (22001, as PostgreSQL's rewrite fails); the rest refused.
    fn set_data_type(&mut self, table: &str, at: usize, data_type: &DataType) -> FlowResult<()> {
        let (to, modifier) = self.sql_type(data_type)?;
        let t = self.db.table(table)?;
        let from = t.columns[at].ty;
        let exact = matches!(
            (from, to),
            (Type::Int2, Type::Int2 | Type::Int4 | Type::Int8)
                | (Type::Int4, Type::Int4 | Type::Int8)
                | (Type::Int8, Type::Int8)
                | (Type::Varchar | Type::Text, Type::Varchar | Type::Text)
        );
        let keyed = t.foreign_keys.iter().any(|fk| fk.columns.contains(&at))
            || self.db.tables.values().any(|c| {
                c.foreign_keys
                    .iter()
                    .any(|fk| fk.parent == table && fk.parent_columns.contains(&at))
            });
        if !exact || keyed || t.indexes.iter().any(|i| !i.expressions.is_empty()) {
            return Err(PgError::unsupported(format!(
                "ALTER COLUMN … TYPE from {} to {}",
                from.name(),
                to.name()
            ))
            .into());
        }
        for (_, row) in self.scan_latest(table)? {
            check_modifier(&row[at], to, modifier)?;
        }
        let from_modifier = self.db.table(table)?.columns[at].modifier;
        if rewrites((from, from_modifier), (to, modifier)) {
            self.rewrite_heap(table)?;
        }
        let column = &mut self.db.table_mut(table)?.columns[at];
        (column.ty, column.modifier) = (to, modifier);
        Ok(())
    }
}

/// Whether PostgreSQL rewrites the table for a change of type: a wider integer, or a
/// length to check, does; a relabelling (to `text` or unlimited `varchar`, a longer
/// `varchar`) does not.
fn rewrites(from: (Type, Option<u32>), to: (Type, Option<u32>)) -> bool {
    let text = |t: Type| matches!(t, Type::Text | Type::Varchar);
    if text(from.0) && text(to.0) {
        return match (from.1, to.1) {
            (_, None) => false,
            (Some(was), Some(now)) => now < was || from.0 == Type::Text,
            (None, Some(_)) => true,
        };
    }
    from.0 != to.0
}
