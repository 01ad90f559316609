//! pgvector's `sparsevec` (`src/sparsevec.c`) as pure functions: a value of up to a
//! billion dimensions holding only its non-zero elements, each an `f32` at a 0-based
//! index. Its text form (`{1:1.5,3:2}/5`, 1-based), its binary form, the casts to and
//! from the dense types, its distances, norm and btree order, with pgvector's own
//! messages and SQLSTATEs.
//!
//! The distances walk both operands' indices in ascending order and accumulate in `f32`,
//! as pgvector's merge loops do (the same additions, in the same order, so the same bits).

use std::cmp::Ordering;

use crate::pg::vector::kind::Kind;
use crate::pg::vector::value::{self as dense, VectorError};
use crate::pg::vector::value::{
    DATA_EXCEPTION, INVALID_BINARY_REPRESENTATION, INVALID_PARAMETER_VALUE,
    INVALID_TEXT_REPRESENTATION, NUMERIC_VALUE_OUT_OF_RANGE, PROGRAM_LIMIT_EXCEEDED,
    PROTOCOL_VIOLATION,
};

/// `SPARSEVEC_MAX_DIM`: the most dimensions a sparsevec has.
pub(crate) const DIMENSIONS_MAX: i64 = 1_000_000_000;

/// `SPARSEVEC_MAX_NNZ`: the most non-zero elements a sparsevec holds.
pub(crate) const NON_ZEROS_MAX: usize = 16_000;

/// A sparsevec: its dimensions, and its non-zero elements by ascending 0-based index.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sparse {
    dimensions: i32,
    indices: Vec<i32>,
    values: Vec<f32>,
}

impl Sparse {
    /// A value from parts already checked: indices ascending and within the dimensions,
    /// every element finite and non-zero.
    fn new(dimensions: i32, indices: Vec<i32>, values: Vec<f32>) -> Sparse {
        assert!(dimensions >= 1 && i64::from(dimensions) <= DIMENSIONS_MAX);
        assert_eq!(indices.len(), values.len());
        assert!(indices.len() <= NON_ZEROS_MAX);
        assert!(indices.windows(2).all(|w| w[0] < w[1]));
        assert!(indices.iter().all(|i| (0..dimensions).contains(i)));
        assert!(values.iter().all(|v| v.is_finite() && *v != 0.0));
        Sparse {
            dimensions,
            indices,
            values,
        }
    }

    pub(crate) fn dimensions(&self) -> i32 {
        self.dimensions
    }

    /// How many elements are not zero (`nnz`).
    pub(crate) fn non_zeros(&self) -> usize {
        self.indices.len()
    }

    /// The dense elements (`sparsevec_to_vector`'s loop); the caller bounds the dimensions.
    pub(crate) fn to_dense(&self) -> Vec<f32> {
        let mut out = vec![0.0f32; self.dimensions as usize];
        for (i, v) in self.indices.iter().zip(&self.values) {
            out[*i as usize] = *v;
        }
        out
    }

    /// `vector_to_sparsevec` (`halfvec_to_sparsevec`): the non-zero elements of a dense
    /// value (a halfvec's already widened to `f32`).
    pub(crate) fn from_dense(values: &[f32]) -> Sparse {
        assert!(!values.is_empty() && values.len() <= dense::DIMENSIONS_MAX);
        let (indices, kept) = values
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(i, v)| (i as i32, *v))
            .unzip();
        Sparse::new(values.len() as i32, indices, kept)
    }
}

fn error(sqlstate: &'static str, message: impl Into<String>) -> VectorError {
    VectorError::new(sqlstate, message.into())
}

fn invalid_syntax(literal: &str) -> VectorError {
    error(
        INVALID_TEXT_REPRESENTATION,
        format!("invalid input syntax for type sparsevec: \"{literal}\""),
    )
}

/// `CheckDim`.
fn check_dimensions(dimensions: i64) -> Result<(), VectorError> {
    if dimensions < 1 {
        return Err(error(
            DATA_EXCEPTION,
            "sparsevec must have at least 1 dimension",
        ));
    }
    if dimensions > DIMENSIONS_MAX {
        return Err(error(
            PROGRAM_LIMIT_EXCEEDED,
            format!("sparsevec cannot have more than {DIMENSIONS_MAX} dimensions"),
        ));
    }
    Ok(())
}

