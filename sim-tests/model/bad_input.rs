//! Hostile bytes on a raw connection: Redis's error replies, then a closed connection or a
//! patient wait; never a panic, a stack overflow or unbounded buffering. The expected
//! replies were taken from redis-server 7.0.15.

use crate::common::{exchange, model, on_virtual_time, raw, read_reply};
use amnesia::internal::model::{Model, ModelConfig};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::io::AsyncWriteExt;

/// What redis-server 7.0.15 answered to each input, and whether it then closed.
const REDIS_ANSWERS: &[(&[u8], &[u8], bool)] = &[
    (
        b"*x\r\n",
        b"-ERR Protocol error: invalid multibulk length\r\n",
        true,
    ),
    (
        b"*\r\n",
        b"-ERR Protocol error: invalid multibulk length\r\n",
        true,
    ),
    (
        b"*01\r\n$4\r\nPING\r\n",
        b"-ERR Protocol error: invalid multibulk length\r\n",
        true,
    ),
    (
        b"*+1\r\n$4\r\nPING\r\n",
        b"-ERR Protocol error: invalid multibulk length\r\n",
        true,
    ),
    (
        b"*2147483648\r\n",
        b"-ERR Protocol error: invalid multibulk length\r\n",
        true,
    ),
    (
        b"*99999999999\r\n",
        b"-ERR Protocol error: invalid multibulk length\r\n",
        true,
    ),
    (
        b"*1\r\n$-5\r\n",
        b"-ERR Protocol error: invalid bulk length\r\n",
        true,
    ),
    (
        b"*1\r\n$\r\n",
        b"-ERR Protocol error: invalid bulk length\r\n",
        true,
    ),
    (
        b"*1\r\n$04\r\nPING\r\n",
        b"-ERR Protocol error: invalid bulk length\r\n",
        true,
    ),
    (
        b"*1\r\n$9999999999999\r\n",
        b"-ERR Protocol error: invalid bulk length\r\n",
        true,
    ),
    (
        b"*1\r\n$536870913\r\n",
        b"-ERR Protocol error: invalid bulk length\r\n",
        true,
    ),
    (
        b"*1\r\n*1\r\n*1\r\n",
        b"-ERR Protocol error: expected '$', got '*'\r\n",
        true,
    ),
    (
        b"*1\r\n:4\r\n",
        b"-ERR Protocol error: expected '$', got ':'\r\n",
        true,
    ),
    (
        b"*1\r\n$4\r\nPING\r\n*1\r\n$x\r\n",
        b"+PONG\r\n-ERR Protocol error: invalid bulk length\r\n",
        true,
    ),
    (
        b"GET \"k\r\n",
        b"-ERR Protocol error: unbalanced quotes in request\r\n",
        true,
    ),
    (
        b"ECHO \"a\"b\r\n",
        b"-ERR Protocol error: unbalanced quotes in request\r\n",
        true,
    ),
    // Waiting for more, like Redis: a huge but legal count or length, a cut header.
    (b"*2147483647\r\n", b"", false),
    (b"*1\r\n$536870912\r\n", b"", false),
    (b"*1\rx", b"", false),
    (b"*1\r\n$4\r\nPIN", b"", false),
    // A NUL ends Redis's search for the end of a line: the line stays incomplete.
    (b"PING\0\r\n", b"", false),
    (b"*1\0\r\n", b"", false),
    (b"*1\r\n$4\0\r\nPING\r\n", b"", false),
    // Accepted.
    (b"PING\r\n\0", b"+PONG\r\n", false),
    (
        b"*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n",
        b"+PONG\r\n+PONG\r\n",
        false,
    ),
    (b"*-5\r\nPING\r\n", b"+PONG\r\n", false),
    (b"*0\r\n\r\n\n  \r\nPING\n", b"+PONG\r\n", false),
    (b"*1\r\n$4\rxPING\r\n", b"+PONG\r\n", false),
    (
        b"*1\r\n$0\r\n\r\n",
        b"-ERR unknown command '', with args beginning with: \r\n",
        false,
    ),
    (
        b"SET k \"a b\\x41\\n\" 'it\\'s'\r\nGET k\r\n",
        b"-ERR syntax error\r\n$-1\r\n",
        false,
    ),
    (
        b"SET k \"a b\\x41\\n\"\r\nGET k\r\n",
        b"+OK\r\n$5\r\na bA\n\r\n",
        false,
    ),
    (b"ECHO 'a\\'b'\r\n", b"$3\r\na'b\r\n", false),
    (b"ECHO \"\\x4g\"\r\n", b"$3\r\nx4g\r\n", false),
    (b"ECHO \"\\z\"\r\n", b"$1\r\nz\r\n", false),
    (b"ECHO \x0bx\r\n", b"$1\r\nx\r\n", false),
    (
        b"ECHO a\rb\n",
        b"-ERR wrong number of arguments for 'echo' command\r\n",
        false,
    ),
];

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
        .escape_debug()
        .to_string()
}

