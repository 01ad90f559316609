//! `WITH RECURSIVE`: a CTE of the form `non-recursive-term UNION [ALL] recursive-term`
//! that reads itself, run as PostgreSQL's RecursiveUnion runs it. The non-recursive term
//! fills the result and the working table; the recursive term then runs again and again
//! with the CTE's name bound to the working table (the rows of the last round only),
//! its new rows (under UNION, those not seen before) appended and becoming the next
//! working table, until a round adds none.
//!
//! PostgreSQL has no bound: a recursion that never ends runs until a statement timeout
//! (or forever). The simulator must not stall on hostile input, so the model stops a
//! recursion after [`RECURSION_ROUNDS_MAX`] rounds or [`RECURSION_ROWS_MAX`] rows and
//! refuses the statement (0A000: beyond what the model computes) — also where PostgreSQL
//! would stop early because the reading query's LIMIT needs only the first rows (the
//! model computes the whole CTE first). The statement's work bound applies as well.
//!
//! The recursive term is held to what the model checks: one reference to the CTE, in its
//! own FROM list (a reference in a subquery or an outer join, aggregates, DISTINCT or
//! GROUP BY there are refused, 0A000, where PostgreSQL raises 42P19 or answers).

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Named, Rows};
use crate::pg::sql::names::{ident, object_name};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::sort_order;
use crate::pg::types::value::Value;
use sqlparser::ast::{
    Cte, GroupByExpr, JoinOperator, Query, Select, SetExpr, SetOperator, SetQuantifier, TableFactor,
};
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// Rounds of the recursive term one CTE may run.
pub(crate) const RECURSION_ROUNDS_MAX: usize = 10_000;
/// Rows one recursive CTE may hold.
pub(crate) const RECURSION_ROWS_MAX: usize = 100_000;

/// A recursive CTE's two terms.
struct Terms<'q> {
    non_recursive: &'q SetExpr,
    recursive: &'q Select,
    /// UNION ALL keeps duplicates; UNION drops a row seen before.
    all: bool,
}

