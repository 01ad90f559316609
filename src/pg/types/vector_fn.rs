//! pgvector's functions on its types, `vector`, `halfvec` and `sparsevec`: the distances
//! by name, `vector_dims`, `vector_norm`, `l2_norm`, `l2_normalize`, `subvector`, the
//! btree comparison functions, the aggregates `sum` and `avg`, and the operators `+`,
//! `-`, `*`, `||` and the distances. Each name resolves to its overload as PostgreSQL's
//! function resolution picks it: a `vector` casts to `halfvec` and `sparsevec`
//! implicitly (so a choice between those two alone is ambiguous), a `halfvec` to
//! `sparsevec` implicitly and to `vector` only by assignment, a `sparsevec` to the dense
//! types only by assignment.

use crate::pg::error::{PgError, PgResult, AMBIGUOUS_FUNCTION, UNDEFINED_FUNCTION};
use crate::pg::types::cast::cast;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};
use crate::pg::vector::sparse::{self, Sparse};
use crate::pg::vector::value::{self as vector, Kind};

/// Each function with the dense types it is defined for (pgvector's `sparsevec` noted
/// where it has an overload, which makes a choice ambiguous) and its argument count.
struct Function {
    name: &'static str,
    vector: bool,
    halfvec: bool,
    sparsevec: bool,
    arguments: usize,
}

const fn function(
    name: &'static str,
    [vector, halfvec, sparsevec]: [bool; 3],
    arguments: usize,
) -> Function {
    Function {
        name,
        vector,
        halfvec,
        sparsevec,
        arguments,
    }
}

const ALL: [bool; 3] = [true, true, true];
const DENSE: [bool; 3] = [true, true, false];

const FUNCTIONS: [Function; 12] = [
    function("l2_distance", ALL, 2),
    function("cosine_distance", ALL, 2),
    function("inner_product", ALL, 2),
    function("l1_distance", ALL, 2),
    function("vector_dims", DENSE, 1),
    function("vector_norm", [true, false, false], 1),
    function("l2_norm", [false, true, true], 1),
    function("l2_normalize", ALL, 1),
    function("subvector", DENSE, 3),
    function("vector_cmp", [true, false, false], 2),
    function("halfvec_cmp", [false, true, false], 2),
    function("sparsevec_cmp", [false, false, true], 2),
];

/// The overload a call resolves to: a dense type's, or `sparsevec`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Overload {
    Dense(Kind),
    Sparse,
}

fn find(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|f| f.name == name)
}

pub(crate) fn knows(name: &str) -> bool {
    find(name).is_some()
}

/// The arguments of `name` that are vectors (`subvector`'s bounds are integers).
fn vector_arguments(name: &str, count: usize) -> usize {
    match name {
        "subvector" => count.min(1),
        _ => count,
    }
}

/// The types the arguments of `name` take when nothing else says (a parameter's).
pub(crate) fn argument_types(name: &str, count: usize) -> Vec<Option<Type>> {
    let t = match find(name) {
        Some(f) if !f.vector && !f.halfvec => Type::Sparsevec,
        Some(f) if !f.vector && !f.sparsevec => Type::Halfvec,
        _ => Type::Vector,
    };
    let vectors = vector_arguments(name, count);
    (0..count)
        .map(|i| Some(if i < vectors { t } else { Type::Int4 }))
        .collect()
}

/// The overload of `name` PostgreSQL picks for arguments of `types`: `halfvec` when one
/// is a halfvec (or a vector and only the halfvec overload is left), `vector` when one
/// is a vector; untyped literals alone pick only a function with one overload.
fn resolve(name: &str, types: &[Type]) -> PgResult<Overload> {
    let f = find(name).expect("a pgvector function");
    let vectors = &types[..vector_arguments(name, types.len())];
    let has = |t: Type| vectors.contains(&t);
    let listed = || {
        let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
        format!("{name}({})", names.join(", "))
    };
    let missing = || {
        PgError::new(
            UNDEFINED_FUNCTION,
            format!("function {} does not exist", listed()),
        )
    };
    let ambiguous = || {
        PgError::new(
            AMBIGUOUS_FUNCTION,
            format!("function {} is not unique", listed()),
        )
    };
    // A sparsevec casts to neither dense type implicitly.
    if has(Type::Sparsevec) {
        return if f.sparsevec {
            Ok(Overload::Sparse)
        } else {
            Err(missing())
        };
    }
    // A halfvec casts implicitly to sparsevec only.
    if has(Type::Halfvec) {
        return match (f.halfvec, f.sparsevec) {
            (true, _) => Ok(Overload::Dense(Kind::Halfvec)),
            (false, true) => Ok(Overload::Sparse),
            (false, false) => Err(missing()),
        };
    }
    let from_vector = has(Type::Vector) || vectors.iter().any(|t| *t != Type::Unknown);
    match (f.vector, f.halfvec, f.sparsevec) {
        (true, _, _) if from_vector => Ok(Overload::Dense(Kind::Vector)),
        // A vector casts implicitly to both halfvec and sparsevec: neither is better.
        (false, true, true) if from_vector => Err(ambiguous()),
        (false, true, _) if from_vector => Ok(Overload::Dense(Kind::Halfvec)),
        (false, false, true) if from_vector => Ok(Overload::Sparse),
        (true, false, false) => Ok(Overload::Dense(Kind::Vector)),
        (false, true, false) => Ok(Overload::Dense(Kind::Halfvec)),
        (false, false, true) => Ok(Overload::Sparse),
        _ if vectors.is_empty() => Err(missing()),
        _ => Err(ambiguous()),
    }
}