#[test]
fn protocol_errors_match_redis() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let mut wrong = Vec::new();
        for (input, expected, closes) in REDIS_ANSWERS {
            let (output, closed) = exchange(&model, input).await;
            if (output.as_slice(), closed) != (*expected, *closes) {
                wrong.push(format!(
                    "{}: got {} (closed {closed}), Redis says {} (closed {closes})",
                    show(input),
                    show(&output),
                    show(expected)
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        assert_serving(&model).await;
    });
}

/// A fresh connection still gets PONG.
async fn assert_serving(model: &Model) {
    let (output, closed) = exchange(model, b"PING\r\n").await;
    assert_eq!((output.as_slice(), closed), (&b"+PONG\r\n"[..], false));
}

#[test]
fn deeply_nested_arrays_are_refused_without_recursion() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let input = b"*1\r\n".repeat(100_000);
        let (output, closed) = exchange(&model, &input).await;
        assert_eq!(output, b"-ERR Protocol error: expected '$', got '*'\r\n");
        assert!(closed);
        assert_serving(&model).await;
    });
}

#[test]
fn overlong_lines_are_refused() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let cases: [(Vec<u8>, &[u8]); 3] = [
            (
                vec![b'a'; 70_000],
                b"-ERR Protocol error: too big inline request\r\n",
            ),
            (
                [&b"*1\r\n$"[..], &[b'9'; 70_000]].concat(),
                b"-ERR Protocol error: too big bulk count string\r\n",
            ),
            (
                [&b"*"[..], &[b'9'; 70_000]].concat(),
                b"-ERR Protocol error: too big mbulk count string\r\n",
            ),
        ];
        for (input, expected) in cases {
            let (output, closed) = exchange(&model, &input).await;
            assert_eq!(output, expected);
            assert!(closed);
        }
        // Just under the limit, a long inline line is still a command.
        let mut line = b"ECHO ".to_vec();
        line.extend(std::iter::repeat_n(b'x', 60_000));
        line.extend_from_slice(b"\r\n");
        let (output, closed) = exchange(&model, &line).await;
        assert!(output.starts_with(b"$60000\r\nxxx"), "{}", show(&output));
        assert!(!closed);
    });
}

#[test]
fn unauthenticated_clients_get_small_limits() {
    on_virtual_time(async {
        let model = model(ModelConfig {
            password: Some("pw".into()),
            ..ModelConfig::default()
        });
        let (output, closed) = exchange(&model, b"*20\r\n").await;
        assert_eq!(
            output,
            b"-ERR Protocol error: unauthenticated multibulk length\r\n"
        );
        assert!(closed);
        let (output, closed) = exchange(&model, b"*2\r\n$20000\r\n").await;
        assert_eq!(
            output,
            b"-ERR Protocol error: unauthenticated bulk length\r\n"
        );
        assert!(closed);
        let (output, closed) = exchange(&model, b"PING\r\nAUTH wrong\r\n").await;
        assert_eq!(
            output,
            &b"-NOAUTH Authentication required.\r\n\
               -WRONGPASS invalid username-password pair or user is disabled.\r\n"[..]
        );
        assert!(!closed);
        // After AUTH the limits are the configured ones.
        let mut input = b"AUTH pw\r\n*20\r\n$4\r\nECHO\r\n".to_vec();
        input.extend_from_slice(&b"$1\r\nx\r\n".repeat(19));
        let (output, _) = exchange(&model, &input).await;
        assert_eq!(
            output,
            b"+OK\r\n-ERR wrong number of arguments for 'echo' command\r\n"
        );
    });
}

#[test]
fn half_a_command_waits_for_the_rest() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let mut stream = raw(&model);
        let command =
            b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
        let second = command.len() - 20; // where the GET starts
        for cut in [
            3,
            9,
            15,
            24,
            30,
            second - 1,
            second,
            second + 5,
            command.len() - 1,
        ] {
            let first_reply: &[u8] = if cut >= second { b"+OK\r\n" } else { b"" };
            let mut stream = raw(&model);
            stream.write_all(&command[..cut]).await.unwrap();
            let (output, closed) = read_reply(&mut stream).await;
            assert_eq!(
                (output.as_slice(), closed),
                (first_reply, false),
                "cut {cut}"
            );
            stream.write_all(&command[cut..]).await.unwrap();
            let (rest, closed) = read_reply(&mut stream).await;
            let output = [output, rest].concat();
            assert_eq!(output, b"+OK\r\n$5\r\nhello\r\n", "cut {cut}");
            assert!(!closed);
        }
        // One byte at a time.
        for byte in command {
            stream.write_all(&[*byte]).await.unwrap();
            tokio::task::yield_now().await;
        }
        let (output, _) = read_reply(&mut stream).await;
        assert_eq!(output, b"+OK\r\n$5\r\nhello\r\n");
    });
}

