//! The real tier's Redis node: a real server behind the fault proxy, as the world's
//! clients and fault schedule see it. A crash kills the process and records the restart
//! with the persistence mode's documented bound (the durable point of a real server is
//! not observable); an error reply is answered by the proxy in the server's place.

use crate::connect::{BoxStream, DialFuture, Dialer};
use crate::contract::Backend;
use crate::domain::Persistence;
use crate::history::Restart;
use crate::real::server::Server;
use crate::trace::Trace;
use crate::world::clock::WorldClock;
use crate::world::node::{DialFrom, ServerNode};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

/// A real server, reached through one proxy listener per client.
pub(crate) struct RealNode {
    pub server: Arc<dyn Server>,
    pub backend: Backend,
    /// Indexed by client.
    pub proxies: Vec<SocketAddr>,
    pub persistence: Persistence,
    pub clock: WorldClock,
    pub trace: Trace,
    /// Crash windows in force: the process runs only at zero.
    pub down: AtomicU32,
    /// Shared with the proxy: the error the next data command gets (Redis only).
    pub pending_error: Option<Arc<crate::real::inject::PendingError>>,
    /// A pause window is in force. It outlasts a crash, as the simulator's does: a
    /// process that restarts within it starts frozen.
    pub paused: AtomicBool,
}

impl RealNode {
    /// A failed server action is a fact of the run: the timeline shows it.
    fn note_failure(&self, result: Result<(), crate::real::server::RealError>) {
        if let Err(error) = result {
            let text = format!("real server: {error}");
            self.trace.record(self.clock.now_us(), "faults", text);
        }
    }
}

#[async_trait::async_trait]
impl ServerNode for RealNode {
    fn backend(&self) -> Backend {
        self.backend
    }

    fn dialer(&self, from: DialFrom) -> Arc<dyn Dialer> {
        let proxy = self.proxies[from.link.client as usize];
        Arc::new(ProxyDialer { from, proxy })
    }

    async fn crash(&self) -> Option<Restart> {
        if self.down.fetch_add(1, Ordering::Relaxed) > 0 {
            return None;
        }
        self.note_failure(self.server.kill().await);
        // Dead for certain once the kill returned: what it applied before may be lost.
        Some(match self.backend {
            Backend::Pgvector => Restart::documented_postgres(self.clock.now_us()),
            _ => Restart::documented(self.clock.now_us(), self.persistence),
        })
    }

    async fn restart(&self) -> Option<String> {
        assert!(
            self.down.load(Ordering::Relaxed) > 0,
            "a restart follows a crash"
        );
        if self.down.fetch_sub(1, Ordering::Relaxed) > 1 {
            return None;
        }
        self.note_failure(self.server.start_again().await);
        let ready = crate::real::server::wait_ready(self.server.as_ref(), self.backend).await;
        self.note_failure(ready);
        if self.backend == Backend::Pgvector {
            if self.paused.load(Ordering::Relaxed) {
                self.note_failure(self.server.set_paused(true).await);
            }
            return Some("postgres restarted (crash recovery from its WAL)".into());
        }
        let keys = match crate::real::server::connect(self.server.as_ref()).await {
            Ok(mut connection) => redis::cmd("DBSIZE")
                .query_async::<u64>(&mut connection)
                .await
                .map_or_else(|e| e.to_string(), |keys| keys.to_string()),
            Err(error) => error,
        };
        if self.paused.load(Ordering::Relaxed) {
            self.note_failure(self.server.set_paused(true).await);
        }
        Some(format!("redis restarted with {keys} keys recovered"))
    }

    async fn set_paused(&self, paused: bool) {
        self.paused.store(paused, Ordering::Relaxed);
        // A dead process is neither frozen nor thawed; a restart applies the window.
        if self.down.load(Ordering::Relaxed) == 0 {
            self.note_failure(self.server.set_paused(paused).await);
        }
    }

    fn inject_error(&self, error: &str) -> bool {
        let Some(pending) = &self.pending_error else {
            return false;
        };
        pending.set(error);
        true
    }

    fn withdraw_error(&self) -> bool {
        self.pending_error
            .as_ref()
            .is_some_and(|pending| pending.take().is_some())
    }
}

/// Dials the client's proxy listener over real TCP; refuses once the client process it
/// was made for is gone, as the simulator's dialer does.
struct ProxyDialer {
    from: DialFrom,
    proxy: SocketAddr,
}

impl Dialer for ProxyDialer {
    fn dial(&self) -> DialFuture<'_> {
        Box::pin(async move {
            self.from.still_running()?;
            let stream = tokio::net::TcpStream::connect(self.proxy).await?;
            stream.set_nodelay(true)?;
            Ok(Box::new(stream) as BoxStream)
        })
    }
}
