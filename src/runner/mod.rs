//! Running seeds: one seed to a verdict ([`run`]), sweeps over many seeds on worker
//! threads ([`sweep`](mod@sweep)) with reports ([`report`], [`junit`]), the determinism check
//! ([`determinism`]), the wall-clock guard ([`guard`]), shrinking a failing plan
//! ([`shrink`](mod@shrink), [`edit`]), the guided search ([`explore`](mod@explore),
//! [`mutate`]) and the store's log events in the timeline ([`log`]). The
//! `cargo test` entry lives with the front door, [`Builder::check`](crate::Builder::check);
//! reviewed snapshots of one run are [`snapshot`](mod@snapshot), its picture [`page`];
//! the regression corpus a check and a sweep keep in the user's repository is
//! [`regressions`].

pub mod determinism;
pub mod edit;
pub mod explore;
pub mod guard;
pub mod junit;
pub mod log;
pub mod mutate;
pub mod page;
pub mod regressions;
pub mod report;
pub mod run;
pub mod seeds;
pub mod shrink;
pub mod snapshot;
// The front door re-exports `Store` (`amnesia::Store`, `amnesia::builder::Store`): it
// lives here, below the builder, because every path that runs seeds takes one.
pub(crate) mod store;
pub mod sweep;
pub mod text;

pub use explore::{explore, ExploreConfig, ExploreReport};
pub use log::LogFilter;
pub use report::SweepReport;
pub use run::{
    replay_command, run_plan, run_plan_with, run_seed, EngineKind, RunOptions, RunReport,
};
pub use seeds::{SeedRange, Shard};
pub use shrink::{shrink, ShrinkConfig, Shrunk};
pub use snapshot::Snapshot;
pub use sweep::{sweep, Replay, SeedResult, SeedStatus, SweepConfig};
