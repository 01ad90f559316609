//! What clients send when they connect, as Redis 7.2 answers it: `CLIENT SETINFO`
//! (redis-rs, redis-py, Jedis, go-redis), `CLIENT NO-TOUCH` (7.2) and `CLIENT NO-EVICT`
//! (7.0), `HELLO` with AUTH and SETNAME in the orders clients send them. redis-server
//! 7.0.15, the differential tests' reference, has no SETINFO or NO-TOUCH: the replies
//! here are Redis 7.2.4's (`networking.c`: `clientSetinfoCommand`, `clientCommand`,
//! `helloCommand`), and without `ModelConfig::client_commands_7_2` the model answers
//! 7.0.15's unknown-subcommand error, which the differential tests check.

use crate::common::{bulk, connect, exec, model, on_virtual_time, EPOCH_MS};
use amnesia::internal::model::protocol::client::ClientState;
use amnesia::internal::model::{ModelConfig, Node, Reply};
use redis::{ProtocolVersion, RedisConnectionInfo};

fn node_7_2(password: Option<&str>) -> Node {
    Node::new(
        ModelConfig {
            password: password.map(String::from),
            client_commands_7_2: true,
            ..ModelConfig::default()
        },
        EPOCH_MS,
    )
}

fn error(text: &str) -> Reply {
    Reply::Error(text.into())
}

fn ok() -> Reply {
    Reply::Status(bytes::Bytes::from_static(b"OK"))
}

/// `args` on `client`, at the test's time.
fn run(node: &mut Node, client: &mut ClientState, args: &[&str]) -> Reply {
    exec(node, client, args, EPOCH_MS)
}

#[test]
fn client_setinfo_answers_as_redis_7_2() {
    let mut node = node_7_2(None);
    let mut client = node.connect();
    for args in [
        &["CLIENT", "SETINFO", "LIB-NAME", "redis-rs"][..],
        &["CLIENT", "SETINFO", "lib-ver", "1.8.1"],
        &["client", "setinfo", "Lib-Name", "go-redis(,go1.22.1)"],
        // Empty clears it, as Redis does.
        &["CLIENT", "SETINFO", "LIB-VER", ""],
        // A NUL ends what Redis checks (`validateClientAttr` reads a C string).
        &["CLIENT", "SETINFO", "LIB-NAME", "a\0 b"],
    ] {
        assert_eq!(run(&mut node, &mut client, args), ok(), "{args:?}");
    }
    let bad_value = [
        (
            "LIB-NAME",
            "redis py",
            "ERR LIB-NAME cannot contain spaces, newlines or special characters.",
        ),
        (
            "lib-ver",
            "1.0\n",
            "ERR lib-ver cannot contain spaces, newlines or special characters.",
        ),
        (
            "lib-name",
            "caf\u{e9}",
            "ERR lib-name cannot contain spaces, newlines or special characters.",
        ),
    ];
    for (attribute, value, expected) in bad_value {
        let reply = run(
            &mut node,
            &mut client,
            &["CLIENT", "SETINFO", attribute, value],
        );
        assert_eq!(reply, error(expected), "{attribute} {value:?}");
    }
    let reply = run(
        &mut node,
        &mut client,
        &["CLIENT", "SETINFO", "LIB-URL", "x"],
    );
    assert_eq!(reply, error("ERR Unrecognized option 'LIB-URL'"));
    // `addReplyErrorFormat` keeps an error on one line.
    let reply = run(
        &mut node,
        &mut client,
        &["CLIENT", "SETINFO", "a\r\nb", "x"],
    );
    assert_eq!(reply, error("ERR Unrecognized option 'a  b'"));
    let reply = run(&mut node, &mut client, &["CLIENT", "SETINFO", "LIB-NAME"]);
    assert_eq!(
        reply,
        error("ERR wrong number of arguments for 'client|setinfo' command")
    );
    let reply = run(
        &mut node,
        &mut client,
        &["CLIENT", "SETINFO", "LIB-NAME", "a", "b"],
    );
    assert_eq!(
        reply,
        error("ERR wrong number of arguments for 'client|setinfo' command")
    );
}

