//! pgvector's dense types, `vector` and `halfvec` ([`Kind`]), as pure functions: their
//! text form (`vector_in`, `vector_out`, `halfvec_in`, `halfvec_out`), their binary form
//! (`*_recv`, `*_send`), their arithmetic and distance functions, with pgvector's own
//! error messages and SQLSTATEs (read from pgvector's `src/vector.c` and `src/halfvec.c`,
//! which differ in the type's name and in how an element is stored).
//!
//! The simulated PostgreSQL answers with what a real server answers: the same digits for a
//! float, the same error text for a malformed literal, the same rounding of a distance. So
//! distances accumulate in `f32` as pgvector's C does and only widen to `f64` at the end.
//! pgvector builds with `-fassociative-math`, so its compiler may sum in SIMD lanes: a
//! distance here can differ from the server's in the last bits of the `f32` sum (the order
//! of rows a query returns only differs on near ties).

use std::fmt;

use crate::pg::vector::half;
pub(crate) use crate::pg::vector::kind::Kind;

/// pgvector's `VECTOR_MAX_DIM` (and `HALFVEC_MAX_DIM`): the most elements a value holds.
pub(crate) const DIMENSIONS_MAX: usize = 16_000;

/// SQLSTATE `22P02` invalid_text_representation.
pub(crate) const INVALID_TEXT_REPRESENTATION: &str = "22P02";
/// SQLSTATE `22000` data_exception.
pub(crate) const DATA_EXCEPTION: &str = "22000";
/// SQLSTATE `54000` program_limit_exceeded.
pub(crate) const PROGRAM_LIMIT_EXCEEDED: &str = "54000";
/// SQLSTATE `22003` numeric_value_out_of_range.
pub(crate) const NUMERIC_VALUE_OUT_OF_RANGE: &str = "22003";
/// SQLSTATE `22023` invalid_parameter_value.
pub(crate) const INVALID_PARAMETER_VALUE: &str = "22023";
/// SQLSTATE `08P01` protocol_violation (PostgreSQL's `pq_getmsg*` on a short message).
pub(crate) const PROTOCOL_VIOLATION: &str = "08P01";
/// SQLSTATE `22P03` invalid_binary_representation.
pub(crate) const INVALID_BINARY_REPRESENTATION: &str = "22P03";

/// An error as the server reports it: the SQLSTATE, the primary message and, where
/// pgvector adds one, the `DETAIL` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VectorError {
    pub(crate) sqlstate: &'static str,
    pub(crate) message: String,
    pub(crate) detail: Option<&'static str>,
}

impl VectorError {
    pub(crate) fn new(sqlstate: &'static str, message: String) -> VectorError {
        assert_eq!(sqlstate.len(), 5, "a SQLSTATE has five characters");
        VectorError {
            sqlstate,
            message,
            detail: None,
        }
    }

    pub(crate) fn with_detail(mut self, detail: &'static str) -> VectorError {
        self.detail = Some(detail);
        self
    }
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ERROR:  {} (SQLSTATE {})", self.message, self.sqlstate)
    }
}

impl std::error::Error for VectorError {}

/// pgvector's error as the server reports it (with its `DETAIL` line, if any).
impl From<VectorError> for crate::pg::error::PgError {
    fn from(e: VectorError) -> crate::pg::error::PgError {
        let error = crate::pg::error::PgError::new(e.sqlstate, e.message);
        match e.detail {
            Some(detail) => error.with_detail(detail),
            None => error,
        }
    }
}

/// The error a literal gets when it is not a vector at all.
fn invalid_syntax(kind: Kind, literal: &str) -> VectorError {
    VectorError::new(
        INVALID_TEXT_REPRESENTATION,
        format!(
            "invalid input syntax for type {}: \"{literal}\"",
            kind.name()
        ),
    )
}

/// A value with no element: `CheckDim`'s, and `subvector`'s for an empty range.
fn no_dimensions(kind: Kind) -> VectorError {
    VectorError::new(
        DATA_EXCEPTION,
        format!("{} must have at least 1 dimension", kind.name()),
    )
}

/// `CheckDim`: a value has 1 to 16000 elements.
pub(crate) fn check_dimensions(kind: Kind, dimensions: i64) -> Result<(), VectorError> {
    if dimensions < 1 {
        return Err(no_dimensions(kind));
    }
    if dimensions > DIMENSIONS_MAX as i64 {
        return Err(dimensions_exceeded(kind));
    }
    Ok(())
}

fn dimensions_exceeded(kind: Kind) -> VectorError {
    VectorError::new(
        PROGRAM_LIMIT_EXCEEDED,
        format!(
            "{} cannot have more than {DIMENSIONS_MAX} dimensions",
            kind.name()
        ),
    )
}

