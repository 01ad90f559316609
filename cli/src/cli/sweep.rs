//! `amnesia sweep --seeds A..B`: many seeds on worker threads, a progress bar, a summary
//! of failing seeds grouped by violation class, and optional JSON and JUnit reports;
//! `--explore` runs the guided search instead (`amnesia::internal::runner::explore`).
//! A sweep replays the store's regression corpus (`amnesia-regressions/<store>.txt`)
//! before its range and adds the range's new failing seeds to it.

use crate::cli::{CliError, EXIT_NONDETERMINISM, EXIT_PASS, EXIT_VIOLATION};
use amnesia::internal::runner::junit::junit_xml;
use amnesia::internal::runner::regressions::{entries_of, replay, Corpus, Reach, DIR_DEFAULT};
use amnesia::internal::runner::sweep::SeedStatus;
use amnesia::internal::runner::sweep::{jobs_default, SweepEvent, JOBS_MAX};
use amnesia::internal::runner::{
    EngineKind, ExploreConfig, LogFilter, SeedRange, Shard, SweepConfig, SweepReport,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The seeds, a half-open range: 0..1000 runs 0 up to 999.
    #[arg(long, value_name = "A..B")]
    seeds: String,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "J")]
    jobs: Option<usize>,
    /// Run only shard K of N (1-based): the seeds with seed % N == K-1.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// The store under test.
    #[arg(long, default_value = "reference", long_help = crate::cli::store_help())]
    store: String,
    /// The scenario plans are generated from (standard, smoke, replay, migrate, corpus, pressure); default:
    /// the store's backend's: `standard` for Redis, `replay` for pgvector).
    #[arg(long)]
    scenario: Option<String>,
    /// Write the JSON report (schema: README, "The JSON report") to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a JUnit XML report (one test case per seed) to this file.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// The simulation engine.
    #[arg(long, default_value = "event", value_parser = EngineKind::parse, long_help = crate::cli::ENGINE_HELP)]
    engine: EngineKind,
    /// Run every seed twice and compare trace hashes (exit 3 if one differs).
    #[arg(long)]
    check_determinism: bool,
    /// Wall-clock limit of one run, in milliseconds; a seed past it is reported stuck.
    #[arg(long, value_name = "MS", default_value_t = amnesia::internal::runner::guard::SEED_TIMEOUT_MS_DEFAULT)]
    seed_timeout_ms: u64,
    /// Guided search: as many runs as seeds, part of them mutants of plans that reached
    /// new or rare coverage (deterministic: the range's start seeds it). A failing
    /// mutant's plan is written to --plans-dir and replays with `amnesia replay --plan`.
    #[arg(long)]
    explore: bool,
    /// Where --explore writes failing mutants' plans.
    #[arg(
        long,
        value_name = "DIR",
        default_value = "target/amnesia/explore",
        requires = "explore"
    )]
    plans_dir: PathBuf,
    /// The regression corpus: DIR/<store>.txt keeps the failing seeds of earlier sweeps
    /// (the lowest of each violation class), replayed before the range; one that fails
    /// again fails the sweep before the range runs. New failing seeds are added. Commit
    /// the directory. Relative to the working directory; not with --explore.
    #[arg(long, value_name = "DIR", default_value = DIR_DEFAULT)]
    regressions: PathBuf,
    /// Neither replay nor write the regression corpus.
    #[arg(long, conflicts_with = "regressions")]
    no_regressions: bool,
}

pub fn run(args: Args) -> Result<u8, CliError> {
    let config = config(&args)?;
    for path in args.json.iter().chain(&args.junit) {
        crate::cli::check_writable(path)?;
    }
    if args.explore {
        return explore(&args, &config);
    }
    let corpus = if args.no_regressions {
        None
    } else {
        let corpus = Corpus::load(&args.regressions, config.store.label())
            .map_err(|e| CliError::Corpus(e.to_string()))?;
        if let Some(code) = replay_first(&corpus, &config) {
            return Ok(code);
        }
        Some(corpus)
    };
    let progress = progress_bar(config.seeds.seeds(config.shard).len() as u64, "seeds");
    let failures = AtomicUsize::new(0);
    let report = SweepReport::sweep(&config, &|event| count(event, &progress, &failures));
    progress.finish_and_clear();
    if let Some(path) = &args.json {
        write_file(path, &report.to_json_pretty())?;
    }
    if let Some(path) = &args.junit {
        write_file(path, &junit_xml(&report))?;
    }
    crate::cli::emit(&report.text());
    if let Some(mut corpus) = corpus.filter(|_| !report.is_pass()) {
        record(&mut corpus, &report, &config)?;
    }
    Ok(if report.is_nondeterministic() {
        EXIT_NONDETERMINISM
    } else if report.is_pass() {
        EXIT_PASS
    } else {
        EXIT_VIOLATION
    })
}

