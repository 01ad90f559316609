//! The world's links: each client's latency and faults ([`Link`]), which the real tier's
//! proxy applies too, and the event and madsim engines' network: in-memory connections
//! between an app client and the Redis node, each direction a queue of chunks that
//! applies the plan's link faults.
//!
//! A write becomes a chunk stamped with its delivery time (send time plus a seeded
//! latency, never before the previous chunk: a stream does not reorder); the far end can
//! read it from then on, woken by a timer. No task sits between the ends: a chunk is
//! copied once on the way in and once on the way out. A chunk that would arrive while its
//! direction is partitioned is lost, and TCP sends it again on the plan's retransmission
//! schedule ([`Retransmission`]): it lands with the first retransmission that finds the
//! link healed, the chunks behind it right after, and if it stays unacknowledged past the
//! budget TCP gives up and the connection is reset at both ends. The link keeps its
//! partitions' spans, so a chunk's fate does not depend on when its reader looks. A clog
//! (or a paused Redis) holds chunks and releases them in a burst; a reset closes both
//! ends; a silent drop black-holes a connection for good, without a reset.

use crate::plan::{Direction, LatencyModel, Retransmission};
use crate::trace::Trace;
use crate::world::clock::WorldClock;
use bytes::Bytes;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// Bytes one write puts in a chunk: a larger write is cut into several chunks, each with
/// its own latency.
const CHUNK_BYTES_MAX: usize = 16 * 1024;
/// Bytes in flight one way on a connection; past this a writer waits, as on a full TCP
/// window.
const IN_FLIGHT_BYTES_MAX: usize = 4 * 1024 * 1024;
/// Bytes of a chunk shown in the trace.
const PREVIEW_BYTES_MAX: usize = 72;

/// Which way bytes flow on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    ToRedis,
    FromRedis,
}

impl Flow {
    /// The index of the flow's pipe, and its code in trace chunks.
    fn index(self) -> usize {
        match self {
            Flow::ToRedis => 0,
            Flow::FromRedis => 1,
        }
    }

    fn reverse(self) -> Flow {
        match self {
            Flow::ToRedis => Flow::FromRedis,
            Flow::FromRedis => Flow::ToRedis,
        }
    }

    /// `→redis`, `←postgres`: the flow as the timeline shows it, towards or from the
    /// server the connection reaches.
    fn arrow(self, postgres: bool) -> &'static str {
        match (self, postgres) {
            (Flow::ToRedis, false) => "→redis",
            (Flow::FromRedis, false) => "←redis",
            (Flow::ToRedis, true) => "→postgres",
            (Flow::FromRedis, true) => "←postgres",
        }
    }

    fn blocked_by(self, partition: Direction) -> bool {
        match self {
            Flow::ToRedis => partition.to_server(),
            Flow::FromRedis => partition.from_server(),
        }
    }
}

/// The faults currently acting on a link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkFaults {
    /// Directions that lose what they carry (TCP retransmits it).
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
}

/// One partition of a link: from when to when (`None`: not healed yet) which directions
/// lose what they carry.
#[derive(Clone, Copy, Debug)]
struct PartitionSpan {
    direction: Direction,
    from_us: u64,
    until_us: Option<u64>,
}

/// Partitions one link keeps: one per fault window of the plan at most.
const PARTITION_SPANS_MAX: usize = crate::plan::scenario::FAULTS_MAX;

/// The link between one app client and the Redis node: its latency, its current faults
/// and its open connections.
pub struct Link {
    pub client: u32,
    pub latency: LatencyModel,
    /// How its connections retransmit through a partition.
    pub tcp: Retransmission,
    /// `client-N`, as the trace names the link's host.
    host: String,
    faults: Mutex<LinkFaults>,
    /// Every partition so far, oldest first.
    partitions: Mutex<Vec<PartitionSpan>>,
    /// Readers waiting for a clog or a pause to end.
    held: Mutex<Vec<Waker>>,
    connections: Mutex<Vec<Weak<dyn LinkConnection>>>,
    opened: AtomicU64,
    /// Told the link's faults after every change, on an engine whose network applies
    /// them itself (turmoil's links).
    on_faults: std::sync::OnceLock<FaultsObserver>,
}

/// Told a link's faults after every change.
pub type FaultsObserver = Box<dyn Fn(LinkFaults) + Send + Sync>;