/// `vector_typmod_in` (`halfvec_typmod_in`): the `n` of a `vector(n)` column type.
pub(crate) fn typmod_in(kind: Kind, dimensions: i64) -> Result<usize, VectorError> {
    let invalid = |message: String| VectorError::new(INVALID_PARAMETER_VALUE, message);
    let name = kind.name();
    if dimensions < 1 {
        return Err(invalid(format!(
            "dimensions for type {name} must be at least 1"
        )));
    }
    if dimensions > DIMENSIONS_MAX as i64 {
        return Err(invalid(format!(
            "dimensions for type {name} cannot exceed {DIMENSIONS_MAX}"
        )));
    }
    Ok(dimensions as usize)
}

/// `CheckExpectedDim`: a value stored in (or cast to) a `vector(n)` column has `n`
/// elements; `None` is a plain `vector` column, which takes any.
pub(crate) fn check_expected_dimensions(
    expected: Option<usize>,
    values: &[f32],
) -> Result<(), VectorError> {
    match expected {
        Some(expected) if expected != values.len() => Err(VectorError::new(
            DATA_EXCEPTION,
            format!("expected {expected} dimensions, not {}", values.len()),
        )),
        _ => Ok(()),
    }
}

/// `vector_concat`'s `a || b`: the elements of both, within the dimensions a vector has.
pub(crate) fn concat(kind: Kind, a: &[f32], b: &[f32]) -> Result<Vec<f32>, VectorError> {
    check_dimensions(kind, (a.len() + b.len()) as i64)?;
    Ok([a, b].concat())
}

/// `array_to_vector`'s checks of an array's length, before its elements are read: a
/// vector's dimensions, and the `vector(n)` cast to's (the casts between `vector` and
/// `halfvec` check the same).
pub(crate) fn check_array_dimensions(
    kind: Kind,
    length: usize,
    expected: Option<usize>,
) -> Result<(), VectorError> {
    check_dimensions(kind, length as i64)?;
    match expected {
        Some(expected) if expected != length => Err(VectorError::new(
            DATA_EXCEPTION,
            format!("expected {expected} dimensions, not {length}"),
        )),
        _ => Ok(()),
    }
}

/// `array_to_vector`'s (and `vector_to_halfvec`'s) elements, read as float4s, as the
/// type stores them: a halfvec's rounded (`Float4ToHalf`: a finite float past the half's
/// range is out of range, printed as the float4 it was), then every one finite (a float8
/// past float4's range has become an infinity here, and is refused as one).
pub(crate) fn store_elements(kind: Kind, values: &[f32]) -> Result<Vec<f32>, VectorError> {
    let stored = values
        .iter()
        .map(|value| {
            let stored = kind.store(*value);
            match stored.is_infinite() && value.is_finite() {
                true => Err(out_of_range(kind, &format_float4(*value))),
                false => Ok(stored),
            }
        })
        .collect::<Result<Vec<f32>, VectorError>>()?;
    stored.iter().try_for_each(|v| check_element(kind, *v))?;
    Ok(stored)
}

fn out_of_range(kind: Kind, spelled: &str) -> VectorError {
    VectorError::new(
        NUMERIC_VALUE_OUT_OF_RANGE,
        format!("\"{spelled}\" is out of range for type {}", kind.name()),
    )
}

/// `CheckElement`: NaN and infinities are refused, whichever form they came in.
fn check_element(kind: Kind, value: f32) -> Result<(), VectorError> {
    if value.is_nan() {
        return Err(VectorError::new(
            DATA_EXCEPTION,
            format!("NaN not allowed in {}", kind.name()),
        ));
    }
    if value.is_infinite() {
        return Err(VectorError::new(
            DATA_EXCEPTION,
            format!("infinite value not allowed in {}", kind.name()),
        ));
    }
    Ok(())
}

/// `CheckDims`: both operands of a distance have the same number of elements.
fn check_same_dimensions(kind: Kind, a: &[f32], b: &[f32]) -> Result<(), VectorError> {
    if a.len() != b.len() {
        return Err(VectorError::new(
            DATA_EXCEPTION,
            format!(
                "different {} dimensions {} and {}",
                kind.name(),
                a.len(),
                b.len()
            ),
        ));
    }
    Ok(())
}

/// PostgreSQL's `scanner_isspace` (pgvector's `vector_isspace`): the only whitespace
/// allowed around brackets, commas and numbers.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

pub(crate) fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && is_space(bytes[at]) {
        at += 1;
    }
    at
}

