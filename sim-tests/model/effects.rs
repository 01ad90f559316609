//! Commands whose effect is not a replay of themselves: random picks, long double
//! arithmetic, blocked clients served by another client's write, database swaps. Each is
//! logged as the deterministic commands with its effect, so an `always` restart recovers
//! exactly the keyspace the clients saw; and each random pick comes from the node's seed.
//! Also the model's bounds on hostile inputs: answered at once, never a stall.

use crate::common::{bulk, exec, EPOCH_MS};
use amnesia::internal::model::protocol::client::ClientState;
use amnesia::internal::model::{ModelConfig, Node, Persistence, Reply};
use bytes::Bytes;

fn node(persistence: Persistence, random_seed: u64) -> Node {
    Node::new(
        ModelConfig {
            persistence,
            random_seed,
            ..ModelConfig::default()
        },
        EPOCH_MS,
    )
}

/// Every key of every database with its type, contents and TTL, as clients read them.
fn dump(node: &mut Node, now_ms: u64) -> Vec<String> {
    let mut client = node.connect();
    let mut lines = Vec::new();
    for db in 0..4 {
        exec(node, &mut client, &["SELECT", &db.to_string()], now_ms);
        let Reply::Array(keys) = exec(node, &mut client, &["KEYS", "*"], now_ms) else {
            panic!("KEYS answers an array");
        };
        for key in keys {
            let Reply::Bulk(key) = key else {
                panic!("keys are bulk strings")
            };
            let key = String::from_utf8_lossy(&key).into_owned();
            let kind = exec(node, &mut client, &["TYPE", &key], now_ms);
            let read: &[&str] = match &kind {
                Reply::Status(t) if &t[..] == b"string" => &["GET"],
                Reply::Status(t) if &t[..] == b"list" => &["LRANGE", "", "0", "-1"],
                Reply::Status(t) if &t[..] == b"hash" => &["HGETALL"],
                Reply::Status(t) if &t[..] == b"set" => &["SMEMBERS"],
                _ => &["ZRANGE", "", "0", "-1", "WITHSCORES"],
            };
            let mut command: Vec<&str> = read.to_vec();
            command.insert(1, &key);
            command.retain(|a| !a.is_empty());
            let value = exec(node, &mut client, &command, now_ms);
            let ttl = exec(node, &mut client, &["PTTL", &key], now_ms);
            lines.push(format!("db{db} {key} {kind:?} {value:?} {ttl:?}"));
        }
    }
    node.disconnect(&mut client);
    lines
}

fn run(node: &mut Node, client: &mut ClientState, commands: &[&[&str]], now_ms: u64) {
    for command in commands {
        let reply = exec(node, client, command, now_ms);
        assert!(!reply.is_error(), "{command:?}: {reply:?}");
    }
}

#[test]
fn effects_replay_to_the_same_keyspace_after_an_always_restart() {
    let mut node = node(Persistence::AofAlways, 7);
    let mut client = node.connect();
    let now = EPOCH_MS + 10;
    let commands: &[&[&str]] = &[
        &["SADD", "s", "a", "b", "c", "d", "e", "f"],
        &["SPOP", "s"],
        &["SPOP", "s", "2"],
        &["SET", "f", "10.5", "EX", "100"],
        &["INCRBYFLOAT", "f", "0.1"],
        &["HINCRBYFLOAT", "h", "x", "1e30"],
        &["RPUSH", "l", "1", "2", "3", "4"],
        &["LMPOP", "1", "l", "RIGHT", "COUNT", "2"],
        &["RPOPLPUSH", "l", "l2"],
        &["ZADD", "z", "1", "a", "2", "b", "3", "c"],
        &["ZMPOP", "1", "z", "MAX"],
        &["ZPOPMIN", "z"],
        &["COPY", "l2", "c", "DB", "1"],
        &["MOVE", "f", "2"],
        &["SWAPDB", "0", "3"],
        &["SELECT", "3"],
        &["SUNIONSTORE", "u", "s", "nokey"],
        &["ZUNIONSTORE", "zu", "2", "z", "s", "WEIGHTS", "2", "3"],
        &["SETRANGE", "r", "3", "abc"],
        &["MULTI"],
        &["SPOP", "u"],
        &["INCRBYFLOAT", "n", "2.5"],
        &["EXEC"],
    ];
    run(&mut node, &mut client, commands, now);
    let before = dump(&mut node, now + 1);
    node.restart();
    assert_eq!(dump(&mut node, now + 1), before);
    assert!(before.len() >= 8, "{before:#?}");
}

