//! One statement of the subset, dispatched: run ([`Exec::statement`]) or described
//! ([`Exec::describe`]: its parameters' and result columns' types, nothing run).

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Outcome};
use crate::pg::sql::maintenance::marked;
use crate::pg::sql::names::{ident, object_name};
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use sqlparser::ast::{ObjectType, OnConflictAction, OnInsert, SelectItem, SetExpr, Statement};

impl Exec<'_> {
    pub(crate) fn statement(&mut self, statement: &Statement) -> FlowResult<Outcome> {
        let tag = |tag: &str| {
            Ok(Outcome {
                rows: None,
                tag: tag.to_string(),
                warning: None,
            })
        };
        self.wait_for_schema_changes(statement)?;
        // What PostgreSQL raises while it parses and plans, before any row is read:
        // parse analysis's errors first, then the literal casts and constant folding.
        crate::pg::exec::dml::refuse_default_marker(statement)?;
        self.check_analysis(statement)?;
        self.check_constants(statement)?;
        match statement {
            Statement::Query(query) if crate::pg::exec::dml_cte::writes(&query.body).is_some() => {
                self.with_dml(query)
            }
            Statement::Query(query) => {
                let rows = self.query(query, None)?;
                let tag = format!("SELECT {}", rows.rows.len());
                Ok(Outcome {
                    rows: Some(rows),
                    tag,
                    warning: None,
                })
            }
            Statement::Insert(insert) => {
                let written = self.insert(insert)?;
                Ok(Outcome {
                    tag: format!("INSERT 0 {}", written.count),
                    rows: written.returning,
                    warning: None,
                })
            }
            Statement::Update(update) => {
                let written = self.update(update)?;
                Ok(Outcome {
                    tag: format!("UPDATE {}", written.count),
                    rows: written.returning,
                    warning: None,
                })
            }
            Statement::Delete(delete) => {
                let written = self.delete(delete)?;
                Ok(Outcome {
                    tag: format!("DELETE {}", written.count),
                    rows: written.returning,
                    warning: None,
                })
            }
            Statement::CreateTable(create) if create.query.is_some() => {
                let query = create.query.as_deref().expect("checked");
                let count = self.create_table_as(create, query)?;
                Ok(Outcome {
                    tag: count.map_or("CREATE TABLE AS".into(), |n| format!("SELECT {n}")),
                    rows: None,
                    warning: None,
                })
            }
            Statement::CreateTable(create) => self
                .create_table(create)
                .map_or_else(Err, |_| tag("CREATE TABLE")),
            Statement::CreateIndex(create) => self
                .create_index(create)
                .map_or_else(Err, |_| tag("CREATE INDEX")),
            Statement::CreateExtension(create) => self
                .create_extension(&create.name, create.if_not_exists)
                .map_or_else(|e| Err(e.into()), |_| tag("CREATE EXTENSION")),
            Statement::Drop {
                object_type,
                if_exists,
                names,
                cascade,
                ..
            } if names.first().and_then(marked).is_some() => self
                .marked_drop(object_type, names, *if_exists, *cascade)
                .map_or_else(Err, tag),
            Statement::Drop {
                object_type: ObjectType::Table,
                if_exists,
                names,
                cascade,
                ..
            } => self
                .drop_table(names, *if_exists, *cascade)
                .map_or_else(Err, |_| tag("DROP TABLE")),
            Statement::Drop {
                object_type: ObjectType::Index,
                if_exists,
                names,
                ..
            } => self
                .drop_index(names, *if_exists)
                .map_or_else(Err, |_| tag("DROP INDEX")),
            Statement::AlterTable(alter) => self
                .alter_table(alter)
                .map_or_else(Err, |_| tag("ALTER TABLE")),
            Statement::Truncate(truncate) => self
                .truncate(truncate)
                .map_or_else(Err, |_| tag("TRUNCATE TABLE")),
            Statement::Vacuum(vacuum) => self.vacuum(vacuum).map_or_else(Err, |_| tag("VACUUM")),
            Statement::Analyze(analyze) => {
                self.analyze(analyze).map_or_else(Err, |_| tag("ANALYZE"))
            }
            Statement::Lock(lock) => self
                .lock_tables(lock)
                .map_or_else(Err, |_| tag("LOCK TABLE")),
            other => {
                Err(PgError::unsupported(format!("the statement `{}`", first_words(other))).into())
            }
        }
    }

    /// The types of `statement`'s parameters (as far as its text fixes them) and of
    /// the rows it returns (`None`: it returns none).
    pub(crate) fn describe(
        &mut self,
        statement: &Statement,
    ) -> FlowResult<Option<Vec<(String, Type)>>> {
        crate::pg::exec::dml::refuse_default_marker(statement)?;
        match statement {
            Statement::Query(query) => match crate::pg::exec::dml_cte::statement_of(&query.body) {
                Some(inner) => self.with_ctes(query, Some(&Frame::EMPTY), true, |exec| {
                    exec.describe(inner)
                }),
                None => Ok(Some(self.describe_query(query, &Frame::EMPTY)?)),
            },
            Statement::Insert(insert) => self.describe_insert(insert),
            Statement::Update(update) => {
                let (table, alias) = crate::pg::exec::dml::target(&update.table.relation)?;
                let mut sources = vec![self.describe_source(&table, alias)?];
                if let Some(sqlparser::ast::UpdateTableFromKind::AfterSet(items)) = &update.from {
                    self.describe_joined(&mut sources, items)?;
                }
                self.describe_assignments(&table, &update.assignments, &sources)?;
                if let Some(e) = &update.selection {
                    self.infer_condition(e, "WHERE", &sources, None)?;
                }
                self.describe_returning(update.returning.as_deref(), &sources)
            }
            Statement::Delete(delete) => {
                let from = match &delete.from {
                    sqlparser::ast::FromTable::WithFromKeyword(f)
                    | sqlparser::ast::FromTable::WithoutKeyword(f) => f,
                };
                let Some(item) = from.first() else {
                    return Ok(None);
                };
                let (table, alias) = crate::pg::exec::dml::target(&item.relation)?;
                let mut sources = vec![self.describe_source(&table, alias)?];
                if let Some(items) = &delete.using {
                    self.describe_joined(&mut sources, items)?;
                }
                if let Some(e) = &delete.selection {
                    self.infer_condition(e, "WHERE", &sources, None)?;
                }
                self.describe_returning(delete.returning.as_deref(), &sources)
            }
            Statement::ShowVariable { variable } => {
                let name = variable.iter().map(ident).collect::<Vec<_>>().join(".");
                Ok(Some(vec![(name, Type::Text)]))
            }
            _ => Ok(None),
        }
    }

    /// UPDATE … FROM's and DELETE … USING's items, after the target's source.
    fn describe_joined(
        &mut self,
        sources: &mut Vec<Source>,
        items: &[sqlparser::ast::TableWithJoins],
    ) -> FlowResult<()> {
        let width: usize = sources.iter().map(|s| s.columns.len()).sum();
        for mut source in self.describe_from(items, &Frame::EMPTY)? {
            crate::pg::exec::query::check_alias(sources, &source)?;
            source.offset += width;
            sources.push(source);
        }
        Ok(())
    }

    fn describe_source(&self, table: &str, alias: Option<String>) -> PgResult<Source> {
        let t = self.db.table(table)?;
        let columns = t.columns.iter().map(|c| (c.name.clone(), c.ty)).collect();
        Ok(Source {
            alias: alias.unwrap_or_else(|| table.to_string()),
            columns,
            offset: 0,
        })
    }

    fn describe_insert(
        &mut self,
        insert: &sqlparser::ast::Insert,
    ) -> FlowResult<Option<Vec<(String, Type)>>> {
        let sqlparser::ast::TableObject::TableName(name) = &insert.table else {
            return Err(PgError::unsupported("INSERT into a function").into());
        };
        let table = crate::pg::sql::names::table_name(name)?;
        let alias = insert.table_alias.as_ref().map(|a| ident(&a.alias));
        let sources = vec![self.describe_source(&table, alias)?];
        let t = self.db.table(&table)?;
        let types: Vec<Type> = match insert.columns.is_empty() {
            true => t.columns.iter().map(|c| c.ty).collect(),
            false => insert
                .columns
                .iter()
                .map(|n| {
                    let name = object_name(n).last().cloned().unwrap_or_default();
                    t.column(&name).map(|at| t.columns[at].ty).ok_or_else(|| {
                        PgError::new(
                            UNDEFINED_COLUMN,
                            format!("column \"{name}\" of relation \"{table}\" does not exist"),
                        )
                    })
                })
                .collect::<PgResult<_>>()?,
        };
        match insert.source.as_deref().map(|q| &*q.body) {
            Some(SetExpr::Values(values)) => {
                for row in &values.rows {
                    for (e, t) in row.content.iter().zip(&types) {
                        self.infer_as(e, *t, &[], None)?;
                    }
                }
            }
            Some(_) => {
                self.describe_query(insert.source.as_ref().expect("some"), &Frame::EMPTY)?;
            }
            None => {}
        }
        if let Some(OnInsert::OnConflict(conflict)) = &insert.on {
            if let OnConflictAction::DoUpdate(action) = &conflict.action {
                let mut both = sources.clone();
                let width = sources[0].columns.len();
                both.push(Source {
                    alias: "excluded".into(),
                    columns: sources[0].columns.clone(),
                    offset: width,
                });
                self.describe_assignments(&table, &action.assignments, &both)?;
                if let Some(e) = &action.selection {
                    self.infer_condition(e, "WHERE", &both, None)?;
                }
            }
        }
        self.describe_returning(insert.returning.as_deref(), &sources)
    }

    fn describe_assignments(
        &mut self,
        table: &str,
        assignments: &[sqlparser::ast::Assignment],
        sources: &[Source],
    ) -> FlowResult<()> {
        for assignment in assignments {
            let sqlparser::ast::AssignmentTarget::ColumnName(name) = &assignment.target else {
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
            let ty = t.columns[at].ty;
            self.infer_as(&assignment.value, ty, sources, None)?;
        }
        Ok(())
    }

    fn describe_returning(
        &mut self,
        returning: Option<&[SelectItem]>,
        sources: &[Source],
    ) -> FlowResult<Option<Vec<(String, Type)>>> {
        match returning {
            None => Ok(None),
            Some(items) => Ok(Some(self.output_columns(items, sources, None)?)),
        }
    }
}

/// The first words of a statement, for an error naming what is not supported.
fn first_words(statement: &Statement) -> String {
    statement
        .to_string()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}
