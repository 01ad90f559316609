//! TTL rules on virtual time: which commands keep, clear, set or refuse a TTL, when keys
//! disappear, and active expiry of keys nobody reads.

use crate::common::{connect_plain, model, on_virtual_time};
use amnesia::internal::model::ModelConfig;
use redis::aio::MultiplexedConnection;
use redis::Value;
use std::time::Duration;

async fn cmd(connection: &mut MultiplexedConnection, args: &[&str]) -> Value {
    let mut command = redis::cmd(args[0]);
    for arg in &args[1..] {
        command.arg(*arg);
    }
    command
        .query_async(connection)
        .await
        .unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

async fn int(connection: &mut MultiplexedConnection, args: &[&str]) -> i64 {
    match cmd(connection, args).await {
        Value::Int(n) => n,
        other => panic!("{args:?} answered {other:?}"),
    }
}

async fn ttl(connection: &mut MultiplexedConnection, key: &str) -> i64 {
    int(connection, &["TTL", key]).await
}

async fn exists(connection: &mut MultiplexedConnection, key: &str) -> bool {
    int(connection, &["EXISTS", key]).await == 1
}

#[test]
fn writes_that_keep_or_clear_a_ttl() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let mut c = connect_plain(&model).await;

        int(&mut c, &["RPUSH", "list", "a"]).await;
        assert_eq!(int(&mut c, &["EXPIRE", "list", "100"]).await, 1);
        int(&mut c, &["RPUSH", "list", "b"]).await;
        int(&mut c, &["LPUSH", "list", "z"]).await;
        assert_eq!(ttl(&mut c, "list").await, 100, "RPUSH/LPUSH keep the TTL");

        int(&mut c, &["HSET", "hash", "f", "1"]).await;
        int(&mut c, &["EXPIRE", "hash", "100"]).await;
        int(&mut c, &["HSET", "hash", "g", "2"]).await;
        assert_eq!(ttl(&mut c, "hash").await, 100, "HSET keeps the TTL");

        cmd(&mut c, &["SET", "s", "1", "EX", "100"]).await;
        cmd(&mut c, &["SET", "s", "2", "KEEPTTL"]).await;
        assert_eq!(ttl(&mut c, "s").await, 100, "SET KEEPTTL keeps it");
        int(&mut c, &["APPEND", "s", "x"]).await;
        int(&mut c, &["INCRBY", "counter", "1"]).await;
        assert_eq!(ttl(&mut c, "s").await, 100, "APPEND keeps it");
        cmd(&mut c, &["SET", "s", "3"]).await;
        assert_eq!(ttl(&mut c, "s").await, -1, "a plain SET clears it");

        tokio::time::advance(Duration::from_millis(40_500)).await;
        assert_eq!(
            ttl(&mut c, "list").await,
            60,
            "TTL rounds to the nearest second"
        );
        assert_eq!(int(&mut c, &["PTTL", "list"]).await, 59_500);
        assert_eq!(ttl(&mut c, "counter").await, -1);
        assert_eq!(ttl(&mut c, "missing").await, -2);
        assert_eq!(int(&mut c, &["PTTL", "missing"]).await, -2);
        assert_eq!(int(&mut c, &["PERSIST", "list"]).await, 1);
        assert_eq!(ttl(&mut c, "list").await, -1);
    });
}

#[test]
fn expire_conditions() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let mut c = connect_plain(&model).await;
        cmd(&mut c, &["SET", "k", "v"]).await;

        // No TTL: XX and GT refuse (no TTL counts as infinite), NX and LT accept.
        assert_eq!(int(&mut c, &["EXPIRE", "k", "50", "XX"]).await, 0);
        assert_eq!(int(&mut c, &["EXPIRE", "k", "50", "GT"]).await, 0);
        assert_eq!(ttl(&mut c, "k").await, -1);
        assert_eq!(int(&mut c, &["EXPIRE", "k", "50", "LT"]).await, 1);
        assert_eq!(ttl(&mut c, "k").await, 50);
        cmd(&mut c, &["PERSIST", "k"]).await;
        assert_eq!(int(&mut c, &["EXPIRE", "k", "50", "NX"]).await, 1);
        assert_eq!(ttl(&mut c, "k").await, 50);

        // With a TTL of 50: NX refuses, XX accepts, GT only a later one, LT only earlier.
        assert_eq!(int(&mut c, &["EXPIRE", "k", "70", "NX"]).await, 0);
        assert_eq!(int(&mut c, &["EXPIRE", "k", "40", "GT"]).await, 0);
        assert_eq!(ttl(&mut c, "k").await, 50);
        assert_eq!(int(&mut c, &["EXPIRE", "k", "60", "GT"]).await, 1);
        assert_eq!(ttl(&mut c, "k").await, 60);
        assert_eq!(int(&mut c, &["EXPIRE", "k", "80", "LT"]).await, 0);
        assert_eq!(int(&mut c, &["EXPIRE", "k", "30", "LT"]).await, 1);
        assert_eq!(ttl(&mut c, "k").await, 30);
        assert_eq!(int(&mut c, &["PEXPIRE", "k", "45000", "XX"]).await, 1);
        assert_eq!(ttl(&mut c, "k").await, 45);

        let error = redis::cmd("EXPIRE")
            .arg("k")
            .arg(10)
            .arg("NX")
            .arg("XX")
            .query_async::<i64>(&mut c)
            .await
            .expect_err("NX and XX together");
        assert!(
            error
                .to_string()
                .contains("NX and XX, GT or LT options at the same time are not compatible"),
            "{error}"
        );
        assert_eq!(int(&mut c, &["EXPIRE", "missing", "10"]).await, 0);
    });
}

