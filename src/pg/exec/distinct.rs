//! `SELECT DISTINCT` and `SELECT DISTINCT ON (…)`, done as PostgreSQL's sort-based plan
//! does them: sort (by ORDER BY, then by the rest of the distinct keys), then keep the
//! first row of each run of equal keys. Two NULLs count as equal. The sort is stable,
//! so among rows equal on every sort key the first in heap order is kept; PostgreSQL's
//! choice there is arbitrary, so such a query has no single right answer to compare.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Projected};
use crate::pg::sql::names::ident;
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{not_distinct, sort_order, Value};
use sqlparser::ast::{Distinct, Expr, OrderByExpr, OrderByKind, Query, Select, SelectItem};

/// Where a sort key's value comes from.
#[derive(Clone, Copy)]
enum At<'q> {
    Expr(&'q Expr),
    /// An output column, by position.
    Output(usize),
}

/// A sort key: its value, what it names (to match DISTINCT ON to ORDER BY) and its
/// direction (descending, nulls first).
struct Key<'q> {
    at: At<'q>,
    identity: Identity,
    direction: (bool, bool),
}

#[derive(Clone, PartialEq)]
enum Identity {
    Output(usize),
    Text(String),
}

impl Exec<'_> {
    /// The DISTINCT rows of `rows` (output values with their input row), in order.
    pub(crate) fn distinct_rows(
        &mut self,
        select: &Select,
        query: &Query,
        Projected { rows, states }: Projected,
        columns: &[(String, Type)],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Vec<Value>>> {
        let order_by = order_keys(query, select, columns, sources)?;
        let (sort, distinct_len) = match &select.distinct {
            Some(Distinct::On(on)) => on_keys(select, columns, sources, on, order_by)?,
            _ => all_keys(columns, order_by)?,
        };
        let directions: Vec<(bool, bool)> = sort.iter().map(|k| k.direction).collect();
        let mut keyed = Vec::with_capacity(rows.len());
        for (at, (out, row)) in rows.into_iter().enumerate() {
            if let Some(state) = states.get(at) {
                self.restore(state);
            }
            let mut values = Vec::with_capacity(sort.len());
            for key in &sort {
                self.tick()?;
                values.push(match key.at {
                    At::Output(i) => out[i].clone(),
                    At::Expr(e) => self.sort_key(e, &out, &row, columns, sources, parent)?,
                });
            }
            keyed.push((values, out));
        }
        keyed.sort_by(|(a, _), (b, _)| sort_order(a, b, &directions));
        let mut kept: Vec<(Vec<Value>, Vec<Value>)> = Vec::with_capacity(keyed.len());
        for (values, out) in keyed {
            let same = kept
                .last()
                .is_some_and(|(last, last_out)| match distinct_len {
                    Some(n) => not_distinct(&last[..n], &values[..n]),
                    None => not_distinct(last_out, &out),
                });
            if !same {
                kept.push((values, out));
            }
        }
        Ok(kept.into_iter().map(|(_, out)| out).collect())
    }
}

fn order_keys<'q>(
    query: &'q Query,
    select: &Select,
    columns: &[(String, Type)],
    sources: &[Source],
) -> PgResult<Vec<Key<'q>>> {
    let Some(order_by) = &query.order_by else {
        return Ok(Vec::new());
    };
    let OrderByKind::Expressions(keys) = &order_by.kind else {
        return Err(PgError::unsupported("ORDER BY ALL"));
    };
    Ok(keys
        .iter()
        .map(|k| order_key(select, columns, sources, k))
        .collect())
}

fn order_key<'q>(
    select: &Select,
    columns: &[(String, Type)],
    sources: &[Source],
    k: &'q OrderByExpr,
) -> Key<'q> {
    let descending = matches!(k.options.sort, Some(sqlparser::ast::OrderBySort::Desc));
    Key {
        at: At::Expr(&k.expr),
        identity: identity(select, columns, sources, &k.expr),
        direction: (descending, k.options.nulls_first.unwrap_or(descending)),
    }
}

