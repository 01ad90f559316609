//! The name PostgreSQL gives an index created without one (`ChooseIndexName` in
//! `indexcmds.c`): `<table>_<columns>_idx` (`_key` for a unique index), each column
//! named by itself, an expression by its function or column (`FigureIndexColname`) or
//! else `expr`, a repeated name numbered (`a`, `a1`); the whole clipped to 63 bytes by
//! `makeObjectName`'s rule, and numbered `idx1`, `idx2`, … until no relation has it.

use crate::pg::sql::names::ident;
use sqlparser::ast::{CreateIndex, Expr};

/// PostgreSQL's `NAMEDATALEN - 1`: the longest identifier, in bytes.
const NAME_BYTES_MAX: usize = 63;

/// Numbered names tried before giving up (PostgreSQL tries forever; a limit on all).
const ATTEMPTS_MAX: u32 = 10_000;

/// The name for `create` on `table`; `taken` says whether a relation already has a name.
pub(crate) fn choose(
    table: &str,
    create: &CreateIndex,
    taken: impl Fn(&str) -> bool,
) -> Option<String> {
    let addition = column_names(create).join("_");
    let addition = clip(&addition, NAME_BYTES_MAX);
    // `key` is for a UNIQUE constraint's index; CREATE UNIQUE INDEX's is an `idx`.
    let label = "idx";
    let mut name = object_name(table, addition, label);
    for pass in 1..=ATTEMPTS_MAX {
        if !taken(&name) {
            return Some(name);
        }
        name = object_name(table, addition, &format!("{label}{pass}"));
    }
    None
}

/// Each index column's name (`ChooseIndexColumnNames`): a repeat numbered from 1.
fn column_names(create: &CreateIndex) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for column in &create.columns {
        let original = match &column.column.expr {
            Expr::Identifier(i) => ident(i),
            e => crate::pg::exec::query::own_name(e).unwrap_or_else(|| "expr".into()),
        };
        let mut name = original.clone();
        let mut n = 1;
        while names.contains(&name) {
            let suffix = n.to_string();
            name = format!("{}{suffix}", clip(&original, NAME_BYTES_MAX - suffix.len()));
            n += 1;
        }
        names.push(name);
    }
    names
}

/// `makeObjectName`: `name1_name2_label`, the longer of the two names clipped a byte at a
/// time until the whole fits in 63 bytes (the label is never clipped).
fn object_name(name1: &str, name2: &str, label: &str) -> String {
    let separators = 1 + usize::from(!name2.is_empty());
    let available = NAME_BYTES_MAX.saturating_sub(label.len() + separators);
    let (mut chars1, mut chars2) = (name1.len(), name2.len());
    while chars1 + chars2 > available {
        if chars1 > chars2 {
            chars1 -= 1;
        } else {
            chars2 -= 1;
        }
    }
    let mut name = clip(name1, chars1).to_string();
    if !name2.is_empty() {
        name.push('_');
        name.push_str(clip(name2, chars2));
    }
    name.push('_');
    name.push_str(label);
    name
}

/// The longest prefix of `s` of at most `bytes` bytes that ends on a character.
fn clip(s: &str, bytes: usize) -> &str {
    let mut end = bytes.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(sql: &str) -> CreateIndex {
        let dialect = sqlparser::dialect::PostgreSqlDialect {};
        match sqlparser::parser::Parser::parse_sql(&dialect, sql)
            .expect("sql")
            .remove(0)
        {
            sqlparser::ast::Statement::CreateIndex(c) => c,
            other => panic!("not CREATE INDEX: {other}"),
        }
    }

    #[test]
    fn names_are_table_columns_and_label_numbered_when_taken() {
        let none = |_: &str| false;
        let c = create("CREATE INDEX ON wide USING hnsw (w vector_l2_ops)");
        assert_eq!(choose("wide", &c, none).as_deref(), Some("wide_w_idx"));
        let c = create("CREATE UNIQUE INDEX ON t (a, b, a)");
        assert_eq!(choose("t", &c, none).as_deref(), Some("t_a_b_a1_idx"));
        let c = create("CREATE INDEX ON t ((lower(name)), (a + 1))");
        assert_eq!(choose("t", &c, none).as_deref(), Some("t_lower_expr_idx"));
        let taken = |n: &str| n == "t_a_idx" || n == "t_a_idx1";
        let c = create("CREATE INDEX ON t (a)");
        assert_eq!(choose("t", &c, taken).as_deref(), Some("t_a_idx2"));
    }

    #[test]
    fn long_names_clip_the_longer_part_first() {
        let table = "t".repeat(40);
        let column = "c".repeat(40);
        let name = object_name(&table, &column, "idx");
        assert_eq!(name.len(), NAME_BYTES_MAX);
        assert_eq!(name, format!("{}_{}_idx", "t".repeat(29), "c".repeat(29)));
    }
}