/// Parses pgvector's text form, `[1,2.5,-3e-2]`, as `vector_in` (`halfvec_in`) does:
/// whitespace around the brackets, commas and numbers, each number read like C's `strtof`
/// (so `inf`, `nan` and hexadecimal floats are numbers, then refused or accepted as
/// pgvector does) and stored as the type stores it.
pub(crate) fn parse_text(kind: Kind, literal: &str) -> Result<Vec<f32>, VectorError> {
    let bytes = literal.as_bytes();
    let mut at = skip_spaces(bytes, 0);
    if bytes.get(at) != Some(&b'[') {
        return Err(
            invalid_syntax(kind, literal).with_detail("Vector contents must start with \"[\".")
        );
    }
    at = skip_spaces(bytes, at + 1);
    if bytes.get(at) == Some(&b']') {
        return Err(no_dimensions(kind));
    }
    let mut values = Vec::new();
    loop {
        if values.len() == DIMENSIONS_MAX {
            return Err(dimensions_exceeded(kind));
        }
        at = skip_spaces(bytes, at);
        let (value, end) = parse_float_prefix(kind, literal, at)?;
        check_element(kind, value)?;
        values.push(value);
        at = skip_spaces(bytes, end);
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b']') => {
                at += 1;
                break;
            }
            _ => return Err(invalid_syntax(kind, literal)),
        }
    }
    at = skip_spaces(bytes, at);
    if at != bytes.len() {
        return Err(invalid_syntax(kind, literal).with_detail("Junk after closing right brace."));
    }
    check_dimensions(kind, values.len() as i64)?;
    assert!(values.iter().all(|value| value.is_finite()));
    Ok(values)
}

/// Reads the longest prefix of `literal[start..]` that C's `strtof` reads, returning the
/// value as the type stores it and where it stopped; nothing read is the literal's syntax
/// error, an overflow to infinity (of the float, or of the half it rounds to) is
/// pgvector's out-of-range error.
fn parse_float_prefix(
    kind: Kind,
    literal: &str,
    start: usize,
) -> Result<(f32, usize), VectorError> {
    let bytes = literal.as_bytes();
    if start >= bytes.len() {
        return Err(invalid_syntax(kind, literal));
    }
    let Some((value, end, is_literal_special)) = scan_float(bytes, start) else {
        return Err(invalid_syntax(kind, literal));
    };
    assert!(end > start && end <= bytes.len());
    let stored = kind.store(value);
    let float_overflow = value.is_infinite() && !is_literal_special;
    let half_overflow = stored.is_infinite() && !value.is_infinite();
    if float_overflow || half_overflow {
        return Err(out_of_range(kind, &literal[start..end]));
    }
    Ok((stored, end))
}

/// The `strtof` grammar: a sign, then `inf`/`infinity`/`nan[(chars)]`, a hexadecimal
/// float, or a decimal one. The flag says the value was spelled as a special value.
pub(crate) fn scan_float(bytes: &[u8], start: usize) -> Option<(f32, usize, bool)> {
    let mut at = start;
    let negative = match bytes.get(at) {
        Some(b'-') => {
            at += 1;
            true
        }
        Some(b'+') => {
            at += 1;
            false
        }
        _ => false,
    };
    let sign = if negative { -1.0f32 } else { 1.0f32 };
    if let Some(end) =
        scan_special(bytes, at, b"infinity").or_else(|| scan_special(bytes, at, b"inf"))
    {
        return Some((sign * f32::INFINITY, end, true));
    }
    if let Some(end) = scan_special(bytes, at, b"nan") {
        return Some((f32::NAN, scan_nan_payload(bytes, end), true));
    }
    if let Some((magnitude, end)) = scan_hex(bytes, at) {
        return Some((sign * magnitude, end, false));
    }
    let end = scan_decimal(bytes, at)?;
    let text = std::str::from_utf8(&bytes[at..end]).ok()?;
    let magnitude: f32 = text.parse().ok()?;
    Some((sign * magnitude, end, false))
}

fn scan_special(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    let end = at + word.len();
    let candidate = bytes.get(at..end)?;
    candidate.eq_ignore_ascii_case(word).then_some(end)
}

/// `nan(n-char-sequence)`: glibc reads the parenthesised payload when it is closed.
fn scan_nan_payload(bytes: &[u8], at: usize) -> usize {
    if bytes.get(at) != Some(&b'(') {
        return at;
    }
    let mut end = at + 1;
    while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
        end += 1;
    }
    if bytes.get(end) == Some(&b')') {
        end + 1
    } else {
        at
    }
}

