//! What database clients call of the shim, outside and inside a simulation: a simulated
//! stream driven by readiness (`try_read`, `try_read_buf`, `try_write`, `readable`,
//! `writable`: sqlx) and carrying socket options on a stand-in file descriptor (socket2's
//! `SockRef`: tokio-postgres); `runtime::Handle::spawn` on the simulator's executor inside
//! a simulation and on tokio's outside (sqlx's pool); a Unix stream's `try_read_buf` with
//! the graph's `bytes`. `cargo test --features full` (scripts/test runs it).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::Poll;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::simulation::{BoxFuture, SimStream, SimTask, Simulator};

thread_local! {
    /// Whether this test thread is "inside a simulation".
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// The tasks the simulator was handed, for the test to run.
    static SPAWNED: RefCell<Vec<BoxFuture<()>>> = const { RefCell::new(Vec::new()) };
    /// The server's end of the last simulated connection.
    static PEER: RefCell<Option<DuplexStream>> = const { RefCell::new(None) };
}

/// The buffer of a simulated connection, in each direction: small, so a write blocks.
const PIPE_BYTES: usize = 4;

/// A simulator whose network is one in-memory pipe per connect and whose executor is the
/// test itself (it runs what was spawned).
struct Pipes;

impl Simulator for Pipes {
    fn active(&self) -> bool {
        INSIDE.with(Cell::get)
    }
    fn spawn(&self, task: BoxFuture<()>) -> Arc<dyn SimTask> {
        SPAWNED.with(|spawned| spawned.borrow_mut().push(task));
        Arc::new(Queued)
    }
    fn sleep_until(&self, _: std::time::Instant) -> BoxFuture<()> {
        panic!("nothing here sleeps")
    }
    fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
        assert_eq!(host, "db.simulated");
        Ok(vec![SocketAddr::from(([10, 0, 0, 1], port))])
    }
    fn connect(&self, addr: SocketAddr) -> BoxFuture<io::Result<Box<dyn SimStream>>> {
        let (client, server) = tokio::io::duplex(PIPE_BYTES);
        PEER.with(|peer| *peer.borrow_mut() = Some(server));
        Box::pin(async move {
            Ok(Box::new(Pipe {
                stream: client,
                peer: addr,
            }) as Box<dyn SimStream>)
        })
    }
}

/// A queued task: never aborted here.
struct Queued;

impl SimTask for Queued {
    fn abort(&self) {}
    fn is_finished(&self) -> bool {
        false
    }
}

/// The client's end of a simulated connection.
struct Pipe {
    stream: DuplexStream,
    peer: SocketAddr,
}

impl SimStream for Pipe {
    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(SocketAddr::from(([10, 0, 0, 2], 40_000)))
    }
    fn peer_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.peer)
    }
}

impl tokio::io::AsyncRead for Pipe {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Pipe {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }
    fn poll_shutdown(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

static PIPES: Pipes = Pipes;

/// `future` to its end on a current-thread tokio runtime, inside a simulation or not.
fn run<F: Future>(inside: bool, future: F) -> F::Output {
    tokio::simulation::install(&PIPES);
    INSIDE.with(|flag| flag.set(inside));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let output = runtime.block_on(future);
    INSIDE.with(|flag| flag.set(false));
    output
}

/// Whether `future` is still pending after one poll.
async fn pending<F: Future>(future: Pin<&mut F>) -> bool {
    let mut future = future;
    std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx).is_pending())).await
}

fn would_block<T: std::fmt::Debug>(outcome: io::Result<T>) -> bool {
    outcome.is_err_and(|error| error.kind() == io::ErrorKind::WouldBlock)
}

