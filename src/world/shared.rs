//! The world of one run: its hosts, links, clock, trace and recorder, the one place app
//! client processes are (re)started, and the deploy. The simulating engines build it on
//! virtual time around the model ([`super::assemble`]); the real tier on real time around
//! a real server. The run itself is [`super::run`], above the driver and the fault
//! schedule that work on this world.

use crate::connect::ConnectorConfig;
use crate::contract::{Policy, StoreContext, StoreFactory};
use crate::domain::Backend;
use crate::plan::Plan;
use crate::trace::Trace;
use crate::world::clock::WorldClock;
use crate::world::host::ClientHost;
use crate::world::net::Link;
use crate::world::node::{DialFrom, ServerNode};
use crate::world::recorder::Recorder;
use std::sync::Arc;

/// Attempts of the deploy's one-off job when its process dies under it.
pub const MIGRATION_ATTEMPTS_MAX: u32 = 3;

/// Everything a run's tasks share.
pub struct World {
    pub plan: Arc<Plan>,
    pub clock: WorldClock,
    pub trace: Trace,
    /// The server the clients keep their data in, and the fault schedule strikes.
    pub server: Arc<dyn ServerNode>,
    /// A PostgreSQL beside a Redis `server` (a redis-then-pgvector run): dialed, never
    /// struck by the fault schedule's crashes and pauses (the links' faults reach it).
    pub postgres: Option<Arc<dyn ServerNode>>,
    pub links: Vec<Arc<Link>>,
    pub clients: Vec<Arc<ClientHost>>,
    pub recorder: Recorder,
    pub store: StoreFactory,
    /// The version of the code the clients run: 2 once the plan's deploy happened.
    pub code_version: std::sync::atomic::AtomicU32,
    /// Where requests wait while a deploy drains the clients.
    pub gate: crate::world::gate::Gate,
    /// What the store declares, read once when the clients first start.
    pub policy: std::sync::OnceLock<Policy>,
    /// The timeouts of every client's connector.
    pub connector: ConnectorConfig,
    /// How long past the plan's end pending operations may run before they are cut off.
    pub grace_ms: u64,
    /// The Redis URL of a (client, generation) process, on an engine whose stores may dial
    /// their own Redis ([`StoreContext::redis_url`]); `None`: only the connector reaches it.
    pub redis_url_of: Option<fn(u32, u64) -> String>,
    /// The PostgreSQL URL of a (client, generation) process, on an engine whose stores may
    /// dial their own PostgreSQL ([`StoreContext::postgres_url`]).
    pub postgres_url_of: Option<fn(u32, u64) -> String>,
}

impl World {
    /// A world of `plan`'s clients around `server`, nothing started yet.
    pub fn new(
        plan: Arc<Plan>,
        clock: WorldClock,
        trace: Trace,
        server: Arc<dyn ServerNode>,
        links: Vec<Arc<Link>>,
        store: StoreFactory,
    ) -> World {
        World {
            clients: (0..plan.clients)
                .map(|_| Arc::new(ClientHost::new(clock.clone())))
                .collect(),
            recorder: Recorder::new(clock.clone(), trace.clone()),
            plan,
            clock,
            trace,
            server,
            postgres: None,
            links,
            store,
            policy: std::sync::OnceLock::new(),
            gate: crate::world::gate::Gate::default(),
            code_version: std::sync::atomic::AtomicU32::new(1),
            connector: ConnectorConfig::default(),
            grace_ms: crate::world::RUN_GRACE_MS,
            redis_url_of: None,
            postgres_url_of: None,
        }
    }

    /// The links of `plan`'s clients, each with its latency.
    pub fn links_of(plan: &Plan) -> Vec<Arc<Link>> {
        (0..plan.clients)
            .map(|c| Arc::new(Link::new(c, plan.links[c as usize], plan.tcp)))
            .collect()
    }

    /// Start (or restart) the process of `client`: a fresh store over a fresh connector
    /// that belongs to the host's current generation.
    pub fn start_client(&self, client: u32) {
        let host = &self.clients[client as usize];
        let generation = host.generation();
        let first = (
            self.server.backend(),
            self.dialer(&self.server, client, generation),
        );
        let postgres = self
            .postgres
            .as_ref()
            .map(|node| self.dialer(node, client, generation));
        let (connector, postgres) = crate::contract::connectors(first, postgres, self.connector);
        let store = (self.store)(StoreContext {
            connector,
            postgres,
            redis_url: self.url_of(self.redis_url_of, Backend::Redis, client, generation),
            postgres_url: self.url_of(self.postgres_url_of, Backend::Pgvector, client, generation),
            clock: host.clock(),
            session_ttl_ms: self.plan.session_ttl_ms,
            code_version: self.code_version.load(std::sync::atomic::Ordering::Relaxed),
            seed: self.plan.seed,
        });
        let policy = store.policy();
        // Refused here, where a store first says what it declares: the builder cannot ask
        // a store it has not built, and the final reads are spaced for the bound.
        if let Err(refusal) = policy.validate() {
            panic!("amnesia: store policy refused: {refusal}");
        }
        let _ = self.policy.set(policy);
        host.start(store);
    }