/// Digits, an optional point and digits (at least one digit in all), then an optional
/// exponent that counts only when it has digits. Returns where the number ends.
fn scan_decimal(bytes: &[u8], start: usize) -> Option<usize> {
    let digits = |mut at: usize| {
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        at
    };
    let integer_end = digits(start);
    let mut end = integer_end;
    if bytes.get(end) == Some(&b'.') {
        end = digits(end + 1);
    }
    let digits_count = (integer_end - start) + end.saturating_sub(integer_end + 1);
    if digits_count == 0 {
        return None;
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut exponent_at = end + 1;
        if matches!(bytes.get(exponent_at), Some(b'+' | b'-')) {
            exponent_at += 1;
        }
        let exponent_end = digits(exponent_at);
        if exponent_end > exponent_at {
            end = exponent_end;
        }
    }
    Some(end)
}

/// `0x1.8p3`: hexadecimal digits with an optional point and binary exponent. Computed in
/// `f64` then narrowed, which can round twice where glibc rounds once (17+ hex digits).
fn scan_hex(bytes: &[u8], start: usize) -> Option<(f32, usize)> {
    let prefix = bytes.get(start..start + 2)?;
    if !prefix.eq_ignore_ascii_case(b"0x") {
        return None;
    }
    let mut at = start + 2;
    let (mut mantissa, mut scale, mut digits_count, mut seen_point) = (0f64, 0i32, 0u32, false);
    while at < bytes.len() {
        let byte = bytes[at];
        if byte == b'.' && !seen_point {
            seen_point = true;
        } else if let Some(digit) = (byte as char).to_digit(16) {
            mantissa = mantissa * 16.0 + f64::from(digit);
            digits_count += 1;
            scale -= if seen_point { 4 } else { 0 };
        } else {
            break;
        }
        at += 1;
    }
    if digits_count == 0 {
        return None;
    }
    let mut exponent = 0i32;
    if matches!(bytes.get(at), Some(b'p' | b'P')) {
        let mut exponent_at = at + 1;
        let negative = bytes.get(exponent_at) == Some(&b'-');
        if matches!(bytes.get(exponent_at), Some(b'+' | b'-')) {
            exponent_at += 1;
        }
        let mut end = exponent_at;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            exponent = exponent
                .saturating_mul(10)
                .saturating_add(i32::from(bytes[end] - b'0'));
            end += 1;
        }
        if end > exponent_at {
            exponent = if negative { -exponent } else { exponent };
            at = end;
        }
    }
    let value = mantissa * 2f64.powi(scale.saturating_add(exponent).clamp(-2000, 2000));
    Some((value as f32, at))
}

/// Prints a value as `vector_out` does: `[1,2.5,-3e-05]`, each element through
/// [`format_float4`].
pub(crate) fn format_text(values: &[f32]) -> String {
    assert!(values.len() <= DIMENSIONS_MAX);
    let mut text = String::with_capacity(2 + values.len() * 8);
    text.push('[');
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format_float4(*value));
    }
    text.push(']');
    text
}

/// PostgreSQL's `float_to_shortest_decimal_bufn` (its Ryū, `src/common/f2s.c`): the
/// shortest digits that read back to the same `f32`, in fixed notation when the decimal
/// exponent is in -4..6 and otherwise as `d.ddde±XX` with at least two exponent digits.
/// Rust's `{}` prints `1e-5` as `0.00001` and `1e20` in full, hence this function.
pub(crate) fn format_float4(value: f32) -> String {
    if value.is_nan() {
        return "NaN".to_string();
    }
    let sign = if value.is_sign_negative() { "-" } else { "" };
    if value.is_infinite() {
        return format!("{sign}Infinity");
    }
    if value == 0.0 {
        return format!("{sign}0");
    }
    // Rust's `{:e}` prints the same shortest round-trip digits: `d[.ddd]e<exp>`.
    let scientific = format!("{:e}", value.abs());
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} exponent is an integer");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    assert!(
        !digits.is_empty() && digits.len() <= 9,
        "an f32 has at most 9 digits"
    );
    let body = if (-4..6).contains(&exponent) {
        fixed_notation(&digits, exponent)
    } else {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        format!("{first}{point}e{exponent_sign}{:02}", exponent.abs())
    };
    format!("{sign}{body}")
}

/// `digits` × 10^(`exponent` − len + 1) written without an exponent.
fn fixed_notation(digits: &str, exponent: i32) -> String {
    assert!((-4..6).contains(&exponent));
    if exponent < 0 {
        let zeros = "0".repeat((-exponent - 1) as usize);
        return format!("0.{zeros}{digits}");
    }
    let integer_len = exponent as usize + 1;
    if digits.len() <= integer_len {
        format!("{digits}{}", "0".repeat(integer_len - digits.len()))
    } else {
        format!("{}.{}", &digits[..integer_len], &digits[integer_len..])
    }
}

