//! The event-driven engine: one `current_thread` tokio runtime with a paused, seeded clock.
//! When every task waits, tokio jumps to the next timer, so idle virtual time costs nothing.
//! Hosts are sets of tasks; the network is in-memory streams with relays ([`super::net`]).

use crate::connect::{Connector, ConnectorConfig};
use crate::model::{Model, ModelClock, ModelConfig};
use crate::plan::Plan;
use crate::sim::clock::WorldClock;
use crate::sim::driver::{Driver, Recorder, Stores};
use crate::sim::net::{Link, SimDialer};
use crate::sim::{faults, Engine, SimOutput, RUN_GRACE_MS};
use crate::store;
use crate::trace::Trace;
use std::sync::Arc;
use std::time::Duration;

/// The default engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventEngine;

impl Engine for EventEngine {
    fn name(&self) -> &'static str {
        "event"
    }

    fn run(&self, plan: &Plan, store: &str) -> SimOutput {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .rng_seed(tokio::runtime::RngSeed::from_bytes(
                &plan.seed.to_le_bytes(),
            ))
            .build()
            .expect("a current-thread runtime always builds");
        let plan = Arc::new(plan.clone());
        runtime.block_on(world(plan, store.to_string()))
    }
}

async fn world(plan: Arc<Plan>, store_name: String) -> SimOutput {
    let clock = WorldClock::start();
    let trace = Trace::new();
    let _entered = crate::sim::context::enter(&clock, &trace);
    let model_clock = {
        let clock = clock.clone();
        ModelClock::from_fn(move || clock.unix_ms())
    };
    let model = Model::new(ModelConfig::default(), model_clock);
    tokio::spawn(model.clone().run_expiry_cycle());
    let links: Vec<Arc<Link>> = (0..plan.clients)
        .map(|c| Arc::new(Link::new(c, plan.links[c as usize])))
        .collect();
    let stores: Stores = Arc::new(
        links
            .iter()
            .map(|link| {
                let dialer = SimDialer {
                    link: link.clone(),
                    model: model.clone(),
                    clock: clock.clone(),
                    trace: trace.clone(),
                    seed: plan.seed,
                };
                let info = redis::RedisConnectionInfo::default();
                let connector = Arc::new(Connector::new(
                    Arc::new(dialer),
                    info,
                    ConnectorConfig::default(),
                ));
                store::build(&store_name, connector, &plan)
                    .expect("the runner checked the store name")
            })
            .collect(),
    );
    let policy = stores[0].policy();
    tokio::spawn(faults::run_schedule(
        plan.faults.clone(),
        links,
        clock.clone(),
        trace.clone(),
    ));
    let recorder = Recorder::new(clock.clone(), trace.clone());
    let driver = Driver {
        stores,
        recorder: recorder.clone(),
        clock: clock.clone(),
    };
    let deadline = Duration::from_millis(plan.duration_ms + plan.quiet_ms + RUN_GRACE_MS);
    if tokio::time::timeout(deadline, driver.run(plan.clone()))
        .await
        .is_err()
    {
        trace.record(
            clock.now_us(),
            "driver",
            "run deadline reached: pending operations cut off",
        );
    }
    trace.record(clock.now_us(), "driver", "world ends");
    SimOutput {
        history: recorder.history(),
        trace,
        policy,
        end_us: clock.now_us(),
    }
}
