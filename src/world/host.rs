//! Hosts of a world, in every tier. A host is a set of tasks and the state faults act on:
//! the Redis node (crash and restart, pause) and the app clients (crash and restart,
//! clock skew). Crashing a host aborts its tasks and closes its connections.

use crate::clock::Clock;
use crate::contract::MemoryStore;
use crate::model::Model;
use crate::world::clock::WorldClock;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tokio::task::AbortHandle;

/// The Redis node's host: the model, its connection tasks and its expiry cycle.
pub struct RedisHost {
    pub model: Model,
    /// Crash windows in force: the process runs only at zero. Two windows that meet at
    /// one instant must not bring it up in between, whichever ends or starts first.
    down: AtomicU32,
    paused: AtomicBool,
    tasks: Mutex<Vec<AbortHandle>>,
}

impl RedisHost {
    pub fn new(model: Model) -> Self {
        Self {
            model,
            down: AtomicU32::new(0),
            paused: AtomicBool::new(false),
            tasks: Mutex::new(Vec::new()),
        }
    }

    pub fn is_down(&self) -> bool {
        self.down.load(Ordering::Relaxed) > 0
    }

    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }

    /// Spawn a task that belongs to the node (dies with it).
    pub fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let handle = crate::task::spawn(task).abort_handle();
        let mut tasks = self.tasks.lock().expect("never poisoned");
        tasks.retain(|task| !task.is_finished());
        tasks.push(handle);
    }

    /// Start the active expiry cycle; it skips its work while the process is paused.
    pub fn start_cycle(self: &Arc<Self>) {
        let host = self.clone();
        self.spawn(
            self.model
                .clone()
                .run_expiry_cycle_while(move || !host.is_paused()),
        );
    }

    /// The process dies: every task stops at once (buffered input is never executed).
    /// Returns false if it was down already.
    pub fn crash(&self) -> bool {
        if self.down.fetch_add(1, Ordering::Relaxed) > 0 {
            return false;
        }
        for task in self.tasks.lock().expect("never poisoned").drain(..) {
            task.abort();
        }
        true
    }

    /// One crash window ends; when the last does, the process starts again with what its
    /// persistence model recovers. Returns true if it started.
    pub fn restart(self: &Arc<Self>) -> bool {
        if !self.recover() {
            return false;
        }
        self.start_cycle();
        true
    }

    /// One crash window ends; when the last does, the model recovers what its persistence
    /// keeps, and the caller starts the process's tasks. Returns true if it recovered.
    pub fn recover(&self) -> bool {
        assert!(self.is_down(), "a restart follows a crash");
        if self.down.fetch_sub(1, Ordering::Relaxed) > 1 {
            return false;
        }
        self.model.restart();
        true
    }

    pub fn set_paused(&self, paused: bool) {
        self.paused.store(paused, Ordering::Relaxed);
    }
}

/// A piece of a client process's work, handed to the runtime its host runs on.
pub type Job = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// The runtime a client process runs on, when it is not the world's: it runs the
/// process's work, and dies and starts again with the process.
pub trait Process: Send + Sync {
    /// Run `job` on the process's runtime.
    fn spawn(&self, job: Job);
    /// The process died: its runtime goes down with every task on it.
    fn crash(&self);
    /// The process starts again, on a fresh runtime.
    fn restart(&self);
}

/// Where a client host's process runs.
pub type Executor = Arc<dyn Process>;

/// An app client's host: its store (rebuilt after a crash), its wall clock and its life.
pub struct ClientHost {
    /// Where the process's work runs: `None`, inline wherever it is awaited (one runtime
    /// for the whole world); set, on the host's own runtime (turmoil: a host's sockets
    /// work only on its runtime).
    executor: std::sync::OnceLock<Executor>,
    store: Mutex<Option<Arc<dyn MemoryStore>>>,
    /// Bumped by every crash; connections and in-flight operations of an older
    /// generation belong to a dead process.
    generation: watch::Sender<u64>,
    clock_offset_ms: Arc<AtomicI64>,
    world_clock: WorldClock,
    /// Crash windows in force, as for the Redis host.
    down: AtomicU32,
}

impl ClientHost {
    pub fn new(world_clock: WorldClock) -> Self {
        Self {
            executor: std::sync::OnceLock::new(),
            store: Mutex::new(None),
            generation: watch::Sender::new(0),
            clock_offset_ms: Arc::new(AtomicI64::new(0)),
            world_clock,
            down: AtomicU32::new(0),
        }
    }

    #[cfg(feature = "turmoil")]
    /// Run the process's work on `executor` from now on (set once, before the world runs).
    pub fn set_executor(&self, executor: Executor) {
        assert!(
            self.executor.set(executor).is_ok(),
            "a host's executor is set once"
        );
    }

    /// Run `work` as the host's process; `None` if the process died before it finished.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl std::future::Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        let Some(executor) = self.executor.get() else {
            return Some(work.await);
        };
        let (done, result) = tokio::sync::oneshot::channel();
        executor.spawn(Box::pin(async move {
            let _ = done.send(work.await);
        }));
        result.await.ok()
    }

    pub fn generation(&self) -> u64 {
        *self.generation.borrow()
    }

    /// Resolves when the host crashes (its generation moves past the current one).
    pub fn crashed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut receiver = self.generation.subscribe();
        let generation = *receiver.borrow_and_update();
        async move {
            let _ = receiver.wait_for(|g| *g != generation).await;
        }
    }

    /// The running store, or `None` while the process is down.
    pub fn store(&self) -> Option<Arc<dyn MemoryStore>> {
        self.store.lock().expect("never poisoned").clone()
    }

    pub fn start(&self, store: Arc<dyn MemoryStore>) {
        *self.store.lock().expect("never poisoned") = Some(store);
    }

    /// The process dies; its store and everything it spawned are gone for good. Returns
    /// false if it was down already.
    pub fn crash(&self) -> bool {
        if self.down.fetch_add(1, Ordering::Relaxed) > 0 {
            return false;
        }
        *self.store.lock().expect("never poisoned") = None;
        self.generation.send_modify(|g| *g += 1);
        if let Some(executor) = self.executor.get() {
            executor.crash();
        }
        true
    }

    /// One crash window ends; true if it was the last, so the process may start again.
    pub fn end_crash(&self) -> bool {
        assert!(
            self.down.load(Ordering::Relaxed) > 0,
            "a restart follows a crash"
        );
        let last = self.down.fetch_sub(1, Ordering::Relaxed) == 1;
        if let Some(executor) = self.executor.get().filter(|_| last) {
            executor.restart();
        }
        last
    }

    /// The host's wall clock: the world's, shifted by the current skew.
    pub fn clock(&self) -> Clock {
        let (offset, world) = (self.clock_offset_ms.clone(), self.world_clock.clone());
        Clock::from_fn(move || {
            (world.unix_ms() as i64 + offset.load(Ordering::Relaxed)).max(0) as u64
        })
    }

    pub fn set_clock_offset_ms(&self, offset_ms: i64) {
        self.clock_offset_ms.store(offset_ms, Ordering::Relaxed);
    }
}

/// `client-N`: how the trace names app client `client`; the usual few without formatting
/// (the recorder names a host twice per operation).
pub fn client_host_name(client: u32) -> String {
    const NAMES: [&str; 8] = [
        "client-0", "client-1", "client-2", "client-3", "client-4", "client-5", "client-6",
        "client-7",
    ];
    match NAMES.get(client as usize) {
        Some(name) => (*name).to_string(),
        None => format!("client-{client}"),
    }
}
