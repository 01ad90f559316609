//! `tokio::net` with a simulated [`TcpStream`]: inside a simulation a connect reaches the
//! simulator's network; outside, tokio's own socket. The rest is tokio's.

use crate::io::{AsyncRead, AsyncWrite, ReadBuf};
use crate::readiness::Simulated;
use crate::simulation::{current, unsupported, SimStream};
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::pin::Pin;
use std::task::{Context, Poll};

pub use real::net::*;

/// Where a connect or a lookup goes, before resolution.
#[doc(hidden)]
pub enum Target {
    Addrs(Vec<SocketAddr>),
    HostPort(String, u16),
    Host(String),
}

impl Target {
    /// The addresses of the target inside the simulation.
    fn resolve_simulated(
        self,
        simulator: &dyn crate::simulation::Simulator,
    ) -> io::Result<Vec<SocketAddr>> {
        match self {
            Target::Addrs(addrs) => Ok(addrs),
            Target::HostPort(host, port) => match host.parse::<IpAddr>() {
                Ok(ip) => Ok(vec![SocketAddr::new(ip, port)]),
                Err(_) => simulator.resolve(&host, port),
            },
            Target::Host(text) => {
                if let Ok(addr) = text.parse::<SocketAddr>() {
                    return Ok(vec![addr]);
                }
                let invalid =
                    || io::Error::new(io::ErrorKind::InvalidInput, "invalid socket address");
                let (host, port) = text.rsplit_once(':').ok_or_else(invalid)?;
                let port = port.parse::<u16>().map_err(|_| invalid())?;
                simulator.resolve(host, port)
            }
        }
    }
}

/// What `connect` and `lookup_host` take: tokio's list of address forms.
pub trait ToSocketAddrs {
    #[doc(hidden)]
    fn to_target(&self) -> Target;
}

macro_rules! addr_target {
    ($($ty:ty),*) => {$(
        impl ToSocketAddrs for $ty {
            fn to_target(&self) -> Target {
                Target::Addrs(vec![SocketAddr::from(*self)])
            }
        }
    )*};
}
addr_target!(
    SocketAddr,
    SocketAddrV4,
    SocketAddrV6,
    (IpAddr, u16),
    (Ipv4Addr, u16),
    (Ipv6Addr, u16)
);

impl ToSocketAddrs for [SocketAddr] {
    fn to_target(&self) -> Target {
        Target::Addrs(self.to_vec())
    }
}
impl ToSocketAddrs for str {
    fn to_target(&self) -> Target {
        Target::Host(self.to_string())
    }
}
impl ToSocketAddrs for String {
    fn to_target(&self) -> Target {
        Target::Host(self.clone())
    }
}
impl ToSocketAddrs for (&str, u16) {
    fn to_target(&self) -> Target {
        Target::HostPort(self.0.to_string(), self.1)
    }
}
impl ToSocketAddrs for (String, u16) {
    fn to_target(&self) -> Target {
        Target::HostPort(self.0.clone(), self.1)
    }
}
impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {
    fn to_target(&self) -> Target {
        (**self).to_target()
    }
}

/// The addresses `host` resolves to: the simulator's names inside a simulation.
pub async fn lookup_host<T: ToSocketAddrs>(host: T) -> io::Result<std::vec::IntoIter<SocketAddr>> {
    let target = host.to_target();
    if let Some(simulator) = current() {
        return target.resolve_simulated(simulator).map(Vec::into_iter);
    }
    let addrs: Vec<SocketAddr> = match target {
        Target::Addrs(addrs) => addrs,
        Target::HostPort(host, port) => real::net::lookup_host((host.as_str(), port))
            .await?
            .collect(),
        Target::Host(text) => real::net::lookup_host(text.as_str()).await?.collect(),
    };
    Ok(addrs.into_iter())
}

/// A TCP stream: tokio's, or one of the simulated network.
pub struct TcpStream {
    inner: Inner,
}

enum Inner {
    Real(real::net::TcpStream),
    Simulated(Simulated),
}

impl std::fmt::Debug for TcpStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            Inner::Real(stream) => stream.fmt(f),
            Inner::Simulated(stream) => f
                .debug_struct("TcpStream")
                .field("simulated", &true)
                .field("peer", &stream.lock().peer_addr().ok())
                .finish(),
        }
    }
}