impl Exec<'_> {
    /// A CTE of a `WITH RECURSIVE`: its rows under its own column names.
    pub(crate) fn recursive_cte(
        &mut self,
        cte: &Cte,
        parent: Option<&Frame<'_>>,
        describe: bool,
    ) -> FlowResult<Rows> {
        let name = ident(&cte.alias.name);
        let Some(terms) = terms(&cte.query, &name)? else {
            let rows = self.cte_rows(cte, parent, describe)?;
            return Ok(crate::pg::exec::cte::renamed_by(
                &cte.alias,
                "WITH query",
                rows,
            )?);
        };
        if describe {
            let frame = parent.copied().unwrap_or(Frame::EMPTY);
            return self.describe_recursive(cte, &name, &terms, &frame);
        }
        let mut first = self.set_operand(terms.non_recursive, parent)?;
        for (_, t) in &mut first.columns {
            if *t == Type::Unknown {
                *t = Type::Text;
            }
        }
        let first = crate::pg::exec::cte::renamed_by(&cte.alias, "WITH query", first)?;
        self.recurse(&name, &terms, first, parent)
    }

    /// The CTE's columns, both terms typed (parameters included), nothing run.
    fn describe_recursive(
        &mut self,
        cte: &Cte,
        name: &str,
        terms: &Terms<'_>,
        frame: &Frame<'_>,
    ) -> FlowResult<Rows> {
        let mut columns = self.describe_operand(terms.non_recursive, frame)?;
        for (_, t) in &mut columns {
            if *t == Type::Unknown {
                *t = Type::Text;
            }
        }
        let rows = Rows {
            columns,
            rows: Vec::new(),
        };
        let rows = crate::pg::exec::cte::renamed_by(&cte.alias, "WITH query", rows)?;
        let depth = self.ctes.len();
        self.ctes.push(Named {
            name: name.to_string(),
            rows: rows.clone(),
            without_returning: false,
            read_depth_min: u32::MAX,
        });
        let described = self.describe_select(terms.recursive, frame);
        self.leave_ctes(depth);
        described?;
        Ok(rows)
    }

    /// The rounds of the recursive term, from the non-recursive term's rows.
    fn recurse(
        &mut self,
        name: &str,
        terms: &Terms<'_>,
        first: Rows,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Rows> {
        let columns = first.columns.clone();
        let mut seen = BTreeSet::new();
        let mut result = Vec::new();
        keep_new(first.rows, terms.all, &mut seen, &mut result);
        let mut working = result.clone();
        for round in 0.. {
            if round >= RECURSION_ROUNDS_MAX {
                return Err(limit(format!(
                    "recursive query \"{name}\" ran more than the model's {RECURSION_ROUNDS_MAX} rounds"
                )));
            }
            let produced = self.round(name, terms, &columns, working, parent)?;
            working = keep_new(produced, terms.all, &mut seen, &mut result);
            if result.len() > RECURSION_ROWS_MAX {
                return Err(limit(format!(
                    "recursive query \"{name}\" made more than the model's {RECURSION_ROWS_MAX} rows"
                )));
            }
            if working.is_empty() {
                break;
            }
        }
        Ok(Rows {
            columns,
            rows: result,
        })
    }

    /// One run of the recursive term over `working`: its rows, cast to the CTE's types.
    fn round(
        &mut self,
        name: &str,
        terms: &Terms<'_>,
        columns: &[(String, Type)],
        working: Vec<Vec<Value>>,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Vec<Value>>> {
        let depth = self.ctes.len();
        self.ctes.push(Named {
            name: name.to_string(),
            rows: Rows {
                columns: columns.to_vec(),
                rows: working,
            },
            without_returning: false,
            read_depth_min: u32::MAX,
        });
        let produced = self.set_leaf(terms.recursive, parent);
        self.leave_ctes(depth);
        let produced = produced?;
        if produced.columns.len() != columns.len() {
            return Err(
                PgError::syntax("each UNION query must have the same number of columns").into(),
            );
        }
        let mut types = Vec::with_capacity(columns.len());
        for (at, ((_, ours), (_, theirs))) in columns.iter().zip(&produced.columns).enumerate() {
            let overall = crate::pg::types::select_common::common_type("UNION", *ours, *theirs)?;
            if overall != *ours {
                return Err(PgError::new(
                    DATATYPE_MISMATCH,
                    format!(
                        "recursive query \"{name}\" column {} has type {} in non-recursive term but type {} overall",
                        at + 1,
                        ours.name(),
                        overall.name()
                    ),
                )
                .into());
            }
            types.push(overall);
        }
        self.cast_rows(produced, &types)
    }
}

/// The bound is where the model stops modelling (PostgreSQL would go on, or stop at
/// its reader's LIMIT): a refusal, 0A000, not an answer.
fn limit(message: String) -> Flow {
    PgError::new(FEATURE_NOT_SUPPORTED, message).into()
}

/// A row as a set member: ordered as a sort with NULLs equal (UNION's duplicates).
#[derive(Clone)]
struct Member(Vec<Value>);

impl PartialEq for Member {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Member {}
impl PartialOrd for Member {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Member {
    fn cmp(&self, other: &Self) -> Ordering {
        let directions = vec![(false, false); self.0.len()];
        sort_order(&self.0, &other.0, &directions)
    }
}

/// Append `rows` to `result` (under UNION only those not seen before); the rows kept.
fn keep_new(
    rows: Vec<Vec<Value>>,
    all: bool,
    seen: &mut BTreeSet<Member>,
    result: &mut Vec<Vec<Value>>,
) -> Vec<Vec<Value>> {
    let kept: Vec<Vec<Value>> = match all {
        true => rows,
        false => rows
            .into_iter()
            .filter(|row| seen.insert(Member(row.clone())))
            .collect(),
    };
    result.extend(kept.iter().cloned());
    kept
}

/// The two terms of a CTE that reads itself; `None` when it does not (it runs as any
/// CTE). PostgreSQL's errors for the malformed ones it checks.
fn terms<'q>(query: &'q Query, name: &str) -> PgResult<Option<Terms<'q>>> {
    let mentioned = mentions(&query.to_string(), name);
    if !mentioned {
        return Ok(None);
    }
    let SetExpr::SetOperation {
        left,
        op,
        set_quantifier,
        right,
    } = &*query.body
    else {
        return Err(PgError::unsupported(format!(
            "a recursive query \"{name}\" not of the form non-recursive-term UNION recursive-term"
        )));
    };
    // Only a column shares the name: an ordinary CTE.
    let unread = direct_refs(left, name) == 0 && !mentions(&right.to_string(), name);
    if unread {
        return Ok(None);
    }
    let all = match set_quantifier {
        SetQuantifier::All => true,
        SetQuantifier::None | SetQuantifier::Distinct => false,
        _ => return Err(PgError::unsupported("this set quantifier")),
    };
    if *op != SetOperator::Union {
        return Err(PgError::unsupported(format!(
            "a recursive query \"{name}\" whose set operation is not UNION"
        )));
    }
    for (present, clause) in [
        (query.order_by.is_some(), "ORDER BY"),
        (limit_of(query).0, "LIMIT"),
        (limit_of(query).1, "OFFSET"),
        (!query.locks.is_empty(), "FOR UPDATE/SHARE"),
    ] {
        if present {
            return Err(PgError::new(
                FEATURE_NOT_SUPPORTED,
                format!("{clause} in a recursive query is not implemented"),
            ));
        }
    }
    if direct_refs(left, name) > 0 {
        return Err(PgError::new(
            INVALID_RECURSION,
            format!("recursive reference to query \"{name}\" must not appear within its non-recursive term"),
        ));
    }
    // The name may be a column's too: any other mention is refused, not taken for
    // PostgreSQL's 42P19.
    if mentions(&left.to_string(), name) {
        return Err(PgError::unsupported(format!(
            "the name \"{name}\" in a recursive query's non-recursive term"
        )));
    }
    let SetExpr::Select(recursive) = &**right else {
        return Err(PgError::unsupported(
            "a recursive term that is not one SELECT",
        ));
    };
    check_recursive_term(recursive, name)?;
    Ok(Some(Terms {
        non_recursive: left,
        recursive,
        all,
    }))
}

fn limit_of(query: &Query) -> (bool, bool) {
    match &query.limit_clause {
        None => (false, false),
        Some(sqlparser::ast::LimitClause::LimitOffset { limit, offset, .. }) => {
            (limit.is_some(), offset.is_some())
        }
        Some(_) => (true, false),
    }
}

/// The recursive term reads the CTE once, as a plain item of its FROM list joined
/// inwardly, and does nothing the model does not check there.
fn check_recursive_term(select: &Select, name: &str) -> PgResult<()> {
    let factors: Vec<(&TableFactor, bool)> = select
        .from
        .iter()
        .flat_map(|t| {
            std::iter::once((&t.relation, false)).chain(t.joins.iter().map(|j| {
                let inner = matches!(
                    j.join_operator,
                    JoinOperator::Join(_) | JoinOperator::Inner(_) | JoinOperator::CrossJoin(_)
                );
                (&j.relation, !inner)
            }))
        })
        .collect();
    let direct: Vec<bool> = factors
        .iter()
        .filter(|(f, _)| matches!(f, TableFactor::Table { name: n, .. } if object_name(n) == [name.to_string()]))
        .map(|(_, outer)| *outer)
        .collect();
    if direct.len() > 1 {
        return Err(PgError::new(
            INVALID_RECURSION,
            format!("recursive reference to query \"{name}\" must not appear more than once"),
        ));
    }
    // A subquery anywhere in the term might read the CTE (PostgreSQL's 42P19).
    let text = select.to_string();
    let subqueries = text.to_ascii_uppercase().matches("SELECT").count() > 1;
    let elsewhere = mentions(&text, name) && (direct.len() != 1 || subqueries);
    let outer = factors.iter().any(|(_, outer)| *outer);
    let aggregated = select.projection.iter().any(|item| match item {
        sqlparser::ast::SelectItem::UnnamedExpr(e)
        | sqlparser::ast::SelectItem::ExprWithAlias { expr: e, .. } => {
            crate::pg::exec::aggregate::contains(e)
        }
        _ => false,
    });
    if aggregated && direct.len() == 1 {
        return Err(PgError::new(
            INVALID_RECURSION,
            "aggregate functions are not allowed in a recursive query's recursive term",
        ));
    }
    let grouped = matches!(&select.group_by, GroupByExpr::Expressions(e, _) if !e.is_empty())
        || select.having.is_some()
        || select.distinct.is_some()
        || aggregated;
    let nested = factors
        .iter()
        .any(|(f, _)| !matches!(f, TableFactor::Table { .. }) && mentions(&f.to_string(), name));
    if elsewhere || outer || grouped || nested {
        return Err(PgError::unsupported(
            "a recursive term with a subquery reference, an outer join, aggregates or DISTINCT",
        ));
    }
    Ok(())
}

/// How many items of the FROM lists of `body`'s SELECTs (outside subqueries) are the
/// table `name`.
fn direct_refs(body: &SetExpr, name: &str) -> usize {
    match body {
        SetExpr::Select(select) => select
            .from
            .iter()
            .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
            .filter(|f| matches!(f, TableFactor::Table { name: n, .. } if object_name(n) == [name.to_string()]))
            .count(),
        SetExpr::SetOperation { left, right, .. } => {
            direct_refs(left, name) + direct_refs(right, name)
        }
        SetExpr::Query(q) => direct_refs(&q.body, name),
        _ => 0,
    }
}

/// Whether `text` holds `name` as a word (an identifier, quoted or not, in any case;
/// unquoted names fold to lower case). Over-eager on purpose: a false mention only
/// leads to a check or a refusal.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .any(|word| word.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use crate::pg::error::{PgResult, FEATURE_NOT_SUPPORTED};
    use crate::pg::exec::context::Outcome;
    use crate::pg::server::PgModel;
    use crate::pg::session::Session;
    use crate::pg::types::value::Value;
    use std::sync::Arc;

    fn run(model: &PgModel, session: &mut Session, sql: &str) -> PgResult<Outcome> {
        let statement = model.parse(sql).expect("parses").statements[0].clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        runtime.block_on(model.run(session, &statement, &[]))
    }

    fn firsts(outcome: Outcome) -> Vec<Value> {
        let rows = outcome.rows.expect("rows").rows;
        rows.into_iter().map(|mut row| row.remove(0)).collect()
    }

    #[test]
    fn an_endless_recursion_stops_at_the_models_bound_with_a_refusal() {
        let model = PgModel::new(1, Arc::new(|| 1_700_000_000_000_000));
        let mut session = Session::new(1_000, 1);
        let endless = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t";
        let error = run(&model, &mut session, endless).unwrap_err();
        assert_eq!(error.code, FEATURE_NOT_SUPPORTED);
        assert!(error.message.contains("rounds"), "{}", error.message);
        // The same shape under the bound runs to the end.
        let bounded = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 9999) SELECT count(*) FROM t";
        let count = firsts(run(&model, &mut session, bounded).expect("runs"));
        assert_eq!(count, [Value::Int(9_999)]);
    }

    #[test]
    fn a_cycle_ends_under_union_and_each_node_comes_once() {
        let model = PgModel::new(1, Arc::new(|| 1_700_000_000_000_000));
        let mut session = Session::new(1_000, 1);
        run(&model, &mut session, "CREATE TABLE e (a int4, b int4)").unwrap();
        run(
            &model,
            &mut session,
            "INSERT INTO e VALUES (1, 2), (2, 1), (2, 3)",
        )
        .unwrap();
        let walk = "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT e.b FROM e JOIN r ON e.a = r.n) SELECT n FROM r ORDER BY n";
        let nodes = firsts(run(&model, &mut session, walk).expect("runs"));
        assert_eq!(nodes, [Value::Int(1), Value::Int(2), Value::Int(3)]);
    }
}
