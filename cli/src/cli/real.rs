//! `amnesia real (--seed N | --plan FILE) [--backend redis|pgvector]`: the same plan
//! against a real server (Redis, or PostgreSQL with pgvector; in Docker, or a local
//! process with `AMNESIA_REAL_PROVIDER=process`) behind the fault proxy; the same output
//! as `run`: plan summary, timeline, verdict, reproduce line.

use crate::cli::replay::load_plan;
use crate::cli::run::any_store_named;
use crate::cli::{CliError, EXIT_PASS, EXIT_VIOLATION};
use amnesia::internal::plan::Plan;
use amnesia::internal::runner::text::timeline_and_verdict;
use amnesia::real::{
    parse_time_scale, real_command, run_real_with_progress, time_scale_flag, Provider, RealOptions,
    RealProgress,
};
use amnesia::Backend;

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["seed", "plan"])))]
pub struct Args {
    /// The seed to run for real.
    #[arg(long)]
    seed: Option<u64>,
    /// A saved plan file (versioned JSON) to run for real.
    #[arg(long, value_name = "FILE")]
    plan: Option<std::path::PathBuf>,
    /// The server the store keeps its data in: `redis`, `pgvector` (PostgreSQL with
    /// pgvector) or `redis-then-pgvector` (a migration at the deploy); the store's own
    /// when `--store` names one.
    #[arg(long, default_value = "redis", value_parser = parse_backend)]
    backend: Backend,
    /// The store under test (default: the backend's reference store, `reference`,
    /// `pgvector-reference` or `migrate-to-pgvector`).
    #[arg(long)]
    store: Option<String>,
    /// The scenario the seed's plan is generated from (default: `standard` on Redis,
    /// `replay` on pgvector, `migrate` for a migration); a plan file carries its own.
    #[arg(long)]
    scenario: Option<String>,
    /// Real milliseconds per plan millisecond.
    #[arg(long, default_value = "1", value_parser = parse_time_scale)]
    time_scale: f64,
    /// Print the whole plan as JSON (as scaled) before running it.
    #[arg(long)]
    print_plan: bool,
    /// Show the full timeline, bytes on the wire included.
    #[arg(long)]
    trace: bool,
    /// Instead of a real run: replay the commands the model executed for the plan on the
    /// real server and compare every reply byte for byte (exit 1 if one differs).
    #[arg(long)]
    lockstep: bool,
}

fn parse_backend(name: &str) -> Result<Backend, String> {
    Backend::parse(name).ok_or_else(|| {
        format!("unknown backend '{name}' (known: redis, pgvector, redis-then-pgvector)")
    })
}

/// The store `--store` names (or the backend's reference), on the backend it needs.
fn store_for(args: &Args) -> Result<amnesia::Store, CliError> {
    let name = args.store.clone().unwrap_or_else(|| match args.backend {
        Backend::Redis => "reference".into(),
        Backend::Pgvector => "pgvector-reference".into(),
        Backend::RedisThenPgvector => "migrate-to-pgvector".into(),
    });
    let store = any_store_named(&name)?;
    if store.backend() != args.backend && args.store.is_some() && args.backend != Backend::Redis {
        return Err(CliError::Usage(format!(
            "store '{name}' keeps its data in {}, not {}",
            store.backend().name(),
            args.backend.name()
        )));
    }
    Ok(store)
}

