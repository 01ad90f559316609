//! A simulated stream as [`crate::net::TcpStream`] holds it, with what clients that drive
//! a socket by readiness rather than by `AsyncRead`/`AsyncWrite` call (sqlx: `try_read`,
//! `try_write`, `poll_read_ready`, `poll_write_ready`), and an OS socket that stands for it
//! where a client sets socket options through its file descriptor (tokio-postgres:
//! socket2's `SockRef::from(&stream)`, keepalive and `TCP_USER_TIMEOUT`).
//!
//! A `try_` call polls the stream once with a waker of its own: `Pending` is
//! `WouldBlock`, and the stream's later wake marks the direction ready, waking whoever
//! then waits in `poll_*_ready`. So nothing is buffered here and no byte is read ahead.

use crate::io::ReadBuf;
use crate::simulation::SimStream;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Wake, Waker};

/// A simulated stream and its readiness.
pub(crate) struct Simulated {
    stream: Mutex<Box<dyn SimStream>>,
    read: Readiness,
    write: Readiness,
    /// The OS socket [`AsFd`] hands out, made at the first ask.
    stand_in: OnceLock<socket2::Socket>,
}

impl Simulated {
    pub(crate) fn new(stream: Box<dyn SimStream>) -> Simulated {
        Simulated {
            stream: Mutex::new(stream),
            read: Readiness::default(),
            write: Readiness::default(),
            stand_in: OnceLock::new(),
        }
    }

    /// The stream, for `&mut` paths (no locking).
    pub(crate) fn get_mut(&mut self) -> &mut Box<dyn SimStream> {
        self.stream
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The stream, for `&self` paths: one thread polls it, so the lock is never contended.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Box<dyn SimStream>> {
        self.stream
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn into_inner(self) -> Box<dyn SimStream> {
        self.stream
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Read what has arrived into `buf`; `WouldBlock` when nothing has.
    pub(crate) fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let mut stream = self.lock();
        self.read.attempt(|cx| {
            let mut read = ReadBuf::new(buf);
            std::pin::Pin::new(&mut **stream)
                .poll_read(cx, &mut read)
                .map_ok(|()| read.filled().len())
        })
    }

    /// Write what the stream takes now of `buf`; `WouldBlock` when it takes nothing.
    pub(crate) fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        let mut stream = self.lock();
        self.write
            .attempt(|cx| std::pin::Pin::new(&mut **stream).poll_write(cx, buf))
    }

    pub(crate) fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.read.poll_ready(cx)
    }

    pub(crate) fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.write.poll_ready(cx)
    }

    /// An unconnected TCP socket of the peer's family that stands for the stream: the
    /// options a client sets on it reach no simulated behaviour (the simulation has no
    /// keepalive probes or user timeouts). Panics only if the process is out of file
    /// descriptors.
    fn stand_in(&self) -> &socket2::Socket {
        self.stand_in.get_or_init(|| {
            let peer = self.lock().peer_addr();
            let domain = peer.map_or(socket2::Domain::IPV6, socket2::Domain::for_address);
            socket2::Socket::new(domain, socket2::Type::STREAM, Some(socket2::Protocol::TCP))
                .expect("an OS socket to stand for a simulated stream")
        })
    }
}

impl AsFd for Simulated {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.stand_in().as_fd()
    }
}

impl AsRawFd for Simulated {
    fn as_raw_fd(&self) -> RawFd {
        self.stand_in().as_raw_fd()
    }
}

/// One direction's readiness: whether its last attempt blocked, and whether the stream
/// woke it since.
#[derive(Default)]
struct Readiness(Arc<Signal>);

#[derive(Default)]
struct Signal {
    blocked: AtomicBool,
    woken: AtomicBool,
    waiter: Mutex<Option<Waker>>,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        let waiter = self
            .waiter
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        waiter.into_iter().for_each(Waker::wake);
    }
}

impl Readiness {
    /// Poll `operation` once with this direction's waker: `Pending` is `WouldBlock`.
    fn attempt<T>(
        &self,
        operation: impl FnOnce(&mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> io::Result<T> {
        self.0.woken.store(false, Ordering::SeqCst);
        let waker = Waker::from(self.0.clone());
        match operation(&mut Context::from_waker(&waker)) {
            Poll::Ready(outcome) => {
                self.0.blocked.store(false, Ordering::SeqCst);
                outcome
            }
            Poll::Pending => {
                self.0.blocked.store(true, Ordering::SeqCst);
                Err(io::ErrorKind::WouldBlock.into())
            }
        }
    }

    /// Ready unless the last attempt blocked and the stream has not woken it since.
    fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let signal = &self.0;
        if !signal.blocked.load(Ordering::SeqCst) || signal.woken.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(()));
        }
        *signal
            .waiter
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(cx.waker().clone());
        match signal.woken.load(Ordering::SeqCst) {
            true => Poll::Ready(Ok(())),
            false => Poll::Pending,
        }
    }
}