/// `CheckExpectedDim`: a `sparsevec(n)` holds values of `n` dimensions.
pub(crate) fn check_expected_dimensions(
    expected: Option<u32>,
    dimensions: i64,
) -> Result<(), VectorError> {
    match expected {
        Some(n) if i64::from(n) != dimensions => Err(error(
            DATA_EXCEPTION,
            format!("expected {n} dimensions, not {dimensions}"),
        )),
        _ => Ok(()),
    }
}

fn too_many_non_zeros() -> VectorError {
    error(
        PROGRAM_LIMIT_EXCEEDED,
        format!("sparsevec cannot have more than {NON_ZEROS_MAX} non-zero elements"),
    )
}

/// `CheckNnz` (the binary form's count).
fn check_non_zeros(non_zeros: i32, dimensions: i32) -> Result<(), VectorError> {
    if non_zeros < 0 {
        return Err(error(
            DATA_EXCEPTION,
            "sparsevec cannot have negative number of elements",
        ));
    }
    if non_zeros as usize > NON_ZEROS_MAX {
        return Err(too_many_non_zeros());
    }
    if non_zeros > dimensions {
        return Err(error(
            PROGRAM_LIMIT_EXCEEDED,
            "sparsevec cannot have more elements than dimensions",
        ));
    }
    Ok(())
}

/// `CheckIndex`: the `at`-th index within the dimensions, above the one before it.
fn check_index(indices: &[i32], at: usize, dimensions: i32) -> Result<(), VectorError> {
    let index = indices[at];
    if index < 0 || index >= dimensions {
        return Err(error(DATA_EXCEPTION, "sparsevec index out of bounds"));
    }
    if at > 0 && index < indices[at - 1] {
        return Err(error(
            DATA_EXCEPTION,
            "sparsevec indices must be in ascending order",
        ));
    }
    if at > 0 && index == indices[at - 1] {
        return Err(error(
            DATA_EXCEPTION,
            "sparsevec indices must not contain duplicates",
        ));
    }
    Ok(())
}

/// `CheckElement`.
pub(crate) fn check_element(value: f32) -> Result<(), VectorError> {
    if value.is_nan() {
        return Err(error(DATA_EXCEPTION, "NaN not allowed in sparsevec"));
    }
    if value.is_infinite() {
        return Err(error(
            DATA_EXCEPTION,
            "infinite value not allowed in sparsevec",
        ));
    }
    Ok(())
}

/// `sparsevec_typmod_in`: the `n` of `sparsevec(n)`.
pub(crate) fn typmod_in(dimensions: i64) -> Result<u32, VectorError> {
    if dimensions < 1 {
        return Err(error(
            INVALID_PARAMETER_VALUE,
            "dimensions for type sparsevec must be at least 1",
        ));
    }
    if dimensions > DIMENSIONS_MAX {
        return Err(error(
            INVALID_PARAMETER_VALUE,
            format!("dimensions for type sparsevec cannot exceed {DIMENSIONS_MAX}"),
        ));
    }
    Ok(dimensions as u32)
}

/// C's `strtol` in base 10 from `at` (whitespace already skipped): the value, saturated
/// as `long` saturates, and where it stopped; `None` when no digit is read.
fn scan_long(bytes: &[u8], at: usize) -> Option<(i64, usize)> {
    let mut end = at;
    let negative = match bytes.get(end) {
        Some(b'-') => {
            end += 1;
            true
        }
        Some(b'+') => {
            end += 1;
            false
        }
        _ => false,
    };
    let digits_at = end;
    let mut magnitude: i128 = 0;
    while let Some(digit) = bytes.get(end).filter(|b| b.is_ascii_digit()) {
        magnitude = (magnitude * 10 + i128::from(digit - b'0')).min(i128::from(u64::MAX));
        end += 1;
    }
    if end == digits_at {
        return None;
    }
    let signed = if negative { -magnitude } else { magnitude };
    Some((signed.clamp(i64::MIN.into(), i64::MAX.into()) as i64, end))
}

