//! The `cargo test` entry, [`Builder::check`](super::Builder::check): a range of seeds
//! against a store from a test, with madsim's environment conventions, and a short panic
//! with the replay lines on failure (the whole report in a file); its regression corpus
//! is `regressions.rs`.

use crate::runner::log::LogFilter;
use crate::runner::report::SweepReport;
use crate::runner::seeds::SeedRange;
use crate::runner::sweep::{Replay, SeedResult, SweepConfig, SweepEvent};
use crate::runner::text::{class_name, seed_result_text};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Failing seeds a failing check shows in its panic.
const SEEDS_SHOWN: usize = 3;
/// Violations shown of each of those seeds.
const VIOLATIONS_SHOWN: usize = 2;

impl super::Builder {
    /// The `cargo test` entry: sweep the seeds and, if any fails, panic with the count of
    /// failing seeds and, for the first few, their first violations and the line that
    /// replays each; the whole report goes to a file whose path the panic prints.
    ///
    /// - `AMNESIA_SEED=N` runs that seed alone; `AMNESIA_SEEDS=A..B` runs the range
    ///   (default: [`Builder::seeds`](super::Builder::seeds)); `AMNESIA_JOBS=J` sets the
    ///   worker threads; `RUST_LOG` filters the store's log events in the timelines.
    /// - A passing check prints one line to stderr (`amnesia: 200 seeds passed (store …)`).
    /// - `AMNESIA_VERBOSE=1` prints each seed to stderr before it runs, unbuffered and past
    ///   the test harness's capture, so a test killed by a timeout still tells its seed
    ///   (one seed, `AMNESIA_SEED`, is always printed so), and a failure panics with the
    ///   whole report.
    /// - In a test, the replay line runs the test binary itself on the seed (it has the
    ///   profile and features it was built with), with the `cargo test` form after `#`;
    ///   [`Builder::replay_hint`](super::Builder::replay_hint) words it your way.
    /// - The regression corpus: every entry of `amnesia-regressions/<test>.txt` (beside
    ///   your crate's `Cargo.toml`; [`Builder::regressions`](super::Builder::regressions)
    ///   moves it) runs first, and one that fails again fails the check with its replay
    ///   line before the range runs; a failing range adds its new failing seeds to the
    ///   file (the lowest of each violation class), which you commit. A passing check
    ///   writes nothing; `AMNESIA_SEED` and
    ///   [`Builder::no_regressions`](super::Builder::no_regressions) leave it alone.
    /// - A malformed variable or a corrupt corpus file panics with a one-line message.
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
    #[track_caller]
    pub fn check_env(&self, env: &dyn Fn(&str) -> Option<String>) {
        let mut config = config_from_env(self, env).unwrap_or_else(|e| panic!("amnesia: {e}"));
        let verbose = env("AMNESIA_VERBOSE").is_some_and(|v| !matches!(v.trim(), "" | "0"));
        let test = std::thread::current()
            .name()
            .filter(|n| *n != "main")
            .map(str::to_string);
        if let (Some(test), Replay::Library) = (&test, &config.replay) {
            config.replay = Replay::CargoTest { test: test.clone() };
        }
        let store = config.store.label().to_string();
        let owner = test.as_deref().unwrap_or(&store);
        let violations_shown = if verbose {
            usize::MAX
        } else {
            VIOLATIONS_SHOWN
        };
        let mut corpus = self
            .regressions
            .dir(env)
            .map(|dir| super::regressions::replay_first(dir, owner, &config, violations_shown));
        let one_seed = config.seeds.seeds(config.shard).len() == 1;
        let report = SweepReport::sweep(&config, &|event| {
            if let SweepEvent::Start(seed) = event {
                if verbose || one_seed {
                    let mut stderr = std::io::stderr().lock();
                    let _ = writeln!(stderr, "amnesia: seed {seed} (store {store})");
                }
            }
        });
        let kept = match &mut corpus {
            Some(corpus) if !report.is_pass() => {
                format!("\n{}", super::regressions::record(corpus, &report, &config))
            }
            _ => String::new(),
        };
        let everything = || {
            format!(
                "amnesia: {}\n{}{kept}",
                report.text(),
                failures_text(&report)
            )
        };
        if report.is_pass() {
            if !one_seed {
                let mut stderr = std::io::stderr().lock();
                let _ = writeln!(
                    stderr,
                    "amnesia: {} seeds passed (store {store})",
                    report.summary.seeds
                );
            }
        } else if verbose {
            panic!("{}", everything());
        } else {
            let saved = save_everything(&everything(), owner);
            panic!("{}{kept}", concise_text(&report, saved));
        }
    }
}

/// The panic of a failing check: how many seeds failed, the first few with their first
/// violations and replay lines, and where everything is.
fn concise_text(report: &SweepReport, saved: Result<PathBuf, String>) -> String {
    let failing: Vec<&SeedResult> = report.results.iter().filter(|r| !r.is_pass()).collect();
    let classes: Vec<String> = report
        .summary
        .by_class
        .iter()
        .map(|group| format!("{} {}", class_name(group.class), group.seeds.len()))
        .collect();
    let mut out = format!(
        "amnesia: {} of {} seeds failed (store {}, scenario {}, engine {}){}",
        failing.len(),
        report.summary.seeds,
        report.store,
        report.scenario,
        report.engine,
        if classes.is_empty() {
            String::new()
        } else {
            format!("; seeds by class: {}", classes.join(", "))
        }
    );
    for result in failing.iter().take(SEEDS_SHOWN) {
        out.push('\n');
        out.push_str(&seed_result_text(result, VIOLATIONS_SHOWN));
    }
    if failing.len() > SEEDS_SHOWN {
        let more: Vec<String> = failing[SEEDS_SHOWN..]
            .iter()
            .take(10)
            .map(|r| r.seed.to_string())
            .collect();
        let etc = if failing.len() > SEEDS_SHOWN + 10 {
            ", …"
        } else {
            ""
        };
        let _ = write!(
            out,
            "\n… and {} more failing seeds ({}{etc})",
            failing.len() - SEEDS_SHOWN,
            more.join(", ")
        );
    }
    match saved {
        Ok(path) => {
            let _ = write!(
                out,
                "\neverything (each failing seed, each violation): {} (or rerun with AMNESIA_VERBOSE=1)",
                path.display()
            );
        }
        Err(e) => {
            let _ = write!(
                out,
                "\neverything (each failing seed, each violation): rerun with AMNESIA_VERBOSE=1 ({e})"
            );
        }
    }
    out
}

/// Every failing seed: its violations and the line that replays it.
fn failures_text(report: &SweepReport) -> String {
    let failures: Vec<String> = report
        .results
        .iter()
        .filter(|result| !result.is_pass())
        .map(|result| seed_result_text(result, usize::MAX))
        .collect();
    failures.join("\n")
}

/// Write the whole failure text to `<target>/amnesia/check-<name>.txt` (the cargo target
/// directory of the test binary, else the system temp directory).
fn save_everything(text: &str, name: &str) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().ok();
    let target = exe
        .as_deref()
        .and_then(|exe| {
            exe.ancestors()
                .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        })
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir);
    let dir = target.join("amnesia");
    let file: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let path = dir.join(format!("check-{file}.txt"));
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, format!("{text}\n")))
        .map_err(|e| format!("{} not written: {e}", path.display()))?;
    Ok(path)
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