/// Replay the corpus before the range: the exit code when an entry fails again (its
/// replay line printed), `None` when every entry passes.
fn replay_first(corpus: &Corpus, config: &SweepConfig) -> Option<u8> {
    let replayed = replay(corpus, config, Reach::BuiltIn);
    for note in &replayed.notes {
        eprintln!("amnesia: {note}");
    }
    if replayed.is_pass() {
        if !replayed.results.is_empty() {
            eprintln!(
                "amnesia: {} regression entries replayed first, all pass ({})",
                replayed.results.len(),
                corpus.path.display()
            );
        }
        return None;
    }
    crate::cli::emit(&format!(
        "{}\n(--no-regressions skips the corpus)\n",
        replayed.failure_text(corpus, usize::MAX)
    ));
    let nondeterministic = replayed
        .results
        .iter()
        .any(|r| r.status == SeedStatus::Nondeterministic);
    Some(if nondeterministic {
        EXIT_NONDETERMINISM
    } else {
        EXIT_VIOLATION
    })
}

/// Keep a failing range's new seeds in the corpus, and say so.
fn record(corpus: &mut Corpus, report: &SweepReport, config: &SweepConfig) -> Result<(), CliError> {
    let added = corpus
        .record(entries_of(&report.results, config))
        .map_err(|e| CliError::Corpus(e.to_string()))?;
    if !added.is_empty() {
        let seeds: Vec<String> = added.iter().map(|e| e.seed.to_string()).collect();
        eprintln!(
            "amnesia: new failing seeds {} kept in {}: commit it; every later sweep replays them first",
            seeds.join(", "),
            corpus.path.display()
        );
    }
    Ok(())
}

/// Draw one finished run on the bar: its count, and the failures so far.
fn count(event: SweepEvent<'_>, progress: &ProgressBar, failures: &AtomicUsize) {
    if let SweepEvent::Done(result) = event {
        if !result.is_pass() {
            let failed = failures.fetch_add(1, Ordering::Relaxed) + 1;
            progress.set_message(format!("{failed} failing"));
        }
        progress.inc(1);
    }
}

/// `--explore`: the guided search over the range's budget of runs.
fn explore(args: &Args, config: &SweepConfig) -> Result<u8, CliError> {
    if args.junit.is_some() {
        return Err(CliError::Usage(
            "--junit is not written with --explore (--json is)".into(),
        ));
    }
    let settings = ExploreConfig {
        plans_dir: args.plans_dir.clone(),
        ..ExploreConfig::default()
    };
    let progress = progress_bar(config.seeds.seeds(config.shard).len() as u64, "runs");
    let failures = AtomicUsize::new(0);
    let report = amnesia::internal::runner::explore(config, &settings, &|event| {
        count(event, &progress, &failures)
    });
    progress.finish_and_clear();
    if let Some(path) = &args.json {
        write_file(path, &report.to_json_pretty())?;
    }
    crate::cli::emit(&report.text());
    Ok(if report.is_nondeterministic() {
        EXIT_NONDETERMINISM
    } else if report.is_pass() {
        EXIT_PASS
    } else {
        EXIT_VIOLATION
    })
}

/// The sweep the arguments ask for; every bad value is a one-line usage error.
fn config(args: &Args) -> Result<SweepConfig, CliError> {
    let store = crate::cli::run::store_named(&args.store, args.engine)?;
    let scenario = crate::cli::run::scenario_for(args.scenario.as_deref(), &store)?;
    let seeds = SeedRange::parse(&args.seeds).map_err(CliError::Usage)?;
    let shard = args
        .shard
        .as_deref()
        .map(Shard::parse)
        .transpose()
        .map_err(CliError::Usage)?;
    let jobs = args.jobs.unwrap_or_else(jobs_default);
    if jobs == 0 || jobs > JOBS_MAX {
        return Err(CliError::Usage(format!(
            "--jobs {jobs} is outside 1..={JOBS_MAX}"
        )));
    }
    if args.seed_timeout_ms == 0 {
        return Err(CliError::Usage("--seed-timeout-ms must be positive".into()));
    }
    Ok(SweepConfig {
        shard,
        jobs,
        engine: args.engine,
        check_determinism: args.check_determinism,
        seed_timeout: Duration::from_millis(args.seed_timeout_ms),
        log: LogFilter::from_env().map_err(CliError::Usage)?,
        scenario,
        ..SweepConfig::new(seeds, store)
    })
}

/// Runs/s, failures so far and ETA on stderr; hidden when stderr is not a terminal.
fn progress_bar(runs: u64, unit: &str) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(runs), target);
    let template =
        format!("{{bar:32}} {{pos}}/{{len}} {unit} · {{per_sec}} · {{msg}} · ETA {{eta}}");
    let style = ProgressStyle::with_template(&template).expect("the template is valid");
    bar.set_style(style);
    bar.set_message("0 failing");
    bar
}

fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text)
        .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", path.display())))
}
