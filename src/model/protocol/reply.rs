//! What a command answers, independent of the protocol version, and its encoding in RESP2
//! or RESP3.
//!
//! Leaves are encoded by `redis-protocol`. Three things are written here directly: two
//! because the crate cannot express them the way Redis 7.0 does, aggregate headers (so a
//! RESP2 null array `*-1` and RESP3 maps keep Redis's order and shape) and RESP3 doubles,
//! which Redis 7.0 prints with `%.17g` (`1.1000000000000001`) where the crate prints
//! Rust's shortest form (`1.1`); and bulk strings (`$5\r\nhello\r\n`), most of every
//! reply's bytes, because the crate's general encoder cost ~580 instructions per leaf
//! against a length header and a copy. The differential tests hold all of it to Redis's
//! bytes.

use bytes::{BufMut, Bytes, BytesMut};
use redis_protocol::resp2::{encode as resp2_encode, types::BorrowedFrame as Resp2Frame};
use redis_protocol::resp3::{encode::complete as resp3_encode, types::BorrowedFrame as Resp3Frame};

/// A reply as Redis builds it; [`Reply::encode`] renders it for the client's protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `+OK`-style status.
    Status(Bytes),
    /// A full error line, prefix included: `ERR syntax error`, `WRONGTYPE ...`.
    Error(String),
    Integer(i64),
    Bulk(Bytes),
    /// A missing value: `$-1` in RESP2, `_` in RESP3.
    Nil,
    /// A missing aggregate: `*-1` in RESP2, `_` in RESP3.
    NilArray,
    Array(Vec<Reply>),
    /// A map in RESP3; a flat array of keys and values in RESP2.
    Map(Vec<(Reply, Reply)>),
    /// A set in RESP3; an array in RESP2.
    Set(Vec<Reply>),
    /// A double in RESP3; a bulk string in RESP2, both in Redis 7.0's `%.17g` form.
    Double(f64),
    /// A boolean in RESP3; the integer 1 or 0 in RESP2.
    Bool(bool),
    /// A verbatim string (`=`) in RESP3; a bulk string in RESP2.
    Verbatim(Bytes),
}

/// Protocol version negotiated by `HELLO`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Resp2,
    Resp3,
}

impl Reply {
    pub fn ok() -> Reply {
        Reply::Status(Bytes::from_static(b"OK"))
    }

    pub fn status(text: &'static str) -> Reply {
        Reply::Status(Bytes::from_static(text.as_bytes()))
    }

    /// An error reply; `text` includes its prefix (`ERR`, `WRONGTYPE`, ...).
    pub fn error(text: impl Into<String>) -> Reply {
        Reply::Error(text.into())
    }

    pub fn bulk(data: impl Into<Bytes>) -> Reply {
        Reply::Bulk(data.into())
    }

    /// `Nil` for `None`.
    pub fn bulk_or_nil(data: Option<Bytes>) -> Reply {
        data.map_or(Reply::Nil, Reply::Bulk)
    }