impl TcpStream {
    /// Connect to `addr`, trying each address it resolves to in order.
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        let target = addr.to_target();
        let Some(simulator) = current() else {
            let stream = match target {
                Target::Addrs(addrs) => real::net::TcpStream::connect(&addrs[..]).await?,
                Target::HostPort(host, port) => {
                    real::net::TcpStream::connect((host.as_str(), port)).await?
                }
                Target::Host(text) => real::net::TcpStream::connect(text.as_str()).await?,
            };
            return Ok(TcpStream::from(stream));
        };
        let mut last = io::Error::new(
            io::ErrorKind::InvalidInput,
            "could not resolve to any address",
        );
        for addr in target.resolve_simulated(simulator)? {
            match simulator.connect(addr).await {
                Ok(stream) => return Ok(TcpStream::from_simulated(stream)),
                Err(error) => last = error,
            }
        }
        Err(last)
    }

    /// A stream of the simulated network, as a simulator hands it out.
    pub fn from_simulated(stream: Box<dyn SimStream>) -> TcpStream {
        TcpStream {
            inner: Inner::Simulated(Simulated::new(stream)),
        }
    }

    /// tokio's stream, or the error of a simulated one (which has none).
    fn real(&self, what: &str) -> io::Result<&real::net::TcpStream> {
        match &self.inner {
            Inner::Real(stream) => Ok(stream),
            Inner::Simulated(_) => Err(unsupported(what)),
        }
    }

    /// tokio's stream over `stream`, or, for a stand-in [`TcpStream::into_std`] issued,
    /// the simulated stream it stands for.
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        if let Some(simulated) = stand_in::redeem(&stream) {
            return Ok(TcpStream::from_simulated(simulated));
        }
        real::net::TcpStream::from_std(stream).map(TcpStream::from)
    }

    /// The OS socket under tokio's stream. A simulated stream has none, yet clients set
    /// socket options through one and hand it back (the `redis` crate: `into_std`,
    /// socket2's keepalive and linger, `from_std`): it gets an unconnected TCP socket that
    /// stands for it until [`TcpStream::from_std`] takes that socket back. The options
    /// land on the stand-in: the simulated network has no keepalive probes or lingering.
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        match self.inner {
            Inner::Real(stream) => stream.into_std(),
            Inner::Simulated(stream) => stand_in::issue(stream.into_inner()),
        }
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        match &self.inner {
            Inner::Real(stream) => stream.local_addr(),
            Inner::Simulated(stream) => stream.lock().local_addr(),
        }
    }

    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        match &self.inner {
            Inner::Real(stream) => stream.peer_addr(),
            Inner::Simulated(stream) => stream.lock().peer_addr(),
        }
    }

    /// Always true on a simulated stream: it sends what is written at once.
    pub fn nodelay(&self) -> io::Result<bool> {
        match &self.inner {
            Inner::Real(stream) => stream.nodelay(),
            Inner::Simulated(_) => Ok(true),
        }
    }

    /// A no-op on a simulated stream, which has no Nagle delay to turn off.
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        match &self.inner {
            Inner::Real(stream) => stream.set_nodelay(nodelay),
            Inner::Simulated(_) => Ok(()),
        }
    }

    pub fn linger(&self) -> io::Result<Option<std::time::Duration>> {
        self.real("SO_LINGER")?.linger()
    }

    #[deprecated = "`SO_LINGER` causes the socket to block the thread on drop"]
    pub fn set_linger(&self, linger: Option<std::time::Duration>) -> io::Result<()> {
        // tokio deprecates it too (and keeps it): passed on as it is.
        #[allow(deprecated)]
        self.real("SO_LINGER")?.set_linger(linger)
    }

    /// tokio 1.50's replacement of `set_linger(Some(0))`.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        self.real("SO_LINGER")?.set_zero_linger()
    }

    pub fn ttl(&self) -> io::Result<u32> {
        self.real("IP_TTL")?.ttl()
    }

    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.real("IP_TTL")?.set_ttl(ttl)
    }
}

/// Readiness, as clients that drive a socket themselves use it (sqlx). On a simulated
/// stream a `try_` call polls it once: `WouldBlock` until the stream wakes that direction.
impl TcpStream {
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        match &self.inner {
            Inner::Real(stream) => stream.try_read(buf),
            Inner::Simulated(stream) => stream.try_read(buf),
        }
    }

    /// tokio's `try_read_buf`, taking the graph's `bytes` buffers (see [`crate::io`]).
    #[cfg(feature = "bytes")]
    pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        read_into(buf, |slice| self.try_read(slice))
    }

    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        match &self.inner {
            Inner::Real(stream) => stream.try_write(buf),
            Inner::Simulated(stream) => stream.try_write(buf),
        }
    }

    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &self.inner {
            Inner::Real(stream) => stream.poll_read_ready(cx),
            Inner::Simulated(stream) => stream.poll_read_ready(cx),
        }
    }

    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &self.inner {
            Inner::Real(stream) => stream.poll_write_ready(cx),
            Inner::Simulated(stream) => stream.poll_write_ready(cx),
        }
    }

    pub async fn readable(&self) -> io::Result<()> {
        std::future::poll_fn(|cx| self.poll_read_ready(cx)).await
    }

    pub async fn writable(&self) -> io::Result<()> {
        std::future::poll_fn(|cx| self.poll_write_ready(cx)).await
    }
}

