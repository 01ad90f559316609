//! The world around the Redis model, assembled on the current executor: the model on its
//! host, the links, the world of the plan's clients, run to its end. Every engine that
//! simulates the server runs this same world (the event engine on a paused tokio
//! runtime, the madsim engine on madsim's), or builds it from these pieces (the turmoil
//! engine, which hosts the model itself).

use crate::clock::Clock;
use crate::contract::StoreFactory;
use crate::domain::Backend;
use crate::model::{Journaled, Model, ModelConfig};
use crate::plan::Plan;
use crate::trace::Trace;
use crate::world::clock::WorldClock;
use crate::world::host::RedisHost;
use crate::world::node::{ModelNode, ServerNode};
use crate::world::run::WorldEnd;
use crate::world::shared::World;
use crate::world::SimOutput;
use std::sync::Arc;

/// What the real tier's lockstep, or an engine, asks of a simulated run besides the plan.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorldOptions {
    /// The model answers Redis 7.2's client subcommands (`ModelConfig::client_commands_7_2`):
    /// the madsim engine's stores bring their own clients, which may not ignore 7.0's error.
    pub client_commands_7_2: bool,
    /// Unix milliseconds the world starts at; `None`: [`crate::world::clock::WORLD_EPOCH_UNIX_MS`].
    pub epoch_unix_ms: Option<u64>,
    /// Keep the model's journal of commands and replies.
    pub journal: bool,
}

/// Called with the world before it runs.
pub(crate) type OnWorld<'a> = &'a dyn Fn(&Arc<World>);

/// What an engine that runs this world on its own executor changes in it.
#[derive(Default)]
pub(crate) struct WorldHooks<'a> {
    /// The Redis URL each client process's store is given (client, generation).
    pub redis_url_of: Option<fn(u32, u64) -> String>,
    /// The PostgreSQL URL each client process's store is given (client, generation), in a
    /// run with a PostgreSQL.
    pub postgres_url_of: Option<fn(u32, u64) -> String>,
    /// Called with the world before it runs.
    pub on_world: Option<OnWorld<'a>>,
}

/// The world of `plan` around the Redis model, run to its end on the current executor.
pub(crate) async fn world(
    plan: Arc<Plan>,
    store: StoreFactory,
    options: &WorldOptions,
    hooks: &WorldHooks<'_>,
) -> (SimOutput, Vec<Journaled>) {
    let epoch_unix_ms = options
        .epoch_unix_ms
        .unwrap_or(crate::world::clock::WORLD_EPOCH_UNIX_MS);
    let clock = WorldClock::start_at(epoch_unix_ms);
    let trace = Trace::new();
    let _entered = crate::world::context::enter_run(&clock, &trace, &plan, 1.0);
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
    let (server, postgres) = servers(&plan, Arc::new(node), &links, &clock, &trace);
    let mut world = World::new(plan, clock, trace.clone(), server, links, store);
    world.postgres = postgres;
    world.redis_url_of = hooks.redis_url_of;
    world.postgres_url_of = hooks.postgres_url_of;
    let world = Arc::new(world);
    if let Some(on_world) = hooks.on_world {
        on_world(&world);
    }
    let end = world.run().await;
    let output = output_of(end, &host, trace, epoch_unix_ms);
    (output, host.model.journal())
}

/// The servers of `plan`'s world: the Redis node alone, the PostgreSQL model instead of it
/// (backend pgvector), or beside it (redis-then-pgvector).
fn servers(
    plan: &Plan,
    redis: Arc<dyn ServerNode>,
    links: &[Arc<crate::world::net::Link>],
    clock: &WorldClock,
    trace: &Trace,
) -> (Arc<dyn ServerNode>, Option<Arc<dyn ServerNode>>) {
    #[cfg(feature = "pg")]
    {
        let postgres = || -> Arc<dyn ServerNode> {
            Arc::new(crate::world::pg_node::PgNode {
                // The seed's own stream for the model: its vector indexes' draws.
                host: crate::world::pg_node::PgHost::new(plan.seed ^ 0x7067, clock.clone()),
                links: links.to_vec(),
                clock: clock.clone(),
                trace: trace.clone(),
                seed: plan.seed,
            })
        };
        match plan.backend {
            Backend::Redis => (redis, None),
            Backend::Pgvector => (postgres(), None),
            Backend::RedisThenPgvector => (redis, Some(postgres())),
        }
    }
    #[cfg(not(feature = "pg"))]
    {
        let _ = (links, clock, trace);
        assert_eq!(
            plan.backend,
            Backend::Redis,
            "a simulated PostgreSQL needs the `pg` feature"
        );
        (redis, None)
    }
}

/// A key of the noisy neighbour's: no fact of the store's history.
fn is_neighbours(key: &[u8]) -> bool {
    key.starts_with(crate::plan::NEIGHBOUR_KEY_PREFIX.as_bytes())
}

/// The plan's `maxmemory` settings: Redis's defaults (no limit) without pressure.
fn maxmemory_of(plan: &Plan) -> crate::model::setup::eviction::MaxMemory {
    let defaults = crate::model::setup::eviction::MaxMemory::default();
    match &plan.pressure {
        None => defaults,
        Some(pressure) => crate::model::setup::eviction::MaxMemory {
            bytes: pressure.maxmemory_bytes,
            policy: pressure.policy,
            samples: pressure.samples,
            ..defaults
        },
    }
}

/// The Redis model of `plan`'s world, on the world's clock.
pub(crate) fn model_of(plan: &Plan, options: &WorldOptions, clock: &WorldClock) -> Model {
    let model_clock = {
        let clock = clock.clone();
        Clock::from_fn(move || clock.unix_ms())
    };
    let config = ModelConfig {
        persistence: plan.persistence,
        // ChaCha stream 0 of the seed: no plan concern draws from it.
        random_seed: plan.seed,
        client_commands_7_2: options.client_commands_7_2,
        maxmemory: maxmemory_of(plan),
        ..ModelConfig::default()
    };
    let model = Model::new(config, model_clock);
    match options.journal {
        true => model.with_journal(),
        false => model,
    }
}

/// What a world around the model `host` leaves: its history with the keys the model
/// expired (on the run's clock: the model's is unix time from `epoch_unix_ms`), its trace.
pub(crate) fn output_of(
    end: WorldEnd,
    host: &RedisHost,
    trace: Trace,
    epoch_unix_ms: u64,
) -> SimOutput {
    let mut history = end.history;
    history.expiries = host
        .model
        .node()
        .expired_log
        .iter()
        .filter(|expired| !is_neighbours(&expired.key))
        .map(|expired| crate::history::KeyExpiry {
            at_us: expired.at_ms.saturating_sub(epoch_unix_ms) * 1_000,
            key: String::from_utf8_lossy(&expired.key).into_owned(),
        })
        .collect();
    history.evictions = host
        .model
        .node()
        .evicted_log
        .iter()
        .filter(|evicted| !is_neighbours(&evicted.key))
        .map(|evicted| crate::history::KeyEviction {
            at_us: evicted.at_ms.saturating_sub(epoch_unix_ms) * 1_000,
            key: String::from_utf8_lossy(&evicted.key).into_owned(),
            policy: evicted.policy.name().to_string(),
            used_memory_bytes: evicted.used_memory_bytes,
            maxmemory_bytes: evicted.maxmemory_bytes,
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