#[test]
fn without_7_2_setinfo_and_no_touch_are_7_0_s_unknown_subcommands() {
    let mut node = Node::new(ModelConfig::default(), EPOCH_MS);
    let mut client = node.connect();
    let reply = run(
        &mut node,
        &mut client,
        &["CLIENT", "SETINFO", "LIB-NAME", "x"],
    );
    assert_eq!(
        reply,
        error("ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.")
    );
    let reply = run(&mut node, &mut client, &["CLIENT", "NO-TOUCH", "on"]);
    assert_eq!(
        reply,
        error("ERR unknown subcommand 'NO-TOUCH'. Try CLIENT HELP.")
    );
    // NO-EVICT is Redis 7.0's too.
    assert_eq!(
        run(&mut node, &mut client, &["CLIENT", "NO-EVICT", "on"]),
        ok()
    );
}

#[test]
fn no_evict_and_no_touch_take_on_or_off() {
    let mut node = node_7_2(None);
    let mut client = node.connect();
    for sub in ["NO-EVICT", "no-touch"] {
        for value in ["on", "OFF", "On"] {
            assert_eq!(run(&mut node, &mut client, &["CLIENT", sub, value]), ok());
        }
        assert_eq!(
            run(&mut node, &mut client, &["CLIENT", sub, "yes"]),
            error("ERR syntax error")
        );
        let lower = sub.to_ascii_lowercase();
        assert_eq!(
            run(&mut node, &mut client, &["CLIENT", sub]),
            error(&format!(
                "ERR wrong number of arguments for 'client|{lower}' command"
            ))
        );
    }
}

/// `OBJECT IDLETIME key` in seconds, read `later_ms` after the test's start.
fn idle_seconds(node: &mut Node, client: &mut ClientState, key: &str, later_ms: u64) -> i64 {
    match exec(
        node,
        client,
        &["OBJECT", "IDLETIME", key],
        EPOCH_MS + later_ms,
    ) {
        Reply::Integer(seconds) => seconds,
        other => panic!("OBJECT IDLETIME answered {other:?}"),
    }
}

#[test]
fn no_touch_spares_access_times_but_touch_itself_touches() {
    let mut node = node_7_2(None);
    let mut writer = node.connect();
    let mut reader = node.connect();
    exec(&mut node, &mut writer, &["SET", "k", "v"], EPOCH_MS);
    assert_eq!(
        run(&mut node, &mut reader, &["CLIENT", "NO-TOUCH", "ON"]),
        ok()
    );
    // A NO-TOUCH read 10 s later leaves the key idle since its write.
    let read = exec(&mut node, &mut reader, &["GET", "k"], EPOCH_MS + 10_000);
    assert_eq!(read, bulk("v"));
    assert_eq!(idle_seconds(&mut node, &mut writer, "k", 10_000), 10);
    // In a transaction too; but TOUCH itself touches (Redis 7.2's `lookupKey`).
    exec(&mut node, &mut reader, &["MULTI"], EPOCH_MS + 20_000);
    exec(&mut node, &mut reader, &["GET", "k"], EPOCH_MS + 20_000);
    exec(&mut node, &mut reader, &["EXEC"], EPOCH_MS + 20_000);
    assert_eq!(idle_seconds(&mut node, &mut writer, "k", 20_000), 20);
    let touched = exec(&mut node, &mut reader, &["TOUCH", "k"], EPOCH_MS + 30_000);
    assert_eq!(touched, Reply::Integer(1));
    assert_eq!(idle_seconds(&mut node, &mut writer, "k", 35_000), 5);
    // A script's reads are the calling client's: untouched.
    let script = "return redis.call('GET', KEYS[1])";
    let eval = exec(
        &mut node,
        &mut reader,
        &["EVAL", script, "1", "k"],
        EPOCH_MS + 40_000,
    );
    assert_eq!(eval, bulk("v"));
    assert_eq!(idle_seconds(&mut node, &mut writer, "k", 40_000), 10);
    // Another client's read touches, and RESET ends NO-TOUCH.
    exec(&mut node, &mut writer, &["GET", "k"], EPOCH_MS + 41_000);
    assert_eq!(idle_seconds(&mut node, &mut writer, "k", 43_000), 2);
    exec(&mut node, &mut reader, &["RESET"], EPOCH_MS + 43_000);
    exec(&mut node, &mut reader, &["GET", "k"], EPOCH_MS + 50_000);
    assert_eq!(idle_seconds(&mut node, &mut writer, "k", 50_000), 0);
}