/// Whether a number `strtof` read as zero was written with a non-zero digit: glibc's
/// underflow, which `sparsevec_in` refuses as out of range (as `float4in` does).
fn underflowed(spelled: &[u8]) -> bool {
    let unsigned = spelled
        .strip_prefix(b"-")
        .or_else(|| spelled.strip_prefix(b"+"));
    let unsigned = unsigned.unwrap_or(spelled);
    let hex = unsigned.len() > 1 && unsigned[..2].eq_ignore_ascii_case(b"0x");
    let (mantissa, nonzero): (&[u8], fn(&u8) -> bool) = if hex {
        let end = unsigned.iter().position(|b| matches!(b, b'p' | b'P'));
        (&unsigned[2..end.unwrap_or(unsigned.len())], |b| {
            b.is_ascii_hexdigit() && *b != b'0'
        })
    } else {
        let end = unsigned.iter().position(|b| matches!(b, b'e' | b'E'));
        (&unsigned[..end.unwrap_or(unsigned.len())], |b| {
            matches!(b, b'1'..=b'9')
        })
    };
    mantissa.iter().any(nonzero)
}

/// One `index:value` element of the text form from `at` (whitespace skipped): the
/// 0-based index (saturated as pgvector keeps it), the value, and where it stopped.
fn parse_element(literal: &str, at: usize) -> Result<(i32, f32, usize), VectorError> {
    let bytes = literal.as_bytes();
    if at >= bytes.len() {
        return Err(invalid_syntax(literal));
    }
    let (index, end) = scan_long(bytes, at).ok_or_else(|| invalid_syntax(literal))?;
    // "Keep in int range for correct error message later".
    let index = index.clamp(i64::from(i32::MIN) + 1, i64::from(i32::MAX)) as i32;
    let at = dense::skip_spaces(bytes, end);
    if bytes.get(at) != Some(&b':') {
        return Err(invalid_syntax(literal));
    }
    let at = dense::skip_spaces(bytes, at + 1);
    let (value, end, special) =
        dense::scan_float(bytes, at).ok_or_else(|| invalid_syntax(literal))?;
    let overflow = value.is_infinite() && !special;
    let underflow = value == 0.0 && !special && underflowed(&bytes[at..end]);
    if overflow || underflow {
        return Err(error(
            NUMERIC_VALUE_OUT_OF_RANGE,
            format!(
                "\"{}\" is out of range for type sparsevec",
                &literal[at..end]
            ),
        ));
    }
    check_element(value)?;
    Ok((index - 1, value, end))
}

/// The `{…}` part of the text form from just after the brace: its stored (non-zero)
/// elements as written, and where the closing brace ends.
fn parse_elements(literal: &str, mut at: usize) -> Result<(Vec<(i32, f32)>, usize), VectorError> {
    let bytes = literal.as_bytes();
    let mut elements = Vec::new();
    if bytes.get(at) == Some(&b'}') {
        return Ok((elements, at + 1));
    }
    loop {
        at = dense::skip_spaces(bytes, at);
        let (index, value, end) = parse_element(literal, at)?;
        // Zeros are not stored (nor checked for duplicates).
        if value != 0.0 {
            elements.push((index, value));
        }
        at = dense::skip_spaces(bytes, end);
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b'}') => return Ok((elements, at + 1)),
            _ => return Err(invalid_syntax(literal)),
        }
    }
}

