//! Indexes. A btree index changes no answer (the model finds rows by scanning), so it is
//! recorded only; the unique ones are constraints (`storage/heap.rs`). A vector index (`hnsw`,
//! `ivfflat`) is a real approximate structure (`ann/`), built from the rows present at
//! `CREATE INDEX` and fed every row written after, dead versions included, as pgvector's
//! are until a vacuum. The planner's rule for using one: an `ORDER BY column <op> value
//! LIMIT n` over one table, the operator the index's opclass orders by, with
//! `enable_indexscan` on and either `enable_seqscan` off (then with or without the
//! LIMIT) or the table over [`INDEX_ROWS_MIN`] rows (PostgreSQL's cost model picks the
//! index at that size).

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::sql::names::ident;
use crate::pg::sql::scope::Source;
use crate::pg::storage::heap::IndexDef;
use crate::pg::storage::vector_index::{Ann, IndexScan, VectorIndex};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::Value;
use crate::pg::vector::ann::hnsw::Hnsw;
use crate::pg::vector::ann::ivfflat::IvfFlat;
use crate::pg::vector::ann::Metric;
use crate::pg::vector::kind::Kind;
use sqlparser::ast::{BinaryOperator, Expr, Query, Select};

/// Rows from which the model's planner uses a vector index even with `enable_seqscan` on.
pub(crate) const INDEX_ROWS_MIN: usize = 10_000;

