//! The Redis node as a world's clients and fault schedule see it: something to dial, to
//! crash and restart, to pause. The simulator's node is the model on a host of tasks
//! ([`ModelNode`]); the real tier's is a real server behind a fault proxy. The schedule
//! (`faults.rs`) and the driver are the same for both.

use crate::connect::{BoxStream, DialFuture, Dialer};
use crate::history::{Kept, Restart};
use crate::model::persistence::aof::Durable;
use crate::trace::Trace;
use crate::world::clock::WorldClock;
use crate::world::host::{ClientHost, RedisHost};
use crate::world::net::Link;
use std::io;
use std::sync::{Arc, Weak};

/// One generation of one app client's process, for which a dialer is made.
pub struct DialFrom {
    /// The client's link to the node (its latency and faults).
    pub link: Arc<Link>,
    /// Weak: the host owns its store, the store its connector, the connector the dialer.
    pub client: Weak<ClientHost>,
    /// The generation of the process; a dialer of an older one refuses.
    pub generation: u64,
}

impl DialFrom {
    /// `Ok` while the process this dialer was made for still runs.
    pub fn still_running(&self) -> io::Result<()> {
        let current = self.client.upgrade().map(|client| client.generation());
        if current == Some(self.generation) {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::NotConnected,
            "the client process is gone",
        ))
    }
}

/// The server node of a world: Redis, or PostgreSQL in a pgvector run of the real tier.
#[async_trait::async_trait]
pub trait ServerNode: Send + Sync {
    /// What kind of server this is.
    fn backend(&self) -> crate::contract::Backend {
        crate::contract::Backend::Redis
    }

    /// A dialer that reaches the node from one client process.
    fn dialer(&self, from: DialFrom) -> Arc<dyn Dialer>;

    /// The process dies now. The fact of the restart (when, which persistence, what its
    /// recovery keeps) if this took it down; `None` if an overlapping crash window already
    /// holds it down.
    async fn crash(&self) -> Option<Restart>;

    /// One crash window ends. When the last does, the process starts again; then a
    /// line for the timeline saying what it recovered.
    async fn restart(&self) -> Option<String>;

    /// Freeze (`true`) or resume the process.
    async fn set_paused(&self, paused: bool);

    /// Make the node answer its next data command with `error`; false where this cannot
    /// be done (a real server).
    fn inject_error(&self, error: &str) -> bool;

    /// Drop an injected error no command has met yet; true when there was one.
    fn withdraw_error(&self) -> bool;

    /// Every connection slot taken (`true`) or given back: new connections are refused
    /// at startup (PostgreSQL's 53300). False where this cannot be done (Redis, a real
    /// server).
    fn set_slots_full(&self, _full: bool) -> bool {
        false
    }

    /// `pg_terminate_backend` of every backend serving `client`: how many; `None` where
    /// this cannot be done (Redis, a real server).
    fn terminate_backends(&self, _client: u32) -> Option<usize> {
        None
    }

    /// An administrator's session locks every table ACCESS EXCLUSIVE until `until_ms`
    /// (giving up then if it could not): the tables it locks (none: there were none
    /// yet); `None` where this cannot be done (Redis, a real server, a server down).
    fn lock_tables(&self, _until_ms: u64) -> Option<Vec<String>> {
        None
    }

    /// One write of the noisy neighbour's (`SET key <value_bytes bytes> [PX ttl_ms]`),
    /// from its own connection on the server's network.
    fn neighbour_set(
        &self,
        _key: &str,
        _value_bytes: usize,
        _ttl_ms: Option<u64>,
    ) -> NeighbourWrite {
        NeighbourWrite::Unsupported
    }
}

/// What became of one write of the noisy neighbour's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NeighbourWrite {
    /// Stored (evicting what the policy chose, if it had to).
    Stored,
    /// Refused with this error (`-OOM` under `noeviction`, or with nothing to evict).
    Refused(String),
    /// The server is down or paused: the neighbour's client waits it out, skipping.
    Unreachable,
    /// Not reproduced by this node (a real server, PostgreSQL).
    Unsupported,
}

/// The simulator's node: the Redis model on a host of tasks, reached through the
/// in-memory network.
pub struct ModelNode {
    pub host: Arc<RedisHost>,
    /// Every client's link: a paused node holds all of them.
    pub links: Vec<Arc<Link>>,
    pub clock: WorldClock,
    pub trace: Trace,
    pub seed: u64,
}

