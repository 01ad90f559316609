//! The event-driven engine: one `current_thread` tokio runtime with a paused, seeded clock.
//! When every task waits, tokio jumps to the next timer, so idle virtual time costs nothing.
//! Hosts are sets of tasks; the network is in-memory connections ([`super::net`]).

use crate::buggify::Buggify;
use crate::clock::Clock;
use crate::contract::StoreFactory;
use crate::model::{Model, ModelConfig};
use crate::plan::Plan;
use crate::sim::clock::WorldClock;
use crate::sim::driver::Driver;
use crate::sim::host::{ClientHost, RedisHost};
use crate::sim::net::Link;
use crate::sim::recorder::Recorder;
use crate::sim::world::World;
use crate::sim::{faults, Engine, SimOutput, RUN_GRACE_MS};
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

    fn run(&self, plan: Arc<Plan>, store: &StoreFactory) -> SimOutput {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .rng_seed(tokio::runtime::RngSeed::from_bytes(
                &plan.seed.to_le_bytes(),
            ))
            .build()
            .expect("a current-thread runtime always builds");
        runtime.block_on(world(plan, store.clone()))
    }
}

async fn world(plan: Arc<Plan>, store: StoreFactory) -> SimOutput {
    let clock = WorldClock::start();
    let trace = Trace::new();
    let _entered = crate::sim::context::enter(&clock, &trace);
    let _buggify = plan.scenario.buggify.then(|| {
        let clock = clock.clone();
        Buggify::new(plan.seed, trace.clone(), move || clock.now_us()).install()
    });
    let model_clock = {
        let clock = clock.clone();
        Clock::from_fn(move || clock.unix_ms())
    };
    let config = ModelConfig {
        persistence: plan.persistence,
        // ChaCha stream 0 of the seed: no plan concern draws from it.
        random_seed: plan.seed,
        ..ModelConfig::default()
    };
    let redis = Arc::new(RedisHost::new(Model::new(config, model_clock)));
    redis.start_cycle();
    let world = Arc::new(World {
        links: (0..plan.clients)
            .map(|c| Arc::new(Link::new(c, plan.links[c as usize])))
            .collect(),
        clients: (0..plan.clients)
            .map(|_| Arc::new(ClientHost::new(clock.clone())))
            .collect(),
        recorder: Recorder::new(clock.clone(), trace.clone()),
        plan: plan.clone(),
        clock: clock.clone(),
        trace: trace.clone(),
        redis,
        store,
        policy: std::sync::OnceLock::new(),
        gate: crate::sim::gate::Gate::default(),
        code_version: std::sync::atomic::AtomicU32::new(1),
    });
    (0..plan.clients).for_each(|client| world.start_client(client));
    let policy = world.policy();
    tokio::spawn(faults::run_schedule(world.clone()));
    if let Some(at_ms) = plan.deploy_at_ms {
        let world = world.clone();
        tokio::spawn(async move { world.deploy(at_ms).await });
    }
    let driver = Driver {
        world: world.clone(),
    };
    let deadline = Duration::from_millis(plan.duration_ms + plan.quiet_ms + RUN_GRACE_MS);
    let mut quiescence = None;
    let run = async {
        driver.clone().run().await;
        quiescence = driver.audit_memories().await;
    };
    if tokio::time::timeout(deadline, run).await.is_err() {
        trace.record(
            clock.now_us(),
            "driver",
            "run deadline reached: pending operations cut off",
        );
    }
    trace.record(clock.now_us(), "driver", "world ends");
    let mut history = world.recorder.take_history();
    history.expiries = world
        .redis
        .model
        .node()
        .expired_log
        .iter()
        .map(|expired| crate::history::KeyExpiry {
            at_us: expired.at_ms * 1_000,
            key: String::from_utf8_lossy(&expired.key).into_owned(),
        })
        .collect();
    SimOutput {
        history,
        trace,
        policy,
        end_us: clock.now_us(),
        quiescence,
    }
}