#[test]
fn non_positive_ttl_and_emptied_collections_delete() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let mut c = connect_plain(&model).await;
        for (key, args) in [
            ("a", vec!["EXPIRE", "a", "0"]),
            ("b", vec!["EXPIRE", "b", "-5"]),
            ("c", vec!["PEXPIRE", "c", "0"]),
            ("d", vec!["EXPIREAT", "d", "1"]),
        ] {
            cmd(&mut c, &["SET", key, "v"]).await;
            assert_eq!(int(&mut c, &args).await, 1, "{args:?}");
            assert!(!exists(&mut c, key).await, "{args:?} deletes");
        }
        assert_eq!(model.node().dbs[0].len(), 0, "deleted, not just hidden");

        int(&mut c, &["RPUSH", "l", "a", "b"]).await;
        int(&mut c, &["EXPIRE", "l", "100"]).await;
        cmd(&mut c, &["LTRIM", "l", "5", "10"]).await;
        assert!(!exists(&mut c, "l").await, "LTRIM to empty deletes");
        assert_eq!(ttl(&mut c, "l").await, -2);

        int(&mut c, &["RPUSH", "l", "x", "x"]).await;
        assert_eq!(int(&mut c, &["LREM", "l", "0", "x"]).await, 2);
        assert!(!exists(&mut c, "l").await, "LREM to empty deletes");

        int(&mut c, &["RPUSH", "l", "x"]).await;
        int(&mut c, &["EXPIRE", "l", "100"]).await;
        cmd(&mut c, &["RPOP", "l"]).await;
        assert!(
            !exists(&mut c, "l").await,
            "popping the last element deletes"
        );
        int(&mut c, &["RPUSH", "l", "y"]).await;
        assert_eq!(ttl(&mut c, "l").await, -1, "a recreated key has no old TTL");

        int(&mut c, &["HSET", "h", "f", "1"]).await;
        int(&mut c, &["HDEL", "h", "f"]).await;
        assert!(!exists(&mut c, "h").await, "HDEL of the last field deletes");
        assert_eq!(model.node().dbs[0].len(), 1);
    });
}

#[test]
fn lazy_expiry_on_read_at_the_deadline() {
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        let mut c = connect_plain(&model).await;
        cmd(&mut c, &["SET", "k", "v", "PX", "1500"]).await;
        tokio::time::advance(Duration::from_millis(1_499)).await;
        assert!(exists(&mut c, "k").await);
        assert_eq!(int(&mut c, &["PTTL", "k"]).await, 1);
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(!exists(&mut c, "k").await, "gone exactly at its deadline");
        assert_eq!(ttl(&mut c, "k").await, -2);
    });
}

#[test]
fn active_expiry_removes_unread_keys_on_virtual_time() {
    let started = std::time::Instant::now();
    on_virtual_time(async {
        let model = model(ModelConfig::default());
        tokio::spawn(model.clone().run_expiry_cycle());
        let mut c = connect_plain(&model).await;
        let mut pipe = redis::pipe();
        for i in 0..1000 {
            let key = format!("k{i}");
            pipe.set(&key, i).ignore().expire(&key, 5).ignore();
        }
        cmd(&mut c, &["SET", "forever", "1"]).await;
        let () = pipe.query_async(&mut c).await.unwrap();
        assert_eq!(int(&mut c, &["DBSIZE"]).await, 1001);

        tokio::time::sleep(Duration::from_secs(4)).await;
        assert_eq!(int(&mut c, &["DBSIZE"]).await, 1001, "none due yet");
        tokio::time::sleep(Duration::from_secs(2)).await;
        // Nobody read the keys: only the active cycle can have removed them.
        assert_eq!(int(&mut c, &["DBSIZE"]).await, 1);
        assert_eq!(model.node().dbs[0].len(), 1);
        assert_eq!(model.node().stats.expired_keys, 1000);
    });
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "six virtual seconds took {:?} of real time",
        started.elapsed()
    );
}

#[test]
fn active_expiry_is_bounded_per_cycle_but_catches_up() {
    on_virtual_time(async {
        let config = ModelConfig {
            expire_cycle_keys_max: 100,
            ..ModelConfig::default()
        };
        let model = model(config);
        tokio::spawn(model.clone().run_expiry_cycle());
        let mut c = connect_plain(&model).await;
        let mut pipe = redis::pipe();
        for i in 0..1000 {
            pipe.cmd("SET")
                .arg(format!("k{i}"))
                .arg(i)
                .arg("PX")
                .arg(1000)
                .ignore();
        }
        let () = pipe.query_async(&mut c).await.unwrap();
        tokio::time::sleep(Duration::from_millis(1_150)).await;
        let left = int(&mut c, &["DBSIZE"]).await;
        assert!(
            left > 0,
            "100 keys per 100 ms cycle cannot have removed all"
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(int(&mut c, &["DBSIZE"]).await, 0);
    });
}
