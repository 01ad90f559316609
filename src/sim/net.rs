//! The event-driven engine's network: in-memory byte streams between an app client and
//! the Redis node, with a relay per direction that applies the plan's link faults.
//!
//! Each direction is a reader task and a writer task joined by a channel: the reader
//! stamps every chunk with its delivery time (send time plus a seeded latency, never before
//! the previous chunk: a stream does not reorder) and the writer delivers it then. A chunk
//! sent or delivered while its direction is partitioned is black-holed, and so is
//! everything after it on that connection: like a TCP connection that lost segments and
//! never retransmits, it stalls for good, and only a new connection gets through.

use crate::connect::{BoxStream, DialFuture, Dialer};
use crate::model::Model;
use crate::plan::{Direction, LatencyModel};
use crate::sim::clock::WorldClock;
use crate::trace::Trace;
use bytes::Bytes;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::mpsc;

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

/// The link between one app client and the Redis node: its latency and current faults.
pub struct Link {
    pub client: u32,
    pub latency: LatencyModel,
    partition: Mutex<Option<Direction>>,
    connections: AtomicU64,
}

impl Link {
    pub fn new(client: u32, latency: LatencyModel) -> Self {
        Self {
            client,
            latency,
            partition: Mutex::new(None),
            connections: AtomicU64::new(0),
        }
    }

    pub fn set_partition(&self, partition: Option<Direction>) {
        *self.partition.lock().expect("never poisoned") = partition;
    }

    fn blocks(&self, flow: Flow) -> bool {
        self.partition
            .lock()
            .expect("never poisoned")
            .is_some_and(|p| flow.blocked_by(p))
    }

    fn host(&self) -> String {
        format!("client-{}", self.client)
    }
}

/// Everything a relay needs; shared by the four tasks of one connection.
struct Connection {
    link: Arc<Link>,
    number: u64,
    severed: AtomicBool,
    clock: WorldClock,
    trace: Trace,
}

impl Connection {
    /// True if `flow` may carry bytes now; otherwise the connection is severed for good.
    fn passes(&self, flow: Flow) -> bool {
        if self.severed.load(Ordering::Relaxed) {
            return false;
        }
        if self.link.blocks(flow) {
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
}

/// Dials the Redis node from one client through the simulated network.
pub struct SimDialer {
    pub link: Arc<Link>,
    pub model: Model,
    pub clock: WorldClock,
    pub trace: Trace,
    pub seed: u64,
}

impl Dialer for SimDialer {
    fn dial(&self) -> DialFuture<'_> {
        Box::pin(async move { Ok(self.connect()) })
    }
}

impl SimDialer {
    fn connect(&self) -> BoxStream {
        let number = self.link.connections.fetch_add(1, Ordering::Relaxed);
        let (client_end, relay_client) = tokio::io::duplex(DUPLEX_BYTES);
        let (relay_server, server_end) = tokio::io::duplex(DUPLEX_BYTES);
        let connection = Arc::new(Connection {
            link: self.link.clone(),
            number,
            severed: AtomicBool::new(false),
            clock: self.clock.clone(),
            trace: self.trace.clone(),
        });
        let host = self.link.host();
        self.trace
            .record(self.clock.now_us(), host, format!("conn {number} opened"));
        let (client_read, client_write) = tokio::io::split(relay_client);
        let (server_read, server_write) = tokio::io::split(relay_server);
        let stream_seed =
            |flow: u64| self.seed ^ (u64::from(self.link.client) << 48) ^ (number << 8) ^ flow;
        relay(
            client_read,
            server_write,
            Flow::ToRedis,
            connection.clone(),
            stream_seed(1),
        );
        relay(
            server_read,
            client_write,
            Flow::FromRedis,
            connection,
            stream_seed(2),
        );
        tokio::spawn(self.model.clone().serve_connection(server_end));
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
    tokio::spawn(read_side(from, sender, flow, connection.clone(), rng));
    tokio::spawn(write_side(to, receiver, flow, connection));
}

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
            Ok(0) | Err(_) => return, // dropping the sender closes the far side
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

async fn write_side(
    mut to: WriteHalf<DuplexStream>,
    mut receiver: mpsc::UnboundedReceiver<(u64, Bytes)>,
    flow: Flow,
    connection: Arc<Connection>,
) {
    while let Some((delivery_us, chunk)) = receiver.recv().await {
        connection.clock.sleep_until_us(delivery_us).await;
        if !connection.passes(flow) {
            continue;
        }
        let text = format!(
            "conn {} {} {}",
            connection.number,
            flow.arrow(),
            preview(&chunk)
        );
        connection
            .trace
            .record_detail(connection.clock.now_us(), connection.link.host(), text);
        if to.write_all(&chunk).await.is_err() {
            return;
        }
    }
    let _ = to.shutdown().await;
}

/// A short printable rendering of a chunk for the timeline.
fn preview(chunk: &[u8]) -> String {
    let shown = &chunk[..chunk.len().min(PREVIEW_BYTES_MAX)];
    let mut text: String = shown.escape_ascii().to_string();
    if chunk.len() > PREVIEW_BYTES_MAX {
        text.push('…');
    }
    format!("{}B {text}", chunk.len())
}
