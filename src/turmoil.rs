//! amnesia inside your own turmoil simulation: its Redis model as a host of your `Sim`, a
//! connector your clients reach it with, and the recorder and checker that turn what your
//! clients did into amnesia's verdict.
//!
//! Your simulation keeps its shape: your hosts, your links, your faults (`turmoil::hold`,
//! `partition`, `Sim::crash`/`bounce` of the Redis host). amnesia adds what it knows: a
//! Redis that keeps or loses writes across a crash as its persistence says (the crash and
//! its durable point are recorded as facts), and the checker that knows which losses that
//! excuses and which it does not. docs/turmoil.md has the whole recipe.
//!
//! ```
//! use amnesia::history::{OpKind, OpValue};
//! use amnesia::turmoil::{epoch, Recorder, RedisModel};
//! use amnesia::{Message, Persistence, Role, SessionKey};
//!
//! let redis = RedisModel::new(Persistence::AofAlways, 7);
//! let recorder = Recorder::new();
//! let mut sim = turmoil::Builder::new().rng_seed(7).epoch(epoch()).build();
//! sim.host("redis", redis.software());
//! // amnesia's reference store, reaching the model over turmoil's TCP.
//! let reference = amnesia::Store::named("reference").unwrap();
//! let store = (reference.factory())(redis.store_context("redis:6379", 60_000, 7));
//! let policy = store.policy();
//! let rec = recorder.clone();
//! sim.client("app", async move {
//!     let session = SessionKey::new("tenant", "session");
//!     let msg = Message { id: "m1".into(), role: Role::User, content: "hello".into(), seq: 1 };
//!     let kind = OpKind::Append { session: session.clone(), msg: msg.clone() };
//!     rec.record(0, kind, store.append(&session, &msg), |_| OpValue::None).await;
//!     let kind = OpKind::Context { session: session.clone(), limit: 10 };
//!     rec.record(0, kind, store.context(&session, 10), OpValue::Messages).await;
//!     Ok(())
//! });
//! sim.run().unwrap();
//! let verdict = recorder.verdict(&redis, &policy);
//! assert!(verdict.is_pass(), "{verdict:?}");
//! assert_eq!(recorder.history(&redis).ops.len(), 2);
//! ```

use crate::check::Verdict;
use crate::clock::Clock;
use crate::connect::{BoxStream, Connector, ConnectorConfig, DialFuture, Dialer};
use crate::contract::{Policy, StoreContext, StoreError};
use crate::domain::Persistence;
use crate::history::{History, OpKind, OpValue, Outcome, Restart};
use crate::model::{Model, ModelConfig};
use crate::world::clock::{TurmoilTime, WorldClock, WORLD_EPOCH_UNIX_MS};
use crate::world::host::RedisHost;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The instant amnesia's clocks read at the simulation's start: give it to
/// `turmoil::Builder::epoch`, so that `turmoil::since_epoch()` agrees with them.
///
/// ```
/// assert_eq!(
///     amnesia::turmoil::epoch(),
///     std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_767_225_600_000)
/// );
/// ```
pub fn epoch() -> std::time::SystemTime {
    std::time::UNIX_EPOCH + std::time::Duration::from_millis(WORLD_EPOCH_UNIX_MS)
}

/// amnesia's Redis model as a host of a turmoil simulation. Cloning shares the model.
#[derive(Clone)]
pub struct RedisModel {
    host: Arc<RedisHost>,
    clock: WorldClock,
    restarts: Arc<Mutex<Vec<Restart>>>,
    started: Arc<AtomicBool>,
    /// The latest instant the running process noted, in microseconds.
    alive_us: Arc<AtomicU64>,
}

/// The future of one start of the Redis host's software.
pub type Software = Pin<Box<dyn Future<Output = ::turmoil::Result>>>;

impl RedisModel {
    /// A model that persists as `persistence` says, its own randomness (`SPOP`,
    /// `RANDOMKEY`, ...) drawn from `seed`.
    ///
    /// ```
    /// let redis = amnesia::turmoil::RedisModel::new(amnesia::Persistence::AofEverysec, 1);
    /// assert!(redis.restarts().is_empty());
    /// ```
    pub fn new(persistence: Persistence, seed: u64) -> Self {
        let clock = turmoil_clock();
        let model_clock = {
            let clock = clock.clone();
            Clock::from_fn(move || clock.unix_ms())
        };
        let config = ModelConfig {
            persistence,
            random_seed: seed,
            ..ModelConfig::default()
        };
        Self {
            host: Arc::new(RedisHost::new(Model::new(config, model_clock))),
            clock,
            restarts: Arc::default(),
            started: Arc::default(),
            alive_us: Arc::default(),
        }
    }