#[test]
fn query_buffer_limit_closes_a_client_that_never_finishes() {
    on_virtual_time(async {
        let model = model(ModelConfig {
            query_buffer_bytes_max: 1024 * 1024,
            ..ModelConfig::default()
        });
        let mut stream = raw(&model);
        stream.write_all(b"*1\r\n$400000000\r\n").await.unwrap();
        let chunk = vec![b'x'; 64 * 1024];
        let mut sent = 0;
        let mut closed_after = None;
        while sent < 8 * 1024 * 1024 {
            if stream.write_all(&chunk).await.is_err() {
                closed_after = Some(sent);
                break;
            }
            sent += chunk.len();
        }
        let closed_after = closed_after.expect("the model kept buffering past its limit");
        assert!(
            closed_after <= 2 * 1024 * 1024,
            "closed after {closed_after} bytes"
        );
        assert_serving(&model).await;
    });
}

/// Split a reply stream into RESP2 frames; panics on anything that is not well formed.
fn frames(mut output: &[u8]) -> Vec<redis_protocol::resp2::types::BytesFrame> {
    let mut frames = Vec::new();
    while !output.is_empty() {
        let bytes = bytes::Bytes::copy_from_slice(output);
        let (frame, used) = redis_protocol::resp2::decode::decode_bytes(&bytes)
            .unwrap_or_else(|e| panic!("malformed reply {}: {e:?}", show(output)))
            .unwrap_or_else(|| panic!("truncated reply {}", show(output)));
        frames.push(frame);
        output = &output[used..];
    }
    frames
}

#[test]
fn binary_garbage_gets_errors_or_a_wait_never_a_crash() {
    use redis_protocol::resp2::types::BytesFrame;
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let mut closed_count = 0;
        for seed in 0..300u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let len = rng.random_range(1..4096);
            let mut input = vec![0u8; len];
            rng.fill_bytes(&mut input);
            if seed % 3 == 0 {
                input[0] = b'*'; // reach the multibulk parser too
            }
            let (output, closed) = exchange(&model, &input).await;
            let frames = frames(&output);
            for frame in &frames {
                assert!(
                    matches!(frame, BytesFrame::Error(_)),
                    "seed {seed}: a non-error reply {frame:?} to garbage"
                );
            }
            if closed {
                closed_count += 1;
                let last = frames.last().expect("closing without a reason");
                let BytesFrame::Error(text) = last else {
                    unreachable!()
                };
                assert!(
                    text.starts_with("ERR Protocol error: "),
                    "seed {seed}: closed after {text}"
                );
            }
        }
        assert!(closed_count > 0, "some garbage must be a protocol error");
        assert_serving(&model).await;
    });
}

#[test]
fn hostile_input_over_real_tcp() {
    use amnesia::internal::model::ModelClock;
    use tokio::io::AsyncReadExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let model = Model::new(ModelConfig::default(), ModelClock::system());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(model.clone().serve_tcp(listener));
        let nested = b"*1\r\n".repeat(100_000);
        let cases: [(&[u8], &[u8]); 3] = [
            (
                b"*1\r\n$9999999999999\r\n",
                b"-ERR Protocol error: invalid bulk length\r\n",
            ),
            (&nested, b"-ERR Protocol error: expected '$', got '*'\r\n"),
            (
                &[b'a'; 70_000],
                b"-ERR Protocol error: too big inline request\r\n",
            ),
        ];
        for (input, expected) in cases {
            let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
            let (mut reader, mut writer) = stream.split();
            let write = async {
                let _ = writer.write_all(input).await;
            };
            let read = async {
                let mut output = Vec::new();
                // The server closes after its error: read to the end (or a reset).
                let _ = reader.read_to_end(&mut output).await;
                output
            };
            let (_, output) = tokio::join!(write, read);
            assert_eq!(output, expected, "{}", show(input));
        }
        let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
        stream.write_all(b"PING\r\n").await.unwrap();
        let mut pong = [0u8; 7];
        stream.read_exact(&mut pong).await.unwrap();
        assert_eq!(&pong, b"+PONG\r\n");
        server.abort();
    });
}
