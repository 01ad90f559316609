//! The event-driven engine: one `current_thread` tokio runtime with a paused, seeded clock.
//! When every task waits, tokio jumps to the next timer, so idle virtual time costs nothing.
//! Hosts are sets of tasks; the network is in-memory connections ([`super::net`]).

use crate::clock::Clock;
use crate::contract::StoreFactory;
use crate::model::{Journaled, Model, ModelConfig};
use crate::plan::Plan;
use crate::sim::clock::WorldClock;
use crate::sim::host::RedisHost;
use crate::sim::node::ModelNode;
use crate::sim::world::{World, WorldEnd};
use crate::sim::{Engine, SimOutput};
use crate::trace::Trace;
use std::sync::Arc;

/// The default engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventEngine;

impl Engine for EventEngine {
    fn name(&self) -> &'static str {
        "event"
    }

    fn run(&self, plan: Arc<Plan>, store: &StoreFactory) -> SimOutput {
        run_with(plan, store, &EventOptions::default()).0
    }
}

/// What the real tier's lockstep asks of a simulated run besides the plan.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventOptions {
    /// Unix milliseconds the world starts at; `None`: [`crate::sim::clock::WORLD_EPOCH_UNIX_MS`].
    pub epoch_unix_ms: Option<u64>,
    /// Keep the model's journal of commands and replies.
    pub journal: bool,
}

/// Run `plan` on the event-driven engine with `options`; the model's journal (empty
/// unless asked for) comes back beside the output.
pub fn run_with(
    plan: Arc<Plan>,
    store: &StoreFactory,
    options: &EventOptions,
) -> (SimOutput, Vec<Journaled>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .rng_seed(tokio::runtime::RngSeed::from_bytes(
            &plan.seed.to_le_bytes(),
        ))
        .build()
        .expect("a current-thread runtime always builds");
    runtime.block_on(world(plan, store.clone(), options, &WorldHooks::default()))
}

/// Called with the world before it runs.
pub(crate) type OnWorld<'a> = &'a dyn Fn(&Arc<World>);

/// What another engine that runs this engine's world on its own executor changes in it.
#[derive(Default)]
pub(crate) struct WorldHooks<'a> {
    /// The Redis URL each client process's store is given (client, generation).
    pub redis_url_of: Option<fn(u32, u64) -> String>,
    /// Called with the world before it runs.
    pub on_world: Option<OnWorld<'a>>,
}

/// The world of `plan` around the Redis model, run to its end on the current executor.
pub(crate) async fn world(
    plan: Arc<Plan>,
    store: StoreFactory,
    options: &EventOptions,
    hooks: &WorldHooks<'_>,
) -> (SimOutput, Vec<Journaled>) {
    let epoch_unix_ms = options
        .epoch_unix_ms
        .unwrap_or(crate::sim::clock::WORLD_EPOCH_UNIX_MS);
    let clock = WorldClock::start_at(epoch_unix_ms);
    let trace = Trace::new();
    let _entered = crate::sim::context::enter_run(&clock, &trace, &plan, 1.0);
    let host = Arc::new(RedisHost::new(model_of(&plan, options, &clock)));
    host.start_cycle();
    let links = World::links_of(&plan);
    let node = ModelNode {
        host: host.clone(),
        links: links.clone(),
        clock: clock.clone(),
        trace: trace.clone(),
        seed: plan.seed,
    };
    let mut world = World::new(plan, clock, trace.clone(), Arc::new(node), links, store);
    world.redis_url_of = hooks.redis_url_of;
    let world = Arc::new(world);
    if let Some(on_world) = hooks.on_world {
        on_world(&world);
    }
    let end = world.run().await;
    let output = output_of(end, &host, trace);
    (output, host.model.journal())
}

/// The Redis model of `plan`'s world, on the world's clock.
pub(crate) fn model_of(plan: &Plan, options: &EventOptions, clock: &WorldClock) -> Model {
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
    let model = Model::new(config, model_clock);
    match options.journal {
        true => model.with_journal(),
        false => model,
    }
}

/// What a world around the model `host` leaves: its history with the keys the model
/// expired, its trace.
pub(crate) fn output_of(end: WorldEnd, host: &RedisHost, trace: Trace) -> SimOutput {
    let mut history = end.history;
    history.expiries = host
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
        policy: end.policy,
        end_us: end.end_us,
        quiescence: end.quiescence,
    }
}