pub fn run(args: Args) -> Result<u8, CliError> {
    // Before any thread starts: SIGINT and SIGTERM remove the run's servers.
    amnesia::real::clean_up_on_interrupt()?;
    let store = store_for(&args)?;
    let backend = store.backend();
    if args.lockstep && backend != Backend::Redis {
        return Err(CliError::Usage(
            "--lockstep compares the Redis model with Redis: pgvector has no model".into(),
        ));
    }
    let (plan, reproduce) = plan_for(&args, &store)?;
    let provider = Provider::from_env()?;
    provider.check(backend)?;
    if args.lockstep {
        return lockstep(plan, &store, &provider);
    }
    let options = RealOptions {
        provider,
        time_scale: args.time_scale,
    };
    // A real run takes the plan's time: say so before the wait.
    eprintln!(
        "amnesia real: {} for about {:.0} s of real time",
        options.provider.describe(backend),
        plan.end_ms() as f64 * options.time_scale / 1_000.0
    );
    let progress = std::sync::Arc::new(RealProgress::default());
    let bar = progress_bar(progress.clone());
    let report = run_real_with_progress(plan, &store, &options, &progress);
    let _ = bar.join();
    let report = report?;
    let mut out = String::new();
    if args.print_plan {
        out.push_str(&report.plan.to_json_pretty());
    }
    out.push_str(&report.plan.summary());
    out.push('\n');
    out.push_str(&format!(
        "real: {}, time scale {}, {:.1} s wall\n",
        report.provider,
        report.time_scale,
        report.wall_ms as f64 / 1_000.0
    ));
    out.push_str(&timeline_and_verdict(
        &report.trace,
        &report.history,
        &report.verdict,
        args.trace,
    ));
    out.push('\n');
    let code = if report.verdict.is_pass() {
        EXIT_PASS
    } else {
        out.push_str(&format!("reproduce: {reproduce}\n"));
        EXIT_VIOLATION
    };
    crate::cli::emit(&out);
    Ok(code)
}

/// The plan to run and the command that reproduces the run: loaded from `--plan`, or
/// generated from `--seed` and the scenario (by default the backend's). Apart from `run`
/// because it is the one place the two ways in differ.
fn plan_for(args: &Args, store: &amnesia::Store) -> Result<(Plan, String), CliError> {
    let plan_and_command = match (&args.plan, args.seed) {
        (Some(path), _) => {
            let reproduce = format!(
                "amnesia real --plan {} --store {}{}",
                path.display(),
                store.label(),
                time_scale_flag(args.time_scale)
            );
            (load_plan(path)?, reproduce)
        }
        (None, seed) => {
            let seed = seed.expect("clap requires --seed or --plan");
            let scenario = crate::cli::run::scenario_for(args.scenario.as_deref(), store)?;
            let reproduce = real_command(seed, &scenario, store, args.time_scale)
                .expect("a built-in store on a named scenario");
            (Plan::generate(seed, &scenario), reproduce)
        }
    };
    Ok(plan_and_command)
}

/// Elapsed against planned time and the operations so far on stderr, until the run is
/// done; hidden when stderr is not a terminal (as a sweep's bar is).
fn progress_bar(progress: std::sync::Arc<RealProgress>) -> std::thread::JoinHandle<()> {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(1), target);
    let style = ProgressStyle::with_template("{bar:32} {msg}").expect("the template is valid");
    bar.set_style(style);
    std::thread::spawn(move || {
        while !progress.is_done() {
            let (elapsed_ms, planned_ms) = (progress.elapsed_ms(), progress.planned_ms());
            bar.set_length(planned_ms.max(1));
            bar.set_position(elapsed_ms.min(planned_ms));
            bar.set_message(format!(
                "{:.1} / {:.1} s of the plan · {} operations",
                elapsed_ms as f64 / 1_000.0,
                planned_ms as f64 / 1_000.0,
                progress.operations()
            ));
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        bar.finish_and_clear();
    })
}

/// `amnesia real --lockstep`: the model's journal replayed on the real server.
fn lockstep(plan: Plan, store: &amnesia::Store, provider: &Provider) -> Result<u8, CliError> {
    let seed = plan.seed;
    let found = amnesia::real::lockstep(plan, store, provider)?;
    let mut out = format!(
        "lockstep seed {seed} on {}: {} commands over {} connections, {} restarts; {} replies \
         compared ({} as sets), {} differ\n",
        provider.describe(Backend::Redis),
        found.commands,
        found.connections,
        found.restarts,
        found.compared,
        found.compared_as_sets,
        found.mismatched
    );
    for mismatch in &found.mismatches {
        out.push_str(&format!(
            "  #{} {}\n    model: {}\n    real:  {}\n",
            mismatch.index, mismatch.command, mismatch.model, mismatch.real
        ));
    }
    crate::cli::emit(&out);
    Ok(if found.agrees() {
        EXIT_PASS
    } else {
        EXIT_VIOLATION
    })
}