impl Exec<'_> {
    /// Record `index` on `table` and, for a vector index, build it from the versions the
    /// heap holds now (any not aborted).
    pub(crate) fn build_index(&mut self, table: &str, index: IndexDef) -> PgResult<()> {
        if !matches!(index.method.as_str(), "hnsw" | "ivfflat") {
            // An expression index was checked for its method by `index_expression`.
            if index.method != "btree" && index.expressions.is_empty() {
                return Err(PgError::unsupported(format!(
                    "index access method \"{}\"",
                    index.method
                )));
            }
            self.db.table_mut(table)?.indexes.push(index);
            return Ok(());
        }
        let vector_index = self.vector_index(table, &index)?;
        let t = self.db.table_mut(table)?;
        t.vector_indexes.insert(index.name.clone(), vector_index);
        t.indexes.push(index);
        Ok(())
    }

    /// Every vector index of `table` (or the one named `only`) built again from the
    /// versions its heap holds now (TRUNCATE's empty heap, REINDEX).
    pub(crate) fn rebuild_vector_indexes(
        &mut self,
        table: &str,
        only: Option<&str>,
    ) -> PgResult<()> {
        let vector: Vec<IndexDef> = self
            .db
            .table(table)?
            .indexes
            .iter()
            .filter(|i| matches!(i.method.as_str(), "hnsw" | "ivfflat"))
            .filter(|i| only.is_none_or(|name| name == i.name))
            .cloned()
            .collect();
        for index in vector {
            let built = self.vector_index(table, &index)?;
            self.db
                .table_mut(table)?
                .vector_indexes
                .insert(index.name.clone(), built);
        }
        Ok(())
    }

    /// A vector index's structure, its checks in PostgreSQL's order: the options as
    /// `DefineIndex` validates them, the column's operator class, then pgvector's build
    /// checks (dimensions, `ef_construction` against `m`).
    fn vector_index(&mut self, table: &str, index: &IndexDef) -> PgResult<VectorIndex> {
        let [column] = index.columns.as_slice() else {
            return Err(PgError::unsupported("a vector index over several columns"));
        };
        let column = *column;
        let options = BuildOptions::of(index)?;
        let definition = &self.db.table(table)?.columns[column];
        let (kind, metric) = index_metric(index, definition.ty)?;
        let dimensions = index_dimensions(&index.method, kind, definition.modifier)?;
        if kind.is_none() && dimensions > crate::pg::vector::ann::dimensions_max(Kind::Halfvec) {
            // pgvector indexes a sparsevec of up to a billion dimensions; the model's HNSW
            // holds dense copies, as wide as a halfvec's at most.
            return Err(PgError::unsupported(format!(
                "an hnsw index on a sparsevec of {dimensions} dimensions"
            )));
        }
        if let BuildOptions::Hnsw { m, ef_construction } = options {
            if ef_construction < 2 * m {
                return Err(PgError::new(
                    INVALID_PARAMETER_VALUE,
                    "ef_construction must be greater than or equal to 2 * m",
                ));
            }
        }
        let rows = self.index_rows(table, column)?;
        let seed = self.seed ^ crate::pg::types::hash::hash_bytes(index.name.as_bytes()) as u64;
        let ann = match options {
            BuildOptions::Hnsw { m, ef_construction } => Ann::Hnsw(Box::new(Hnsw::build(
                dimensions,
                metric,
                m,
                ef_construction,
                &rows,
                seed,
            ))),
            BuildOptions::IvfFlat { lists } => {
                Ann::IvfFlat(IvfFlat::build(dimensions, metric, lists, &rows, seed))
            }
        };
        Ok(VectorIndex {
            column,
            metric,
            ann: std::sync::Arc::new(ann),
        })
    }

    /// The versions of `table` an index build takes (any not aborted) with their vectors.
    fn index_rows(&self, table: &str, column: usize) -> PgResult<Vec<(u64, Vec<f32>)>> {
        let t = self.db.table(table)?;
        let txns = &self.db.txns;
        let built =
            |xmin| xmin == 0 || txns.status(xmin) != crate::pg::storage::txn::Status::Aborted;
        let mut rows = Vec::new();
        for (tid, version) in t.heap.iter().filter(|(_, v)| built(v.xmin)) {
            if let Some(values) = indexed_values(&version.data[column])? {
                rows.push((*tid, values));
            }
        }
        Ok(rows)
    }

    /// A new version of `table` enters its vector indexes.
    pub(crate) fn index_insert(&mut self, table: &str, tid: u64) -> PgResult<()> {
        let t = self.db.table_mut(table)?;
        let data = &t.heap[&tid].data;
        for index in t.vector_indexes.values_mut() {
            let Some(values) = indexed_values(&data[index.column])? else {
                continue;
            };
            match std::sync::Arc::make_mut(&mut index.ann) {
                Ann::Hnsw(h) => h.insert(tid, &values),
                Ann::IvfFlat(i) => i.insert(tid, &values),
            }
        }
        Ok(())
    }

    /// The index scan for `select` under `query`, if the planner's rule takes one: the
    /// visible rows passing WHERE, in the index's order, as many as LIMIT + OFFSET.
    pub(crate) fn ann_scan(
        &mut self,
        select: &Select,
        query: &Query,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Option<(Vec<Source>, Vec<crate::pg::exec::context::Joined>)>> {
        let Some((table, name, query_vector)) = self.ann_plan(select, query, parent)? else {
            return Ok(None);
        };
        let (limit, offset) = self.limit_offset(query, parent)?;
        let wanted = limit.unwrap_or(usize::MAX).saturating_add(offset);
        let t = self.db.table(&table)?;
        // Shared, not borrowed: the scan evaluates WHERE, whose subqueries may scan this
        // index too.
        let ann = std::sync::Arc::clone(&t.vector_indexes[&name].ann);
        let source = Source {
            alias: table_alias(select).unwrap_or_else(|| table.clone()),
            columns: t.columns.iter().map(|c| (c.name.clone(), c.ty)).collect(),
            offset: 0,
        };
        let sources = vec![source];
        let mut rows = Vec::new();
        let mut scan = IndexScan::start(&ann, &query_vector, self.settings);
        while rows.len() < wanted {
            let Some(tid) = scan.next(&ann) else {
                break;
            };
            self.tick()?;
            let t = self.db.table(&table)?;
            let Some(version) = t.heap.get(&tid) else {
                continue;
            };
            if !crate::pg::storage::heap::sees_version(&self.db.txns, self.viewer(), version) {
                continue;
            }
            let values = version.data.clone();
            if let Some(condition) = &select.selection {
                if !self.holds(condition, &values, &sources, parent)? {
                    continue;
                }
            }
            rows.push(crate::pg::exec::context::Joined {
                values,
                tids: vec![Some((table.clone(), tid))],
            });
        }
        Ok(Some((sources, rows)))
    }

    /// The table, vector index and query vector the planner's rule picks, if any.
    fn ann_plan(
        &mut self,
        select: &Select,
        query: &Query,
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Option<(String, String, Vec<f32>)>> {
        let use_index = self.settings.flag("enable_indexscan");
        let one_table = select.from.len() == 1 && select.from[0].joins.is_empty();
        // With `enable_seqscan` off PostgreSQL takes the index even without a LIMIT.
        let limited = query.limit_clause.is_some() || !self.settings.flag("enable_seqscan");
        if !use_index || !one_table || !limited || !query.locks.is_empty() {
            return Ok(None);
        }
        let sqlparser::ast::TableFactor::Table { name, alias, .. } = &select.from[0].relation
        else {
            return Ok(None);
        };
        // Renamed columns (`AS t(a, b)`) are not the index's names: no plan for them.
        if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
            return Ok(None);
        }
        let table = crate::pg::sql::names::table_name(name)?;
        let Some(sqlparser::ast::OrderBy {
            kind: sqlparser::ast::OrderByKind::Expressions(keys),
            ..
        }) = &query.order_by
        else {
            return Ok(None);
        };
        let [key] = keys.as_slice() else {
            return Ok(None);
        };
        if matches!(key.options.sort, Some(sqlparser::ast::OrderBySort::Desc)) {
            return Ok(None);
        }
        // A catalog relation is no table of the database: no index either.
        let Ok(t) = self.db.table(&table) else {
            return Ok(None);
        };
        let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        let Some(Expr::BinaryOp { left, op, right }) = ordered_expr(select, &key.expr, &names)
        else {
            return Ok(None);
        };
        let Some(metric) = metric_of(op) else {
            return Ok(None);
        };
        let column = match &**left {
            Expr::Identifier(i) => ident(i),
            Expr::CompoundIdentifier(parts) => parts.last().map(ident).unwrap_or_default(),
            _ => return Ok(None),
        };
        let t = self.db.table(&table)?;
        let Some(at) = t.column(&column) else {
            return Ok(None);
        };
        let big = t.heap.len() > INDEX_ROWS_MIN;
        let dimensions = t.columns[at].modifier.unwrap_or(0) as usize;
        if self.settings.flag("enable_seqscan") && !big {
            return Ok(None);
        }
        // The planner passes an invalid index by (pg_index.indisvalid).
        let valid = |name: &str| t.indexes.iter().any(|i| i.name == name && i.valid);
        let found = t
            .vector_indexes
            .iter()
            .find(|(n, i)| i.column == at && i.metric == metric && valid(n))
            .map(|(n, _)| n.clone());
        let Some(index) = found else { return Ok(None) };
        let frame = parent.copied().unwrap_or(Frame::EMPTY);
        let ty = t.columns[at].ty;
        let value = crate::pg::types::cast::cast(self.eval(right, &frame)?, ty, None)?;
        let length = match &value.v {
            Value::Vector(vector) => vector.len(),
            Value::Sparse(sparse) => sparse.dimensions() as usize,
            // pgvector scans with a NULL query at distance zero to everything, in the
            // graph's or the lists' order.
            _ => {
                return Err(
                    PgError::unsupported("a vector index scan ordered by distance to NULL").into(),
                )
            }
        };
        if length != dimensions {
            return Err(PgError::new(
                DATA_EXCEPTION,
                format!(
                    "different {} dimensions {dimensions} and {}",
                    ty.name(),
                    length
                ),
            )
            .into());
        }
        let vector = indexed_values(&value.v)?.expect("a vector value");
        Ok(Some((table, index, vector)))
    }
}