/// `sparsevec_in`: the text form `{1:1.5,3:2}/5`, its checks in pgvector's order (the
/// commas counted first, the elements as they are read, then the dimensions, the
/// typmod's, and the indices once sorted).
pub(crate) fn parse_text(literal: &str, typmod: Option<u32>) -> Result<Sparse, VectorError> {
    let bytes = literal.as_bytes();
    let commas = bytes.iter().filter(|b| **b == b',').count();
    if commas + 1 > NON_ZEROS_MAX {
        return Err(too_many_non_zeros());
    }
    let at = dense::skip_spaces(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return Err(invalid_syntax(literal).with_detail("Vector contents must start with \"{\"."));
    }
    let at = dense::skip_spaces(bytes, at + 1);
    let (mut elements, end) = parse_elements(literal, at)?;
    let at = dense::skip_spaces(bytes, end);
    if bytes.get(at) != Some(&b'/') {
        return Err(invalid_syntax(literal).with_detail("Unexpected end of input."));
    }
    let at = dense::skip_spaces(bytes, at + 1);
    let (dimensions, end) = scan_long(bytes, at).ok_or_else(|| invalid_syntax(literal))?;
    let dimensions = dimensions.clamp(i64::from(i32::MIN), i64::from(i32::MAX));
    if dense::skip_spaces(bytes, end) != bytes.len() {
        return Err(invalid_syntax(literal).with_detail("Junk after closing."));
    }
    check_dimensions(dimensions)?;
    check_expected_dimensions(typmod, dimensions)?;
    let dimensions = dimensions as i32;
    elements.sort_by_key(|(index, _)| *index);
    let (indices, values): (Vec<i32>, Vec<f32>) = elements.into_iter().unzip();
    (0..indices.len()).try_for_each(|at| check_index(&indices, at, dimensions))?;
    Ok(Sparse::new(dimensions, indices, values))
}

/// `sparsevec_out`: `{1:1.5,3:2}/5`, indices 1-based, elements as float4s print.
pub(crate) fn format_text(value: &Sparse) -> String {
    let elements: Vec<String> = (value.indices.iter().zip(&value.values))
        .map(|(i, v)| format!("{}:{}", i + 1, dense::format_float4(*v)))
        .collect();
    format!("{{{}}}/{}", elements.join(","), value.dimensions)
}

/// Reads big-endian 4-byte words from a binary message, as `pq_getmsgint` does.
struct Words<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Words<'_> {
    fn next(&mut self) -> Result<[u8; 4], VectorError> {
        let word = self
            .bytes
            .get(self.at..self.at + 4)
            .ok_or_else(|| error(PROTOCOL_VIOLATION, "insufficient data left in message"))?;
        self.at += 4;
        Ok([word[0], word[1], word[2], word[3]])
    }
}

/// `sparsevec_recv`: dimensions, count, an unused zero, the 0-based indices, the values;
/// each checked as pgvector checks it, bytes left over PostgreSQL's 22P03.
pub(crate) fn decode_binary(bytes: &[u8], typmod: Option<u32>) -> Result<Sparse, VectorError> {
    let mut words = Words { bytes, at: 0 };
    let dimensions = i32::from_be_bytes(words.next()?);
    let non_zeros = i32::from_be_bytes(words.next()?);
    let unused = i32::from_be_bytes(words.next()?);
    check_dimensions(i64::from(dimensions))?;
    check_non_zeros(non_zeros, dimensions)?;
    check_expected_dimensions(typmod, i64::from(dimensions))?;
    if unused != 0 {
        return Err(error(
            DATA_EXCEPTION,
            format!("expected unused to be 0, not {unused}"),
        ));
    }
    let mut indices = Vec::with_capacity(non_zeros as usize);
    for at in 0..non_zeros as usize {
        indices.push(i32::from_be_bytes(words.next()?));
        check_index(&indices, at, dimensions)?;
    }
    let mut values = Vec::with_capacity(non_zeros as usize);
    for _ in 0..non_zeros {
        let value = f32::from_be_bytes(words.next()?);
        check_element(value)?;
        if value == 0.0 {
            return Err(error(
                DATA_EXCEPTION,
                "binary representation of sparsevec cannot contain zero values",
            ));
        }
        values.push(value);
    }
    if words.at != bytes.len() {
        return Err(error(
            INVALID_BINARY_REPRESENTATION,
            "incorrect binary data format",
        ));
    }
    Ok(Sparse::new(dimensions, indices, values))
}

/// `sparsevec_send`: the inverse of [`decode_binary`].
pub(crate) fn encode_binary(value: &Sparse) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(12 + 8 * value.non_zeros());
    bytes.extend_from_slice(&value.dimensions.to_be_bytes());
    bytes.extend_from_slice(&(value.non_zeros() as i32).to_be_bytes());
    bytes.extend_from_slice(&0i32.to_be_bytes());
    value
        .indices
        .iter()
        .for_each(|i| bytes.extend_from_slice(&i.to_be_bytes()));
    value
        .values
        .iter()
        .for_each(|v| bytes.extend_from_slice(&v.to_be_bytes()));
    bytes
}

