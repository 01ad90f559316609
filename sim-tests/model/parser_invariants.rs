//! The invariants of the `fuzz/` targets, checked on seeded random inputs so they run with
//! every `cargo test`: the request decoder never panics, never yields an empty command and
//! never consumes more than it was given; executing whatever it decodes never panics.

use amnesia::internal::model::protocol::request::{next_request, Request, RequestLimits};
use amnesia::internal::model::{ModelConfig, Node, Persistence};
use bytes::BytesMut;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Pieces that random inputs are stitched from, so they reach deep into the decoder and
/// the command table instead of failing on the first byte.
const PIECES: &[&[u8]] = &[
    b"*",
    b"$",
    b"\r\n",
    b"\r",
    b"\n",
    b"1",
    b"2",
    b"3",
    b"-1",
    b"0",
    b"-",
    b"10",
    b"99999",
    b"\"",
    b"'",
    b"\\x41",
    b"\\",
    b" ",
    b"\0",
    b"SET",
    b"GET",
    b"k",
    b"RPUSH",
    b"LRANGE",
    b"EXPIRE",
    b"MULTI",
    b"EXEC",
    b"HSET",
    b"ZADD",
    b"SELECT",
    b"HELLO",
    b"AUTH",
    b"WATCH",
    b"LTRIM",
    b"SCAN",
    b"KEYS",
    b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
    b"PX",
    b"NX",
    b"GT",
    b"inf",
    b"-inf",
    b"(1",
    b"+inf",
    b"9223372036854775807",
    b"-9223372036854775808",
];

/// A random input: raw bytes or stitched pieces.
pub fn random_input(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut input = Vec::new();
    if rng.random_bool(0.3) {
        let len = rng.random_range(0..512);
        input.extend((0..len).map(|_| rng.random::<u8>()));
    } else {
        for _ in 0..rng.random_range(1..40) {
            input.extend_from_slice(PIECES[rng.random_range(0..PIECES.len())]);
        }
    }
    input
}

/// Decode every request in `input` under `limits`, checking the decoder's invariants;
/// returns the commands.
pub fn decode_all(input: &[u8], limits: RequestLimits) -> Vec<Vec<bytes::Bytes>> {
    let mut buf = BytesMut::from(input);
    let mut commands = Vec::new();
    loop {
        let before = buf.len();
        let request = next_request(&mut buf, limits);
        assert!(buf.len() <= before, "the decoder grew its input");
        match request {
            Request::Command(args) => {
                assert!(!args.is_empty(), "an empty command from {input:?}");
                assert!(buf.len() < before, "a command that consumed nothing");
                let payload: usize = args.iter().map(|a| a.len()).sum();
                assert!(payload <= before, "more argument bytes than input");
                commands.push(args);
            }
            Request::Incomplete | Request::ProtocolError(_) => return commands,
        }
    }
}

#[test]
fn decoder_invariants_on_random_input() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
    let mut decoded = 0;
    for _ in 0..30_000 {
        let input = random_input(&mut rng);
        for authenticated in [true, false] {
            let limits = RequestLimits {
                bulk_bytes_max: 512 * 1024 * 1024,
                authenticated,
            };
            decoded += decode_all(&input, limits).len();
        }
    }
    assert!(
        decoded > 10_000,
        "the generator rarely reaches a command: {decoded}"
    );
}

#[test]
fn executing_decoded_commands_never_panics() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xe8ec);
    let mut executed = 0;
    for round in 0..400u64 {
        let config = ModelConfig {
            persistence: Persistence::AofAlways,
            aof_rewrite_commands_min: 16,
            password: (round % 5 == 0).then(|| "k".into()),
            ..ModelConfig::default()
        };
        let mut node = Node::new(config, 1_000);
        let mut client = node.connect();
        let mut now_ms = 1_000;
        for _ in 0..20 {
            let input = random_input(&mut rng);
            let limits = RequestLimits {
                bulk_bytes_max: 512 * 1024 * 1024,
                authenticated: client.authenticated,
            };
            for args in decode_all(&input, limits) {
                now_ms += rng.random_range(0..2_000);
                let execution = node.execute(&mut client, args, now_ms);
                let mut out = BytesMut::new();
                // A blocking command on empty keys waits; nothing else comes to serve it.
                let reply = match execution.blocked {
                    true => node.time_out(&client),
                    false => execution.reply,
                };
                reply.encode(client.protocol, &mut out);
                executed += 1;
                if execution.close {
                    client = node.connect();
                }
            }
            node.cycle(now_ms);
        }
        node.restart();
    }
    assert!(executed > 5_000, "{executed}");
}

