//! One run: plan → world (an engine) → history and trace → checker → verdict.

use crate::check::{check_input, CheckInput, LivenessSpec, Verdict};
use crate::contract::Policy;
use crate::coverage::Coverage;
use crate::engine::event::EventEngine;
use crate::history::History;
use crate::plan::{Plan, ScenarioConfig};
use crate::runner::log::LogFilter;
use crate::runner::store::Store;
use crate::trace::Trace;
use crate::world::{Engine, SimOutput, OP_BUDGET_MS};

/// Which engine runs the plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineKind {
    /// The event-driven engine: one seeded `current_thread` tokio runtime with a paused
    /// clock.
    #[default]
    Event,
    /// madsim's seeded executor around the same world, for stores that dial their own
    /// Redis, read the OS clock and draw OS randomness: only in a `--cfg madsim` build
    /// with amnesia's `madsim/tokio` patched in (docs/madsim.md).
    #[cfg(madsim)]
    Madsim,
    /// The same world with its network and hosts in a turmoil simulation: simulated TCP
    /// between a Redis host and one host per app client (docs/turmoil.md).
    #[cfg(feature = "turmoil")]
    Turmoil,
}

impl EngineKind {
    fn engine(self) -> &'static dyn Engine {
        match self {
            EngineKind::Event => &EventEngine,
            #[cfg(madsim)]
            EngineKind::Madsim => &crate::engine::madsim::MadsimEngine,
            #[cfg(feature = "turmoil")]
            EngineKind::Turmoil => &crate::engine::turmoil::TurmoilEngine,
        }
    }

    /// Whether this engine hosts the world's PostgreSQL for a store (in a `pg` build): the
    /// event engine through amnesia's connector, the madsim engine by URL too; turmoil's
    /// hosts serve Redis alone.
    pub(crate) fn hosts_postgres(self) -> bool {
        match self {
            EngineKind::Event => true,
            #[cfg(madsim)]
            EngineKind::Madsim => true,
            #[cfg(feature = "turmoil")]
            EngineKind::Turmoil => false,
        }
    }

    /// The name `--engine` takes.
    pub fn name(self) -> &'static str {
        self.engine().name()
    }

    /// Parse an `--engine` name; the error is one line.
    ///
    /// ```
    /// use amnesia::EngineKind;
    /// assert_eq!(EngineKind::parse("event"), Ok(EngineKind::Event));
    /// // The madsim engine exists only in a `--cfg madsim` build (docs/madsim.md).
    /// assert!(EngineKind::parse("madsim").unwrap_err().contains("--cfg madsim"));
    /// assert!(EngineKind::parse("fast").unwrap_err().starts_with("unknown engine"));
    /// ```
    pub fn parse(name: &str) -> Result<EngineKind, String> {
        match name {
            "event" => Ok(EngineKind::Event),
            #[cfg(feature = "turmoil")]
            "turmoil" => Ok(EngineKind::Turmoil),
            #[cfg(madsim)]
            "madsim" => Ok(EngineKind::Madsim),
            #[cfg(not(madsim))]
            "madsim" => Err(
                "engine 'madsim' needs a `--cfg madsim` build with amnesia's madsim/tokio \
                 patched in (docs/madsim.md)"
                    .to_string(),
            ),
            #[cfg(not(feature = "turmoil"))]
            "turmoil" => Err(
                "engine 'turmoil' needs amnesia's `turmoil` feature (on by default)".to_string(),
            ),
            other => Err(format!(
                "unknown engine '{other}' (known: event, turmoil, madsim)"
            )),
        }
    }
}

/// How to run, besides plan, store and engine.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Which of the store's own `tracing` events reach the timeline.
    pub log: LogFilter,
}