/// A connection of a link, as the link's faults reach it.
pub trait LinkConnection: Send + Sync {
    /// Close both ends (a reset, or a crash of either host).
    fn reset(&self);
    /// Black-hole it for good both ways, without telling either end (a silent drop).
    fn silence(&self);
    /// The link's partition has lasted the retransmission budget. A connection that
    /// retransmits by the plan itself (the world's own) already gave up where TCP would
    /// and ignores this; one on a transport that only holds bytes (turmoil's) gives up now
    /// if it has bytes unanswered.
    fn partition_outlasted_budget(&self);
}

impl Link {
    pub fn new(client: u32, latency: LatencyModel, tcp: Retransmission) -> Self {
        Self {
            client,
            latency,
            tcp,
            host: crate::world::host::client_host_name(client),
            faults: Mutex::new(LinkFaults::default()),
            partitions: Mutex::new(Vec::new()),
            held: Mutex::new(Vec::new()),
            connections: Mutex::new(Vec::new()),
            opened: AtomicU64::new(0),
            on_faults: std::sync::OnceLock::new(),
        }
    }

    #[cfg(feature = "turmoil")]
    /// Tell `observer` the link's faults after every change (set once, before the run).
    pub fn observe_faults(&self, observer: FaultsObserver) {
        assert!(self.on_faults.set(observer).is_ok(), "one observer a link");
    }

    /// Change the link's faults; held bytes move again as soon as nothing holds them.
    pub fn update_faults(&self, change: impl FnOnce(&mut LinkFaults)) {
        let faults = {
            let mut faults = self.faults.lock().expect("never poisoned");
            change(&mut faults);
            *faults
        };
        if let Some(observer) = self.on_faults.get() {
            observer(faults);
        }
        let held = std::mem::take(&mut *self.held.lock().expect("never poisoned"));
        held.into_iter().for_each(Waker::wake);
    }

    /// The number of the link's next connection, counted from 0.
    pub fn next_connection_number(&self) -> u64 {
        self.opened.fetch_add(1, Ordering::Relaxed)
    }

    /// Start a partition of `direction` at `now_us`.
    pub fn start_partition(&self, direction: Direction, now_us: u64) {
        {
            let mut spans = self.partitions.lock().expect("never poisoned");
            assert!(spans.last().is_none_or(|span| span.until_us.is_some()));
            assert!(spans.len() < PARTITION_SPANS_MAX, "partitions are bounded");
            spans.push(PartitionSpan {
                direction,
                from_us: now_us,
                until_us: None,
            });
        }
        self.update_faults(|f| f.partition = Some(direction));
    }

    /// Heal the partition started last, at `now_us`.
    pub fn heal_partition(&self, now_us: u64) {
        {
            let mut spans = self.partitions.lock().expect("never poisoned");
            let span = spans.last_mut().expect("a partition to heal");
            assert!(span.until_us.is_none() && span.from_us <= now_us);
            span.until_us = Some(now_us);
        }
        self.update_faults(|f| f.partition = None);
    }

    /// Whether what `flow` carries at `at_us` is lost to a partition.
    fn loses(&self, flow: Flow, at_us: u64) -> bool {
        let spans = self.partitions.lock().expect("never poisoned");
        spans.iter().rev().any(|span| {
            flow.blocked_by(span.direction)
                && span.from_us <= at_us
                && span.until_us.is_none_or(|until_us| at_us < until_us)
        })
    }

    /// The link's open connections, for a fault to act on.
    fn open_connections(&self) -> Vec<Arc<dyn LinkConnection>> {
        let mut connections = self.connections.lock().expect("never poisoned");
        connections.retain(|c| c.strong_count() > 0);
        connections.iter().filter_map(Weak::upgrade).collect()
    }

    /// Black-hole every open connection of the link for good (a silent drop). Returns
    /// how many were open.
    pub fn silence_all(&self) -> usize {
        let connections = self.open_connections();
        connections
            .iter()
            .for_each(|connection| connection.silence());
        connections.len()
    }

    /// Tell every open connection that the link's partition outlasted the budget.
    pub fn partition_outlasted_budget(&self) {
        let connections = self.open_connections();
        connections
            .iter()
            .for_each(|connection| connection.partition_outlasted_budget());
    }

    /// Keep `connection` for the link's resets.
    pub fn register(&self, connection: Weak<dyn LinkConnection>) {
        let mut connections = self.connections.lock().expect("never poisoned");
        connections.retain(|c| c.strong_count() > 0);
        connections.push(connection);
    }

