//! The turmoil engine: the shared world with its network and hosts in a turmoil
//! `Sim`. The Redis model serves on host `redis` over `turmoil::net::TcpListener`; each
//! app client is host `client-N`, its store's connections `turmoil::net::TcpStream`s
//! (handshakes, FIN and RST, per-segment latency, segments lost in a partition stall the
//! stream); the driver, recorder and fault schedule run on host `driver`.
//!
//! A turmoil host's sockets work only on its own runtime, so the driver hands each store
//! call to the client's host ([`crate::world::host::Process`]) and awaits its answer. The
//! driver ticks first, so the client starts the call in the same step; the answer reaches
//! the driver a step (1 ms) later, which the event engine does not spend. The plan's
//! faults act through turmoil: partitions, clogs and a paused Redis with `hold`/`release`
//! (turmoil holds a link both ways, so a one-way partition or clog holds both), a Redis or
//! client restart with `Sim::crash` and `Sim::bounce` (which only the step loop may call:
//! the world asks, the loop does it between steps). turmoil's TCP does not retransmit, so
//! a partition here holds bytes and releases them at the heal rather than with the next
//! retransmission; past the plan's budget, a connection with a request unanswered is given
//! up (reset) when the budget runs out from the partition's start, not from its request's.
//! A silent drop swallows what a connection writes and starves its reads.

use crate::contract::StoreFactory;
use crate::history::Restart;
use crate::plan::Plan;
use crate::trace::Trace;
use crate::world::assemble::{model_of, output_of, WorldOptions};
use crate::world::clock::{TurmoilTime, WorldClock, WORLD_EPOCH_UNIX_MS};
use crate::world::host::{client_host_name, Job, Process, RedisHost};
use crate::world::net::{Link, LinkConnection, LinkFaults};
use crate::world::node::{recovered_text, DialFrom, ModelNode, ServerNode};
use crate::world::run::WorldEnd;
use crate::world::shared::World;
use crate::world::{Engine, SimOutput};
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// turmoil's step: every host runs this long, then the network delivers what is due.
pub const TICK_US: u64 = 1_000;
/// The host the Redis model serves on, and its port.
pub const REDIS_HOST: &str = "redis";
pub const REDIS_PORT: u16 = 6379;
/// The host the driver, recorder and fault schedule run on.
const DRIVER_HOST: &str = "driver";
/// Segments one socket may hold unread before turmoil resets the connection: above any
/// pipeline the driver's stores send (the event engine's bound is 4 MiB in flight).
const TCP_CAPACITY_SEGMENTS: usize = 4_096;
/// Virtual time past the world's own deadline after which turmoil gives up on the run.
const SIMULATION_SLACK_MS: u64 = 10_000;

/// The turmoil engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct TurmoilEngine;

impl Engine for TurmoilEngine {
    fn name(&self) -> &'static str {
        "turmoil"
    }

    fn run(&self, plan: Arc<Plan>, store: &StoreFactory) -> SimOutput {
        run(plan, store)
    }
}

/// What the world asks of the step loop: what only `Sim` can do, between steps.
#[derive(Default)]
struct Requests {
    queue: Mutex<Vec<Request>>,
}

