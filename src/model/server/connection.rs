//! Serving the model over any tokio byte stream: an in-memory duplex inside the
//! event-driven engine, a turmoil TCP stream, or a real TCP socket for `serve-model`.
//!
//! On a real socket (`serve_tcp`, real time) a script runs off the event loop, on tokio's
//! blocking pool, holding the node for its whole run as Redis's does; the other
//! connections never block on the node's lock meanwhile (they poll it), and past
//! `busy-reply-threshold` they are answered by `server::busy` (BUSY, SCRIPT KILL,
//! SHUTDOWN NOSAVE). In a simulation nothing changes: a script runs inside its command,
//! and the lock is always free when a connection takes it.

use crate::model::protocol::args::is;
use crate::model::protocol::client::ClientState;
use crate::model::protocol::reply::{Protocol, Reply};
use crate::model::protocol::request::{next_request, Request, RequestLimits};
use crate::model::server::busy::{self, After};
use crate::model::server::execute::Execution;
use crate::model::setup::clock::ModelClock;
use crate::model::setup::config::ModelConfig;
use crate::model::state::node::Node;
use crate::model::state::script_watch::ScriptWatch;
use bytes::{Bytes, BytesMut};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Bytes read from a connection per read call.
const READ_CHUNK_BYTES: usize = 16 * 1024;
/// How often a connection with a request looks at the node again while a script holds
/// it (real time only): BUSY's and SCRIPT KILL's latency against the event loop's CPU
/// (a 1 ms poll cost a loaded machine's script thread a fifth of a core, measured).
const BUSY_POLL: std::time::Duration = std::time::Duration::from_millis(5);
/// The id of a connection not yet registered with the node (the node's ids start at 1).
const UNREGISTERED_ID: u64 = 0;
/// The commands that run a script (EXEC too, when its queue holds one).
const SCRIPT_COMMANDS: &[&str] = &["eval", "evalsha", "eval_ro", "evalsha_ro"];

/// A modelled Redis node. Cloning shares the node (all clones serve one keyspace).
///
/// ```
/// use amnesia::internal::model::{Model, ModelClock, ModelConfig};
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = Model::new(ModelConfig::default(), ModelClock::tokio(1_700_000_000_000));
/// let (mut client, server) = tokio::io::duplex(4096);
/// tokio::spawn(model.clone().serve_connection(server));
/// client.write_all(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\nGET k\r\n").await.unwrap();
/// let mut reply = [0u8; 12];
/// client.read_exact(&mut reply).await.unwrap();
/// assert_eq!(&reply, b"+OK\r\n$1\r\nv\r\n");
/// # });
/// ```
#[derive(Clone)]
pub struct Model {
    node: Arc<Mutex<Node>>,
    clock: ModelClock,
    /// Woken after every batch of commands: blocked connections look for their reply.
    served: Arc<tokio::sync::Notify>,
    /// What the node executed, in order, when asked to keep it ([`Model::with_journal`]).
    journal: Option<Arc<Mutex<Vec<Journaled>>>>,
    /// Served on real sockets with the real clock (`serve_tcp`): scripts run off the
    /// event loop and other connections are answered while they run.
    real_time: bool,
    /// The node's running script, read without the node's lock.
    script_watch: Arc<ScriptWatch>,
    /// No password was configured: a connection accepted during a busy script is
    /// authenticated (CONFIG SET requirepass meanwhile is not seen).
    open_access: bool,
    /// SHUTDOWN NOSAVE during a busy script: `serve_tcp` returns.
    shutdown: Arc<tokio::sync::Notify>,
}

/// One step of what the model did, in execution order: the real tier's lockstep replays
/// the commands on a real server and compares the replies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Journaled {
    /// Connection `conn` ran `args`; `reply` is what went on the wire, in `protocol`.
    Command {
        conn: u64,
        args: Vec<bytes::Bytes>,
        reply: Vec<u8>,
        protocol: Protocol,
    },
    /// A command of `conn` blocked; its reply came later, out of order.
    Blocked { conn: u64 },
    /// The node restarted (its connections were dropped).
    Restart,
}

/// Journal entries a model keeps at most; past this it stops recording (a lockstep replay
/// refuses a full journal).
pub const JOURNAL_ENTRIES_MAX: usize = 1_000_000;

/// Where a connection stands after a batch of requests.
#[derive(Clone, PartialEq, Eq)]
enum Batch {
    /// Wants more input.
    Read,
    /// Must close once the replies are written.
    Close,
    /// A blocking command waits; the rest of the input waits with it.
    Blocked,
    /// This request runs a script: off the event loop (real time only).
    Offload(Vec<Bytes>),
}

