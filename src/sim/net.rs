//! The event-driven engine's network: in-memory byte streams between an app client and
//! the Redis node, with a relay per direction that applies the plan's link faults.
//!
//! Each direction is a reader task and a writer task joined by a channel: the reader
//! stamps every chunk with its delivery time (send time plus a seeded latency, never before
//! the previous chunk: a stream does not reorder) and the writer delivers it then. A chunk
//! sent or delivered while its direction is partitioned is black-holed, and so is
//! everything after it on that connection: like a TCP connection that lost segments and
//! never retransmits, it stalls for good, and only a new connection gets through. A clog
//! (or a paused Redis) holds chunks and releases them in a burst; a reset closes both ends.

use crate::connect::{BoxStream, DialFuture, Dialer};
use crate::plan::{Direction, LatencyModel};
use crate::sim::clock::WorldClock;
use crate::sim::host::{ClientHost, RedisHost};
use crate::trace::Trace;
use bytes::Bytes;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::{mpsc, watch};

/// Bytes buffered inside one in-memory stream.
const DUPLEX_BYTES: usize = 64 * 1024;
/// Bytes read per relay step.
const CHUNK_BYTES_MAX: usize = 16 * 1024;
/// Bytes of a chunk shown in the trace.
const PREVIEW_BYTES_MAX: usize = 72;

/// Which way bytes flow on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    ToRedis,
    FromRedis,
}

impl Flow {
    fn arrow(self) -> &'static str {
        match self {
            Flow::ToRedis => "→redis",
            Flow::FromRedis => "←redis",
        }
    }

    fn blocked_by(self, partition: Direction) -> bool {
        match partition {
            Direction::Both => true,
            Direction::ToRedis => self == Flow::ToRedis,
            Direction::FromRedis => self == Flow::FromRedis,
        }
    }
}

/// The faults currently acting on a link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkFaults {
    /// Black-holed directions.
    pub partition: Option<Direction>,
    /// Held directions: bytes wait and are delivered in a burst when the clog ends.
    pub clog: Option<Direction>,
    /// The Redis process is frozen: nothing moves either way.
    pub redis_paused: bool,
}

impl LinkFaults {
    fn holds(&self, flow: Flow) -> bool {
        self.redis_paused || self.clog.is_some_and(|clog| flow.blocked_by(clog))
    }

    fn black_holes(&self, flow: Flow) -> bool {
        self.partition
            .is_some_and(|partition| flow.blocked_by(partition))
    }
}

/// The link between one app client and the Redis node: its latency, its current faults
/// and its open connections.
pub struct Link {
    pub client: u32,
    pub latency: LatencyModel,
    faults: watch::Sender<LinkFaults>,
    connections: Mutex<Vec<Weak<Connection>>>,
    opened: AtomicU64,
}

impl Link {
    pub fn new(client: u32, latency: LatencyModel) -> Self {
        Self {
            client,
            latency,
            faults: watch::Sender::new(LinkFaults::default()),
            connections: Mutex::new(Vec::new()),
            opened: AtomicU64::new(0),
        }
    }

    /// Change the link's faults; held bytes move again as soon as nothing holds them.
    pub fn update_faults(&self, change: impl FnOnce(&mut LinkFaults)) {
        self.faults.send_modify(change);
    }

    /// Close every open connection of the link at both ends (a reset, or a crash of
    /// either host). Returns how many were open.
    pub fn reset_all(&self) -> usize {
        let connections: Vec<Arc<Connection>> = self
            .connections
            .lock()
            .expect("never poisoned")
            .drain(..)
            .filter_map(|c| c.upgrade())
            .collect();
        connections.iter().for_each(|connection| connection.close());
        connections.len()
    }

    fn host(&self) -> String {
        format!("client-{}", self.client)
    }
}

/// One connection: shared by its four relay tasks.
pub struct Connection {
    link: Arc<Link>,
    number: u64,
    severed: AtomicBool,
    closed: watch::Sender<bool>,
    clock: WorldClock,
    trace: Trace,
}

impl Connection {
    /// True if `flow` may carry bytes now; otherwise the connection is severed for good.
    fn passes(&self, flow: Flow) -> bool {
        if self.severed.load(Ordering::Relaxed) {
            return false;
        }
        if self.link.faults.borrow().black_holes(flow) {
            self.severed.store(true, Ordering::Relaxed);
            let text = format!(
                "conn {} black-holed {}: stalled for good",
                self.number,
                flow.arrow()
            );
            self.trace.record(self.clock.now_us(), "net", text);
            return false;
        }
        true
    }