    pub fn bulks<I: IntoIterator<Item = Bytes>>(items: I) -> Reply {
        Reply::Array(items.into_iter().map(Reply::Bulk).collect())
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// Append this reply, encoded for `protocol`, to `out`.
    pub fn encode(&self, protocol: Protocol, out: &mut BytesMut) {
        match protocol {
            Protocol::Resp2 => self.encode_resp2(out),
            Protocol::Resp3 => self.encode_resp3(out),
        }
    }

    fn encode_resp2(&self, out: &mut BytesMut) {
        match self {
            Reply::Status(s) => leaf2(out, Resp2Frame::SimpleString(s)),
            Reply::Error(e) => leaf2(out, Resp2Frame::Error(e)),
            Reply::Integer(i) => leaf2(out, Resp2Frame::Integer(*i)),
            Reply::Bool(b) => leaf2(out, Resp2Frame::Integer(i64::from(*b))),
            Reply::Bulk(b) | Reply::Verbatim(b) => bulk(out, b'$', b),
            Reply::Double(d) => bulk(out, b'$', format_double(*d).as_bytes()),
            Reply::Nil => leaf2(out, Resp2Frame::Null),
            Reply::NilArray => out.put_slice(b"*-1\r\n"),
            Reply::Array(items) | Reply::Set(items) => {
                header(out, b'*', items.len());
                items.iter().for_each(|item| item.encode_resp2(out));
            }
            Reply::Map(pairs) => {
                header(out, b'*', pairs.len() * 2);
                for (key, value) in pairs {
                    key.encode_resp2(out);
                    value.encode_resp2(out);
                }
            }
        }
    }

    fn encode_resp3(&self, out: &mut BytesMut) {
        match self {
            Reply::Status(s) => leaf3(
                out,
                Resp3Frame::SimpleString {
                    data: s,
                    attributes: None,
                },
            ),
            Reply::Error(e) => leaf3(
                out,
                Resp3Frame::SimpleError {
                    data: e,
                    attributes: None,
                },
            ),
            Reply::Integer(i) => leaf3(
                out,
                Resp3Frame::Number {
                    data: *i,
                    attributes: None,
                },
            ),
            Reply::Bool(b) => leaf3(
                out,
                Resp3Frame::Boolean {
                    data: *b,
                    attributes: None,
                },
            ),
            Reply::Bulk(b) => bulk(out, b'$', b),
            Reply::Verbatim(b) => leaf3(
                out,
                Resp3Frame::VerbatimString {
                    data: b,
                    format: redis_protocol::resp3::types::VerbatimStringFormat::Text,
                    attributes: None,
                },
            ),
            Reply::Double(d) => {
                out.put_u8(b',');
                out.put_slice(format_double(*d).as_bytes());
                out.put_slice(b"\r\n");
            }
            Reply::Nil | Reply::NilArray => leaf3(out, Resp3Frame::Null),
            Reply::Array(items) => {
                header(out, b'*', items.len());
                items.iter().for_each(|item| item.encode_resp3(out));
            }
            Reply::Set(items) => {
                header(out, b'~', items.len());
                items.iter().for_each(|item| item.encode_resp3(out));
            }
            Reply::Map(pairs) => {
                header(out, b'%', pairs.len());
                for (key, value) in pairs {
                    key.encode_resp3(out);
                    value.encode_resp3(out);
                }
            }
        }
    }
}

/// A length-prefixed leaf: `$5\r\nhello\r\n`.
fn bulk(out: &mut BytesMut, kind: u8, data: &[u8]) {
    out.reserve(data.len() + 24);
    header(out, kind, data.len());
    out.put_slice(data);
    out.put_slice(b"\r\n");
}

fn header(out: &mut BytesMut, kind: u8, len: usize) {
    // Digits from the end of a stack buffer: no String per aggregate.
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = len;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.put_u8(kind);
    out.put_slice(&digits[at..]);
    out.put_slice(b"\r\n");
}

// Borrowed frames: a leaf is encoded straight from the reply, without cloning its bytes
// (an atomic reference count) or its error text (an allocation) into an owned frame.
fn leaf2(out: &mut BytesMut, frame: Resp2Frame) {
    resp2_encode::extend_encode_borrowed(out, &frame, false).expect("a RESP2 leaf always encodes");
}

fn leaf3(out: &mut BytesMut, frame: Resp3Frame) {
    resp3_encode::extend_encode_borrowed(out, &frame, false).expect("a RESP3 leaf always encodes");
}

/// A double the way Redis 7.0 prints it (`%.17g`, `inf`, `-inf`).
pub fn format_double(value: f64) -> String {
    if value.is_infinite() {
        return if value > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    format_g17(value)
}

/// C's `%.17g`.
fn format_g17(value: f64) -> String {
    crate::model::data::number::format_g(value, 17)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_like_redis_7_0() {
        assert_eq!(format_double(1.1), "1.1000000000000001");
        assert_eq!(format_double(3.0), "3");
        assert_eq!(format_double(1.5), "1.5");
        assert_eq!(format_double(1e300), "1.0000000000000001e+300");
        assert_eq!(format_double(-2.5e-7), "-2.4999999999999999e-07");
        assert_eq!(format_double(0.0001), "0.0001");
        assert_eq!(format_double(f64::INFINITY), "inf");
        assert_eq!(
            format_double(123456789012345680.0),
            "1.2345678901234568e+17"
        );
    }

    #[test]
    fn resp2_and_resp3_shapes() {
        let reply = Reply::Map(vec![(Reply::bulk("a"), Reply::Double(1.5))]);
        let mut out = BytesMut::new();
        reply.encode(Protocol::Resp2, &mut out);
        assert_eq!(&out[..], b"*2\r\n$1\r\na\r\n$3\r\n1.5\r\n");
        out.clear();
        reply.encode(Protocol::Resp3, &mut out);
        assert_eq!(&out[..], b"%1\r\n$1\r\na\r\n,1.5\r\n");
        out.clear();
        Reply::NilArray.encode(Protocol::Resp2, &mut out);
        assert_eq!(&out[..], b"*-1\r\n");
        for len in [0, 9, 10, 12345] {
            out.clear();
            Reply::Array(vec![Reply::Nil; len]).encode(Protocol::Resp2, &mut out);
            let head = format!("*{len}\r\n");
            assert_eq!(&out[..head.len()], head.as_bytes());
            assert_eq!(out.len(), head.len() + len * b"$-1\r\n".len());
        }
    }
}