    /// The host software: `sim.host("redis", redis.software())`. It serves RESP on port
    /// 6379. `Sim::crash` kills the process (what its persistence had not made durable is
    /// gone; the crash is recorded); `Sim::bounce` starts it again on what it recovered.
    pub fn software(&self) -> impl Fn() -> Software + 'static {
        let redis = self.clone();
        move || Box::pin(crate::task::on_host(redis.clone().serve()))
    }

    async fn serve(self) -> ::turmoil::Result {
        if self.started.swap(true, Ordering::Relaxed) {
            self.host.recover();
        }
        // Dropped when turmoil tears the host's runtime down: the process died.
        let _alive = CrashOnDrop(self.clone());
        self.host.start_cycle();
        // The crash happens outside any runtime, where the time cannot be read: the host
        // notes it every millisecond, and the crash is dated one millisecond after the
        // last note, never before it happened (see `CrashOnDrop`).
        let (clock, alive_us) = (self.clock.clone(), self.alive_us.clone());
        self.host.spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                alive_us.store(clock.now_us(), Ordering::Relaxed);
            }
        });
        serve_model(self.host.clone(), 6379).await
    }

    /// Every crash so far: when, with which persistence, what the model's log had on disk.
    pub fn restarts(&self) -> Vec<Restart> {
        self.restarts.lock().expect("never poisoned").clone()
    }

    /// A client's connector to the model at `addr` (`"redis:6379"`), over turmoil's TCP.
    /// Use it from inside one of the simulation's hosts.
    pub fn connector(&self, addr: &str) -> Arc<Connector> {
        let dialer = Arc::new(TurmoilDialer {
            addr: addr.to_string(),
        });
        Arc::new(Connector::new(
            dialer,
            redis::RedisConnectionInfo::default(),
            ConnectorConfig::default(),
        ))
    }

    /// What an amnesia store is built from (`(store.factory())(context)`), for a client
    /// that reaches the model at `addr`, on the simulation's clock.
    pub fn store_context(&self, addr: &str, session_ttl_ms: u64, seed: u64) -> StoreContext {
        let clock = self.clock.clone();
        StoreContext {
            connector: self.connector(addr),
            postgres: None,
            redis_url: None,
            postgres_url: None,
            clock: Clock::from_fn(move || clock.unix_ms()),
            session_ttl_ms,
            code_version: 1,
            seed,
        }
    }
}

/// The Redis model's listener on `port` of its turmoil host: each connection served on a
/// task of the host, until turmoil tears the host's runtime down. A host that crashed
/// serves nothing more (the turmoil engine marks the crash before the end of the step
/// tears it down). The one serve loop of [`RedisModel`] and of the turmoil engine.
pub(crate) async fn serve_model(host: Arc<RedisHost>, port: u16) -> ::turmoil::Result {
    let listener = ::turmoil::net::TcpListener::bind(("0.0.0.0", port)).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        if !host.is_down() {
            host.spawn(host.model.clone().serve_connection(stream));
        }
    }
}

/// Records the crash of the Redis host when its software is dropped with its runtime.
/// It is dated one millisecond after the process last noted the time: at or after the
/// crash (the checker excuses a loss only of writes invoked by then, so a date before the
/// crash would blame the store for what the crash lost), and at most a millisecond late.
struct CrashOnDrop(RedisModel);

impl Drop for CrashOnDrop {
    fn drop(&mut self) {
        let redis = &self.0;
        if redis.host.crash() {
            let mut restart = crate::world::node::restart_fact(&redis.host, &redis.clock);
            restart.at_us = redis.alive_us.load(Ordering::Relaxed) + 1_000;
            redis.restarts.lock().expect("never poisoned").push(restart);
        }
    }
}

struct TurmoilDialer {
    addr: String,
}

impl Dialer for TurmoilDialer {
    fn dial(&self) -> DialFuture<'_> {
        Box::pin(async move {
            let stream = ::turmoil::net::TcpStream::connect(self.addr.as_str()).await?;
            Ok(Box::new(stream) as BoxStream)
        })
    }
}

/// A clock on the simulation's time, shared by every host.
fn turmoil_clock() -> WorldClock {
    WorldClock::turmoil(WORLD_EPOCH_UNIX_MS, Arc::new(TurmoilTime::default()))
}

/// The history of what your clients did, on the simulation's time. Cloning shares it.
#[derive(Clone)]
pub struct Recorder {
    recorder: crate::world::recorder::Recorder,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

impl Recorder {
    /// An empty history.
    pub fn new() -> Self {
        Self {
            recorder: crate::world::recorder::Recorder::new(turmoil_clock(), crate::Trace::new()),
        }
    }

    /// Run `operation` as `kind` by client `client` and record its invocation and its
    /// outcome (`value` of what it returned; an error the store says may have applied is
    /// unknown). Returns whether it succeeded.
    pub async fn record<T>(
        &self,
        client: u32,
        kind: OpKind,
        operation: impl Future<Output = Result<T, StoreError>>,
        value: impl FnOnce(T) -> OpValue,
    ) -> bool {
        let index = self.recorder.invoke(client, kind);
        let outcome = crate::world::driver::outcome_of(operation.await, value);
        let ok = matches!(outcome, Outcome::Ok(_));
        self.recorder.complete(index, outcome);
        ok
    }

    /// The history so far, with the restarts of `redis`.
    pub fn history(&self, redis: &RedisModel) -> History {
        let mut history = self.recorder.history();
        redis
            .restarts()
            .into_iter()
            .for_each(|restart| history.push_restart(restart));
        history
    }

    /// amnesia's verdict on the history so far, for a store that declares `policy`.
    pub fn verdict(&self, redis: &RedisModel, policy: &Policy) -> Verdict {
        crate::check::check(&self.history(redis), policy)
    }
}