enum Request {
    Crash(&'static str),
    Bounce(&'static str),
    CrashClient(u32),
    BounceClient(u32),
}

impl Requests {
    fn push(&self, request: Request) {
        self.queue.lock().expect("never poisoned").push(request);
    }

    fn take(&self) -> Vec<Request> {
        std::mem::take(&mut *self.queue.lock().expect("never poisoned"))
    }
}

fn run(plan: Arc<Plan>, store: &StoreFactory) -> SimOutput {
    let time = Arc::new(TurmoilTime {
        driven: true,
        tick_us: TICK_US,
        ..TurmoilTime::default()
    });
    let clock = WorldClock::turmoil(WORLD_EPOCH_UNIX_MS, time.clone());
    let trace = Trace::new();
    let _entered = crate::world::context::enter_run(&clock, &trace, &plan, 1.0);
    let host = Arc::new(RedisHost::new(model_of(
        &plan,
        &WorldOptions::default(),
        &clock,
    )));
    let links = World::links_of(&plan);
    let requests = Arc::new(Requests::default());
    let node = TurmoilNode {
        model: ModelNode {
            host: host.clone(),
            links: links.clone(),
            clock: clock.clone(),
            trace: trace.clone(),
            seed: plan.seed,
        },
        requests: requests.clone(),
    };
    let world = World::new(
        plan.clone(),
        clock,
        trace.clone(),
        Arc::new(node),
        links,
        store.clone(),
    );
    let world = Arc::new(world);
    let mut sim = simulation(&plan);
    // Registration order is tick order: the driver hands work to the clients in the same
    // step, the clients' bytes reach Redis by the next.
    let end: std::rc::Rc<std::cell::RefCell<Option<WorldEnd>>> = Default::default();
    {
        let (world, end) = (world.clone(), end.clone());
        sim.client(DRIVER_HOST, async move {
            *end.borrow_mut() = Some(world.run().await);
            Ok(())
        });
    }
    add_clients(&mut sim, &world, &requests);
    add_redis(&mut sim, &host);
    for link in &world.links {
        connect_link(&sim, link);
    }
    step_to_end(&mut sim, &time, &requests);
    let end = end.borrow_mut().take().expect("the driver finished");
    drop(sim);
    output_of(end, &host, trace, WORLD_EPOCH_UNIX_MS)
}

/// A turmoil simulation for `plan`: its seed, amnesia's epoch, 1 ms ticks, long enough for
/// the world's deadline.
fn simulation<'a>(plan: &Plan) -> turmoil::Sim<'a> {
    let deadline_ms = crate::world::deadline_ms(plan, crate::world::RUN_GRACE_MS);
    turmoil::Builder::new()
        .rng_seed(plan.seed)
        .epoch(std::time::UNIX_EPOCH + Duration::from_millis(WORLD_EPOCH_UNIX_MS))
        .tick_duration(Duration::from_micros(TICK_US))
        .simulation_duration(Duration::from_millis(deadline_ms + SIMULATION_SLACK_MS))
        .min_message_latency(Duration::ZERO)
        .max_message_latency(Duration::ZERO)
        .tcp_capacity(TCP_CAPACITY_SEGMENTS)
        .build()
}

/// Step until the driver is done, doing what the world asked for between steps.
fn step_to_end(sim: &mut turmoil::Sim<'_>, time: &TurmoilTime, requests: &Requests) {
    let set_time = |between_steps: bool, sim: &turmoil::Sim<'_>| {
        let now_us = sim.elapsed().as_micros() as u64;
        time.step_start_us.store(now_us, Ordering::Relaxed);
        time.between_steps.store(between_steps, Ordering::Relaxed);
    };
    loop {
        set_time(false, sim);
        let finished = match sim.step() {
            Ok(finished) => finished,
            Err(error) => panic!("the turmoil simulation failed: {error}"),
        };
        set_time(true, sim);
        for request in requests.take() {
            match request {
                Request::Crash(host) => sim.crash(host),
                Request::Bounce(host) => sim.bounce(host),
                Request::CrashClient(client) => sim.crash(client_host_name(client)),
                Request::BounceClient(client) => sim.bounce(client_host_name(client)),
            }
        }
        if finished {
            return;
        }
    }
}

/// The Redis model's host: its expiry cycle and a listener, started again by every bounce
/// (the model itself recovers when the crash window ends).
fn add_redis(sim: &mut turmoil::Sim<'_>, host: &Arc<RedisHost>) {
    let host = host.clone();
    sim.host(REDIS_HOST, move || {
        crate::task::on_host(serve_redis(host.clone()))
    });
}

async fn serve_redis(host: Arc<RedisHost>) -> turmoil::Result {
    host.start_cycle();
    crate::turmoil::serve_model(host, REDIS_PORT).await
}

/// One host a client, running the work its process is handed.
fn add_clients(sim: &mut turmoil::Sim<'_>, world: &World, requests: &Arc<Requests>) {
    for client in 0..world.plan.clients {
        let process = Arc::new(ClientProcess {
            client,
            jobs: Mutex::new(VecDeque::new()),
            arrived: tokio::sync::Notify::new(),
            requests: requests.clone(),
        });
        world.clients[client as usize].set_executor(process.clone());
        sim.host(client_host_name(client), move || {
            crate::task::on_host(run_jobs(process.clone()))
        });
    }
}

/// A client host's process as the driver sees it.
struct ClientProcess {
    client: u32,
    jobs: Mutex<VecDeque<Job>>,
    arrived: tokio::sync::Notify,
    requests: Arc<Requests>,
}

impl Process for ClientProcess {
    fn spawn(&self, job: Job) {
        self.jobs.lock().expect("never poisoned").push_back(job);
        self.arrived.notify_one();
    }