/// `vector_recv` (`halfvec_recv`): a signed 16-bit dimension count, 16 unused bits that
/// must be zero, then big-endian `f32`s (halves). A short message is PostgreSQL's
/// protocol violation; bytes left over are its "incorrect binary data format" (the caller
/// adds "in bind parameter N").
pub(crate) fn decode_binary(kind: Kind, bytes: &[u8]) -> Result<Vec<f32>, VectorError> {
    let insufficient = || {
        VectorError::new(
            PROTOCOL_VIOLATION,
            "insufficient data left in message".to_string(),
        )
    };
    let header = bytes.get(..4).ok_or_else(insufficient)?;
    let dimensions = i16::from_be_bytes([header[0], header[1]]);
    let unused = i16::from_be_bytes([header[2], header[3]]);
    check_dimensions(kind, i64::from(dimensions))?;
    let dimensions = dimensions as usize;
    if unused != 0 {
        return Err(VectorError::new(
            DATA_EXCEPTION,
            format!("expected unused to be 0, not {unused}"),
        ));
    }
    let width = kind.element_bytes();
    let mut values = Vec::with_capacity(dimensions);
    for i in 0..dimensions {
        let at = 4 + width * i;
        let word = bytes.get(at..at + width).ok_or_else(insufficient)?;
        let value = match kind {
            Kind::Vector => f32::from_be_bytes([word[0], word[1], word[2], word[3]]),
            Kind::Halfvec => half::from_bits(u16::from_be_bytes([word[0], word[1]])),
        };
        check_element(kind, value)?;
        values.push(value);
    }
    if bytes.len() != 4 + width * dimensions {
        return Err(VectorError::new(
            INVALID_BINARY_REPRESENTATION,
            "incorrect binary data format".to_string(),
        ));
    }
    Ok(values)
}

/// `vector_send` (`halfvec_send`): the inverse of [`decode_binary`], what the `pgvector`
/// crate reads.
pub(crate) fn encode_binary(kind: Kind, values: &[f32]) -> Vec<u8> {
    assert!(!values.is_empty() && values.len() <= DIMENSIONS_MAX);
    let dimensions = u16::try_from(values.len()).expect("at most 16000 dimensions");
    let width = kind.element_bytes();
    let mut bytes = Vec::with_capacity(4 + width * values.len());
    bytes.extend_from_slice(&dimensions.to_be_bytes());
    bytes.extend_from_slice(&0u16.to_be_bytes());
    for value in values {
        match kind {
            Kind::Vector => bytes.extend_from_slice(&value.to_be_bytes()),
            Kind::Halfvec => {
                assert!(half::is_half(*value), "a halfvec element is a half");
                bytes.extend_from_slice(&half::to_bits(*value).to_be_bytes())
            }
        }
    }
    assert_eq!(bytes.len(), 4 + width * values.len());
    bytes
}

/// `VectorL2SquaredDistance`: the sum of squared differences, accumulated in `f32`.
pub(crate) fn l2_squared_f32(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    let mut distance = 0.0f32;
    for (x, y) in a.iter().zip(b) {
        let difference = x - y;
        distance += difference * difference;
    }
    distance
}

/// `VectorInnerProduct`, accumulated in `f32`.
pub(crate) fn inner_product_f32(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    let mut product = 0.0f32;
    for (x, y) in a.iter().zip(b) {
        product += x * y;
    }
    product
}

/// `VectorL1Distance`, accumulated in `f32`.
pub(crate) fn l1_f32(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    let mut distance = 0.0f32;
    for (x, y) in a.iter().zip(b) {
        distance += (x - y).abs();
    }
    distance
}

/// `<->`: the square root, in `f64`, of the `f32` sum of squared differences.
pub(crate) fn l2_distance(kind: Kind, a: &[f32], b: &[f32]) -> Result<f64, VectorError> {
    check_same_dimensions(kind, a, b)?;
    Ok(f64::from(l2_squared_f32(a, b)).sqrt())
}

/// `+`, `-` and `*` of two vectors, element by element in `f32` then stored as the type
/// stores it (`vector_add`, `vector_sub`, `vector_mul`; a half's sum, difference and
/// product are exact in `f32`, so rounding once gives `_Float16`'s result): an infinite
/// element is an overflow, and a product of two non-zero elements that rounds to zero an
/// underflow, as pgvector checks them.
pub(crate) fn elementwise(
    kind: Kind,
    a: &[f32],
    b: &[f32],
    apply: fn(f32, f32) -> f32,
    checks_underflow: bool,
) -> Result<Vec<f32>, VectorError> {
    check_same_dimensions(kind, a, b)?;
    let out: Vec<f32> = (a.iter().zip(b))
        .map(|(x, y)| kind.store(apply(*x, *y)))
        .collect();
    for ((r, x), y) in out.iter().zip(a).zip(b) {
        if r.is_infinite() {
            return Err(overflow());
        }
        if checks_underflow && *r == 0.0 && *x != 0.0 && *y != 0.0 {
            return Err(VectorError::new(
                NUMERIC_VALUE_OUT_OF_RANGE,
                "value out of range: underflow".to_string(),
            ));
        }
    }
    Ok(out)
}

