//! Cutting requests out of a connection's input buffer, with Redis 7.0's limits and error
//! texts.
//!
//! A request is either a RESP array of bulk strings (what every client library sends, in
//! RESP2 and RESP3 alike) or an inline command line. The array's framing is decoded by
//! `redis-protocol`; in front of it, `limits_scan` walks only the header lines to apply
//! Redis's policy before any data is buffered or decoded: the element count and bulk length
//! limits, `$` as the only element type (so nesting never recurses), and the exact protocol
//! error replies. Inline lines are split the way Redis's `sdssplitargs` splits them.

use crate::model::data::number::parse_strict_i64;
use bytes::{Buf, Bytes, BytesMut};
use redis_protocol::resp2::{decode as resp2_decode, types::RangeFrame};

/// Longest header or inline line Redis accepts before a newline (`PROTO_INLINE_MAX_SIZE`).
pub const INLINE_BYTES_MAX: usize = 64 * 1024;
/// Largest element count of a request array (Redis: `INT_MAX`).
pub const ARGS_MAX: i64 = i32::MAX as i64;
/// Element count an unauthenticated client may send (Redis 7.0).
pub const ARGS_UNAUTHENTICATED_MAX: i64 = 10;
/// Bulk length an unauthenticated client may send (Redis 7.0).
pub const BULK_UNAUTHENTICATED_BYTES_MAX: i64 = 16 * 1024;

/// The next thing the buffer holds.
#[derive(Debug, PartialEq)]
pub enum Request {
    /// A complete command with its arguments; never empty.
    Command(Vec<Bytes>),
    /// Not enough bytes yet.
    Incomplete,
    /// A protocol violation: Redis replies this error (without `ERR `) and closes.
    ProtocolError(String),
}

/// Limits that depend on the server configuration and the client's state.
#[derive(Clone, Copy, Debug)]
pub struct RequestLimits {
    pub bulk_bytes_max: i64,
    pub authenticated: bool,
}

/// Take the next request off the front of `buf`. Empty requests (`*0`, blank inline
/// lines) are consumed silently, as Redis does.
pub fn next_request(buf: &mut BytesMut, limits: RequestLimits) -> Request {
    loop {
        let Some(&first) = buf.first() else {
            return Request::Incomplete;
        };
        let request = if first == b'*' {
            next_multibulk(buf, limits)
        } else {
            next_inline(buf)
        };
        match request {
            Some(request) => return request,
            None => continue, // an empty request was consumed
        }
    }
}

/// What the header scan learned about the array at the front of the buffer.
#[derive(Debug, PartialEq)]
enum Scan {
    Complete { frame_bytes: usize, args: usize },
    Empty { line_bytes: usize },
    Incomplete,
    Error(String),
}

fn next_multibulk(buf: &mut BytesMut, limits: RequestLimits) -> Option<Request> {
    match limits_scan(buf, limits) {
        Scan::Incomplete => Some(Request::Incomplete),
        Scan::Error(text) => Some(Request::ProtocolError(text)),
        Scan::Empty { line_bytes } => {
            buf.advance(line_bytes);
            None
        }
        Scan::Complete { frame_bytes, args } => {
            let request = decode_array(&buf[..frame_bytes], args);
            buf.advance(frame_bytes);
            Some(request)
        }
    }
}

/// Decode one complete, pre-scanned request array with `redis-protocol`.
fn decode_array(frame: &[u8], args_expected: usize) -> Request {
    // The range decoder, not `decode_bytes`: the arguments are cut from the frame directly
    // instead of through an intermediate vector of frames.
    if let Ok(Some((RangeFrame::Array(items), used))) = resp2_decode::decode_range(frame) {
        if used == frame.len() && items.len() == args_expected {
            let args: Option<Vec<Bytes>> = items
                .iter()
                .map(|item| match item {
                    RangeFrame::BulkString((start, end)) => Some(owned(&frame[*start..*end])),
                    _ => None,
                })
                .collect();
            if let Some(args) = args {
                return Request::Command(args);
            }
        }
    }
    // The scan accepted the frame, so the decoder only objects to a missing CRLF: Redis
    // takes the two bytes after a header's `\r` or after a bulk's data without looking at
    // them (`$4\rxPING\r\n` and `$4\r\nPINGxx` are both PING). Cut the frame as Redis does.
    match lenient_args(frame, args_expected) {
        Some(args) => Request::Command(args),
        None => Request::ProtocolError("Protocol error: invalid bulk format".into()),
    }
}

