//! One real run: the plan scaled to real time, a server started with the plan's
//! persistence, the world of the simulator (its driver, recorder and fault schedule)
//! around a [`RealNode`] on a real-time runtime, and the simulator's checker on the
//! history.

use crate::check::Verdict;
use crate::contract::{Backend, Policy, StoreFactory};
use crate::history::History;
use crate::plan::{Plan, ScenarioConfig};
use crate::real::node::RealNode;
use crate::real::progress::{RealProgress, PROGRESS_PERIOD_MS};
use crate::real::proxy::{self, ProxyWorld};
use crate::real::server::{Provider, RealError, Server};
use crate::runner::store::Store;
use crate::trace::Trace;
use crate::world::clock::WorldClock;
use crate::world::node::ServerNode;
use crate::world::shared::World;
use crate::world::SimOutput;
use std::sync::Arc;

/// How to run the real tier.
#[derive(Clone, Debug, PartialEq)]
pub struct RealOptions {
    /// What runs Redis.
    pub provider: Provider,
    /// Real milliseconds per plan millisecond (see [`crate::real::scale_plan`]).
    pub time_scale: f64,
}

/// Everything one real run produced.
pub struct RealReport {
    /// The plan as it ran: scaled to real time.
    pub plan: Plan,
    /// The store's label.
    pub store: String,
    /// What ran Redis (`docker redis:7.0.15`, `process redis-server`).
    pub provider: String,
    /// The factor the plan was scaled by.
    pub time_scale: f64,
    /// Every operation and its outcome, as the checker judged it.
    pub history: History,
    /// Every event of the run, on real time (its hash means nothing: reality is not
    /// deterministic).
    pub trace: Trace,
    /// The retention the store declared.
    pub policy: Policy,
    /// The checker's verdict.
    pub verdict: Verdict,
    /// Wall-clock milliseconds of the whole run, the server's start and removal included.
    pub wall_ms: u64,
}

/// The `amnesia real` command that runs this seed again for real, when the binary can
/// (a built-in store, a named scenario: see [`crate::runner::replay_command`]).
///
/// ```
/// use amnesia::real::real_command;
/// use amnesia::{ScenarioConfig, Store};
/// let store = Store::named("write-behind").unwrap();
/// assert_eq!(
///     real_command(4, &ScenarioConfig::smoke(), &store, 1.0).unwrap(),
///     "amnesia real --seed 4 --store write-behind --scenario smoke"
/// );
/// ```
pub fn real_command(
    seed: u64,
    scenario: &ScenarioConfig,
    store: &Store,
    time_scale: f64,
) -> Option<String> {
    let args = crate::runner::run::seed_args(seed, scenario, store)?;
    Some(format!(
        "amnesia real {args}{}",
        time_scale_flag(time_scale)
    ))
}

/// ` --time-scale F` unless `F` is 1: the tail of every `amnesia real` command.
///
/// ```
/// assert_eq!(amnesia::real::time_scale_flag(1.0), "");
/// assert_eq!(amnesia::real::time_scale_flag(0.5), " --time-scale 0.5");
/// ```
pub fn time_scale_flag(time_scale: f64) -> String {
    match time_scale {
        1.0 => String::new(),
        factor => format!(" --time-scale {factor}"),
    }
}

/// Run `plan` against a real server and judge it as the simulator does.
pub fn run_real(plan: Plan, store: &Store, options: &RealOptions) -> Result<RealReport, RealError> {
    run_real_with_progress(plan, store, options, &Arc::new(RealProgress::default()))
}

/// [`run_real`], telling `progress` how far it is a few times a second.
pub fn run_real_with_progress(
    plan: Plan,
    store: &Store,
    options: &RealOptions,
    progress: &Arc<RealProgress>,
) -> Result<RealReport, RealError> {
    let report = run_observed(plan, store, options, progress);
    progress.finish();
    report
}