/// What a key names: an output column when it is an ordinal, an output name, an output
/// expression repeated or a column reference an output item makes too (`t.id` and `id`
/// name one column, as PostgreSQL compares them once resolved); else its own text.
fn identity(select: &Select, columns: &[(String, Type)], sources: &[Source], e: &Expr) -> Identity {
    match e {
        Expr::Value(v) => {
            if let sqlparser::ast::Value::Number(n, _) = &v.value {
                if let Ok(at) = n.parse::<usize>() {
                    return Identity::Output(at.wrapping_sub(1));
                }
            }
        }
        Expr::Identifier(i) => {
            let name = ident(i);
            let mut named = columns.iter().enumerate().filter(|(_, (n, _))| *n == name);
            if let (Some((at, _)), None) = (named.next(), named.next()) {
                return Identity::Output(at);
            }
        }
        _ => {}
    }
    // An expression repeated from the select list (whose items are then one column each).
    let plain = select.projection.iter().all(|item| {
        matches!(
            item,
            SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }
        )
    });
    let column = crate::pg::sql::scope::column_at(sources, e);
    let repeated = select.projection.iter().position(|item| {
        matches!(item, SelectItem::UnnamedExpr(x) | SelectItem::ExprWithAlias { expr: x, .. }
            if x == e || column.is_some() && crate::pg::sql::scope::column_at(sources, x) == column)
    });
    match (plain, repeated) {
        (true, Some(at)) => Identity::Output(at),
        _ => Identity::Text(e.to_string()),
    }
}

/// DISTINCT ON's sort: the ORDER BY keys that are ON keys (which must lead ORDER BY),
/// the ON keys ORDER BY leaves out, then the rest of ORDER BY. The ON keys, the sort's
/// first ones, decide which rows are duplicates.
fn on_keys<'q>(
    select: &Select,
    columns: &[(String, Type)],
    sources: &[Source],
    on: &'q [Expr],
    order_by: Vec<Key<'q>>,
) -> PgResult<(Vec<Key<'q>>, Option<usize>)> {
    let on: Vec<Key<'q>> = on
        .iter()
        .map(|e| Key {
            at: At::Expr(e),
            identity: identity(select, columns, sources, e),
            direction: (false, false),
        })
        .collect();
    let mismatch = || {
        PgError::new(
            INVALID_COLUMN_REFERENCE,
            "SELECT DISTINCT ON expressions must match initial ORDER BY expressions",
        )
    };
    let is_on = |k: &Key<'_>| on.iter().any(|o| o.identity == k.identity);
    let lead = order_by.iter().take_while(|k| is_on(k)).count();
    if order_by[lead..].iter().any(is_on) {
        return Err(mismatch());
    }
    let mut order_by = order_by.into_iter();
    let mut sort: Vec<Key<'q>> = order_by.by_ref().take(lead).collect();
    let missing: Vec<Key<'q>> = on
        .into_iter()
        .filter(|o| !sort.iter().any(|k| k.identity == o.identity))
        .collect();
    let rest: Vec<Key<'q>> = order_by.collect();
    if !missing.is_empty() && !rest.is_empty() {
        return Err(mismatch());
    }
    sort.extend(missing);
    let distinct_len = sort.len();
    sort.extend(rest);
    Ok((sort, Some(distinct_len)))
}

/// Plain DISTINCT's sort: ORDER BY (whose keys must be output columns), then every output
/// column; whole output rows decide duplicates.
fn all_keys<'q>(
    columns: &[(String, Type)],
    order_by: Vec<Key<'q>>,
) -> PgResult<(Vec<Key<'q>>, Option<usize>)> {
    if order_by
        .iter()
        .any(|k| !matches!(k.identity, Identity::Output(_)))
    {
        return Err(PgError::new(
            INVALID_COLUMN_REFERENCE,
            "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
        ));
    }
    let mut sort = order_by;
    sort.extend((0..columns.len()).map(|i| Key {
        at: At::Output(i),
        identity: Identity::Output(i),
        direction: (false, false),
    }));
    Ok((sort, None))
}
