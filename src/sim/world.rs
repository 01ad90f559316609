//! The world of one event-driven run: its hosts, links, clock, trace and recorder, and
//! the one place app client processes are (re)started.

use crate::connect::{Connector, ConnectorConfig};
use crate::contract::{Policy, StoreContext, StoreFactory};
use crate::plan::Plan;
use crate::sim::clock::WorldClock;
use crate::sim::host::{ClientHost, RedisHost};
use crate::sim::net::{Link, SimDialer};
use crate::sim::recorder::Recorder;
use crate::trace::Trace;
use std::sync::Arc;

/// Everything a run's tasks share.
pub struct World {
    pub plan: Arc<Plan>,
    pub clock: WorldClock,
    pub trace: Trace,
    pub redis: Arc<RedisHost>,
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
}

impl World {
    /// Start (or restart) the process of `client`: a fresh store over a fresh connector
    /// that belongs to the host's current generation.
    pub fn start_client(&self, client: u32) {
        let host = &self.clients[client as usize];
        let dialer = SimDialer {
            link: self.links[client as usize].clone(),
            redis: self.redis.clone(),
            client: Arc::downgrade(host),
            generation: host.generation(),
            clock: self.clock.clone(),
            trace: self.trace.clone(),
            seed: self.plan.seed,
        };
        let info = redis::RedisConnectionInfo::default();
        let connector = Arc::new(Connector::new(
            Arc::new(dialer),
            info,
            ConnectorConfig::default(),
        ));
        let store = (self.store)(StoreContext {
            connector,
            clock: host.clock(),
            session_ttl_ms: self.plan.session_ttl_ms,
            code_version: self.code_version.load(std::sync::atomic::Ordering::Relaxed),
            seed: self.plan.seed,
        });
        let _ = self.policy.set(store.policy());
        host.start(store);
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
        self.gate.open();
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
