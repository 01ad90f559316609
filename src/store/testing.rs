//! Stores that misbehave on purpose to test amnesia itself, not a memory layer: they are
//! accepted by name but never listed (see [`super::TEST_STORE_NAMES`]).

use crate::connect::Connector;
use crate::store::{Message, RedisChatStore, SessionKey, StoreError};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The seed on which `test-hang` blocks.
#[doc(hidden)]
pub const HANG_SEED: u64 = 3;

/// The reference store, except that on [`HANG_SEED`] its first append blocks the OS
/// thread forever (a store that calls blocking I/O inside async code).
#[doc(hidden)]
pub struct HangStore {
    inner: RedisChatStore,
    hang: bool,
}

impl HangStore {
    pub fn new(inner: RedisChatStore, seed: u64) -> Self {
        Self {
            inner,
            hang: seed == HANG_SEED,
        }
    }
}

super::variants::memory_store!(HangStore, forward inner [context, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        if self.hang {
            // Spurious wake-ups aside, nothing ever unparks this thread.
            loop {
                std::thread::park();
            }
        }
        self.inner.append(session, msg).await
    }
});

/// Stores built so far in this process: the source of `test-nondeterministic`'s drift.
static BUILDS: AtomicU64 = AtomicU64::new(0);

/// The reference store, with an append delay that depends on how many stores this
/// process built before it: the same seed never runs the same way twice.
#[doc(hidden)]
pub struct NondeterministicStore {
    inner: RedisChatStore,
    delay_ms: u64,
}

impl NondeterministicStore {
    pub fn new(inner: RedisChatStore) -> Self {
        let build = BUILDS.fetch_add(1, Ordering::Relaxed);
        Self {
            inner,
            delay_ms: 1 + build % 7, // tokio's timers tick in whole milliseconds
        }
    }
}

super::variants::memory_store!(NondeterministicStore, forward inner [context, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        tokio::time::sleep(std::time::Duration::from_millis(self.delay_ms)).await;
        self.inner.append(session, msg).await
    }
});

/// The reference store that treats a restarted Redis (a new `run_id` in `INFO server`) as
/// a cold cache and runs `FLUSHDB` before its next append: it declares that it keeps what
/// Redis keeps, and loses acknowledged history older than any durable point.
#[doc(hidden)]
pub struct AmnesiacStore {
    inner: RedisChatStore,
    connector: Arc<Connector>,
    /// The `run_id` this process last saw.
    run_id: Mutex<Option<String>>,
}

impl AmnesiacStore {
    pub fn new(inner: RedisChatStore, connector: Arc<Connector>) -> Self {
        Self {
            inner,
            connector,
            run_id: Mutex::new(None),
        }
    }

    async fn forget_if_restarted(&self) -> Result<(), StoreError> {
        let info: String = self
            .connector
            .run(|mut c| async move { redis::cmd("INFO").arg("server").query_async(&mut c).await })
            .await?;
        let run_id = info
            .lines()
            .find_map(|line| line.strip_prefix("run_id:"))
            .unwrap_or_default()
            .to_string();
        let previous = self
            .run_id
            .lock()
            .expect("never poisoned")
            .replace(run_id.clone());
        if previous.is_some_and(|previous| previous != run_id) {
            self.connector
                .run(|mut c| async move { redis::cmd("FLUSHDB").query_async::<()>(&mut c).await })
                .await?;
        }
        Ok(())
    }
}

super::variants::memory_store!(AmnesiacStore, forward inner [context, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        self.forget_if_restarted().await?;
        self.inner.append(session, msg).await
    }
});
