//! Simulated worlds: a plan becomes a run of the store's real code against the Redis model
//! on virtual time, and yields a history and a trace.
//!
//! The plan, the stores, the checker and the runner see only [`Engine`] and [`SimOutput`];
//! an engine's own types stay behind this module's boundary, so every engine runs the same
//! plans and must reach the same verdicts.

pub mod clock;
pub mod context;
pub mod driver;
pub mod event_engine;
pub mod faults;
pub mod gate;
pub mod host;
#[cfg(madsim)]
pub mod madsim_engine;
pub mod net;
pub mod node;
pub mod recorder;
#[cfg(feature = "turmoil")]
pub mod turmoil_engine;
pub mod world;

use crate::contract::{Policy, StoreFactory};
use crate::history::History;
use crate::plan::Plan;
use crate::trace::Trace;

/// What one simulated run produced.
pub struct SimOutput {
    /// Every operation the clients invoked, and the Redis restarts observed.
    pub history: History,
    /// Every event of the run, in order.
    pub trace: Trace,
    /// The policy the store declared.
    pub policy: Policy,
    /// Virtual microseconds from the world's start to its end.
    pub end_us: u64,
    /// Memory ids stored and indexed at quiescence, when the store keeps memories.
    pub quiescence: Option<crate::history::Quiescence>,
}

/// A simulation engine.
pub trait Engine: Send + Sync {
    /// The name `--engine` takes.
    fn name(&self) -> &'static str;
    /// Run `plan` with every client's store built by `store`.
    /// The plan is shared, not copied: message contents can be large.
    fn run(&self, plan: std::sync::Arc<Plan>, store: &StoreFactory) -> SimOutput;
}

/// Virtual time a run may take past the plan's end before pending operations are cut off.
pub const RUN_GRACE_MS: u64 = 60_000;
/// How long an operation may take once the quiet period has begun.
pub const OP_BUDGET_MS: u64 = 10_000;