    fn close(&self) {
        self.closed.send_replace(true);
        let text = format!("conn {} reset", self.number);
        self.trace
            .record(self.clock.now_us(), self.link.host(), text);
    }

    /// Resolves once the connection is closed.
    fn closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut receiver = self.closed.subscribe();
        async move {
            let _ = receiver.wait_for(|closed| *closed).await;
        }
    }
}

/// Dials the Redis node from one client through the simulated network. A dialer belongs
/// to one generation of its client host: after a crash it refuses, so nothing the dead
/// process left behind reaches Redis again.
pub struct SimDialer {
    pub link: Arc<Link>,
    pub redis: Arc<RedisHost>,
    /// Weak: the host owns its store, the store its connector, the connector this dialer;
    /// a strong reference would be a cycle that leaks every world (its trace included).
    pub client: Weak<ClientHost>,
    pub generation: u64,
    pub clock: WorldClock,
    pub trace: Trace,
    pub seed: u64,
}

impl Dialer for SimDialer {
    fn dial(&self) -> DialFuture<'_> {
        Box::pin(async move {
            let current = self.client.upgrade().map(|client| client.generation());
            if current != Some(self.generation) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the client process is gone",
                ));
            }
            if self.redis.is_down() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionRefused,
                    "redis is down",
                ));
            }
            Ok(self.connect())
        })
    }
}

impl SimDialer {
    fn connect(&self) -> BoxStream {
        let number = self.link.opened.fetch_add(1, Ordering::Relaxed);
        let (client_end, relay_client) = tokio::io::duplex(DUPLEX_BYTES);
        let (relay_server, server_end) = tokio::io::duplex(DUPLEX_BYTES);
        let connection = Arc::new(Connection {
            link: self.link.clone(),
            number,
            severed: AtomicBool::new(false),
            closed: watch::Sender::new(false),
            clock: self.clock.clone(),
            trace: self.trace.clone(),
        });
        {
            let mut connections = self.link.connections.lock().expect("never poisoned");
            connections.retain(|c| c.strong_count() > 0);
            connections.push(Arc::downgrade(&connection));
        }
        self.trace.record(
            self.clock.now_us(),
            self.link.host(),
            format!("conn {number} opened"),
        );
        let (client_read, client_write) = tokio::io::split(relay_client);
        let (server_read, server_write) = tokio::io::split(relay_server);
        let mut stream_rng = ChaCha8Rng::seed_from_u64(self.seed);
        stream_rng.set_stream((u64::from(self.link.client) << 32) | number);
        let (to_redis_seed, from_redis_seed) = (stream_rng.random(), stream_rng.random());
        relay(
            client_read,
            server_write,
            Flow::ToRedis,
            connection.clone(),
            to_redis_seed,
        );
        relay(
            server_read,
            client_write,
            Flow::FromRedis,
            connection,
            from_redis_seed,
        );
        self.redis
            .spawn(self.redis.model.clone().serve_connection(server_end));
        Box::new(client_end)
    }
}

/// Start the reader and writer tasks of one direction.
fn relay(
    from: ReadHalf<DuplexStream>,
    to: WriteHalf<DuplexStream>,
    flow: Flow,
    connection: Arc<Connection>,
    seed: u64,
) {
    let (sender, receiver) = mpsc::unbounded_channel();
    let rng = ChaCha8Rng::seed_from_u64(seed);
    let closed = connection.closed();
    let reader_connection = connection.clone();
    tokio::spawn(async move {
        tokio::select! {
            biased;
            _ = closed => {}
            _ = read_side(from, sender, flow, reader_connection, rng) => {}
        }
    });
    tokio::spawn(write_side(to, receiver, flow, connection));
}

/// Reads what one end sends and stamps each chunk with its delivery time.
async fn read_side(
    mut from: ReadHalf<DuplexStream>,
    sender: mpsc::UnboundedSender<(u64, Bytes)>,
    flow: Flow,
    connection: Arc<Connection>,
    mut rng: ChaCha8Rng,
) {
    let mut last_delivery_us = 0;
    let mut buffer = vec![0u8; CHUNK_BYTES_MAX];
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return, // dropping the sender ends the writer, which closes the far end
            Ok(read) => read,
        };
        if !connection.passes(flow) {
            continue;
        }
        let now_us = connection.clock.now_us();
        let delivery_us =
            (now_us + connection.link.latency.sample_us(&mut rng)).max(last_delivery_us);
        last_delivery_us = delivery_us;
        if sender
            .send((delivery_us, Bytes::copy_from_slice(&buffer[..read])))
            .is_err()
        {
            return;
        }
    }
}

