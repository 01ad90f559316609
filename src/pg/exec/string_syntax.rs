//! The SQL standard's spellings of string functions, which sqlparser parses as their own
//! expressions: `SUBSTRING(s FROM i FOR n)` (PostgreSQL's `substring(text, int, int)`),
//! `TRIM([LEADING|TRAILING|BOTH] [chars] FROM s)` (`ltrim`/`rtrim`/`btrim`) and
//! `POSITION(a IN b)` (`strpos(b, a)`). Each is lowered to its function's name and
//! argument expressions, then evaluated, typed and folded as that call. `SUBSTRING`'s
//! regular-expression forms (a text `FROM`, `SIMILAR`) are refused (0A000).

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::Typed;
use sqlparser::ast::{Expr, TrimWhereField};

/// `e`'s function and arguments when it is one of the standard forms.
pub(crate) fn lowered(e: &Expr) -> Option<PgResult<(&'static str, Vec<&Expr>)>> {
    match e {
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            shorthand,
            ..
        } => Some(substring(
            expr,
            substring_from.as_deref(),
            substring_for.as_deref(),
            *shorthand,
        )),
        Expr::Trim {
            trim_characters: Some(_),
            ..
        } => Some(Err(PgError::unsupported("TRIM with a list of characters"))),
        Expr::Trim {
            trim_where,
            trim_what,
            expr,
            ..
        } => {
            let name = match trim_where {
                Some(TrimWhereField::Leading) => "ltrim",
                Some(TrimWhereField::Trailing) => "rtrim",
                Some(TrimWhereField::Both) | None => "btrim",
            };
            let mut args = vec![&**expr];
            args.extend(trim_what.as_deref());
            Some(Ok((name, args)))
        }
        Expr::Position { expr, r#in } => Some(Ok(("strpos", vec![&**r#in, &**expr]))),
        _ => None,
    }
}

/// The column PostgreSQL names after a standard form (`FigureColname`: the function its
/// grammar turns the form into; `position` is a function of that name).
pub(crate) fn column_name(e: &Expr) -> Option<&'static str> {
    match (e, lowered(e)) {
        (Expr::Position { .. }, _) => Some("position"),
        (_, Some(Ok((name, _)))) => Some(name),
        _ => None,
    }
}

fn substring<'e>(
    s: &'e Expr,
    from: Option<&'e Expr>,
    count: Option<&'e Expr>,
    shorthand: bool,
) -> PgResult<(&'static str, Vec<&'e Expr>)> {
    let name = if shorthand { "substr" } else { "substring" };
    match (from, count) {
        (Some(from), None) => Ok((name, vec![s, from])),
        (Some(from), Some(count)) => Ok((name, vec![s, from, count])),
        (None, _) => Err(PgError::unsupported("SUBSTRING without FROM")),
    }
}

impl Exec<'_> {
    /// A standard form's value: its function called on its evaluated arguments.
    /// `substring`'s untyped or text start position is its regular-expression form
    /// (`substr` has none), refused.
    pub(crate) fn standard_string_call(
        &mut self,
        name: &str,
        exprs: &[&Expr],
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        let mut args = Vec::with_capacity(exprs.len());
        for e in exprs {
            args.push(self.eval(e, frame)?);
        }
        if name == "substring" && matches!(args[1].t, Type::Unknown | Type::Text | Type::Varchar) {
            return Err(PgError::unsupported("SUBSTRING of a regular expression").into());
        }
        self.call(name, args)
    }
}
