//! The server encoding, UTF8, as PostgreSQL checks text coming in (`pg_verify_mbstr`): a
//! query string, a text parameter in either format. An invalid byte sequence, or a NUL
//! byte (which no PostgreSQL text may hold), is 22021 naming the bytes as
//! `report_invalid_encoding` does, never stored.

use crate::pg::error::{PgError, PgResult, CHARACTER_NOT_IN_REPERTOIRE};

/// `bytes` as text of the server encoding.
pub(crate) fn verify(bytes: &[u8]) -> PgResult<&str> {
    let text = std::str::from_utf8(bytes).map_err(|e| invalid(&bytes[e.valid_up_to()..]))?;
    match bytes.iter().position(|b| *b == 0) {
        Some(at) => Err(invalid(&bytes[at..])),
        None => Ok(text),
    }
}

/// 22021 for the sequence starting `bad`: as many bytes as its first announces (PostgreSQL's
/// `pg_utf_mblen`), at most what remains.
fn invalid(bad: &[u8]) -> PgError {
    let length = match bad.first().copied().unwrap_or(0) {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    let shown: Vec<String> = bad
        .iter()
        .take(length)
        .map(|b| format!("0x{b:02x}"))
        .collect();
    PgError::new(
        CHARACTER_NOT_IN_REPERTOIRE,
        format!(
            "invalid byte sequence for encoding \"UTF8\": {}",
            shown.join(" ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_sequences_and_nul_are_refused_as_postgresql_names_them() {
        assert_eq!(verify("é ok".as_bytes()).unwrap(), "é ok");
        let message = |bytes: &[u8]| verify(bytes).unwrap_err().message;
        assert_eq!(
            message(b"a\xff"),
            "invalid byte sequence for encoding \"UTF8\": 0xff"
        );
        assert_eq!(
            message(b"'a\xc3'"),
            "invalid byte sequence for encoding \"UTF8\": 0xc3 0x27"
        );
        assert_eq!(
            message(b"a\0b"),
            "invalid byte sequence for encoding \"UTF8\": 0x00"
        );
        assert_eq!(
            verify(b"\xff").unwrap_err().code,
            CHARACTER_NOT_IN_REPERTOIRE
        );
    }
}
