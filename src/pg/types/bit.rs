//! PostgreSQL's `bit(n)` type (`utils/adt/varbit.c`), as far as pgvector's bit functions
//! need it: the text form both ways (`bit_in`'s binary and hexadecimal digits, its typmod
//! check), `B'101'` literals, the binary form out, and `bit_cmp`'s order. A value is its
//! bits, first bit first; `varbit` is not modelled (refused).

use crate::pg::error::{PgError, PgResult};

/// SQLSTATE `22026` string_data_length_mismatch.
const STRING_DATA_LENGTH_MISMATCH: &str = "22026";

/// SQLSTATE `22023` invalid_parameter_value.
const INVALID_PARAMETER_VALUE: &str = "22023";

/// SQLSTATE `22P02` invalid_text_representation.
const INVALID_TEXT_REPRESENTATION: &str = "22P02";

/// The longest bit string the model takes (PostgreSQL's `VARBITMAXLEN` is far larger;
/// pgvector's indexes stop at 64000).
const BITS_MAX: usize = 1 << 20;

/// `bittypmodin`: the `n` of `bit(n)`.
pub(crate) fn typmod_in(length: i64) -> PgResult<u32> {
    if length < 1 {
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "length for type bit must be at least 1",
        ));
    }
    if length > BITS_MAX as i64 {
        return Err(PgError::unsupported(format!("the type bit({length})")));
    }
    Ok(length as u32)
}

/// `bit_in`: `0`/`1` digits, or after a leading `b`/`B` the same, or after `x`/`X`
/// hexadecimal digits (four bits each); with `typmod`, exactly that many bits.
pub(crate) fn parse(text: &str, typmod: Option<u32>) -> PgResult<Vec<bool>> {
    let (hex, digits) = match text.as_bytes().first() {
        Some(b'x' | b'X') => (true, &text[1..]),
        Some(b'b' | b'B') => (false, &text[1..]),
        _ => (false, text),
    };
    let bits = match hex {
        true => hex_bits(digits)?,
        false => binary_bits(digits)?,
    };
    if bits.len() > BITS_MAX {
        return Err(PgError::unsupported("a bit string over 2^20 bits"));
    }
    check_length(&bits, typmod)?;
    Ok(bits)
}

/// A `bit(n)` value has exactly `n` bits (`bit_in`'s and an assignment's check).
pub(crate) fn check_length(bits: &[bool], typmod: Option<u32>) -> PgResult<()> {
    match typmod {
        Some(n) if n as usize != bits.len() => Err(PgError::new(
            STRING_DATA_LENGTH_MISMATCH,
            format!(
                "bit string length {} does not match type bit({n})",
                bits.len()
            ),
        )),
        _ => Ok(()),
    }
}

fn binary_bits(digits: &str) -> PgResult<Vec<bool>> {
    digits
        .chars()
        .map(|c| match c {
            '0' => Ok(false),
            '1' => Ok(true),
            other => Err(PgError::new(
                INVALID_TEXT_REPRESENTATION,
                format!("\"{other}\" is not a valid binary digit"),
            )),
        })
        .collect()
}

fn hex_bits(digits: &str) -> PgResult<Vec<bool>> {
    let mut bits = Vec::with_capacity(digits.len() * 4);
    for c in digits.chars() {
        let nibble = c.to_digit(16).ok_or_else(|| {
            PgError::new(
                INVALID_TEXT_REPRESENTATION,
                format!("\"{c}\" is not a valid hexadecimal digit"),
            )
        })?;
        bits.extend((0..4).rev().map(|shift| nibble >> shift & 1 == 1));
    }
    Ok(bits)
}

/// `bit_out`: one `0` or `1` per bit.
pub(crate) fn format(bits: &[bool]) -> String {
    bits.iter().map(|b| if *b { '1' } else { '0' }).collect()
}

/// The bits packed first bit high, the last byte padded with zeros (`VARBITS`).
pub(crate) fn bytes(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, bit) in bits.iter().enumerate() {
        out[i / 8] |= u8::from(*bit) << (7 - i % 8);
    }
    out
}

/// `bit_send`: the bit count as an `int4`, then the packed bytes.
pub(crate) fn encode_binary(bits: &[bool]) -> Vec<u8> {
    assert!(bits.len() <= BITS_MAX);
    let mut out = (bits.len() as i32).to_be_bytes().to_vec();
    out.extend(bytes(bits));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms_and_errors() {
        assert_eq!(format(&parse("101", None).unwrap()), "101");
        assert_eq!(format(&parse("xA1", None).unwrap()), "10100001");
        assert_eq!(format(&parse("B01", Some(2)).unwrap()), "01");
        assert_eq!(parse("", None).unwrap(), Vec::<bool>::new());
        assert_eq!(parse("102", None).unwrap_err().code, "22P02");
        assert_eq!(parse("101", Some(4)).unwrap_err().code, "22026");
        assert_eq!(
            encode_binary(&parse("101", None).unwrap()),
            [0, 0, 0, 3, 0xA0]
        );
        // `bit_cmp`: the bits in order, then the length.
        assert!(parse("1", None).unwrap() < parse("10", None).unwrap());
        assert!(parse("011", None).unwrap() < parse("1", None).unwrap());
    }
}
