//! The `uuid` type as PostgreSQL has it: 16 bytes, read from 32 hex digits (either case,
//! optionally in braces, a hyphen allowed after any group of four digits), printed in the
//! lowercase 8-4-4-4-12 form, sent in binary as the bytes themselves, ordered bytewise.
//! `gen_random_uuid()` draws version-4 UUIDs from the model's seed, never the OS.

use crate::pg::error::PgResult;
use crate::pg::types::pg_type::{invalid_input, Type};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The bytes of a UUID.
pub(crate) const UUID_BYTES: usize = 16;
/// The ChaCha stream UUIDs are drawn from (apart from any other use of the seed).
const UUID_STREAM: u64 = 0x7575_6964;

/// `text` as PostgreSQL's `uuid_in` reads it (no surrounding whitespace allowed).
pub(crate) fn parse(text: &str) -> PgResult<[u8; UUID_BYTES]> {
    read(text).ok_or_else(|| invalid_input(Type::Uuid, text))
}

fn read(text: &str) -> Option<[u8; UUID_BYTES]> {
    let (braced, mut rest) = match text.strip_prefix('{') {
        Some(inner) => (true, inner.as_bytes()),
        None => (false, text.as_bytes()),
    };
    let mut out = [0u8; UUID_BYTES];
    for (at, byte) in out.iter_mut().enumerate() {
        let pair = rest.get(..2)?;
        *byte = (hex_digit(pair[0])? << 4) | hex_digit(pair[1])?;
        rest = &rest[2..];
        // string_to_uuid: a hyphen may follow any odd-numbered byte but the last.
        if at % 2 == 1 && at < UUID_BYTES - 1 && rest.first() == Some(&b'-') {
            rest = &rest[1..];
        }
    }
    if braced {
        rest = rest.strip_prefix(b"}")?;
    }
    rest.is_empty().then_some(out)
}

fn hex_digit(byte: u8) -> Option<u8> {
    (byte as char).to_digit(16).map(|d| d as u8)
}

/// `uuid_out`: lowercase, hyphens after the 4th, 6th, 8th and 10th bytes.
pub(crate) fn format(bytes: &[u8; UUID_BYTES]) -> String {
    let mut out = String::with_capacity(36);
    for (at, byte) in bytes.iter().enumerate() {
        if matches!(at, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The `draw`-th random UUID of the model seeded with `seed`: bytes of a ChaCha8 stream,
/// with the version (4) and variant bits set as PostgreSQL's `gen_random_uuid` sets them.
pub(crate) fn random(seed: u64, draw: u64) -> [u8; UUID_BYTES] {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(UUID_STREAM);
    // A UUID is four 32-bit words of the stream.
    rng.set_word_pos(u128::from(draw) * 4);
    let mut bytes = [0u8; UUID_BYTES];
    rng.fill_bytes(&mut bytes);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANONICAL: &str = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";

    #[test]
    fn every_accepted_form_reads_alike() {
        for form in [
            "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
            "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
        ] {
            assert_eq!(format(&parse(form).expect(form)), CANONICAL, "{form}");
        }
    }

    #[test]
    fn malformed_forms_are_refused() {
        for bad in [
            "",
            "x",
            " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
            "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
            "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        ] {
            let error = parse(bad).expect_err(bad);
            assert_eq!(error.code, "22P02");
            assert_eq!(
                error.message,
                format!("invalid input syntax for type uuid: \"{bad}\"")
            );
        }
    }

    #[test]
    fn random_uuids_are_version_4_and_follow_the_seed() {
        let first = random(7, 0);
        assert_eq!(first[6] >> 4, 4);
        assert_eq!(first[8] >> 6, 0b10);
        assert_eq!(first, random(7, 0));
        assert_ne!(first, random(7, 1));
        assert_ne!(first, random(8, 0));
    }
}
