//! Differential test of the Redis model against a real `redis-server` (7.0.15).
//!
//! Every test starts a real `redis-server` and the model, each on a free loopback port,
//! sends the same commands to both over raw sockets and compares the replies frame by
//! frame, byte for byte, except where Redis itself is non-deterministic (see
//! [`Norm`]). Hand-picked edge cases cover every command of the model's table in RESP2
//! and RESP3; seeded random sequences cover their interleavings.

#[path = "serve_model.rs"]
mod serve_model;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use redis_protocol::{resp2, resp3};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const REDIS_SERVER: &str = "redis-server";

/// A free loopback port: bind port 0, read it, drop the listener.
fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local addr").port()
}

/// A real `redis-server` child process, killed on drop.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    fn start() -> Self {
        let port = free_port();
        let child = Command::new(REDIS_SERVER)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .args(["--enable-debug-command", "yes"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start `{REDIS_SERVER}` ({e}): the differential test needs a real \
                     Redis 7.0 server on PATH (apt-get install redis-server)"
                )
            });
        let server = Self { child, port };
        server.wait_ready();
        server
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(mut stream) = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)) {
                let mut reply = [0u8; 7];
                if stream.write_all(b"PING\r\n").is_ok()
                    && stream.read_exact(&mut reply).is_ok()
                    && &reply == b"+PONG\r\n"
                {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server on port {} never answered PING", self.port);
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

/// A raw RESP connection that reads exactly one reply frame at a time.
struct Conn {
    stream: TcpStream,
    input: Vec<u8>,
    resp3: bool,
    /// Inside MULTI: commands are queued, not run.
    in_multi: bool,
}

impl Conn {
    fn connect(port: u16) -> Self {
        let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        stream.set_nodelay(true).expect("nodelay");
        Self {
            stream,
            input: Vec::new(),
            resp3: false,
            in_multi: false,
        }
    }

    fn send(&mut self, args: &[Vec<u8>]) {
        let mut request = format!("*{}\r\n", args.len()).into_bytes();
        for arg in args {
            request.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
            request.extend_from_slice(arg);
            request.extend_from_slice(b"\r\n");
        }
        self.stream.write_all(&request).expect("write request");
    }

    /// Read one complete frame; its raw bytes and a decoded view.
    fn read_frame(&mut self, resp3: bool) -> (Vec<u8>, V) {
        loop {
            if let Some((value, len)) = self.decode(resp3) {
                let raw = self.input.drain(..len).collect();
                return (raw, value);
            }
            let mut chunk = [0u8; 16 * 1024];
            let read = self.stream.read(&mut chunk).expect("read reply");
            assert!(read > 0, "connection closed before a complete reply");
            self.input.extend_from_slice(&chunk[..read]);
        }
    }

    fn decode(&self, resp3: bool) -> Option<(V, usize)> {
        if resp3 {
            let decoded = resp3::decode::complete::decode(&self.input).expect("valid RESP3");
            decoded.map(|(frame, len)| (V::from3(frame), len))
        } else {
            let decoded = resp2::decode::decode(&self.input).expect("valid RESP2");
            decoded.map(|(frame, len)| (V::from2(frame), len))
        }
    }

    fn call(&mut self, args: &[Vec<u8>]) -> (Vec<u8>, V) {
        self.send(args);
        let resp3 = self.resp3 || is_hello(args, b"3");
        let reply = self.read_frame(resp3);
        if is_cmd(args, "multi") && reply.0 == b"+OK\r\n" {
            self.in_multi = true;
        } else if ["exec", "discard", "reset"].iter().any(|c| is_cmd(args, c)) {
            self.in_multi = false;
        }
        if !reply.0.starts_with(b"-") {
            if is_hello(args, b"3") {
                self.resp3 = true;
            } else if is_hello(args, b"2") || is_cmd(args, "reset") {
                self.resp3 = false;
            }
        }
        reply
    }
}

fn is_cmd(args: &[Vec<u8>], name: &str) -> bool {
    args.first()
        .is_some_and(|a| a.eq_ignore_ascii_case(name.as_bytes()))
}

fn is_hello(args: &[Vec<u8>], version: &[u8]) -> bool {
    is_cmd(args, "hello") && args.get(1).is_some_and(|v| v == version)
}

/// A decoded reply, just detailed enough for the normalisations.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum V {
    Int(i64),
    Str(Vec<u8>),
    Error(Vec<u8>),
    /// A RESP3 double, as Rust prints it.
    Double(String),
    /// Arrays, sets and pushes, with their type byte.
    List(u8, Vec<V>),
    Other,
}

impl V {
    fn from2(frame: resp2::types::OwnedFrame) -> V {
        use resp2::types::OwnedFrame as F;
        match frame {
            F::Integer(i) => V::Int(i),
            F::BulkString(s) | F::SimpleString(s) => V::Str(s),
            F::Error(e) => V::Error(e.into_bytes()),
            F::Array(items) => V::List(b'*', items.into_iter().map(V::from2).collect()),
            F::Null => V::Other,
        }
    }

    fn from3(frame: resp3::types::OwnedFrame) -> V {
        use resp3::types::OwnedFrame as F;
        match frame {
            F::Number { data, .. } => V::Int(data),
            F::BlobString { data, .. } | F::SimpleString { data, .. } => V::Str(data),
            F::VerbatimString { data, .. } => V::Str(data),
            F::SimpleError { data, .. } => V::Error(data.into_bytes()),
            F::BlobError { data, .. } => V::Error(data),
            F::Double { data, .. } => V::Double(format!("{data:?}")),
            F::Array { data, .. } => V::List(b'*', data.into_iter().map(V::from3).collect()),
            F::Set { data, .. } => V::List(b'~', data.into_iter().map(V::from3).collect()),
            F::Map { data, .. } => {
                // The decoder's map has no order: pairs sorted.
                let mut pairs: Vec<V> = data
                    .into_iter()
                    .map(|(k, v)| V::List(b'p', vec![V::from3(k), V::from3(v)]))
                    .collect();
                pairs.sort();
                V::List(b'%', pairs)
            }
            _ => V::Other,
        }
    }

    fn sorted(self) -> V {
        match self {
            V::List(kind, mut items) => {
                items.sort();
                V::List(kind, items)
            }
            other => other,
        }
    }
}

/// How a command's reply is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Norm {
    /// Byte for byte.
    Exact,
    /// HELLO: the client id differs between servers (connection counters).
    Hello,
    /// CLIENT ID: both integers, values differ (connection counters).
    ClientId,
    /// TTL-like integers read the wall clock at slightly different moments: equal if
    /// negative (codes), else within the tolerance.
    Within(i64),
    /// SMEMBERS/KEYS: Redis's hash table order is an implementation detail: compare sorted.
    Sorted,
    /// INFO/TIME: values depend on the process and the clock; compare the shape only.
    Shape,
    /// CONFIG GET: name/value pairs in Redis's hash order: compare the sorted pairs.
    SortedPairs,
    /// INFO: the same sections in the same order; every field the model prints exists in
    /// Redis's section, and the deterministic ones ([`INFO_EXACT`]) have Redis's value.
    Info,
    /// SSCAN: the cursor exactly, the members (in Redis's hash order) sorted.
    ScanSorted,
    /// SPOP, SRANDMEMBER, HRANDFIELD, ZRANDMEMBER: Redis picks at random. Each server's
    /// reply is checked against its own collection as it was before the command (see
    /// [`random_equivalent`]): same type and length, every member (with its value or
    /// score) from the collection, distinct unless the count is negative; a reply that
    /// covers the whole collection is compared in full (sorted for sets).
    Random,
}

fn norm_of(args: &[Vec<u8>]) -> Norm {
    let name = String::from_utf8_lossy(&args[0]).to_ascii_lowercase();
    let sub = args
        .get(1)
        .map(|a| String::from_utf8_lossy(a).to_ascii_lowercase());
    match name.as_str() {
        "hello" => Norm::Hello,
        "client" if sub.as_deref() == Some("id") => Norm::ClientId,
        "ttl" | "expiretime" => Norm::Within(1),
        // Whole seconds of two clocks: one may have crossed a second boundary.
        "object" if sub.as_deref() == Some("idletime") => Norm::Within(1),
        "pttl" | "pexpiretime" => Norm::Within(1500),
        "smembers" | "keys" | "sinter" | "sunion" | "sdiff" => Norm::Sorted,
        "sscan" => Norm::ScanSorted,
        "spop" | "srandmember" | "hrandfield" | "zrandmember" => Norm::Random,
        "info" => Norm::Info,
        "time" => Norm::Shape,
        "config" if sub.as_deref() == Some("get") => Norm::SortedPairs,
        _ => Norm::Exact,
    }
}

/// `HELLO`'s reply with the value after the `id` field blanked.
fn blank_hello_id(raw: &[u8]) -> Vec<u8> {
    let marker = b"$2\r\nid\r\n:";
    let Some(at) = raw.windows(marker.len()).position(|w| w == marker) else {
        return raw.to_vec();
    };
    let start = at + marker.len();
    let end = start + raw[start..].iter().position(|&b| b == b'\r').unwrap_or(0);
    [&raw[..start], b"ID", &raw[end..]].concat()
}

fn equivalent(norm: Norm, redis: &(Vec<u8>, V), model: &(Vec<u8>, V)) -> bool {
    if redis.0 == model.0 {
        return true;
    }
    match (norm, &redis.1, &model.1) {
        (Norm::Exact, _, _) => false,
        (Norm::Hello, _, _) => blank_hello_id(&redis.0) == blank_hello_id(&model.0),
        (Norm::ClientId, V::Int(_), V::Int(_)) => true,
        (Norm::Within(tolerance), V::Int(r), V::Int(m)) => {
            *r >= 0 && *m >= 0 && (r - m).abs() <= tolerance
        }
        (Norm::Sorted, r @ V::List(..), m @ V::List(..)) => {
            r.clone().sorted() == m.clone().sorted()
        }
        (Norm::SortedPairs, r @ V::List(..), m @ V::List(..)) => sorted_pairs(r) == sorted_pairs(m),
        (Norm::ScanSorted, V::List(rk, r), V::List(mk, m)) => {
            let sorted = |parts: &[V]| match parts {
                [cursor, members] => Some((cursor.clone(), members.clone().sorted())),
                _ => None,
            };
            rk == mk && sorted(r).is_some() && sorted(r) == sorted(m)
        }
        (Norm::Info, V::Str(r), V::Str(m)) => info_agrees(r, m),
        (Norm::Shape, V::Str(_), V::Str(_)) => redis.0[0] == model.0[0],
        (Norm::Shape, V::List(_, r), V::List(_, m)) => {
            r.len() == m.len() && r.iter().zip(m).all(|(r, m)| shape_eq(r, m))
        }
        _ => false,
    }
}

/// INFO fields whose values do not depend on the process, the clock or the harness.
const INFO_EXACT: &[&str] = &[
    "redis_version",
    "redis_mode",
    "arch_bits",
    "connected_clients",
    "blocked_clients",
    "tracking_clients",
    "number_of_cached_scripts",
    "maxmemory",
    "maxmemory_policy",
    "evicted_keys",
    "loading",
    "aof_enabled",
    "aof_rewrite_in_progress",
    "aof_last_write_status",
    "role",
    "connected_slaves",
];

/// An INFO text as (section title, [(field, value)]) in order.
fn info_sections(text: &[u8]) -> Vec<(String, Vec<(String, String)>)> {
    let text = String::from_utf8_lossy(text);
    let mut sections: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in text.split("\r\n").filter(|l| !l.is_empty()) {
        if let Some(title) = line.strip_prefix("# ") {
            sections.push((title.to_string(), Vec::new()));
        } else if let (Some(section), Some((name, value))) =
            (sections.last_mut(), line.split_once(':'))
        {
            section.1.push((name.to_string(), value.to_string()));
        }
    }
    sections
}

fn info_agrees(redis: &[u8], model: &[u8]) -> bool {
    let (redis, model) = (info_sections(redis), info_sections(model));
    let titles = |s: &[(String, Vec<(String, String)>)]| {
        s.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>()
    };
    // Redis has sections the model does not (modules, cluster): the model's come in order.
    let redis_titles: Vec<String> = titles(&redis)
        .into_iter()
        .filter(|t| titles(&model).contains(t))
        .collect();
    if redis_titles != titles(&model) {
        return false;
    }
    model.iter().all(|(title, fields)| {
        let theirs = &redis
            .iter()
            .find(|(t, _)| t == title)
            .expect("same titles")
            .1;
        if title == "Errorstats" {
            return theirs == fields; // every prefix, every count
        }
        fields.iter().all(|(name, value)| {
            let Some((_, expected)) = theirs.iter().find(|(n, _)| n == name) else {
                return name == "amnesia_model"; // the model says what it is
            };
            let keyspace_counts =
                |v: &str| v.split(',').take(2).map(String::from).collect::<Vec<_>>();
            if name.starts_with("db") {
                keyspace_counts(expected) == keyspace_counts(value)
            } else if INFO_EXACT.contains(&name.as_str()) || name.starts_with("errorstat_") {
                expected == value
            } else {
                true
            }
        })
    })
}

/// A flat RESP2 array of names and values, or a RESP3 map, as sorted pairs.
fn sorted_pairs(reply: &V) -> Vec<V> {
    let V::List(kind, items) = reply else {
        return vec![reply.clone()];
    };
    let mut pairs: Vec<V> = match kind {
        b'%' => items.clone(),
        _ => items
            .chunks(2)
            .map(|pair| V::List(b'p', pair.to_vec()))
            .collect(),
    };
    pairs.sort();
    pairs
}

/// The collection a random command picks from, read on `conn` before the command: the
/// members of a set, the (field, value) pairs of a hash, the (member, score) pairs of a
/// sorted set. Empty for a missing key or another type.
fn random_pool(conn: &mut Conn, args: &[Vec<u8>]) -> Vec<V> {
    let Some(key) = args.get(1) else {
        return Vec::new();
    };
    let name = String::from_utf8_lossy(&args[0]).to_ascii_lowercase();
    let (read, pairs): (&[&[u8]], bool) = match name.as_str() {
        "hrandfield" => (&[b"HGETALL"], true),
        "zrandmember" => (&[b"ZRANGE", b"0", b"-1", b"WITHSCORES"], true),
        _ => (&[b"SMEMBERS"], false),
    };
    let mut command = vec![read[0].to_vec(), key.clone()];
    command.extend(read[1..].iter().map(|a| a.to_vec()));
    let V::List(_, items) = conn.call(&command).1 else {
        return Vec::new();
    };
    let pool = units(items, pairs);
    if !pairs || args.len() == 4 {
        return pool;
    }
    // Without WITHVALUES/WITHSCORES only the names are picked.
    pool.into_iter()
        .filter_map(|pair| match pair {
            V::List(_, mut pair) if !pair.is_empty() => Some(pair.swap_remove(0)),
            _ => None,
        })
        .collect()
}

/// A reply's members, or (member, value) pairs whatever their encoding: flat (RESP2),
/// nested arrays or a map's pairs (RESP3).
fn units(items: Vec<V>, pairs: bool) -> Vec<V> {
    if !pairs {
        return items;
    }
    let nested = items
        .iter()
        .all(|item| matches!(item, V::List(b'*' | b'p', pair) if pair.len() == 2));
    if nested && !items.is_empty() {
        return items
            .into_iter()
            .map(|item| match item {
                V::List(_, pair) => V::List(b'p', pair),
                other => other,
            })
            .collect();
    }
    items
        .chunks(2)
        .map(|pair| V::List(b'p', pair.to_vec()))
        .collect()
}

/// [`Norm::Random`]: each server's reply against its own collection before the command.
fn random_equivalent(
    args: &[Vec<u8>],
    (redis, redis_pool): (&(Vec<u8>, V), &[V]),
    (model, model_pool): (&(Vec<u8>, V), &[V]),
) -> bool {
    if redis.0 == model.0 {
        return true;
    }
    let name = String::from_utf8_lossy(&args[0]).to_ascii_lowercase();
    let is_set = matches!(name.as_str(), "spop" | "srandmember");
    let count = match args.get(2) {
        None => None,
        Some(arg) => match std::str::from_utf8(arg)
            .ok()
            .and_then(|a| a.parse::<i64>().ok())
        {
            Some(count) => Some(count),
            None => return false,
        },
    };
    let pairs = args.len() == 4;
    // The picked units of a reply, or `None` if it has the wrong shape.
    let picked = |reply: &V| -> Option<(u8, Vec<V>)> {
        match (reply, count) {
            (V::Str(_), None) => Some((b'$', vec![reply.clone()])),
            (V::List(kind, items), Some(_)) => Some((*kind, units(items.clone(), pairs))),
            _ => None,
        }
    };
    let (Some((redis_kind, redis_units)), Some((model_kind, model_units))) =
        (picked(&redis.1), picked(&model.1))
    else {
        return false;
    };
    let from_pool = |units: &[V], pool: &[V]| units.iter().all(|unit| pool.contains(unit));
    let distinct = |units: &[V]| {
        let mut sorted = units.to_vec();
        sorted.sort();
        sorted.windows(2).all(|w| w[0] != w[1])
    };
    let unique = count.is_none_or(|count| count >= 0);
    let whole = count.is_some_and(|count| count >= 0 && count as usize >= redis_pool.len());
    if whole {
        // The whole collection: hashes and sorted sets in Redis's order, sets sorted.
        let sorted = |units: &[V]| V::List(b'*', units.to_vec()).sorted();
        return is_set
            && redis_kind == model_kind
            && sorted(&redis_units) == sorted(redis_pool)
            && sorted(&model_units) == sorted(&redis_units);
    }
    redis_kind == model_kind
        && redis_units.len() == model_units.len()
        && from_pool(&redis_units, redis_pool)
        && from_pool(&model_units, model_pool)
        && (!unique || (distinct(&redis_units) && distinct(&model_units)))
}

fn shape_eq(redis: &V, model: &V) -> bool {
    match (redis, model) {
        (V::Str(r), V::Str(m)) => {
            let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
            digits(r) == digits(m)
        }
        _ => std::mem::discriminant(redis) == std::mem::discriminant(model),
    }
}

/// A connection to each server.
struct Pair {
    redis: Conn,
    model: Conn,
}

/// Both servers, the connections to them and the commands sent so far.
struct Diff {
    _redis: RedisServer,
    redis_port: u16,
    model_port: u16,
    conns: Vec<Pair>,
    history: Vec<String>,
    compared: usize,
}