/// `sparsevec_to_vector` (`sparsevec_to_halfvec`): the dense type's dimension checks,
/// then each element stored as `kind` stores it.
pub(crate) fn to_dense(
    kind: Kind,
    value: &Sparse,
    typmod: Option<u32>,
) -> Result<Vec<f32>, VectorError> {
    dense::check_dimensions(kind, i64::from(value.dimensions))?;
    check_expected_dimensions(typmod, i64::from(value.dimensions))?;
    dense::store_elements(kind, &value.to_dense())
}

/// `CheckDim` then `CheckExpectedDim`: what every cast to sparsevec checks first.
pub(crate) fn check_length(length: i64, typmod: Option<u32>) -> Result<(), VectorError> {
    check_dimensions(length)?;
    check_expected_dimensions(typmod, length)
}

/// `vector_to_sparsevec` (`halfvec_to_sparsevec`), the typmod checked.
pub(crate) fn from_dense(values: &[f32], typmod: Option<u32>) -> Result<Sparse, VectorError> {
    check_length(values.len() as i64, typmod)?;
    Ok(Sparse::from_dense(values))
}

/// `array_to_sparsevec` after its 1-D and NULL checks: the length's checks, then each
/// element (already a float4) kept when not zero, then each kept one finite.
pub(crate) fn from_floats(values: &[f32], typmod: Option<u32>) -> Result<Sparse, VectorError> {
    check_length(values.len() as i64, typmod)?;
    let (indices, kept): (Vec<i32>, Vec<f32>) = values
        .iter()
        .enumerate()
        .filter(|(_, v)| **v != 0.0)
        .map(|(i, v)| (i as i32, *v))
        .unzip();
    // pgvector builds such a value (only its input functions check the count); the
    // model holds at most `NON_ZEROS_MAX`, so it refuses rather than answer differently.
    if kept.len() > NON_ZEROS_MAX {
        return Err(error(
            "0A000",
            format!("a sparsevec of more than {NON_ZEROS_MAX} non-zero elements"),
        ));
    }
    kept.iter().try_for_each(|v| check_element(*v))?;
    Ok(Sparse::new(values.len() as i32, indices, kept))
}

/// `CheckDims`.
fn check_same_dimensions(a: &Sparse, b: &Sparse) -> Result<(), VectorError> {
    if a.dimensions != b.dimensions {
        return Err(error(
            DATA_EXCEPTION,
            format!(
                "different sparsevec dimensions {} and {}",
                a.dimensions, b.dimensions
            ),
        ));
    }
    Ok(())
}

/// Both operands' elements by ascending index: `(a's, b's)`, zero where one has none.
fn merged<'a>(a: &'a Sparse, b: &'a Sparse) -> impl Iterator<Item = (f32, f32)> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        let ai = a.indices.get(i).copied().unwrap_or(i32::MAX);
        let bj = b.indices.get(j).copied().unwrap_or(i32::MAX);
        if i >= a.indices.len() && j >= b.indices.len() {
            return None;
        }
        Some(match ai.cmp(&bj) {
            Ordering::Less => {
                i += 1;
                (a.values[i - 1], 0.0)
            }
            Ordering::Greater => {
                j += 1;
                (0.0, b.values[j - 1])
            }
            Ordering::Equal => {
                (i, j) = (i + 1, j + 1);
                (a.values[i - 1], b.values[j - 1])
            }
        })
    })
}

/// `SparsevecL2SquaredDistance`: a term per index either holds (`x²` where only one
/// does), in index order, in `f32`.
pub(crate) fn l2_squared_f32(a: &Sparse, b: &Sparse) -> f32 {
    let mut distance = 0.0f32;
    for (x, y) in merged(a, b) {
        let difference = x - y;
        distance += difference * difference;
    }
    distance
}

/// `SparsevecInnerProduct`: the products where both hold an element, in `f32`.
pub(crate) fn inner_product_f32(a: &Sparse, b: &Sparse) -> f32 {
    let mut product = 0.0f32;
    for (x, y) in merged(a, b).filter(|(x, y)| *x != 0.0 && *y != 0.0) {
        product += x * y;
    }
    product
}

