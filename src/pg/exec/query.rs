//! `SELECT`: FROM (tables, subqueries, inner and left joins), WHERE, GROUP BY and the
//! aggregates, ORDER BY (by input expressions, output names or ordinals; ties keep heap
//! order), OFFSET/LIMIT, FOR UPDATE with READ COMMITTED's re-check of a changed row.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame, Joined, LockWait, Projected, RowState, Rows};
use crate::pg::exec::hash_join;
use crate::pg::exec::window::Kept;
use crate::pg::sql::names::{ident, object_name, table_name};
use crate::pg::sql::scope::Source;
use crate::pg::storage::heap::RowLockMode;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{compare, sort_order, Value};
use sqlparser::ast::{
    Expr, GroupByExpr, Join, JoinConstraint, JoinOperator, OrderByKind, Query, Select, SelectItem,
    SetExpr, TableFactor, TableWithJoins,
};
use std::cmp::Ordering;

/// Subqueries nested in one statement.
const NESTING_MAX: u32 = 32;
/// Uncorrelated subqueries a statement keeps the rows of (more run each time).
const SUBQUERIES_CACHED_MAX: usize = 64;
/// Values a cross join's product may hold (rows × columns): about 256 MB of them.
const CROSS_VALUES_MAX: usize = 8_000_000;

/// The entries a target list may have (PostgreSQL's `MaxTupleAttributeNumber`).
pub(crate) const TARGET_LIST_ENTRIES_MAX: usize = 1664;

