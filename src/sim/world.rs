//! The world of one event-driven run: its hosts, links, clock, trace and recorder, and
//! the one place app client processes are (re)started.

use crate::connect::{Connector, ConnectorConfig};
use crate::plan::Plan;
use crate::sim::clock::WorldClock;
use crate::sim::driver::Recorder;
use crate::sim::host::{ClientHost, RedisHost};
use crate::sim::net::{Link, SimDialer};
use crate::store::{Policy, StoreContext, StoreFactory};
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
            client: host.clone(),
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
            plan: &self.plan,
        });
        host.start(store);
    }

    /// The policy the store declares (the same for every client).
    /// Read once, when the clients first start: a later caller (a fault while client 0
    /// is down) gets the same answer.
    pub fn policy(&self) -> Policy {
        *self.policy.get_or_init(|| {
            self.clients[0]
                .store()
                .expect("clients start before anything asks")
                .policy()
        })
    }
}