/// An argument that owns exactly its bytes. A slice of the frame would share the read
/// buffer's allocation, and a value the keyspace stores would keep that whole buffer alive:
/// 150,000 RPUSHes from 50 clients held 2.4 GB (16 KB an element) before this copy
/// (`scripts/redis-memory`, BENCHMARKS.md).
fn owned(data: &[u8]) -> Bytes {
    Bytes::copy_from_slice(data)
}

/// The arguments of a scanned frame, cut at the offsets the scan used.
fn lenient_args(frame: &[u8], args_expected: usize) -> Option<Vec<Bytes>> {
    let (_, mut offset) = header_line(frame, 0)?;
    let mut args = Vec::with_capacity(args_expected);
    for _ in 0..args_expected {
        let (len, data_start) = header_line(frame, offset)?;
        let data_end = data_start.checked_add(usize::try_from(len?).ok()?)?;
        args.push(owned(frame.get(data_start..data_end)?));
        offset = data_end + 2;
    }
    (offset == frame.len()).then_some(args)
}

/// Walk the header lines of the array at the front of `buf` (`*N`, then N times `$len`
/// followed by len bytes and CRLF) without copying any data.
fn limits_scan(buf: &[u8], limits: RequestLimits) -> Scan {
    let Some((count, mut offset)) = header_line(buf, 0) else {
        return too_big_or_incomplete(buf.len(), "Protocol error: too big mbulk count string");
    };
    let count = match count {
        Some(count) if count <= ARGS_MAX => count,
        _ => return Scan::Error("Protocol error: invalid multibulk length".into()),
    };
    if count <= 0 {
        return Scan::Empty { line_bytes: offset };
    }
    if !limits.authenticated && count > ARGS_UNAUTHENTICATED_MAX {
        return Scan::Error("Protocol error: unauthenticated multibulk length".into());
    }
    for _ in 0..count {
        let Some(&kind) = buf.get(offset) else {
            return Scan::Incomplete;
        };
        if kind != b'$' {
            return Scan::Error(format!(
                "Protocol error: expected '$', got '{}'",
                kind as char
            ));
        }
        let Some((len, after_line)) = header_line(buf, offset) else {
            let pending = buf.len() - offset;
            return too_big_or_incomplete(pending, "Protocol error: too big bulk count string");
        };
        let len = match len {
            Some(len) if (0..=limits.bulk_bytes_max).contains(&len) => len,
            _ => return Scan::Error("Protocol error: invalid bulk length".into()),
        };
        if !limits.authenticated && len > BULK_UNAUTHENTICATED_BYTES_MAX {
            return Scan::Error("Protocol error: unauthenticated bulk length".into());
        }
        offset = after_line + len as usize + 2;
        if offset > buf.len() {
            return Scan::Incomplete;
        }
    }
    Scan::Complete {
        frame_bytes: offset,
        args: count as usize,
    }
}

fn too_big_or_incomplete(pending_bytes: usize, error: &str) -> Scan {
    if pending_bytes > INLINE_BYTES_MAX {
        Scan::Error(error.into())
    } else {
        Scan::Incomplete
    }
}

/// The integer of a `*N` / `$N` line starting at `start`, and the offset after its CRLF.
/// `None` while the line is incomplete; `Some((None, _))` when it is not an integer.
fn header_line(buf: &[u8], start: usize) -> Option<(Option<i64>, usize)> {
    let line = &buf[start..];
    let cr = find_before_nul(line, b'\r')?;
    if cr + 1 >= line.len() {
        return None; // "\r" is there but "\n" may still come
    }
    Some((parse_strict_i64(&line[1..cr]), start + cr + 2))
}

