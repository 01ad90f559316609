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
pub(crate) mod pg;
mod process;
mod progress;
mod proxy;
mod run;
mod scale;
pub(crate) mod server;

pub use golden::{
    golden_corpus, run_golden, run_golden_on_model, GoldenCorpus, GoldenMemory, GoldenReport,
};
pub use interrupt::clean_up_on_interrupt;
pub use lockstep::{lockstep, Lockstep, Mismatch};
pub use progress::RealProgress;
pub use run::{run_real, run_real_with_progress, RealOptions, RealReport};
pub use server::{Provider, RealError};

// The command line's and the tests' pieces of the tier: not a stable interface.
#[doc(hidden)]
pub use {
    docker::{LABEL, OWNER_LABEL},
    golden::{GOLDEN_K_MAX, GOLDEN_VERSION},
    lockstep::lockstep_plan,
    pg::{DEFAULT_PG_BIN, DEFAULT_PG_IMAGE},
    run::{real_command, time_scale_flag},
    scale::{parse_time_scale, scale_plan, TIME_SCALE_MAX, TIME_SCALE_MIN},
    server::{server_flags, DEFAULT_IMAGE},
};
