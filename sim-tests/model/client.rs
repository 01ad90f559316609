//! The real `redis` crate against the model: handshakes and commands over an in-memory
//! duplex stream on virtual time, and over real TCP.

use crate::common::{connect, connect_plain, model, on_virtual_time, RESPONSE_TIMEOUT};
use amnesia::internal::model::{Model, ModelClock, ModelConfig};
use redis::aio::MultiplexedConnection;
use redis::{AsyncCommands, ErrorKind, ProtocolVersion, RedisConnectionInfo, Value};

async fn set_get_roundtrip(connection: &mut MultiplexedConnection) {
    let binary: Vec<u8> = (0..=255u8).chain([0, b'\r', b'\n', 0]).collect();
    let () = connection.set("bin", &binary).await.unwrap();
    let back: Vec<u8> = connection.get("bin").await.unwrap();
    assert_eq!(back, binary);

    let text = "mémoire — 記憶 🧠\r\n";
    let () = connection.set("utf8", text).await.unwrap();
    let back: String = connection.get("utf8").await.unwrap();
    assert_eq!(back, text);

    let missing: Option<String> = connection.get("missing").await.unwrap();
    assert_eq!(missing, None);
}

async fn list_roundtrip(connection: &mut MultiplexedConnection) {
    let len: i64 = connection.rpush("list", &["a", "b", "c"]).await.unwrap();
    assert_eq!(len, 3);
    let len: i64 = connection.rpush("list", "d").await.unwrap();
    assert_eq!(len, 4);
    let all: Vec<String> = connection.lrange("list", 0, -1).await.unwrap();
    assert_eq!(all, ["a", "b", "c", "d"]);
    let tail: Vec<String> = connection.lrange("list", -2, 100).await.unwrap();
    assert_eq!(tail, ["c", "d"]);
}

async fn transaction_roundtrip(connection: &mut MultiplexedConnection) {
    let (set, pushed, value, range): (String, i64, String, Vec<String>) = redis::pipe()
        .atomic()
        .set("tx:k", "v")
        .rpush("tx:l", &["x", "y"])
        .get("tx:k")
        .lrange("tx:l", 0, -1)
        .query_async(connection)
        .await
        .unwrap();
    assert_eq!(
        (set.as_str(), pushed, value.as_str()),
        ("OK", 2, "v"),
        "EXEC answers each queued command"
    );
    assert_eq!(range, ["x", "y"]);

    // A command rejected while queueing aborts the whole block (EXECABORT), and nothing
    // in it runs.
    let aborted: redis::RedisResult<((), ())> = redis::pipe()
        .atomic()
        .set("tx:never", "1")
        .cmd("NOSUCHCOMMAND")
        .query_async(connection)
        .await;
    let error = aborted.expect_err("EXECABORT");
    assert_eq!(error.code(), Some("EXECABORT"), "{error:?}");
    let never: Option<String> = connection.get("tx:never").await.unwrap();
    assert_eq!(never, None);
}

#[test]
fn resp2_over_duplex_with_client_setinfo_ignored() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        // The default info pipelines CLIENT SETINFO LIB-NAME / LIB-VER, which Redis 7.0
        // answers with an error the crate ignores.
        let mut connection = connect_plain(&model).await;
        let pong: String = redis::cmd("PING")
            .query_async(&mut connection)
            .await
            .unwrap();
        assert_eq!(pong, "PONG");
        set_get_roundtrip(&mut connection).await;
        list_roundtrip(&mut connection).await;
        transaction_roundtrip(&mut connection).await;
        let setinfo: redis::RedisResult<()> = redis::cmd("CLIENT")
            .arg("SETINFO")
            .arg("LIB-NAME")
            .arg("x")
            .query_async(&mut connection)
            .await;
        let error = setinfo.expect_err("Redis 7.0 has no CLIENT SETINFO");
        assert!(
            error.to_string().contains("unknown subcommand 'SETINFO'"),
            "{error}"
        );
    });
}

#[test]
fn resp3_hello_and_maps() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let info = RedisConnectionInfo::default().set_protocol(ProtocolVersion::RESP3);
        let mut connection = connect(&model, &info).await.unwrap();
        set_get_roundtrip(&mut connection).await;
        list_roundtrip(&mut connection).await;
        transaction_roundtrip(&mut connection).await;

        let added: i64 = redis::cmd("HSET")
            .arg("h")
            .arg(&["f1", "v1", "f2", "v2"])
            .query_async(&mut connection)
            .await
            .unwrap();
        assert_eq!(added, 2);
        let raw: Value = redis::cmd("HGETALL")
            .arg("h")
            .query_async(&mut connection)
            .await
            .unwrap();
        let Value::Map(pairs) = raw else {
            panic!("HGETALL answers a RESP3 map, got {raw:?}");
        };
        let pairs: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(k, v)| {
                (
                    redis::from_redis_value(k).unwrap(),
                    redis::from_redis_value(v).unwrap(),
                )
            })
            .collect();
        assert_eq!(
            pairs,
            [("f1".into(), "v1".into()), ("f2".into(), "v2".into())]
        );
        let missing: Value = redis::cmd("GET")
            .arg("nope")
            .query_async(&mut connection)
            .await
            .unwrap();
        assert_eq!(missing, Value::Nil);
        let hello: Value = redis::cmd("HELLO")
            .arg(3)
            .query_async(&mut connection)
            .await
            .unwrap();
        let Value::Map(fields) = hello else {
            panic!("HELLO 3 answers a map, got {hello:?}");
        };
        assert!(fields
            .iter()
            .any(|(k, v)| { *k == Value::BulkString(b"proto".to_vec()) && *v == Value::Int(3) }));
    });
}