/// Words a random argument is drawn from: keys of every type, numbers at the edges,
/// floats, every option keyword the model parses, and odd bytes.
const WORDS: &[&str] = &[
    "k",
    "l",
    "s",
    "z",
    "h",
    "k2",
    "0",
    "1",
    "2",
    "-1",
    "3",
    "10",
    "-10",
    "100",
    "9223372036854775807",
    "-9223372036854775808",
    "4611686018427387904",
    "1.5",
    "-0.5",
    "inf",
    "-inf",
    "nan",
    "1e400",
    "0x10",
    "",
    "\x00",
    "\u{ff}",
    "a*",
    "[a",
    "(a",
    "-",
    "+",
    "NX",
    "XX",
    "GT",
    "LT",
    "CH",
    "INCR",
    "EX",
    "PX",
    "EXAT",
    "PXAT",
    "KEEPTTL",
    "GET",
    "PERSIST",
    "LEFT",
    "RIGHT",
    "BEFORE",
    "AFTER",
    "MIN",
    "MAX",
    "COUNT",
    "LIMIT",
    "RANK",
    "MAXLEN",
    "WITHSCORES",
    "WITHVALUES",
    "BYSCORE",
    "BYLEX",
    "REV",
    "WEIGHTS",
    "AGGREGATE",
    "SUM",
    "MATCH",
    "TYPE",
    "DB",
    "REPLACE",
    "ENCODING",
    "IDLETIME",
    "REFCOUNT",
    "FREQ",
    "HELP",
    "ID",
    "SETNAME",
    "GETNAME",
    "hz",
    "appendonly",
    "appendfsync",
    "always",
    "yes",
    "no",
    "proto-max-bulk-len",
    "maxmemory",
    "1mb",
    "SET-ACTIVE-EXPIRE",
    "LOAD",
    "EXISTS",
    "FLUSH",
    "return redis.call('incr', KEYS[1])",
    "return redis.call('lpush', KEYS[1], ARGV[1])",
    "return {1, 'a', {err='x'}}",
    "return cjson.encode({a=1})",
    "error('boom')",
];

/// Every command of the table, with random arguments, on two clients (a blocked one is
/// served by the other's write or times out), through cycles and `always` restarts (which
/// replay what was logged): no panic, and every reply encodes.
#[test]
fn every_command_with_random_arguments_never_panics() {
    let names: Vec<&str> = amnesia::internal::model::commands::table::names().collect();
    let mut rng = ChaCha8Rng::seed_from_u64(0xc0de);
    let mut executed = 0u64;
    for round in 0..150u64 {
        let config = ModelConfig {
            persistence: Persistence::AofAlways,
            random_seed: round,
            databases: 4,
            ..ModelConfig::default()
        };
        let mut node = Node::new(config, 1_000);
        let mut clients = [node.connect(), node.connect()];
        let mut now_ms = 1_000;
        for step in 0..300 {
            let name = names[rng.random_range(0..names.len())];
            if matches!(name, "quit" | "reset" | "auth" | "hello") {
                continue; // connection state is not what this test explores
            }
            let mut args = vec![bytes::Bytes::copy_from_slice(name.as_bytes())];
            for _ in 0..rng.random_range(0..7) {
                let word = WORDS[rng.random_range(0..WORDS.len())];
                args.push(bytes::Bytes::copy_from_slice(word.as_bytes()));
            }
            now_ms += rng.random_range(0..300);
            let who = step % 2;
            let execution = node.execute(&mut clients[who], args, now_ms);
            let reply = if execution.blocked {
                let other = &mut clients[1 - who];
                for key in ["l", "z", "k"] {
                    let push = if key == "z" {
                        "ZADD z 1 m"
                    } else {
                        "RPUSH _ v"
                    };
                    let push: Vec<bytes::Bytes> = push
                        .replace('_', key)
                        .split(' ')
                        .map(|w| bytes::Bytes::copy_from_slice(w.as_bytes()))
                        .collect();
                    node.execute(other, push, now_ms);
                }
                let waiter = &clients[who];
                node.take_served(waiter)
                    .unwrap_or_else(|| node.time_out(waiter))
            } else {
                execution.reply
            };
            let mut out = BytesMut::new();
            reply.encode(clients[who].protocol, &mut out);
            assert!(!out.is_empty());
            executed += 1;
            if step % 50 == 49 {
                node.cycle(now_ms);
            }
        }
        node.restart();
    }
    assert!(executed > 30_000, "{executed}");
}