/// `inner_product(a, b)`.
pub(crate) fn inner_product(kind: Kind, a: &[f32], b: &[f32]) -> Result<f64, VectorError> {
    check_same_dimensions(kind, a, b)?;
    Ok(f64::from(inner_product_f32(a, b)))
}

/// `<#>`: the inner product negated (in `f32`, before widening), so that smaller is nearer.
pub(crate) fn negative_inner_product(kind: Kind, a: &[f32], b: &[f32]) -> Result<f64, VectorError> {
    check_same_dimensions(kind, a, b)?;
    Ok(f64::from(-inner_product_f32(a, b)))
}

/// `<=>`: 1 − cosine similarity. The three sums accumulate in `f32`, the similarity is
/// `dot / sqrt(|a|² · |b|²)` in `f64` then clamped to [-1, 1]; a zero vector makes it
/// 0/0, NaN, which the clamp lets through (pgvector returns NaN there, not an error).
pub(crate) fn cosine_distance(kind: Kind, a: &[f32], b: &[f32]) -> Result<f64, VectorError> {
    check_same_dimensions(kind, a, b)?;
    let (mut similarity, mut norm_a, mut norm_b) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        similarity += x * y;
        norm_a += x * x;
        norm_b += y * y;
    }
    let similarity = f64::from(similarity) / (f64::from(norm_a) * f64::from(norm_b)).sqrt();
    // Keep in range; NaN (a zero vector) passes through.
    Ok(1.0 - similarity.clamp(-1.0, 1.0))
}

/// `<+>`: the `f32` sum of absolute differences.
pub(crate) fn l1_distance(kind: Kind, a: &[f32], b: &[f32]) -> Result<f64, VectorError> {
    check_same_dimensions(kind, a, b)?;
    Ok(f64::from(l1_f32(a, b)))
}

/// `vector_dims(v)`.
pub(crate) fn vector_dims(values: &[f32]) -> i32 {
    assert!(values.len() <= DIMENSIONS_MAX);
    values.len() as i32
}

/// `vector_norm(v)`: unlike the distances, pgvector sums the squares in `f64`.
pub(crate) fn vector_norm(values: &[f32]) -> f64 {
    values
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt()
}

/// `l2_normalize(v)`: each element divided by the `f64` norm then narrowed to `f32` (and
/// a halfvec's then to a half); a zero vector stays zero; an element that overflows is
/// PostgreSQL's overflow error.
pub(crate) fn l2_normalize(kind: Kind, values: &[f32]) -> Result<Vec<f32>, VectorError> {
    let norm = vector_norm(values);
    if norm <= 0.0 {
        return Ok(vec![0.0; values.len()]);
    }
    let normalized: Vec<f32> = values
        .iter()
        .map(|x| kind.store((f64::from(*x) / norm) as f32))
        .collect();
    if normalized.iter().any(|x| x.is_infinite()) {
        return Err(overflow());
    }
    Ok(normalized)
}

/// PostgreSQL's `float_overflow_error`.
pub(crate) fn overflow() -> VectorError {
    VectorError::new(
        NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: overflow".to_string(),
    )
}

/// `subvector(v, start, count)`: `count` elements from the 1-based `start`, clipped to
/// the value as `substring` clips, in `i32` as pgvector computes it; an empty result is
/// the type's "at least 1 dimension" error.
pub(crate) fn subvector(
    kind: Kind,
    values: &[f32],
    start: i32,
    count: i32,
) -> Result<Vec<f32>, VectorError> {
    assert!(values.len() <= DIMENSIONS_MAX);
    let dimensions = values.len() as i32;
    if count < 1 {
        return Err(no_dimensions(kind));
    }
    // `start + count > dimensions` without overflowing: both are positive here.
    let end = if start > dimensions - count {
        dimensions + 1
    } else {
        start + count
    };
    let start = match start {
        s if s < 1 => 1,
        s if s > dimensions => return Err(no_dimensions(kind)),
        s => s,
    };
    check_dimensions(kind, i64::from(end) - i64::from(start))?;
    Ok(values[(start - 1) as usize..(end - 1) as usize].to_vec())
}

