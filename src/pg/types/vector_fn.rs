//! pgvector's functions on the `vector` type: the distances by name, `vector_dims`,
//! `vector_norm`, `l2_normalize`, and `vector || vector`.

use crate::pg::error::{PgError, PgResult};
use crate::pg::types::cast::cast;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};
use crate::pg::vector::value as vector;

const FUNCTIONS: [&str; 7] = [
    "l2_distance",
    "cosine_distance",
    "inner_product",
    "l1_distance",
    "vector_dims",
    "vector_norm",
    "l2_normalize",
];

pub(crate) fn knows(name: &str) -> bool {
    FUNCTIONS.contains(&name)
}

pub(crate) fn return_type(name: &str) -> Type {
    match name {
        "vector_dims" => Type::Int4,
        "l2_normalize" => Type::Vector,
        _ => Type::Float8,
    }
}

fn vectors(args: Vec<Typed>) -> PgResult<Option<Vec<Vec<f32>>>> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match cast(arg, Type::Vector, None)?.v {
            Value::Vector(v) => out.push(v),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

pub(crate) fn call(name: &str, args: Vec<Typed>) -> PgResult<Typed> {
    let t = return_type(name);
    let expected = if matches!(name, "vector_dims" | "vector_norm" | "l2_normalize") {
        1
    } else {
        2
    };
    if args.len() != expected {
        return Err(PgError::new(
            crate::pg::error::UNDEFINED_FUNCTION,
            format!(
                "function {name} with {} arguments does not exist",
                args.len()
            ),
        ));
    }
    let Some(v) = vectors(args)? else {
        return Ok(Typed::null(t));
    };
    let error = |e: vector::VectorError| PgError::new(e.sqlstate, e.message);
    let value = match name {
        "l2_distance" => Value::Float(vector::l2_distance(&v[0], &v[1]).map_err(error)?),
        "cosine_distance" => Value::Float(vector::cosine_distance(&v[0], &v[1]).map_err(error)?),
        "inner_product" => Value::Float(vector::inner_product(&v[0], &v[1]).map_err(error)?),
        "l1_distance" => Value::Float(vector::l1_distance(&v[0], &v[1]).map_err(error)?),
        "vector_dims" => Value::Int(vector::vector_dims(&v[0]) as i64),
        "vector_norm" => Value::Float(vector::vector_norm(&v[0])),
        _ => Value::Vector(vector::l2_normalize(&v[0]).map_err(error)?),
    };
    Ok(Typed::new(value, t))
}

/// `vector + vector`, `-` and `*` (`vector_add`, `vector_sub`, `vector_mul`).
pub(crate) fn elementwise(
    op: &sqlparser::ast::BinaryOperator,
    a: &[f32],
    b: &[f32],
) -> PgResult<Vec<f32>> {
    use sqlparser::ast::BinaryOperator::{Minus, Multiply};
    let result = match op {
        Minus => vector::elementwise(a, b, |x, y| x - y, false),
        Multiply => vector::elementwise(a, b, |x, y| x * y, true),
        _ => vector::elementwise(a, b, |x, y| x + y, false),
    };
    result.map_err(|e| PgError::new(e.sqlstate, e.message))
}

/// `vector || vector` (`vector_concat`).
pub(crate) fn concat(a: &[f32], b: &[f32]) -> PgResult<Vec<f32>> {
    vector::concat(a, b).map_err(|e| PgError::new(e.sqlstate, e.message))
}
