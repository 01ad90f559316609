//! The names of PostgreSQL 18.3's built-in functions, types, operators and catalog
//! relations (with pgvector 0.8.2's), so a name the model lacks is answered as a refusal
//! (0A000: PostgreSQL has it, the model does not) rather than as PostgreSQL's "does not
//! exist" (42883, 42704, 42P01), which would be a wrong answer about PostgreSQL. A name
//! in no list is PostgreSQL's error as it is.
//!
//! The lists were read from a fresh PostgreSQL 18.3 after `CREATE EXTENSION vector`:
//! `SELECT DISTINCT proname FROM pg_proc` and `SELECT typname FROM pg_type` (base, pseudo,
//! range, multirange, enum and domain types, arrays left out) of `pg_catalog` and
//! `public`, in C order; the types' list adds the SQL spellings of the standard's names
//! (`character varying`, `time with time zone`). The relations are `pg_class`'s tables
//! and views of `pg_catalog` and `information_schema`; the operators `pg_operator`'s
//! names with their operand types' `typname` (`-` for a prefix operator's left). One
//! entry per line, sorted, so a lookup is a binary search (an operator's, a scan of its
//! name's lines).

use crate::pg::types::pg_type::Type;

/// `SELECT DISTINCT proname FROM pg_proc` (pg_catalog and pgvector's), sorted.
const FUNCTIONS: &str = include_str!("builtin_functions.txt");
/// `SELECT DISTINCT proname FROM pg_proc WHERE prokind IN ('a', 'w')`: the aggregate and
/// window functions, sorted.
const AGGREGATES: &str = include_str!("builtin_aggregates.txt");
/// `SELECT typname FROM pg_type` and the standard's spellings, sorted.
const TYPES: &str = include_str!("builtin_types.txt");
/// `pg_class.relname` of pg_catalog's tables and views, and information_schema's with
/// their schema (`information_schema.columns`), sorted.
const RELATIONS: &str = include_str!("builtin_relations.txt");
/// `oprname oprleft oprright` by `typname`, sorted.
const OPERATORS: &str = include_str!("builtin_operators.txt");
/// The longest name either list holds (PostgreSQL's NAMEDATALEN - 1).
const NAME_BYTES_MAX: usize = 63;

/// Whether PostgreSQL 18.3 (with pgvector) has a function of this name.
pub(crate) fn is_function(name: &str) -> bool {
    contains(FUNCTIONS, name)
}

/// Whether PostgreSQL 18.3 has an aggregate or window function of this name.
pub(crate) fn is_aggregate(name: &str) -> bool {
    contains(AGGREGATES, name)
}

/// Whether PostgreSQL 18.3 (with pgvector) has a type of this name (`pg_type.typname` or
/// an SQL spelling of one).
pub(crate) fn is_type(name: &str) -> bool {
    contains(TYPES, name)
}

/// Whether PostgreSQL 18.3 has a catalog table or view of this name.
pub(crate) fn is_relation(name: &str) -> bool {
    // information_schema is not on the search path: its relations count by full name.
    contains(RELATIONS, name.strip_prefix("pg_catalog.").unwrap_or(name))
}

/// Whether PostgreSQL 18.3 (with pgvector) has an operator `name` that takes operands of
/// these types (`None`: a prefix operator's missing left), exactly or through a
/// polymorphic type or an implicit widening. Generous on purpose: what it wrongly takes
/// for PostgreSQL's is refused, which is never a wrong answer.
pub(crate) fn is_operator(name: &str, left: Option<Type>, right: Type) -> bool {
    let lefts = left.map_or_else(|| vec!["-".to_string()], spellings);
    let rights = spellings(right);
    OPERATORS.lines().any(|line| {
        let mut parts = line.split(' ');
        let (Some(op), Some(l), Some(r)) = (parts.next(), parts.next(), parts.next()) else {
            return false;
        };
        op == name && lefts.iter().any(|x| x == l) && rights.iter().any(|x| x == r)
    })
}

/// The `typname`s an operand of type `t` matches in `pg_operator`.
fn spellings(t: Type) -> Vec<String> {
    let mut names = vec![t.typname().to_string()];
    names.extend(["anyelement", "anycompatible", "any"].map(String::from));
    let family: &[&str] = match t {
        _ if t.element().is_some() => &["anyarray", "anycompatiblearray"],
        // Implicit casts only widen: int2 → int4 → int8 → numeric → float4 → float8.
        Type::Int2 => &["int4", "int8", "numeric", "float4", "float8", "anynonarray"],
        Type::Int4 => &["int8", "numeric", "float4", "float8", "anynonarray"],
        Type::Int8 => &["numeric", "float4", "float8", "anynonarray"],
        Type::Numeric => &["float4", "float8", "anynonarray"],
        Type::Float4 => &["float8", "anynonarray"],
        _ if t.is_text() => &["text", "varchar", "bpchar", "name", "anynonarray"],
        Type::Unknown => &["unknown"],
        _ => &["anynonarray", "anycompatiblenonarray"],
    };
    names.extend(family.iter().map(|n| n.to_string()));
    names
}

fn contains(list: &'static str, name: &str) -> bool {
    if name.len() > NAME_BYTES_MAX {
        return false;
    }
    lines(list).binary_search(&name).is_ok()
}

/// The list's lines, split once per list.
fn lines(list: &'static str) -> &'static [&'static str] {
    use std::sync::OnceLock;
    static LINES: [OnceLock<Vec<&'static str>>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    let slot = [FUNCTIONS, TYPES, RELATIONS, AGGREGATES]
        .iter()
        .position(|known| std::ptr::eq(*known, list))
        .expect("one of the sorted lists");
    LINES[slot].get_or_init(|| list.lines().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_are_sorted_and_hold_postgresqls_and_pgvectors_names() {
        for list in [FUNCTIONS, TYPES, RELATIONS, OPERATORS, AGGREGATES] {
            let names: Vec<&str> = list.lines().collect();
            assert!(
                names.windows(2).all(|pair| pair[0] < pair[1]),
                "sorted, no repeats"
            );
            assert!(names.iter().all(|name| name.len() <= 3 * NAME_BYTES_MAX));
        }
        assert!(is_function("hamming_distance") && is_function("regexp_replace"));
        assert!(is_aggregate("var_pop") && !is_aggregate("upper"));
        assert!(is_type("halfvec") && is_type("sparsevec") && is_type("time with time zone"));
        assert!(!is_function("no_such_function") && !is_type("no_such_type"));
        assert!(is_relation("pg_class") && is_relation("information_schema.columns"));
        assert!(is_operator("<<", Some(Type::Int8), Type::Int4));
        assert!(is_operator("|/", None, Type::Float8));
        assert!(!is_operator("<<", Some(Type::Text), Type::Bool));
        assert!(
            !is_operator("->", Some(Type::Jsonb), Type::Int8),
            "int8 does not narrow"
        );
    }
}