/// The `amnesia` command that regenerates and reruns exactly this run, when there is one:
/// the store must be built in and the scenario one the binary knows by name, with the
/// very settings of that name (a changed copy called "standard" is not the standard
/// scenario). `None` otherwise: replay through the library, or from a saved plan file.
///
/// ```
/// use amnesia::internal::runner::replay_command;
/// use amnesia::{EngineKind, ScenarioConfig, Store};
/// let store = Store::named("write-behind").unwrap();
/// let smoke = ScenarioConfig::smoke();
/// assert_eq!(
///     replay_command(4, &smoke, &store, EngineKind::Event).unwrap(),
///     "amnesia replay --seed 4 --store write-behind --scenario smoke --engine event"
/// );
/// // A changed copy is not the named scenario: no command claims to regenerate it.
/// let changed = ScenarioConfig { turns: 7, ..ScenarioConfig::smoke() };
/// assert_eq!(replay_command(4, &changed, &store, EngineKind::Event), None);
/// ```
pub fn replay_command(
    seed: u64,
    scenario: &ScenarioConfig,
    store: &Store,
    engine: EngineKind,
) -> Option<String> {
    // The binary runs the event and turmoil engines; a madsim build is the user's own
    // test binary.
    #[cfg(madsim)]
    if engine == EngineKind::Madsim {
        return None;
    }
    let args = seed_args(seed, scenario, store)?;
    Some(format!("amnesia replay {args} --engine {}", engine.name()))
}

/// `--seed N --store S [--scenario X]`: what names a seed's run to the binary, when it
/// can (a built-in store, a named scenario); every replay command is built on it.
pub(crate) fn seed_args(seed: u64, scenario: &ScenarioConfig, store: &Store) -> Option<String> {
    if !store.is_builtin() || ScenarioConfig::named(&scenario.name).as_ref() != Some(scenario) {
        return None;
    }
    // Only the standard scenario of a Redis store goes unnamed: the binary's default
    // scenario follows the store's backend, and a command that names it still reproduces
    // whatever that default becomes.
    let scenario = match (scenario.name.as_str(), store.backend()) {
        ("standard", crate::domain::Backend::Redis) => String::new(),
        (name, _) => format!(" --scenario {name}"),
    };
    Some(format!("--seed {seed} --store {}{scenario}", store.label()))
}

/// Everything one run produced. `Display` prints its timeline and verdict.
#[derive(Debug)]
pub struct RunReport {
    /// The plan that ran.
    pub plan: Plan,
    /// The store's label.
    pub store: String,
    /// The engine it ran on.
    pub engine: EngineKind,
    /// Every operation and its outcome, as the checker judged it.
    pub history: History,
    /// Every event of the run; its hash is the determinism fingerprint.
    pub trace: Trace,
    /// The retention the store declared.
    pub policy: Policy,
    /// The checker's verdict.
    pub verdict: Verdict,
    /// Which situations the run reached (races, faults with writes in flight, the store's
    /// `sometimes!` points): derived from what it recorded, never judged.
    pub coverage: Coverage,
}

impl RunReport {
    /// The `amnesia` command that reproduces this run from its seed, if the binary can
    /// (see [`replay_command`]); a plan file replays with `amnesia replay --plan FILE`.
    pub fn replay_command(&self, store: &Store) -> Option<String> {
        replay_command(self.plan.seed, &self.plan.scenario, store, self.engine)
    }
}

/// Generate the plan of `seed` and run it.
///
/// ```
/// use amnesia::internal::runner::run_seed;
/// use amnesia::{EngineKind, ScenarioConfig, Store};
/// let report = run_seed(1, &ScenarioConfig::smoke(), &Store::named("reference").unwrap(), EngineKind::Event);
/// assert!(report.verdict.is_pass());
/// ```
pub fn run_seed(
    seed: u64,
    scenario: &ScenarioConfig,
    store: &Store,
    engine: EngineKind,
) -> RunReport {
    run_plan(Plan::generate(seed, scenario), store, engine)
}

