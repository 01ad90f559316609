//! Full-text search's SQL functions and operator on values: `to_tsvector`,
//! `plainto_tsquery`, `ts_rank`, `ts_rank_cd` and `@@`, their arguments cast and checked
//! (the `simple` configuration only), over `tsearch.rs`'s vectors and queries.

use crate::pg::error::*;
use crate::pg::types::pg_type::Type;
use crate::pg::types::regtype::regconfig;
use crate::pg::types::tsearch;
use crate::pg::types::tsearch::{
    plainto_tsquery, refused, to_tsvector, ts_rank, ts_rank_cd, SIMPLE_OID,
};
use crate::pg::types::value::{Typed, Value};

/// The configuration argument: `simple` (a name or the regconfig), else refused.
fn check_config(config: &Typed) -> PgResult<()> {
    match &config.v {
        Value::Int(SIMPLE_OID) if config.t == Type::Regconfig => Ok(()),
        Value::Text(name) => regconfig(name).map(|_| ()),
        _ => Err(refused("a text search configuration other than simple")),
    }
}

/// Whether `name` is a text-search function of this file.
pub(crate) fn knows(name: &str) -> bool {
    matches!(
        name,
        "to_tsvector" | "plainto_tsquery" | "to_tsquery" | "ts_rank" | "ts_rank_cd"
    )
}

pub(crate) fn return_type(name: &str) -> Type {
    match name {
        "to_tsvector" => Type::Tsvector,
        "plainto_tsquery" | "to_tsquery" => Type::Tsquery,
        _ => Type::Float4,
    }
}

fn text_of(arg: Typed) -> PgResult<Option<String>> {
    match crate::pg::types::cast::cast(arg, Type::Text, None)?.v {
        Value::Text(s) => Ok(Some(s)),
        _ => Ok(None),
    }
}

/// A text-search function call.
pub(crate) fn call(name: &str, args: Vec<Typed>) -> PgResult<Typed> {
    let t = return_type(name);
    let mut args = args.into_iter();
    match (name, args.len()) {
        ("to_tsvector" | "plainto_tsquery" | "to_tsquery", 1) => Err(refused(format!(
            "{name} with the default configuration (default_text_search_config)"
        ))),
        ("to_tsquery", _) => Err(refused("to_tsquery")),
        ("to_tsvector" | "plainto_tsquery", 2) => {
            let config = args.next().expect("two");
            if config.v.is_null() {
                return Ok(Typed::null(t));
            }
            check_config(&config)?;
            let Some(text) = text_of(args.next().expect("two"))? else {
                return Ok(Typed::null(t));
            };
            Ok(match name {
                "to_tsvector" => Typed::new(Value::Tsvector(Box::new(to_tsvector(&text)?)), t),
                _ => Typed::new(Value::Tsquery(Box::new(plainto_tsquery(&text)?)), t),
            })
        }
        ("ts_rank" | "ts_rank_cd", 2) => {
            let v = crate::pg::types::cast::cast(args.next().expect("two"), Type::Tsvector, None)?;
            let q = crate::pg::types::cast::cast(args.next().expect("two"), Type::Tsquery, None)?;
            let (Value::Tsvector(v), Value::Tsquery(q)) = (v.v, q.v) else {
                return Ok(Typed::null(t));
            };
            let rank = match name {
                "ts_rank" => ts_rank(&v, &q)?,
                _ => ts_rank_cd(&v, &q)?,
            };
            Ok(Typed::new(Value::Float(rank as f64), t))
        }
        (name, n) => Err(refused(format!("{name} with {n} arguments"))),
    }
}

/// `@@` between a tsvector and a tsquery (either side first).
pub(crate) fn match_operator(a: Value, b: Value) -> PgResult<Value> {
    match (a, b) {
        (Value::Tsvector(v), Value::Tsquery(q)) | (Value::Tsquery(q), Value::Tsvector(v)) => {
            Ok(Value::Bool(tsearch::matches(&v, &q)))
        }
        _ => Err(refused("@@ between these types")),
    }
}