impl Model {
    pub fn new(config: ModelConfig, clock: ModelClock) -> Self {
        let node = Node::new(config, clock.now_ms());
        let script_watch = node.script_watch.clone();
        let open_access = node.config.password.is_none();
        Self {
            node: Arc::new(Mutex::new(node)),
            clock,
            served: Arc::new(tokio::sync::Notify::new()),
            journal: None,
            real_time: false,
            script_watch,
            open_access,
            shutdown: Arc::new(tokio::sync::Notify::new()),
        }
    }

    /// The same model, keeping a journal of every command and reply from now on
    /// (at most [`JOURNAL_ENTRIES_MAX`] entries).
    pub fn with_journal(mut self) -> Self {
        self.journal = Some(Arc::new(Mutex::new(Vec::new())));
        self
    }

    /// The journal so far (empty when none is kept).
    pub fn journal(&self) -> Vec<Journaled> {
        self.journal.as_ref().map_or_else(Vec::new, |journal| {
            journal.lock().expect("never poisoned").clone()
        })
    }

    fn journal_push(&self, entry: impl FnOnce() -> Journaled) {
        if let Some(journal) = &self.journal {
            let mut journal = journal.lock().expect("never poisoned");
            if journal.len() < JOURNAL_ENTRIES_MAX {
                journal.push(entry());
            }
        }
    }

