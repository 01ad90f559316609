//! The world of one run: its hosts, links, clock, trace and recorder, the one place app
//! client processes are (re)started, and the run itself (clients, fault schedule, deploy,
//! driver, deadline). The event-driven engine builds it on virtual time around the model;
//! the real tier on real time around a real server.

use crate::connect::ConnectorConfig;
use crate::contract::{Policy, StoreContext, StoreFactory};
use crate::history::{History, Quiescence};
use crate::plan::Plan;
use crate::sim::clock::WorldClock;
use crate::sim::driver::Driver;
use crate::sim::host::ClientHost;
use crate::sim::net::Link;
use crate::sim::node::{DialFrom, ServerNode};
use crate::sim::recorder::Recorder;
use crate::trace::Trace;
use std::sync::Arc;

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
    pub gate: crate::sim::gate::Gate,
    /// What the store declares, read once when the clients first start.
    pub policy: std::sync::OnceLock<Policy>,
    /// The timeouts of every client's connector.
    pub connector: ConnectorConfig,
    /// How long past the plan's end pending operations may run before they are cut off.
    pub grace_ms: u64,
    /// The Redis URL of a (client, generation) process, on an engine whose stores may dial
    /// their own Redis ([`StoreContext::redis_url`]); `None`: only the connector reaches it.
    pub redis_url_of: Option<fn(u32, u64) -> String>,
}

/// What a finished run leaves for the checker.
pub struct WorldEnd {
    pub history: History,
    pub policy: Policy,
    /// Microseconds from the world's start to its end.
    pub end_us: u64,
    pub quiescence: Option<Quiescence>,
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
            gate: crate::sim::gate::Gate::default(),
            code_version: std::sync::atomic::AtomicU32::new(1),
            connector: ConnectorConfig::default(),
            grace_ms: crate::sim::RUN_GRACE_MS,
            redis_url_of: None,
        }
    }

    /// The links of `plan`'s clients, each with its latency.
    pub fn links_of(plan: &Plan) -> Vec<Arc<Link>> {
        (0..plan.clients)
            .map(|c| Arc::new(Link::new(c, plan.links[c as usize])))
            .collect()
    }

    /// Run the plan: start the clients, the fault schedule and the deploy, drive every
    /// turn and the final reads, and audit the memories; operations still pending at the
    /// deadline (the plan's end plus the world's `grace_ms`) are cut off.
    pub async fn run(self: Arc<Self>) -> WorldEnd {
        let (plan, clock, trace) = (&self.plan, &self.clock, &self.trace);
        (0..plan.clients).for_each(|client| self.start_client(client));
        let policy = self.policy();
        tokio::spawn(crate::sim::faults::run_schedule(self.clone()));
        if let Some(at_ms) = plan.deploy_at_ms {
            let world = self.clone();
            tokio::spawn(async move { world.deploy(at_ms).await });
        }
        let driver = Driver {
            world: self.clone(),
        };
        let deadline_ms = plan.duration_ms + plan.quiet_ms + self.grace_ms;
        let mut quiescence = None;
        let run = async {
            driver.clone().run().await;
            quiescence = driver.audit_memories().await;
        };
        let deadline = std::time::Duration::from_millis(deadline_ms);
        if tokio::time::timeout(deadline, run).await.is_err() {
            let text = "run deadline reached: pending operations cut off";
            trace.record(clock.now_us(), "driver", text);
        }
        trace.record(clock.now_us(), "driver", "world ends");
        WorldEnd {
            history: self.recorder.take_history(),
            policy,
            end_us: clock.now_us(),
            quiescence,
        }
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
            redis_url: self.redis_url_of.map(|url_of| url_of(client, generation)),
            clock: host.clock(),
            session_ttl_ms: self.plan.session_ttl_ms,
            code_version: self.code_version.load(std::sync::atomic::Ordering::Relaxed),
            seed: self.plan.seed,
        });
        let _ = self.policy.set(store.policy());
        host.start(store);
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
    /// migration fault resets that client's connections while it runs.
    async fn migrate(&self) {
        let running = |c: &u32| self.clients[*c as usize].store().is_some();
        let Some(client) = (0..self.plan.clients).find(running) else {
            return;
        };
        let host = &self.clients[client as usize];
        let store = host.store().expect("found running");
        if let Some(after_ms) = self.plan.migration_reset_ms {
            let link = self.links[client as usize].clone();
            let (clock, trace) = (self.clock.clone(), self.trace.clone());
            let at_ms = clock.now_us() / 1_000 + after_ms;
            tokio::spawn(async move {
                clock.sleep_until_ms(at_ms).await;
                let closed = link.reset_all();
                let text =
                    format!("reset client-{client} mid-migration: {closed} connections closed");
                trace.record(clock.now_us(), "faults", text);
            });
        }
        let text = match host.run(async move { store.migrate().await }).await {
            None => format!("deploy: migration by client-{client} cut off: the client crashed"),
            Some(Ok(None)) => return,
            Some(Ok(Some(summary))) => format!("deploy: migration by client-{client}: {summary}"),
            Some(Err(error)) => format!("deploy: migration by client-{client} failed: {error}"),
        };
        self.trace.record(self.clock.now_us(), "deploy", text);
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
