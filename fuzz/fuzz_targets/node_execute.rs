//! Commands decoded from arbitrary bytes, executed against a `Node` with the clock moving,
//! expiry cycles, MULTI, persistence, restarts, and blocked clients served by a push to
//! `k` or timed out: no panic, and every reply encodes in both protocols.

#![no_main]

use amnesia::internal::model::protocol::request::{next_request, Request, RequestLimits};
use amnesia::internal::model::{ModelConfig, Node, Persistence, Protocol};
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&settings, input)) = data.split_first() else {
        return;
    };
    let persistence = match settings % 3 {
        0 => Persistence::None,
        1 => Persistence::AofEverysec,
        _ => Persistence::AofAlways,
    };
    let config = ModelConfig {
        persistence,
        password: (settings & 0x80 != 0).then(|| "pw".into()),
        databases: 4,
        aof_rewrite_commands_min: 8,
        ..ModelConfig::default()
    };
    let mut now_ms = 1_700_000_000_000u64;
    let mut node = Node::new(config, now_ms);
    let mut client = node.connect();
    let mut buf = BytesMut::from(input);
    let mut executed = 0u32;
    loop {
        let limits = RequestLimits {
            bulk_bytes_max: 512 * 1024 * 1024,
            authenticated: client.authenticated,
        };
        match next_request(&mut buf, limits) {
            Request::Command(args) => {
                // The first byte of the last argument moves the clock (0..=2.55 s).
                let step = args.last().and_then(|a| a.first()).copied().unwrap_or(0);
                now_ms += u64::from(step) * 10;
                let execution = node.execute(&mut client, args, now_ms);
                // A blocking command on empty keys waits: a second client's push may
                // serve it (the next command, run as that client), else it times out.
                let reply = if execution.blocked {
                    let mut pusher = node.connect();
                    let push = [&b"RPUSH"[..], b"k", b"v"].map(bytes::Bytes::from_static).to_vec();
                    node.execute(&mut pusher, push, now_ms);
                    node.disconnect(&mut pusher);
                    node.take_served(&client)
                        .unwrap_or_else(|| node.time_out(&client))
                } else {
                    execution.reply
                };
                for protocol in [Protocol::Resp2, Protocol::Resp3] {
                    reply.encode(protocol, &mut BytesMut::new());
                }
                if execution.close {
                    node.disconnect(&mut client);
                    client = node.connect();
                }
                executed += 1;
                if executed % 7 == 0 {
                    node.cycle(now_ms);
                }
                if executed % 29 == 0 {
                    node.restart();
                    client = node.connect();
                }
            }
            Request::Incomplete | Request::ProtocolError(_) => break,
        }
    }
    node.cycle(now_ms + 10_000);
    node.restart();
});