impl Exec<'_> {
    /// Run `query` with `parent` as the row around it (a correlated subquery).
    pub(crate) fn query(&mut self, query: &Query, parent: Option<&Frame<'_>>) -> FlowResult<Rows> {
        if query.fetch.is_some() {
            return Err(PgError::unsupported("FETCH").into());
        }
        self.with_ctes(query, parent, false, |exec| exec.query_body(query, parent))
    }

    fn query_body(&mut self, query: &Query, parent: Option<&Frame<'_>>) -> FlowResult<Rows> {
        match &*query.body {
            SetExpr::Select(select) => self.select(select, query, parent),
            SetExpr::Values(values) if query.order_by.is_none() && query.limit_clause.is_none() => {
                self.values(
                    &values
                        .rows
                        .iter()
                        .map(|r| r.content.clone())
                        .collect::<Vec<_>>(),
                    parent,
                )
            }
            SetExpr::Query(inner) if query.order_by.is_none() && query.limit_clause.is_none() => {
                self.query(inner, parent)
            }
            SetExpr::SetOperation { .. } | SetExpr::Query(_) | SetExpr::Values(_) => {
                self.set_query(query, parent)
            }
            SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) => {
                self.cte_dml(&query.body)
            }
            other => Err(PgError::unsupported(format!("the query form `{other}`")).into()),
        }
    }

    pub(crate) fn subquery(
        &mut self,
        query: &Query,
        frame: &Frame<'_>,
        _rows_needed: Option<usize>,
    ) -> FlowResult<Rows> {
        self.nesting += 1;
        if self.nesting > NESTING_MAX {
            return Err(PgError::new(
                PROGRAM_LIMIT_EXCEEDED,
                "subqueries nested too deep for the model",
            )
            .into());
        }
        let key = query as *const Query as usize;
        let cached = self.subqueries.rows.iter().find(|(at, _)| *at == key);
        // The subquery's own groups and windows must not replace the outer row's.
        let outer = RowState {
            aggregates: std::mem::take(&mut self.aggregates),
            windows: std::mem::take(&mut self.windows),
        };
        let result = match cached {
            Some((_, rows)) => Ok(rows.clone()),
            None => self.uncached_subquery(query, frame, key),
        };
        self.restore(&outer);
        self.nesting -= 1;
        result
    }

    /// Run a subquery; keep its rows for the rest of the statement when it read no
    /// column of a query around it.
    fn uncached_subquery(
        &mut self,
        query: &Query,
        frame: &Frame<'_>,
        key: usize,
    ) -> FlowResult<Rows> {
        let outer_min = std::mem::replace(&mut self.subqueries.read_depth_min, u32::MAX);
        let result = self.query(query, Some(frame));
        let inner_min = self.subqueries.read_depth_min;
        self.subqueries.read_depth_min = outer_min.min(inner_min);
        let rows = result?;
        if inner_min >= self.nesting && self.subqueries.rows.len() < SUBQUERIES_CACHED_MAX {
            self.subqueries.rows.push((key, rows.clone()));
        }
        Ok(rows)
    }

    /// `VALUES (…), (…)` as rows named column1, column2, …, each column of the type
    /// PostgreSQL's `select_common_type` gives its rows (an untyped literal read as it).
    pub(crate) fn values(
        &mut self,
        rows: &[Vec<Expr>],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Rows> {
        let frame = parent.copied().unwrap_or(Frame::EMPTY);
        let mut typed_rows = Vec::with_capacity(rows.len());
        let mut types: Vec<Type> = Vec::new();
        for row in rows {
            let mut typed = Vec::with_capacity(row.len());
            for (i, e) in row.iter().enumerate() {
                let value = self.eval(e, &frame)?;
                match types.get_mut(i) {
                    Some(t) => {
                        *t = crate::pg::types::select_common::common_type("VALUES", *t, value.t)?
                    }
                    None => types.push(value.t),
                }
                typed.push(value);
            }
            typed_rows.push(typed);
        }
        let types: Vec<Type> = types
            .into_iter()
            .map(|t| if t == Type::Unknown { Type::Text } else { t })
            .collect();
        let mut out = Rows {
            columns: (types.iter().enumerate())
                .map(|(i, t)| (format!("column{}", i + 1), *t))
                .collect(),
            rows: Vec::with_capacity(typed_rows.len()),
        };
        for row in typed_rows {
            let values = row
                .into_iter()
                .zip(&types)
                .map(|(value, t)| match value.t == *t {
                    true => Ok(value.v),
                    false => crate::pg::types::cast::cast(value, *t, None).map(|typed| typed.v),
                });
            out.rows.push(values.collect::<PgResult<Vec<_>>>()?);
        }
        Ok(out)
    }

    pub(crate) fn select(
        &mut self,
        select: &Select,
        query: &Query,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Rows> {
        if select.having.is_some() && !self.grouped(select) {
            return Err(PgError::unsupported("HAVING without GROUP BY").into());
        }
        crate::pg::exec::window::check_placement(select)?;
        let distinct = matches!(
            select.distinct,
            Some(sqlparser::ast::Distinct::Distinct | sqlparser::ast::Distinct::On(_))
        );
        // DISTINCT sorts every row, so it reads the table, never an index's nearest rows;
        // so do window functions, which run over every row before ORDER BY and LIMIT; a
        // CTE is no table and has no index.
        let windowed = !crate::pg::exec::window::calls(select, query).is_empty();
        let ann = match distinct || windowed || self.reads_cte(&select.from) {
            true => None,
            false => self.ann_scan(select, query, parent)?,
        };
        let (sources, rows, ordered) = match ann {
            Some((sources, rows)) => (sources, rows, true),
            None => {
                let (sources, rows) = match self.keyed_from(select)? {
                    Some(keyed) => keyed,
                    None => self.from(&select.from, parent)?,
                };
                (sources, rows, false)
            }
        };
        if self.grouped(select) {
            crate::pg::exec::aggregate::check_ungrouped(select, &sources)?;
        }
        let mut rows = rows;
        if let (Some(condition), false) = (&select.selection, ordered) {
            rows = self.filter(rows, condition, &sources, parent)?;
        }
        if !query.locks.is_empty() {
            return self.select_locking(select, query, rows, &sources, parent);
        }
        let columns = self.output_columns(&select.projection, &sources, parent)?;
        self.refuse_json_keys(select, query, &columns, &sources, parent)?;
        let groups = match self.grouped(select) {
            true => self.groups(select, &rows, &sources, parent)?,
            false => rows.iter().map(|row| vec![row.clone()]).collect(),
        };
        let projected = self.project_all(select, query, &groups, &sources, parent, &columns)?;
        // An index scan returns its rows in the index's order, as PostgreSQL's does.
        let projected = match (ordered, distinct) {
            (true, _) => projected.rows.into_iter().map(|(out, _)| out).collect(),
            (false, true) => {
                self.distinct_rows(select, query, projected, &columns, &sources, parent)?
            }
            (false, false) => self.order(query, projected, &columns, &sources, parent)?,
        };
        let rows = self.limit(query, projected, parent)?;
        if rows.is_empty() && crate::pg::exec::catalog::reads_pg_type(&select.from) {
            return Err(crate::pg::exec::catalog::none_found().into());
        }
        Ok(Rows { columns, rows })
    }

    /// SELECT … FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE: the rows ordered, then
    /// locked one by one as LIMIT asks for them (PostgreSQL's LockRows sits under Limit:
    /// `LIMIT 1 FOR UPDATE` locks one row, the rows OFFSET passes are locked too); a row
    /// gone, no longer matching or skipped (`SKIP LOCKED`) makes way for the next. A row
    /// that moved is projected again from its newest version, in its old place.
    fn select_locking(
        &mut self,
        select: &Select,
        query: &Query,
        rows: Vec<Joined>,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Rows> {
        let lock = lock_clauses(&query.locks)?;
        let refusal = |what: &str| {
            let clause = lock.0.clause();
            Err(PgError::new(
                FEATURE_NOT_SUPPORTED,
                format!("{clause} is not allowed with {what}"),
            )
            .into())
        };
        if matches!(&select.group_by, GroupByExpr::Expressions(e, _) if !e.is_empty()) {
            return refusal("GROUP BY clause");
        }
        if select.distinct.is_some() {
            return refusal("DISTINCT clause");
        }
        if select.having.is_some() {
            return refusal("HAVING clause");
        }
        if self.grouped(select) {
            return refusal("aggregate functions");
        }
        if !crate::pg::exec::window::calls(select, query).is_empty() {
            return refusal("window functions");
        }
        let columns = self.output_columns(&select.projection, sources, parent)?;
        self.refuse_json_keys(select, query, &columns, sources, parent)?;
        let mut projected = Vec::with_capacity(rows.len());
        for row in &rows {
            let group = std::slice::from_ref(row);
            if let Some(row) =
                self.project_group(select, query, group, sources, parent, &columns)?
            {
                projected.push(row);
            }
        }
        let ordered = self.order_pairs(query, projected, &[], &columns, sources, parent)?;
        let (limit, offset) = self.limit_offset(query, parent)?;
        let wanted = limit.map_or(usize::MAX, |limit| limit.saturating_add(offset));
        let mut locked = Vec::new();
        for (out, row) in ordered {
            if locked.len() >= wanted {
                break;
            }
            let condition = select.selection.as_ref();
            let Some((row, moved)) = self.lock_selected(&row, lock, condition, sources, parent)?
            else {
                continue;
            };
            let out = match moved {
                false => out,
                true => {
                    let group = std::slice::from_ref(&row);
                    match self.project_group(select, query, group, sources, parent, &columns)? {
                        Some((out, _)) => out,
                        None => continue,
                    }
                }
            };
            locked.push(out);
        }
        let rows = locked.into_iter().skip(offset).collect();
        Ok(Rows { columns, rows })
    }

    fn grouped(&self, select: &Select) -> bool {
        let group_by = matches!(&select.group_by, GroupByExpr::Expressions(e, _) if !e.is_empty());
        group_by
            || select.projection.iter().any(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    crate::pg::exec::aggregate::contains(e)
                }
                _ => false,
            })
    }

    /// The FROM clause's rows (a cross product of its items), with their sources.
    pub(crate) fn from(
        &mut self,
        from: &[TableWithJoins],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<(Vec<Source>, Vec<Joined>)> {
        let mut sources: Vec<Source> = Vec::new();
        let mut rows = vec![Joined {
            values: Vec::new(),
            tids: Vec::new(),
        }];
        use crate::pg::exec::lateral::is_lateral;
        for item in from {
            if is_lateral(&item.relation) {
                rows = self.lateral(rows, &item.relation, None, &mut sources, parent)?;
            } else {
                let (source, right) = self.read_from_item(&item.relation, parent, &sources)?;
                check_alias(&sources, &source)?;
                sources.push(source);
                rows = self.cross(rows, right)?;
            }
            for join in &item.joins {
                if is_lateral(&join.relation) {
                    rows = self.lateral(rows, &join.relation, Some(join), &mut sources, parent)?;
                    continue;
                }
                let (source, right) = self.read_from_item(&join.relation, parent, &sources)?;
                check_alias(&sources, &source)?;
                sources.push(source);
                rows = self.join(rows, right, join, &sources, parent)?;
            }
        }
        Ok((sources, rows))
    }

    /// One FROM item that reads no earlier one: a function (`unnest`, `generate_series`)
    /// or a table or subquery.
    fn read_from_item(
        &mut self,
        factor: &TableFactor,
        parent: Option<&Frame<'_>>,
        sources: &[Source],
    ) -> FlowResult<(Source, Vec<Joined>)> {
        if let Some(unnest) = crate::pg::exec::unnest::Unnest::of(factor) {
            return self.unnest(&unnest?, parent, sources);
        }
        if let Some(series) = crate::pg::exec::series::Series::of(factor) {
            return self.series(&series?, parent, sources);
        }
        self.factor(factor, parent, sources_width(sources))
    }

    /// A FROM clause of one table and a WHERE binding the leading columns of one of its
    /// unique keys: the candidate rows through the key's index (`keyed.rs`), in heap
    /// order, for WHERE to judge as it judges a scan's. `None`: any other shape.
    fn keyed_from(&mut self, select: &Select) -> FlowResult<Option<(Vec<Source>, Vec<Joined>)>> {
        let (Some(condition), [item]) = (&select.selection, select.from.as_slice()) else {
            return Ok(None);
        };
        let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = &item.relation
        else {
            return Ok(None);
        };
        // A renamed column (`AS t(a, b)`) is no longer the key's name: scanned instead.
        let renamed = alias.as_ref().is_some_and(|a| !a.columns.is_empty());
        let plain = item.joins.is_empty()
            && !renamed
            && crate::pg::exec::unnest::Unnest::of(&item.relation).is_none()
            && self.cte(&object_name(name)).is_none()
            && crate::pg::exec::catalog::relation(self.db, &object_name(name)).is_none();
        if !plain {
            return Ok(None);
        }
        let name = table_name(name)?;
        let sources = vec![self.table_source(&name, alias.as_ref(), 0)?];
        let Some(rows) = self.keyed_rows(&name, condition, &sources)? else {
            return Ok(None);
        };
        Ok(Some((sources, joined(&name, rows))))
    }

    /// A base table as a FROM item: its alias and columns, from column `offset` of the row.
    fn table_source(
        &self,
        name: &str,
        alias: Option<&sqlparser::ast::TableAlias>,
        offset: usize,
    ) -> FlowResult<Source> {
        let mut columns: Vec<(String, Type)> = (self.db.table(name)?.columns.iter())
            .map(|c| (c.name.clone(), c.ty))
            .collect();
        if let Some(alias) = alias {
            crate::pg::exec::cte::rename_columns(alias, "table", &mut columns)?;
        }
        let alias = alias.map_or(name.to_string(), |a| ident(&a.name));
        Ok(Source {
            alias,
            columns,
            offset,
        })
    }

    /// One FROM item: a table (its visible versions) or a subquery.
    fn factor(
        &mut self,
        factor: &TableFactor,
        parent: Option<&Frame<'_>>,
        offset: usize,
    ) -> FlowResult<(Source, Vec<Joined>)> {
        match factor {
            TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } => {
                if let Some(cte) = self.cte(&object_name(name)) {
                    cte.check_readable()?;
                    let rows = cte.rows.clone();
                    let reads = cte.read_depth_min;
                    let min = &mut self.subqueries.read_depth_min;
                    *min = (*min).min(reads);
                    return Ok(catalog_factor(name, alias.as_ref(), rows, offset)?);
                }
                if let Some(catalog) =
                    crate::pg::exec::catalog::relation(self.db, &object_name(name))
                {
                    return Ok(catalog_factor(name, alias.as_ref(), catalog, offset)?);
                }
                let name = table_name(name)?;
                let source = self.table_source(&name, alias.as_ref(), offset)?;
                let rows = self.scan(&name)?;
                Ok((source, joined(&name, rows)))
            }
            TableFactor::Derived {
                lateral: false,
                subquery,
                alias,
                ..
            } => {
                let mut result = match parent {
                    Some(frame) => self.subquery(subquery, frame, None)?,
                    None => self.subquery(subquery, &Frame::EMPTY, None)?,
                };
                if let Some(alias) = alias {
                    result = crate::pg::exec::cte::renamed_by(alias, "table", result)?;
                }
                let alias = alias
                    .as_ref()
                    .map_or(crate::pg::sql::scope::UNNAMED.to_string(), |a| {
                        ident(&a.name)
                    });
                let rows = result
                    .rows
                    .into_iter()
                    .map(|values| Joined {
                        values,
                        tids: vec![None],
                    })
                    .collect();
                Ok((
                    Source {
                        alias,
                        columns: result.columns,
                        offset,
                    },
                    rows,
                ))
            }
            other => Err(PgError::unsupported(format!("the FROM item `{other}`")).into()),
        }
    }

    fn cross(&mut self, left: Vec<Joined>, right: Vec<Joined>) -> FlowResult<Vec<Joined>> {
        let pairs = left.len().saturating_mul(right.len());
        let width = left.first().map_or(0, |l| l.values.len())
            + right.first().map_or(0, |r| r.values.len());
        // The product is held whole before WHERE reads it: one too large to hold (tenk1
        // with itself: 10^8 rows) is refused before it is built, never left to fill memory.
        if pairs.saturating_mul(width.max(1)) > CROSS_VALUES_MAX {
            return Err(PgError::unsupported(format!(
                "a cross join of {pairs} rows (the model holds at most {CROSS_VALUES_MAX} values of one)"
            ))
            .into());
        }
        let mut out = Vec::with_capacity(pairs);
        for l in &left {
            for r in &right {
                self.tick()?;
                out.push(concat(l, r));
            }
        }
        Ok(out)
    }

    fn join(
        &mut self,
        left: Vec<Joined>,
        right: Vec<Joined>,
        join: &Join,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Joined>> {
        let (condition, outer) = join_shape(&join.join_operator)?;
        let width = sources.last().map_or(0, |s| s.columns.len());
        let left_width = sources_width(sources) - width;
        let pairs = left.len().saturating_mul(right.len());
        let keys = condition.and_then(|e| hash_join::key_pairs(e, sources, left_width, pairs));
        let candidates = keys.and_then(|k| hash_join::candidates(&left, &right, &k, left_width));
        let all: Vec<usize> = match candidates {
            Some(_) => Vec::new(),
            None => (0..right.len()).collect(),
        };
        let mut out = Vec::new();
        for (at, l) in left.iter().enumerate() {
            let mut matched = false;
            let chosen = candidates.as_ref().map_or(&all, |c| &c[at]);
            for r in chosen.iter().map(|&i| &right[i]) {
                self.tick()?;
                let candidate = concat(l, r);
                let keep = match condition {
                    None => true,
                    Some(e) => self.holds(e, &candidate.values, sources, parent)?,
                };
                if keep {
                    matched = true;
                    out.push(candidate);
                }
            }
            if outer && !matched {
                let nulls = Joined {
                    values: vec![Value::Null; width],
                    tids: vec![None],
                };
                out.push(concat(l, &nulls));
            }
        }
        Ok(out)
    }

    /// `condition` on a row: true only when it is TRUE (not NULL).
    pub(crate) fn holds(
        &mut self,
        condition: &Expr,
        values: &[Value],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<bool> {
        let frame = Frame {
            sources,
            values,
            parent,
            depth: self.nesting,
        };
        let truth = self.eval(condition, &frame)?;
        if truth.t != Type::Bool && truth.t != Type::Unknown {
            return Err(PgError::new(
                DATATYPE_MISMATCH,
                format!(
                    "argument of WHERE must be type boolean, not type {}",
                    truth.t.name()
                ),
            )
            .into());
        }
        Ok(truth.v.truth()? == Some(true))
    }

    fn filter(
        &mut self,
        rows: Vec<Joined>,
        condition: &Expr,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Joined>> {
        let mut kept = Vec::with_capacity(rows.len());
        for row in rows {
            if self.holds(condition, &row.values, sources, parent)? {
                kept.push(row);
            }
        }
        Ok(kept)
    }

    /// The projection's names and types.
    pub(crate) fn output_columns(
        &mut self,
        projection: &[SelectItem],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<(String, Type)>> {
        let mut columns = Vec::new();
        for item in projection {
            match item {
                SelectItem::Wildcard(_) => {
                    columns.extend(sources.iter().flat_map(|s| s.columns.clone()))
                }
                SelectItem::QualifiedWildcard(kind, _) => {
                    columns.extend(star_source(kind, sources)?.columns.clone())
                }
                SelectItem::UnnamedExpr(e) => {
                    columns.push((output_name(e), self.infer(e, sources, parent)?))
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    columns.push((ident(alias), self.infer(expr, sources, parent)?))
                }
                other => {
                    return Err(PgError::unsupported(format!("the select item {other}")).into())
                }
            }
        }
        // PostgreSQL's `MaxTupleAttributeNumber`, checked as parse analysis builds the
        // target list: a row wider than the protocol's 16-bit field count never leaves.
        if columns.len() > TARGET_LIST_ENTRIES_MAX {
            return Err(PgError::new(
                TOO_MANY_COLUMNS,
                format!("target lists can have at most {TARGET_LIST_ENTRIES_MAX} entries"),
            )
            .into());
        }
        // An output column still of unknown type (`SELECT NULL`, `SELECT 'a'`) is text,
        // as PostgreSQL resolves every SELECT's target list (`resolveTargetListUnknowns`).
        for (_, t) in &mut columns {
            if *t == Type::Unknown {
                *t = Type::Text;
            }
        }
        Ok(columns)
    }

    /// Every group's output row with what evaluating it read (its aggregates, its window
    /// values), for ORDER BY and DISTINCT to read again: groups HAVING keeps, then the
    /// window functions over them, then the projection.
    fn project_all(
        &mut self,
        select: &Select,
        query: &Query,
        groups: &[Vec<Joined>],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
        columns: &[(String, Type)],
    ) -> FlowResult<Projected> {
        let mut kept = Vec::with_capacity(groups.len());
        for group in groups {
            if let Some(k) = self.group_row(select, query, group, sources, parent)? {
                kept.push(k);
            }
        }
        let calls = crate::pg::exec::window::calls(select, query);
        let (windows, order) = match calls.is_empty() {
            true => (Vec::new(), (0..kept.len()).collect()),
            false => (
                self.window_values(select, &calls, &kept, sources, parent)?,
                self.window_output_order(select, &calls, &kept, sources, parent)?,
            ),
        };
        let mut projected = Vec::with_capacity(kept.len());
        let mut states = Vec::with_capacity(kept.len());
        for at in order {
            let state = RowState {
                aggregates: std::mem::take(&mut kept[at].aggregates),
                windows: windows.get(at).cloned().unwrap_or_default(),
            };
            self.aggregates = state.aggregates.clone();
            self.windows = state.windows.clone();
            projected.push(self.project_row(select, &kept[at].row, sources, parent, columns)?);
            states.push(state);
        }
        Ok(Projected {
            rows: projected,
            states,
        })
    }

    /// A group's row and aggregates (a single input row when not grouping); `None` when
    /// HAVING rejects the group.
    fn group_row(
        &mut self,
        select: &Select,
        query: &Query,
        group: &[Joined],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Option<Kept>> {
        self.aggregates = match self.grouped(select) {
            true => {
                crate::pg::exec::aggregate::compute(self, select, query, group, sources, parent)?
            }
            false => Vec::new(),
        };
        let row = match group.first() {
            Some(row) => row.clone(),
            None => Joined {
                values: vec![Value::Null; sources_width(sources)],
                tids: Vec::new(),
            },
        };
        if let Some(having) = &select.having {
            if !self.holds(having, &row.values, sources, parent)? {
                return Ok(None);
            }
        }
        let aggregates = std::mem::take(&mut self.aggregates);
        Ok(Some(Kept { row, aggregates }))
    }

    /// One output row of a group (a single input row when not grouping); `None` when
    /// HAVING rejects the group.
    fn project_group(
        &mut self,
        select: &Select,
        query: &Query,
        group: &[Joined],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
        columns: &[(String, Type)],
    ) -> FlowResult<Option<(Vec<Value>, Joined)>> {
        let Some(kept) = self.group_row(select, query, group, sources, parent)? else {
            return Ok(None);
        };
        self.aggregates = kept.aggregates;
        Ok(Some(self.project_row(
            select, &kept.row, sources, parent, columns,
        )?))
    }

    /// The projection on `row`, its aggregates and window values already in place.
    fn project_row(
        &mut self,
        select: &Select,
        row: &Joined,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
        columns: &[(String, Type)],
    ) -> FlowResult<(Vec<Value>, Joined)> {
        let frame = Frame {
            sources,
            values: &row.values,
            parent,
            depth: self.nesting,
        };
        let mut out = Vec::with_capacity(columns.len());
        for item in &select.projection {
            match item {
                SelectItem::Wildcard(_) => out.extend(row.values.iter().cloned()),
                SelectItem::QualifiedWildcard(kind, _) => {
                    let source = star_source(kind, sources)?;
                    out.extend(
                        row.values[source.offset..source.offset + source.columns.len()]
                            .iter()
                            .cloned(),
                    );
                }
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    let value = self.eval(e, &frame)?;
                    out.push(crate::pg::types::cast::cast(value, columns[out.len()].1, None)?.v);
                }
                _ => unreachable!("refused in output_columns"),
            }
        }
        Ok((out, row.clone()))
    }

    fn order(
        &mut self,
        query: &Query,
        Projected { rows, states }: Projected,
        columns: &[(String, Type)],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Vec<Value>>> {
        let ordered = self.order_pairs(query, rows, &states, columns, sources, parent)?;
        Ok(ordered.into_iter().map(|(out, _)| out).collect())
    }

    /// The projected rows with their input rows, in ORDER BY's order (ties keep theirs);
    /// `states` (one per row, or none) are what each row's keys read of aggregates and
    /// window functions.
    fn order_pairs(
        &mut self,
        query: &Query,
        rows: Vec<(Vec<Value>, Joined)>,
        states: &[RowState],
        columns: &[(String, Type)],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<(Vec<Value>, Joined)>> {
        let Some(order_by) = &query.order_by else {
            return Ok(rows);
        };
        let OrderByKind::Expressions(keys) = &order_by.kind else {
            return Err(PgError::unsupported("ORDER BY ALL").into());
        };
        let mut keyed = Vec::with_capacity(rows.len());
        for (at, (out, row)) in rows.into_iter().enumerate() {
            if let Some(state) = states.get(at) {
                self.restore(state);
            }
            let mut values = Vec::with_capacity(keys.len());
            for key in keys {
                values.push(self.sort_key(&key.expr, &out, &row, columns, sources, parent)?);
            }
            keyed.push((values, (out, row)));
        }
        let directions: Vec<(bool, bool)> = keys
            .iter()
            .map(|k| {
                let descending = matches!(k.options.sort, Some(sqlparser::ast::OrderBySort::Desc));
                (descending, k.options.nulls_first.unwrap_or(descending))
            })
            .collect();
        // PostgreSQL's quicksort, not a stable sort: ties come out as PostgreSQL's do.
        crate::pg::exec::pg_qsort::sort(&mut keyed, &mut |(a, _), (b, _)| {
            sort_order(a, b, &directions)
        });
        Ok(keyed.into_iter().map(|(_, pair)| pair).collect())
    }

    pub(crate) fn sort_key(
        &mut self,
        key: &Expr,
        out: &[Value],
        row: &Joined,
        columns: &[(String, Type)],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Value> {
        let names = columns.iter().map(|(n, _)| n.as_str());
        if let Some(at) = ordered_output(key, names)? {
            return Ok(out[at].clone());
        }
        let frame = Frame {
            sources,
            values: &row.values,
            parent,
            depth: self.nesting,
        };
        Ok(self.eval(key, &frame)?.v)
    }

    fn limit(
        &mut self,
        query: &Query,
        rows: Vec<Vec<Value>>,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Vec<Value>>> {
        let (limit, offset) = self.limit_offset(query, parent)?;
        Ok(rows
            .into_iter()
            .skip(offset)
            .take(limit.unwrap_or(usize::MAX))
            .collect())
    }

    /// The query's LIMIT (None: all) and OFFSET.
    pub(crate) fn limit_offset(
        &mut self,
        query: &Query,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<(Option<usize>, usize)> {
        let frame = parent.copied().unwrap_or(Frame::EMPTY);
        let (limit, offset) = match &query.limit_clause {
            None => (None, None),
            Some(sqlparser::ast::LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) if limit_by.is_empty() => (limit.as_ref(), offset.as_ref().map(|o| &o.value)),
            Some(_) => return Err(PgError::unsupported("this LIMIT form").into()),
        };
        let count = |exec: &mut Self, e: Option<&Expr>, what: &str| -> FlowResult<Option<usize>> {
            let Some(e) = e else { return Ok(None) };
            let value = crate::pg::types::cast::cast(exec.eval(e, &frame)?, Type::Int8, None)?;
            match value.v {
                Value::Null => Ok(None),
                Value::Int(n) if n < 0 => Err(PgError::new(
                    INVALID_ROW_COUNT,
                    format!("{what} must not be negative"),
                )
                .into()),
                Value::Int(n) => Ok(Some(n as usize)),
                _ => Err(PgError::new(
                    DATATYPE_MISMATCH,
                    format!("argument of {what} must be type bigint"),
                )
                .into()),
            }
        };
        let limit = count(self, limit, "LIMIT")?;
        let offset = count(self, offset, "OFFSET")?.unwrap_or(0);
        Ok((limit, offset))
    }

    fn groups(
        &mut self,
        select: &Select,
        rows: &[Joined],
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Vec<Vec<Joined>>> {
        let keys = crate::pg::exec::aggregate::group_keys(select, sources)?;
        if keys.is_empty() {
            return Ok(vec![rows.to_vec()]);
        }
        let mut groups: Vec<(Vec<Value>, Vec<Joined>)> = Vec::new();
        for row in rows {
            let frame = Frame {
                sources,
                values: &row.values,
                parent,
                depth: self.nesting,
            };
            let mut key = Vec::with_capacity(keys.len());
            for k in &keys {
                key.push(self.eval(k, &frame)?.v);
            }
            match groups.iter_mut().find(|(k, _)| same_key(k, &key)) {
                Some((_, members)) => members.push(row.clone()),
                None => groups.push((key, vec![row.clone()])),
            }
        }
        Ok(groups.into_iter().map(|(_, members)| members).collect())
    }
}

fn same_key(a: &[Value], b: &[Value]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| compare(x, y) == Ordering::Equal)
}

fn sources_width(sources: &[Source]) -> usize {
    sources.iter().map(|s| s.columns.len()).sum()
}

/// A join the model runs: its ON condition (none for a cross join) and whether it is a
/// LEFT join. USING, NATURAL and the other outer joins are refused, by Describe's pass
/// too, before their names are resolved by rules that are not theirs.
pub(crate) fn join_shape(operator: &JoinOperator) -> PgResult<(Option<&Expr>, bool)> {
    let (constraint, outer) = match operator {
        JoinOperator::Join(c) | JoinOperator::Inner(c) => (c, false),
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (c, true),
        JoinOperator::CrossJoin(JoinConstraint::None) => (&JoinConstraint::None, false),
        other => return Err(PgError::unsupported(format!("the join {other:?}"))),
    };
    match constraint {
        JoinConstraint::On(e) => Ok((Some(e), outer)),
        JoinConstraint::None => Ok((None, outer)),
        _ => Err(PgError::unsupported("JOIN … USING and NATURAL JOIN")),
    }
}

/// 42712 for a FROM item whose name an earlier one has (parse analysis's check).
pub(crate) fn check_alias(sources: &[Source], new: &Source) -> PgResult<()> {
    let unnamed = new.alias == crate::pg::sql::scope::UNNAMED;
    if !unnamed && sources.iter().any(|s| s.alias == new.alias) {
        return Err(PgError::new(
            DUPLICATE_ALIAS,
            format!("table name \"{}\" specified more than once", new.alias),
        ));
    }
    Ok(())
}

fn concat(l: &Joined, r: &Joined) -> Joined {
    let mut values = l.values.clone();
    values.extend(r.values.iter().cloned());
    let mut tids = l.tids.clone();
    tids.extend(r.tids.iter().cloned());
    Joined { values, tids }
}

/// The FROM item `alias.*` names (its alias folded as any identifier).
fn star_source<'s>(
    kind: &sqlparser::ast::SelectItemQualifiedWildcardKind,
    sources: &'s [Source],
) -> PgResult<&'s Source> {
    let sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(name) = kind else {
        return Err(PgError::unsupported(format!("the select item {kind}.*")));
    };
    let alias = match object_name(name).as_slice() {
        [alias] => alias.clone(),
        _ => return Err(PgError::unsupported(format!("the select item {name}.*"))),
    };
    sources.iter().find(|s| s.alias == alias).ok_or_else(|| {
        PgError::new(
            UNDEFINED_TABLE,
            format!("missing FROM-clause entry for table \"{alias}\""),
        )
    })
}

/// A catalog relation or a CTE as a FROM item: named by its alias or its last name part.
fn catalog_factor(
    name: &sqlparser::ast::ObjectName,
    alias: Option<&sqlparser::ast::TableAlias>,
    Rows {
        mut columns,
        rows: values,
    }: Rows,
    offset: usize,
) -> PgResult<(Source, Vec<Joined>)> {
    if let Some(alias) = alias {
        crate::pg::exec::cte::rename_columns(alias, "table", &mut columns)?;
    }
    let alias = alias.map_or_else(
        || object_name(name).last().cloned().unwrap_or_default(),
        |a| ident(&a.name),
    );
    let rows = values
        .into_iter()
        .map(|values| Joined {
            values,
            tids: vec![None],
        })
        .collect();
    Ok((
        Source {
            alias,
            columns,
            offset,
        },
        rows,
    ))
}

/// The output column an ORDER BY key names, given the output columns' names (the rule
/// of PostgreSQL's `findTargetlistEntrySQL92`): an integer constant is a position
/// (`ORDER BY 2`), a bare name is the one output column of that name. `None`: the key
/// is an expression over the input row. The sort and the vector index's plan
/// (`index.rs`) both resolve keys here, so the index serves exactly the order asked.
pub(crate) fn ordered_output<'n>(
    key: &Expr,
    names: impl Iterator<Item = &'n str>,
) -> PgResult<Option<usize>> {
    match key {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Number(n, _) => {
                let at: usize = n
                    .parse()
                    .map_err(|_| PgError::syntax("non-integer constant in ORDER BY"))?;
                let count = names.count();
                match (1..=count).contains(&at) {
                    true => Ok(Some(at - 1)),
                    false => Err(PgError::new(
                        INVALID_COLUMN_REFERENCE,
                        format!("ORDER BY position {at} is not in select list"),
                    )),
                }
            }
            _ => Ok(None),
        },
        Expr::Identifier(i) => {
            let name = ident(i);
            let mut found = names.enumerate().filter(|(_, n)| *n == name);
            match (found.next(), found.next()) {
                (Some((at, _)), None) => Ok(Some(at)),
                _ => Ok(None),
            }
        }
        _ => Ok(None),
    }
}

/// The column name PostgreSQL gives an unaliased output expression.
pub(crate) fn output_name(e: &Expr) -> String {
    named(e).0
}

/// An expression's own name (a column's, a function's), as `FigureIndexColname` names an
/// index column: `None` when it would only be named after its type or `?column?`.
pub(crate) fn own_name(e: &Expr) -> Option<String> {
    match named(e) {
        (name, Strength::Own) => Some(name),
        _ => None,
    }
}

/// How sure a name is, as PostgreSQL's `FigureColname` ranks it: a cast's type names
/// its column only when what it casts has no name of its own (`$1::regtype::oid` is
/// `oid`, `n::text` is `n`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    None,
    FromType,
    Own,
}

fn named(e: &Expr) -> (String, Strength) {
    let own = |name: String| (name, Strength::Own);
    match e {
        Expr::Identifier(i) => own(ident(i)),
        Expr::CompoundIdentifier(parts) => own(parts.last().map(ident).unwrap_or_default()),
        Expr::Function(f) => own(object_name(&f.name).last().cloned().unwrap_or_default()),
        Expr::Cast {
            expr, data_type, ..
        } => match named(expr) {
            (name, Strength::Own) => own(name),
            (name, weak) => match crate::pg::types::regtype::sql_type(data_type) {
                Ok((t, _)) => (type_named(t), Strength::FromType),
                Err(_) => (name, weak),
            },
        },
        Expr::Nested(inner) => named(inner),
        // A CASE is named after its ELSE when that has a name of its own (FigureColname).
        Expr::Case { else_result, .. } => match else_result.as_deref().map(named) {
            Some((name, Strength::Own)) => own(name),
            _ => ("case".into(), Strength::FromType),
        },
        Expr::Exists { negated: false, .. } => own("exists".into()),
        Expr::Array(_) => own("array".into()),
        Expr::Subquery(q) => match &*q.body {
            SetExpr::Select(s) => match s.projection.first() {
                Some(SelectItem::ExprWithAlias { alias, .. }) => own(ident(alias)),
                Some(SelectItem::UnnamedExpr(e)) => own(named(e).0),
                _ => own("?column?".into()),
            },
            _ => own("?column?".into()),
        },
        Expr::TypedString(t) => match crate::pg::types::regtype::sql_type(&t.data_type) {
            Ok((t, _)) => (type_named(t), Strength::FromType),
            Err(_) => ("?column?".into(), Strength::None),
        },
        Expr::Interval(_) => ("interval".into(), Strength::FromType),
        Expr::Extract { .. } => own("extract".into()),
        _ => match crate::pg::exec::string_syntax::column_name(e) {
            Some(name) => own(name.into()),
            None => ("?column?".into(), Strength::None),
        },
    }
}

/// The name a cast to `t` gives its column: the type's last name as written, which for
/// an array type (`int[]`) is its element's (`int4`).
fn type_named(t: crate::pg::types::pg_type::Type) -> String {
    t.element().unwrap_or(t).typname().to_string()
}

/// The lock a query's locking clauses ask for: the strongest strength and the strictest
/// wait policy among them, as PostgreSQL merges clauses naming the same table. `FOR KEY
/// SHARE` and `FOR NO KEY UPDATE` arrive as `FOR SHARE` and `FOR UPDATE` whose `OF`
/// begins with the parser's marker (`sql::parse`).
pub(crate) fn lock_clauses(
    clauses: &[sqlparser::ast::LockClause],
) -> PgResult<(RowLockMode, LockWait)> {
    use sqlparser::ast::{LockType, NonBlock};
    let mut lock = (RowLockMode::KeyShare, LockWait::Block);
    for clause in clauses {
        let keyed = clause.of.as_ref().is_some_and(|of| {
            matches!(of.0.first(), Some(part) if part.as_ident().is_some_and(|i| i.value == crate::pg::sql::parse::KEY_LOCK_MARKER))
        });
        let mode = match (&clause.lock_type, keyed) {
            (LockType::Share, true) => RowLockMode::KeyShare,
            (LockType::Share, false) => RowLockMode::Share,
            (LockType::Update, true) => RowLockMode::NoKeyUpdate,
            (LockType::Update, false) => RowLockMode::Update,
        };
        let wait = match clause.nonblock {
            None => LockWait::Block,
            Some(NonBlock::SkipLocked) => LockWait::Skip,
            Some(NonBlock::Nowait) => LockWait::NoWait,
        };
        lock = (lock.0.max(mode), lock.1.max(wait));
    }
    Ok(lock)
}

/// A base table's versions as FROM rows, each with the version it came from.
fn joined(table: &str, versions: Vec<(u64, Vec<Value>)>) -> Vec<Joined> {
    versions
        .into_iter()
        .map(|(tid, values)| Joined {
            values,
            tids: vec![Some((table.to_string(), tid))],
        })
        .collect()
}