/// `avg(v)` (`vector_accum` then `vector_avg`, `halfvec_*`): the sums in `f64`, each
/// overflow checked as it is added, then each mean narrowed to `f32` and stored as the
/// type stores it. `None` for no rows (SQL's average of nothing is NULL).
pub(crate) fn average(kind: Kind, rows: &[&[f32]]) -> Result<Option<Vec<f32>>, VectorError> {
    let Some((first, rest)) = rows.split_first() else {
        return Ok(None);
    };
    let mut sums: Vec<f64> = first.iter().map(|x| f64::from(*x)).collect();
    for row in rest {
        check_expected_dimensions(Some(sums.len()), row)?;
        for (sum, x) in sums.iter_mut().zip(row.iter()) {
            *sum += f64::from(*x);
            if sum.is_infinite() {
                return Err(overflow());
            }
        }
    }
    let count = rows.len() as f64;
    let means: Vec<f32> = sums.iter().map(|sum| (sum / count) as f32).collect();
    store_elements(kind, &means).map(Some)
}

/// `sum(v)`: `vector_add` (`halfvec_add`) row after row, each step checked as `+` is.
pub(crate) fn sum(kind: Kind, rows: &[&[f32]]) -> Result<Option<Vec<f32>>, VectorError> {
    let Some((first, rest)) = rows.split_first() else {
        return Ok(None);
    };
    let mut total = first.to_vec();
    for row in rest {
        total = elementwise(kind, &total, row, |x, y| x + y, false)?;
    }
    Ok(Some(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        for literal in [
            "[1,2.5,0.1,-3e-05]",
            "[1e+20,1.234567e+06,123456,0.0001]",
            "[-0,0]",
        ] {
            let values = parse_text(Kind::Vector, literal).unwrap();
            assert_eq!(format_text(&values), literal);
        }
        assert_eq!(
            parse_text(Kind::Vector, " [ 1 , 2 ,3 ] \n").unwrap(),
            vec![1.0, 2.0, 3.0]
        );
        assert_eq!(
            parse_text(Kind::Vector, "[1.,.5,+2,1e-50,0x1p3]").unwrap(),
            vec![1.0, 0.5, 2.0, 0.0, 8.0]
        );
    }

    #[test]
    fn float4_formatting_matches_postgresql() {
        let cases: [(f32, &str); 16] = [
            (1.0, "1"),
            (2.5, "2.5"),
            (0.1, "0.1"),
            (-3e-5, "-3e-05"),
            (1e-5, "1e-05"),
            (1e20, "1e+20"),
            (100_000.0, "100000"),
            (1_000_000.0, "1e+06"),
            (1_234_567.0, "1.234567e+06"),
            (123_456.7, "123456.7"),
            (0.0001, "0.0001"),
            (0.000_123_4, "0.0001234"),
            (f32::MAX, "3.4028235e+38"),
            (f32::from_bits(1), "1e-45"),
            (1.0 / 3.0, "0.33333334"),
            (-0.0, "-0"),
        ];
        for (value, text) in cases {
            assert_eq!(format_float4(value), text, "{value:?}");
        }
    }

    fn error(literal: &str) -> (String, &'static str) {
        let error = parse_text(Kind::Vector, literal).unwrap_err();
        (error.message, error.sqlstate)
    }

    #[test]
    fn text_errors_are_pgvectors() {
        let syntax = |l: &str| {
            (
                format!("invalid input syntax for type vector: \"{l}\""),
                "22P02",
            )
        };
        for literal in ["1,2", "", "[1,2", "[1,,2]", "[1 2]", "[a]", "[1]x", "[1,]"] {
            assert_eq!(error(literal), syntax(literal), "{literal:?}");
        }
        let missing = parse_text(Kind::Vector, "(1)").unwrap_err();
        assert_eq!(
            missing.detail,
            Some("Vector contents must start with \"[\".")
        );
        let junk = parse_text(Kind::Vector, "[1] 2").unwrap_err();
        assert_eq!(junk.detail, Some("Junk after closing right brace."));
        let empty = ("vector must have at least 1 dimension".to_string(), "22000");
        assert_eq!(error("[]"), empty);
        assert_eq!(error("[ ]"), empty);
        assert_eq!(
            error("[NaN]"),
            ("NaN not allowed in vector".to_string(), "22000")
        );
        assert_eq!(
            error("[-inf]"),
            ("infinite value not allowed in vector".to_string(), "22000")
        );
        assert_eq!(error("[Infinity]").1, "22000");
        let range = (
            "\"1e39\" is out of range for type vector".to_string(),
            "22003",
        );
        assert_eq!(error("[1, 1e39]"), range);
        let many = format!("[{}]", vec!["0"; DIMENSIONS_MAX + 1].join(","));
        let limit = (
            "vector cannot have more than 16000 dimensions".to_string(),
            "54000",
        );
        assert_eq!(error(&many), limit);
        let enough = format!("[{}]", vec!["0"; DIMENSIONS_MAX].join(","));
        assert_eq!(
            parse_text(Kind::Vector, &enough).unwrap().len(),
            DIMENSIONS_MAX
        );
    }

    #[test]
    fn binary_round_trips_and_errors() {
        let values = vec![1.0, -2.5, 3e-5];
        let bytes = encode_binary(Kind::Vector, &values);
        assert_eq!(&bytes[..4], &[0, 3, 0, 0]);
        assert_eq!(&bytes[4..8], &1.0f32.to_be_bytes());
        assert_eq!(decode_binary(Kind::Vector, &bytes).unwrap(), values);
        assert_eq!(
            decode_binary(Kind::Vector, &bytes[..7])
                .unwrap_err()
                .sqlstate,
            "08P01"
        );
        assert_eq!(
            decode_binary(Kind::Vector, &[0, 0, 0, 0])
                .unwrap_err()
                .sqlstate,
            "22000"
        );
        let unused = decode_binary(Kind::Vector, &[0, 1, 0, 7, 0, 0, 0, 0]).unwrap_err();
        assert_eq!(unused.message, "expected unused to be 0, not 7");
        let nan = [&[0u8, 1, 0, 0][..], &f32::NAN.to_be_bytes()].concat();
        assert_eq!(
            decode_binary(Kind::Vector, &nan).unwrap_err().message,
            "NaN not allowed in vector"
        );
        let long = [&bytes[..], &[0]].concat();
        assert_eq!(
            decode_binary(Kind::Vector, &long).unwrap_err().sqlstate,
            "22P03"
        );
        assert_eq!(
            decode_binary(Kind::Vector, &[0x3e, 0x81, 0, 0])
                .unwrap_err()
                .sqlstate,
            "54000"
        );
    }

    #[test]
    fn distances_on_known_vectors() {
        let (a, b) = ([1.0, 2.0, 3.0], [4.0, 6.0, 3.0]);
        assert_eq!(l2_distance(Kind::Vector, &a, &b).unwrap(), 5.0);
        assert_eq!(inner_product(Kind::Vector, &a, &b).unwrap(), 25.0);
        assert_eq!(negative_inner_product(Kind::Vector, &a, &b).unwrap(), -25.0);
        assert_eq!(l1_distance(Kind::Vector, &a, &b).unwrap(), 7.0);
        let cosine = cosine_distance(Kind::Vector, &a, &b).unwrap();
        let expected = 1.0 - 25.0 / (14.0f64 * 61.0).sqrt();
        assert!((cosine - expected).abs() < 1e-12, "{cosine} {expected}");
        assert_eq!(
            cosine_distance(Kind::Vector, &[1.0, 1.0], &[2.0, 2.0]).unwrap(),
            0.0
        );
        assert_eq!(
            cosine_distance(Kind::Vector, &[1.0, 0.0], &[-1.0, 0.0]).unwrap(),
            2.0
        );
        assert!(cosine_distance(Kind::Vector, &[0.0, 0.0], &[1.0, 2.0])
            .unwrap()
            .is_nan());
        // `f32` accumulation: 0.1 + 0.2 in f32 is not the f64 sum.
        let f32_sum = f64::from(0.1f32 * 0.1f32 + 0.2f32 * 0.2f32);
        assert_eq!(
            l2_distance(Kind::Vector, &[0.1, 0.2], &[0.0, 0.0]).unwrap(),
            f32_sum.sqrt()
        );
        let mismatch = l2_distance(Kind::Vector, &a, &[1.0, 2.0]).unwrap_err();
        assert_eq!(mismatch.message, "different vector dimensions 3 and 2");
        assert_eq!(mismatch.sqlstate, "22000");
        assert_eq!(vector_dims(&a), 3);
        let expected = check_expected_dimensions(Some(2), &a).unwrap_err();
        assert_eq!(expected.message, "expected 2 dimensions, not 3");
        assert!(check_expected_dimensions(None, &a).is_ok());
        assert_eq!(typmod_in(Kind::Vector, 3), Ok(3));
        let typmod = typmod_in(Kind::Vector, 16001).unwrap_err();
        assert_eq!(
            typmod.message,
            "dimensions for type vector cannot exceed 16000"
        );
        assert_eq!(typmod.sqlstate, "22023");
        assert_eq!(vector_norm(&[3.0, 4.0]), 5.0);
        assert_eq!(
            l2_normalize(Kind::Vector, &[3.0, 4.0]).unwrap(),
            vec![0.6, 0.8]
        );
        assert_eq!(
            l2_normalize(Kind::Vector, &[0.0, 0.0]).unwrap(),
            vec![0.0, 0.0]
        );
    }
}