/// `<->`, `l2_distance`.
pub(crate) fn l2_distance(a: &Sparse, b: &Sparse) -> Result<f64, VectorError> {
    check_same_dimensions(a, b)?;
    Ok(f64::from(l2_squared_f32(a, b)).sqrt())
}

/// `inner_product`.
pub(crate) fn inner_product(a: &Sparse, b: &Sparse) -> Result<f64, VectorError> {
    check_same_dimensions(a, b)?;
    Ok(f64::from(inner_product_f32(a, b)))
}

/// `<#>`: the inner product negated in `f32`.
pub(crate) fn negative_inner_product(a: &Sparse, b: &Sparse) -> Result<f64, VectorError> {
    check_same_dimensions(a, b)?;
    Ok(f64::from(-inner_product_f32(a, b)))
}

/// `<=>`, `cosine_distance`: the `f32` inner product over the `f64` root of the two
/// `f32` squared norms, clamped; NaN (a zero operand) passes through.
pub(crate) fn cosine_distance(a: &Sparse, b: &Sparse) -> Result<f64, VectorError> {
    check_same_dimensions(a, b)?;
    let squares = |v: &Sparse| v.values.iter().fold(0.0f32, |sum, x| sum + x * x);
    let similarity =
        f64::from(inner_product_f32(a, b)) / (f64::from(squares(a)) * f64::from(squares(b))).sqrt();
    Ok(1.0 - similarity.clamp(-1.0, 1.0))
}

/// `<+>`, `l1_distance`: absolute differences in index order, in `f32`.
pub(crate) fn l1_distance(a: &Sparse, b: &Sparse) -> Result<f64, VectorError> {
    check_same_dimensions(a, b)?;
    let mut distance = 0.0f32;
    for (x, y) in merged(a, b) {
        distance += (x - y).abs();
    }
    Ok(f64::from(distance))
}

/// `l2_norm`: the squares summed in `f64` from `+0` (an empty sum is `0`, not `-0`).
pub(crate) fn l2_norm(value: &Sparse) -> f64 {
    let squares = value.values.iter().map(|x| f64::from(*x) * f64::from(*x));
    squares.fold(0.0f64, |sum, square| sum + square).sqrt()
}

/// `l2_normalize`: each element over the `f64` norm, narrowed to `f32`; an infinite one
/// is the overflow error, one that became zero is dropped; a zero vector stays zero.
pub(crate) fn l2_normalize(value: &Sparse) -> Result<Sparse, VectorError> {
    let norm = l2_norm(value);
    if norm <= 0.0 {
        return Ok(value.clone());
    }
    let scaled: Vec<f32> = value
        .values
        .iter()
        .map(|x| (f64::from(*x) / norm) as f32)
        .collect();
    if scaled.iter().any(|x| x.is_infinite()) {
        return Err(dense::overflow());
    }
    let (indices, values) = (value.indices.iter().zip(scaled))
        .filter(|(_, x)| *x != 0.0)
        .map(|(i, x)| (*i, x))
        .unzip();
    Ok(Sparse::new(value.dimensions, indices, values))
}

