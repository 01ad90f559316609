//! Serving the model over any tokio byte stream: an in-memory duplex inside the
//! event-driven engine, a turmoil TCP stream, or a real TCP socket for `serve-model`.

use crate::model::protocol::client::ClientState;
use crate::model::protocol::reply::{Protocol, Reply};
use crate::model::protocol::request::{next_request, Request, RequestLimits};
use crate::model::setup::clock::ModelClock;
use crate::model::setup::config::ModelConfig;
use crate::model::state::node::Node;
use bytes::BytesMut;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Bytes read from a connection per read call.
const READ_CHUNK_BYTES: usize = 16 * 1024;

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
#[derive(Clone, Copy, PartialEq, Eq)]
enum Batch {
    /// Wants more input.
    Read,
    /// Must close once the replies are written.
    Close,
    /// A blocking command waits; the rest of the input waits with it.
    Blocked,
}

impl Model {
    pub fn new(config: ModelConfig, clock: ModelClock) -> Self {
        let node = Node::new(config, clock.now_ms());
        Self {
            node: Arc::new(Mutex::new(node)),
            clock,
            served: Arc::new(tokio::sync::Notify::new()),
            journal: None,
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

    pub fn clock(&self) -> &ModelClock {
        &self.clock
    }

    /// Serve one client connection until it closes, sends QUIT, or violates the protocol.
    pub async fn serve_connection<S>(self, mut stream: S)
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let mut client = self.node().connect();
        let mut input = BytesMut::with_capacity(READ_CHUNK_BYTES);
        let mut output = BytesMut::new();
        loop {
            let mut batch = self.drain_requests(&mut client, &mut input, &mut output);
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
            if batch == Batch::Close || input.len() > self.node().config.query_buffer_bytes_max {
                break;
            }
            input.reserve(READ_CHUNK_BYTES);
            match stream.read_buf(&mut input).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        let _ = stream.shutdown().await;
        self.node().disconnect(&mut client);
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
                let mut node = self.node();
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
                        return Some(self.node().time_out(client));
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

    /// Execute every complete request in `input`, appending replies to `output`, until
    /// the input runs out, the connection must close, or a command blocks.
    fn drain_requests(
        &self,
        client: &mut ClientState,
        input: &mut BytesMut,
        output: &mut BytesMut,
    ) -> Batch {
        // One lock for the whole batch: nothing here awaits, and a pipeline of N requests
        // would otherwise take the lock 2N times.
        let mut node = self.node();
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
                Request::Command(args) => {
                    let now_ms = self.clock.now_ms();
                    let journaled = self.journal.as_ref().map(|_| args.clone());
                    let execution = node.execute(client, args, now_ms);
                    if execution.blocked {
                        self.journal_push(|| Journaled::Blocked { conn: client.id });
                        return Batch::Blocked;
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
                    if execution.close {
                        return Batch::Close;
                    }
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
        let mut hz = self.node().config.expire_cycles_per_second;
        let mut ticker = ticker_of(hz);
        loop {
            ticker.tick().await;
            if running() {
                let now_ms = self.clock.now_ms();
                self.node().cycle(now_ms);
            }
            // CONFIG SET hz takes effect at the next cycle.
            let configured = self.node().config.expire_cycles_per_second;
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

    /// Accept connections on `listener` forever, one task per connection, and run the
    /// expiry cycle. Used by `amnesia serve-model`.
    pub async fn serve_tcp(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        tokio::spawn(self.clone().run_expiry_cycle());
        loop {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            tokio::spawn(self.clone().serve_connection(stream));
        }
    }
}