    /// The node's state, for inspection and fault injection. Never hold it across an await.
    pub fn node(&self) -> MutexGuard<'_, Node> {
        self.node
            .lock()
            .expect("a command handler never panics while holding the node")
    }

    /// The node's lock if it is free now; `None` while a script holds it (real time).
    fn try_node(&self) -> Option<MutexGuard<'_, Node>> {
        match self.node.try_lock() {
            Ok(node) => Some(node),
            Err(TryLockError::WouldBlock) => None,
            Err(TryLockError::Poisoned(_)) => {
                panic!("a command handler never panics while holding the node")
            }
        }
    }

    /// The node's lock, waiting without blocking the event loop while a script holds it.
    /// In a simulation the lock is always free: this never sleeps there.
    async fn lock(&self) -> MutexGuard<'_, Node> {
        loop {
            if let Some(node) = self.try_node() {
                return node;
            }
            tokio::time::sleep(BUSY_POLL).await;
        }
    }

    pub fn clock(&self) -> &ModelClock {
        &self.clock
    }

    /// Serve one client connection until it closes, sends QUIT, or violates the protocol.
    pub async fn serve_connection<S>(self, mut stream: S)
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        // A connection accepted while a script holds the node is registered (its id, the
        // counters) when it first holds the node: Redis accepts it meanwhile.
        let mut client = match self.try_node() {
            Some(mut node) => node.connect(),
            None => ClientState::new(UNREGISTERED_ID, self.open_access),
        };
        let mut query_buffer_bytes_max = ModelConfig::default().query_buffer_bytes_max;
        let mut input = BytesMut::with_capacity(READ_CHUNK_BYTES);
        let mut output = BytesMut::new();
        loop {
            let mut batch = self.drain(&mut client, &mut input, &mut output).await;
            self.served.notify_waiters();
            if batch == Batch::Blocked {
                if !output.is_empty() && stream.write_all(&output).await.is_err() {
                    break;
                }
                output.clear();
                match self.wait_served(&mut client, &mut stream, &mut input).await {
                    Some(reply) => reply.encode(client.protocol, &mut output),
                    None => break, // the client went away while blocked
                }
                batch = Batch::Read;
                if !input.is_empty() {
                    continue; // what arrived meanwhile runs now
                }
            }
            if !output.is_empty() && stream.write_all(&output).await.is_err() {
                break;
            }
            output.clear();
            // The last limit seen: a script may hold the node (in a simulation it never does).
            if let Some(node) = self.try_node() {
                query_buffer_bytes_max = node.config.query_buffer_bytes_max;
            }
            if batch == Batch::Close || input.len() > query_buffer_bytes_max {
                break;
            }
            input.reserve(READ_CHUNK_BYTES);
            match stream.read_buf(&mut input).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        let _ = stream.shutdown().await;
        if client.id != UNREGISTERED_ID {
            self.lock().await.disconnect(&mut client);
        }
    }

    /// Wait until a blocked client is served or times out on the node's clock; `None` if
    /// its connection closes first. Input that arrives meanwhile is kept for later.
    async fn wait_served<S>(
        &self,
        client: &mut ClientState,
        stream: &mut S,
        input: &mut BytesMut,
    ) -> Option<Reply>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        loop {
            let served = self.served.notified();
            tokio::pin!(served);
            served.as_mut().enable();
            let deadline_ms = {
                let mut node = self.lock().await;
                if let Some(reply) = node.take_served(client) {
                    return Some(reply);
                }
                node.block_deadline_ms(client)
            };
            let wait_ms = deadline_ms.map(|at| at.saturating_sub(self.clock.now_ms()));
            let timeout = async {
                match wait_ms {
                    Some(ms) => tokio::time::sleep(std::time::Duration::from_millis(ms)).await,
                    None => std::future::pending().await,
                }
            };
            input.reserve(READ_CHUNK_BYTES);
            tokio::select! {
                () = &mut served => {}
                () = timeout => {
                    if deadline_ms.is_some_and(|at| self.clock.now_ms() >= at) {
                        return Some(self.lock().await.time_out(client));
                    }
                }
                read = stream.read_buf(input) => {
                    if matches!(read, Ok(0) | Err(_)) {
                        return None;
                    }
                }
            }
        }
    }

    /// Execute what `input` holds: in a simulation as one batch under the node's lock; in
    /// real time without ever blocking on the lock, answering while a script holds it and
    /// running a script off the event loop.
    async fn drain(
        &self,
        client: &mut ClientState,
        input: &mut BytesMut,
        output: &mut BytesMut,
    ) -> Batch {
        if !self.real_time {
            return self.drain_requests(&mut self.node(), client, input, output);
        }
        loop {
            if input.is_empty() {
                return Batch::Read;
            }
            // The guard lives in this statement only: no lock is held across an await.
            let batch = self
                .try_node()
                .map(|mut node| self.drain_requests(&mut node, client, input, output));
            let Some(batch) = batch else {
                if let Some(batch) = self.answer_while_busy(client, input, output) {
                    return batch;
                }
                tokio::time::sleep(BUSY_POLL).await;
                continue;
            };
            let Batch::Offload(args) = batch else {
                return batch;
            };
            if let Some(batch) = self.run_offloaded(client, args, output).await {
                return batch;
            }
        }
    }

    /// Execute every complete request in `input`, appending replies to `output`, until
    /// the input runs out, the connection must close, a command blocks, or (real time) a
    /// request runs a script.
    fn drain_requests(
        &self,
        node: &mut Node,
        client: &mut ClientState,
        input: &mut BytesMut,
        output: &mut BytesMut,
    ) -> Batch {
        // One lock for the whole batch: nothing here awaits, and a pipeline of N requests
        // would otherwise take the lock 2N times.
        if client.id == UNREGISTERED_ID {
            client.id = node.connect().id;
        }
        if !client.deferred_while_busy.is_empty() {
            node.apply_deferred(client, self.clock.now_ms());
        }
        loop {
            let limits = RequestLimits {
                bulk_bytes_max: node.config.bulk_bytes_max as i64,
                authenticated: client.authenticated,
            };
            match next_request(input, limits) {
                Request::Incomplete => return Batch::Read,
                Request::ProtocolError(text) => {
                    Reply::Error(format!("ERR {text}")).encode(client.protocol, output);
                    return Batch::Close;
                }
                Request::Command(args) if self.real_time && runs_script(client, &args) => {
                    return Batch::Offload(args);
                }
                Request::Command(args) => {
                    let now_ms = self.clock.now_ms();
                    let journaled = self.journal.as_ref().map(|_| args.clone());
                    let execution = node.execute(client, args, now_ms);
                    if let Some(batch) = self.finish(client, journaled, execution, output) {
                        return batch;
                    }
                }
            }
        }
    }

    /// Write one execution's reply and journal it; the batch's end if it ends it.
    fn finish(
        &self,
        client: &ClientState,
        journaled: Option<Vec<Bytes>>,
        execution: Execution,
        output: &mut BytesMut,
    ) -> Option<Batch> {
        if execution.blocked {
            self.journal_push(|| Journaled::Blocked { conn: client.id });
            return Some(Batch::Blocked);
        }
        // A reply to HELLO is already in the newly negotiated protocol.
        let protocol: Protocol = client.protocol;
        let start = output.len();
        execution.reply.encode(protocol, output);
        if let Some(args) = journaled {
            self.journal_push(|| Journaled::Command {
                conn: client.id,
                args,
                reply: output[start..].to_vec(),
                protocol,
            });
        }
        execution.close.then_some(Batch::Close)
    }

    /// Run a script's request on tokio's blocking pool, holding the node there, while the
    /// event loop serves the other connections; the batch's end if it ends it.
    async fn run_offloaded(
        &self,
        client: &mut ClientState,
        args: Vec<Bytes>,
        output: &mut BytesMut,
    ) -> Option<Batch> {
        let journaled = self.journal.as_ref().map(|_| args.clone());
        let (node, clock) = (self.node.clone(), self.clock.clone());
        let placeholder = ClientState::new(client.id, false);
        let mut moved = std::mem::replace(client, placeholder);
        let ran = tokio::task::spawn_blocking(move || {
            let mut node = node
                .lock()
                .expect("a handler never panics holding the node");
            let execution = node.execute(&mut moved, args, clock.now_ms());
            (moved, execution)
        });
        let (back, execution) = ran.await.expect("execute catches a handler's panic");
        *client = back;
        self.served.notify_waiters(); // the script's writes may serve blocked clients
        self.finish(client, journaled, execution, output)
    }

    /// Answer the requests in `input` while a script holds the node past
    /// `busy-reply-threshold` (`server::busy`); `None` to wait for the node (the script
    /// is not busy yet, or a request needs the node).
    fn answer_while_busy(
        &self,
        client: &mut ClientState,
        input: &mut BytesMut,
        output: &mut BytesMut,
    ) -> Option<Batch> {
        if !self.script_watch.busy(self.clock.now_ms()) {
            return None;
        }
        loop {
            // Cut the request from a copy: one that needs the node stays in the input.
            let mut rest = input.clone();
            let limits = RequestLimits {
                // The node's `proto-max-bulk-len` is behind its lock: the default applies.
                bulk_bytes_max: ModelConfig::default().bulk_bytes_max as i64,
                authenticated: client.authenticated,
            };
            let args = match next_request(&mut rest, limits) {
                Request::Incomplete => return Some(Batch::Read),
                Request::ProtocolError(text) => {
                    Reply::Error(format!("ERR {text}")).encode(client.protocol, output);
                    return Some(Batch::Close);
                }
                Request::Command(args) => args,
            };
            let answer = busy::answer(&self.script_watch, client, &args)?;
            *input = rest;
            if let Some(reply) = answer.reply {
                let journaled = self.journal.as_ref().map(|_| args);
                let execution = Execution {
                    reply,
                    close: false,
                    blocked: false,
                };
                self.finish(client, journaled, execution, output);
            }
            match answer.after {
                After::Continue => {}
                After::Close => return Some(Batch::Close),
                After::Shutdown => {
                    self.shutdown.notify_one();
                    return Some(Batch::Close);
                }
            }
        }
    }

    /// Run the active expiry cycle (and the `everysec` flush) forever, `hz` times a second
    /// of the node's clock.
    pub async fn run_expiry_cycle(self) {
        self.run_expiry_cycle_while(|| true).await
    }

    /// The expiry cycle, doing its work only while `running()` (a paused process does
    /// nothing).
    pub async fn run_expiry_cycle_while(self, running: impl Fn() -> bool) {
        let ticker_of = |hz: u32| {
            let period = std::time::Duration::from_millis(1000 / u64::from(hz));
            let mut ticker = tokio::time::interval(period);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticker
        };
        let mut hz = self.lock().await.config.expire_cycles_per_second;
        let mut ticker = ticker_of(hz);
        loop {
            ticker.tick().await;
            // A script holding the node (real time) skips the cycle, as it blocks Redis's
            // event loop; in a simulation the node is always free here.
            if running() {
                let now_ms = self.clock.now_ms();
                if let Some(mut node) = self.try_node() {
                    node.cycle(now_ms);
                }
            }
            // CONFIG SET hz takes effect at the next cycle.
            let configured = self
                .try_node()
                .map_or(hz, |node| node.config.expire_cycles_per_second);
            if configured != hz {
                hz = configured;
                ticker = ticker_of(hz);
                ticker.tick().await; // an interval's first tick is immediate
            }
        }
    }

    /// Restart the node: every key not recovered by the persistence model is gone. The
    /// caller drops the node's connections (a crashed process keeps none).
    pub fn restart(&self) {
        self.node().restart();
        self.journal_push(|| Journaled::Restart);
    }

    /// Accept connections on `listener` until SHUTDOWN NOSAVE (during a busy script), one
    /// task per connection, and run the expiry cycle, in real time (the module's doc).
    /// Used by `amnesia serve-model`.
    pub async fn serve_tcp(mut self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        self.real_time = true;
        self.lock().await.serve_in_real_time();
        tokio::spawn(self.clone().run_expiry_cycle());
        loop {
            let (stream, _) = tokio::select! {
                accepted = listener.accept() => accepted?,
                () = self.shutdown.notified() => return Ok(()),
            };
            stream.set_nodelay(true)?;
            tokio::spawn(self.clone().serve_connection(stream));
        }
    }
}

/// Whether `args` runs a script now (inside MULTI only EXEC does, when its queue holds one).
fn runs_script(client: &ClientState, args: &[Bytes]) -> bool {
    let script = |args: &[Bytes]| SCRIPT_COMMANDS.iter().any(|name| is(&args[0], name));
    match &client.queued {
        Some(queued) => is(&args[0], "exec") && queued.iter().any(|queued| script(queued)),
        None => script(args),
    }
}