/// Read through `read` into `buf`'s spare capacity (zeroed first: `read` takes initialized
/// bytes), and advance `buf` by what was read.
#[cfg(feature = "bytes")]
fn read_into<B: bytes::BufMut>(
    buf: &mut B,
    read: impl FnOnce(&mut [u8]) -> io::Result<usize>,
) -> io::Result<usize> {
    let chunk = buf.chunk_mut();
    let len = chunk.len();
    // SAFETY: `chunk` is `len` writable bytes; they are initialized (zeroed) before the
    // slice over them is made, and `advance_mut` covers only what `read` filled.
    let slice = unsafe {
        std::ptr::write_bytes(chunk.as_mut_ptr(), 0, len);
        std::slice::from_raw_parts_mut(chunk.as_mut_ptr(), len)
    };
    let read = read(slice)?;
    assert!(read <= len, "a read past its buffer");
    unsafe { buf.advance_mut(read) };
    Ok(read)
}

/// The OS socket under tokio's stream; for a simulated stream, an unconnected socket that
/// stands for it (socket options set through it reach nothing simulated: tokio-postgres
/// sets keepalive and `TCP_USER_TIMEOUT` through socket2's `SockRef`).
impl std::os::fd::AsFd for TcpStream {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        match &self.inner {
            Inner::Real(stream) => stream.as_fd(),
            Inner::Simulated(stream) => stream.as_fd(),
        }
    }
}

impl std::os::fd::AsRawFd for TcpStream {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        match &self.inner {
            Inner::Real(stream) => stream.as_raw_fd(),
            Inner::Simulated(stream) => stream.as_raw_fd(),
        }
    }
}

impl From<real::net::TcpStream> for TcpStream {
    fn from(stream: real::net::TcpStream) -> Self {
        TcpStream {
            inner: Inner::Real(stream),
        }
    }
}

impl TryFrom<std::net::TcpStream> for TcpStream {
    type Error = io::Error;
    fn try_from(stream: std::net::TcpStream) -> io::Result<Self> {
        TcpStream::from_std(stream)
    }
}

