//! Running seeds: one seed to a verdict ([`run`]); sweeps, shrinking and reports build on it.

pub mod run;
pub mod text;

pub use run::{run_plan, run_plan_with, run_seed, EngineKind, RunReport};