    #[cfg(feature = "turmoil")]
    /// `client-N`, as the trace names the link's host.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Wake `waker` when the link's faults next change.
    fn wake_when_released(&self, waker: &Waker) {
        let mut held = self.held.lock().expect("never poisoned");
        if !held.iter().any(|other| other.will_wake(waker)) {
            held.push(waker.clone());
        }
    }

    fn faults(&self) -> LinkFaults {
        *self.faults.lock().expect("never poisoned")
    }

    /// Close every open connection of the link at both ends (a reset, or a crash of
    /// either host). Returns how many were open.
    pub fn reset_all(&self) -> usize {
        let connections: Vec<Arc<dyn LinkConnection>> = self
            .connections
            .lock()
            .expect("never poisoned")
            .drain(..)
            .filter_map(|c| c.upgrade())
            .collect();
        connections.iter().for_each(|connection| connection.reset());
        connections.len()
    }
}

/// One connection: two pipes, shared by its two ends.
pub struct Connection {
    link: Arc<Link>,
    number: u64,
    /// Black-holed for good by a silent drop.
    silenced: AtomicBool,
    closed: AtomicBool,
    clock: WorldClock,
    trace: Trace,
    /// Indexed by [`Flow::index`].
    pipes: [Pipe; 2],
    /// A PostgreSQL connection's renaming of its requests' names, for the trace.
    #[cfg(feature = "pg")]
    pg_names: Option<Mutex<crate::world::pg_names::PgNames>>,
}