/// Delivers chunks at their time, holding them while the link is clogged or Redis paused.
async fn write_side(
    mut to: WriteHalf<DuplexStream>,
    mut receiver: mpsc::UnboundedReceiver<(u64, Bytes)>,
    flow: Flow,
    connection: Arc<Connection>,
) {
    let closed = connection.closed();
    tokio::pin!(closed);
    loop {
        let next = tokio::select! {
            biased;
            _ = &mut closed => break,
            next = receiver.recv() => next,
        };
        let Some((delivery_us, chunk)) = next else {
            break;
        };
        let delivered = tokio::select! {
            biased;
            _ = &mut closed => false,
            delivered = deliver(&mut to, delivery_us, chunk, flow, &connection) => delivered,
        };
        if !delivered {
            break;
        }
    }
    let _ = to.shutdown().await;
}

/// Deliver one chunk; false if the far end is gone.
async fn deliver(
    to: &mut WriteHalf<DuplexStream>,
    delivery_us: u64,
    chunk: Bytes,
    flow: Flow,
    connection: &Connection,
) -> bool {
    connection.clock.sleep_until_us(delivery_us).await;
    let mut faults = connection.link.faults.subscribe();
    let _ = faults.wait_for(|faults| !faults.holds(flow)).await;
    if !connection.passes(flow) {
        return true;
    }
    // Kept raw (a reference to the chunk's bytes) and rendered only if the text is read.
    let record = crate::trace::Chunk {
        conn: connection.number,
        flow: match flow {
            Flow::ToRedis => 0,
            Flow::FromRedis => 1,
        },
        bytes: chunk.clone(),
        render: render_chunk,
    };
    connection
        .trace
        .record_chunk(connection.clock.now_us(), connection.link.host(), record);
    to.write_all(&chunk).await.is_ok()
}

/// `conn 3 →redis 41B SET k v | GET k`: a delivered chunk as the timeline shows it.
fn render_chunk(chunk: &crate::trace::Chunk) -> String {
    let flow = if chunk.flow == 0 {
        Flow::ToRedis
    } else {
        Flow::FromRedis
    };
    format!(
        "conn {} {} {}",
        chunk.conn,
        flow.arrow(),
        preview(&chunk.bytes, flow)
    )
}

/// A short printable rendering of a chunk for the timeline: the commands a client sends
/// (`SET k v PXAT 1767225605000 | GET k`), or the raw bytes of replies.
fn preview(chunk: &[u8], flow: Flow) -> String {
    if flow == Flow::ToRedis {
        if let Some(commands) = commands_preview(chunk) {
            return format!("{}B {commands}", chunk.len());
        }
    }
    let shown = &chunk[..chunk.len().min(PREVIEW_BYTES_MAX)];
    let mut text: String = shown.escape_ascii().to_string();
    if chunk.len() > PREVIEW_BYTES_MAX {
        text.push('…');
    }
    format!("{}B {text}", chunk.len())
}

/// The commands in a chunk, each argument cut to a few bytes; `None` if the chunk does
/// not start with a whole command.
fn commands_preview(chunk: &[u8]) -> Option<String> {
    use crate::model::request::{next_request, Request, RequestLimits};
    const ARG_BYTES_MAX: usize = 40;
    const COMMANDS_MAX: usize = 8;
    let limits = RequestLimits {
        bulk_bytes_max: i64::MAX,
        authenticated: true,
    };
    let mut buffer = bytes::BytesMut::from(chunk);
    let mut commands = Vec::new();
    while let Request::Command(args) = next_request(&mut buffer, limits) {
        if commands.len() == COMMANDS_MAX {
            commands.push("…".to_string());
            break;
        }
        let shown: Vec<String> = args
            .iter()
            .map(|arg| {
                let mut text = arg[..arg.len().min(ARG_BYTES_MAX)]
                    .escape_ascii()
                    .to_string();
                if arg.len() > ARG_BYTES_MAX {
                    text.push('…');
                }
                text
            })
            .collect();
        commands.push(shown.join(" "));
    }
    if commands.is_empty() {
        return None;
    }
    if !buffer.is_empty() && commands.last().is_some_and(|c| c != "…") {
        commands.push("…".to_string());
    }
    Some(commands.join(" | "))
}
