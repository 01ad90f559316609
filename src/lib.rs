//! amnesia: deterministic simulation testing of LLM memory stores kept in Redis.
//!
//! A seed becomes a [`plan::Plan`] (workload and faults), the plan runs in a simulated
//! world ([`sim`]) where the store's real code talks to a Redis model ([`model`]) on
//! virtual time, and the recorded [`history::History`] is judged by the [`check`]er.
//! The [`runner`] sweeps seeds in parallel, reports them (JSON, JUnit), shrinks a failing
//! plan, and gives `cargo test` a check entry point ([`runner::check_seeds`]).
//!
//! ```
//! use amnesia::plan::ScenarioConfig;
//! use amnesia::runner::{run_seed, EngineKind};
//!
//! // One seed, one exact execution: the reference store passes it...
//! let report = run_seed(42, &ScenarioConfig::standard(), "reference", EngineKind::Event).unwrap();
//! assert!(report.verdict.is_pass());
//! // ...and running it again gives the same trace, byte for byte.
//! let again = run_seed(42, &ScenarioConfig::standard(), "reference", EngineKind::Event).unwrap();
//! assert_eq!(report.trace.hash(), again.trace.hash());
//! ```
pub mod buggify;
pub mod check;
pub mod clock;
pub mod connect;
pub mod contract;
pub mod domain;
pub mod history;
pub mod model;
pub mod plan;
pub mod runner;
pub mod sim;
pub mod store;
pub mod trace;
