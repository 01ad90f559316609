//! Arbitrary bytes through the model's request decoder, as an authenticated and as an
//! unauthenticated client: no panic, never an empty command, never more consumed than
//! given, and the same commands whether the bytes arrive at once or in two reads.

#![no_main]

use amnesia::internal::model::protocol::request::{next_request, Request, RequestLimits};
use bytes::{Bytes, BytesMut};
use libfuzzer_sys::fuzz_target;

/// Every request in `input`; `(commands, bytes left, ended in a protocol error)`.
fn decode_all(input: &[u8], limits: RequestLimits) -> (Vec<Vec<Bytes>>, usize, bool) {
    let mut buf = BytesMut::from(input);
    let mut commands = Vec::new();
    loop {
        let before = buf.len();
        let request = next_request(&mut buf, limits);
        assert!(buf.len() <= before, "the decoder grew its input");
        match request {
            Request::Command(args) => {
                assert!(!args.is_empty(), "an empty command");
                assert!(buf.len() < before, "a command that consumed nothing");
                let payload: usize = args.iter().map(Bytes::len).sum();
                assert!(payload <= before, "more argument bytes than input");
                commands.push(args);
            }
            Request::Incomplete => return (commands, buf.len(), false),
            Request::ProtocolError(text) => {
                assert!(text.starts_with("Protocol error: "), "{text}");
                return (commands, buf.len(), true);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    for authenticated in [true, false] {
        let limits = RequestLimits {
            bulk_bytes_max: 512 * 1024 * 1024,
            authenticated,
        };
        let (commands, left, failed) = decode_all(data, limits);
        assert!(left <= data.len());
        if failed {
            continue;
        }
        // Feeding the same bytes in two reads decodes the same commands: what the first
        // read left over is exactly where decoding resumes.
        let cut = data.len() / 2;
        let (mut first, _, first_failed) = decode_all(&data[..cut], limits);
        if first_failed {
            continue; // an over-long line may be refused before its end arrives
        }
        let consumed = cut - decode_all(&data[..cut], limits).1;
        let (second, _, _) = decode_all(&data[consumed..], limits);
        first.extend(second);
        assert_eq!(first, commands, "split at {cut}");
    }
});
