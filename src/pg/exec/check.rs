//! CHECK constraints: their definition (the condition typed against the table's columns,
//! the name PostgreSQL chooses when none is given), their check on each row an INSERT or
//! UPDATE writes, and their validation over the rows a table already holds. A condition
//! that is NULL passes, as in PostgreSQL: only `false` violates.
//!
//! The columns a condition names are found among its tokens (the model's syntax tree
//! has no visitor): a word that is a column's name and not a function's.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::sql::names::ident;
use crate::pg::sql::scope::Source;
use crate::pg::storage::heap::{Check, Table};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::Value;
use sqlparser::ast::{CheckConstraint, Expr};
use sqlparser::tokenizer::{Token, Tokenizer};

impl Exec<'_> {
    /// `constraint` as a CHECK of `table`: its condition must be a boolean over the
    /// table's columns, without a subquery; named as PostgreSQL names it when unnamed.
    pub(crate) fn check_definition(
        &mut self,
        table: &Table,
        constraint: &CheckConstraint,
    ) -> FlowResult<Check> {
        if constraint.enforced == Some(false) || constraint.no_inherit {
            return Err(
                PgError::unsupported("a CHECK constraint NOT ENFORCED or NO INHERIT").into(),
            );
        }
        let expr = (*constraint.expr).clone();
        if words(&expr)
            .iter()
            .any(|w| w.eq_ignore_ascii_case("select"))
        {
            return Err(PgError::unsupported("cannot use subquery in check constraint").into());
        }
        let ty = self.infer(&expr, &[source(table)], None)?;
        if ty != Type::Bool {
            return Err(PgError::new(
                DATATYPE_MISMATCH,
                format!(
                    "argument of CHECK must be type boolean, not type {}",
                    ty.name()
                ),
            )
            .into());
        }
        let name = match &constraint.name {
            Some(name) => ident(name),
            None => chosen_name(table, &expr),
        };
        if table.checks.iter().any(|c| c.name == name) {
            return Err(PgError::new(
                DUPLICATE_OBJECT,
                format!(
                    "constraint \"{name}\" for relation \"{}\" already exists",
                    table.name
                ),
            )
            .into());
        }
        Ok(Check { name, expr })
    }

    /// Each CHECK of `table` on `row` (a row of exactly its columns), in name order.
    pub(crate) fn check_constraints(&mut self, table: &str, row: &[Value]) -> FlowResult<()> {
        let t = self.db.table(table)?;
        if t.checks.is_empty() {
            return Ok(());
        }
        assert!(row.len() >= t.columns.len(), "a row of the table");
        let (checks, sources) = (t.checks.clone(), [source(t)]);
        for check in &checks {
            if self.violates(check, &row[..sources[0].columns.len()], &sources)? {
                return Err(PgError::new(
                    CHECK_VIOLATION,
                    format!(
                        "new row for relation \"{table}\" violates check constraint \"{}\"",
                        check.name
                    ),
                )
                .with_constraint(table, &check.name)
                .into());
            }
        }
        Ok(())
    }

    /// ALTER TABLE … ADD CONSTRAINT … CHECK: every row the table holds must pass it.
    pub(crate) fn validate_check(&mut self, table: &str, check: &Check) -> FlowResult<()> {
        let sources = [source(self.db.table(table)?)];
        for (_, row) in self.scan_latest(table)? {
            if self.violates(check, &row, &sources)? {
                return Err(PgError::new(
                    CHECK_VIOLATION,
                    format!(
                        "check constraint \"{}\" of relation \"{table}\" is violated by some row",
                        check.name
                    ),
                )
                .with_constraint(table, &check.name)
                .into());
            }
        }
        Ok(())
    }

    fn violates(&mut self, check: &Check, row: &[Value], sources: &[Source]) -> FlowResult<bool> {
        let frame = Frame {
            sources,
            values: row,
            parent: None,
            depth: self.nesting,
        };
        Ok(matches!(
            self.eval(&check.expr, &frame)?.v,
            Value::Bool(false)
        ))
    }
}

/// A table's columns as the one source a CHECK condition reads.
fn source(table: &Table) -> Source {
    Source {
        alias: table.name.clone(),
        columns: table
            .columns
            .iter()
            .map(|c| (c.name.clone(), c.ty))
            .collect(),
        offset: 0,
    }
}

/// PostgreSQL's name for an unnamed CHECK: `<table>_<column>_check` when the condition
/// names one column, else `<table>_check`; a number follows when the table has the name.
fn chosen_name(table: &Table, expr: &Expr) -> String {
    let columns = referenced_columns(table, expr);
    let stem = match columns.as_slice() {
        [one] => format!("{}_{}_check", table.name, table.columns[*one].name),
        _ => format!("{}_check", table.name),
    };
    let taken = |name: &str| {
        table.checks.iter().any(|c| c.name == name)
            || table.uniques.iter().any(|u| u.name == name)
            || table.foreign_keys.iter().any(|f| f.name == name)
    };
    (0..)
        .map(|n| match n {
            0 => stem.clone(),
            n => format!("{stem}{n}"),
        })
        .find(|name| !taken(name))
        .expect("some number is free")
}

/// The columns of `table` that `expr` names, each once, in column order.
pub(crate) fn referenced_columns(table: &Table, expr: &Expr) -> Vec<usize> {
    let words = words(expr);
    (0..table.columns.len())
        .filter(|at| words.contains(&table.columns[*at].name))
        .collect()
}

/// `expr`'s words that may name a column (identifiers folded as PostgreSQL folds them;
/// a word followed by `(` names a function and is left out).
fn words(expr: &Expr) -> Vec<String> {
    let text = expr.to_string();
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, &text)
        .tokenize()
        .unwrap_or_default();
    let significant: Vec<&Token> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    significant
        .iter()
        .enumerate()
        .filter_map(|(at, token)| match token {
            Token::Word(w) if significant.get(at + 1) != Some(&&Token::LParen) => Some(folded(w)),
            _ => None,
        })
        .collect()
}

/// `expr` with its column `from` named `to` (ALTER TABLE … RENAME COLUMN), re-read from
/// its tokens.
pub(crate) fn renamed(expr: &Expr, from: &str, to: &str) -> PgResult<Expr> {
    let text = expr.to_string();
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let mut tokens = Tokenizer::new(&dialect, &text)
        .tokenize()
        .map_err(|e| PgError::syntax(e.to_string()))?;
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|at| !matches!(tokens[*at], Token::Whitespace(_)))
        .collect();
    for (i, at) in significant.iter().enumerate() {
        let call = significant
            .get(i + 1)
            .is_some_and(|next| tokens[*next] == Token::LParen);
        let Token::Word(w) = &tokens[*at] else {
            continue;
        };
        if !call && folded(w) == from {
            tokens[*at] = Token::Word(sqlparser::tokenizer::Word {
                value: to.to_string(),
                quote_style: Some('"'),
                keyword: sqlparser::keywords::Keyword::NoKeyword,
            });
        }
    }
    sqlparser::parser::Parser::new(&dialect)
        .with_tokens(tokens)
        .parse_expr()
        .map_err(|e| PgError::syntax(e.to_string()))
}

/// A word as PostgreSQL folds an identifier: quoted, as written; else in lower case.
fn folded(w: &sqlparser::tokenizer::Word) -> String {
    match w.quote_style {
        Some(_) => w.value.clone(),
        None => w.value.to_lowercase(),
    }
}
