//! Equality joins by hash: `a JOIN b ON a.x = b.y [AND …]` meets each left row only the
//! right rows whose key columns are equal, instead of every right row. A nested loop
//! over two 10,000-row tables is 10⁸ condition evaluations (PostgreSQL's join.sql stalls
//! on one); by hash it is 10⁴.
//!
//! The hash only chooses candidates: every candidate is still judged by the whole ON
//! condition, so the result is the nested loop's, rows in the same order (left rows in
//! order, each one's matches in right order). That holds as long as the model's `=`
//! being TRUE implies equal keys, which is why keys are plain columns of one type family
//! whose `=` is exact equality of the stored value (integers, text, uuid, bool, date and
//! timestamps); anything else (numeric's `1.0 = 1`, floats' `-0 = 0`, an expression that
//! could fail) keeps the nested loop.

use crate::pg::exec::context::Joined;
use crate::pg::sql::scope::column_at;
use crate::pg::sql::scope::Source;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::Value;
use sqlparser::ast::{BinaryOperator, Expr};
use std::collections::HashMap;

/// Key columns of one equality join, at most this many (more are judged by the ON
/// condition alone).
const KEY_COLUMNS_MAX: usize = 8;

/// Below this many left × right pairs the nested loop is as cheap as building a table.
const PAIRS_MIN: usize = 64;

/// One equality of the ON condition: a left column and a right column, both as indexes
/// of the joined row (the right one at or past the left width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeyPair {
    pub left_at: usize,
    pub right_at: usize,
}

/// The key columns of `condition` when a hash join may choose its candidates: its
/// top-level `AND` terms of the shape `left_column = right_column` (either way round),
/// each pair of one exact-equality type family. `None`: no such term.
pub(crate) fn key_pairs(
    condition: &Expr,
    sources: &[Source],
    left_width: usize,
    pairs: usize,
) -> Option<Vec<KeyPair>> {
    if pairs < PAIRS_MIN {
        return None;
    }
    let mut keys = Vec::new();
    conjunct_keys(condition, sources, left_width, &mut keys);
    keys.truncate(KEY_COLUMNS_MAX);
    (!keys.is_empty()).then_some(keys)
}

fn conjunct_keys(e: &Expr, sources: &[Source], left_width: usize, keys: &mut Vec<KeyPair>) {
    match e {
        Expr::Nested(inner) => conjunct_keys(inner, sources, left_width, keys),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            conjunct_keys(left, sources, left_width, keys);
            conjunct_keys(right, sources, left_width, keys);
        }
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } => {
            let (Some(a), Some(b)) = (column_at(sources, left), column_at(sources, right)) else {
                return;
            };
            let (left_at, right_at) = if a < b { (a, b) } else { (b, a) };
            let one_side_each = left_at < left_width && right_at >= left_width;
            if one_side_each && same_family(type_at(sources, left_at), type_at(sources, right_at)) {
                keys.push(KeyPair { left_at, right_at });
            }
        }
        _ => {}
    }
}

fn type_at(sources: &[Source], at: usize) -> Option<Type> {
    let source = sources
        .iter()
        .find(|s| (s.offset..s.offset + s.columns.len()).contains(&at))?;
    Some(source.columns[at - source.offset].1)
}

/// Whether `=` between the two types is exact equality of their stored values.
fn same_family(a: Option<Type>, b: Option<Type>) -> bool {
    let family = |t: Type| match t {
        Type::Int2 | Type::Int4 | Type::Int8 => Some(0),
        Type::Text | Type::Varchar => Some(1),
        Type::Uuid => Some(2),
        Type::Bool => Some(3),
        Type::Date => Some(4),
        Type::Timestamp => Some(5),
        Type::Timestamptz => Some(6),
        _ => None,
    };
    match (a.and_then(family), b.and_then(family)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// One stored value as a hash key; `None` for NULL (never equal) or a value outside the
/// families (the caller then keeps the nested loop).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key<'v> {
    Int(i64),
    Text(&'v str),
    Uuid(&'v [u8]),
    Bool(bool),
    Date(i32),
    Time(i64),
}

fn key_of(value: &Value) -> Option<Key<'_>> {
    Some(match value {
        Value::Int(x) => Key::Int(*x),
        Value::Text(s) => Key::Text(s),
        Value::Uuid(u) => Key::Uuid(u),
        Value::Bool(b) => Key::Bool(*b),
        Value::Date(d) => Key::Date(*d),
        Value::Timestamp(t) | Value::Timestamptz(t) => Key::Time(*t),
        _ => return None,
    })
}

/// A row's key, read at `at` (its columns shifted by `shift`): `Ok(None)` when a key
/// column is NULL, `Err(())` when a value has no key.
fn row_key<'v>(
    values: &'v [Value],
    columns: impl Iterator<Item = usize>,
    shift: usize,
) -> Result<Option<Vec<Key<'v>>>, ()> {
    let mut key = Vec::new();
    for at in columns {
        let value = &values[at - shift];
        if value.is_null() {
            return Ok(None);
        }
        key.push(key_of(value).ok_or(())?);
    }
    Ok(Some(key))
}