    /// The URL `url_of` gives (client, generation), when the run has a `server` (Redis, or
    /// PostgreSQL: `Backend::Pgvector`) to reach: a redis-then-pgvector run has both.
    fn url_of(
        &self,
        url_of: Option<fn(u32, u64) -> String>,
        server: Backend,
        client: u32,
        generation: u64,
    ) -> Option<String> {
        let has = match server {
            Backend::Redis => self.plan.backend != Backend::Pgvector,
            _ => self.plan.backend != Backend::Redis,
        };
        url_of
            .filter(|_| has)
            .map(|url_of| url_of(client, generation))
    }

    /// A dialer to `node` from `generation` of `client`'s process: it refuses once that
    /// process has crashed.
    pub fn dialer(
        &self,
        node: &Arc<dyn ServerNode>,
        client: u32,
        generation: u64,
    ) -> Arc<dyn crate::connect::Dialer> {
        node.dialer(DialFrom {
            link: self.links[client as usize].clone(),
            client: Arc::downgrade(&self.clients[client as usize]),
            generation,
        })
    }

    /// The plan's deploy: drain every client, then restart each with the code of the
    /// second code version (a new key scheme) (running processes, not crashes: nothing in flight is cut).
    pub async fn deploy(&self, at_ms: u64) {
        self.clock.sleep_until_ms(at_ms).await;
        let drained = self.gate.close_and_drain().await;
        self.code_version
            .store(2, std::sync::atomic::Ordering::Relaxed);
        for client in 0..self.plan.clients {
            if self.clients[client as usize].store().is_some() {
                self.start_client(client);
            }
        }
        let text = format!("deploy: {drained} requests drained, clients now run code version 2");
        self.trace.record(self.clock.now_us(), "deploy", text);
        self.migrate().await;
        self.gate.open();
    }

    /// The deploy's one-off job, on the first running client's new store; the plan's
    /// migration fault resets that client's connections while it runs. A job that dies
    /// with its process starts again on the next running client, as a deploy system
    /// restarts a failed job, [`MIGRATION_ATTEMPTS_MAX`] times at most.
    async fn migrate(&self) {
        for attempt in 1..=MIGRATION_ATTEMPTS_MAX {
            let Some(client) = self.first_running_client().await else {
                return;
            };
            if attempt == 1 {
                self.reset_mid_migration(client);
            }
            let host = &self.clients[client as usize];
            let (store, generation) = (host.store().expect("found running"), host.generation());
            let outcome = host.run(async move { store.migrate().await }).await;
            let died = host.generation() != generation;
            let text = match outcome {
                None => format!("deploy: migration by client-{client} cut off: the client crashed"),
                Some(Ok(None)) => return,
                Some(Ok(Some(summary))) => {
                    format!("deploy: migration by client-{client}: {summary}")
                }
                Some(Err(error)) => format!("deploy: migration by client-{client} failed: {error}"),
            };
            self.trace.record(self.clock.now_us(), "deploy", text);
            if !died {
                return;
            }
        }
    }

    /// The first client whose process runs, waiting (a bounded while) for one to restart
    /// when every one is down: the job needs a process to run in.
    async fn first_running_client(&self) -> Option<u32> {
        const WAIT_STEP_MS: u64 = 100;
        let deadline_ms = self.clock.now_us() / 1_000 + crate::plan::FAULT_DURATION_MS_MAX * 2;
        loop {
            let running = |c: &u32| self.clients[*c as usize].store().is_some();
            if let Some(client) = (0..self.plan.clients).find(running) {
                return Some(client);
            }
            let now_ms = self.clock.now_us() / 1_000;
            if now_ms >= deadline_ms {
                return None;
            }
            self.clock.sleep_until_ms(now_ms + WAIT_STEP_MS).await;
        }
    }

    /// The plan's migration fault: reset `client`'s connections a while into the job.
    fn reset_mid_migration(&self, client: u32) {
        let Some(after_ms) = self.plan.migration_reset_ms else {
            return;
        };
        let link = self.links[client as usize].clone();
        let (clock, trace) = (self.clock.clone(), self.trace.clone());
        let at_ms = clock.now_us() / 1_000 + after_ms;
        tokio::spawn(async move {
            clock.sleep_until_ms(at_ms).await;
            let closed = link.reset_all();
            let text = format!("reset client-{client} mid-migration: {closed} connections closed");
            trace.record(clock.now_us(), "faults", text);
        });
    }

    /// The policy the store declares (the same for every client).
    /// Read once, when the clients first start: a later caller (a fault while client 0
    /// is down) gets the same answer.
    pub fn policy(&self) -> Policy {
        *self
            .policy
            .get()
            .expect("clients start before any fault or check")
    }
}
