//! A statement's rows found through a unique key's index rather than by a scan of the
//! heap, when its condition binds the key's leading columns to values known before any
//! row is read (`tenant = $1 AND session = $2` against `UNIQUE (tenant, session, id)`),
//! as PostgreSQL's planner picks an index scan on a btree's prefix. The index only narrows
//! the candidates: every candidate is still judged by the whole condition, so the rows a
//! statement sees are exactly a scan's, in the same (heap) order.

use crate::pg::error::FlowResult;
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::sql::names::ident;
use crate::pg::sql::scope::Source;
use crate::pg::storage::db::TableLockMode;
use crate::pg::storage::heap::{sees_version, Viewer};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::Value;
use sqlparser::ast::{BinaryOperator, Expr};

/// Visible versions: tuple id and data, in heap order.
type Versions = Vec<(u64, Vec<Value>)>;

/// Conjuncts of a condition looked at for a key, at most (a longer condition is scanned).
const CONJUNCTS_MAX: usize = 16;

impl Exec<'_> {
    /// The versions of `table` visible to the statement that `condition` may hold for,
    /// found through a unique key's index; `None` when the condition binds no unique
    /// key's first column (the caller scans the heap).
    pub(crate) fn keyed_rows(
        &mut self,
        table: &str,
        condition: &Expr,
        sources: &[Source],
    ) -> FlowResult<Option<Versions>> {
        let mut parts = Vec::new();
        conjuncts(condition, &mut parts);
        if parts.len() > CONJUNCTS_MAX {
            return Ok(None);
        }
        let mut bound: Vec<(usize, Value)> = Vec::new();
        for part in parts {
            if let Some((column, value)) = self.bound_column(table, part, sources)? {
                bound.push((column, value));
            }
        }
        let Some(columns) = self.key_prefix(table, &bound)? else {
            return Ok(None);
        };
        self.lock_table(table, TableLockMode::AccessShare)?;
        let t = self.db.table_mut(table)?;
        let mut probe = vec![Value::Null; t.columns.len()];
        for (column, value) in bound {
            probe[column] = value;
        }
        let tids = t.heap.with_key(&columns, &probe);
        self.work += tids.len() as u64;
        self.tick()?;
        let viewer = Viewer {
            snapshot: &self.snapshot,
            xid: self.xid,
            cid: self.cid,
        };
        let t = self.db.table(table)?;
        let rows = tids
            .into_iter()
            .filter_map(|tid| {
                let v = t.heap.get(&tid)?;
                sees_version(&self.db.txns, viewer, v).then(|| (tid, v.data.clone()))
            })
            .collect();
        Ok(Some(rows))
    }

    /// `column = value` of `table`'s own column against a parameter or a constant of the
    /// column's own type (an index of one type answers for that type's equality only).
    fn bound_column(
        &mut self,
        table: &str,
        part: &Expr,
        sources: &[Source],
    ) -> FlowResult<Option<(usize, Value)>> {
        let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = part
        else {
            return Ok(None);
        };
        let (name, other) = match (column_name(left, sources), column_name(right, sources)) {
            (Some(name), None) => (name, right.as_ref()),
            (None, Some(name)) => (name, left.as_ref()),
            _ => return Ok(None),
        };
        if !matches!(other, Expr::Value(_)) {
            return Ok(None);
        }
        let t = self.db.table(table)?;
        let Some(column) = t.column(&name) else {
            return Ok(None);
        };
        let ty = t.columns[column].ty;
        if !KEYED_TYPES.contains(&ty) {
            return Ok(None);
        }
        let frame = Frame {
            sources: &[],
            values: &[],
            parent: None,
            depth: self.nesting,
        };
        let Ok(typed) = self.eval(other, &frame) else {
            return Ok(None); // the whole condition answers the error, as a scan would
        };
        Ok((typed.t == ty && !typed.v.is_null()).then_some((column, typed.v)))
    }

    /// The longest leading column set of one of `table`'s unique keys that `bound` binds.
    fn key_prefix(&self, table: &str, bound: &[(usize, Value)]) -> FlowResult<Option<Vec<usize>>> {
        let t = self.db.table(table)?;
        let is_bound = |c: &usize| bound.iter().any(|(b, _)| b == c);
        let best = t
            .uniques
            .iter()
            .map(|u| {
                u.columns
                    .iter()
                    .take_while(|c| is_bound(c))
                    .copied()
                    .collect::<Vec<_>>()
            })
            .filter(|prefix| !prefix.is_empty())
            .max_by_key(Vec::len);
        Ok(best)
    }
}

/// Types whose equality is their sort order's (`compare`), which the index keys by.
const KEYED_TYPES: [Type; 7] = [
    Type::Bool,
    Type::Int2,
    Type::Int4,
    Type::Int8,
    Type::Text,
    Type::Varchar,
    Type::Uuid,
];

/// The `AND`ed parts of a condition.
fn conjuncts<'e>(condition: &'e Expr, out: &mut Vec<&'e Expr>) {
    match condition {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        Expr::Nested(inner) => conjuncts(inner, out),
        other => out.push(other),
    }
}

/// The column `e` names when it is a column of the statement's one source (bare, or
/// qualified by the source's name).
fn column_name(e: &Expr, sources: &[Source]) -> Option<String> {
    let [source] = sources else {
        return None;
    };
    let name = match e {
        Expr::Identifier(i) => ident(i),
        Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [qualifier, column] if ident(qualifier) == source.alias => ident(column),
            _ => return None,
        },
        _ => return None,
    };
    source
        .columns
        .iter()
        .any(|(c, _)| *c == name)
        .then_some(name)
}