#[async_trait::async_trait]
impl ServerNode for ModelNode {
    fn dialer(&self, from: DialFrom) -> Arc<dyn Dialer> {
        Arc::new(SimDialer {
            from,
            redis: self.host.clone(),
            clock: self.clock.clone(),
            trace: self.trace.clone(),
            seed: self.seed,
        })
    }

    async fn crash(&self) -> Option<Restart> {
        // Only the crash that takes the process down is a restart.
        self.host
            .crash()
            .then(|| restart_fact(&self.host, &self.clock))
    }

    async fn restart(&self) -> Option<String> {
        if !self.host.restart() {
            return None;
        }
        Some(recovered_text(&self.host))
    }

    async fn set_paused(&self, paused: bool) {
        self.host.set_paused(paused);
        self.links
            .iter()
            .for_each(|link| link.update_faults(|f| f.redis_paused = paused));
    }

    fn inject_error(&self, error: &str) -> bool {
        self.host.model.node().inject_error(error);
        true
    }

    fn withdraw_error(&self) -> bool {
        self.host.model.node().withdraw_injected_error()
    }

    fn neighbour_set(&self, key: &str, value_bytes: usize, ttl_ms: Option<u64>) -> NeighbourWrite {
        if self.host.is_down() || self.host.is_paused() {
            return NeighbourWrite::Unreachable;
        }
        neighbour_set_on(&self.host, key, value_bytes, ttl_ms)
    }
}

/// [`ServerNode::neighbour_set`] on the model of `host`: a connection for the one write.
pub(crate) fn neighbour_set_on(
    host: &RedisHost,
    key: &str,
    value_bytes: usize,
    ttl_ms: Option<u64>,
) -> NeighbourWrite {
    use bytes::Bytes;
    let mut args = vec![
        Bytes::from_static(b"SET"),
        Bytes::copy_from_slice(key.as_bytes()),
        Bytes::from(vec![b'n'; value_bytes]),
    ];
    if let Some(ttl_ms) = ttl_ms {
        args.push(Bytes::from_static(b"PX"));
        args.push(Bytes::from(ttl_ms.to_string()));
    }
    let now_ms = host.model.clock().now_ms();
    let mut node = host.model.node();
    let mut client = node.connect();
    let execution = node.execute(&mut client, args, now_ms);
    node.disconnect(&mut client);
    match execution.reply {
        crate::model::protocol::reply::Reply::Error(error) => NeighbourWrite::Refused(error),
        _ => NeighbourWrite::Stored,
    }
}

/// `redis restarted with N keys recovered`: the timeline's line for a restart of `host`.
pub fn recovered_text(host: &RedisHost) -> String {
    let keys: usize = host.model.node().dbs.iter().map(|db| db.len()).sum();
    format!("redis restarted with {keys} keys recovered")
}

/// The fact of a crash of `host` now: when, with which persistence, and what the model's
/// log has on disk at this instant (its durable point).
pub fn restart_fact(host: &RedisHost, clock: &WorldClock) -> Restart {
    let node = host.model.node();
    let kept = match node.aof.durable() {
        Durable::Nothing => Kept::Nothing,
        Durable::SyncedAt { at_ms } => Kept::AppliedBefore {
            // The fsync ran somewhere in that millisecond: what was applied before its
            // first microsecond is certainly on disk.
            before_us: clock.us_of_unix_ms(at_ms),
            observed: true,
        },
        Durable::Everything => Kept::Everything,
    };
    Restart {
        at_us: clock.now_us(),
        persistence: node.aof.mode(),
        kept,
        backend: crate::domain::Backend::Redis,
    }
}

/// Dials the Redis model from one client through the simulated network. A dialer belongs
/// to one generation of its client host: after a crash it refuses, so nothing the dead
/// process left behind reaches Redis again.
pub struct SimDialer {
    pub from: DialFrom,
    pub redis: Arc<RedisHost>,
    pub clock: WorldClock,
    pub trace: Trace,
    pub seed: u64,
}

impl Dialer for SimDialer {
    fn dial(&self) -> DialFuture<'_> {
        Box::pin(async move {
            self.from.still_running()?;
            if self.redis.is_down() {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionRefused,
                    "redis is down",
                ));
            }
            let (client_end, server_end) = self.from.link.open(&self.clock, &self.trace, self.seed);
            self.redis
                .spawn(self.redis.model.clone().serve_connection(server_end));
            Ok(Box::new(client_end) as BoxStream)
        })
    }
}