fn show(args: &[Vec<u8>]) -> String {
    args.iter()
        .map(|a| format!("{:?}", String::from_utf8_lossy(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Diff {
    fn start() -> Self {
        let redis = RedisServer::start();
        let redis_port = redis.port;
        let mut diff = Self {
            _redis: redis,
            redis_port,
            model_port: start_model(),
            conns: Vec::new(),
            history: Vec::new(),
            compared: 0,
        };
        diff.reconnect();
        diff
    }

    fn pair(&self) -> Pair {
        Pair {
            redis: Conn::connect(self.redis_port),
            model: Conn::connect(self.model_port),
        }
    }

    /// Fresh connections (RESP2, db 0, no MULTI) and an empty keyspace.
    fn reconnect(&mut self) {
        self.conns = vec![self.pair(), self.pair(), self.pair()];
        self.history.clear();
        self.run(0, &args_of("FLUSHALL"));
    }

    /// Send `args` on connection `conn` of both servers and compare the replies.
    fn run(&mut self, conn: usize, args: &[Vec<u8>]) {
        self.history.push(format!("[conn {conn}] {}", show(args)));
        let norm = norm_of(args);
        let pair = &mut self.conns[conn];
        let pools = (norm == Norm::Random && !pair.redis.in_multi).then(|| {
            (
                random_pool(&mut pair.redis, args),
                random_pool(&mut pair.model, args),
            )
        });
        let redis = pair.redis.call(args);
        let model = pair.model.call(args);
        self.compared += 1;
        let same = match pools {
            Some((redis_pool, model_pool)) => {
                random_equivalent(args, (&redis, &redis_pool), (&model, &model_pool))
            }
            None => equivalent(norm, &redis, &model),
        };
        if !same {
            panic!(
                "replies differ\ncommands so far:\n  {}\nredis-server: {:?}\nmodel:        {:?}",
                self.history.join("\n  "),
                String::from_utf8_lossy(&redis.0),
                String::from_utf8_lossy(&model.0),
            );
        }
    }

    /// Send `args` on connection `conn` of both servers without waiting for the reply
    /// (a command that blocks); [`Diff::receive`] compares it later.
    fn send_only(&mut self, conn: usize, args: &[Vec<u8>]) {
        self.history
            .push(format!("[conn {conn}] {} (reply later)", show(args)));
        let pair = &mut self.conns[conn];
        pair.redis.send(args);
        pair.model.send(args);
    }

    /// Read and compare the pending reply of connection `conn`.
    fn receive(&mut self, conn: usize) {
        self.history
            .push(format!("[conn {conn}] (its pending reply)"));
        let pair = &mut self.conns[conn];
        let resp3 = pair.redis.resp3;
        let redis = pair.redis.read_frame(resp3);
        let model = pair.model.read_frame(resp3);
        self.compared += 1;
        if redis.0 != model.0 {
            panic!(
                "replies differ\ncommands so far:\n  {}\nredis-server: {:?}\nmodel:        {:?}",
                self.history.join("\n  "),
                String::from_utf8_lossy(&redis.0),
                String::from_utf8_lossy(&model.0),
            );
        }
    }

    /// A full SCAN iteration on each server separately; the sorted unions must match.
    fn scan_all(&mut self, options: &[Vec<u8>]) {
        self.scan_all_of(&[b"SCAN".to_vec()], options);
    }

    /// A full iteration of `command` (`SCAN`, or `SSCAN key` and the like) on each
    /// server separately; the sorted unions must match.
    fn scan_all_of(&mut self, command: &[Vec<u8>], options: &[Vec<u8>]) {
        let history = format!(
            "[conn 0] {} 0 .. {} (full iteration)",
            show(command),
            show(options)
        );
        self.history.push(history);
        let pair = &mut self.conns[0];
        let redis = scan_union(&mut pair.redis, command, options);
        let model = scan_union(&mut pair.model, command, options);
        self.compared += 1;
        assert_eq!(
            redis,
            model,
            "SCAN iterations differ (redis left, model right)\ncommands so far:\n  {}",
            self.history.join("\n  ")
        );
    }
}

/// The sorted items of a whole SCAN-like iteration (keys, members, or field and value
/// pairs joined by a NUL), or the first call's error reply.
fn scan_union(
    conn: &mut Conn,
    command: &[Vec<u8>],
    options: &[Vec<u8>],
) -> Result<Vec<Vec<u8>>, Vec<u8>> {
    let pairs = ["hscan", "zscan"].iter().any(|c| is_cmd(command, c));
    let mut cursor = b"0".to_vec();
    let mut keys = Vec::new();
    for _ in 0..10_000 {
        let mut args = command.to_vec();
        args.push(cursor);
        args.extend_from_slice(options);
        let (raw, value) = conn.call(&args);
        let V::List(_, parts) = value else {
            return Err(raw);
        };
        let [V::Str(next), V::List(_, found)] = &parts[..] else {
            panic!("malformed SCAN reply {:?}", String::from_utf8_lossy(&raw));
        };
        let found: Vec<Vec<u8>> = found
            .iter()
            .map(|key| match key {
                V::Str(key) => key.clone(),
                other => panic!("SCAN key {other:?}"),
            })
            .collect();
        if pairs {
            keys.extend(found.chunks(2).map(|pair| pair.join(&0u8)));
        } else {
            keys.extend(found);
        }
        if next == b"0" {
            keys.sort();
            keys.dedup();
            return Ok(keys);
        }
        cursor = next.clone();
    }
    panic!("SCAN never finished");
}

/// Split a script line into arguments: whitespace separated, `""` is the empty string,
/// `\xNN` a byte, `\s` a space.
fn args_of(line: &str) -> Vec<Vec<u8>> {
    line.split_whitespace()
        .map(|token| {
            if token == "\"\"" {
                return Vec::new();
            }
            let bytes = token.as_bytes();
            let mut arg = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"\\x") && i + 4 <= bytes.len() {
                    let hex = std::str::from_utf8(&bytes[i + 2..i + 4]).expect("hex");
                    arg.push(u8::from_str_radix(hex, 16).expect("hex escape"));
                    i += 4;
                } else if bytes[i..].starts_with(b"\\s") {
                    arg.push(b' ');
                    i += 2;
                } else {
                    arg.push(bytes[i]);
                    i += 1;
                }
            }
            arg
        })
        .collect()
}

/// Run a script: one command per line on connection 0; `@2 CMD` on connection 1;
/// `!sleep MS`; `!scan OPTIONS` a full SCAN iteration, `!sscan KEY OPTIONS` (or
/// `!hscan`, `!zscan`) a full iteration of a collection; `!send CMD` sends on
/// connection 0 without reading (a command that blocks) and `!recv` compares its reply
/// later (`!send3`/`!recv3` on connection 2); `#` comments.
fn run_script(diff: &mut Diff, script: &str) -> usize {
    let mut cases = 0;
    for line in script.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(ms) = line.strip_prefix("!sleep ") {
            std::thread::sleep(Duration::from_millis(ms.parse().expect("sleep ms")));
            continue;
        }
        cases += 1;
        if let Some(command) = line.strip_prefix("!send ") {
            diff.send_only(0, &args_of(command));
        } else if let Some(command) = line.strip_prefix("!send3 ") {
            diff.send_only(2, &args_of(command));
        } else if line == "!recv" {
            diff.receive(0);
        } else if line == "!recv3" {
            diff.receive(2);
        } else if let Some(options) = line.strip_prefix("!scan") {
            diff.scan_all(&args_of(options));
        } else if let Some(rest) = line.strip_prefix('!') {
            // `!sscan KEY OPTIONS`, `!hscan ...`, `!zscan ...`: full iterations.
            let args = args_of(rest);
            diff.scan_all_of(&args[..2], &args[2..]);
        } else if let Some(command) = line.strip_prefix("@2 ") {
            diff.run(1, &args_of(command));
        } else {
            diff.run(0, &args_of(line));
        }
    }
    cases
}

/// Run every script in RESP2 and again in RESP3, each on fresh connections.
fn run_both_protocols(scripts: &[&str]) -> usize {
    let mut diff = Diff::start();
    let mut cases = 0;
    for hello in [None, Some("HELLO 3")] {
        for script in scripts {
            diff.reconnect();
            if let Some(hello) = hello {
                for conn in 0..3 {
                    diff.run(conn, &args_of(hello));
                }
            }
            cases += run_script(&mut diff, script);
        }
    }
    assert!(cases > 0);
    cases
}

/// `CLIENT SETINFO` and `NO-TOUCH` are Redis 7.2's: here (the model's default
/// configuration) they must answer 7.0.15's unknown-subcommand error; their 7.2 replies
/// are unit-tested (`sim-tests/model/connect_commands.rs`).
const CONNECTION: &str = r#"
PING
PING hello
PING a b
ECHO ""
ECHO \x00\xff
ECHO
SELECT 1
SET k v
SELECT 0
GET k
SELECT 16
SELECT -1
SELECT x
SELECT 15
SELECT 0
CLIENT ID
CLIENT SETNAME myname
CLIENT GETNAME
CLIENT SETNAME "bad name"
CLIENT SETNAME a\sb
CLIENT SETNAME ""
CLIENT GETNAME
CLIENT SETINFO lib-name mylib
CLIENT SETINFO lib-ver 1.0
CLIENT SETINFO bogus x
CLIENT NO-TOUCH on
CLIENT NO-EVICT on
CLIENT no-evict OFF
CLIENT NO-EVICT maybe
CLIENT NO-EVICT
CLIENT NO-EVICT on off
HELLO 2 SETNAME a\sb
HELLO 3 SETNAME n1 SETNAME n2
CLIENT GETNAME
HELLO 2 AUTH default anything SETNAME n3
CLIENT GETNAME
CLIENT NOSUCH
CLIENT
AUTH foo
AUTH default foo
AUTH a b c
HELLO 4
HELLO x
HELLO 2 SETNAME
HELLO 2 SETNAME hello-name
CLIENT GETNAME
HELLO 2 AUTH default
HELLO 2 BOGUS
HELLO
NOSUCHCOMMAND
nosuchcommand a b ""
foo bar\sbaz
INFO
INFO server
TIME
TIME x
"#;

const KEYS: &str = r#"
MSET a 1 b 2 c 3 \x00bin 4
DEL a nokey
DEL
UNLINK b c nokey
EXISTS a b \x00bin \x00bin
EXISTS
TYPE \x00bin
TYPE nokey
RPUSH l x
SADD s m
HSET h f v
ZADD z 1 m
TYPE l
TYPE s
TYPE h
TYPE z
KEYS *
KEYS ?
KEYS [hl]
KEYS nomatch*
KEYS
# Nested stars against a text that almost matches: Redis bounds the backtracking.
SET aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1
KEYS a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b
KEYS a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*
KEYS *a*a*?*[a]*a\*
DEL aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
!scan
!scan MATCH [lsh]
!scan COUNT 1
!scan COUNT 0
!scan COUNT -1
!scan COUNT x
!scan TYPE list
!scan TYPE string
!scan MATCH
!scan BOGUS 1
SCAN x
SCAN 1a
SCAN "" COUNT 0
SCAN -1 BOGUS
SCAN +5 MATCH
SCAN \s1
SCAN +
SCAN -+1
SCAN 18446744073709551616
RENAME l l2
RENAME nokey x
RENAME l2 l2
RENAME l2 s
TYPE s
RENAME s
RENAMENX nokey x
SET rn1 a
SET rn2 b
RENAMENX rn1 rn2
RENAMENX rn1 rn1
PEXPIRE rn1 100000
RENAMENX rn1 rn3
GET rn3
TTL rn3
EXISTS rn1
RENAMENX rn3
DBSIZE
DBSIZE x
SET e v
EXPIRE e 100
TTL e
PTTL e
EXPIRETIME nokey
EXPIRETIME s
EXPIRE e 100 NX
EXPIRE e 200 XX
EXPIRE e 50 GT
EXPIRE e 50 LT
EXPIRE e 500 GT
TTL e
EXPIRE s 100 XX
EXPIRE s 100 GT
EXPIRE s 100 LT
TTL s
PERSIST s
EXPIRE e 100 NX XX
EXPIRE e 100 GT LT
EXPIRE e 100 NX GT
EXPIRE e 100 XX GT
EXPIRE e 100 BOGUS
EXPIRE e x
EXPIRE e 1.5
EXPIRE e 9223372036854775807
PEXPIRE e 9223372036854775807
EXPIRE e -9223372036854775808
EXPIREAT e 9223372036854775807
PEXPIREAT e 9223372036854775807
EXPIRE nokey 100
EXPIRE e
EXPIREAT e 4102444800
EXPIRETIME e
PEXPIRETIME e
PEXPIREAT e 4102444800123
PEXPIRETIME e
EXPIRETIME e
EXPIREAT e 4102444800 LT
EXPIREAT e 1
EXISTS e
SET e v
PEXPIRE e 0
EXISTS e
SET e v
EXPIRE e -1
GET e
SET e v
PEXPIRE e 100000
PTTL e
PERSIST e
PERSIST e
PERSIST nokey
TTL e
TTL nokey
PTTL nokey
TTL
FLUSHDB
FLUSHDB ASYNC
FLUSHDB SYNC
FLUSHDB bogus
FLUSHALL async
FLUSHALL x y
DBSIZE
"#;

const STRINGS: &str = r#"
SET k v
GET k
GET nokey
GET
SET k
SET k v EX 100
TTL k
SET k v
TTL k
SET k v PX 100000
PTTL k
SET k v EXAT 4102444800
EXPIRETIME k
SET k v PXAT 4102444800000
PEXPIRETIME k
SET k v2 KEEPTTL
PEXPIRETIME k
GET k
SET k v3 KEEPTTL GET
SET k v NX
SET k v XX
SET nokey v XX
SET k v NX XX
SET k v XX NX
SET k v EX 10 PX 100
SET k v EX 10 KEEPTTL
SET k v KEEPTTL EX 10
SET k v EX 0
SET k v EX -1
SET k v PX 0
SET k v EX x
SET k v EX
SET k v EX 9223372036854775807
SET k v PX 9223372036854775807
SET k v EXAT 0
SET k v EXAT 1
GET k
SET k v BOGUS
SET k v GET
SET k w GET NX
SET k w GET XX
SET new w GET NX
SET new2 w GET XX
GET new2
SET k v nx ex 100 get
TTL k
RPUSH list a
SET list v GET
SET list v
GET list
SET "" ""
GET ""
SET bin \x00\r\n\xff
GET bin
SETNX k v
SETNX fresh v
SETNX fresh
MGET k fresh nokey list
RPUSH list2 a
MGET list2
MGET
MSET a 1 b
MSET a 1 b 2
MSET a
MGET a b
INCR a
INCR k
INCRBY a 10
INCRBY a -20
INCRBY a x
INCRBY a 1.5
DECR a
DECRBY a 5
DECRBY a -9223372036854775808
SET big 9223372036854775807
INCR big
SET small -9223372036854775808
DECR small
DECRBY small 1
SET sp " 1"
INCR sp
SET lead 01
INCR lead
SET plus +1
INCR plus
INCR list2
INCR newcounter
SET ttlk 5 EX 100
INCR ttlk
TTL ttlk
APPEND ttlk 0
TTL ttlk
GET ttlk
APPEND newapp ""
EXISTS newapp
APPEND newapp abc
APPEND list2 x
STRLEN newapp
STRLEN nokey
STRLEN list2
GETDEL newapp
GETDEL newapp
GETDEL list2
GETEX k
GETEX nokey EX 100
GETEX k EX 100
TTL k
GETEX k PERSIST
TTL k
GETEX k PX 100000
PTTL k
GETEX k EXAT 4102444800
EXPIRETIME k
GETEX k PXAT 4102444800000
GETEX k EX 0
GETEX k EX -5
GETEX k EX x
GETEX k EX
GETEX k PERSIST EX 10
GETEX k EX 10 PX 10
GETEX k KEEPTTL
GETEX k NX
GETEX k BOGUS
GETEX list2
GETEX k EXAT 1
EXISTS k
SET k v
GETEX k PX 1
!sleep 50
EXISTS k
SET k v EX 100
PERSIST k
TTL k
"#;

const LISTS: &str = r#"
LPUSH l a b c
RPUSH l d e ""
RPUSH l
LPUSH
LRANGE l 0 -1
LRANGE l -100 100
LRANGE l 2 1
LRANGE l 5 10
LRANGE l 100 200
LRANGE l x 1
LRANGE l 0 9223372036854775807
LRANGE l -9223372036854775808 0
LRANGE nokey 0 -1
LLEN l
LLEN nokey
LINDEX l 0
LINDEX l -1
LINDEX l 100
LINDEX l x
LINDEX nokey 0
LSET l 0 A
LSET l 100 A
LSET l -100 A
LSET l x A
LSET nokey 0 A
LRANGE l 0 -1
LPOP l
RPOP l
LPOP l 0
LPOP l 2
RPOP l 2
LPOP l -1
RPOP l -1
LPOP l x
LPOP nokey
LPOP nokey 0
LPOP nokey 2
RPOP nokey 2
LPOP l 1 2
RPUSH l2 a b a c a
LREM l2 0 a
LRANGE l2 0 -1
RPUSH l2 a b a
LREM l2 1 a
LREM l2 -1 a
LREM l2 x a
LREM l2 0 nomatch
LRANGE l2 0 -1
LREM l2 0 b
LREM l2 0 c
LRANGE l2 0 -1
LREM l2 0 a
EXISTS l2
RPUSH l3 a b c d
LTRIM l3 1 2
LRANGE l3 0 -1
LTRIM l3 5 10
EXISTS l3
LTRIM nokey 0 1
RPUSH l3 a b
LTRIM l3 x 1
LTRIM l3 -1 0
LRANGE l3 0 -1
LTRIM l3 1 0
EXISTS l3
RPUSH l4 a b c
LINSERT l4 BEFORE b X
LINSERT l4 AFTER c Y
LINSERT l4 after nomatch Z
LINSERT l4 MIDDLE b Z
LINSERT nokey BEFORE a b
LRANGE l4 0 -1
RPUSH dst x
LMOVE l4 dst LEFT RIGHT
LMOVE l4 dst RIGHT LEFT
LMOVE l4 l4 LEFT RIGHT
LMOVE l4 dst UP DOWN
LMOVE nokey dst LEFT LEFT
LRANGE l4 0 -1
LRANGE dst 0 -1
RPUSH one a
LMOVE one newdst LEFT LEFT
EXISTS one
LRANGE newdst 0 -1
SET str v
LPUSH str a
RPUSH str a
LRANGE str 0 1
LLEN str
LPOP str
RPOP str 2
LINDEX str 0
LSET str 0 a
LREM str 0 a
LTRIM str 0 1
LINSERT str BEFORE a b
LMOVE str dst LEFT LEFT
LMOVE dst str LEFT LEFT
LMOVE nokey str LEFT LEFT
SET str v EX 100
DEL tl
RPUSH tl a
EXPIRE tl 100
RPUSH tl b
TTL tl
LPUSH tl c
TTL tl
SET tl v
TTL tl
"#;

const HASHES: &str = r#"
HSET h f1 v1 f2 v2
HSET h f1 x
HSET h f1
HSET h
HMSET h f3 v3 f4 v4
HMSET h f3
HSETNX h f1 y
HSETNX h f9 y
HSETNX h f9
HGET h f1
HGET h nofield
HGET nokey f
HMGET h f1 nofield f2
HMGET nokey a b
HGETALL h
HGETALL nokey
HDEL h f2 nofield
HDEL h
HDEL nokey f
HGETALL h
HSET h f2 back
HGETALL h
HKEYS h
HVALS h
HLEN h
HLEN nokey
HEXISTS h f1
HEXISTS h nofield
HEXISTS nokey f
HINCRBY h n 5
HINCRBY h n -10
HINCRBY h n x
HINCRBY h n 1.5
HINCRBY h f1 1
HSET h big 9223372036854775807
HINCRBY h big 1
HSET h sp " 5"
HINCRBY h sp 1
HINCRBY newh n 1
HSET h "" ""
HGET h ""
HSET h bin \x00\xff
HGETALL h
HDEL h f1 f3 f4 f9 n big sp "" bin f2
EXISTS h
HKEYS nokey
HVALS nokey
SET str v
HSET str f v
HGET str f
HMGET str f
HGETALL str
HDEL str f
HLEN str
HEXISTS str f
HINCRBY str f 1
HKEYS str
HVALS str
HSETNX str f v
HSET th f v
EXPIRE th 100
HSET th g v
TTL th
HINCRBY th n 1
TTL th
"#;

const SETS: &str = r#"
SADD s 3 1 2
SMEMBERS s
SADD s 1 a b
SADD s
SMEMBERS s
SMEMBERS nokey
SREM s a nomember
SREM s
SREM nokey a
SISMEMBER s b
SISMEMBER s nomember
SISMEMBER nokey a
SCARD s
SCARD nokey
SADD s "" \x00
SISMEMBER s ""
SCARD s
SREM s 1 2 3 b "" \x00
EXISTS s
SET str v
SADD str a
SREM str a
SMEMBERS str
SISMEMBER str a
SCARD str
SADD ts a
EXPIRE ts 100
SADD ts b
TTL ts
"#;

const ZSETS: &str = r#"
ZADD z 1 a 2 b 3 c
ZADD z 1.1 d -0.5 e 1e300 f
ZADD z inf g -inf h +inf i
ZADD z nan x
ZADD z x a
ZADD z 1
ZADD z 1 a 2
ZADD z
ZRANGE z 0 -1 WITHSCORES
ZSCORE z d
ZSCORE z f
ZSCORE z g
ZSCORE z h
ZSCORE z e
ZSCORE z nomember
ZSCORE nokey a
ZADD z NX 5 a 5 new
ZADD z XX 5 a 5 new2
ZADD z NX XX 1 a
ZADD z GT 10 a
ZADD z GT 1 a
ZADD z LT 0 a
ZADD z LT 100 a
ZADD z GT LT 1 a
ZADD z NX GT 1 a
ZADD z NX LT 1 a
ZADD z XX GT 20 a
ZADD z CH 1 a 2 b 100 zz
ZADD z CH GT 1 a 200 b
ZADD z INCR 5 a
ZADD z INCR 5 a 6 b
ZADD z INCR x a
ZADD z INCR 1.5 newinc
ZADD z NX INCR 1 a
ZADD z XX INCR 1 nomember
ZADD z GT INCR -100 a
ZADD z LT INCR 100 a
ZADD z GT INCR 1 a
ZADD z INCR inf g
ZADD z INCR -inf g
ZADD z INCR 0 g
ZADD z BOGUS 1 a
ZADD z nx 1 lower
ZRANGE z 0 -1 WITHSCORES
ZCARD z
ZCARD nokey
ZREM z g h i zz newinc lower
ZREM z nomember
ZREM z
ZREM nokey a
ZRANGE z 0 -1 WITHSCORES
ZRANGE z 0 1
ZRANGE z -2 -1
ZRANGE z 5 1
ZRANGE z 0 9223372036854775807
ZRANGE z x 1
ZRANGE z 0 -1 REV
ZRANGE z 0 -1 REV WITHSCORES
ZRANGE z 0 1 LIMIT 0 1
ZRANGE z -inf +inf BYSCORE
ZRANGE z -inf +inf BYSCORE WITHSCORES
ZRANGE z (1 5 BYSCORE
ZRANGE z 1 (5 BYSCORE
ZRANGE z (1 (1 BYSCORE
ZRANGE z 5 1 BYSCORE
ZRANGE z +inf -inf BYSCORE REV
ZRANGE z (5 1 BYSCORE REV WITHSCORES
ZRANGE z -inf +inf BYSCORE LIMIT 1 2
ZRANGE z -inf +inf BYSCORE LIMIT 1 -1
ZRANGE z -inf +inf BYSCORE LIMIT -1 2
ZRANGE z -inf +inf BYSCORE LIMIT 0 0
ZRANGE z -inf +inf BYSCORE LIMIT 100 1
ZRANGE z -inf +inf BYSCORE LIMIT x 1
ZRANGE z -inf +inf BYSCORE LIMIT 1
ZRANGE z +inf -inf BYSCORE REV LIMIT 1 2 WITHSCORES
ZRANGE z x 1 BYSCORE
ZRANGE z 1 x BYSCORE
ZRANGE z ( 1 BYSCORE
ZRANGE z nan 1 BYSCORE
ZRANGE z ( ( BYSCORE
ZCOUNT z "" ""
ZCOUNT z \s1 (\s2
ZCOUNT z 1\s 2
ZCOUNT z \s 2
ZCOUNT z (nan 2
ZCOUNT z -infinity +Infinity
ZRANGE z 0 -1 BOGUS
ZRANGE z 0 -1 WITHSCORES WITHSCORES
ZRANGE nokey 0 -1
ZRANGE nokey -inf +inf BYSCORE
ZRANGEBYSCORE z -inf +inf
ZRANGEBYSCORE z -inf +inf WITHSCORES
ZRANGEBYSCORE z (1 +inf LIMIT 0 2
ZRANGEBYSCORE z 1 2 LIMIT 0
ZRANGEBYSCORE z x 2
ZRANGEBYSCORE z 1
ZREVRANGEBYSCORE z +inf -inf
ZREVRANGEBYSCORE z +inf (1 WITHSCORES LIMIT 1 1
ZREVRANGEBYSCORE z 1 5
ZREVRANGE z 0 -1
ZREVRANGE z 0 1 WITHSCORES
ZREVRANGE z 0 1 BOGUS
ZREVRANGE z x 1
ZCOUNT z -inf +inf
ZCOUNT z (1 3
ZCOUNT z x 3
ZCOUNT nokey 0 1
ZADD r 1 a 2 b 3 c 4 d 5 e
ZREMRANGEBYRANK r 0 0
ZREMRANGEBYRANK r -1 -1
ZREMRANGEBYRANK r 5 10
ZREMRANGEBYRANK r x 1
ZRANGE r 0 -1
ZREMRANGEBYSCORE r (2 3
ZREMRANGEBYSCORE r x 3
ZREMRANGEBYSCORE r -inf +inf
EXISTS r
ZREMRANGEBYRANK nokey 0 1
ZREMRANGEBYSCORE nokey 0 1
ZADD r2 1 a
ZREMRANGEBYRANK r2 0 -1
EXISTS r2
ZADD z 0 "" 0 \x00
ZRANGE z 0 2 WITHSCORES
SET str v
ZADD str 1 a
ZREM str a
ZRANGE str 0 1
ZRANGEBYSCORE str 0 1
ZREVRANGE str 0 1
ZCARD str
ZSCORE str a
ZCOUNT str 0 1
ZREMRANGEBYRANK str 0 1
ZREMRANGEBYSCORE str 0 1
ZADD tz 1 a
EXPIRE tz 100
ZADD tz 2 b
TTL tz
"#;

const TRANSACTIONS: &str = r#"
EXEC
DISCARD
MULTI
MULTI
SET a 1
INCR a
LPUSH a x
GET a
EXEC
MULTI
SET a 1
NOSUCH
EXEC
GET a
MULTI
SET a 2
SET a
EXEC
GET a
MULTI
SET a 3
DISCARD
GET a
MULTI
WATCH a
EXEC
WATCH a
@2 SET a changed
MULTI
GET a
EXEC
WATCH a
GET a
MULTI
GET a
EXEC
WATCH a b
UNWATCH
@2 SET a again
MULTI
GET a
EXEC
WATCH nokey
@2 SET nokey v
MULTI
PING
EXEC
WATCH a
MULTI
SET a 7
@2 GET a
EXEC
@2 GET a
WATCH a
@2 SET a 8
DISCARD
MULTI
EXEC
WATCH a
UNWATCH x
WATCH
MULTI
SELECT 1
SET a db1
SELECT 0
EXEC
SELECT 1
GET a
SELECT 0
MULTI
EXEC x
DISCARD x
MULTI x
EXEC
MULTI
PING
ECHO hi
INCRBY a x
SADD a x
EXEC
WATCH w
@2 SET w v
@2 DEL w
MULTI
PING
EXEC
WATCH w
@2 FLUSHALL
MULTI
PING
EXEC
SET w v
WATCH w
@2 EXPIRE w 100
MULTI
PING
EXEC
"#;

const EXPIRY: &str = r#"
SET short v PX 50
RPUSH shortl a
PEXPIRE shortl 50
HSET shorth f v
PEXPIRE shorth 50
!sleep 200
GET short
EXISTS short shortl shorth
TTL short
LLEN shortl
HGETALL shorth
SET short v PX 50
WATCH short
!sleep 200
MULTI
PING
EXEC
DBSIZE
"#;

const MORE_EDGES: &str = r#"
MULTI
HELLO 4
AUTH x
CLIENT GETNAME
SELECT 99
EXEC
MULTI
SET a 1
RESET
GET a
EXEC
SET a 1
WATCH a
RESET
@2 SET a 2
MULTI
PING
EXEC
SET k v
EXPIRE k 100 NX NX
EXPIRE k 200 GT GT
EXPIRE k 100 nx
EXPIRE k 50 lt
PEXPIRE k 60000 GT
PEXPIRE k 40000 GT
PEXPIREAT k 1 NX
PEXPIREAT k 4102444800000 XX LT
TTL k
SET k v px 100000 keepttl
SET k v ex 1 ex 2
SET k v GET GET
SET k v NX NX
SET k v xx xx
SET k v EXAT 4102444800 PXAT 4102444800000
SET k v PXAT -1
SET k v EXAT 9223372036854775807
SET k v PX 1.5
SET k v EX ""
GETEX k persist persist
GETEX k ex 100 ex 100
GETEX k PXAT 0
GETEX k EXAT 9223372036854775807
GETEX k EX 9223372036854775807
RPUSH l a b c
LPOP l 9223372036854775807
RPUSH l a b c
RPOP l 100
LPOP l 1.5
LPOP l 1
LPOP l 0
LPOP l ""
LRANGE l 0 ""
LINDEX l 9223372036854775807
LINDEX l -9223372036854775808
LSET l 9223372036854775807 x
LREM l -9223372036854775808 a
LTRIM l -9223372036854775808 9223372036854775807
LRANGE l 0 -1
LINSERT l BEFORE c c
LRANGE l 0 -1
LMOVE l l RIGHT LEFT
LRANGE l 0 -1
LMOVE l l LEFT RIGHT
RPUSH l \x00 \xff\xfe
LRANGE l 0 -1
HINCRBY h f 9223372036854775807
HINCRBY h f 1
HINCRBY h f -9223372036854775808
HINCRBY h f ""
HSET h f 1.5
HINCRBY h f 1
HSET h a 1 b
HMSET h a 1 b
HSETNX h f v extra
ZADD z 1 a 1 b 1 c 0 d
ZRANGE z 0 -1 WITHSCORES
ZADD z INCR 1 a 2 b
ZADD z INCR GT 1 a
ZADD z GT INCR -1 a
ZADD z LT XX CH 0 a 0 nomember
ZADD z 1.0 a
ZADD z 0x10 a
ZADD z " 1" a
ZADD z 1e400 a
ZADD z -1e400 a
ZSCORE z a
ZADD z 5e-324 tiny
ZSCORE z tiny
ZADD z 123456789.123456789 precise
ZSCORE z precise
ZADD z 0.1 p1 -0 negzero 100 hundred 1e21 e21 1e-5 small
ZRANGE z 0 -1 WITHSCORES
ZADD z INCR -0 negincr
ZSCORE z negincr
ZADD z INCR -0 negincr
ZADD z INCR -0.0 negzero
ZRANGE z 0 -1 BYSCORE
ZRANGE z -1 0 BYSCORE REV LIMIT 0 -5
ZRANGE z (0 (1e21 BYSCORE WITHSCORES LIMIT 1 3
ZRANGE z 0 -1 LIMIT 0 1
ZRANGE z 0 -1 WITHSCORES LIMIT 0 1 BYSCORE
ZRANGE z 0 -1 REV REV
ZRANGEBYSCORE z -inf +inf LIMIT 0 -1 WITHSCORES
ZRANGEBYSCORE z -inf +inf BYSCORE
ZRANGEBYSCORE z -inf +inf REV
ZREVRANGEBYSCORE z +inf -inf LIMIT 2 2
ZREVRANGE z -100 100 WITHSCORES
ZREMRANGEBYRANK z -100 100
EXISTS z
SADD s 1 2 3
SADD s 9223372036854775807 -9223372036854775808 9223372036854775808
SCARD s
SISMEMBER s 9223372036854775808
SREM s 01
SCARD s
KEYS *
!scan MATCH *
!scan TYPE set
!scan TYPE zset
!scan TYPE hash
!scan TYPE nosuchtype
!scan COUNT 9223372036854775807
!scan MATCH s COUNT 1 TYPE set
RENAME s ""
TYPE ""
RENAME "" ""
EXISTS ""
APPEND "" x
GET ""
INCRBY counter 9223372036854775807
INCRBY counter 1
INCRBY counter -9223372036854775808
DECRBY counter 9223372036854775807
DECRBY counter -1
GET counter
SET f 1.5
INCRBY f 1
SET huge 99999999999999999999
INCR huge
MGET "" counter f nokey
"#;

const STRINGS_MORE: &str = r#"
SETEX k 100 v
TTL k
GET k
SETEX k 0 v
SETEX k -1 v
SETEX k x v
SETEX k 9223372036854775807 v
PSETEX k 100000 v
PTTL k
PSETEX k 0 v
PSETEX k 9223372036854775807 v
PSETEX k 1.5 v
SETEX
SET s a
GETSET s b
GETSET nokey x
TTL nokey
SET t v EX 100
GETSET t w
TTL t
LPUSH l a
GETSET l v
GET l
MSETNX a 1 b 2
MSETNX b 3 c 4
MGET a b c
MSETNX c 3 c 4
GET c
MSETNX a
MSETNX a 1 b
SET r Hello\sWorld
GETRANGE r 0 4
GETRANGE r -5 -1
GETRANGE r 0 -1
GETRANGE r 0 100
GETRANGE r -100 2
GETRANGE r 5 3
GETRANGE r -1 -5
GETRANGE r -1 -1
GETRANGE r 11 11
GETRANGE r 9223372036854775807 -9223372036854775808
GETRANGE r x 1
GETRANGE nokey x 1
GETRANGE nokey 0 1
GETRANGE l 0 1
SUBSTR r 1 3
SET n 12345
GETRANGE n 1 2
SET e ""
GETRANGE e 0 -1
GETRANGE e 0 0
SETRANGE r 6 Redis
GET r
SETRANGE r 20 x
GET r
STRLEN r
SETRANGE fresh 3 abc
GET fresh
SETRANGE fresh2 0 ""
EXISTS fresh2
SETRANGE r 0 ""
SETRANGE r -1 x
SETRANGE r x x
SETRANGE l 0 x
SETRANGE l 0 ""
SETRANGE r 536870912 x
SETRANGE r 536870911 x
SET big v
SETRANGE big 9223372036854775807 x
SET ttl v EX 100
SETRANGE ttl 1 xyz
TTL ttl
SET num 10
SETRANGE num 1 5
GET num
INCR num
"#;

const KEYSPACE_MORE: &str = r#"
RANDOMKEY
SET only v
RANDOMKEY
DEL only
SET src hello EX 100
COPY src dst
GET dst
TTL dst
COPY src dst
COPY src dst REPLACE
COPY src src
COPY src src DB 1
COPY src dst DB 1
SELECT 1
GET dst
TTL dst
SELECT 0
COPY nokey dst2
COPY src dst DB 16
COPY src dst DB -1
COPY src dst DB x
COPY src dst DB
COPY src dst BOGUS
COPY src dst REPLACE REPLACE DB 0
RPUSH list a b c
COPY list list2
LRANGE list2 0 -1
RPUSH list d
LRANGE list2 0 -1
HSET h f v
COPY h h2
HGETALL h2
SADD s 1 2
COPY s s2
SMEMBERS s2
ZADD z 1 a
COPY z z2
ZRANGE z2 0 -1 WITHSCORES
MOVE src 1
MOVE src 0
MOVE src 16
MOVE src x
MOVE src 9999999999
MOVE nokey 2
SET m v
MOVE m 2
EXISTS m
SELECT 2
GET m
SET m2 v
SELECT 0
SET m2 w
MOVE m2 2
GET m2
SWAPDB 0 2
GET m
GET m2
SWAPDB 0 2
SWAPDB 0 0
SWAPDB 0 16
SWAPDB x 0
SWAPDB 0 x
SWAPDB 16 x
SWAPDB -1 0
TOUCH list h nokey
TOUCH nokey
SET i 123
SET e shortstring
SET raw 0123456789012345678901234567890123456789012345
OBJECT ENCODING i
OBJECT ENCODING e
OBJECT ENCODING raw
OBJECT ENCODING list
OBJECT ENCODING h
OBJECT ENCODING s
OBJECT ENCODING z
OBJECT ENCODING nokey
SADD s2 x
OBJECT ENCODING s2
OBJECT REFCOUNT i
OBJECT REFCOUNT e
SET i2 10000
OBJECT REFCOUNT i2
OBJECT REFCOUNT nokey
OBJECT IDLETIME e
OBJECT IDLETIME nokey
OBJECT FREQ i
OBJECT HELP
MEMORY USAGE i
MEMORY USAGE i2
MEMORY USAGE e
MEMORY USAGE raw
MEMORY USAGE list
MEMORY USAGE h
MEMORY USAGE z
MEMORY USAGE nokey
MEMORY USAGE e SAMPLES 0
MEMORY USAGE e samples 3
MEMORY USAGE e SAMPLES -1
MEMORY USAGE e SAMPLES x
MEMORY USAGE e SAMPLES
MEMORY USAGE e BOGUS 1
MEMORY HELP
MEMORY USAGE
MEMORY BOGUS
MEMORY
OBJECT ENCODING
OBJECT ENCODING a b
OBJECT BOGUS x
OBJECT
MULTI
OBJECT BOGUS x
EXEC
MULTI
OBJECT ENCODING i
EXEC
CLIENT BOGUS
CLIENT ID x
"#;

const CONFIG: &str = r#"
CONFIG GET proto-max-bulk-len
CONFIG GET PROTO-MAX-BULK-LEN
CONFIG GET hz
CONFIG GET databases
CONFIG GET appendonly
CONFIG GET appendfsync
CONFIG GET requirepass
CONFIG GET maxmemory
CONFIG GET maxmemory-policy
CONFIG GET hash-max-listpack-entries
CONFIG GET hash-max-ziplist-entries
CONFIG GET zset-max-listpack-value
CONFIG GET set-max-intset-entries
CONFIG GET list-max-listpack-size
CONFIG GET lua-time-limit
CONFIG GET busy-reply-threshold
CONFIG GET client-query-buffer-limit
CONFIG GET timeout
CONFIG GET nosuchparameter
CONFIG GET hz nosuch timeout
CONFIG GET hz hz
CONFIG GET proto-max-*
CONFIG GET
CONFIG SET hz 20
CONFIG GET hz
CONFIG SET hz 1000
CONFIG GET hz
CONFIG SET hz 0
CONFIG GET hz
CONFIG SET hz 10
CONFIG SET hz x
CONFIG SET hz -1
CONFIG SET hz 2147483648
CONFIG SET nosuch 1
CONFIG SET hz 10 nosuch 1
CONFIG SET databases 4
CONFIG SET hz 10 hz 11
CONFIG SET hz
CONFIG SET hz 10 timeout
CONFIG SET appendfsync always
CONFIG GET appendfsync
CONFIG SET appendfsync sometimes
CONFIG SET appendfsync everysec
CONFIG SET maxmemory-policy allkeys-lru
CONFIG GET maxmemory-policy
CONFIG SET maxmemory-policy bogus
CONFIG SET maxmemory-policy noeviction
CONFIG SET maxmemory 1kb
CONFIG GET maxmemory
CONFIG SET maxmemory 2m
CONFIG GET maxmemory
CONFIG SET maxmemory 3GB
CONFIG GET maxmemory
CONFIG SET maxmemory 1x
CONFIG SET maxmemory -1
CONFIG SET maxmemory 0
CONFIG SET proto-max-bulk-len 1000
CONFIG SET proto-max-bulk-len 2mb
CONFIG GET proto-max-bulk-len
SET k 0123456789
SETRANGE k 2097150 abc
SETRANGE k 2097149 abc
STRLEN k
APPEND k x
CONFIG SET proto-max-bulk-len 512mb
CONFIG SET hash-max-listpack-entries 64 zset-max-listpack-entries 32
CONFIG GET hash-max-listpack-entries
CONFIG GET zset-max-listpack-entries
CONFIG SET hash-max-listpack-entries -1
CONFIG SET hash-max-listpack-entries 512 zset-max-listpack-entries 128
CONFIG SET lua-time-limit 100
CONFIG GET busy-reply-threshold
CONFIG SET lua-time-limit 5000
CONFIG SET appendonly maybe
CONFIG SET timeout 0
CONFIG RESETSTAT
CONFIG BOGUS
CONFIG HELP
MULTI
CONFIG BOGUS
EXEC
"#;

/// Redis's own tests of WATCH on keys that were already expired when watched
/// (`unit/multi.tcl`), with active expiry off on both servers.
const STALE_WATCH: &str = r#"
DEBUG SET-ACTIVE-EXPIRE 0
SET x foo PX 1
!sleep 5
WATCH x
DEL x
MULTI
PING
EXEC
SET x foo PX 1
!sleep 5
WATCH x
FLUSHDB
MULTI
PING
EXEC
SET x foo PX 1
!sleep 5
WATCH x
MULTI
PING
EXEC
SET x foo PX 1
!sleep 5
WATCH x
GET x
SET x bar
MULTI
PING
EXEC
SET y foo PX 1
!sleep 5
WATCH y
@2 GET y
MULTI
PING
EXEC
SET z foo PX 1
!sleep 5
SELECT 1
SET z bar
SELECT 0
WATCH z
SWAPDB 0 1
MULTI
PING
EXEC
FLUSHALL
SET w foo PX 1
SELECT 1
SET w live
SELECT 0
!sleep 5
WATCH w
SWAPDB 0 1
MULTI
PING
EXEC
SWAPDB 0 1
FLUSHALL
SET q foo PX 1
!sleep 5
WATCH q
@2 SET q bar
MULTI
PING
EXEC
DEBUG SET-ACTIVE-EXPIRE 1
DEBUG BOGUS
DEBUG SET-ACTIVE-EXPIRE
"#;

const SCRIPTING: &str = r#"
# replies of every Lua type, in the caller's protocol
EVAL return\s1 0
EVAL return\s'str' 0
EVAL return\s3.99 0
EVAL return\s-3.99 0
EVAL return\s1e30 0
EVAL return\s0/0 0
EVAL return\strue 0
EVAL return\sfalse 0
EVAL return\snil 0
EVAL return 0
EVAL return\s{1,'two',{3,{4}},true,false} 0
EVAL return\s{1,2,nil,4} 0
EVAL return\s{} 0
EVAL return\s{ok='fine\r\nline'} 0
EVAL return\s{err='BAD\sthing'} 0
EVAL return\s{err=1} 0
EVAL return\s{1,{err='NESTED\serror'},{ok='st'}} 0
EVAL return\s{double=1.5} 0
EVAL return\s{double=3} 0
EVAL return\s{map={a=1,b={1,2}}} 0
EVAL return\s{set={a=true}} 0
EVAL return\s{verbatim_string={format='txt',string='hi'}} 0
EVAL return\sredis.status_reply('OK') 0
EVAL return\sredis.error_reply('MY\scode') 0
EVAL return\sredis.error_reply('MYERR') 0
EVAL return\sredis.error_reply('-X\sy') 0
EVAL return\sredis.error_reply('') 0
EVAL return\sredis.error_reply(1) 0
EVAL return\sredis.status_reply(1) 0
EVAL redis.setresp(3)\sreturn\strue 0
EVAL redis.setresp(3)\sreturn\sfalse 0
EVAL redis.setresp(2)\sreturn\strue 0
EVAL redis.setresp(4) 0
EVAL redis.setresp() 0
# KEYS and ARGV
EVAL return\s{KEYS[1],KEYS[2],ARGV[1],ARGV[2],#KEYS,#ARGV} 2 k1 k2 a1 a2
EVAL return\s#ARGV 0 "" x
EVAL return\sARGV[1] 0 \x00\xff
EVAL return\s1 -1
EVAL return\s1 3 a b
EVAL return\s1 x
EVAL return\s1 99999999999999999999
EVAL return\s1
EVAL
# redis.call replies to Lua, RESP2 rules
SET str v
RPUSH list a b c
HSET h f1 v1 f2 v2
SADD set m
ZADD z 1.5 m 2 n
EVAL return\sredis.call('get',KEYS[1]) 1 str
EVAL return\sredis.call('get','nokey') 0
EVAL return\stype(redis.call('get','nokey')) 0
EVAL return\sredis.call('set','k2','v2') 0
EVAL return\sredis.call('set','k2','v2')['ok'] 0
EVAL return\sredis.call('incr','n') 0
EVAL return\stype(redis.call('incr','n')) 0
EVAL return\sredis.call('lrange','list',0,-1) 0
EVAL return\sredis.call('lrange','list',0,-1.5) 0
EVAL return\sredis.call('lrange','list',0,'-1') 0
EVAL return\sredis.call('hgetall','h') 0
EVAL return\sredis.call('zscore','z','m') 0
EVAL return\stype(redis.call('zscore','z','m')) 0
EVAL return\sredis.call('zrange','z',0,-1,'withscores') 0
EVAL return\sredis.call('smembers','set') 0
EVAL return\sredis.call('ping') 0
EVAL return\sredis.call('exists','str','nokey') 0
EVAL return\sredis.call('set','f',0.1) 0
EVAL return\sredis.call('get','f') 0
EVAL return\sredis.call('set','f',1e100) 0
EVAL return\sredis.call('get','f') 0
# RESP3 inside the script
EVAL redis.setresp(3)\sreturn\sredis.call('hgetall','h') 0
EVAL redis.setresp(3)\sreturn\sredis.call('hgetall','h').map.f1 0
EVAL redis.setresp(3)\sreturn\sredis.call('smembers','set') 0
EVAL redis.setresp(3)\sreturn\sredis.call('zscore','z','m') 0
EVAL redis.setresp(3)\sreturn\sredis.call('zscore','z','m').double 0
EVAL redis.setresp(3)\sreturn\stype(redis.call('get','nokey')) 0
EVAL redis.setresp(3)\sreturn\s{1,redis.call('get','nokey'),3} 0
EVAL redis.setresp(3)\sreturn\sredis.call('zrange','z',0,-1,'withscores') 0
EVAL redis.setresp(3)\sreturn\sredis.call('ping') 0
# errors
EVAL return\sfoo( 0
EVAL return\s+ 0
EVAL error('boom') 0
EVAL error('multi\nline') 0
EVAL error({err='X\sboom'}) 0
EVAL local\st=nil\nreturn\st.x 0
EVAL \n\nerror('third\sline') 0
EVAL local\sfunction\sf()\serror('in\sf')\send\nf() 0
EVAL return\sredis.call('nosuch') 0
EVAL return\sredis.call('get') 0
EVAL return\sredis.call() 0
EVAL return\sredis.call({}) 0
EVAL return\sredis.call('get',{}) 0
EVAL return\sredis.call('lpush','str','x') 1 str
EVAL redis.call('lpush','str','x') 1 str
EVAL return\sredis.pcall('lpush','str','x') 1 str
EVAL return\sredis.pcall('get') 0
EVAL return\sredis.pcall('nosuch') 0
EVAL return\stype(redis.pcall('lpush','str','x')) 0
EVAL return\sredis.pcall('lpush','str','x')['err'] 0
EVAL return\spcall(redis.call,'lpush','str','x') 0
EVAL local\sok,e=pcall(redis.call,'lpush','str','x')\sreturn\se 0
EVAL local\sok,e=pcall(error,'plain')\sreturn\se 0
EVAL local\sok,e=pcall(error,{err='T\sx'})\sreturn\se 0
EVAL return\sredis.call('multi') 0
EVAL return\sredis.call('exec') 0
EVAL return\sredis.call('watch','k') 0
EVAL return\sredis.call('eval','return\s1','0') 0
EVAL return\sredis.call('script','load','return\s1') 0
EVAL return\sredis.call('script','nosuch') 0
EVAL return\sredis.call('client','id') 0
EVAL return\sredis.pcall('client','no-evict','on')['err'] 0
EVAL return\sredis.pcall('client','list')['err'] 0
EVAL return\sredis.call('client','nosuch') 0
EVAL return\sredis.call('client') 0
EVAL return\sredis.call('auth','x') 0
EVAL return\sredis.call('hello') 0
EVAL return\sredis.call('config','get','maxmemory') 0
EVAL return\sredis.call('config','help') 0
EVAL return\sredis.call('config') 0
EVAL return\sredis.call('debug','set-active-expire','1') 0
EVAL return\sredis.call('object','encoding','str') 0
EVAL return\sredis.call('object','nosuch','str') 0
EVAL return\sredis.call('setex','sx',100,'v') 0
EVAL return\sredis.call('getrange','str',0,0) 0
EVAL return\sredis.sha1hex('') 0
EVAL return\sredis.sha1hex('abc') 0
EVAL return\sredis.sha1hex() 0
EVAL return\sredis.log(redis.LOG_WARNING,'logged') 0
EVAL return\sredis.log(1) 0
EVAL return\sredis.log('x','y') 0
EVAL return\sredis.log(9,'y') 0
EVAL return\s{redis.REDIS_VERSION,redis.REDIS_VERSION_NUM} 0
EVAL return\sredis.replicate_commands() 0
EVAL redis.set_repl(redis.REPL_ALL)\sreturn\s1 0
EVAL redis.set_repl(99) 0
# global protection and the globals that exist
EVAL x=1 0
EVAL return\sy 0
EVAL return\sprint 0
EVAL return\sos 0
EVAL string.foo=1 0
EVAL redis.foo=1 0
EVAL return\sstring.foo 0
EVAL local\st={}\nfor\sk\sin\spairs(_G)\sdo\st[#t+1]=k\send\ntable.sort(t)\nreturn\st 0
EVAL return\s{type(loadstring),type(coroutine),type(gcinfo),type(load),type(unpack),type(bit),_VERSION} 0
EVAL return\stostring(1.5)..tostring(nil)..tostring(1e100) 0
EVAL return\sstring.format('%d-%s',5,'x') 0
EVAL local\sco=coroutine.create(function(a)\scoroutine.yield(a+1)\send)\nlocal\sok,v=coroutine.resume(co,1)\nreturn\sv 0
# math.random: one sequence from process start, the same in every server
EVAL return\smath.random(100) 0
EVAL return\s{math.random(100),math.random(5,10),math.random(1000000)} 0
EVAL return\stostring(math.random()) 0
EVAL math.randomseed(7)\sreturn\s{math.random(100),math.random(100)} 0
EVAL return\smath.random(100) 0
EVAL return\smath.random(0) 0
EVAL return\smath.random(3,1) 0
EVAL return\smath.random(1,2,3) 0
EVAL return\smath.random('x') 0
# cjson
EVAL return\scjson.encode({1,2,3,{a=1.5,b='x/y'},{}}) 0
EVAL return\scjson.encode({[1]=1,[5]=2}) 0
EVAL return\scjson.encode({[1]=1,[20]=2}) 0
EVAL return\scjson.encode({1/3,1e20,-0,0.1,12345678901234567}) 0
EVAL return\scjson.encode(1/0) 0
EVAL return\scjson.encode('q"b\\n\1\127\200') 0
EVAL return\scjson.encode({[1.5]=1}) 0
EVAL return\scjson.encode({[true]=1}) 0
EVAL return\scjson.encode(redis.call) 0
EVAL return\scjson.encode(cjson.null) 0
EVAL return\scjson.encode() 0
EVAL return\scjson.encode({x=1,y=2,z=3,w=4,foo='bar',[10]=1}) 0
EVAL return\scjson.decode('[1,2,{"a":null}]')[3].a==cjson.null 0
EVAL return\stype(cjson.decode('1.5')) 0
EVAL return\scjson.decode('[1,"a",true]') 0
EVAL return\scjson.decode('{"a":{"b":[1,2]}}').a.b[2] 0
EVAL return\scjson.encode(cjson.decode('{"b":1,"a":[1,2,3],"c":"\\u00e9","d":{"x":true,"y":false,"zz":null}}')) 0
EVAL return\scjson.encode(cjson.decode(ARGV[1])) 0 {"name":"n","tags":["a","b"],"score":0.25,"nested":{"k":[]}}
# bit
EVAL return\s{bit.band(0xff,0x0f),bit.bor(1,2,4),bit.bxor(5,3),bit.bnot(0),bit.lshift(1,40),bit.rshift(-1,28),bit.arshift(-16,2)} 0
EVAL return\sbit.tohex(255)..bit.tohex(-1,-4)..bit.tohex(0x1234,2) 0
EVAL return\sbit.band() 0
# the script cache
SCRIPT LOAD return\s1
SCRIPT LOAD return\s(
SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db E0E1F9FABFC9D4800C877A703B823AC0578FF8DB ffff
EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0
EVALSHA E0E1F9FABFC9D4800C877A703B823AC0578FF8DB 0
EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db -1
EVALSHA abc 0
EVALSHA ffffffffffffffffffffffffffffffffffffffff 0
EVALSHA_RO e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0
EVAL return\s2 0
SCRIPT EXISTS 7f923f79fe76194c868d7e1d0820de36700eb649
SCRIPT FLUSH
SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db 7f923f79fe76194c868d7e1d0820de36700eb649
EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0
SCRIPT FLUSH SYNC
SCRIPT FLUSH async
SCRIPT FLUSH x
SCRIPT FLUSH SYNC x
SCRIPT KILL
SCRIPT KILL x
SCRIPT HELP
SCRIPT EXISTS
SCRIPT LOAD
SCRIPT LOAD a b
SCRIPT NOSUCH
SCRIPT
SCRIPT DEBUG NO
SCRIPT DEBUG x
# read-only scripts and shebangs
EVAL_RO return\sredis.call('get','str') 0
EVAL_RO return\sredis.call('set','str','w') 0
EVAL_RO return\sredis.pcall('set','str','w') 0
EVAL #!lua\nreturn\sredis.call('get','str') 0
EVAL #!lua\sflags=no-writes\nreturn\sredis.call('set','a','1') 0
EVAL_RO #!lua\nreturn\s1 0
EVAL_RO #!lua\sflags=no-writes\nreturn\s1 0
EVAL #!lua\sflags=no-writes,allow-stale\n\nerror('x') 0
EVAL #!python\nreturn\s1 0
EVAL #!lua\sflags=bad\nreturn\s1 0
EVAL #!lua\sx=1\nreturn\s1 0
EVAL #!lua 0
# a script that writes, then reads by others
EVAL redis.call('set',KEYS[1],ARGV[1])\nredis.call('rpush',KEYS[2],ARGV[1],ARGV[2])\nreturn\sredis.call('lrange',KEYS[2],0,-1) 2 wk wl v1 v2
GET wk
LRANGE wl 0 -1
@2 EVAL return\sredis.call('incrby',KEYS[1],ARGV[1]) 1 counter 5
GET counter
EVAL redis.call('select',1)\sredis.call('set','in1','x')\sreturn\sredis.call('get','in1') 0
GET in1
SELECT 1
GET in1
SELECT 0
EVAL redis.call('set','partial','1')\nerror('after\swrite') 0
GET partial
# EVAL inside MULTI, and WATCH broken by a script
MULTI
EVAL return\sredis.call('incr','tx') 0
EVAL return\s{1,2} 0
EVAL return\sfoo( 0
EXEC
GET tx
WATCH watched
@2 EVAL redis.call('set','watched','by\sscript') 0
MULTI
GET watched
EXEC
MULTI
EVAL return\s1
EXEC
EVAL setmetatable(_G,\s{}) 0
EVAL redis.call\s=\sfunction()\sreturn\s1\send 0
EVAL redis.newthing\s=\s1 0
EVAL cjson.encode\s=\snil 0
EVAL bit.band\s=\snil 0
EVAL setmetatable(redis,\s{}) 0
EVAL redis\s=\sfunction()\sreturn\s1\send 0
EVAL _G\s=\s{} 0
EVAL local\sg=getmetatable(_G)\sg.__index={} 0
EVAL pcall\s=\snil 0
EVAL return\stype(redis) 0
EVAL return\sloadstring('x\s=\s1')() 0
EVAL return\snosuch 0
EVAL return\s_G.nosuch 0
EVAL local\sf\s=\sfunction()\sreturn\snosuch2\send\sreturn\sf() 0
EVAL return\sredis.call('ping') 0
EVAL return\sloadstring(string.dump(function()\sreturn\s1\send))() 0
EVAL return\sloadstring('return\s41\s+\s1')() 0
EVAL return\sredis.pcall('blpop','bl',0) 0
EVAL return\sredis.pcall('bzpopmin','bz',0) 0
EVAL return\sredis.pcall('blmpop',0,1,'bl','LEFT') 0
RPUSH bl a b
EVAL return\sredis.pcall('blmpop',0,1,'bl','LEFT') 0
EVAL return\sredis.pcall('blmove','bl','x','LEFT','LEFT',0) 0
"#;

/// Blocking commands: served at once when data is there, blocked until a push from the
/// other connection (served in the order clients blocked), timed out on the clock,
/// non-blocking inside MULTI.
const BLOCKING: &str = r#"
RPUSH l a b c
BLPOP l 0
BRPOP l 0
BLPOP nokey l 0
BLPOP l 0.01
BRPOP l 0.01
BLPOP l -1
BLPOP l x
BLPOP l inf
BLPOP l
SET s v
BLPOP s 0
BLPOP nokey s 0
!send BLPOP q1 q2 0
@2 RPUSH q2 x y
!recv
LRANGE q2 0 -1
!send BRPOP q1 0
@2 LPUSH q1 a b c
!recv
LRANGE q1 0 -1
DEL q1
!send BLMOVE src dst LEFT RIGHT 0
@2 RPUSH src 1 2
!recv
LRANGE src 0 -1
LRANGE dst 0 -1
BLMOVE src dst RIGHT LEFT 0
BLMOVE nosrc dst LEFT LEFT 0.01
BLMOVE src dst UP LEFT 0
BRPOPLPUSH dst src 0
BRPOPLPUSH nosrc src 0.01
BLMPOP 0 2 l dst LEFT COUNT 5
BLMPOP 0.01 1 nokey RIGHT
BLMPOP 0 0 l LEFT
BLMPOP 0 1 l
BLMPOP 0 1 l LEFT COUNT 0
BLMPOP x 1 l LEFT
!send BLMPOP 0 2 m1 m2 RIGHT COUNT 2
@2 RPUSH m2 a b c
!recv
ZADD z 1 a 2 b 3 c
BZPOPMIN z 0
BZPOPMAX z 0
BZPOPMIN nokey 0.01
BZPOPMIN s 0
BZMPOP 0 1 z MIN COUNT 3
BZMPOP 0.01 1 z MAX
!send BZPOPMAX z2 0
@2 ZADD z2 5 e 6 f
!recv
!send BZMPOP 0 1 z3 MIN COUNT 10
@2 ZADD z3 1 x 2 y
!recv
MULTI
BLPOP empty 0
BLMOVE empty dst LEFT LEFT 0
BZPOPMIN empty 0
EXEC
!send BLPOP w 0
@2 SET w notalist
@2 DEL w
@2 RPUSH w finally
!recv
!send BLPOP t 0.2
!recv
!send BLPOP f 0
!send3 BLPOP g f 0
@2 RPUSH f first
!recv
@2 RPUSH f second
!recv3
!send BRPOP f 0
!send3 BRPOP f 0
@2 RPUSH f 1 2 3
!recv
!recv3
LRANGE f 0 -1
!send BLPOP h 0
!send3 BLMOVE h h2 LEFT LEFT 0
@2 MULTI
@2 RPUSH h x
@2 RPUSH h y
@2 EXEC
!recv
!recv3
LRANGE h2 0 -1
!send BLMOVE c1 c2 LEFT LEFT 0
!send3 BLPOP c2 0
@2 RPUSH c1 chained
!recv
!recv3
SELECT 5
RPUSH swapped x
SELECT 0
!send BLPOP swapped 0
@2 SWAPDB 0 5
!recv
@2 SWAPDB 0 5
@2 WATCH wk
!send3 BLPOP wk 0
@2 MULTI
@2 PING
RPUSH wk v
!recv3
@2 EXEC
"#;

const LISTS_MORE: &str = r#"
LPUSHX nokey a
EXISTS nokey
RPUSHX nokey a b
EXISTS nokey
LPUSHX nokey
RPUSHX
RPUSH l a b
LPUSHX l x y
RPUSHX l z ""
LRANGE l 0 -1
SET str v
LPUSHX str a
RPUSHX str a
HSET h f v
RPUSHX h a
RPUSH tl a
EXPIRE tl 100
LPUSHX tl b
RPUSHX tl c
TTL tl
LRANGE tl 0 -1
# RPOPLPUSH
RPUSH src a b c
RPOPLPUSH src dst
RPOPLPUSH src dst
LRANGE src 0 -1
LRANGE dst 0 -1
RPOPLPUSH src src
LRANGE src 0 -1
RPOPLPUSH src dst
EXISTS src
RPOPLPUSH src dst
RPOPLPUSH nokey str
RPOPLPUSH str dst
RPOPLPUSH dst str
LRANGE dst 0 -1
RPOPLPUSH dst h
RPOPLPUSH dst
RPOPLPUSH a b c
RPUSH one x
EXPIRE one 100
RPOPLPUSH one fresh
EXISTS one
TTL fresh
LRANGE fresh 0 -1
# LPOS
RPUSH p a b c a b c a
LPOS p a
LPOS p c
LPOS p nomatch
LPOS p a RANK 2
LPOS p a RANK 3
LPOS p a RANK 4
LPOS p a RANK -1
LPOS p a RANK -2
LPOS p a RANK -4
LPOS p a RANK 0
LPOS p a RANK x
LPOS p a RANK 9223372036854775807
LPOS p a RANK -9223372036854775807
LPOS p a COUNT 0
LPOS p a COUNT 1
LPOS p a COUNT 2
LPOS p a COUNT 100
LPOS p nomatch COUNT 0
LPOS p a COUNT -1
LPOS p a COUNT x
LPOS p a COUNT 0 RANK 2
LPOS p a COUNT 2 RANK -1
LPOS p a COUNT 0 RANK -2
LPOS p a MAXLEN 1
LPOS p a MAXLEN 3
LPOS p c MAXLEN 3
LPOS p c MAXLEN 2
LPOS p a COUNT 0 MAXLEN 4
LPOS p a COUNT 0 MAXLEN 4 RANK -1
LPOS p a MAXLEN 0
LPOS p a MAXLEN -1
LPOS p a MAXLEN x
LPOS p a RANK
LPOS p a COUNT
LPOS p a MAXLEN
LPOS p a BOGUS 1
LPOS p a rank 2 count 1 maxlen 7
LPOS p a RANK 1 RANK 2
LPOS p a COUNT 1 COUNT 0
LPOS p
LPOS nokey a
LPOS nokey a COUNT 1
LPOS nokey a RANK 0
LPOS nokey a BOGUS
LPOS str a
LPOS str a COUNT 1
LPOS str a RANK 0
LPOS p ""
RPUSH p ""
LPOS p ""
# LMPOP
RPUSH m1 a b c d e
RPUSH m2 x y
LMPOP 1 m1 LEFT
LMPOP 1 m1 RIGHT
LMPOP 1 m1 LEFT COUNT 2
LRANGE m1 0 -1
LMPOP 2 nokey m2 RIGHT COUNT 10
EXISTS m2
LMPOP 2 nokey m2 LEFT
LMPOP 3 nokey m1 m2 left count 1
LMPOP 2 m1 str LEFT
LMPOP 2 str m1 LEFT
LMPOP 2 nokey str LEFT
LMPOP 0 m1 LEFT
LMPOP -1 m1 LEFT
LMPOP x m1 LEFT
LMPOP 1.5 m1 LEFT
LMPOP 3 m1 LEFT
LMPOP 2 m1 LEFT
LMPOP 1 m1 UP
LMPOP 1 m1 LEFT COUNT 0
LMPOP 1 m1 LEFT COUNT -1
LMPOP 1 m1 LEFT COUNT x
LMPOP 1 m1 LEFT COUNT
LMPOP 1 m1 LEFT COUNT 1 COUNT 1
LMPOP 1 m1 LEFT BOGUS
LMPOP 1 m1 LEFT COUNT 9223372036854775807
EXISTS m1
LMPOP 1 m1
LMPOP 1
LMPOP 1 nokey LEFT COUNT 0
RPUSH m3 \x00 \xff
LMPOP 1 m3 RIGHT COUNT 1
LMPOP 1 m3 RIGHT COUNT 1
LMPOP 1 m3 RIGHT COUNT 1
# keys that expire
RPUSH gone a b
PEXPIRE gone 50
!sleep 100
LPUSHX gone x
RPUSHX gone x
RPOPLPUSH gone dst2
LPOS gone a
LPOS gone a COUNT 0
LMPOP 2 gone m3 LEFT
EXISTS gone dst2
RPUSH gone2 a
PEXPIRE gone2 50
RPUSH dst3 z
!sleep 100
RPOPLPUSH dst3 gone2
LRANGE gone2 0 -1
TTL gone2
# moving a list's only element onto itself keeps the key (and its TTL)
RPUSH solo a
EXPIRE solo 100
RPOPLPUSH solo solo
TTL solo
LMOVE solo solo LEFT RIGHT
TTL solo
LRANGE solo 0 -1
# WATCH: changes that are none
RPUSH w a
WATCH w nolist
LPUSHX nolist a
RPOPLPUSH nolist w
LMPOP 1 nolist LEFT
LPOS w a
MULTI
PING
EXEC
WATCH w
LMPOP 1 w LEFT
MULTI
PING
EXEC
"#;

const HASHES_MORE: &str = r#"
HSET h f1 hello f2 "" f3 12345 f4 \x00\xff
HSTRLEN h f1
HSTRLEN h f2
HSTRLEN h f3
HSTRLEN h f4
HSTRLEN h nofield
HSTRLEN nokey f
HSTRLEN h
HSTRLEN h f1 f2
SET str v
HSTRLEN str f
HINCRBY h n -12
HSTRLEN h n
# HRANDFIELD: Redis picks at random unless the answer is forced
HSET one only value
HRANDFIELD one
HRANDFIELD one 1
HRANDFIELD one 1 WITHVALUES
HRANDFIELD one -3
HRANDFIELD one -3 WITHVALUES
HRANDFIELD one 5 withvalues
HRANDFIELD h 0
HRANDFIELD h 0 WITHVALUES
HRANDFIELD h -0
HRANDFIELD h 5
HRANDFIELD h 100 WITHVALUES
HRANDFIELD h 9223372036854775807
HRANDFIELD h 2
HRANDFIELD h 3 WITHVALUES
HRANDFIELD h -2
HRANDFIELD h -7 WITHVALUES
HRANDFIELD h 1
HRANDFIELD h
HRANDFIELD nokey
HRANDFIELD nokey 5
HRANDFIELD nokey -5 WITHVALUES
HRANDFIELD nokey 0
HRANDFIELD nokey x
HRANDFIELD nokey 1 BOGUS
HRANDFIELD str
HRANDFIELD str 1
HRANDFIELD str x
HRANDFIELD h x
HRANDFIELD h 1.5
HRANDFIELD h ""
HRANDFIELD h 1 BOGUS
HRANDFIELD h 1 WITHVALUES extra
HRANDFIELD h -9223372036854775808
HRANDFIELD h 9223372036854775808
HRANDFIELD h 4611686018427387904 WITHVALUES
HRANDFIELD h -4611686018427387904 WITHVALUES
HRANDFIELD h 4611686018427387903 WITHVALUES
HRANDFIELD h x WITHVALUES
HRANDFIELD
# HSCAN: small hashes come in one page, in insertion order
HSCAN h 0
HSCAN h 0 COUNT 1
HSCAN h 0 MATCH f*
HSCAN h 0 MATCH f[12]
HSCAN h 0 MATCH nomatch
HSCAN h 0 MATCH *1 COUNT 100
HSCAN h 0 COUNT 0
HSCAN h 0 COUNT -1
HSCAN h 0 COUNT x
HSCAN h 0 COUNT
HSCAN h 0 MATCH
HSCAN h 0 TYPE hash
HSCAN h 0 NOVALUES
HSCAN h 0 BOGUS 1
HSCAN h x
HSCAN h -1
HSCAN h 18446744073709551615
HSCAN h 18446744073709551616
HSCAN h ""
HSCAN h
HSCAN nokey 0
HSCAN nokey 0 COUNT 0
HSCAN nokey x
HSCAN str 0
HSCAN str x
HSCAN str 0 COUNT 0
HDEL h f2
HSET h f2 back
HSCAN h 0
HRANDFIELD h 10 WITHVALUES
HSET th f v
EXPIRE th 100
HSTRLEN th f
HRANDFIELD th
TTL th
# keys that expire
HSET gone f v
PEXPIRE gone 50
!sleep 100
HSTRLEN gone f
HRANDFIELD gone
HRANDFIELD gone 2 WITHVALUES
HSCAN gone 0
EXISTS gone
"#;

const SETS_MORE: &str = r#"
SADD s a b c
SMISMEMBER s a x c
SMISMEMBER s x
SMISMEMBER nokey a b
SMISMEMBER s
SET str v
SMISMEMBER str a
# SMOVE
SADD d x
SMOVE s d a
SMOVE s d a
SMOVE s d nomember
SISMEMBER d a
SCARD s
SMOVE s s b
SMOVE s s nomember
SMOVE nokey d a
SMOVE nokey str a
SMOVE str d a
SMOVE s str b
SMOVE d str nomember
SMOVE s fresh b
SMEMBERS fresh
SADD d b
SMOVE fresh d b
EXISTS fresh
SCARD d
SMOVE s d c
EXISTS s
SMOVE s d
SMOVE a b c d
SADD ts m
EXPIRE ts 100
SADD td n
EXPIRE td 200
SMOVE ts td m
EXISTS ts
TTL td
# SPOP: random unless the count covers the set
SADD one only
SPOP one
EXISTS one
SADD one only
SPOP one 1
EXISTS one
SADD one only
SPOP one 5
EXISTS one
SPOP nokey
SPOP nokey 0
SPOP nokey 5
SPOP nokey -1
SPOP nokey x
SPOP str
SPOP str 1
SPOP str -1
SADD p a b c d
SPOP p 0
SPOP p -1
SPOP p x
SPOP p 1.5
SPOP p 1 2
SPOP p ""
SCARD p
SPOP p 9223372036854775807
EXISTS p
# Random picks leave the two servers with different members: only sizes after them.
SADD p a b c d e
SPOP p 2
SCARD p
SPOP p
SCARD p
SPOP p 1
SCARD p
DEL p
SADD p 3 1 2 -5
SPOP p 100
EXISTS p
SADD tp a b
EXPIRE tp 100
SPOP tp 1
TTL tp
SPOP
# SRANDMEMBER
SADD one only
SRANDMEMBER one
SRANDMEMBER one 1
SRANDMEMBER one -4
SRANDMEMBER one 3
SADD r a b c 1 2
SRANDMEMBER r 0
SRANDMEMBER r -0
SRANDMEMBER r 5
SRANDMEMBER r 100
SRANDMEMBER r 2
SRANDMEMBER r -8
SRANDMEMBER r 1
SRANDMEMBER r
SADD ri 5 -1 10 3
SRANDMEMBER ri 4
SRANDMEMBER ri 9223372036854775807
SRANDMEMBER ri 3
SRANDMEMBER r x
SRANDMEMBER r 1.5
SRANDMEMBER r 1 2
SRANDMEMBER r -9223372036854775808
SRANDMEMBER r 9223372036854775808
SRANDMEMBER nokey
SRANDMEMBER nokey 5
SRANDMEMBER nokey -5
SRANDMEMBER nokey x
SRANDMEMBER str
SRANDMEMBER str 2
SRANDMEMBER str x
SRANDMEMBER
# SINTER, SUNION, SDIFF and their STORE forms
DEL s d
SADD s1 a b c d
SADD s2 c d e
SADD s3 d e f
SADD i1 1 2 3 4
SADD i2 3 4 5
SINTER s1 s2
SINTER s1 s2 s3
SINTER s1
SINTER s1 nokey
SINTER nokey s1
SINTER s1 s1
SINTER i1 i2
SINTER i1 s1
SINTER s1 str
SINTER nokey str
SINTER str nokey
SINTER
SUNION s1 s2
SUNION s1 s2 s3
SUNION s1 nokey
SUNION nokey
SUNION i1 i2
SUNION i1 s1
SUNION s1 str
SUNION nokey str
SUNION
SDIFF s1 s2
SDIFF s1 s2 s3
SDIFF s2 s1
SDIFF s1 s1
SDIFF s1 nokey
SDIFF nokey s1
SDIFF i1 i2
SDIFF i1 s1
SDIFF s1 str
SDIFF str s1
SDIFF nokey str
SDIFF
SINTERSTORE dst s1 s2
SMEMBERS dst
SINTERSTORE dst s1 s2 s3
SMEMBERS dst
SINTERSTORE dst s1 nokey
EXISTS dst
SINTERSTORE dst nokey
SINTERSTORE dst s1 str
SINTERSTORE dst nokey str
SINTERSTORE str s1 s2
TYPE str
SMEMBERS str
SET str v
SINTERSTORE dst
SINTERSTORE s1 s1 s2
SMEMBERS s1
SADD s1 a b
SUNIONSTORE dst s1 s2
SMEMBERS dst
SUNIONSTORE dst nokey
EXISTS dst
SUNIONSTORE dst s1 str
SUNIONSTORE str s2 s3
TYPE str
SET str v
SUNIONSTORE dst
SDIFFSTORE dst s1 s2
SMEMBERS dst
SDIFFSTORE dst s1 s1
EXISTS dst
SDIFFSTORE dst nokey s1
SDIFFSTORE dst s1 str
SDIFFSTORE str s3 s2
SMEMBERS str
SET str v
SDIFFSTORE dst
SET ttl v EX 100
SUNIONSTORE ttl s1
TTL ttl
SMEMBERS ttl
RPUSH list a
SDIFFSTORE list s1 s1
EXISTS list
SINTERSTORE i3 i1 i2
SMEMBERS i3
# SINTERCARD
SINTERCARD 2 s1 s2
SINTERCARD 3 s1 s2 s3
SINTERCARD 1 s1
SINTERCARD 2 s1 nokey
SINTERCARD 2 s1 s2 LIMIT 1
SINTERCARD 1 s1 LIMIT 0
SINTERCARD 1 s1 LIMIT 100
SINTERCARD 1 s1 LIMIT 2
SINTERCARD 1 s1 LIMIT -1
SINTERCARD 1 s1 LIMIT x
SINTERCARD 1 s1 LIMIT
SINTERCARD 1 s1 BOGUS
SINTERCARD 1 s1 LIMIT 1 LIMIT 2
SINTERCARD 0 s1
SINTERCARD -1 s1
SINTERCARD x s1
SINTERCARD 3 s1 s2
SINTERCARD 9223372036854775807 s1
SINTERCARD 2 s1 str
SINTERCARD 2 nokey str
SINTERCARD 1
SINTERCARD
# SSCAN
SSCAN s1 0
SSCAN i1 0
SSCAN i1 0 MATCH 1*
SSCAN s1 0 MATCH a*
SSCAN s1 0 MATCH nomatch
SSCAN s1 0 COUNT 100
SSCAN s1 0 COUNT 0
SSCAN s1 0 COUNT -1
SSCAN s1 0 COUNT x
SSCAN s1 0 COUNT
SSCAN s1 0 TYPE set
SSCAN s1 0 BOGUS x
SSCAN s1 x
SSCAN s1
SSCAN nokey 0
SSCAN nokey x
SSCAN str 0
SSCAN str x
!sscan s1
!sscan i1 COUNT 1
!sscan s2 MATCH [ce]
# keys that expire
SADD gone a b
PEXPIRE gone 50
SADD keep a c
!sleep 100
SMISMEMBER gone a
SMOVE gone keep a
SMOVE keep gone c
TTL gone
SMEMBERS gone
SINTER keep gone
SUNION keep gone
SDIFF gone keep
SINTERCARD 2 keep gone
SPOP gone 5
SRANDMEMBER gone 3
SSCAN gone 0
SADD gone2 x
PEXPIRE gone2 50
SADD gone3 y
PEXPIRE gone3 50
!sleep 100
SUNIONSTORE gone2 keep
TTL gone2
SPOP gone2 1
SINTERSTORE dst keep gone3
SPOP gone3
SRANDMEMBER gone3
# WATCH: changes that are none
SADD w a b
WATCH w nokey2
SADD w a
SMOVE w w a
SMOVE w nokey3 nomember
SPOP w 0
SINTERSTORE nokey2 w nokey
SDIFFSTORE nokey2 w w
SMISMEMBER w a
MULTI
PING
EXEC
WATCH w
SADD w a c
MULTI
PING
EXEC
WATCH nokey2
SUNIONSTORE nokey2 w
MULTI
PING
EXEC
"#;

const ZSETS_MORE: &str = r#"
# BYLEX: members of one score, in byte order
ZADD lex 0 a 0 b 0 c 0 d 0 e 0 "" 0 \x00 0 aa 0 \xff
ZRANGEBYLEX lex - +
ZRANGEBYLEX lex + -
ZRANGEBYLEX lex [a [c
ZRANGEBYLEX lex (a (c
ZRANGEBYLEX lex (a [c
ZRANGEBYLEX lex [aa +
ZRANGEBYLEX lex - (b
ZRANGEBYLEX lex [ [a
ZRANGEBYLEX lex ( +
ZRANGEBYLEX lex [c [a
ZRANGEBYLEX lex [b [b
ZRANGEBYLEX lex (b (b
ZRANGEBYLEX lex - + LIMIT 1 2
ZRANGEBYLEX lex - + LIMIT 0 -1
ZRANGEBYLEX lex - + LIMIT -1 2
ZRANGEBYLEX lex - + LIMIT 2 0
ZRANGEBYLEX lex - + LIMIT 100 1
ZRANGEBYLEX lex - + LIMIT x 1
ZRANGEBYLEX lex - + LIMIT 1
ZRANGEBYLEX lex - + WITHSCORES
ZRANGEBYLEX lex - + BOGUS
ZRANGEBYLEX lex a +
ZRANGEBYLEX lex - c
ZRANGEBYLEX lex "" +
ZRANGEBYLEX lex -a +
ZRANGEBYLEX lex - ++
ZRANGEBYLEX nokey - +
ZRANGEBYLEX nokey a +
ZRANGEBYLEX lex -
ZREVRANGEBYLEX lex + -
ZREVRANGEBYLEX lex - +
ZREVRANGEBYLEX lex [c [a
ZREVRANGEBYLEX lex (c (a
ZREVRANGEBYLEX lex + - LIMIT 1 3
ZREVRANGEBYLEX lex + [b LIMIT 0 -5
ZREVRANGEBYLEX lex [a +
ZREVRANGEBYLEX lex c -
ZREVRANGEBYLEX lex + - WITHSCORES
ZLEXCOUNT lex - +
ZLEXCOUNT lex [a [c
ZLEXCOUNT lex (a (c
ZLEXCOUNT lex + -
ZLEXCOUNT lex [c [a
ZLEXCOUNT lex a c
ZLEXCOUNT nokey - +
ZLEXCOUNT nokey a b
ZLEXCOUNT lex - + extra
ZRANGE lex - + BYLEX
ZRANGE lex [b (e BYLEX
ZRANGE lex + - BYLEX REV
ZRANGE lex (e [b BYLEX REV LIMIT 1 2
ZRANGE lex [b (e BYLEX LIMIT 1 1
ZRANGE lex - + BYLEX WITHSCORES
ZRANGE lex - + BYLEX BYSCORE
ZRANGE lex - + BYSCORE BYLEX
ZRANGE lex 0 1 BYLEX
ZRANGE lex - + REV BYLEX
ZRANGE lex - + bylex limit 0 2
ZRANGE lex 0 -1 LIMIT 0 -1
ZRANGE lex 0 -1 LIMIT 0 1
ZREMRANGEBYLEX lex [a [b
ZREMRANGEBYLEX lex (d +
ZREMRANGEBYLEX lex x +
ZREMRANGEBYLEX lex + -
ZREMRANGEBYLEX nokey - +
ZRANGE lex 0 -1
ZREMRANGEBYLEX lex - +
EXISTS lex
# mixed scores: the walk is Redis's
ZADD mix 1 b 2 a 3 c
ZRANGEBYLEX mix - +
ZRANGEBYLEX mix [a [b
ZRANGEBYLEX mix [b [c
ZLEXCOUNT mix [a [c
ZREVRANGEBYLEX mix [c [a
ZREMRANGEBYLEX mix [b [b
ZRANGE mix 0 -1
# Redis first checks the last member (by position) against min, the first against max
ZADD mix2 1 b 2 c 3 a
ZRANGEBYLEX mix2 [b +
ZRANGEBYLEX mix2 - [a
ZRANGEBYLEX mix2 - [b
ZREVRANGEBYLEX mix2 + [b
ZREVRANGEBYLEX mix2 [c -
ZRANGE mix2 [b + BYLEX
ZRANGE mix2 + [b BYLEX REV
ZLEXCOUNT mix2 [b +
ZLEXCOUNT mix2 [a +
ZRANGESTORE dst mix2 [b + BYLEX
ZRANGEBYLEX mix2 [c [b
ZRANGEBYLEX mix2 (b [b
ZRANGEBYLEX mix2 [b (b
ZRANGEBYLEX mix2 - -
ZRANGEBYLEX mix2 + +
ZRANGEBYLEX mix2 + -
ZLEXCOUNT mix2 [b [b
ZREMRANGEBYLEX mix2 [b +
ZREMRANGEBYLEX mix2 ( +
ZRANGE mix2 0 -1
ZADD mix3 1 m 2 "" 3 a
ZREMRANGEBYLEX mix3 ( +
ZREMRANGEBYLEX mix3 [ +
ZRANGE mix3 0 -1
SET str v
ZRANGEBYLEX str - +
ZREVRANGEBYLEX str + -
ZLEXCOUNT str - +
ZREMRANGEBYLEX str - +
ZRANGEBYLEX str a b
# ZRANGESTORE
ZADD z 1 a 2 b 3 c 4 d 5 e
ZRANGESTORE dst z 0 -1
ZRANGE dst 0 -1 WITHSCORES
ZRANGESTORE dst z 1 2
ZRANGE dst 0 -1 WITHSCORES
ZRANGESTORE dst z 0 -1 REV
ZRANGESTORE dst z (1 4 BYSCORE
ZRANGE dst 0 -1 WITHSCORES
ZRANGESTORE dst z 4 (1 BYSCORE REV LIMIT 1 2
ZRANGE dst 0 -1 WITHSCORES
ZRANGESTORE dst z [b [d BYLEX
ZRANGESTORE dst z - + BYLEX LIMIT 0 1
ZRANGE dst 0 -1 WITHSCORES
ZRANGESTORE dst z 5 10
EXISTS dst
ZRANGESTORE dst z 0 -1 WITHSCORES
ZRANGESTORE dst z 0 -1 LIMIT 0 1
ZRANGESTORE dst z x 1
ZRANGESTORE dst z x 1 BYSCORE
ZRANGESTORE dst z a b BYLEX
ZRANGESTORE dst z 0 -1 BOGUS
ZRANGESTORE dst nokey 0 -1
ZRANGESTORE str z 0 1
TYPE str
ZRANGE str 0 -1 WITHSCORES
SET str v
ZRANGESTORE dst str 0 -1
ZRANGESTORE str nokey 0 -1
EXISTS str
SET str v
ZRANGESTORE z z 0 1
ZRANGE z 0 -1 WITHSCORES
ZADD z 3 c 4 d 5 e
SET ttl v EX 100
ZRANGESTORE ttl z 0 0
TTL ttl
ZRANGESTORE dst z 0
ZRANGESTORE dst
SADD set a
ZRANGESTORE dst set 0 -1
# ZINCRBY
ZINCRBY z 1 a
ZINCRBY z -1.5 a
ZINCRBY z 1 new
ZINCRBY z x a
ZINCRBY z nan a
ZINCRBY z inf a
ZINCRBY z -inf a
ZINCRBY z 1 a
ZINCRBY z 0 a
ZINCRBY z 1e308 b
ZINCRBY z 1e308 b
ZINCRBY z -0 neg
ZSCORE z neg
ZINCRBY fresh 2.5 m
ZRANGE fresh 0 -1 WITHSCORES
ZINCRBY str 1 a
ZINCRBY z 1
ZINCRBY z 1 a b
ZINCRBY z "" a
# ZRANK, ZREVRANK, ZMSCORE
ZRANGE z 0 -1 WITHSCORES
ZRANK z a
ZRANK z c
ZRANK z nomember
ZRANK nokey a
ZRANK str a
ZRANK z
ZRANK z a WITHSCORE
ZREVRANK z a
ZREVRANK z c
ZREVRANK z nomember
ZREVRANK nokey a
ZREVRANK str a
ZMSCORE z a c nomember b
ZMSCORE z nomember
ZMSCORE nokey a b
ZMSCORE str a
ZMSCORE z
# ZPOPMIN, ZPOPMAX
DEL z
ZADD z 1 a 2 b 3 c 4 d 5 e -0 zero
ZPOPMIN z
ZPOPMAX z
ZPOPMIN z 2
ZPOPMAX z 1
ZPOPMIN z 0
ZPOPMAX z 0
ZPOPMIN z -1
ZPOPMIN z x
ZPOPMIN z 1 2
ZPOPMIN z 1.5
ZRANGE z 0 -1 WITHSCORES
ZPOPMAX z 100
EXISTS z
ZPOPMIN nokey
ZPOPMIN nokey 2
ZPOPMAX nokey 0
ZPOPMAX nokey -1
ZPOPMIN str
ZPOPMAX str 1
ZPOPMIN str x
ZPOPMIN
ZADD z 1 a inf b -inf c
ZPOPMAX z
ZPOPMIN z 9223372036854775807
EXISTS z
# ZMPOP
ZADD z1 1 a 2 b 3 c 4 d
ZADD z2 10 x 20 y
ZMPOP 1 z1 MIN
ZMPOP 1 z1 MAX
ZMPOP 1 z1 MIN COUNT 10
EXISTS z1
ZMPOP 2 z1 z2 MAX COUNT 1
ZMPOP 3 nokey z1 z2 min count 5
ZMPOP 2 nokey z1 MIN
ZMPOP 2 z2 str MIN
ZMPOP 2 str z2 MIN
ZMPOP 2 nokey str MAX
ZADD z2 1 a
ZMPOP 0 z2 MIN
ZMPOP -1 z2 MIN
ZMPOP x z2 MIN
ZMPOP 3 z2 MIN
ZMPOP 2 z2 MIN
ZMPOP 1 z2 LEFT
ZMPOP 1 z2 MIN COUNT 0
ZMPOP 1 z2 MIN COUNT -1
ZMPOP 1 z2 MIN COUNT x
ZMPOP 1 z2 MIN COUNT
ZMPOP 1 z2 MIN COUNT 1 COUNT 1
ZMPOP 1 z2 MIN BOGUS
ZMPOP 1 z2
ZMPOP 1
ZMPOP 1 nokey MAX COUNT 0
ZMPOP 1 z2 MAX COUNT 9223372036854775807
# ZRANDMEMBER
ZADD one 1.5 only
ZRANDMEMBER one
ZRANDMEMBER one 1
ZRANDMEMBER one 1 WITHSCORES
ZRANDMEMBER one -3
ZRANDMEMBER one -3 WITHSCORES
ZRANDMEMBER one 9 WITHSCORES
ZADD rz 1 a 2 b 3 c -0 d inf e
ZRANDMEMBER rz 0
ZRANDMEMBER rz 0 WITHSCORES
ZRANDMEMBER rz 5
ZRANDMEMBER rz 5 WITHSCORES
ZRANDMEMBER rz 100 WITHSCORES
ZRANDMEMBER rz 2
ZRANDMEMBER rz 3 WITHSCORES
ZRANDMEMBER rz -10
ZRANDMEMBER rz -10 WITHSCORES
ZRANDMEMBER rz 1
ZRANDMEMBER rz
ZRANDMEMBER rz x
ZRANDMEMBER rz 1 BOGUS
ZRANDMEMBER rz 1 WITHSCORES x
ZRANDMEMBER rz -9223372036854775808
ZRANDMEMBER rz 4611686018427387904 WITHSCORES
ZRANDMEMBER rz -4611686018427387904 WITHSCORES
ZRANDMEMBER nokey
ZRANDMEMBER nokey 3
ZRANDMEMBER nokey 0 WITHSCORES
ZRANDMEMBER nokey x
ZRANDMEMBER str
ZRANDMEMBER str 1
ZRANDMEMBER str x
ZRANDMEMBER
# ZSCAN
ZSCAN rz 0
ZSCAN rz 0 MATCH [ab]
ZSCAN rz 0 COUNT 1
ZSCAN rz 0 COUNT 0
ZSCAN rz 0 COUNT x
ZSCAN rz 0 MATCH
ZSCAN rz 0 TYPE zset
ZSCAN rz x
ZSCAN nokey 0
ZSCAN str 0
ZSCAN str x
ZSCAN rz
ZADD scores 1.1 a 0.1 b 1e21 c -1e-5 d 123456789.5 e 3 f
ZSCAN scores 0
# keys that expire
ZADD gone 1 a 2 b
PEXPIRE gone 50
ZADD keep 1 a 3 c
!sleep 100
ZRANGEBYLEX gone - +
ZLEXCOUNT gone - +
ZRANK gone a
ZMSCORE gone a
ZRANDMEMBER gone 2
ZSCAN gone 0
ZINCRBY gone 1 a
TTL gone
ZRANGE gone 0 -1 WITHSCORES
ZADD gone2 1 x
PEXPIRE gone2 50
ZADD gone3 1 x
PEXPIRE gone3 50
!sleep 100
ZUNION 2 keep gone2 WITHSCORES
ZINTERCARD 2 keep gone2
ZRANGESTORE gone2 keep 0 -1
TTL gone2
ZMPOP 2 gone3 gone2 MAX
ZPOPMIN gone3
ZDIFFSTORE gone3 2 keep gone2
EXISTS gone3
# WATCH: changes that are none
ZADD w 1 a 2 b
WATCH w nokey2
ZADD w 1 a
ZADD w XX 5 nomember
ZADD w NX 5 a
ZADD w GT 0 a
ZINCRBY w 0 a
ZADD w -0 a
ZPOPMIN w 0
ZRANGESTORE nokey2 w 5 10
ZUNIONSTORE nokey2 1 nokey
ZREMRANGEBYLEX w [x [y
MULTI
PING
EXEC
WATCH w
ZADD w CH 1 a 3 b
MULTI
PING
EXEC
WATCH w
ZINCRBY w 1 a
MULTI
PING
EXEC
"#;

const ZSET_ALGEBRA: &str = r#"
ZADD za 1 a 2 b 3 c
ZADD zb 10 b 20 c 30 d
SADD sa a d x
SET str v
ZUNION 2 za zb
ZUNION 2 za zb WITHSCORES
ZUNION 1 za WITHSCORES
ZADD zbig 1 m 2 n 3 o
ZADD zmid inf m 1 n
ZADD zsmall -inf m
ZUNION 3 zbig zmid zsmall WITHSCORES
ZUNION 3 zsmall zbig zmid WITHSCORES
ZUNIONSTORE zinf 3 zbig zmid zsmall
ZRANGE zinf 0 -1 WITHSCORES
ZUNION 2 za nokey WITHSCORES
ZUNION 1 nokey
ZUNION 2 za sa WITHSCORES
ZUNION 3 za zb sa WEIGHTS 1 2 3 WITHSCORES
ZUNION 2 za zb WEIGHTS 2 WITHSCORES
ZUNION 2 za zb WEIGHTS 1 x
ZUNION 2 za zb WEIGHTS 1 nan WITHSCORES
ZUNION 2 za zb WEIGHTS inf 1 WITHSCORES
ZUNION 2 za zb WEIGHTS inf -inf WITHSCORES
ZUNION 2 za zb WEIGHTS -0 0 WITHSCORES
ZUNION 2 za zb WEIGHTS 0 0 WITHSCORES
ZUNION 2 za zb AGGREGATE MIN WITHSCORES
ZUNION 2 za zb AGGREGATE MAX WITHSCORES
ZUNION 2 za zb AGGREGATE sum WITHSCORES
ZUNION 2 za zb AGGREGATE avg
ZUNION 2 za zb AGGREGATE
ZUNION 2 za zb WEIGHTS 1 2 AGGREGATE MAX WITHSCORES
ZUNION 2 za zb AGGREGATE MIN WEIGHTS 1 -1 WITHSCORES
ZUNION 2 za zb WITHSCORES WITHSCORES
ZUNION 2 za zb BOGUS
ZUNION 2 za zb LIMIT 1
ZUNION 0 za
ZUNION -1 za
ZUNION x za
ZUNION 3 za zb
ZUNION 9223372036854775807 za
ZUNION 2 za str
ZUNION 2 nokey str
ZUNION 2 str nokey WEIGHTS x
ZUNION 1
ZINTER 2 za zb
ZINTER 2 za zb WITHSCORES
ZINTER 2 za sa WITHSCORES
ZINTER 3 za zb sa WITHSCORES
ZINTER 2 zb sa WITHSCORES
ZINTER 2 za nokey WITHSCORES
ZINTER 1 za WITHSCORES
ZINTER 2 za zb WEIGHTS 2 3 WITHSCORES
ZINTER 2 za zb WEIGHTS inf -inf WITHSCORES
ZINTER 2 za zb WEIGHTS nan 1
ZINTER 2 za zb AGGREGATE MIN WITHSCORES
ZINTER 2 za zb AGGREGATE MAX WITHSCORES
ZINTER 2 za zb WEIGHTS -1 -1 AGGREGATE MAX WITHSCORES
ZINTER 2 za zb LIMIT 1
ZINTER 0 za
ZINTER 2 za str
ZINTER 2 nokey str
ZINTER 3 za zb
ZDIFF 2 za zb
ZDIFF 2 za zb WITHSCORES
ZDIFF 2 zb za WITHSCORES
ZDIFF 2 za sa WITHSCORES
ZDIFF 2 sa za WITHSCORES
ZDIFF 1 za WITHSCORES
ZDIFF 2 za za
ZDIFF 2 nokey za
ZDIFF 2 za nokey WITHSCORES
ZDIFF 2 za zb WEIGHTS 1 2
ZDIFF 2 za zb AGGREGATE MIN
ZDIFF 0 za
ZDIFF 2 za str
ZDIFF 2 str za
ZDIFF 3 za zb
# -0, inf and NaN in sums
ZADD zinf inf a -inf b -0 c 0 d
ZADD zninf -inf a inf b 0 c
ZUNION 2 zinf zninf WITHSCORES
ZINTER 2 zinf zninf WITHSCORES
ZINTER 2 zinf zninf AGGREGATE MIN WITHSCORES
ZUNION 1 zinf WEIGHTS 0 WITHSCORES
ZUNION 1 zinf WEIGHTS -1 WITHSCORES
ZUNION 1 zinf WEIGHTS -0 WITHSCORES
ZUNION 1 zinf WITHSCORES
ZUNION 1 za WEIGHTS 1e308 WITHSCORES
ZUNION 2 za za WEIGHTS 1e308 1e308 WITHSCORES
# the STORE forms
ZUNIONSTORE dst 2 za zb
ZRANGE dst 0 -1 WITHSCORES
ZUNIONSTORE dst 2 za zb WEIGHTS 1 0.5 AGGREGATE MAX
ZRANGE dst 0 -1 WITHSCORES
ZUNIONSTORE dst 2 za sa
ZRANGE dst 0 -1 WITHSCORES
ZUNIONSTORE dst 1 nokey
EXISTS dst
ZUNIONSTORE dst 2 za zb WITHSCORES
ZUNIONSTORE dst 0 za
ZUNIONSTORE dst 2 za str
ZUNIONSTORE str 2 za zb
TYPE str
SET str v
ZINTERSTORE dst 2 za zb
ZRANGE dst 0 -1 WITHSCORES
ZINTERSTORE dst 2 za zb WEIGHTS 1 2 AGGREGATE MIN
ZRANGE dst 0 -1 WITHSCORES
ZINTERSTORE dst 2 za sa
ZRANGE dst 0 -1 WITHSCORES
ZINTERSTORE dst 2 za nokey
EXISTS dst
ZINTERSTORE dst 2 za zb WITHSCORES
ZINTERSTORE dst 2 str za
ZINTERSTORE str 2 za zb
TYPE str
SET str v
ZDIFFSTORE dst 2 za zb
ZRANGE dst 0 -1 WITHSCORES
ZDIFFSTORE dst 2 sa za
ZRANGE dst 0 -1 WITHSCORES
ZDIFFSTORE dst 2 za za
EXISTS dst
ZDIFFSTORE dst 2 za zb WEIGHTS 1 1
ZDIFFSTORE dst 2 za zb WITHSCORES
ZDIFFSTORE dst 0 za
ZDIFFSTORE dst 2 za str
ZDIFFSTORE str 1 za
TYPE str
SET str v
SET ttl v EX 100
ZUNIONSTORE ttl 1 za
TTL ttl
ZUNIONSTORE za 2 za zb
ZRANGE za 0 -1 WITHSCORES
ZINTERSTORE dst 1
ZUNIONSTORE dst
ZDIFFSTORE dst 1
ZUNIONSTORE dst 3 za zb
# ZINTERCARD
ZADD za 1 a
ZINTERCARD 2 za zb
ZINTERCARD 1 za
ZINTERCARD 2 za sa
ZINTERCARD 2 za nokey
ZINTERCARD 2 za zb LIMIT 1
ZINTERCARD 2 za zb LIMIT 0
ZINTERCARD 2 za zb LIMIT 100
ZINTERCARD 2 za zb LIMIT -1
ZINTERCARD 2 za zb LIMIT x
ZINTERCARD 2 za zb LIMIT
ZINTERCARD 2 za zb WEIGHTS 1 2
ZINTERCARD 2 za zb AGGREGATE MIN
ZINTERCARD 2 za zb WITHSCORES
ZINTERCARD 0 za
ZINTERCARD -1 za
ZINTERCARD x za
ZINTERCARD 3 za zb
ZINTERCARD 2 za str
ZINTERCARD 2 nokey str
ZINTERCARD 1
"#;

/// INCRBYFLOAT and HINCRBYFLOAT: x87 long double arithmetic and `%.17Lf` printing.
const FLOATS: &str = r#"
INCRBYFLOAT f 10.5
INCRBYFLOAT f 0.1
INCRBYFLOAT f -5.0e3
INCRBYFLOAT f 5.0e3
INCRBYFLOAT f 0.1
INCRBYFLOAT f 0.2
INCRBYFLOAT g 0.1
INCRBYFLOAT g 0.2
INCRBYFLOAT g 1e-20
INCRBYFLOAT h 1e30
INCRBYFLOAT h -1e30
INCRBYFLOAT h 0x1p4
INCRBYFLOAT h 0X1.8P1
INCRBYFLOAT h .5
INCRBYFLOAT h 5.
INCRBYFLOAT h +3
INCRBYFLOAT h -0
INCRBYFLOAT i 3.14159265358979323846264338327950288
INCRBYFLOAT i 1.1e-10
INCRBYFLOAT j 123456789012345678901234567890
INCRBYFLOAT j 0.000001
INCRBYFLOAT k 1e4932
INCRBYFLOAT k 1e4932
GET k
INCRBYFLOAT k 1e5000
INCRBYFLOAT k inf
INCRBYFLOAT k -inf
INCRBYFLOAT k nan
INCRBYFLOAT k abc
INCRBYFLOAT k ""
INCRBYFLOAT k \s1
INCRBYFLOAT k 1\s
INCRBYFLOAT k 1e
INCRBYFLOAT k 1e-5000
SET s abc
INCRBYFLOAT s 1
SET n 10
INCRBYFLOAT n 0.5
SET t 1 EX 100
INCRBYFLOAT t 1
TTL t
LPUSH l a
INCRBYFLOAT l 1
SET big 1e4932
INCRBYFLOAT big 1e4932
HINCRBYFLOAT hf a 10.5
HINCRBYFLOAT hf a 0.1
HINCRBYFLOAT hf b 1e30
HINCRBYFLOAT hf a inf
HINCRBYFLOAT hf a nan
HINCRBYFLOAT hf a x
HSET hf s abc
HINCRBYFLOAT hf s 1
HSET hf i 7
HINCRBYFLOAT hf i 0.25
HINCRBYFLOAT hf i -0.25
HGETALL hf
HSET hf m 1e4932
HINCRBYFLOAT hf m 1e4932
HSET hf inf inf
HINCRBYFLOAT hf inf 1
SET sinf -inf
INCRBYFLOAT sinf 1
INCRBYFLOAT sinf x
HINCRBYFLOAT l a 1
HINCRBYFLOAT nohash f 2.5
HGETALL nohash
MULTI
INCRBYFLOAT f 1
HINCRBYFLOAT hf a 1
EXEC
"#;

/// A script past its time limit: its caller waits, other clients are answered BUSY but
/// for the commands Redis allows, SCRIPT KILL ends it. The real server's limit is
/// lowered to 50 ms so that it is busy by the time the next line runs (the model is
/// busy at once: its budget is instructions).
const BUSY_SCRIPT: &str = r#"
CONFIG SET busy-reply-threshold 50
SET k v
!send EVAL while\strue\sdo\send 0
!sleep 300
@2 GET k
@2 PING
@2 MULTI
@2 GET k
@2 EXEC
@2 WATCH k
@2 UNWATCH
@2 SCRIPT KILL
!recv
@2 SCRIPT KILL
@2 GET k
!send EVAL local\si=0\swhile\strue\sdo\si=i+1\send 0
!sleep 300
@2 EVAL return\s1 0
@2 SCRIPT FLUSH
@2 SCRIPT KILL
!recv
# A script that runs past the threshold and ends: BUSY meanwhile, then its reply (the
# model's instruction budget stopped it before: no reply ever).
!send EVAL local\si=0\swhile\si<12000000\sdo\si=i+1\send\sreturn\si 0
!sleep 100
@2 GET k
!recv
DEBUG SLEEP 0
DEBUG SLEEP 0.05
DEBUG SLEEP abc
CONFIG SET busy-reply-threshold 5000
"#;

/// INFO's sections and the fields the model keeps, against Redis's.
const INFO: &str = r#"
INFO
INFO server
INFO SERVER
INFO clients
INFO memory
INFO persistence
INFO stats
INFO replication
INFO cpu
INFO keyspace
INFO errorstats
INFO default
INFO all
INFO nosuchsection
INFO clients keyspace
SET a 1
SET b 2 EX 100
SELECT 2
HSET h f v
SELECT 0
INFO keyspace
GET nokey
LPUSH a x
INCR b
INCR nokey extra
INFO errorstats
CONFIG RESETSTAT
INFO errorstats
INCR nokey extra
INFO errorstats
SCRIPT LOAD return\s1
INFO memory
!send BLPOP q 0
@2 INFO clients
@2 RPUSH q x
!recv
@2 INFO clients
"#;

const QUIT: &str = r#"
SET a 1
MULTI
PING
QUIT x
"#;

#[test]
fn connection_commands() {
    run_both_protocols(&[CONNECTION, QUIT]);
}

#[test]
fn more_edge_cases() {
    run_both_protocols(&[MORE_EDGES]);
}

#[test]
fn keyspace_commands() {
    run_both_protocols(&[KEYS]);
}

#[test]
fn string_commands() {
    run_both_protocols(&[STRINGS]);
}

#[test]
fn list_and_hash_commands() {
    run_both_protocols(&[LISTS, HASHES]);
}

#[test]
fn set_and_sorted_set_commands() {
    run_both_protocols(&[SETS, ZSETS]);
}

#[test]
fn transactions_and_expiry() {
    run_both_protocols(&[TRANSACTIONS, EXPIRY]);
}

#[test]
fn more_string_and_keyspace_commands() {
    run_both_protocols(&[STRINGS_MORE, KEYSPACE_MORE]);
}

#[test]
fn config_get_and_set() {
    run_both_protocols(&[CONFIG]);
}

#[test]
fn float_increments() {
    run_both_protocols(&[FLOATS]);
}

#[test]
fn info_sections_and_fields() {
    // Fresh servers: errorstats count from here.
    let mut diff = Diff::start();
    diff.reconnect();
    run_script(&mut diff, INFO);
}

#[test]
fn a_busy_script() {
    run_both_protocols(&[BUSY_SCRIPT]);
}

#[test]
fn blocking_commands() {
    run_both_protocols(&[BLOCKING]);
}

#[test]
fn watch_of_stale_keys_with_active_expiry_off() {
    run_both_protocols(&[STALE_WATCH]);
}

#[test]
fn scripting_commands() {
    run_both_protocols(&[SCRIPTING]);
}

#[test]
fn more_list_commands() {
    run_both_protocols(&[LISTS_MORE]);
}

#[test]
fn more_hash_commands() {
    run_both_protocols(&[HASHES_MORE]);
}

#[test]
fn more_set_commands() {
    run_both_protocols(&[SETS_MORE]);
}

#[test]
fn more_sorted_set_commands() {
    run_both_protocols(&[ZSETS_MORE, ZSET_ALGEBRA]);
}

#[test]
fn smembers_of_an_integer_set_in_order() {
    let mut diff = Diff::start();
    diff.reconnect();
    // An intset's order is sorted in Redis: compare it exactly (RESP2 arrays are ordered).
    diff.run(0, &args_of("SADD s 5 -3 10 0"));
    let redis = diff.conns[0].redis.call(&args_of("SMEMBERS s"));
    let model = diff.conns[0].model.call(&args_of("SMEMBERS s"));
    assert_eq!(
        String::from_utf8_lossy(&redis.0),
        String::from_utf8_lossy(&model.0)
    );
}

/// Replies that are sets of integers built or read as intsets come sorted in Redis:
/// compared exactly, although their norms sort (other sets are in hash order).
#[test]
fn integer_sets_in_order() {
    let mut diff = Diff::start();
    for hello in ["HELLO 2", "HELLO 3"] {
        diff.reconnect();
        diff.run(0, &args_of(hello));
        let script = [
            "SADD i1 5 -3 10 0 7",
            "SADD i2 10 -3 99 7 1000",
            "SADD i3 7 -3 12",
            "SINTER i1 i2",
            "SINTER i3 i2 i1",
            "SUNION i1 i2 i3",
            "SDIFF i1 i2",
            "SDIFF i2 i1 i3",
            "SSCAN i1 0",
            "SSCAN i2 0 MATCH 1*",
            "SRANDMEMBER i1 5",
            "SRANDMEMBER i2 100",
            "SUNIONSTORE u i1 i2",
            "SMEMBERS u",
            "SPOP u 100",
            "SPOP i3 3",
        ];
        for line in script {
            let args = args_of(line);
            diff.history.push(format!("[conn 0] {}", show(&args)));
            let redis = diff.conns[0].redis.call(&args);
            let model = diff.conns[0].model.call(&args);
            assert_eq!(
                String::from_utf8_lossy(&redis.0),
                String::from_utf8_lossy(&model.0),
                "{hello}: {line}"
            );
        }
    }
}

#[test]
fn a_mismatch_is_detected() {
    let mut diff = Diff::start();
    diff.reconnect();
    diff.run(0, &args_of("SET k v"));
    let redis = diff.conns[0].redis.call(&args_of("GET k"));
    let model = diff.conns[0].model.call(&args_of("GET nokey"));
    assert!(!equivalent(Norm::Exact, &redis, &model));
    let ttl = |n: i64| (format!(":{n}\r\n").into_bytes(), V::Int(n));
    assert!(equivalent(Norm::Within(1), &ttl(99), &ttl(100)));
    assert!(!equivalent(Norm::Within(1), &ttl(97), &ttl(100)));
    assert!(!equivalent(Norm::Within(1), &ttl(-1), &ttl(-2)));
    // Random picks: from the collection, distinct for a positive count, whole ones sorted.
    let bulks = |items: &[&str]| {
        let raw = items
            .iter()
            .map(|i| format!("${}\r\n{i}\r\n", i.len()))
            .collect::<String>();
        let raw = format!("*{}\r\n{raw}", items.len()).into_bytes();
        let list = items
            .iter()
            .map(|i| V::Str(i.as_bytes().to_vec()))
            .collect();
        (raw, V::List(b'*', list))
    };
    let pool: Vec<V> = ["a", "b", "c"]
        .iter()
        .map(|m| V::Str(m.as_bytes().to_vec()))
        .collect();
    let random = |args: &str, redis: &[&str], model: &[&str]| {
        let args = args_of(args);
        random_equivalent(&args, (&bulks(redis), &pool), (&bulks(model), &pool))
    };
    assert!(random("SRANDMEMBER s 2", &["a", "b"], &["c", "a"]));
    assert!(!random("SRANDMEMBER s 2", &["a", "b"], &["c", "x"]));
    assert!(!random("SRANDMEMBER s 2", &["a", "b"], &["c", "c"]));
    assert!(!random("SRANDMEMBER s 2", &["a", "b"], &["c"]));
    assert!(random(
        "SRANDMEMBER s -3",
        &["a", "a", "b"],
        &["c", "c", "c"]
    ));
    assert!(random(
        "SRANDMEMBER s 5",
        &["a", "b", "c"],
        &["c", "b", "a"]
    ));
    assert!(!random("SRANDMEMBER s 5", &["a", "b", "c"], &["c", "b"]));
    assert!(!random(
        "HRANDFIELD h 5",
        &["a", "b", "c"],
        &["c", "b", "a"]
    ));
}

// ---- seeded random sequences ----

const KEY_NAMES: &[&str] = &["a", "b", "l", "l2", "h", "s", "s2", "z", "z2"];
/// Keys usually holding the type of each family, so that wrong types stay occasional.
const FAMILY_KEYS: [&[&str]; 6] = [
    KEY_NAMES,
    &["a", "b"],
    &["l", "l2"],
    &["h"],
    &["s", "s2"],
    &["z", "z2"],
];
const MEMBERS: &[&str] = &["m", "n", "o", "1", "2", "", "-3"];
const VALUES: &[&str] = &[
    "v",
    "",
    "1",
    "10",
    "-5",
    "1.5",
    "abc",
    "\\x00\\xff",
    "9223372036854775807",
];
const INDEXES: &[&str] = &["-100", "-3", "-1", "0", "1", "2", "5", "100", "x"];
const SCORES: &[&str] = &[
    "0", "1", "1.1", "2", "-0.5", "1e300", "inf", "-inf", "3", "(1", "(2", "x",
];
const COUNTS: &[&str] = &["0", "1", "2", "3", "-1", "x"];
/// BYLEX bounds, valid and not.
const LEX: &[&str] = &["-", "+", "[m", "(m", "[1", "(n", "[", "(", "m", "[o"];
/// Counts of the random commands: deterministic ones, random ones, errors.
const RANDOM_COUNTS: &[&str] = &["", "", "0", "1", "2", "-2", "-5", "10", "x", "1.5"];

struct Gen {
    rng: ChaCha8Rng,
}

impl Gen {
    fn pick(&mut self, from: &[&'static str]) -> &'static str {
        from[self.rng.random_range(0..from.len())]
    }

    fn key(&mut self) -> &'static str {
        self.pick(KEY_NAMES)
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    /// 1..=n picks from `from`, space separated.
    fn some(&mut self, from: &[&'static str], n: usize) -> String {
        let count = self.rng.random_range(1..=n);
        (0..count)
            .map(|_| self.pick(from))
            .map(|s| if s.is_empty() { "\"\"" } else { s })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn pairs(&mut self, first: &[&'static str], second: &[&'static str], n: usize) -> String {
        let count = self.rng.random_range(1..=n);
        (0..count)
            .map(|_| format!("{} {}", quote(self.pick(first)), quote(self.pick(second))))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// One command; `deterministic` excludes those whose replies get normalised.
    fn command(&mut self, deterministic: bool) -> String {
        loop {
            let command = self.any_command();
            let name = command.split(' ').next().unwrap_or("").to_ascii_lowercase();
            let normalised = norm_of(&args_of(&command)) != Norm::Exact || name == "scan";
            if !(deterministic && normalised) {
                return command;
            }
        }
    }

    /// A key of the command's family (80%) or any key.
    fn family_key(&mut self, command: u32) -> &'static str {
        let family = match command {
            0..=11 => 0,
            12..=24 | 90..=93 | 100 => 1,
            25..=35 | 60..=64 | 95 => 2,
            36..=45 | 65..=67 | 94 => 3,
            46..=50 | 68..=75 => 4,
            _ => 5,
        };
        if self.chance(0.8) {
            self.pick(FAMILY_KEYS[family])
        } else {
            self.key()
        }
    }

    /// A command with bad arguments: one dropped, an extra one, or an unknown name.
    fn mangled(&mut self, deterministic: bool) -> String {
        let mut args: Vec<String> = self
            .command(deterministic)
            .split_whitespace()
            .map(str::to_string)
            .collect();
        match self.rng.random_range(0..4) {
            0 if args.len() > 1 => {
                args.pop();
            }
            1 => args.push(
                self.pick(&["extra", "9223372036854775808", "\\x00"])
                    .to_string(),
            ),
            2 => args.insert(1, self.pick(&["NX", "-1", "\"\""]).to_string()),
            _ => args[0].insert_str(0, "nope"),
        }
        args.join(" ")
    }

    fn any_command(&mut self) -> String {
        let command = self.rng.random_range(0..101);
        let k = self.family_key(command);
        let k2 = self.family_key(command);
        let v = quote(self.pick(VALUES));
        let m = quote(self.pick(MEMBERS));
        let i = self.pick(INDEXES);
        let j = self.pick(INDEXES);
        let c = self.pick(COUNTS);
        let s1 = self.pick(SCORES);
        let s2 = self.pick(SCORES);
        match command {
            0 => format!("DEL {}", self.some(KEY_NAMES, 3)),
            1 => format!("EXISTS {}", self.some(KEY_NAMES, 3)),
            2 => format!("TYPE {k}"),
            3 => format!("{} {k} {k2}", self.pick(&["RENAME", "RENAMENX"])),
            4 => "KEYS *".to_string(),
            5 => format!(
                "SCAN 0 {}",
                self.pick(&["", "MATCH [ab]", "COUNT 2", "TYPE list"])
            ),
            6 => {
                // GT/LT on relative times would compare two clock readings: see EXPIREAT.
                let flag = self.pick(&["", "NX", "XX", "NX XX", "GT LT"]);
                let secs = self.pick(&["100", "200", "1000", "0", "-1", "x"]);
                format!("{} {k} {secs} {flag}", self.pick(&["EXPIRE", "PEXPIRE"]))
            }
            7 => {
                let flag = self.pick(&["", "NX", "XX", "GT", "LT"]);
                let at = self.pick(&["4102444800", "4102444900", "1", "x"]);
                format!("{} {k} {at} {flag}", self.pick(&["EXPIREAT", "PEXPIREAT"]))
            }
            8 => format!(
                "{} {k}",
                self.pick(&["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"])
            ),
            9 => format!("PERSIST {k}"),
            10 => "DBSIZE".to_string(),
            11 if self.chance(0.1) => "FLUSHDB".to_string(),
            12 | 13 => format!("GET {k}"),
            14 | 15 => {
                let opts = self.pick(&[
                    "",
                    "",
                    "NX",
                    "XX",
                    "GET",
                    "EX 100",
                    "PX 200000",
                    "KEEPTTL",
                    "NX GET",
                    "XX EX 300",
                    "EX 100 PX 100",
                    "EX 0",
                    "EXAT 4102444800",
                    "BOGUS",
                ]);
                format!("SET {k} {v} {opts}")
            }
            16 => format!("SETNX {k} {v}"),
            17 => format!("MGET {}", self.some(KEY_NAMES, 3)),
            18 => format!("MSET {}", self.pairs(KEY_NAMES, VALUES, 2)),
            19 => format!("{} {k}", self.pick(&["INCR", "DECR"])),
            20 => format!("{} {k} {i}", self.pick(&["INCRBY", "DECRBY"])),
            21 => format!("APPEND {k} {v}"),
            22 => format!("STRLEN {k}"),
            23 => format!("GETDEL {k}"),
            24 => format!(
                "GETEX {k} {}",
                self.pick(&["", "EX 100", "PERSIST", "PX 0", "KEEPTTL"])
            ),
            25 | 26 => format!(
                "{} {k} {}",
                self.pick(&["LPUSH", "RPUSH"]),
                self.some(MEMBERS, 3)
            ),
            27 => format!(
                "{} {k} {}",
                self.pick(&["LPOP", "RPOP"]),
                self.pick(&["", "", c])
            ),
            28 => format!("LRANGE {k} {i} {j}"),
            29 => format!("LTRIM {k} {i} {j}"),
            30 => format!("LLEN {k}"),
            31 => format!("LINDEX {k} {i}"),
            32 => format!("LSET {k} {i} {m}"),
            33 => format!("LREM {k} {c} {m}"),
            34 => format!(
                "LINSERT {k} {} {m} {v}",
                self.pick(&["BEFORE", "AFTER", "X"])
            ),
            35 => {
                let from = self.pick(&["LEFT", "RIGHT"]);
                format!("LMOVE {k} {k2} {from} {}", self.pick(&["LEFT", "RIGHT"]))
            }
            36 | 37 => format!("HSET {k} {}", self.pairs(MEMBERS, VALUES, 3)),
            38 => format!("HSETNX {k} {m} {v}"),
            39 => format!("HGET {k} {m}"),
            40 => format!("HMGET {k} {}", self.some(MEMBERS, 3)),
            41 => format!("HGETALL {k}"),
            42 => format!("HDEL {k} {}", self.some(MEMBERS, 3)),
            43 => format!("{} {k}", self.pick(&["HLEN", "HKEYS", "HVALS"])),
            44 => format!("HEXISTS {k} {m}"),
            45 => format!("HINCRBY {k} {m} {i}"),
            46 | 47 => format!("SADD {k} {}", self.some(MEMBERS, 3)),
            48 => format!("SREM {k} {}", self.some(MEMBERS, 3)),
            49 => format!("{} {k}", self.pick(&["SMEMBERS", "SCARD"])),
            50 => format!("SISMEMBER {k} {m}"),
            51 | 52 => {
                let flags = self.pick(&["", "", "NX", "XX", "GT", "LT", "CH", "INCR", "GT CH"]);
                let pairs = if flags == "INCR" {
                    format!("{} {m}", self.pick(SCORES))
                } else {
                    self.pairs(SCORES, MEMBERS, 3)
                };
                format!("ZADD {k} {flags} {pairs}")
            }
            53 => format!("ZREM {k} {}", self.some(MEMBERS, 3)),
            54 => {
                let opts = self.pick(&["", "WITHSCORES", "REV", "REV WITHSCORES"]);
                format!("ZRANGE {k} {i} {j} {opts}")
            }
            55 => {
                let opts = self.pick(&["", "WITHSCORES", "LIMIT 1 2", "REV", "REV LIMIT 0 1"]);
                format!("ZRANGE {k} {s1} {s2} BYSCORE {opts}")
            }
            56 => {
                let name = self.pick(&["ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZCOUNT"]);
                format!("{name} {k} {s1} {s2}")
            }
            57 => format!("{} {k} {m}", self.pick(&["ZSCORE", "ZCARD"])),
            58 => format!("ZREMRANGEBYRANK {k} {i} {j}"),
            59 => format!("ZREMRANGEBYSCORE {k} {s1} {s2}"),
            60 => format!(
                "{} {k} {}",
                self.pick(&["LPUSHX", "RPUSHX"]),
                self.some(MEMBERS, 2)
            ),
            61 => format!("RPOPLPUSH {k} {k2}"),
            62 => {
                let opts = self.pick(&[
                    "",
                    "RANK 2",
                    "RANK -1",
                    "RANK 0",
                    "COUNT 0",
                    "COUNT 2",
                    "MAXLEN 2",
                    "RANK -2 COUNT 0 MAXLEN 3",
                    "COUNT -1",
                    "BOGUS",
                ]);
                format!("LPOS {k} {m} {opts}")
            }
            63 => {
                let end = self.pick(&["LEFT", "RIGHT", "UP"]);
                let count = self.pick(&["", "", "COUNT 2", "COUNT 10", "COUNT 0"]);
                format!("LMPOP 2 {k} {k2} {end} {count}")
            }
            64 => format!("LMPOP {} {k} LEFT", self.pick(&["1", "0", "3", "x"])),
            65 => format!("HSTRLEN {k} {m}"),
            66 => {
                let count = self.pick(RANDOM_COUNTS);
                let with = if count.is_empty() {
                    ""
                } else {
                    self.pick(&["", "WITHVALUES", "BOGUS"])
                };
                format!("HRANDFIELD {k} {count} {with}")
            }
            67 => format!(
                "HSCAN {k} {} {}",
                self.pick(&["0", "0", "1", "x"]),
                self.pick(&["", "MATCH [mn]", "COUNT 1", "COUNT 0", "MATCH"])
            ),
            68 => format!("SMISMEMBER {k} {}", self.some(MEMBERS, 3)),
            69 => format!("SMOVE {k} {k2} {m}"),
            // Only the SPOPs whose effect is forced: the whole set, none, errors.
            70 => format!(
                "SPOP {k} {}",
                self.pick(&["0", "10", "-1", "x", "9223372036854775807"])
            ),
            71 => format!("SRANDMEMBER {k} {}", self.pick(RANDOM_COUNTS)),
            72 => format!("{} {k} {k2}", self.pick(&["SINTER", "SUNION", "SDIFF"])),
            73 => format!(
                "{} {k} {k2} {}",
                self.pick(&["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]),
                self.family_key(46)
            ),
            74 => format!(
                "SINTERCARD {} {k} {k2} {}",
                self.pick(&["2", "1", "0", "3"]),
                self.pick(&["", "LIMIT 1", "LIMIT 0", "LIMIT -1"])
            ),
            75 => format!(
                "SSCAN {k} {} {}",
                self.pick(&["0", "0", "x"]),
                self.pick(&["", "MATCH [mn]", "MATCH *", "COUNT 100", "COUNT 0"])
            ),
            76 => {
                let (l1, l2) = (self.pick(LEX), self.pick(LEX));
                let name = self.pick(&["ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT"]);
                let limit = if name == "ZLEXCOUNT" {
                    ""
                } else {
                    self.pick(&["", "", "LIMIT 1 2", "LIMIT 0 -1"])
                };
                format!("{name} {k} {l1} {l2} {limit}")
            }
            77 => format!("ZREMRANGEBYLEX {k} {} {}", self.pick(LEX), self.pick(LEX)),
            78 => {
                let (l1, l2) = (self.pick(LEX), self.pick(LEX));
                let opts = self.pick(&["", "REV", "LIMIT 1 1", "REV LIMIT 0 2", "WITHSCORES"]);
                format!("ZRANGE {k} {l1} {l2} BYLEX {opts}")
            }
            79 => {
                let form = match self.rng.random_range(0..3) {
                    0 => format!("{i} {j}"),
                    1 => format!("{s1} {s2} BYSCORE"),
                    _ => format!("{} {} BYLEX", self.pick(LEX), self.pick(LEX)),
                };
                let opts = self.pick(&["", "REV", "LIMIT 0 2", "WITHSCORES"]);
                format!("ZRANGESTORE {k} {k2} {form} {opts}")
            }
            80 => format!("ZINCRBY {k} {s1} {m}"),
            81 => format!("{} {k} {m}", self.pick(&["ZRANK", "ZREVRANK"])),
            82 => format!("ZMSCORE {k} {}", self.some(MEMBERS, 3)),
            83 => format!(
                "{} {k} {}",
                self.pick(&["ZPOPMIN", "ZPOPMAX"]),
                self.pick(&["", "", c])
            ),
            84 => {
                let end = self.pick(&["MIN", "MAX", "LEFT"]);
                let count = self.pick(&["", "", "COUNT 2", "COUNT 10", "COUNT 0"]);
                format!("ZMPOP 2 {k} {k2} {end} {count}")
            }
            85 => {
                let count = self.pick(RANDOM_COUNTS);
                let with = if count.is_empty() {
                    ""
                } else {
                    self.pick(&["", "WITHSCORES", "BOGUS"])
                };
                format!("ZRANDMEMBER {k} {count} {with}")
            }
            86 | 87 => {
                let name = self.pick(&["ZUNION", "ZINTER", "ZDIFF", "ZINTERCARD"]);
                // A set now and then: its members score 1.
                let k2 = if self.chance(0.2) { "s" } else { k2 };
                let mut opts = String::new();
                if name != "ZDIFF" && name != "ZINTERCARD" {
                    opts += self.pick(&["", "", "WEIGHTS 2 -1", "WEIGHTS inf 0", "WEIGHTS x 1"]);
                    opts += " ";
                    opts += self.pick(&["", "", "AGGREGATE MIN", "AGGREGATE MAX"]);
                }
                opts += " ";
                opts += if name == "ZINTERCARD" {
                    self.pick(&["", "LIMIT 1"])
                } else {
                    self.pick(&["", "WITHSCORES"])
                };
                format!("{name} 2 {k} {k2} {opts}")
            }
            88 => {
                let name = self.pick(&["ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"]);
                let dst = self.family_key(80);
                let opts = if name == "ZDIFFSTORE" {
                    ""
                } else {
                    self.pick(&["", "WEIGHTS 1 2", "AGGREGATE MAX"])
                };
                format!("{name} {dst} 2 {k} {k2} {opts}")
            }
            89 => format!(
                "ZSCAN {k} {} {}",
                self.pick(&["0", "0", "x"]),
                self.pick(&["", "MATCH [mn]", "COUNT 1", "COUNT 0"])
            ),
            90 => {
                // Seconds and milliseconds alike far from expiring while a sequence runs.
                let name = self.pick(&["SETEX", "PSETEX"]);
                let ttl = self.pick(&["1000", "2000000", "0", "-1", "x"]);
                format!("{name} {k} {ttl} {v}")
            }
            91 => match self.rng.random_range(0..3) {
                0 => format!("GETSET {k} {v}"),
                1 => format!("MSETNX {}", self.pairs(KEY_NAMES, VALUES, 2)),
                _ => format!("GETRANGE {k} {i} {j}"),
            },
            92 => format!(
                "SETRANGE {k} {} {v}",
                self.pick(&["0", "1", "3", "-1", "x"])
            ),
            93 => {
                let by = self.pick(&["0.1", "-1.5", "1e3", "3", "x", "inf", "0x10", "-0"]);
                format!("INCRBYFLOAT {k} {by}")
            }
            94 => {
                let by = self.pick(&["0.1", "-1.5", "1e3", "3", "x", "inf"]);
                format!("HINCRBYFLOAT {k} {m} {by}")
            }
            95 => {
                // Short timeouts: an empty key waits 10 ms on both servers.
                let name = self.pick(&["BLPOP", "BRPOP"]);
                format!(
                    "{name} {k} {k2} {}",
                    self.pick(&["0.01", "0.01", "-1", "x"])
                )
            }
            96 => {
                let name = self.pick(&["BZPOPMIN", "BZPOPMAX"]);
                format!("{name} {k} {k2} {}", self.pick(&["0.01", "-1"]))
            }
            97 => format!(
                "COPY {k} {k2} {}",
                self.pick(&["", "REPLACE", "DB 1", "DB 1 REPLACE", "DB 16", "BOGUS"])
            ),
            98 => match self.rng.random_range(0..3) {
                0 => format!("MOVE {k} {}", self.pick(&["1", "0", "16", "x"])),
                1 => format!("SWAPDB 0 {}", self.pick(&["1", "0", "16"])),
                _ => format!("TOUCH {}", self.some(KEY_NAMES, 3)),
            },
            99 => {
                let script = self.pick(&[
                    "return\\sredis.call('get',KEYS[1])",
                    "return\\sredis.call('incr',KEYS[1])",
                    "redis.call('rpush',KEYS[1],ARGV[1])\\sreturn\\sredis.call('llen',KEYS[1])",
                    "return\\sredis.pcall('hset',KEYS[1],'f',ARGV[1])",
                    "return\\s{KEYS[1],ARGV[1],redis.call('exists',KEYS[1])}",
                    "return\\sredis.call('zadd',KEYS[1],1,ARGV[1])",
                    "error('x')",
                ]);
                format!("EVAL {script} 1 {k} {v}")
            }
            _ => format!("CONFIG GET {}", self.pick(&["hz", "maxmemory", "nosuch"])),
        }
    }
}

fn quote(s: &str) -> String {
    if s.is_empty() {
        "\"\"".to_string()
    } else {
        s.to_string()
    }
}

/// Run one seeded sequence; MULTI blocks and WATCH appear now and then.
fn run_seed(diff: &mut Diff, seed: u64, length: usize) {
    let mut gen = Gen {
        rng: ChaCha8Rng::seed_from_u64(seed),
    };
    let mut in_multi = false;
    for _ in 0..length {
        let roll = gen.rng.random_range(0..100);
        let command = match roll {
            0 | 1 if !in_multi => {
                in_multi = true;
                "MULTI".to_string()
            }
            2..=9 if in_multi => {
                in_multi = false;
                gen.pick(&["EXEC", "EXEC", "DISCARD"]).to_string()
            }
            4 => format!("WATCH {}", gen.key()),
            5 if !in_multi => format!("@2 {}", gen.command(true)),
            6 => gen.mangled(in_multi),
            _ => gen.command(in_multi),
        };
        if let Some(options) = command.strip_prefix("SCAN 0") {
            diff.scan_all(&args_of(options));
        } else if let Some(other) = command.strip_prefix("@2 ") {
            diff.run(1, &args_of(other));
        } else {
            diff.run(0, &args_of(&command));
        }
    }
}

#[test]
fn seeded_random_sequences() {
    let mut diff = Diff::start();
    let seeds = 80;
    let length = 200;
    for seed in 0..seeds {
        diff.reconnect();
        if seed % 2 == 1 {
            diff.run(0, &args_of("HELLO 3"));
            diff.run(1, &args_of("HELLO 3"));
        }
        diff.history.push(format!("(seed {seed})"));
        run_seed(&mut diff, seed, length);
    }
    assert!(diff.compared >= seeds as usize * length);
}

/// Every command of the model's table has hand-picked cases.
#[test]
fn every_supported_command_has_cases() {
    let scripts = [
        CONNECTION,
        KEYS,
        STRINGS,
        LISTS,
        HASHES,
        SETS,
        ZSETS,
        TRANSACTIONS,
        EXPIRY,
        MORE_EDGES,
        STRINGS_MORE,
        KEYSPACE_MORE,
        CONFIG,
        STALE_WATCH,
        BLOCKING,
        FLOATS,
        BUSY_SCRIPT,
        INFO,
        QUIT,
        SCRIPTING,
        LISTS_MORE,
        HASHES_MORE,
        SETS_MORE,
        ZSETS_MORE,
        ZSET_ALGEBRA,
    ];
    let covered: std::collections::BTreeSet<String> = scripts
        .iter()
        .flat_map(|script| script.lines())
        .map(|line| {
            line.trim()
                .trim_start_matches("@2 ")
                .trim_start_matches("!send3 ")
                .trim_start_matches("!send ")
                .trim_start_matches('!')
        })
        .filter_map(|line| line.split_whitespace().next().map(str::to_ascii_lowercase))
        .collect();
    let missing: Vec<&str> = amnesia::internal::model::commands::table::names()
        .filter(|name| !covered.contains(*name))
        .collect();
    assert!(missing.is_empty(), "commands without cases: {missing:?}");
}
