//! One run: plan → world (an engine) → history and trace → checker → verdict.

use crate::check::{check_input, CheckInput, LivenessSpec, Verdict};
use crate::history::History;
use crate::plan::{Plan, ScenarioConfig};
use crate::sim::event::EventEngine;
use crate::sim::{Engine, OP_BUDGET_MS};
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

    pub fn name(self) -> &'static str {
        self.engine().name()
    }
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
    /// The one command that reproduces this run.
    pub fn replay_command(&self) -> String {
        format!(
            "amnesia run --seed {} --store {} --engine {}",
            self.plan.seed,
            self.store,
            self.engine.name()
        )
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
    let factory = store::factory(store)?;
    Ok(run_plan_with(plan, store, &factory, engine))
}

/// Run a plan with a store of the caller's (`label` names it in reports).
pub fn run_plan_with(
    plan: Plan,
    label: &str,
    store: &StoreFactory,
    engine: EngineKind,
) -> RunReport {
    let output = engine.engine().run(&plan, store);
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
    let verdict = check_input(&input);
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