#[test]
fn auth_with_right_and_wrong_password() {
    on_virtual_time(async {
        let config = ModelConfig {
            password: Some("s3cret".into()),
            ..ModelConfig::default()
        };
        let model = model(config);

        let right = RedisConnectionInfo::default().set_password("s3cret");
        let mut connection = connect(&model, &right).await.expect("right password");
        let () = connection.set("k", "v").await.unwrap();
        let value: String = connection.get("k").await.unwrap();
        assert_eq!(value, "v");

        let right_resp3 = right.clone().set_protocol(ProtocolVersion::RESP3);
        let mut connection = connect(&model, &right_resp3).await.expect("HELLO 3 AUTH");
        let value: String = connection.get("k").await.unwrap();
        assert_eq!(value, "v");

        for protocol in [ProtocolVersion::RESP2, ProtocolVersion::RESP3] {
            let wrong = RedisConnectionInfo::default()
                .set_password("guess")
                .set_protocol(protocol);
            let error = connect(&model, &wrong).await.expect_err("wrong password");
            // The crate turns AUTH's WRONGPASS into an auth failure and passes HELLO's on.
            let refused = match protocol {
                ProtocolVersion::RESP2 => error.kind() == ErrorKind::AuthenticationFailed,
                _ => error.code() == Some("WRONGPASS"),
            };
            assert!(refused, "{protocol:?}: {error:?}");
        }

        // Without a password the connection is made but every data command is refused.
        let mut anonymous = connect(&model, &RedisConnectionInfo::default())
            .await
            .expect("no AUTH in the handshake");
        let refused: redis::RedisResult<Option<String>> = anonymous.get("k").await;
        let error = refused.expect_err("NOAUTH");
        assert_eq!(error.code(), Some("NOAUTH"), "{error:?}");
    });
}

#[test]
fn select_puts_keys_in_that_db_only() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let db3 = RedisConnectionInfo::default().set_db(3);
        let mut three = connect(&model, &db3).await.unwrap();
        let () = three.set("where", "three").await.unwrap();
        let len: i64 = three.rpush("l", "x").await.unwrap();
        assert_eq!(len, 1);

        let mut zero = connect_plain(&model).await;
        let missing: Option<String> = zero.get("where").await.unwrap();
        assert_eq!(missing, None);
        let size: i64 = redis::cmd("DBSIZE").query_async(&mut zero).await.unwrap();
        assert_eq!(size, 0);

        let size: i64 = redis::cmd("DBSIZE").query_async(&mut three).await.unwrap();
        assert_eq!(size, 2);
        {
            let node = model.node();
            assert_eq!(node.dbs[3].len(), 2);
            let others: usize = node
                .dbs
                .iter()
                .enumerate()
                .filter(|(index, _)| *index != 3)
                .map(|(_, db)| db.len())
                .sum();
            assert_eq!(others, 0);
        }

        let resp3_db5 = RedisConnectionInfo::default()
            .set_db(5)
            .set_protocol(ProtocolVersion::RESP3);
        let mut five = connect(&model, &resp3_db5).await.unwrap();
        let () = five.set("where", "five").await.unwrap();
        let value: String = three.get("where").await.unwrap();
        assert_eq!(value, "three");
        assert_eq!(model.node().dbs[5].len(), 1);

        let out_of_range = RedisConnectionInfo::default().set_db(16);
        let error = connect(&model, &out_of_range).await.expect_err("db 16");
        assert!(
            error.to_string().contains("DB index is out of range"),
            "{error}"
        );
    });
}

#[test]
fn real_tcp_with_resp2_and_resp3() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let config = ModelConfig {
            password: Some("pw".into()),
            ..ModelConfig::default()
        };
        let model = Model::new(config, ModelClock::system());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(model.clone().serve_tcp(listener));

        for protocol in [ProtocolVersion::RESP2, ProtocolVersion::RESP3] {
            let info = RedisConnectionInfo::default()
                .set_password("pw")
                .set_db(1)
                .set_protocol(protocol);
            let stream = tokio::net::TcpStream::connect(address).await.unwrap();
            let config =
                redis::AsyncConnectionConfig::new().set_response_timeout(Some(RESPONSE_TIMEOUT));
            let (mut connection, driver) =
                MultiplexedConnection::new_with_config(&info, stream, config)
                    .await
                    .unwrap();
            tokio::spawn(driver);
            set_get_roundtrip(&mut connection).await;
            list_roundtrip(&mut connection).await;
            transaction_roundtrip(&mut connection).await;
            assert_eq!(model.node().dbs[1].len(), 5);
            assert_eq!(model.node().dbs[0].len(), 0);
            let () = redis::cmd("FLUSHDB")
                .query_async(&mut connection)
                .await
                .unwrap();
        }
        server.abort();
    });
}
