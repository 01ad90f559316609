//! The `cargo test` entry, [`Builder::check`](super::Builder::check): a range of seeds
//! against a store from a test, with madsim's environment conventions, and a panic with
//! the replay commands on failure.

use crate::runner::log::LogFilter;
use crate::runner::report::SweepReport;
use crate::runner::seeds::SeedRange;
use crate::runner::sweep::{Replay, SweepConfig, SweepEvent};
use std::io::Write as _;

impl super::Builder {
    /// The `cargo test` entry: sweep the seeds and panic with every failing seed's
    /// violations and the one line that replays it.
    ///
    /// - `AMNESIA_SEED=N` runs that seed alone; `AMNESIA_SEEDS=A..B` runs the range
    ///   (default: [`Builder::seeds`](super::Builder::seeds)); `AMNESIA_JOBS=J` sets the
    ///   worker threads; `RUST_LOG` filters the store's log events in the timelines.
    /// - Each seed is printed to stderr before it runs, unbuffered and past the test
    ///   harness's capture, so a test killed by a timeout still tells its seed.
    /// - A malformed variable panics with a one-line message.
    ///
    /// ```
    /// // In a test of your crate: `#[test] fn memory_store_survives_faults() { ... }`
    /// amnesia::Builder::new().seeds(0..4).check();
    /// ```
    #[track_caller]
    pub fn check(&self) {
        self.valid();
        self.check_env(&|name| std::env::var(name).ok());
    }

    /// [`Self::check`] with the variables read from `env` instead of the process
    /// environment (for tests of the check itself).
    #[doc(hidden)]
    pub fn check_env(&self, env: &dyn Fn(&str) -> Option<String>) {
        let mut config = config_from_env(self, env).unwrap_or_else(|e| panic!("amnesia: {e}"));
        if let Some(test) = std::thread::current().name().filter(|n| *n != "main") {
            config.replay = Replay::CargoTest {
                test: test.to_string(),
            };
        }
        let store = config.store.label().to_string();
        let report = SweepReport::sweep(&config, &|event| {
            if let SweepEvent::Start(seed) = event {
                let mut stderr = std::io::stderr().lock();
                let _ = writeln!(stderr, "amnesia: seed {seed} (store {store})");
            }
        });
        if !report.is_pass() {
            panic!("amnesia: {}\n{}", report.text(), failures_text(&report));
        }
    }
}

/// Every failing seed: its violations and the line that replays it.
fn failures_text(report: &SweepReport) -> String {
    let failures: Vec<String> = report
        .results
        .iter()
        .filter(|result| !result.is_pass())
        .map(|result| {
            let violations: Vec<String> = result
                .violations
                .iter()
                .map(crate::runner::text::violation_text)
                .collect();
            format!(
                "seed {} {}:\n{}\n  replay: {}",
                result.seed,
                result.status.name(),
                violations.join("\n"),
                result.replay
            )
        })
        .collect();
    failures.join("\n")
}

/// The sweep the environment asks for.
fn config_from_env(
    builder: &super::Builder,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<SweepConfig, String> {
    let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let seeds = match (var("AMNESIA_SEED"), var("AMNESIA_SEEDS")) {
        (Some(seed), _) => {
            let seed: u64 = seed
                .trim()
                .parse()
                .map_err(|_| format!("AMNESIA_SEED='{seed}' is not a seed (u64)"))?;
            let end = seed
                .checked_add(1)
                .ok_or_else(|| format!("AMNESIA_SEED={seed} is too large"))?;
            SeedRange { start: seed, end }
        }
        (None, Some(range)) => {
            SeedRange::parse(&range).map_err(|e| format!("AMNESIA_SEEDS: {e}"))?
        }
        (None, None) => builder.seeds,
    };
    let jobs = match var("AMNESIA_JOBS") {
        Some(jobs) => jobs
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&j| j > 0)
            .ok_or_else(|| format!("AMNESIA_JOBS='{jobs}' is not a positive number"))?,
        None => builder.jobs,
    };
    let log = match var("RUST_LOG") {
        Some(directives) => LogFilter::new(&directives)?,
        None => builder.log.clone(),
    };
    Ok(SweepConfig {
        log,
        ..builder.sweep_config(seeds, jobs)
    })
}