#[test]
fn scripts_may_not_call_the_7_2_subcommands() {
    let mut node = node_7_2(None);
    let mut client = node.connect();
    for call in [
        "return redis.pcall('CLIENT', 'SETINFO', 'LIB-NAME', 'x')['err']",
        "return redis.pcall('CLIENT', 'NO-TOUCH', 'on')['err']",
    ] {
        let reply = run(&mut node, &mut client, &["EVAL", call, "0"]);
        assert_eq!(
            reply,
            bulk("ERR This Redis command is not allowed from script"),
            "{call}"
        );
    }
}

#[test]
fn hello_with_auth_and_setname_in_client_orders() {
    let mut node = node_7_2(Some("pw"));
    let mut client = node.connect();
    // A bad name is refused before authentication, and leaves the client unauthenticated.
    let reply = run(
        &mut node,
        &mut client,
        &["HELLO", "3", "SETNAME", "a b", "AUTH", "default", "pw"],
    );
    assert_eq!(
        reply,
        error("ERR Client names cannot contain spaces, newlines or special characters.")
    );
    let reply = run(&mut node, &mut client, &["PING"]);
    assert_eq!(reply, error("NOAUTH Authentication required."));
    // Redis 7.2 reads every option before authenticating: a bad name after a wrong
    // password is the name's error.
    let reply = run(
        &mut node,
        &mut client,
        &["HELLO", "3", "AUTH", "default", "no", "SETNAME", "a b"],
    );
    assert_eq!(
        reply,
        error("ERR Client names cannot contain spaces, newlines or special characters.")
    );
    // A wrong password leaves the name as it was.
    let reply = run(
        &mut node,
        &mut client,
        &["HELLO", "2", "AUTH", "default", "no", "SETNAME", "n1"],
    );
    assert_eq!(
        reply,
        error("WRONGPASS invalid username-password pair or user is disabled.")
    );
    // go-redis's and Jedis's order: AUTH, then SETNAME.
    let Reply::Map(fields) = run(
        &mut node,
        &mut client,
        &["HELLO", "3", "AUTH", "default", "pw", "SETNAME", "app-1"],
    ) else {
        panic!("HELLO answers a map");
    };
    assert_eq!(fields[2], (bulk("proto"), Reply::Integer(3)));
    assert_eq!(
        run(&mut node, &mut client, &["CLIENT", "GETNAME"]),
        bulk("app-1")
    );
    // SETNAME alone on an authenticated client, protocol back to 2.
    let Reply::Map(fields) = run(&mut node, &mut client, &["HELLO", "2", "SETNAME", "app-2"])
    else {
        panic!("HELLO answers a map");
    };
    assert_eq!(fields[2], (bulk("proto"), Reply::Integer(2)));
    assert_eq!(
        run(&mut node, &mut client, &["CLIENT", "GETNAME"]),
        bulk("app-2")
    );
}

#[test]
fn redis_rs_connects_with_resp3_auth_and_setinfo_answered() {
    on_virtual_time(async {
        let model = model(ModelConfig {
            password: Some("pw".into()),
            client_commands_7_2: true,
            ..ModelConfig::default()
        });
        // redis-rs sends HELLO 3 AUTH default pw, then SELECT and CLIENT SETINFO
        // LIB-NAME and LIB-VER pipelined (their errors ignored).
        let info = RedisConnectionInfo::default()
            .set_protocol(ProtocolVersion::RESP3)
            .set_password("pw")
            .set_db(3);
        let mut connection = connect(&model, &info).await.expect("connected");
        let setinfo: String = redis::cmd("CLIENT")
            .arg("SETINFO")
            .arg("LIB-NAME")
            .arg("amnesia-test")
            .query_async(&mut connection)
            .await
            .expect("CLIENT SETINFO answers OK");
        assert_eq!(setinfo, "OK");
    });
}