impl Connection {
    fn is_silenced(&self) -> bool {
        self.silenced.load(Ordering::Relaxed)
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// True for a connection to PostgreSQL: the timeline names that server.
    fn postgres(&self) -> bool {
        #[cfg(feature = "pg")]
        return self.pg_names.is_some();
        #[cfg(not(feature = "pg"))]
        false
    }

    /// True when the trace records `flow`'s bytes renamed ([`Connection::recorded`]).
    fn renames(&self, flow: Flow) -> bool {
        #[cfg(feature = "pg")]
        if let (Flow::ToRedis, Some(_)) = (flow, &self.pg_names) {
            return true;
        }
        let _ = flow;
        false
    }

    /// The bytes the trace records of a chunk sent on `flow`.
    fn recorded(&self, flow: Flow, chunk: &Bytes) -> Bytes {
        #[cfg(feature = "pg")]
        if let (Flow::ToRedis, Some(names)) = (flow, &self.pg_names) {
            return names.lock().expect("never poisoned").canonical(chunk);
        }
        let _ = flow;
        chunk.clone()
    }

    /// Queue up to [`CHUNK_BYTES_MAX`] of `bytes` on `flow` as one chunk.
    fn poll_send(&self, flow: Flow, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
        let pipe = &self.pipes[flow.index()];
        let mut state = pipe.lock();
        if self.is_closed() || state.reader_gone {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        assert!(!state.writer_done, "a write after shutdown");
        if state.in_flight_bytes >= IN_FLIGHT_BYTES_MAX {
            state.writer = Some(cx.waker().clone());
            return Poll::Pending;
        }
        let sent = bytes.len().min(CHUNK_BYTES_MAX);
        if self.is_silenced() {
            return Poll::Ready(Ok(sent)); // black-holed: gone without a trace on the wire
        }
        let now_us = self.clock.now_us();
        let latency_us = self.link.latency.sample_us(&mut state.rng);
        let delivery_us = (now_us + latency_us).max(state.last_delivery_us);
        state.last_delivery_us = delivery_us;
        state.in_flight_bytes += sent;
        let chunk = Bytes::copy_from_slice(&bytes[..sent]);
        let recorded = self.recorded(flow, &chunk);
        state.chunks.push_back(InFlight {
            sent_us: now_us,
            delivery_us,
            transit_us: delivery_us - now_us,
            attempt: 0,
            bytes: chunk,
            recorded,
            taken: 0,
        });
        let reader = state.reader.take();
        drop(state);
        reader.into_iter().for_each(Waker::wake);
        Poll::Ready(Ok(sent))
    }

    /// Move the chunks of `flow` that are due into `buf`; pending until one is.
    fn poll_receive(
        &self,
        flow: Flow,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let pipe = &self.pipes[flow.index()];
        let mut state = pipe.lock();
        let filled_before = buf.filled().len();
        // Virtual time stands still while a task runs.
        let now_us = self.clock.now_us();
        loop {
            if self.is_closed() {
                return Poll::Ready(Ok(())); // end of stream
            }
            let wait = match state.chunks.front().map(|head| head.delivery_us) {
                None if state.writer_done => return Poll::Ready(Ok(())),
                None => Wait::Writer,
                Some(_) if buf.remaining() == 0 => return Poll::Ready(Ok(())),
                Some(delivery_us) if delivery_us > now_us => Wait::Until(delivery_us),
                Some(_) if self.link.faults().holds(flow) => Wait::Held,
                Some(_) if self.is_silenced() => {
                    let dropped = state.chunks.pop_front().expect("a head chunk");
                    state.in_flight_bytes -= dropped.bytes.len() - dropped.taken;
                    continue;
                }
                Some(delivery_us) if self.link.loses(flow, delivery_us) => {
                    match self.retransmit(flow, now_us, &mut state) {
                        Retransmitted::Again => continue,
                        Retransmitted::GivenUp { at_us } if at_us > now_us => Wait::Until(at_us),
                        Retransmitted::GivenUp { at_us } => {
                            drop(state);
                            self.give_up(flow, at_us);
                            return Poll::Ready(Ok(())); // end of stream: reset
                        }
                    }
                }
                Some(_) => {
                    self.take_head(flow, now_us, &mut state, buf);
                    continue;
                }
            };
            if buf.filled().len() > filled_before {
                return Poll::Ready(Ok(())); // what was due; the rest on the next read
            }
            state.reader = Some(cx.waker().clone());
            match wait {
                Wait::Writer => {}
                Wait::Until(delivery_us) => {
                    let due = state.wait_until(&self.clock, delivery_us, cx);
                    assert!(due.is_pending(), "a timer fired before its instant");
                }
                Wait::Held => self.link.wake_when_released(cx.waker()),
            }
            return Poll::Pending;
        }
    }

    /// The head chunk's transmission was lost: schedule the next one, or give up if it
    /// would come past the budget.
    fn retransmit(&self, flow: Flow, now_us: u64, state: &mut PipeState) -> Retransmitted {
        let tcp = self.link.tcp;
        let head = state.chunks.front_mut().expect("a head chunk");
        let attempt = head.attempt + 1;
        let offset_ms = tcp.attempt_offset_ms(attempt);
        if offset_ms >= tcp.give_up_ms {
            return Retransmitted::GivenUp {
                at_us: head.sent_us + tcp.give_up_ms * 1_000,
            };
        }
        let resent_us = head.sent_us + offset_ms * 1_000;
        head.attempt = attempt;
        head.delivery_us = resent_us + head.transit_us;
        let what = match self.renames(flow) {
            // Its length counts statement names the trace renames (tokio-postgres's
            // process-wide counter gains a digit between two runs of one seed).
            true => "a write".to_string(),
            false => format!("{}B", head.bytes.len() - head.taken),
        };
        let text = format!(
            "{} conn {} {} {what} lost in a partition: sent again at {} (retransmission {attempt})",
            self.link.host,
            self.number,
            flow.arrow(self.postgres()),
            crate::trace::seconds_text(resent_us)
        );
        self.trace.record(now_us, "net", text);
        Retransmitted::Again
    }

    /// TCP gave up on what `flow` carries, at `at_us`: the connection is reset.
    fn give_up(&self, flow: Flow, at_us: u64) {
        let text = format!(
            "{} conn {} {} unacknowledged for {} ms since {}: TCP gives up",
            self.link.host,
            self.number,
            flow.arrow(self.postgres()),
            self.link.tcp.give_up_ms,
            crate::trace::seconds_text(at_us - self.link.tcp.give_up_ms * 1_000)
        );
        self.trace.record(self.clock.now_us(), "net", text);
        self.reset();
    }

    /// Copy the head chunk (or as much as fits) into `buf`; record it when it starts.
    fn take_head(&self, flow: Flow, now_us: u64, state: &mut PipeState, buf: &mut ReadBuf<'_>) {
        let head = state.chunks.front_mut().expect("a head chunk");
        let (resent, delivery_us) = (head.attempt > 0, head.delivery_us);
        if resent && head.taken == 0 {
            // The chunks behind a retransmitted one follow it: a stream does not reorder.
            for behind in state.chunks.iter_mut().skip(1) {
                behind.delivery_us = behind.delivery_us.max(delivery_us);
            }
        }
        let head = state.chunks.front_mut().expect("a head chunk");
        if head.taken == 0 {
            // Kept raw (a reference to the chunk's bytes) and rendered only if read.
            let record = crate::trace::Chunk {
                sent_us: head.sent_us,
                conn: self.number,
                flow: flow.index() as u8,
                bytes: head.recorded.clone(),
                render: match self.postgres() {
                    true => render_postgres_chunk,
                    false => render_chunk,
                },
            };
            self.trace.record_chunk(now_us, &self.link.host, record);
        }
        let rest = &head.bytes[head.taken..];
        let copied = rest.len().min(buf.remaining());
        buf.put_slice(&rest[..copied]);
        head.taken += copied;
        state.in_flight_bytes -= copied;
        if head.taken == head.bytes.len() {
            state.chunks.pop_front();
        }
        if let Some(writer) = state.writer.take() {
            writer.wake();
        }
    }
}

impl LinkConnection for Connection {
    fn reset(&self) {
        if self.closed.swap(true, Ordering::Relaxed) {
            return; // both ends already closed
        }
        self.pipes.iter().for_each(Pipe::wake_both);
        let text = format!("conn {} reset", self.number);
        self.trace
            .record(self.clock.now_us(), &self.link.host, text);
    }

    fn silence(&self) {
        if self.silenced.swap(true, Ordering::Relaxed) {
            return;
        }
        self.pipes.iter().for_each(Pipe::wake_both);
        let text = format!(
            "{} conn {} black-holed both ways: stalled for good",
            self.link.host, self.number
        );
        self.trace.record(self.clock.now_us(), "net", text);
    }

    fn partition_outlasted_budget(&self) {
        // Its readers retransmit by the plan and give up where TCP would.
    }
}

/// What became of a lost head chunk.
enum Retransmitted {
    /// It is sent again; its delivery time moved.
    Again,
    /// TCP gives up on it at `at_us`, and resets the connection.
    GivenUp { at_us: u64 },
}

/// What a reader with nothing due waits for.
enum Wait {
    /// The writer's next chunk (or its end).
    Writer,
    /// The head chunk's delivery time.
    Until(u64),
    /// The end of a clog or pause on the link.
    Held,
}

/// One direction of a connection: chunks in flight, oldest first.
struct Pipe {
    state: Mutex<PipeState>,
}

struct PipeState {
    chunks: VecDeque<InFlight>,
    in_flight_bytes: usize,
    /// Draws this direction's latencies.
    rng: ChaCha8Rng,
    last_delivery_us: u64,
    /// The writing end shut down or is gone: end of stream once the chunks are read.
    writer_done: bool,
    /// The reading end is gone: writes fail.
    reader_gone: bool,
    reader: Option<Waker>,
    writer: Option<Waker>,
    /// Wakes the reader when the head chunk is due.
    timer: Option<(u64, Pin<Box<Sleep>>)>,
}

struct InFlight {
    /// When the writer handed the bytes over (the page draws the hop from here).
    sent_us: u64,
    /// When its current transmission arrives.
    delivery_us: u64,
    /// From a transmission to its arrival.
    transit_us: u64,
    /// Its current transmission: 0 the first, then TCP's retransmissions.
    attempt: u32,
    bytes: Bytes,
    /// What the trace records of them (a PostgreSQL request's names made canonical).
    recorded: Bytes,
    /// Bytes of the chunk already read.
    taken: usize,
}

impl Pipe {
    fn new(rng: ChaCha8Rng) -> Self {
        Self {
            state: Mutex::new(PipeState {
                chunks: VecDeque::new(),
                in_flight_bytes: 0,
                rng,
                last_delivery_us: 0,
                writer_done: false,
                reader_gone: false,
                reader: None,
                writer: None,
                timer: None,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PipeState> {
        self.state.lock().expect("never poisoned")
    }

    /// The writing end is done: the reader sees the end of the stream after the chunks.
    fn end_writer(&self) {
        let reader = {
            let mut state = self.lock();
            state.writer_done = true;
            state.reader.take()
        };
        reader.into_iter().for_each(Waker::wake);
    }

    fn wake_both(&self) {
        let (reader, writer) = {
            let mut state = self.lock();
            (state.reader.take(), state.writer.take())
        };
        reader.into_iter().for_each(Waker::wake);
        writer.into_iter().for_each(Waker::wake);
    }
}

impl PipeState {
    /// Ready once virtual time reaches `at_us`; otherwise the timer will wake `cx`.
    fn wait_until(&mut self, clock: &WorldClock, at_us: u64, cx: &mut Context<'_>) -> Poll<()> {
        let deadline = clock.instant_at_us(at_us);
        match &mut self.timer {
            Some((timer_us, timer)) if *timer_us == at_us => timer.as_mut().poll(cx),
            Some((timer_us, timer)) => {
                *timer_us = at_us;
                timer.as_mut().reset(deadline);
                timer.as_mut().poll(cx)
            }
            None => {
                let mut timer = Box::pin(tokio::time::sleep_until(deadline));
                let polled = timer.as_mut().poll(cx);
                self.timer = Some((at_us, timer));
                polled
            }
        }
    }
}

/// One end of a connection: reads one pipe, writes the other.
pub struct SimStream {
    connection: Arc<Connection>,
    reads: Flow,
}

impl SimStream {
    fn writes(&self) -> Flow {
        self.reads.reverse()
    }
}

impl AsyncRead for SimStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.connection.poll_receive(self.reads, cx, buf)
    }
}

impl AsyncWrite for SimStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.connection.poll_send(self.writes(), cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.connection.pipes[self.writes().index()].end_writer();
        Poll::Ready(Ok(()))
    }
}

impl Drop for SimStream {
    fn drop(&mut self) {
        self.connection.pipes[self.writes().index()].end_writer();
        let pipe = &self.connection.pipes[self.reads.index()];
        let writer = {
            let mut state = pipe.lock();
            state.reader_gone = true;
            state.writer.take()
        };
        writer.into_iter().for_each(Waker::wake);
    }
}

impl Link {
    /// Open a connection on the link: its client end (reads what Redis sends) and its
    /// server end. Each direction draws its latencies from its own stream of `seed`.
    /// The simulator serves the server end with the model; the real tier's fault proxy
    /// copies between each end and a TCP socket, so one implementation of the fault
    /// semantics runs on both clocks.
    pub fn open(
        self: &Arc<Self>,
        clock: &WorldClock,
        trace: &Trace,
        seed: u64,
    ) -> (SimStream, SimStream) {
        self.open_for(clock, trace, seed, false)
    }

    /// [`Link::open`] for a PostgreSQL client: the trace records its requests with
    /// canonical statement names ([`crate::world::pg_names`]).
    #[cfg(feature = "pg")]
    pub fn open_postgres(
        self: &Arc<Self>,
        clock: &WorldClock,
        trace: &Trace,
        seed: u64,
    ) -> (SimStream, SimStream) {
        self.open_for(clock, trace, seed, true)
    }

    fn open_for(
        self: &Arc<Self>,
        clock: &WorldClock,
        trace: &Trace,
        seed: u64,
        postgres: bool,
    ) -> (SimStream, SimStream) {
        let number = self.next_connection_number();
        let mut stream_rng = ChaCha8Rng::seed_from_u64(seed);
        stream_rng.set_stream((u64::from(self.client) << 32) | number);
        let (to_redis_seed, from_redis_seed): (u64, u64) =
            (stream_rng.random(), stream_rng.random());
        let connection = Arc::new(Connection {
            link: self.clone(),
            number,
            silenced: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            clock: clock.clone(),
            trace: trace.clone(),
            pipes: [
                Pipe::new(ChaCha8Rng::seed_from_u64(to_redis_seed)),
                Pipe::new(ChaCha8Rng::seed_from_u64(from_redis_seed)),
            ],
            #[cfg(feature = "pg")]
            pg_names: postgres.then(Default::default),
        });
        #[cfg(not(feature = "pg"))]
        let _ = postgres;
        let weak: Weak<dyn LinkConnection> = Arc::downgrade(&connection) as Weak<Connection>;
        self.register(weak);
        trace.record(clock.now_us(), &self.host, format!("conn {number} opened"));
        let server_end = SimStream {
            connection: connection.clone(),
            reads: Flow::ToRedis,
        };
        let client_end = SimStream {
            connection,
            reads: Flow::FromRedis,
        };
        (client_end, server_end)
    }
}

/// `conn 3 →redis 41B SET k v | GET k`: a delivered chunk as the timeline shows it.
pub(crate) fn render_chunk(chunk: &crate::trace::Chunk) -> String {
    render_chunk_to(chunk, false)
}

/// `conn 3 →postgres 23B Q\x00…`: a chunk of a PostgreSQL connection.
fn render_postgres_chunk(chunk: &crate::trace::Chunk) -> String {
    render_chunk_to(chunk, true)
}

fn render_chunk_to(chunk: &crate::trace::Chunk, postgres: bool) -> String {
    let flow = if chunk.flow == 0 {
        Flow::ToRedis
    } else {
        Flow::FromRedis
    };
    format!(
        "conn {} {} {}",
        chunk.conn,
        flow.arrow(postgres),
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
    use crate::model::protocol::request::{next_request, Request, RequestLimits};
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