/// What an ORDER BY key orders by, resolved as the sort resolves it (`ordered_output`):
/// `SELECT embedding <=> $1 AS distance … ORDER BY distance` (or `ORDER BY 2`) orders by
/// the distance expression, which the index serves as it does in PostgreSQL. A key
/// naming a column a `*` expands to orders by a stored column: `None`, no index order.
fn ordered_expr<'a>(select: &'a Select, key: &'a Expr, table: &[String]) -> Option<&'a Expr> {
    use sqlparser::ast::SelectItem;
    let mut outputs: Vec<(String, Option<&Expr>)> = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(expr) => {
                outputs.push((crate::pg::exec::query::output_name(expr), Some(expr)))
            }
            SelectItem::ExprWithAlias { expr, alias } => outputs.push((ident(alias), Some(expr))),
            _ => outputs.extend(table.iter().map(|name| (name.clone(), None))),
        }
    }
    let names = outputs.iter().map(|(n, _)| n.as_str());
    match crate::pg::exec::query::ordered_output(key, names) {
        Ok(Some(at)) => outputs[at].1,
        Ok(None) => Some(key),
        // The sort reports the bad position; no plan for it.
        Err(_) => None,
    }
}

fn table_alias(select: &Select) -> Option<String> {
    match &select.from[0].relation {
        sqlparser::ast::TableFactor::Table { alias: Some(a), .. } => Some(ident(&a.name)),
        _ => None,
    }
}

/// The most non-zero elements of a sparsevec pgvector's HNSW takes (`HNSW_MAX_NNZ`).
const HNSW_NON_ZEROS_MAX: usize = 1_000;

/// A value as a vector index holds it: a dense value's elements, a sparsevec's made dense
/// (the distances come out the same: its zeros add nothing), after pgvector's check of
/// its non-zero count (`SparsevecCheckValue`); `None` for NULL.
fn indexed_values(value: &Value) -> PgResult<Option<Vec<f32>>> {
    match value {
        Value::Vector(values) => Ok(Some(values.clone())),
        Value::Sparse(sparse) if sparse.non_zeros() > HNSW_NON_ZEROS_MAX => Err(PgError::new(
            PROGRAM_LIMIT_EXCEEDED,
            format!(
                "sparsevec cannot have more than {HNSW_NON_ZEROS_MAX} non-zero elements for hnsw index"
            ),
        )),
        Value::Sparse(sparse) => Ok(Some(sparse.to_dense())),
        _ => Ok(None),
    }
}

