//! pgvector's functions on PostgreSQL's `bit` (`src/bitvec.c`, `src/vector.c`):
//! `hamming_distance` and `jaccard_distance` (operators `<~>` and `<%>`) between bit
//! strings of one length, and `binary_quantize` of a `vector` or `halfvec` (a bit per
//! element, set where the element is positive).

use crate::pg::error::{PgError, PgResult, AMBIGUOUS_FUNCTION, DATA_EXCEPTION, UNDEFINED_FUNCTION};
use crate::pg::types::cast::cast;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};

/// The functions this file answers, with their argument counts.
const FUNCTIONS: [(&str, usize); 3] = [
    ("hamming_distance", 2),
    ("jaccard_distance", 2),
    ("binary_quantize", 1),
];

pub(crate) fn knows(name: &str) -> bool {
    FUNCTIONS.iter().any(|(n, _)| *n == name)
}

/// The types the arguments take when nothing else says (a parameter's).
pub(crate) fn argument_types(name: &str, count: usize) -> Vec<Option<Type>> {
    match name {
        // A parameter would be ambiguous between the vector and halfvec overloads.
        "binary_quantize" => vec![None; count],
        _ => vec![Some(Type::Bit); count],
    }
}

pub(crate) fn return_type(name: &str) -> Type {
    match name {
        "binary_quantize" => Type::Bit,
        _ => Type::Float8,
    }
}

/// `CheckDims`: both operands have the same number of bits.
fn check_same_length(a: &[bool], b: &[bool]) -> PgResult<()> {
    if a.len() != b.len() {
        return Err(PgError::new(
            DATA_EXCEPTION,
            format!("different bit lengths {} and {}", a.len(), b.len()),
        ));
    }
    Ok(())
}

/// `hamming_distance`, `<~>`: the bits that differ.
pub(crate) fn hamming_distance(a: &[bool], b: &[bool]) -> PgResult<f64> {
    check_same_length(a, b)?;
    Ok(a.iter().zip(b).filter(|(x, y)| x != y).count() as f64)
}

/// `jaccard_distance`, `<%>`: 1 − |a ∧ b| / |a ∨ b|, and 1 when no bit is set in both.
pub(crate) fn jaccard_distance(a: &[bool], b: &[bool]) -> PgResult<f64> {
    check_same_length(a, b)?;
    let count = |bits: &[bool]| bits.iter().filter(|x| **x).count() as u64;
    let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count() as u64;
    if both == 0 {
        return Ok(1.0);
    }
    Ok(1.0 - both as f64 / (count(a) + count(b) - both) as f64)
}

/// A distance operator on two bit strings: `<~>` or `<%>`.
pub(crate) fn distance(
    op: &sqlparser::ast::BinaryOperator,
    a: &[bool],
    b: &[bool],
) -> Option<PgResult<f64>> {
    match op {
        sqlparser::ast::BinaryOperator::Custom(name) if name == "<~>" => {
            Some(hamming_distance(a, b))
        }
        sqlparser::ast::BinaryOperator::Custom(name) if name == "<%>" => {
            Some(jaccard_distance(a, b))
        }
        _ => None,
    }
}

/// Whether `op` is one of the bit distance operators.
pub(crate) fn is_operator(op: &sqlparser::ast::BinaryOperator) -> bool {
    matches!(op, sqlparser::ast::BinaryOperator::Custom(name) if matches!(name.as_str(), "<~>" | "<%>"))
}

/// The bits of the arguments, each cast to `bit`; `None` if one is NULL.
fn bit_arguments(args: &[Typed]) -> PgResult<Option<Vec<Vec<bool>>>> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match cast(arg.clone(), Type::Bit, None)?.v {
            Value::Bit(bits) => out.push(bits),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// `binary_quantize(v)`: resolved as PostgreSQL resolves it (a vector or a halfvec; a
/// literal could be either).
fn binary_quantize(arg: &Typed) -> PgResult<Typed> {
    let t = match arg.t {
        Type::Halfvec => Type::Halfvec,
        Type::Vector => Type::Vector,
        Type::Unknown => {
            return Err(PgError::new(
                AMBIGUOUS_FUNCTION,
                "function binary_quantize(unknown) is not unique",
            ))
        }
        other => {
            return Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!("function binary_quantize({}) does not exist", other.name()),
            ))
        }
    };
    match cast(arg.clone(), t, None)?.v {
        Value::Vector(values) => Ok(Typed::new(
            Value::Bit(values.iter().map(|x| *x > 0.0).collect()),
            Type::Bit,
        )),
        _ => Ok(Typed::null(Type::Bit)),
    }
}

pub(crate) fn call(name: &str, args: Vec<Typed>) -> PgResult<Typed> {
    let arguments = FUNCTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a bit function")
        .1;
    if args.len() != arguments {
        return Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!(
                "function {name} with {} arguments does not exist",
                args.len()
            ),
        ));
    }
    if name == "binary_quantize" {
        return binary_quantize(&args[0]);
    }
    if args
        .iter()
        .any(|a| !matches!(a.t, Type::Bit | Type::Unknown))
    {
        let names: Vec<&str> = args.iter().map(|a| a.t.name()).collect();
        return Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("function {name}({}) does not exist", names.join(", ")),
        ));
    }
    let Some(bits) = bit_arguments(&args)? else {
        return Ok(Typed::null(Type::Float8));
    };
    let distance = match name {
        "hamming_distance" => hamming_distance(&bits[0], &bits[1])?,
        _ => jaccard_distance(&bits[0], &bits[1])?,
    };
    Ok(Typed::new(Value::Float(distance), Type::Float8))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(text: &str) -> Vec<bool> {
        crate::pg::types::bit::parse(text, None).unwrap()
    }

    #[test]
    fn distances_are_pgvectors() {
        assert_eq!(hamming_distance(&bits("111"), &bits("100")).unwrap(), 2.0);
        assert_eq!(jaccard_distance(&bits("1111"), &bits("1100")).unwrap(), 0.5);
        assert_eq!(jaccard_distance(&bits("1111"), &bits("0000")).unwrap(), 1.0);
        assert_eq!(jaccard_distance(&bits(""), &bits("")).unwrap(), 1.0);
        let error = hamming_distance(&bits("111"), &bits("00")).unwrap_err();
        assert_eq!(error.message, "different bit lengths 3 and 2");
    }
}