    fn crash(&self) {
        // Work handed over but not begun dies with the process.
        self.jobs.lock().expect("never poisoned").clear();
        self.requests.push(Request::CrashClient(self.client));
    }

    fn restart(&self) {
        self.requests.push(Request::BounceClient(self.client));
    }
}

async fn run_jobs(process: Arc<ClientProcess>) -> turmoil::Result {
    loop {
        loop {
            let job = process.jobs.lock().expect("never poisoned").pop_front();
            match job {
                Some(job) => drop(crate::task::spawn(job)),
                None => break,
            }
        }
        process.arrived.notified().await;
    }
}

/// The link's latency on turmoil's link, and its faults applied to it as they change.
fn connect_link(sim: &turmoil::Sim<'_>, link: &Arc<Link>) {
    let host = client_host_name(link.client);
    let (min, max) = (
        Duration::from_micros(link.latency.base_us),
        Duration::from_micros(link.latency.base_us + link.latency.jitter_us),
    );
    sim.set_link_latency(host.as_str(), REDIS_HOST, min);
    sim.set_link_max_message_latency(host.as_str(), REDIS_HOST, max);
    link.observe_faults(Box::new(move |faults| apply_faults(&host, faults)));
}

/// Put turmoil's link between `host` and Redis in the state `faults` describe: a
/// partition, a clog or a pause holds everything both ways until released (what TCP
/// retransmits lands after the heal).
fn apply_faults(host: &str, faults: LinkFaults) {
    if faults.partition.is_some() || faults.clog.is_some() || faults.redis_paused {
        turmoil::hold(host, REDIS_HOST);
    } else {
        turmoil::release(host, REDIS_HOST);
    }
}

/// The Redis model as the world's server on the turmoil network: the event engine's node
/// but for its dialer and its restarts, which turmoil's step loop carries out.
struct TurmoilNode {
    model: ModelNode,
    requests: Arc<Requests>,
}

#[async_trait::async_trait]
impl ServerNode for TurmoilNode {
    fn dialer(&self, from: DialFrom) -> Arc<dyn crate::connect::Dialer> {
        Arc::new(TurmoilDialer {
            from,
            clock: self.model.clock.clone(),
            trace: self.model.trace.clone(),
        })
    }

    async fn crash(&self) -> Option<Restart> {
        let restart = self.model.crash().await?;
        self.requests.push(Request::Crash(REDIS_HOST));
        Some(restart)
    }

    async fn restart(&self) -> Option<String> {
        // The bounce starts the node's tasks on its fresh runtime (`serve_redis`).
        if !self.model.host.recover() {
            return None;
        }
        self.requests.push(Request::Bounce(REDIS_HOST));
        Some(recovered_text(&self.model.host))
    }

    async fn set_paused(&self, paused: bool) {
        self.model.set_paused(paused).await;
    }

    fn inject_error(&self, error: &str) -> bool {
        self.model.inject_error(error)
    }

    fn withdraw_error(&self) -> bool {
        self.model.withdraw_error()
    }

