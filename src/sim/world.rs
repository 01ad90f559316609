//! The world of one event-driven run: its hosts, links, clock, trace and recorder, and
//! the one place app client processes are (re)started.

use crate::connect::{Connector, ConnectorConfig};
use crate::plan::Plan;
use crate::sim::clock::WorldClock;
use crate::sim::driver::Recorder;
use crate::sim::host::{ClientHost, RedisHost};
use crate::sim::net::{Link, SimDialer};
use crate::store::{KeyScheme, Policy, StoreContext, StoreFactory};
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
    /// The key scheme of the code the clients run: `V2` once the plan's deploy happened.
    pub key_scheme: std::sync::Mutex<KeyScheme>,
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
        let key_scheme = *self.key_scheme.lock().expect("never poisoned");
        let store = (self.store)(StoreContext {
            connector,
            clock: host.clock(),
            plan: &self.plan,
            key_scheme,
        });
        let _ = self.policy.set(store.policy());
        host.start(store);
    }

    /// The plan's deploy: drain every client, then restart each with the code of the
    /// second key scheme (running processes, not crashes: nothing in flight is cut).
    pub async fn deploy(&self, at_ms: u64) {
        self.clock.sleep_until_ms(at_ms).await;
        let drained = self.gate.close_and_drain().await;
        *self.key_scheme.lock().expect("never poisoned") = KeyScheme::V2;
        for client in 0..self.plan.clients {
            if self.clients[client as usize].store().is_some() {
                self.start_client(client);
            }
        }
        let text = format!("deploy: {drained} requests drained, clients now run key scheme v2");
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