fn metric_of(op: &BinaryOperator) -> Option<Metric> {
    match op {
        BinaryOperator::Spaceship => Some(Metric::Cosine),
        BinaryOperator::LtDashGt => Some(Metric::L2),
        BinaryOperator::Custom(name) if name == "<#>" => Some(Metric::InnerProduct),
        BinaryOperator::Custom(name) if name == "<+>" => Some(Metric::L1),
        _ => None,
    }
}

/// A vector index's build options, within pgvector's bounds.
#[derive(Clone, Copy)]
enum BuildOptions {
    Hnsw { m: u32, ef_construction: u32 },
    IvfFlat { lists: u32 },
}

impl BuildOptions {
    fn of(index: &IndexDef) -> PgResult<BuildOptions> {
        Ok(match index.method.as_str() {
            "hnsw" => BuildOptions::Hnsw {
                m: option(index, "m", 16, 2, 100)?,
                ef_construction: option(index, "ef_construction", 64, 4, 1000)?,
            },
            _ => BuildOptions::IvfFlat {
                lists: option(index, "lists", 100, 1, 32768)?,
            },
        })
    }
}

/// The type and distance a vector index on a column of type `ty` orders by (the dense
/// kind, `None` for a sparsevec): its
/// operator class's (`vector_l2_ops` by default; `halfvec` has no default), checked in
/// PostgreSQL's order: the class exists for the method, then accepts the column's type.
fn index_metric(index: &IndexDef, ty: Type) -> PgResult<(Option<Kind>, Metric)> {
    let no_default = || {
        PgError::new(
            UNDEFINED_OBJECT,
            format!(
                "data type {} has no default operator class for access method \"{}\"",
                ty.name(),
                index.method
            ),
        )
    };
    let default = (ty == Type::Vector).then(|| "vector_l2_ops".to_string());
    let opclass = index.opclass.clone().or(default).ok_or_else(no_default)?;
    // pgvector's classes for PostgreSQL's bit type are not modelled.
    if opclass.starts_with("bit_") {
        return Err(PgError::unsupported(format!(
            "a vector index with the operator class {opclass}"
        )));
    }
    let missing = || {
        PgError::new(
            UNDEFINED_OBJECT,
            format!(
                "operator class \"{opclass}\" does not exist for access method \"{}\"",
                index.method
            ),
        )
    };
    // `sparsevec_*_ops`: HNSW's only, the dense classes' metrics.
    let (kind, metric) = match opclass.strip_prefix("sparsevec_") {
        Some(_) if index.method != "hnsw" => return Err(missing()),
        Some(metric) => {
            let (_, metric) =
                Metric::from_opclass(&format!("vector_{metric}")).ok_or_else(missing)?;
            (None, metric)
        }
        None => {
            let (kind, metric) = Metric::from_opclass(&opclass).ok_or_else(missing)?;
            (Some(kind), metric)
        }
    };
    if index.method == "ivfflat" && !metric.ivfflat_supported() {
        return Err(missing());
    }
    if ty.vector_kind() != kind || (kind.is_none() && ty != Type::Sparsevec) {
        return Err(PgError::new(
            DATATYPE_MISMATCH,
            format!(
                "operator class \"{opclass}\" does not accept data type {}",
                ty.name()
            ),
        ));
    }
    Ok((kind, metric))
}

/// The dimensions of the indexed column (its `vector(n)`), as pgvector's build checks them.
fn index_dimensions(method: &str, kind: Option<Kind>, modifier: Option<u32>) -> PgResult<usize> {
    let dimensions = modifier
        .ok_or_else(|| PgError::new(INVALID_PARAMETER_VALUE, "column does not have dimensions"))?;
    let max = match kind {
        Some(kind) => crate::pg::vector::ann::dimensions_max(kind) as u32,
        None => crate::pg::vector::sparse::DIMENSIONS_MAX as u32,
    };
    if dimensions > max {
        return Err(PgError::new(
            PROGRAM_LIMIT_EXCEEDED,
            format!("column cannot have more than {max} dimensions for {method} index"),
        ));
    }
    Ok(dimensions as usize)
}

/// An index option of `WITH (…)` within pgvector's bounds.
fn option(index: &IndexDef, name: &str, default: u32, min: u32, max: u32) -> PgResult<u32> {
    let Some((_, text)) = index.options.iter().find(|(n, _)| n == name) else {
        return Ok(default);
    };
    let value: i64 = text.parse().map_err(|_| {
        PgError::new(
            INVALID_PARAMETER_VALUE,
            format!("invalid value for integer option \"{name}\": {text}"),
        )
    })?;
    if value < min as i64 || value > max as i64 {
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            format!("value {value} out of bounds for option \"{name}\""),
        )
        .with_detail(format!("Valid values are between \"{min}\" and \"{max}\".")));
    }
    Ok(value as u32)
}