    fn neighbour_set(
        &self,
        key: &str,
        value_bytes: usize,
        ttl_ms: Option<u64>,
    ) -> crate::world::node::NeighbourWrite {
        self.model.neighbour_set(key, value_bytes, ttl_ms)
    }
}

/// Dials Redis over turmoil's TCP from one client process; refuses once that process has
/// crashed.
struct TurmoilDialer {
    from: DialFrom,
    clock: WorldClock,
    trace: Trace,
}

impl crate::connect::Dialer for TurmoilDialer {
    fn dial(&self) -> crate::connect::DialFuture<'_> {
        Box::pin(async move {
            self.from.still_running()?;
            let link = &self.from.link;
            let stream = turmoil::net::TcpStream::connect((REDIS_HOST, REDIS_PORT)).await;
            let number = link.next_connection_number();
            let stream = match stream {
                Ok(stream) => stream,
                Err(error) => {
                    let text = format!("conn {number} refused: {error}");
                    self.trace.record(self.clock.now_us(), link.host(), text);
                    return Err(error);
                }
            };
            let text = format!("conn {number} opened");
            self.trace.record(self.clock.now_us(), link.host(), text);
            let reset = Arc::new(ResetFlag::default());
            let weak: std::sync::Weak<dyn LinkConnection> =
                Arc::downgrade(&reset) as std::sync::Weak<ResetFlag>;
            link.register(weak);
            let stream = LinkStream {
                stream,
                reset,
                number,
                host: link.host().to_string(),
                clock: self.clock.clone(),
                trace: self.trace.clone(),
            };
            Ok(Box::new(stream) as crate::connect::BoxStream)
        })
    }
}

/// A client's turmoil connection that the link's resets (a reset fault, a crash) close:
/// from then on it fails, and its owner drops the socket on its own host. The bytes it
/// writes and reads reach the timeline as the client sees them (written, received).
struct LinkStream {
    stream: turmoil::net::TcpStream,
    reset: Arc<ResetFlag>,
    number: u64,
    host: String,
    clock: WorldClock,
    trace: Trace,
}

impl LinkStream {
    /// Put `bytes` (flow 0: to Redis, 1: from Redis) on the timeline.
    fn record(&self, flow: u8, bytes: &[u8]) {
        let now_us = self.clock.now_us();
        let chunk = crate::trace::Chunk {
            sent_us: now_us,
            conn: self.number,
            flow,
            bytes: bytes::Bytes::copy_from_slice(bytes),
            render: crate::world::net::render_chunk,
        };
        self.trace.record_chunk(now_us, &self.host, chunk);
    }
}

/// What the link's faults did to one turmoil connection.
#[derive(Default)]
struct ResetFlag {
    closed: AtomicBool,
    /// A silent drop: writes vanish, reads never come.
    silenced: AtomicBool,
    /// The client wrote since it last read: a request without its answer yet.
    unanswered: AtomicBool,
    waiting: Mutex<Vec<Waker>>,
}

impl LinkConnection for ResetFlag {
    fn reset(&self) {
        self.closed.store(true, Ordering::Relaxed);
        let waiting = std::mem::take(&mut *self.waiting.lock().expect("never poisoned"));
        waiting.into_iter().for_each(Waker::wake);
    }

    fn silence(&self) {
        self.silenced.store(true, Ordering::Relaxed);
    }

    fn partition_outlasted_budget(&self) {
        if self.unanswered.load(Ordering::Relaxed) {
            self.reset();
        }
    }
}

impl ResetFlag {
    /// `Err` once reset; otherwise `cx` is woken by a reset too.
    fn check(&self, cx: &Context<'_>) -> std::io::Result<()> {
        if self.closed.load(Ordering::Relaxed) {
            return Err(std::io::ErrorKind::ConnectionReset.into());
        }
        let mut waiting = self.waiting.lock().expect("never poisoned");
        if !waiting.iter().any(|w| w.will_wake(cx.waker())) {
            waiting.push(cx.waker().clone());
        }
        Ok(())
    }
}

impl AsyncRead for LinkStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        self.reset.check(cx)?;
        if self.reset.silenced.load(Ordering::Relaxed) {
            return Poll::Pending; // nothing ever comes; a reset still wakes it
        }
        let filled_before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > filled_before {
            self.reset.unanswered.store(false, Ordering::Relaxed);
            self.record(1, &buf.filled()[filled_before..]);
        }
        polled
    }
}

impl AsyncWrite for LinkStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.reset.check(cx)?;
        if self.reset.silenced.load(Ordering::Relaxed) {
            return Poll::Ready(Ok(buf.len())); // black-holed: gone without a trace
        }
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        if let Poll::Ready(Ok(written)) = polled {
            self.reset.unanswered.store(true, Ordering::Relaxed);
            self.record(0, &buf[..written]);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.reset.check(cx)?;
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