#[test]
fn a_blocked_client_served_by_a_push_is_logged_as_its_pop() {
    let mut node = node(Persistence::AofAlways, 0);
    let (mut waiter, mut pusher) = (node.connect(), node.connect());
    let args = |words: &[&str]| words.iter().map(|w| Bytes::from(w.to_string())).collect();
    let blocked = node.execute(
        &mut waiter,
        args(&["BLMOVE", "q", "done", "LEFT", "RIGHT", "0"]),
        EPOCH_MS,
    );
    assert!(blocked.blocked);
    assert_eq!(node.take_served(&waiter), None);
    exec(
        &mut node,
        &mut pusher,
        &["RPUSH", "q", "job1", "job2"],
        EPOCH_MS + 5,
    );
    assert_eq!(node.take_served(&waiter), Some(bulk("job1")));
    let before = dump(&mut node, EPOCH_MS + 6);
    node.restart();
    assert_eq!(dump(&mut node, EPOCH_MS + 6), before);
    assert!(
        before.iter().any(|l| l.starts_with("db0 done ")),
        "{before:#?}"
    );
}

#[test]
fn a_blocked_client_times_out_on_the_node_clock() {
    let mut node = node(Persistence::None, 0);
    let mut waiter = node.connect();
    let args = ["BLPOP", "q", "1.5"]
        .map(|w| Bytes::from(w.to_string()))
        .to_vec();
    assert!(node.execute(&mut waiter, args, EPOCH_MS).blocked);
    assert_eq!(node.block_deadline_ms(&waiter), Some(EPOCH_MS + 1_500));
    assert_eq!(node.time_out(&waiter), Reply::NilArray);
    let mut pusher = node.connect();
    exec(
        &mut node,
        &mut pusher,
        &["RPUSH", "q", "late"],
        EPOCH_MS + 2_000,
    );
    assert_eq!(node.take_served(&waiter), None, "no longer waiting");
}

#[test]
fn random_picks_follow_the_node_seed() {
    let picks = |seed: u64| {
        let mut node = node(Persistence::None, seed);
        let mut client = node.connect();
        let members: Vec<String> = (0..64).map(|i| format!("m{i}")).collect();
        let mut sadd = vec!["SADD", "s"];
        sadd.extend(members.iter().map(String::as_str));
        exec(&mut node, &mut client, &sadd, EPOCH_MS);
        (0..8)
            .map(|_| exec(&mut node, &mut client, &["SPOP", "s"], EPOCH_MS))
            .collect::<Vec<_>>()
    };
    assert_eq!(picks(1), picks(1), "one seed, one sequence");
    assert_ne!(picks(1), picks(2), "another seed, another sequence");
}

#[test]
fn hostile_counts_and_patterns_are_answered_at_once() {
    let mut node = node(Persistence::None, 0);
    let mut client = node.connect();
    run(
        &mut node,
        &mut client,
        &[
            &["SADD", "s", "a"],
            &["ZADD", "z", "1", "a"],
            &["HSET", "h", "f", "v"],
            &[
                "SET",
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                "1",
            ],
        ],
        EPOCH_MS,
    );
    // Redis would build a reply of 2^62 elements until memory ran out.
    for command in [
        &["SRANDMEMBER", "s", "-4611686018427387904"][..],
        &["ZRANDMEMBER", "z", "-4611686018427387904"],
        &["HRANDFIELD", "h", "-4611686018427387904"],
    ] {
        let reply = exec(&mut node, &mut client, command, EPOCH_MS);
        assert!(reply.is_error(), "{command:?}: {reply:?}");
    }
    // At the bound itself the picks are made.
    let Reply::Array(picks) = exec(
        &mut node,
        &mut client,
        &["SRANDMEMBER", "s", "-1048576"],
        EPOCH_MS,
    ) else {
        panic!("an array of picks");
    };
    assert_eq!(picks.len(), 1 << 20);
    // Nested stars: the glob matcher gives up in linear steps (its unit test counts them).
    let pattern = format!("{}b", "a*".repeat(40));
    let hostile: &[&[&str]] = &[
        &["KEYS", &pattern],
        &["SCAN", "0", "MATCH", &pattern],
        &["CONFIG", "GET", &pattern],
        &["SSCAN", "s", "0", "MATCH", &pattern],
    ];
    for command in hostile {
        let reply = exec(&mut node, &mut client, command, EPOCH_MS);
        assert!(!reply.is_error(), "{command:?}: {reply:?}");
    }
    // A script that never ends is stopped on the model's instruction budget: Redis would
    // be busy from then on, and so is the model, until SCRIPT KILL.
    let args = ["EVAL", "while true do end", "0"]
        .map(|w| Bytes::from(w.to_string()))
        .to_vec();
    assert!(node.execute(&mut client, args, EPOCH_MS).blocked);
    let mut other = node.connect();
    let kill = exec(&mut node, &mut other, &["SCRIPT", "KILL"], EPOCH_MS);
    assert_eq!(kill, Reply::Status(Bytes::from_static(b"OK")));
    assert!(node.take_served(&client).is_some_and(|r| r.is_error()));
}