#[test]
fn a_simulated_stream_reads_by_readiness() {
    run(true, async {
        let stream = tokio::net::TcpStream::connect("db.simulated:5432")
            .await
            .unwrap();
        let mut server = PEER
            .with(|peer| peer.borrow_mut().take())
            .expect("connected");
        let mut buf = [0u8; 8];
        assert!(
            would_block(stream.try_read(&mut buf)),
            "nothing has arrived"
        );
        let mut readable = pin!(stream.readable());
        assert!(
            pending(readable.as_mut()).await,
            "not readable before the peer writes"
        );
        server.write_all(b"hi").await.unwrap();
        readable.await.unwrap();
        let mut bytes = bytes::BytesMut::with_capacity(8);
        assert_eq!(stream.try_read_buf(&mut bytes).unwrap(), 2);
        assert_eq!(&bytes[..], b"hi");
        assert!(
            would_block(stream.try_read(&mut buf)),
            "read to the end of what came"
        );
        drop(server);
        stream.readable().await.unwrap();
        assert_eq!(
            stream.try_read(&mut buf).unwrap(),
            0,
            "the peer closed: end of stream"
        );
    });
}

#[test]
fn a_simulated_stream_writes_by_readiness() {
    run(true, async {
        let stream = tokio::net::TcpStream::connect("db.simulated:5432")
            .await
            .unwrap();
        let mut server = PEER
            .with(|peer| peer.borrow_mut().take())
            .expect("connected");
        assert_eq!(stream.try_write(b"abcdef").unwrap(), PIPE_BYTES);
        assert!(would_block(stream.try_write(b"ef")), "the pipe is full");
        let mut writable = pin!(stream.writable());
        assert!(pending(writable.as_mut()).await, "not writable while full");
        let mut got = [0u8; PIPE_BYTES];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"abcd");
        writable.await.unwrap();
        assert_eq!(stream.try_write(b"ef").unwrap(), 2);
    });
}

#[test]
fn socket_options_land_on_a_stand_in_socket() {
    run(true, async {
        let stream = tokio::net::TcpStream::connect("db.simulated:5432")
            .await
            .unwrap();
        // tokio-postgres's connect: keepalive and TCP_USER_TIMEOUT through socket2.
        let socket = socket2::SockRef::from(&stream);
        socket.set_keepalive(true).unwrap();
        assert!(socket.keepalive().unwrap());
        #[cfg(target_os = "linux")]
        socket
            .set_tcp_user_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        assert!(
            socket.peer_addr().is_err(),
            "the stand-in is connected to nothing"
        );
        assert_eq!(
            stream.peer_addr().unwrap(),
            SocketAddr::from(([10, 0, 0, 1], 5432))
        );
    });
}

#[test]
fn a_handle_spawns_on_the_simulator_inside_a_simulation() {
    run(true, async {
        let handle = tokio::runtime::Handle::try_current().expect("inside a runtime");
        let task = handle.spawn(async { 7 });
        let blocking = handle.spawn_blocking(|| 8);
        let spawned = SPAWNED.with(|spawned| std::mem::take(&mut *spawned.borrow_mut()));
        assert_eq!(spawned.len(), 2, "both went to the simulator");
        for task in spawned {
            task.await;
        }
        assert_eq!((task.await.unwrap(), blocking.await.unwrap()), (7, 8));
    });
}

#[test]
fn a_handle_spawns_on_tokio_outside_a_simulation() {
    run(false, async {
        let handle = tokio::runtime::Handle::current();
        let task = handle.spawn(async { 5 });
        let blocking = handle.spawn_blocking(|| 6);
        assert_eq!((task.await.unwrap(), blocking.await.unwrap()), (5, 6));
        assert!(SPAWNED.with(|spawned| spawned.borrow().is_empty()));
    });
}

#[test]
fn a_unix_stream_reads_into_the_graphs_bytes() {
    run(false, async {
        let (reader, mut writer) = tokio::net::UnixStream::pair().unwrap();
        writer.write_all(b"sqlx").await.unwrap();
        reader.readable().await.unwrap();
        let mut bytes = bytes::BytesMut::with_capacity(16);
        assert_eq!(reader.try_read_buf(&mut bytes).unwrap(), 4);
        assert_eq!(&bytes[..], b"sqlx");
    });
}
