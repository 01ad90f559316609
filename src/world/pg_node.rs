//! The simulator's PostgreSQL node: the PostgreSQL model on a host of tasks, reached
//! through the in-memory network like the Redis node. A crash aborts its connections and
//! its open transactions and loses the commits its WAL had not flushed (none under the
//! default `synchronous_commit = on`); a pause freezes its links.

use crate::connect::{BoxStream, DialFuture, Dialer};
use crate::domain::{Backend, Persistence};
use crate::history::{Kept, Restart};
use crate::pg::PgModel;
use crate::trace::Trace;
use crate::world::clock::WorldClock;
use crate::world::net::Link;
use crate::world::node::{DialFrom, ServerNode};
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use tokio::task::AbortHandle;

/// The PostgreSQL model's host: the model, its connection tasks, its WAL writer.
pub struct PgHost {
    model: PgModel,
    down: AtomicU32,
    tasks: Mutex<Vec<AbortHandle>>,
    clock: WorldClock,
}

impl PgHost {
    /// A server on `clock` (its `now()`), its randomness from `seed`.
    pub(crate) fn new(seed: u64, clock: WorldClock) -> Arc<PgHost> {
        let model_clock = clock.clone();
        let model = PgModel::new(
            seed,
            Arc::new(move || (model_clock.unix_ms() * 1_000 + model_clock.now_us() % 1_000) as i64),
        );
        let host = Arc::new(PgHost {
            model,
            down: AtomicU32::new(0),
            tasks: Mutex::new(Vec::new()),
            clock,
        });
        host.start_wal_writer();
        host
    }

    fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let handle = crate::task::spawn(task).abort_handle();
        let mut tasks = self.tasks.lock().expect("never poisoned");
        tasks.retain(|task| !task.is_finished());
        tasks.push(handle);
    }

    /// Flush the WAL every `wal_writer_delay`, as PostgreSQL's WAL writer does.
    fn start_wal_writer(&self) {
        let (model, clock) = (self.model.clone(), self.clock.clone());
        self.spawn(async move {
            loop {
                let next_us = clock.now_us() + crate::pg::WAL_WRITER_DELAY_MS * 1_000;
                clock.sleep_until_us(next_us).await;
                model.flush_wal();
            }
        });
    }

    pub(crate) fn is_down(&self) -> bool {
        self.down.load(Ordering::Relaxed) > 0
    }
}

/// The PostgreSQL node of a simulated world.
pub struct PgNode {
    pub host: Arc<PgHost>,
    /// Every client's link: a paused node holds all of them.
    pub links: Vec<Arc<Link>>,
    pub clock: WorldClock,
    pub trace: Trace,
    pub seed: u64,
}

#[async_trait::async_trait]
impl ServerNode for PgNode {
    fn backend(&self) -> Backend {
        Backend::Pgvector
    }

    fn dialer(&self, from: DialFrom) -> Arc<dyn Dialer> {
        Arc::new(PgDialer {
            from,
            host: self.host.clone(),
            clock: self.clock.clone(),
            trace: self.trace.clone(),
            seed: self.seed,
        })
    }

    async fn crash(&self) -> Option<Restart> {
        if self.host.down.fetch_add(1, Ordering::Relaxed) > 0 {
            return None;
        }
        for task in self.host.tasks.lock().expect("never poisoned").drain(..) {
            task.abort();
        }
        let kept = match self.host.model.crash() {
            None => Kept::Everything,
            Some(lost_from_unix_us) => Kept::AppliedBefore {
                before_us: self.clock.us_of_unix_ms((lost_from_unix_us / 1_000) as u64),
                observed: true,
            },
        };
        Some(Restart {
            at_us: self.clock.now_us(),
            persistence: Persistence::None,
            kept,
            backend: Backend::Pgvector,
        })
    }

    async fn restart(&self) -> Option<String> {
        assert!(self.host.is_down(), "a restart follows a crash");
        if self.host.down.fetch_sub(1, Ordering::Relaxed) > 1 {
            return None;
        }
        self.host.start_wal_writer();
        let rows = self.host.model.live_rows();
        Some(format!(
            "postgres restarted (crash recovery from its WAL): {rows} row versions"
        ))
    }

    async fn set_paused(&self, paused: bool) {
        self.links
            .iter()
            .for_each(|link| link.update_faults(|f| f.redis_paused = paused));
    }

    fn inject_error(&self, _error: &str) -> bool {
        false
    }

    fn withdraw_error(&self) -> bool {
        false
    }

    fn set_slots_full(&self, full: bool) -> bool {
        self.host.model.set_slots_full(full);
        true
    }

    fn terminate_backends(&self, client: u32) -> Option<usize> {
        Some(self.host.model.terminate_owner(client))
    }

    /// The migration's session runs as one of the host's tasks: a crash takes it down
    /// with its locks, as it takes every backend.
    fn lock_tables(&self, until_ms: u64) -> Option<Vec<String>> {
        if self.host.is_down() {
            return None;
        }
        let tables = self.host.model.table_names();
        if tables.is_empty() {
            return Some(tables);
        }
        let (model, clock, locked) = (self.host.model.clone(), self.clock.clone(), tables.clone());
        let window_ms = (until_ms * 1_000).saturating_sub(clock.now_us()) / 1_000;
        self.host.spawn(async move {
            let (session, _gave_up) = model.lock_tables(&locked, window_ms).await;
            clock.sleep_until_us(until_ms * 1_000).await;
            model.end_session(session);
        });
        Some(tables)
    }
}

/// Dials the PostgreSQL model from one client process; refuses once that process died.
struct PgDialer {
    from: DialFrom,
    host: Arc<PgHost>,
    clock: WorldClock,
    trace: Trace,
    seed: u64,
}

impl Dialer for PgDialer {
    fn dial(&self) -> DialFuture<'_> {
        Box::pin(async move {
            self.from.still_running()?;
            if self.host.is_down() {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionRefused,
                    "postgres is down",
                ));
            }
            let client = self.from.link.client;
            let (client_end, server_end) =
                self.from
                    .link
                    .open_postgres(&self.clock, &self.trace, self.seed);
            self.host.spawn(
                self.host
                    .model
                    .clone()
                    .serve_connection_of(server_end, client),
            );
            Ok(Box::new(client_end) as BoxStream)
        })
    }
}
