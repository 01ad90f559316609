//! The Redis model's `used_memory` and `MEMORY USAGE` against a real `redis-server`
//! (7.0.15, jemalloc): the same recorded workload on both, then the figures compared.
//!
//! The workload is a chat memory store's data: per session a list of JSON messages (20 B
//! to 2 KB, some trimmed), per user a hash of memories and a set of their ids (a few
//! past the listpack and intset thresholds), sorted sets of recent activity, counters and
//! session tokens with TTLs. It is drawn from a fixed seed, so every run sends the same
//! commands. Like `model_differential`, it needs `redis-server` on PATH and runs in
//! `scripts/test --all`.
//!
//! A second test compares eviction under `allkeys-lru` with `maxmemory-samples 5`: see
//! [`allkeys_lru_evicts_by_age_as_redis_does`].
//!
//! What is asserted (measured on 7.0.15, printed by the test; `--nocapture` shows them):
//! - `used_memory` over one connection right after the workload: within 7 % of Redis's
//!   (measured −5.3 %), the dataset share (used_memory less the startup figure and one
//!   client) within 10 % (measured −6.9 %). The model is low: hash tables being rehashed
//!   (Redis holds both tables for a while) and a working client's grown buffers (about
//!   20 KB more than an idle one) are not modelled.
//! - `MEMORY USAGE key SAMPLES 0` (every element counted: Redis's default five samples
//!   move its answer from run to run) of every key: each key in a small encoding
//!   (listpack, intset, embstr, int, raw) exact; each hash table, skiplist or quicklist
//!   within 15 % (a table being rehashed, a skiplist node's random level, a quicklist's
//!   node fill); the sum within 3 %.

#[path = "serve_model.rs"]
mod serve_model;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What Redis 7.0.15 holds at startup and per client (the model's constants).
const STARTUP_BYTES: i64 = 876_000;
const CLIENT_BYTES: i64 = 40_560;

fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local addr").port()
}

/// A real `redis-server`, killed on drop.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    fn start() -> Self {
        let port = free_port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the memory calibration needs redis-server 7.0 on PATH");
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server never listened");
            std::thread::sleep(Duration::from_millis(20));
        }
        Self { child, port }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The model on a free loopback port (the thread serves it for the test binary's life).
fn start_model() -> u16 {
    serve_model::start_model().0
}

fn connect(port: u16) -> redis::Connection {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}/")).expect("url");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match client.get_connection() {
            Ok(connection) => return connection,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("cannot connect to 127.0.0.1:{port}: {e}"),
        }
    }
}

/// Printable text of `len` bytes: JSON-ish content with some multi-byte characters.
fn text(rng: &mut ChaCha8Rng, len: usize) -> String {
    const WORDS: &[&str] = &[
        "the", "memory", "user", "asked", "about", "Redis", "café", "日本", "ok",
    ];
    let mut out = String::from("{\"content\":\"");
    while out.len() < len {
        out.push_str(WORDS[rng.random_range(0..WORDS.len())]);
        out.push(' ');
    }
    out.push_str("\"}");
    out
}

/// The recorded workload: a fixed seed's commands.
fn workload() -> Vec<redis::Cmd> {
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    let mut commands = Vec::new();
    for session in 0..300 {
        let key = format!("chat:tenant{}:session{session}", session % 7);
        for _ in 0..rng.random_range(1..40) {
            let len = if rng.random_bool(0.1) {
                rng.random_range(200..2000)
            } else {
                rng.random_range(20..200)
            };
            commands.push(
                redis::cmd("RPUSH")
                    .arg(&key)
                    .arg(text(&mut rng, len))
                    .clone(),
            );
        }
        if session % 3 == 0 {
            commands.push(redis::cmd("LTRIM").arg(&key).arg(-20).arg(-1).clone());
        }
        if session % 2 == 0 {
            commands.push(redis::cmd("EXPIRE").arg(&key).arg(86_400).clone());
        }
    }
    for user in 0..120 {
        let (data, index) = (format!("mem:{user}:data"), format!("mem:{user}:index"));
        let memories = if user % 20 == 0 {
            600
        } else {
            rng.random_range(1..30)
        };
        for id in 0..memories {
            let long = user % 10 == 0 && id % 7 == 0;
            let len = if long { 300 } else { rng.random_range(10..60) };
            let id = format!("m{user}-{id}");
            commands.push(
                redis::cmd("HSET")
                    .arg(&data)
                    .arg(&id)
                    .arg(text(&mut rng, len))
                    .clone(),
            );
            commands.push(redis::cmd("SADD").arg(&index).arg(&id).clone());
        }
        let ints = format!("seen:{user}");
        for _ in 0..rng.random_range(1..20) {
            commands.push(
                redis::cmd("SADD")
                    .arg(&ints)
                    .arg(rng.random_range(0..100_000))
                    .clone(),
            );
        }
        let recent = format!("recent:{user}");
        let members = if user % 30 == 0 {
            200
        } else {
            rng.random_range(1..20)
        };
        for m in 0..members {
            let score: f64 = if m % 2 == 0 {
                f64::from(m)
            } else {
                rng.random_range(0.0..1e6)
            };
            commands.push(
                redis::cmd("ZADD")
                    .arg(&recent)
                    .arg(score)
                    .arg(format!("s{m}"))
                    .clone(),
            );
        }
    }
    for n in 0..2000 {
        let value = match n % 4 {
            0 => rng.random_range(0..20_000).to_string(),
            1 => {
                let len = rng.random_range(5..40);
                text(&mut rng, len)
            }
            2 => {
                let len = rng.random_range(45..400);
                text(&mut rng, len)
            }
            _ => rng
                .random_range(-1_000_000_000i64..1_000_000_000)
                .to_string(),
        };
        let mut set = redis::cmd("SET");
        set.arg(format!("token:{n}")).arg(value);
        if n % 3 == 0 {
            set.arg("EX").arg(3600);
        }
        commands.push(set);
    }
    commands
}

