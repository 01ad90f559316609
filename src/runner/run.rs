//! One run: plan → world (an engine) → history and trace → checker → verdict.

use crate::check::{check_input, CheckInput, LivenessSpec, Verdict};
use crate::history::History;
use crate::plan::{Plan, ScenarioConfig};
use crate::runner::log::LogFilter;
use crate::sim::event::EventEngine;
use crate::sim::{Engine, SimOutput, OP_BUDGET_MS};
use crate::store::{self, Policy, StoreFactory, UnknownStore};
use crate::trace::Trace;

/// Which engine runs the plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineKind {
    #[default]
    Event,
}

impl EngineKind {
    fn engine(self) -> &'static dyn Engine {
        match self {
            EngineKind::Event => &EventEngine,
        }
    }

    /// The name `--engine` takes.
    pub fn name(self) -> &'static str {
        self.engine().name()
    }

    /// Parse an `--engine` name; the error is one line.
    pub fn parse(name: &str) -> Result<EngineKind, String> {
        match name {
            "event" => Ok(EngineKind::Event),
            other => Err(format!("unknown engine '{other}' (known: event)")),
        }
    }
}

/// How to run, besides plan, store and engine.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Which of the store's own `tracing` events reach the timeline.
    pub log: LogFilter,
}

/// The one command that reproduces `seed` with `store` on `engine`.
pub fn replay_command(seed: u64, store: &str, engine: EngineKind) -> String {
    format!(
        "amnesia replay --seed {seed} --store {store} --engine {}",
        engine.name()
    )
}

/// Everything one run produced.
pub struct RunReport {
    pub plan: Plan,
    pub store: String,
    pub engine: EngineKind,
    pub history: History,
    pub trace: Trace,
    pub policy: Policy,
    pub verdict: Verdict,
}

impl RunReport {
    /// The one command that reproduces this run (of a generated plan; a plan file
    /// replays with `amnesia replay --plan FILE`).
    pub fn replay_command(&self) -> String {
        replay_command(self.plan.seed, &self.store, self.engine)
    }
}

/// Generate the plan of `seed` and run it.
pub fn run_seed(
    seed: u64,
    scenario: &ScenarioConfig,
    store: &str,
    engine: EngineKind,
) -> Result<RunReport, UnknownStore> {
    run_plan(Plan::generate(seed, scenario), store, engine)
}

/// Run a plan with the named store and judge the history.
pub fn run_plan(plan: Plan, store: &str, engine: EngineKind) -> Result<RunReport, UnknownStore> {
    run_plan_with(plan, store, engine, &RunOptions::default())
}

/// [`run_plan`] with options. The store's log subscriber is installed for this run only,
/// on this thread.
pub fn run_plan_with(
    plan: Plan,
    store: &str,
    engine: EngineKind,
    options: &RunOptions,
) -> Result<RunReport, UnknownStore> {
    let factory = store::factory(store)?;
    Ok(run_plan_with_store(plan, store, &factory, engine, options))
}

/// Run a plan with a store of the caller's: library users bring their own
/// [`StoreFactory`]; `label` names the store in reports and replay commands.
pub fn run_plan_with_store(
    plan: Plan,
    label: &str,
    store: &StoreFactory,
    engine: EngineKind,
    options: &RunOptions,
) -> RunReport {
    let dispatch = options.log.dispatch();
    let shared = std::sync::Arc::new(plan);
    let output =
        tracing::dispatcher::with_default(&dispatch, || engine.engine().run(shared.clone(), store));
    // The world is gone with its runtime, so this is the last reference.
    let plan = std::sync::Arc::try_unwrap(shared).unwrap_or_else(|shared| (*shared).clone());
    let verdict = judge(&plan, &output);
    RunReport {
        plan,
        store: label.to_string(),
        engine,
        history: output.history,
        trace: output.trace,
        policy: output.policy,
        verdict,
    }
}

/// The checker's verdict on what an engine produced for `plan`: every class, liveness
/// from the end of the busy phase on.
pub fn judge(plan: &Plan, output: &SimOutput) -> Verdict {
    let liveness = LivenessSpec {
        quiet_from_us: plan.duration_ms * 1_000,
        op_budget_us: OP_BUDGET_MS * 1_000,
        run_end_us: output.end_us,
    };
    let input = CheckInput {
        liveness: Some(liveness),
        quiescence: output.quiescence.as_ref(),
        ..CheckInput::new(&output.history, output.policy)
    };
    check_input(&input)
}