fn vector_type(kind: Kind) -> Type {
    match kind {
        Kind::Vector => Type::Vector,
        Kind::Halfvec => Type::Halfvec,
    }
}

fn overload_type(overload: Overload) -> Type {
    match overload {
        Overload::Dense(kind) => vector_type(kind),
        Overload::Sparse => Type::Sparsevec,
    }
}

/// The type `name` returns for arguments of `types` (`Unknown` when none resolves: the
/// call then fails with PostgreSQL's error).
pub(crate) fn return_type(name: &str, types: &[Type]) -> Type {
    match name {
        "vector_dims" | "vector_cmp" | "halfvec_cmp" | "sparsevec_cmp" => Type::Int4,
        "l2_normalize" | "subvector" => match resolve(name, types) {
            Ok(overload) => overload_type(overload),
            Err(_) => Type::Unknown,
        },
        _ => Type::Float8,
    }
}

/// pgvector's error as the server reports it (with its `DETAIL` line, if any).
fn error(e: vector::VectorError) -> PgError {
    PgError::from(e)
}

/// The vectors among `args`, each cast to the overload's type; `None` if one is NULL.
fn vectors(kind: Kind, args: &[Typed]) -> PgResult<Option<Vec<Vec<f32>>>> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match cast(arg.clone(), vector_type(kind), None)?.v {
            Value::Vector(v) => out.push(v),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// The integers among `args` (`subvector`'s bounds); `None` if one is NULL.
fn integers(args: &[Typed]) -> PgResult<Option<Vec<i32>>> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match cast(arg.clone(), Type::Int4, None)?.v {
            Value::Int(n) => out.push(i32::try_from(n).expect("an int4 fits")),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

pub(crate) fn call(name: &str, args: Vec<Typed>) -> PgResult<Typed> {
    let f = find(name).expect("a pgvector function");
    let types: Vec<Type> = args.iter().map(|a| a.t).collect();
    if args.len() != f.arguments {
        return Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!(
                "function {name} with {} arguments does not exist",
                args.len()
            ),
        ));
    }
    let kind = match resolve(name, &types)? {
        Overload::Dense(kind) => kind,
        Overload::Sparse => return call_sparse(name, &args, return_type(name, &types)),
    };
    let t = return_type(name, &types);
    let (vector_args, other_args) = args.split_at(vector_arguments(name, args.len()));
    let (Some(v), Some(n)) = (vectors(kind, vector_args)?, integers(other_args)?) else {
        return Ok(Typed::null(t));
    };
    let float = |d: Result<f64, vector::VectorError>| d.map(Value::Float).map_err(error);
    let value = match name {
        "l2_distance" => float(vector::l2_distance(kind, &v[0], &v[1]))?,
        "cosine_distance" => float(vector::cosine_distance(kind, &v[0], &v[1]))?,
        "inner_product" => float(vector::inner_product(kind, &v[0], &v[1]))?,
        "l1_distance" => float(vector::l1_distance(kind, &v[0], &v[1]))?,
        "vector_dims" => Value::Int(i64::from(vector::vector_dims(&v[0]))),
        "vector_norm" | "l2_norm" => Value::Float(vector::vector_norm(&v[0])),
        "subvector" => Value::Vector(vector::subvector(kind, &v[0], n[0], n[1]).map_err(error)?),
        "vector_cmp" | "halfvec_cmp" => Value::Int(compare(&v[0], &v[1])),
        _ => Value::Vector(vector::l2_normalize(kind, &v[0]).map_err(error)?),
    };
    Ok(Typed::new(value, t))
}