/// The first `byte` in `buf`, as Redis's `strchr` on its NUL-terminated query buffer finds
/// it: a NUL byte ends the search, so a line with a NUL before its end stays incomplete
/// until it is too long.
fn find_before_nul(buf: &[u8], byte: u8) -> Option<usize> {
    let at = buf.iter().position(|&b| b == byte || b == 0)?;
    (buf[at] == byte).then_some(at)
}

fn next_inline(buf: &mut BytesMut) -> Option<Request> {
    let Some(newline) = find_before_nul(buf, b'\n') else {
        if buf.len() > INLINE_BYTES_MAX {
            return Some(Request::ProtocolError(
                "Protocol error: too big inline request".into(),
            ));
        }
        return Some(Request::Incomplete);
    };
    let line = buf.split_to(newline + 1);
    let line = line.strip_suffix(b"\n").unwrap_or(&line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match split_args(line) {
        None => Some(Request::ProtocolError(
            "Protocol error: unbalanced quotes in request".into(),
        )),
        Some(args) if args.is_empty() => None,
        Some(args) => Some(Request::Command(args)),
    }
}

/// Redis's `sdssplitargs`: words separated by blanks, `"..."` with C escapes and `\xHH`,
/// `'...'` with `\'`. A closing quote must be followed by a blank or the end. `None` for
/// unbalanced quotes.
pub fn split_args(line: &[u8]) -> Option<Vec<Bytes>> {
    let mut args = Vec::new();
    let mut rest = line;
    loop {
        while let Some((&b, tail)) = rest.split_first() {
            if !is_blank(b) {
                break;
            }
            rest = tail;
        }
        if rest.is_empty() {
            return Some(args);
        }
        let (arg, tail) = split_one_arg(rest)?;
        args.push(Bytes::from(arg));
        rest = tail;
    }
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t' | 0x0b | 0x0c | 0)
}

/// One word from the front of `input`, and the rest.
fn split_one_arg(input: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut arg = Vec::new();
    let mut i = 0;
    let mut in_double = false;
    let mut in_single = false;
    loop {
        let c = input.get(i).copied();
        if in_double {
            let c = c?; // end of line inside quotes: unbalanced
            if c == b'\\' && input.get(i + 1) == Some(&b'x') && hex_pair(input, i + 2).is_some() {
                arg.push(hex_pair(input, i + 2).expect("checked"));
                i += 4;
            } else if c == b'\\' && input.get(i + 1).is_some() {
                arg.push(unescape(input[i + 1]));
                i += 2;
            } else if c == b'"' {
                if input.get(i + 1).is_some_and(|&n| !is_blank(n)) {
                    return None;
                }
                return Some((arg, &input[i + 1..]));
            } else {
                arg.push(c);
                i += 1;
            }
        } else if in_single {
            let c = c?;
            if c == b'\\' && input.get(i + 1) == Some(&b'\'') {
                arg.push(b'\'');
                i += 2;
            } else if c == b'\'' {
                if input.get(i + 1).is_some_and(|&n| !is_blank(n)) {
                    return None;
                }
                i += 1;
                return Some((arg, &input[i..]));
            } else {
                arg.push(c);
                i += 1;
            }
        } else {
            match c {
                None => return Some((arg, &input[i..])),
                Some(c) if is_blank(c) => return Some((arg, &input[i..])),
                Some(b'"') => {
                    in_double = true;
                    i += 1;
                }
                Some(b'\'') => {
                    in_single = true;
                    i += 1;
                }
                Some(c) => {
                    arg.push(c);
                    i += 1;
                }
            }
        }
    }
}

fn unescape(c: u8) -> u8 {
    match c {
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'b' => 0x08,
        b'a' => 0x07,
        other => other,
    }
}

fn hex_pair(input: &[u8], at: usize) -> Option<u8> {
    let pair = input.get(at..at + 2)?;
    let text = std::str::from_utf8(pair).ok()?;
    u8::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPEN: RequestLimits = RequestLimits {
        bulk_bytes_max: 512 * 1024 * 1024,
        authenticated: true,
    };

    fn parse(input: &[u8]) -> (Request, usize) {
        let mut buf = BytesMut::from(input);
        let request = next_request(&mut buf, OPEN);
        (request, buf.len())
    }

    fn command(args: &[&str]) -> Request {
        Request::Command(
            args.iter()
                .map(|a| Bytes::copy_from_slice(a.as_bytes()))
                .collect(),
        )
    }

    #[test]
    fn arrays_decode_and_leave_the_rest() {
        let (request, left) = parse(b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n");
        assert_eq!(request, command(&["GET", "k"]));
        assert_eq!(left, 4);
    }

    #[test]
    fn arguments_share_no_memory_with_the_read_buffer() {
        // The strict decoder's path and the lenient one's (`$3\rxGET`: a header's `\r`
        // followed by any byte): neither may keep the buffer alive through a stored value.
        for input in [
            &b"*2\r\n$5\r\nRPUSH\r\n$1\r\nv\r\n*1\r\n"[..],
            &b"*2\r\n$5\rxRPUSH\r\n$1\r\nv\r\n*1\r\n"[..],
        ] {
            let mut buf = BytesMut::from(input);
            let Request::Command(args) = next_request(&mut buf, OPEN) else {
                panic!("{input:?} is a command");
            };
            assert_eq!(args.len(), 2);
            assert!(args.iter().all(Bytes::is_unique), "{input:?}");
            assert_eq!(buf.len(), 4, "the next request stays");
        }
    }

    #[test]
    fn partial_arrays_wait() {
        for cut in 1..20 {
            let full = b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
            assert_eq!(parse(&full[..cut]).0, Request::Incomplete, "cut at {cut}");
        }
    }

    #[test]
    fn redis_protocol_errors() {
        let error = |input: &[u8]| match parse(input).0 {
            Request::ProtocolError(text) => text,
            other => panic!("expected an error, got {other:?}"),
        };
        assert_eq!(error(b"*x\r\n"), "Protocol error: invalid multibulk length");
        assert_eq!(
            error(b"*1\r\n*1\r\n"),
            "Protocol error: expected '$', got '*'"
        );
        assert_eq!(
            error(b"*1\r\n$-5\r\n"),
            "Protocol error: invalid bulk length"
        );
        assert_eq!(
            error(b"*1\r\n$99999999999\r\n"),
            "Protocol error: invalid bulk length"
        );
        assert_eq!(
            error(b"*3000000000\r\n"),
            "Protocol error: invalid multibulk length"
        );
        assert_eq!(
            error(b"GET \"k\r\n"),
            "Protocol error: unbalanced quotes in request"
        );
        let long = vec![b'a'; INLINE_BYTES_MAX + 1];
        assert_eq!(error(&long), "Protocol error: too big inline request");
    }

    #[test]
    fn the_two_bytes_after_a_line_or_bulk_are_skipped_unread() {
        assert_eq!(parse(b"*1\r\n$4\rxPING\r\n"), (command(&["PING"]), 0));
        assert_eq!(
            parse(b"*2\r\n$4\r\nECHOxx$1\r\nayy*1"),
            (command(&["ECHO", "a"]), 2)
        );
    }

    #[test]
    fn a_nul_hides_the_end_of_a_line() {
        for input in [&b"PING\0\r\n"[..], b"*1\0\r\n", b"*1\r\n$4\0\r\nPING\r\n"] {
            assert_eq!(parse(input).0, Request::Incomplete, "{input:?}");
        }
        assert_eq!(parse(b"PING\r\n\0").0, command(&["PING"]));
        let mut long = b"*1\0\r\n".to_vec();
        long.resize(INLINE_BYTES_MAX + 10, b'a');
        assert_eq!(
            parse(&long).0,
            Request::ProtocolError("Protocol error: too big mbulk count string".into())
        );
    }

    #[test]
    fn empty_requests_are_skipped() {
        assert_eq!(parse(b"*0\r\n\r\n*-1\r\nPING\r\n").0, command(&["PING"]));
    }

    #[test]
    fn inline_commands_split_like_redis() {
        assert_eq!(
            parse(b"SET k \"a b\\x41\\n\" 'it\\'s'\r\n").0,
            command(&["SET", "k", "a bA\n", "it's"])
        );
        assert_eq!(split_args(b"\"a\"b"), None);
        assert_eq!(split_args(b"   ").unwrap().len(), 0);
    }
}