fn used_memory(connection: &mut redis::Connection) -> i64 {
    let info: String = redis::cmd("INFO")
        .arg("memory")
        .query(connection)
        .expect("INFO");
    let line = info
        .lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .expect("used_memory");
    line.trim().parse().expect("a number")
}

fn usage(connection: &mut redis::Connection, key: &str) -> i64 {
    redis::cmd("MEMORY")
        .arg("USAGE")
        .arg(key)
        .arg("SAMPLES")
        .arg(0)
        .query(connection)
        .expect("MEMORY USAGE")
}

fn percent(model: i64, redis: i64) -> f64 {
    (model - redis) as f64 * 100.0 / redis as f64
}

#[test]
fn used_memory_follows_redis_on_a_recorded_workload() {
    let server = RedisServer::start();
    let (mut real, mut model) = (connect(server.port), connect(start_model()));
    // Calibrating one shape at a time: `AMNESIA_MEMORY_ONLY=chat:` (a key prefix).
    let only = std::env::var("AMNESIA_MEMORY_ONLY").unwrap_or_default();
    let shape = |command: &redis::Cmd| {
        let packed = command.get_packed_command();
        String::from_utf8_lossy(&packed).contains(&format!("\r\n{only}"))
    };
    for command in workload().into_iter().filter(shape) {
        let expected: redis::Value = command.query(&mut real).expect("redis answers");
        let got: redis::Value = command.query(&mut model).expect("the model answers");
        assert_eq!(got, expected, "{:?}", command.get_packed_command());
    }
    let (used_real, used_model) = (used_memory(&mut real), used_memory(&mut model));
    let info: String = redis::cmd("INFO")
        .arg("memory")
        .query(&mut real)
        .expect("INFO");
    let wanted = [
        "used_memory_overhead",
        "used_memory_dataset",
        "mem_clients_normal",
    ];
    let lines: Vec<&str> = info
        .lines()
        .filter(|l| wanted.iter().any(|w| l.starts_with(w)))
        .collect();
    println!("redis: {}", lines.join(" "));
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut real).expect("KEYS");
    let (mut total_real, mut total_model) = (0, 0);
    let mut off = Vec::new();
    for key in &keys {
        let (r, m) = (usage(&mut real, key), usage(&mut model, key));
        (total_real, total_model) = (total_real + r, total_model + m);
        let encoding: String = redis::cmd("OBJECT")
            .arg("ENCODING")
            .arg(key)
            .query(&mut real)
            .expect("OBJECT");
        // Redis counts a hash table being rehashed twice, a skiplist node by its random
        // level and a quicklist by its nodes' fill: those keys are compared within a bound.
        let sampled = matches!(encoding.as_str(), "hashtable" | "skiplist" | "quicklist");
        let bound = if sampled { 0.15 } else { 0.0 };
        if (m - r).abs() as f64 > bound * r as f64 {
            off.push(format!("{key} ({encoding}): model {m}, redis {r}"));
        }
    }
    let dataset = |used: i64| used - STARTUP_BYTES - CLIENT_BYTES;
    println!(
        "{} keys. MEMORY USAGE summed: model {total_model}, redis {total_real} ({:+.2}%). \
         used_memory: model {used_model}, redis {used_real} ({:+.2}%); dataset: model {}, redis {} ({:+.2}%)",
        keys.len(),
        percent(total_model, total_real),
        percent(used_model, used_real),
        dataset(used_model),
        dataset(used_real),
        percent(dataset(used_model), dataset(used_real)),
    );
    assert!(
        off.is_empty(),
        "MEMORY USAGE off for {} keys:\n{}",
        off.len(),
        off[..off.len().min(30)].join("\n")
    );
    assert!(percent(total_model, total_real).abs() <= 3.0);
    assert!(percent(used_model, used_real).abs() <= 7.0);
    assert!(percent(dataset(used_model), dataset(used_real)).abs() <= 10.0);
}