/// For each left row, the indexes of the right rows with its key, in right order.
/// `None` when a value has no key (keep the nested loop).
pub(crate) fn candidates(
    left: &[Joined],
    right: &[Joined],
    keys: &[KeyPair],
    left_width: usize,
) -> Option<Vec<Vec<usize>>> {
    assert!(!keys.is_empty() && keys.len() <= KEY_COLUMNS_MAX);
    let mut table: HashMap<Vec<Key<'_>>, Vec<usize>> = HashMap::with_capacity(right.len());
    for (at, row) in right.iter().enumerate() {
        let columns = keys.iter().map(|k| k.right_at);
        if let Some(key) = row_key(&row.values, columns, left_width).ok()? {
            table.entry(key).or_default().push(at);
        }
    }
    let mut out = Vec::with_capacity(left.len());
    for row in left {
        let columns = keys.iter().map(|k| k.left_at);
        let matches = match row_key(&row.values, columns, 0).ok()? {
            Some(key) => table.get(&key).cloned().unwrap_or_default(),
            None => Vec::new(),
        };
        out.push(matches);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(alias: &str, columns: &[(&str, Type)], offset: usize) -> Source {
        Source {
            alias: alias.to_string(),
            columns: columns.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
            offset,
        }
    }

    fn condition(sql: &str) -> Expr {
        let dialect = sqlparser::dialect::PostgreSqlDialect {};
        sqlparser::parser::Parser::new(&dialect)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_expr())
            .expect("an expression")
    }

    fn sources() -> Vec<Source> {
        vec![
            source("a", &[("id", Type::Int4), ("n", Type::Numeric)], 0),
            source("b", &[("a_id", Type::Int8), ("m", Type::Numeric)], 2),
        ]
    }

    #[test]
    fn equalities_of_exact_families_are_keys_either_way_round() {
        let keys = key_pairs(&condition("b.a_id = a.id AND a.n > 1"), &sources(), 2, 100);
        let want = KeyPair {
            left_at: 0,
            right_at: 2,
        };
        assert_eq!(keys, Some(vec![want]));
    }

    #[test]
    fn inexact_types_ors_and_small_joins_keep_the_nested_loop() {
        let s = sources();
        assert_eq!(key_pairs(&condition("a.n = b.m"), &s, 2, 100), None);
        assert_eq!(
            key_pairs(&condition("a.id = b.a_id OR true"), &s, 2, 100),
            None
        );
        assert_eq!(key_pairs(&condition("a.id = b.a_id"), &s, 2, 10), None);
        assert_eq!(key_pairs(&condition("a.id = a.id"), &s, 2, 100), None);
    }

    #[test]
    fn candidates_are_the_equal_keys_in_right_order_and_nulls_meet_none() {
        let row = |values: Vec<Value>| Joined {
            values,
            tids: vec![None],
        };
        let left = vec![row(vec![Value::Int(1)]), row(vec![Value::Null])];
        let right = vec![
            row(vec![Value::Int(1)]),
            row(vec![Value::Int(2)]),
            row(vec![Value::Int(1)]),
            row(vec![Value::Null]),
        ];
        let keys = [KeyPair {
            left_at: 0,
            right_at: 1,
        }];
        let found = candidates(&left, &right, &keys, 1).expect("keys");
        assert_eq!(found, vec![vec![0, 2], vec![]]);
        let floats = vec![row(vec![Value::Float(1.0)])];
        assert_eq!(candidates(&left, &floats, &keys, 1), None);
    }
}
