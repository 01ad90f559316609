//! A query string parsed as PostgreSQL's dialect ([`parse`]), bounded in bytes and
//! nesting, its syntax errors in PostgreSQL's class; the highest `$n` it names.

use crate::pg::error::{self, PgError, PgResult};
use sqlparser::ast::Statement;
use std::sync::Arc;

/// Bytes of SQL one statement string may have.
const SQL_BYTES_MAX: usize = 1 << 20;

/// Parameters one statement may have (PostgreSQL's protocol limit).
pub(crate) const PARAMS_MAX: usize = 65_535;

/// A query string's statements, shared by every connection that sends it.
pub(crate) type Parsed = Arc<ParsedSql>;

/// What parsing a query string gives.
pub(crate) struct ParsedSql {
    pub statements: Vec<Arc<Statement>>,
    /// The highest `$n` the string names.
    pub placeholders: usize,
}

/// `sql` parsed as PostgreSQL's dialect, its syntax errors as PostgreSQL's class.
pub(crate) fn parse(sql: &str) -> PgResult<Vec<Statement>> {
    if sql.len() > SQL_BYTES_MAX {
        return Err(PgError::new(
            error::PROGRAM_LIMIT_EXCEEDED,
            "statement longer than the model accepts",
        ));
    }
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    sqlparser::parser::Parser::new(&dialect)
        .with_recursion_limit(64)
        .try_with_sql(sql)
        .and_then(|mut parser| parser.parse_statements())
        .map_err(|e| PgError::syntax(format!("syntax error: {e}")))
}

/// The highest `$n` in `sql`, outside strings, quoted names and comments.
pub(crate) fn placeholders(sql: &str) -> usize {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let Ok(tokens) = sqlparser::tokenizer::Tokenizer::new(&dialect, sql).tokenize() else {
        return 0;
    };
    tokens
        .iter()
        .filter_map(|t| match t {
            sqlparser::tokenizer::Token::Placeholder(p) => {
                p.strip_prefix('$')?.parse::<usize>().ok()
            }
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .min(crate::pg::sql::parse::PARAMS_MAX)
}
