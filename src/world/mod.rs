//! The shared world every tier runs: a plan becomes a run of the store's real code
//! against a Redis server (the model on virtual time in the engines of
//! [`crate::engine`], a real server on real time in the real tier), and yields a history
//! and a trace.
//!
//! Its layers, each depending only on those before it: clocks ([`clock`]), the run's
//! context ([`context`]), hosts ([`host`]), links ([`net`]), server nodes ([`node`]), the
//! deploy's gate ([`gate`]), the recorder ([`recorder`]), the world's shared state
//! ([`shared`]), the driver of the turns ([`driver`]), the fault schedule ([`faults`]) and
//! a pressure plan's noisy neighbour ([`neighbour`]) working on it, the run ([`run`]), and the world around the model as the simulating
//! engines assemble it ([`assemble`]).
//!
//! The plan, the stores, the checker and the runner see only [`Engine`] and [`SimOutput`];
//! an engine's own types stay behind its module's boundary, so every engine runs the same
//! plans and must reach the same verdicts.

pub mod assemble;
pub mod clock;
pub mod context;
pub mod driver;
pub mod faults;
pub mod gate;
pub mod host;
pub mod neighbour;
pub mod net;
pub mod node;
#[cfg(feature = "pg")]
pub mod pg_names;
#[cfg(feature = "pg")]
pub mod pg_node;
pub mod recorder;
pub mod run;
pub mod shared;

use crate::contract::{Policy, StoreFactory};
use crate::history::History;
use crate::plan::Plan;
use crate::trace::Trace;

/// What one run of the world produced.
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

/// A simulation engine: runs the world on its executor (`crate::engine`).
pub trait Engine: Send + Sync {
    /// The name `--engine` takes.
    fn name(&self) -> &'static str;
    /// Run `plan` with every client's store built by `store`.
    /// The plan is shared, not copied: message contents can be large.
    fn run(&self, plan: std::sync::Arc<Plan>, store: &StoreFactory) -> SimOutput;
}

/// Virtual time a run may take past the plan's end (and the final reads' waits between
/// their rounds) before pending operations are cut off.
pub const RUN_GRACE_MS: u64 = 60_000;

/// When a run of `plan` cuts off what is still pending: the plan's end, the final reads'
/// waits between their rounds, then `grace_ms`.
pub fn deadline_ms(plan: &Plan, grace_ms: u64) -> u64 {
    plan.end_ms() + driver::FINAL_ROUNDS_WAIT_MS + grace_ms
}
/// How long an operation may take once the quiet period has begun.
pub const OP_BUDGET_MS: u64 = 10_000;