/// `sparsevec_cmp_internal`: the btree order, elements first as an array's would be
/// (an index missing on one side is a zero there), then the dimensions.
pub(crate) fn compare(a: &Sparse, b: &Sparse) -> Ordering {
    let (ax, bx) = (&a.values, &b.values);
    let shared = a.non_zeros().min(b.non_zeros());
    let sign = |x: f32| {
        if x < 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    };
    for i in 0..shared {
        match a.indices[i].cmp(&b.indices[i]) {
            Ordering::Less => return sign(ax[i]),
            Ordering::Greater => return sign(bx[i]).reverse(),
            Ordering::Equal => {}
        }
        match ax[i].partial_cmp(&bx[i]) {
            Some(Ordering::Equal) | None => {}
            Some(order) => return order,
        }
    }
    if a.non_zeros() < b.non_zeros() && b.indices[shared] < a.dimensions {
        return sign(bx[shared]).reverse();
    }
    if a.non_zeros() > b.non_zeros() && a.indices[shared] < b.dimensions {
        return sign(ax[shared]);
    }
    a.dimensions.cmp(&b.dimensions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(literal: &str) -> Sparse {
        parse_text(literal, None).unwrap()
    }

    fn message(literal: &str) -> (String, &'static str) {
        let e = parse_text(literal, None).unwrap_err();
        (e.message, e.sqlstate)
    }

    #[test]
    fn text_round_trips() {
        assert_eq!(format_text(&parse("{1:1.5,3:3.5}/5")), "{1:1.5,3:3.5}/5");
        assert_eq!(
            format_text(&parse(" { 1 : 1.5 , 3 : 3.5 } / 5 ")),
            "{1:1.5,3:3.5}/5"
        );
        assert_eq!(format_text(&parse("{2:1,1:1}/2")), "{1:1,2:1}/2");
        assert_eq!(format_text(&parse("{1:0,2:1,3:0}/3")), "{2:1}/3");
        assert_eq!(format_text(&parse("{}/5")), "{}/5");
    }

    #[test]
    fn text_errors_are_pgvectors() {
        assert_eq!(
            message("{1:1,1:1}/2").0,
            "sparsevec indices must not contain duplicates"
        );
        assert_eq!(message("{0:1}/1").0, "sparsevec index out of bounds");
        assert_eq!(message("{2:1}/1").0, "sparsevec index out of bounds");
        assert_eq!(
            message("{}/-1").0,
            "sparsevec must have at least 1 dimension"
        );
        assert_eq!(message("{}/1000000001").1, "54000");
        assert_eq!(message("{1:1e-46,2:1}/2").1, "22003");
        assert_eq!(message("{1:4e38,2:1}/2").1, "22003");
        assert_eq!(message("{1:NaN,2:1}/2").0, "NaN not allowed in sparsevec");
        let junk = parse_text("{}/1a", None).unwrap_err();
        assert_eq!(junk.detail, Some("Junk after closing."));
        let end = parse_text("{}", None).unwrap_err();
        assert_eq!(end.detail, Some("Unexpected end of input."));
        assert_eq!(message("{1:}/1").1, "22P02");
        assert_eq!(
            parse_text("{}/3", Some(2)).unwrap_err().message,
            "expected 2 dimensions, not 3"
        );
    }

    #[test]
    fn binary_round_trips() {
        let value = parse("{2:1.5,4:-3}/5");
        assert_eq!(decode_binary(&encode_binary(&value), None).unwrap(), value);
        assert_eq!(
            decode_binary(&[0, 0, 0, 1], None).unwrap_err().sqlstate,
            "08P01"
        );
    }

    #[test]
    fn distances_match_dense_ones() {
        let (a, b) = (parse("{1:3}/2"), parse("{2:4}/2"));
        assert_eq!(l2_distance(&a, &b).unwrap(), 5.0);
        assert_eq!(l1_distance(&a, &b).unwrap(), 7.0);
        assert_eq!(inner_product(&a, &b).unwrap(), 0.0);
        assert_eq!(cosine_distance(&a, &b).unwrap(), 1.0);
        assert!(cosine_distance(&parse("{}/1"), &parse("{}/1"))
            .unwrap()
            .is_nan());
        assert_eq!(l2_norm(&parse("{1:3,2:4}/2")), 5.0);
        assert_eq!(
            format_text(&l2_normalize(&parse("{1:3,2:4}/2")).unwrap()),
            "{1:0.6,2:0.8}/2"
        );
        assert_eq!(
            l2_distance(&a, &parse("{}/3")).unwrap_err().message,
            "different sparsevec dimensions 2 and 3"
        );
    }

    #[test]
    fn order_is_an_arrays() {
        let cmp = |a: &str, b: &str| compare(&parse(a), &parse(b));
        assert_eq!(cmp("{1:1,2:2,3:3}/3", "{1:1,2:2,3:3}/3"), Ordering::Equal);
        assert_eq!(cmp("{1:1,2:2,3:3}/3", "{}/3"), Ordering::Greater);
        assert_eq!(cmp("{1:1,2:2}/2", "{1:1,2:2,3:3}/3"), Ordering::Less);
        assert_eq!(cmp("{1:1,2:2,3:3}/3", "{1:1,2:2}/2"), Ordering::Greater);
        assert_eq!(cmp("{1:2,2:3}/2", "{1:1,2:2,3:3}/3"), Ordering::Greater);
    }
}
