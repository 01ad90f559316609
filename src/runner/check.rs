//! The `cargo test` entry point: run a range of seeds against a store from a test, with
//! madsim's environment conventions, and panic with the replay commands on failure.

use crate::runner::log::LogFilter;
use crate::runner::report::SweepReport;
use crate::runner::seeds::SeedRange;
use crate::runner::sweep::{jobs_default, sweep, SweepConfig, SweepEvent};
use std::io::Write as _;
use std::time::Instant;

/// Seeds [`check_seeds`] runs when neither `AMNESIA_SEED` nor `AMNESIA_SEEDS` is set.
pub const CHECK_SEEDS_DEFAULT: SeedRange = SeedRange { start: 0, end: 64 };

/// Check `store` over a range of seeds, from a test:
///
/// - `AMNESIA_SEED=N` runs that seed alone; `AMNESIA_SEEDS=A..B` runs the range
///   (default [`CHECK_SEEDS_DEFAULT`]); `AMNESIA_JOBS=J` sets the worker threads (default:
///   every core); `RUST_LOG` filters the store's log events in the timelines.
/// - Each seed is printed to stderr before it runs, unbuffered and past the test
///   harness's capture, so a test killed by a timeout still tells its seed.
/// - Panics with the failing seeds, their violations and the command that replays each.
///   A malformed variable or an unknown store panics with a one-line message.
///
/// ```
/// // In a test of your crate: `#[test] fn memory_store_survives_faults() { ... }`
/// // (here the reference store, over seeds 0..4 unless AMNESIA_SEEDS says otherwise).
/// amnesia::runner::check_seeds_in("reference", amnesia::runner::SeedRange { start: 0, end: 4 });
/// ```
pub fn check_seeds(store: &str) {
    check_seeds_in(store, CHECK_SEEDS_DEFAULT);
}

/// [`check_seeds`] with another default range.
pub fn check_seeds_in(store: &str, default_seeds: SeedRange) {
    check_seeds_env(store, default_seeds, &|name| std::env::var(name).ok());
}

/// [`check_seeds_in`] with the variables read from `env` instead of the process
/// environment (for tests of the check itself).
pub fn check_seeds_env(
    store: &str,
    default_seeds: SeedRange,
    env: &dyn Fn(&str) -> Option<String>,
) {
    if let Err(error) = crate::store::check_name(store) {
        panic!("amnesia: {error}");
    }
    let config =
        config_from_env(store, default_seeds, env).unwrap_or_else(|e| panic!("amnesia: {e}"));
    let started = Instant::now(); // wall time for the summary only
    let results = sweep(&config, &|event| {
        if let SweepEvent::Start(seed) = event {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "amnesia: seed {seed} (store {store})");
        }
    });
    let report = SweepReport::new(&config, results, started.elapsed().as_millis() as u64);
    if !report.is_pass() {
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
        panic!("amnesia: {}\n{}", report.text(), failures.join("\n"));
    }
}

/// The sweep the environment asks for.
fn config_from_env(
    store: &str,
    default_seeds: SeedRange,
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
        (None, None) => default_seeds,
    };
    let jobs = match var("AMNESIA_JOBS") {
        Some(jobs) => jobs
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&j| j > 0)
            .ok_or_else(|| format!("AMNESIA_JOBS='{jobs}' is not a positive number"))?,
        None => jobs_default(),
    };
    Ok(SweepConfig {
        jobs,
        log: match var("RUST_LOG") {
            Some(directives) => LogFilter::new(&directives)?,
            None => LogFilter::default(),
        },
        ..SweepConfig::new(seeds, store)
    })
}
