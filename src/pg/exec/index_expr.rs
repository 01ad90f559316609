//! Indexes on expressions (`CREATE INDEX … USING gin (to_tsvector('simple', doc->>'t'))`,
//! a btree on `lower(name)`): PostgreSQL's checks made (the columns exist, every function
//! is immutable, 42P17 otherwise; the type has an operator class for the method), then
//! the index is kept by name. The model plans no query with one, so it changes no
//! result: it is there for `CREATE INDEX` and `DROP INDEX` to behave.

use crate::pg::error::{Flow, PgError, PgResult, UNDEFINED_OBJECT};
use crate::pg::exec::context::Exec;
use crate::pg::sql::names::object_name;
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use sqlparser::ast::{Expr, FunctionArguments};

/// 42P17 invalid_object_definition.
const INVALID_OBJECT_DEFINITION: &str = "42P17";
/// How deep an index expression may nest.
const DEPTH_MAX: usize = 64;

fn not_immutable() -> PgError {
    PgError::new(
        INVALID_OBJECT_DEFINITION,
        "functions in index expression must be marked IMMUTABLE",
    )
}

/// Whether `name` with `count` arguments is immutable (`Some(true)`), stable or volatile
/// (`Some(false)`), or a function the model does not classify (`None`).
fn immutable(name: &str, count: usize) -> Option<bool> {
    match (name, count) {
        ("to_tsvector" | "plainto_tsquery" | "to_tsquery", 2) => Some(true),
        ("to_tsvector" | "plainto_tsquery" | "to_tsquery", 1) => Some(false),
        ("lower" | "upper" | "length" | "char_length" | "octet_length" | "abs" | "round", _) => {
            Some(true)
        }
        ("coalesce" | "nullif" | "jsonb_typeof" | "jsonb_array_length" | "md5", _) => Some(true),
        (
            "now"
            | "current_timestamp"
            | "transaction_timestamp"
            | "statement_timestamp"
            | "clock_timestamp"
            | "random"
            | "gen_random_uuid"
            | "uuidv4"
            | "current_setting"
            | "pg_backend_pid",
            _,
        ) => Some(false),
        _ => None,
    }
}

/// PostgreSQL's check that every function of `e` is immutable; what the model cannot
/// classify is refused (0A000) rather than guessed.
fn check_immutable(e: &Expr, depth: usize) -> PgResult<()> {
    if depth > DEPTH_MAX {
        return Err(PgError::unsupported("an index expression this deep"));
    }
    let next = |e: &Expr| check_immutable(e, depth + 1);
    match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_) => Ok(()),
        Expr::Nested(inner) | Expr::UnaryOp { expr: inner, .. } => next(inner),
        Expr::IsNull(inner) | Expr::IsNotNull(inner) => next(inner),
        Expr::BinaryOp { left, right, .. } => next(left).and_then(|_| next(right)),
        Expr::Cast {
            expr, data_type, ..
        } => {
            let (to, _) = crate::pg::types::regtype::sql_type(data_type)?;
            if matches!(
                to,
                Type::Timestamptz | Type::Timestamp | Type::Date | Type::Interval
            ) {
                return Err(PgError::unsupported(format!(
                    "a cast to {} in an index expression",
                    to.name()
                )));
            }
            next(expr)
        }
        Expr::Function(f) => {
            let name = object_name(&f.name).last().cloned().unwrap_or_default();
            let args: Vec<&Expr> = match &f.args {
                FunctionArguments::None => Vec::new(),
                FunctionArguments::List(list) => list
                    .args
                    .iter()
                    .map(|a| match a {
                        sqlparser::ast::FunctionArg::Unnamed(
                            sqlparser::ast::FunctionArgExpr::Expr(e),
                        ) => Ok(e),
                        other => Err(PgError::unsupported(format!(
                            "the argument {other} in an index expression"
                        ))),
                    })
                    .collect::<PgResult<_>>()?,
                FunctionArguments::Subquery(_) => {
                    return Err(PgError::new(
                        crate::pg::error::FEATURE_NOT_SUPPORTED,
                        "cannot use subquery in index expression",
                    ))
                }
            };
            match immutable(&name, args.len()) {
                Some(true) => args.into_iter().try_for_each(next),
                Some(false) => Err(not_immutable()),
                None => Err(PgError::unsupported(format!(
                    "the function {name} in an index expression"
                ))),
            }
        }
        other => Err(PgError::unsupported(format!(
            "the expression `{other}` in an index"
        ))),
    }
}

impl Exec<'_> {
    /// Check an index expression over `table` for `method`; its text, as kept.
    pub(crate) fn index_expression(
        &mut self,
        table: &str,
        e: &Expr,
        method: &str,
    ) -> PgResult<String> {
        let t = self.db.table(table)?;
        let source = Source {
            alias: table.to_string(),
            columns: t.columns.iter().map(|c| (c.name.clone(), c.ty)).collect(),
            offset: 0,
        };
        let ty = match self.infer(e, &[source], None) {
            Ok(ty) => ty,
            Err(Flow::Error(error)) => return Err(error),
            Err(_) => return Err(PgError::unsupported("this index expression")),
        };
        check_immutable(e, 0)?;
        let has_opclass = match method {
            "gin" => ty == Type::Tsvector,
            "btree" => !matches!(ty, Type::Vector | Type::Tsquery | Type::Unknown),
            _ => false,
        };
        if !has_opclass {
            return Err(PgError::new(
                UNDEFINED_OBJECT,
                format!(
                    "data type {} has no default operator class for access method \"{method}\"",
                    ty.name()
                ),
            ));
        }
        Ok(e.to_string())
    }
}