fn run_observed(
    plan: Plan,
    store: &Store,
    options: &RealOptions,
    progress: &Arc<RealProgress>,
) -> Result<RealReport, RealError> {
    if plan.pressure.is_some() {
        return Err(RealError::Unsupported(
            "this plan runs Redis under memory pressure (a pressure scenario), which the \
             real tier does not reproduce yet: run it in the simulator"
                .into(),
        ));
    }
    let started = std::time::Instant::now();
    let plan = Arc::new(crate::real::scale_plan(plan, options.time_scale));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .rng_seed(tokio::runtime::RngSeed::from_bytes(
            &plan.seed.to_le_bytes(),
        ))
        .build()
        .map_err(|e| RealError::Environment(format!("cannot build a tokio runtime: {e}")))?;
    let factory = store.factory().clone();
    let output = runtime.block_on(async {
        let mut servers: Vec<(Arc<dyn Server>, Backend)> = Vec::new();
        for &backend in store.backend().servers() {
            match options.provider.start(backend, plan.persistence).await {
                Ok(server) => servers.push((server.into(), backend)),
                Err(error) => {
                    for (server, _) in &servers {
                        server.remove().await;
                    }
                    return Err(error);
                }
            }
        }
        let output = world(
            plan.clone(),
            factory,
            &servers,
            options.time_scale,
            progress,
        )
        .await;
        for (server, _) in &servers {
            server.remove().await;
        }
        output
    })?;
    drop(runtime);
    let plan = Arc::try_unwrap(plan).unwrap_or_else(|shared| (*shared).clone());
    let op_budget_ms = crate::real::scale::scale_ms(crate::world::OP_BUDGET_MS, options.time_scale);
    let verdict = crate::runner::run::judge_with_budget(&plan, &output, op_budget_ms);
    Ok(RealReport {
        plan,
        store: store.label().to_string(),
        provider: options.provider.describe(store.backend()),
        time_scale: options.time_scale,
        history: output.history,
        trace: output.trace,
        policy: output.policy,
        verdict,
        wall_ms: started.elapsed().as_millis() as u64,
    })
}

/// Unix milliseconds now: the real tier's clocks start where the server's clock is.
pub(crate) fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

async fn world(
    plan: Arc<Plan>,
    store: StoreFactory,
    servers: &[(Arc<dyn Server>, Backend)],
    time_scale: f64,
    progress: &Arc<RealProgress>,
) -> Result<SimOutput, RealError> {
    let clock = WorldClock::start_at(unix_now_ms());
    let trace = Trace::new();
    let _entered = crate::world::context::enter_run(&clock, &trace, &plan, time_scale);
    let links = World::links_of(&plan);
    let mut nodes: Vec<Arc<dyn ServerNode>> = Vec::with_capacity(servers.len());
    for (server, backend) in servers {
        let node = real_node((server.clone(), *backend), &links, (&clock, &trace), &plan).await?;
        nodes.push(Arc::new(node));
    }
    let mut nodes = nodes.into_iter();
    let server = nodes.next().expect("a run has a server");
    let mut world = World::new(plan, clock, trace.clone(), server, links, store);
    world.postgres = nodes.next();
    world.connector = crate::real::scale::scale_connector(world.connector, time_scale);
    world.grace_ms = crate::real::scale::scale_ms(world.grace_ms, time_scale);
    let reporter = report_progress(progress.clone(), &world);
    let end = Arc::new(world).run().await;
    reporter.abort();
    Ok(SimOutput {
        history: end.history,
        trace,
        policy: end.policy,
        end_us: end.end_us,
        quiescence: end.quiescence,
    })
}

/// A task that copies the world's clock and operation count into `progress`.
fn report_progress(progress: Arc<RealProgress>, world: &World) -> tokio::task::JoinHandle<()> {
    progress.start(world.plan.end_ms());
    let (clock, recorder) = (world.clock.clone(), world.recorder.clone());
    let started_us = clock.now_us();
    tokio::spawn(async move {
        loop {
            let elapsed_ms = clock.now_us().saturating_sub(started_us) / 1_000;
            progress.update(elapsed_ms, recorder.operations());
            tokio::time::sleep(std::time::Duration::from_millis(PROGRESS_PERIOD_MS)).await;
        }
    })
}

/// A server behind one fault-proxy listener per client link.
async fn real_node(
    (server, backend): (Arc<dyn Server>, Backend),
    links: &[Arc<crate::world::net::Link>],
    (clock, trace): (&WorldClock, &Trace),
    plan: &Plan,
) -> Result<RealNode, RealError> {
    let pending_error =
        (backend == Backend::Redis).then(|| Arc::new(crate::real::inject::PendingError::default()));
    let proxy_world = ProxyWorld {
        server: server.clone(),
        clock: clock.clone(),
        trace: trace.clone(),
        seed: plan.seed,
        pending_error: pending_error.clone(),
    };
    let mut proxies = Vec::with_capacity(links.len());
    for link in links {
        let address = proxy::listen(link.clone(), proxy_world.clone())
            .await
            .map_err(|e| RealError::Environment(format!("cannot listen on 127.0.0.1: {e}")))?;
        proxies.push(address);
    }
    // PostgreSQL's commits are durable (fsync, synchronous_commit): a crash keeps every
    // acknowledged transaction, as `appendfsync always` does.
    let persistence = match backend {
        Backend::Pgvector => crate::domain::Persistence::AofAlways,
        _ => plan.persistence,
    };
    Ok(RealNode {
        server,
        backend,
        proxies,
        persistence,
        clock: clock.clone(),
        trace: trace.clone(),
        down: Default::default(),
        pending_error,
        paused: Default::default(),
    })
}
