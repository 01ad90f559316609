//! The real tier: the same plans, store code and checker against a real Redis server, in
//! Docker through testcontainers or as a local process, behind a fault proxy on 127.0.0.1
//! that applies the plan's network faults with the simulator's own link code on real time.
//!
//! A simulator is trusted when reality agrees with it: [`run_real`] runs a plan for real
//! and judges it as the simulator does, and [`lockstep`] replays the commands the model
//! executed for a seed on the real server and compares the replies byte for byte.
//!
//! ```no_run
//! use amnesia::real::{run_real, Provider, RealOptions};
//! use amnesia::{Plan, ScenarioConfig, Store};
//! let options = RealOptions { provider: Provider::from_env()?, time_scale: 1.0 };
//! let plan = Plan::generate(7, &ScenarioConfig::smoke());
//! let report = run_real(plan, &Store::named("reference").unwrap(), &options)?;
//! assert!(report.verdict.is_pass());
//! # Ok::<(), amnesia::real::RealError>(())
//! ```

mod docker;
mod golden;
mod inject;
mod interrupt;
mod lockstep;
mod node;
mod owner;
mod pg;
mod process;
mod progress;
mod proxy;
mod run;
mod scale;
mod server;

pub use docker::{LABEL, OWNER_LABEL};
pub use golden::{
    golden_corpus, run_golden, GoldenCorpus, GoldenMemory, GoldenReport, GOLDEN_K_MAX,
    GOLDEN_VERSION,
};
pub use interrupt::clean_up_on_interrupt;
pub use lockstep::{lockstep, lockstep_plan, Lockstep, Mismatch};
pub use pg::{DEFAULT_PG_BIN, DEFAULT_PG_IMAGE};
pub use progress::RealProgress;
pub use run::{
    real_command, run_real, run_real_with_progress, time_scale_flag, RealOptions, RealReport,
};
pub use scale::{parse_time_scale, scale_plan, TIME_SCALE_MAX, TIME_SCALE_MIN};
pub use server::{server_flags, Provider, RealError, DEFAULT_IMAGE};
