//! PostgreSQL's error replies as the wire carried them: each connection's server messages
//! framed (a type byte, then a length that counts itself) and every `ErrorResponse`'s
//! SQLSTATE (its `C` field) counted. The stores' own view of a 40001 or a 40P01 is what
//! the world recorded; whether the store then retried, swallowed or reported it is the
//! checker's business, not coverage's.

use crate::trace::Trace;
use std::collections::BTreeMap;

/// The coverage points read from PostgreSQL's error replies, each with its SQLSTATE.
pub(super) const POINT_CODES: [(&str, &str); 6] = [
    ("postgres.serialization-failure", "40001"),
    ("postgres.deadlock", "40P01"),
    ("postgres.backend-terminated", "57P01"),
    ("postgres.too-many-clients", "53300"),
    ("postgres.lock-timeout", "55P03"),
    ("postgres.statement-timeout", "57014"),
];

/// Bytes buffered per connection at most; a connection past it is no longer read.
const BUFFER_BYTES_MAX: usize = 1 << 22;

/// The backend message types a PostgreSQL server sends (protocol 3.0): a connection whose
/// replies start otherwise (Redis's RESP, an SSL answer) is not read.
const MESSAGE_TYPES: &[u8] = b"123ACDEGHIKNRSTVWZcdnstv";

/// How many `ErrorResponse`s carried each SQLSTATE, over every connection's replies.
pub(super) fn error_codes(trace: &Trace) -> BTreeMap<String, u64> {
    // `None`: a connection that is not (or no longer) read as PostgreSQL's.
    let mut buffers: BTreeMap<(String, u64), Option<Vec<u8>>> = BTreeMap::new();
    let mut codes = BTreeMap::new();
    trace.for_each_reply(|host, conn, bytes| {
        let slot = buffers
            .entry((host.to_string(), conn))
            .or_insert_with(|| Some(Vec::new()));
        let Some(buffer) = slot else {
            return;
        };
        buffer.extend_from_slice(bytes);
        match frame(buffer, &mut codes) {
            Some(read) if buffer.len() <= BUFFER_BYTES_MAX => {
                buffer.drain(..read);
            }
            _ => *slot = None,
        }
    });
    codes
}

/// Count the SQLSTATE of every whole `ErrorResponse` at the start of `buffer`; the bytes
/// read (whole messages), or `None` when the bytes are not PostgreSQL's messages.
fn frame(buffer: &[u8], codes: &mut BTreeMap<String, u64>) -> Option<usize> {
    let mut at = 0;
    while buffer.len() >= at + 5 {
        let kind = buffer[at];
        let length = u32::from_be_bytes(buffer[at + 1..at + 5].try_into().expect("4 bytes"));
        if !MESSAGE_TYPES.contains(&kind) || length < 4 {
            return None;
        }
        let end = at + 1 + length as usize;
        if buffer.len() < end {
            break;
        }
        if kind == b'E' {
            if let Some(code) = sqlstate(&buffer[at + 5..end]) {
                *codes.entry(code).or_default() += 1;
            }
        }
        at = end;
    }
    Some(at)
}

/// The `C` field of an `ErrorResponse`'s body: (a field type byte, a C string)… then 0.
fn sqlstate(body: &[u8]) -> Option<String> {
    let mut fields = body;
    while let Some((&field, rest)) = fields.split_first() {
        let end = rest.iter().position(|&b| b == 0)?;
        if field == b'C' {
            return Some(String::from_utf8_lossy(&rest[..end]).into_owned());
        }
        fields = &rest[end + 1..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: &str) -> Vec<u8> {
        let body = [b"SERROR\0C".as_slice(), code.as_bytes(), b"\0Mno\0\0"].concat();
        let mut message = vec![b'E'];
        message.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
        message.extend_from_slice(&body);
        message
    }

    #[test]
    fn an_error_split_across_reads_is_counted_once_whole() {
        let mut codes = BTreeMap::new();
        let stream = [b"2\0\0\0\x04".to_vec(), error("40001"), error("40P01")].concat();
        let (first, _) = stream.split_at(9);
        assert_eq!(frame(first, &mut codes), Some(5));
        assert!(codes.is_empty());
        assert_eq!(frame(&stream, &mut codes), Some(stream.len()));
        assert_eq!(codes.get("40001"), Some(&1));
        assert_eq!(codes.get("40P01"), Some(&1));
    }

    #[test]
    fn redis_replies_are_not_read_as_postgresql_messages() {
        let mut codes = BTreeMap::new();
        assert_eq!(frame(b"+OK\r\n$5\r\nhello\r\n", &mut codes), None);
        assert_eq!(frame(b"-ERR wrong\r\n", &mut codes), None);
    }
}