/// Run a plan with `store` and judge the history.
///
/// ```
/// use amnesia::internal::runner::run_plan;
/// use amnesia::{EngineKind, Plan, ScenarioConfig, Store};
/// let plan = Plan::generate(0, &ScenarioConfig::smoke());
/// let report = run_plan(plan, &Store::named("lossy-serde").unwrap(), EngineKind::Event);
/// assert!(!report.verdict.is_pass());
/// ```
pub fn run_plan(plan: Plan, store: &Store, engine: EngineKind) -> RunReport {
    run_plan_with(plan, store, engine, &RunOptions::default())
}

/// [`run_plan`] with options. The store's log subscriber is installed for this run only,
/// on this thread.
pub fn run_plan_with(
    plan: Plan,
    store: &Store,
    engine: EngineKind,
    options: &RunOptions,
) -> RunReport {
    let dispatch = options.log.dispatch();
    // The store's backend decides the servers of the world, and the names of its faults:
    // part of the run's plan.
    let plan = plan.for_backend(store.backend());
    let shared = std::sync::Arc::new(plan);
    let factory = store.factory();
    let recording = crate::sometimes::install();
    crate::model_panic::clear();
    let output = tracing::dispatcher::with_default(&dispatch, || {
        engine.engine().run(shared.clone(), factory)
    });
    if let Some(panics) = crate::model_panic::take() {
        // Our bug, not the store's: the run is reported as a panic (a sweep's `panic`
        // status, with the replay line), never judged.
        panic!("amnesia's model failed in this run (report it to amnesia): {panics}");
    }
    let sometimes = recording.finish();
    // The world is gone with its runtime, so this is the last reference.
    let plan = std::sync::Arc::try_unwrap(shared).unwrap_or_else(|shared| (*shared).clone());
    let verdict = judge(&plan, &output);
    let coverage = Coverage::derive(&plan, &output.history, &output.trace, sometimes);
    RunReport {
        plan,
        store: store.label().to_string(),
        engine,
        history: output.history,
        trace: output.trace,
        policy: output.policy,
        verdict,
        coverage,
    }
}

/// When the plan's last fault's effects ended, and its kind: a fault's settling, or a
/// memory pressure's drain (under `noeviction` a full Redis refuses writes until the
/// neighbour's keys expired); `(0, "")` for a calm plan.
fn healed(plan: &Plan) -> (u64, &'static str) {
    let fault = plan.last_settled().map_or((0, ""), |(fault, settled_ms)| {
        (settled_ms, fault.kind.class().name())
    });
    let drained = plan
        .pressure
        .as_ref()
        .and_then(|pressure| pressure.neighbour.drained_ms())
        .map(|drained_ms| (drained_ms, "memory-pressure"));
    match drained {
        Some(drained) if drained.0 > fault.0 => drained,
        _ => fault,
    }
}

/// The checker's verdict on what an engine produced for `plan`: every class, liveness
/// from the end of the busy phase on.
pub fn judge(plan: &Plan, output: &SimOutput) -> Verdict {
    judge_with_budget(plan, output, OP_BUDGET_MS)
}

/// [`judge`] with the quiet period's per-operation budget given (the real tier scales it
/// with the plan).
pub(crate) fn judge_with_budget(plan: &Plan, output: &SimOutput, op_budget_ms: u64) -> Verdict {
    let (healed_ms, healed_fault) = healed(plan);
    let liveness = LivenessSpec {
        quiet_from_us: plan.duration_ms * 1_000,
        op_budget_us: op_budget_ms * 1_000,
        run_end_us: output.end_us,
        healed_us: healed_ms * 1_000,
        healed_fault,
    };
    let input = CheckInput {
        liveness: Some(liveness),
        quiescence: output.quiescence.as_ref(),
        rank_by_embedder: !plan.corpus.is_empty(),
        ..CheckInput::new(&output.history, output.policy)
    };
    check_input(&input)
}