impl AsyncRead for TcpStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.get_mut().inner {
            Inner::Real(stream) => Pin::new(stream).poll_read(cx, buf),
            Inner::Simulated(stream) => Pin::new(stream.get_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for TcpStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().inner {
            Inner::Real(stream) => Pin::new(stream).poll_write(cx, buf),
            Inner::Simulated(stream) => Pin::new(stream.get_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().inner {
            Inner::Real(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
            Inner::Simulated(stream) => Pin::new(stream.get_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.inner {
            Inner::Real(stream) => stream.is_write_vectored(),
            Inner::Simulated(stream) => stream.lock().is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().inner {
            Inner::Real(stream) => Pin::new(stream).poll_flush(cx),
            Inner::Simulated(stream) => Pin::new(stream.get_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().inner {
            Inner::Real(stream) => Pin::new(stream).poll_shutdown(cx),
            Inner::Simulated(stream) => Pin::new(stream.get_mut()).poll_shutdown(cx),
        }
    }
}

/// tokio's listener, handing out this module's [`TcpStream`]. A simulation has no port to
/// listen on: inside one, `bind` fails with [`unsupported`]'s error.
#[derive(Debug)]
pub struct TcpListener {
    inner: real::net::TcpListener,
}

impl TcpListener {
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        if current().is_some() {
            return Err(unsupported("TcpListener::bind"));
        }
        let inner = match addr.to_target() {
            Target::Addrs(addrs) => real::net::TcpListener::bind(&addrs[..]).await?,
            Target::HostPort(host, port) => {
                real::net::TcpListener::bind((host.as_str(), port)).await?
            }
            Target::Host(text) => real::net::TcpListener::bind(text.as_str()).await?,
        };
        Ok(TcpListener { inner })
    }

    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        let (stream, addr) = self.inner.accept().await?;
        Ok((TcpStream::from(stream), addr))
    }

    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        self.inner
            .poll_accept(cx)
            .map_ok(|(stream, addr)| (TcpStream::from(stream), addr))
    }

    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        real::net::TcpListener::from_std(listener).map(|inner| TcpListener { inner })
    }

    pub fn into_std(self) -> io::Result<std::net::TcpListener> {
        self.inner.into_std()
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }

    pub fn ttl(&self) -> io::Result<u32> {
        self.inner.ttl()
    }

    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.inner.set_ttl(ttl)
    }
}

/// tokio's socket builder, connecting to this module's [`TcpStream`] (tokio's only: a
/// socket built by hand has no simulated counterpart).
#[derive(Debug)]
pub struct TcpSocket {
    inner: real::net::TcpSocket,
}

impl std::ops::Deref for TcpSocket {
    type Target = real::net::TcpSocket;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl TcpSocket {
    pub fn new_v4() -> io::Result<TcpSocket> {
        real::net::TcpSocket::new_v4().map(|inner| TcpSocket { inner })
    }

    pub fn new_v6() -> io::Result<TcpSocket> {
        real::net::TcpSocket::new_v6().map(|inner| TcpSocket { inner })
    }

    pub fn from_std_stream(stream: std::net::TcpStream) -> TcpSocket {
        TcpSocket {
            inner: real::net::TcpSocket::from_std_stream(stream),
        }
    }

    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        if current().is_some() {
            return Err(unsupported("TcpSocket::connect"));
        }
        self.inner.connect(addr).await.map(TcpStream::from)
    }

    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        self.inner
            .listen(backlog)
            .map(|inner| TcpListener { inner })
    }
}

/// Stand-in OS sockets for simulated streams, by file descriptor.
mod stand_in {
    use crate::simulation::{current, unsupported, SimStream};
    use std::collections::BTreeMap;
    use std::io;
    use std::os::fd::{AsRawFd, RawFd};
    use std::sync::Mutex;

    /// Simulated streams out as stand-ins: few at once (one per connect in progress).
    static OUT: Mutex<BTreeMap<RawFd, Box<dyn SimStream>>> = Mutex::new(BTreeMap::new());
    /// A leak guard: more stand-ins out than this is a client that never hands them back.
    const OUT_MAX: usize = 1_024;

    pub(super) fn issue(stream: Box<dyn SimStream>) -> io::Result<std::net::TcpStream> {
        let domain = socket2::Domain::for_address(stream.peer_addr()?);
        let socket =
            socket2::Socket::new(domain, socket2::Type::STREAM, Some(socket2::Protocol::TCP))?;
        let mut out = OUT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if out.len() >= OUT_MAX {
            return Err(unsupported(
                "more than 1024 simulated streams held as OS sockets",
            ));
        }
        out.insert(socket.as_raw_fd(), stream);
        Ok(socket.into())
    }

    /// The simulated stream `socket` stands for; the stand-in is closed. Only inside a
    /// simulation, which has no OS sockets of its own to confuse with one.
    pub(super) fn redeem(socket: &std::net::TcpStream) -> Option<Box<dyn SimStream>> {
        current()?;
        let mut out = OUT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        out.remove(&socket.as_raw_fd())
    }
}

/// tokio's Unix stream. A simulation has no Unix sockets: inside one, `connect` fails with
/// [`unsupported`]'s error (the redis crate's `redis+unix://` URLs) instead of reaching a
/// runtime that has no IO driver.
#[cfg(unix)]
#[derive(Debug)]
pub struct UnixStream {
    inner: real::net::UnixStream,
}

#[cfg(unix)]
impl std::ops::Deref for UnixStream {
    type Target = real::net::UnixStream;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

#[cfg(unix)]
impl UnixStream {
    pub async fn connect<P: AsRef<std::path::Path>>(path: P) -> io::Result<UnixStream> {
        if current().is_some() {
            return Err(unsupported("a Unix socket"));
        }
        real::net::UnixStream::connect(path)
            .await
            .map(|inner| UnixStream { inner })
    }

    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let (a, b) = real::net::UnixStream::pair()?;
        Ok((UnixStream { inner: a }, UnixStream { inner: b }))
    }

    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        real::net::UnixStream::from_std(stream).map(|inner| UnixStream { inner })
    }

    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        self.inner.into_std()
    }

    pub fn into_split(self) -> (unix::OwnedReadHalf, unix::OwnedWriteHalf) {
        self.inner.into_split()
    }

    /// tokio's `try_read_buf`, taking the graph's `bytes` buffers (see [`crate::io`]): sqlx
    /// reads a Unix socket through it.
    #[cfg(feature = "bytes")]
    pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        read_into(buf, |slice| self.inner.try_read(slice))
    }
}

#[cfg(unix)]
impl AsyncRead for UnixStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

#[cfg(unix)]
impl AsyncWrite for UnixStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
