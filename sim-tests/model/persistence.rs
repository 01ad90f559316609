//! What survives `restart` under each persistence model.

use crate::common::{bulk, connect_plain, exec, model, on_virtual_time, EPOCH_MS};
use amnesia::internal::model::protocol::client::ClientState;
use amnesia::internal::model::{ModelConfig, Node, Persistence, Reply};
use redis::AsyncCommands;
use std::time::Duration;

fn node(persistence: Persistence) -> Node {
    Node::new(
        ModelConfig {
            persistence,
            ..ModelConfig::default()
        },
        EPOCH_MS,
    )
}

#[test]
fn no_persistence_restart_empties_every_db() {
    let mut node = node(Persistence::None);
    let mut client = node.connect();
    exec(&mut node, &mut client, &["SET", "k", "v"], EPOCH_MS);
    exec(&mut node, &mut client, &["SELECT", "2"], EPOCH_MS);
    exec(&mut node, &mut client, &["RPUSH", "l", "a"], EPOCH_MS);
    node.cycle(EPOCH_MS + 5_000);
    node.restart();
    assert!(node.dbs.iter().all(|db| db.is_empty()));
    assert_eq!(node.stats.restarts, 1);
}

#[test]
fn aof_always_keeps_every_acknowledged_write() {
    let mut node = node(Persistence::AofAlways);
    let mut client = node.connect();
    let mut now = EPOCH_MS;
    for i in 0..50 {
        now += 7;
        let value = i.to_string();
        exec(&mut node, &mut client, &["RPUSH", "l", &value], now);
        exec(
            &mut node,
            &mut client,
            &["SET", &format!("k{i}"), &value],
            now,
        );
    }
    exec(&mut node, &mut client, &["MULTI"], now);
    exec(&mut node, &mut client, &["SELECT", "1"], now);
    exec(&mut node, &mut client, &["SET", "tx", "1"], now);
    exec(&mut node, &mut client, &["SELECT", "0"], now);
    exec(&mut node, &mut client, &["DEL", "k0"], now);
    exec(&mut node, &mut client, &["EXEC"], now);
    // Not even a cycle between the last write and the crash.
    node.restart();
    let mut client = node.connect();
    let later = now + 1;
    let range = exec(&mut node, &mut client, &["LLEN", "l"], later);
    assert_eq!(range, Reply::Integer(50));
    assert_eq!(
        exec(&mut node, &mut client, &["GET", "k0"], later),
        Reply::Nil
    );
    assert_eq!(
        exec(&mut node, &mut client, &["GET", "k49"], later),
        bulk("49")
    );
    exec(&mut node, &mut client, &["SELECT", "1"], later);
    assert_eq!(
        exec(&mut node, &mut client, &["GET", "tx"], later),
        bulk("1")
    );
}

#[test]
fn aof_always_survives_log_rewrites() {
    let mut node = Node::new(
        ModelConfig {
            persistence: Persistence::AofAlways,
            aof_rewrite_commands_min: 10,
            ..ModelConfig::default()
        },
        EPOCH_MS,
    );
    let mut client = node.connect();
    for i in 0..95 {
        exec(&mut node, &mut client, &["INCR", "n"], EPOCH_MS + i);
    }
    node.restart();
    let mut client = node.connect();
    assert_eq!(
        exec(&mut node, &mut client, &["GET", "n"], EPOCH_MS + 100),
        bulk("95")
    );
}

#[test]
fn aof_everysec_loses_at_most_the_last_second() {
    let mut node = node(Persistence::AofEverysec);
    let mut client = node.connect();
    // Writes every 100 ms with a cycle every 100 ms, like `run_expiry_cycle` at hz 10.
    let mut now = EPOCH_MS;
    for i in 0..35 {
        now += 100;
        exec(&mut node, &mut client, &["SET", &format!("k{i}"), "v"], now);
        node.cycle(now);
    }
    let crash_ms = now;
    node.restart();
    let mut client = node.connect();
    let mut survivors = Vec::new();
    for i in 0..35 {
        let written_at = EPOCH_MS + 100 * (i + 1);
        let present =
            exec(&mut node, &mut client, &["EXISTS", &format!("k{i}")], now) == Reply::Integer(1);
        if written_at + 1_000 <= crash_ms {
            assert!(present, "k{i}, older than a second at the crash, was lost");
        }
        survivors.push(present);
    }
    // What survives is a prefix: a flush never skips a write.
    let kept = survivors.iter().take_while(|p| **p).count();
    assert!(survivors[kept..].iter().all(|p| !p), "{survivors:?}");
    assert!(kept < 35, "the writes after the last flush are lost");
}

#[test]
fn aof_everysec_flushes_from_the_running_cycle() {
    on_virtual_time(async {
        let model = model(ModelConfig {
            persistence: Persistence::AofEverysec,
            ..ModelConfig::default()
        });
        tokio::spawn(model.clone().run_expiry_cycle());
        let mut c = connect_plain(&model).await;
        let () = c.set("old", "1").await.unwrap();
        tokio::time::sleep(Duration::from_millis(2_100)).await;
        let () = c.set("new", "1").await.unwrap();
        assert!(model.node().aof.unsynced_len() > 0);
        model.restart();
        let mut c = connect_plain(&model).await;
        let old: Option<String> = c.get("old").await.unwrap();
        let new: Option<String> = c.get("new").await.unwrap();
        assert_eq!(old.as_deref(), Some("1"), "flushed a second later");
        assert_eq!(new, None, "written after the last flush, lost");
    });
}

#[test]
fn ttls_survive_restart_and_expire_during_downtime() {
    for persistence in [Persistence::AofAlways, Persistence::AofEverysec] {
        let mut node = node(persistence);
        let mut client = node.connect();
        let t0 = EPOCH_MS;
        exec(
            &mut node,
            &mut client,
            &["SET", "short", "v", "EX", "10"],
            t0,
        );
        exec(
            &mut node,
            &mut client,
            &["SET", "long", "v", "EX", "1000"],
            t0,
        );
        exec(&mut node, &mut client, &["RPUSH", "l", "a"], t0);
        exec(&mut node, &mut client, &["EXPIRE", "l", "500"], t0);
        exec(&mut node, &mut client, &["SET", "plain", "v"], t0);
        node.cycle(t0 + 1_500); // flushes everysec
        node.restart();
        // The node comes back 60 s after the writes.
        let back = t0 + 60_000;
        let mut client = node.connect();
        let e = |node: &mut Node, client: &mut ClientState, args: &[&str]| {
            exec(node, client, args, back)
        };
        assert_eq!(
            e(&mut node, &mut client, &["EXISTS", "short"]),
            Reply::Integer(0)
        );
        assert_eq!(
            e(&mut node, &mut client, &["TTL", "long"]),
            Reply::Integer(940)
        );
        assert_eq!(
            e(&mut node, &mut client, &["TTL", "l"]),
            Reply::Integer(440)
        );
        assert_eq!(
            e(&mut node, &mut client, &["TTL", "plain"]),
            Reply::Integer(-1)
        );
        assert_eq!(e(&mut node, &mut client, &["DBSIZE"]), Reply::Integer(3));
    }
}