/// Key groups of different idle times, and keys per group.
const AGE_GROUPS: usize = 4;
const KEYS_PER_GROUP: usize = 250;

/// Fill `AGE_GROUPS` groups of keys a second apart (Redis's LRU clock counts seconds), set
/// `maxmemory` to what the server then uses, then write as many new keys as one group
/// holds: each new key evicts about one old one. Returns the share of the evicted keys
/// from each group, oldest first.
fn evicted_share_by_age(connection: &mut redis::Connection) -> Vec<f64> {
    let value = "v".repeat(100);
    for group in 0..AGE_GROUPS {
        for i in 0..KEYS_PER_GROUP {
            let () = redis::cmd("SET")
                .arg(format!("g{group}:{i}"))
                .arg(&value)
                .query(connection)
                .expect("SET");
        }
        std::thread::sleep(Duration::from_millis(1100));
    }
    let limit = used_memory(connection) + 1024;
    let () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory")
        .arg(limit)
        .arg("maxmemory-policy")
        .arg("allkeys-lru")
        .arg("maxmemory-samples")
        .arg(5)
        .query(connection)
        .expect("CONFIG SET");
    for i in 0..KEYS_PER_GROUP {
        let () = redis::cmd("SET")
            .arg(format!("new:{i}"))
            .arg(&value)
            .query(connection)
            .expect("SET");
    }
    let mut evicted = vec![0usize; AGE_GROUPS];
    for (group, count) in evicted.iter_mut().enumerate() {
        for i in 0..KEYS_PER_GROUP {
            let exists: bool = redis::cmd("EXISTS")
                .arg(format!("g{group}:{i}"))
                .query(connection)
                .expect("EXISTS");
            *count += usize::from(!exists);
        }
    }
    let total: usize = evicted.iter().sum();
    assert!(
        total >= KEYS_PER_GROUP / 2,
        "evictions happened: {evicted:?}"
    );
    evicted.iter().map(|&n| n as f64 / total as f64).collect()
}

/// Redis's LRU is approximated: each round samples five keys into a pool of sixteen and
/// evicts the most idle candidate, so mostly, not only, the oldest keys go. What is
/// compared: the share of the evicted keys that came from each of four age groups (a
/// second apart) after 250 new keys pushed past `maxmemory`, on redis-server and on the
/// model; each share within 0.12 of Redis's (about four standard deviations of a share
/// out of some 250 evictions). Redis draws its samples with `dictGetSomeKeys` (a random
/// bucket and its neighbours), the model distinct keys uniformly: the test holds that
/// the difference does not show in which keys go.
///
/// It does not hold yet (issue 48): measured on 7.0.15, Redis's shares were
/// [0.348, 0.337, 0.272, 0.043] (346 old keys evicted for 250 new) where the model's were
/// [0.730, 0.270, 0.000, 0.000] (252): Redis evicts far less by age than the model's
/// uniform sampling does. Run it with `--ignored` while the model's sampling is brought to
/// Redis's (`state::evict`).
#[test]
#[ignore = "the model's LRU approximation is sharper than Redis's: see the doc comment"]
fn allkeys_lru_evicts_by_age_as_redis_does() {
    let server = RedisServer::start();
    let (mut real, mut model) = (connect(server.port), connect(start_model()));
    let (real, model) = std::thread::scope(|scope| {
        let real = scope.spawn(|| evicted_share_by_age(&mut real));
        let model = scope.spawn(|| evicted_share_by_age(&mut model));
        (
            real.join().expect("redis side"),
            model.join().expect("model side"),
        )
    });
    println!("evicted share by age group, oldest first: redis {real:.3?}, model {model:.3?}");
    for (group, (r, m)) in real.iter().zip(&model).enumerate() {
        assert!(
            (r - m).abs() <= 0.12,
            "group {group}: redis {real:?}, model {model:?}"
        );
    }
    assert!(
        model[0] > model[AGE_GROUPS - 1],
        "the oldest go first: {model:?}"
    );
}