/// `vector_cmp`: -1, 0 or 1 by the btree order (elements first, then dimensions).
fn compare(a: &[f32], b: &[f32]) -> i64 {
    let (a, b) = (Value::Vector(a.to_vec()), Value::Vector(b.to_vec()));
    crate::pg::types::value::compare(&a, &b) as i64
}

/// The sparsevecs among `args`, each cast to `sparsevec`; `None` if one is NULL.
fn sparse_arguments(args: &[Typed]) -> PgResult<Option<Vec<Sparse>>> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match cast(arg.clone(), Type::Sparsevec, None)?.v {
            Value::Sparse(v) => out.push(*v),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// A function's `sparsevec` overload (`sparsevec_l2_distance` and its kin).
fn call_sparse(name: &str, args: &[Typed], t: Type) -> PgResult<Typed> {
    let Some(v) = sparse_arguments(args)? else {
        return Ok(Typed::null(t));
    };
    let float = |d: Result<f64, vector::VectorError>| d.map(Value::Float).map_err(error);
    let value = match name {
        "l2_distance" => float(sparse::l2_distance(&v[0], &v[1]))?,
        "cosine_distance" => float(sparse::cosine_distance(&v[0], &v[1]))?,
        "inner_product" => float(sparse::inner_product(&v[0], &v[1]))?,
        "l1_distance" => float(sparse::l1_distance(&v[0], &v[1]))?,
        "l2_norm" => Value::Float(sparse::l2_norm(&v[0])),
        "sparsevec_cmp" => Value::Int(sparse::compare(&v[0], &v[1]) as i64),
        "l2_normalize" => Value::Sparse(Box::new(sparse::l2_normalize(&v[0]).map_err(error)?)),
        other => unreachable!("{other} has no sparsevec overload"),
    };
    Ok(Typed::new(value, t))
}

/// Two operands of a vector operator brought to one type: a vector beside a halfvec
/// becomes one (pgvector's implicit cast), as PostgreSQL resolves `vector <-> halfvec`.
pub(crate) fn settle_kinds(
    op: &sqlparser::ast::BinaryOperator,
    l: Typed,
    r: Typed,
) -> PgResult<(Typed, Typed)> {
    let distance = is_distance(op);
    match (l.t, r.t) {
        // A dense value beside a sparsevec becomes one, for the operators both have.
        (Type::Vector | Type::Halfvec, Type::Sparsevec) if distance => {
            Ok((cast(l, Type::Sparsevec, None)?, r))
        }
        (Type::Sparsevec, Type::Vector | Type::Halfvec) if distance => {
            Ok((l, cast(r, Type::Sparsevec, None)?))
        }
        (Type::Vector, Type::Halfvec) => Ok((cast(l, Type::Halfvec, None)?, r)),
        (Type::Halfvec, Type::Vector) => Ok((l, cast(r, Type::Halfvec, None)?)),
        _ => Ok((l, r)),
    }
}

/// The type `vector op vector` works in for operand types `l` and `r`, if both are
/// pgvector's dense types: `halfvec` when either is.
pub(crate) fn operand_type(l: Type, r: Type) -> Option<Type> {
    match (l.vector_kind(), r.vector_kind()) {
        (Some(_), Some(_)) if l == r => Some(l),
        (Some(_), Some(_)) => Some(Type::Halfvec),
        _ => None,
    }
}

/// Whether `op` is one of pgvector's distance operators (`<->`, `<=>`, `<#>`, `<+>`).
pub(crate) fn is_distance(op: &sqlparser::ast::BinaryOperator) -> bool {
    use sqlparser::ast::BinaryOperator::{Custom, LtDashGt, Spaceship};
    match op {
        LtDashGt | Spaceship => true,
        Custom(name) => matches!(name.as_str(), "<#>" | "<+>"),
        _ => false,
    }
}

/// The type a distance operator works in for operand types `l` and `r`, if both are
/// pgvector's: `sparsevec` when either is, else as [`operand_type`].
pub(crate) fn distance_operand_type(l: Type, r: Type) -> Option<Type> {
    match (l.is_pgvector(), r.is_pgvector()) {
        (true, true) if l == Type::Sparsevec || r == Type::Sparsevec => Some(Type::Sparsevec),
        _ => operand_type(l, r),
    }
}

/// A distance operator on two sparsevecs.
pub(crate) fn sparse_distance(
    op: &sqlparser::ast::BinaryOperator,
    a: &Sparse,
    b: &Sparse,
) -> Option<PgResult<f64>> {
    use sqlparser::ast::BinaryOperator::{Custom, LtDashGt, Spaceship};
    let distance = match op {
        LtDashGt => sparse::l2_distance(a, b),
        Spaceship => sparse::cosine_distance(a, b),
        Custom(name) if name == "<#>" => sparse::negative_inner_product(a, b),
        Custom(name) if name == "<+>" => sparse::l1_distance(a, b),
        _ => return None,
    };
    Some(distance.map_err(error))
}

/// `vector + vector`, `-` and `*` (`vector_add`, `vector_sub`, `vector_mul`).
pub(crate) fn elementwise(
    op: &sqlparser::ast::BinaryOperator,
    kind: Kind,
    a: &[f32],
    b: &[f32],
) -> PgResult<Vec<f32>> {
    use sqlparser::ast::BinaryOperator::{Minus, Multiply};
    let result = match op {
        Minus => vector::elementwise(kind, a, b, |x, y| x - y, false),
        Multiply => vector::elementwise(kind, a, b, |x, y| x * y, true),
        _ => vector::elementwise(kind, a, b, |x, y| x + y, false),
    };
    result.map_err(error)
}

/// `vector || vector` (`vector_concat`).
pub(crate) fn concat(kind: Kind, a: &[f32], b: &[f32]) -> PgResult<Vec<f32>> {
    vector::concat(kind, a, b).map_err(error)
}

/// A distance operator: `<->`, `<=>` or `<#>`.
pub(crate) fn distance(
    op: &sqlparser::ast::BinaryOperator,
    kind: Kind,
    a: &[f32],
    b: &[f32],
) -> Option<PgResult<f64>> {
    use sqlparser::ast::BinaryOperator::{Custom, LtDashGt, Spaceship};
    let distance = match op {
        LtDashGt => vector::l2_distance(kind, a, b),
        Spaceship => vector::cosine_distance(kind, a, b),
        Custom(name) if name == "<#>" => vector::negative_inner_product(kind, a, b),
        Custom(name) if name == "<+>" => vector::l1_distance(kind, a, b),
        _ => return None,
    };
    Some(distance.map_err(error))
}

/// `sum(v)` and `avg(v)` over the non-NULL values of a vector type `t`.
pub(crate) fn aggregate(name: &str, t: Type, present: &[Value]) -> PgResult<Value> {
    let kind = t.vector_kind().expect("a vector type");
    let rows: Vec<&[f32]> = present
        .iter()
        .map(|v| match v {
            Value::Vector(v) => v.as_slice(),
            other => unreachable!("a {} value {other:?}", t.name()),
        })
        .collect();
    let result = match name {
        "sum" => vector::sum(kind, &rows),
        _ => vector::average(kind, &rows),
    };
    Ok(result.map_err(error)?.map_or(Value::Null, Value::Vector))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overloads_resolve_as_postgresql_does() {
        use Type::{Halfvec, Unknown, Vector};
        assert_eq!(
            resolve("l2_distance", &[Vector, Halfvec]).unwrap(),
            Overload::Dense(Kind::Halfvec)
        );
        assert_eq!(
            resolve("l2_distance", &[Vector, Unknown]).unwrap(),
            Overload::Dense(Kind::Vector)
        );
        assert_eq!(
            resolve("l2_distance", &[Unknown, Halfvec]).unwrap(),
            Overload::Dense(Kind::Halfvec)
        );
        assert_eq!(
            resolve("halfvec_cmp", &[Vector, Unknown]).unwrap(),
            Overload::Dense(Kind::Halfvec)
        );
        assert_eq!(
            resolve("vector_norm", &[Unknown]).unwrap(),
            Overload::Dense(Kind::Vector)
        );
        let code = |name: &str, types: &[Type]| resolve(name, types).unwrap_err().code;
        assert_eq!(code("l2_norm", &[Vector]), AMBIGUOUS_FUNCTION);
        assert_eq!(
            resolve("l2_distance", &[Halfvec, Type::Sparsevec]).unwrap(),
            Overload::Sparse
        );
        assert_eq!(
            resolve("sparsevec_cmp", &[Unknown, Unknown]).unwrap(),
            Overload::Sparse
        );
        assert_eq!(code("vector_dims", &[Type::Sparsevec]), UNDEFINED_FUNCTION);
        assert_eq!(code("vector_dims", &[Unknown]), AMBIGUOUS_FUNCTION);
        assert_eq!(code("vector_norm", &[Halfvec]), UNDEFINED_FUNCTION);
        assert_eq!(
            resolve("l2_distance", &[Unknown, Unknown])
                .unwrap_err()
                .message,
            "function l2_distance(unknown, unknown) is not unique"
        );
        let subvector = resolve("subvector", &[Halfvec, Type::Int4, Type::Int4]);
        assert_eq!(subvector.unwrap(), Overload::Dense(Kind::Halfvec));
    }
}
