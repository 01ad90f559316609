//! `amnesia run --seed N`: one seed, its plan summary, timeline and verdict. `replay`
//! shares the rendering ([`show`]).

use crate::cli::{CliError, EXIT_NONDETERMINISM, EXIT_PASS, EXIT_VIOLATION};
use amnesia::internal::plan::{Plan, ScenarioConfig};
use amnesia::internal::runner::determinism::first_divergence;
use amnesia::internal::runner::{
    replay_command, run_plan_with, text, EngineKind, LogFilter, RunOptions,
};
use amnesia::Store;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The seed to run.
    #[arg(long)]
    seed: u64,
    #[command(flatten)]
    pub show: ShowArgs,
}

/// What `run` and `replay` share: the store, the engine and how much to show.
#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// The store under test.
    #[arg(long, default_value = "reference", long_help = crate::cli::store_help())]
    pub store: String,
    /// The scenario the seed's plan is generated from (standard, smoke, replay, migrate,
    /// corpus, pressure; default: the store's backend's, `standard` for Redis, `replay` for
    /// pgvector, `migrate` for redis-then-pgvector); a plan file carries its own.
    #[arg(long)]
    pub scenario: Option<String>,
    /// Print the whole plan as JSON before running it.
    #[arg(long)]
    pub print_plan: bool,
    /// Show the full timeline, bytes on the wire included.
    #[arg(long)]
    pub trace: bool,
    /// The simulation engine.
    #[arg(long, default_value = "event", value_parser = EngineKind::parse, long_help = crate::cli::ENGINE_HELP)]
    pub engine: EngineKind,
    /// Run twice and compare the trace hashes (exit 3 if they differ).
    #[arg(long)]
    pub check_determinism: bool,
    /// Also write the run as a self-contained HTML page (a sequence diagram) to this file.
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
}

pub fn run(args: Args) -> Result<u8, CliError> {
    let store = args.show.store()?;
    let scenario = args.show.scenario(&store)?;
    let reproduce = replay_command(args.seed, &scenario, &store, args.show.engine)
        .expect("a built-in store on a named scenario");
    show(Plan::generate(args.seed, &scenario), &args.show, &reproduce)
}

impl ShowArgs {
    /// The built-in store `--store` names.
    pub fn store(&self) -> Result<Store, CliError> {
        store_named(&self.store, self.engine)
    }

    /// The scenario `--scenario` names, or `store`'s backend's default.
    pub fn scenario(&self, store: &Store) -> Result<ScenarioConfig, CliError> {
        scenario_for(self.scenario.as_deref(), store)
    }
}

/// The scenario `name`s, or `store`'s backend's default when none is named.
pub fn scenario_for(name: Option<&str>, store: &Store) -> Result<ScenarioConfig, CliError> {
    ScenarioConfig::parse_or_default(name, store.backend()).map_err(CliError::Usage)
}

/// A built-in store by name that `engine` can run; an unknown name is a usage error
/// listing the known ones. PostgreSQL's model runs on the event engine only.
pub fn store_named(name: &str, engine: EngineKind) -> Result<Store, CliError> {
    let store = any_store_named(name)?;
    if store.backend() != amnesia::Backend::Redis && engine != EngineKind::Event {
        return Err(CliError::Usage(format!(
            "store '{name}' keeps its data in PostgreSQL (pgvector), which only the event \
             engine simulates: drop --engine {}",
            engine.name()
        )));
    }
    Ok(store)
}

/// A built-in store of any backend.
pub fn any_store_named(name: &str) -> Result<Store, CliError> {
    Store::named(name).map_err(|e| {
        CliError::Usage(format!(
            "{e}; a store of your own runs through amnesia::Builder, not this command line"
        ))
    })
}

/// Run `plan` and print its summary, timeline and verdict; `reproduce` is the command
/// printed on failure.
pub fn show(plan: Plan, args: &ShowArgs, reproduce: &str) -> Result<u8, CliError> {
    let store = args.store()?;
    if let Some(path) = &args.html {
        crate::cli::check_writable(path)?;
    }
    let options = RunOptions {
        log: LogFilter::from_env().map_err(CliError::Usage)?,
    };
    // The plan as the run carries it: its faults named for the store's server.
    let plan = plan.for_backend(store.backend());
    let mut out = String::new();
    if args.print_plan {
        out.push_str(&plan.to_json_pretty());
    }
    out.push_str(&plan.summary());
    out.push('\n');
    let again = args.check_determinism.then(|| plan.clone());
    let report = run_plan_with(plan, &store, args.engine, &options);
    out.push_str(&text::timeline_and_verdict(
        &report.trace,
        &report.history,
        &report.verdict,
        args.trace,
    ));
    out.push_str(&format!("\ntrace hash: {:016x}\n", report.trace.hash()));
    if let Some(path) = &args.html {
        std::fs::write(path, amnesia::internal::runner::page::render(&report)).map_err(|e| {
            CliError::Usage(format!("cannot write the page to {}: {e}", path.display()))
        })?;
        out.push_str(&format!("page: {}\n", path.display()));
    }
    let mut code = if report.verdict.is_pass() {
        EXIT_PASS
    } else {
        out.push_str(&format!("reproduce: {reproduce}\n"));
        EXIT_VIOLATION
    };
    if let Some(plan) = again {
        let second = run_plan_with(plan, &store, args.engine, &options);
        match first_divergence(&report.trace.events(), &second.trace.events()) {
            None => out.push_str("determinism: two runs, same trace hash\n"),
            Some(divergence) => {
                out.push_str(&format!(
                    "determinism BROKEN: second run's trace hash is {:016x}\n{}\n",
                    second.trace.hash(),
                    divergence.text()
                ));
                code = EXIT_NONDETERMINISM;
            }
        }
    }
    crate::cli::emit(&out);
    Ok(code)
}
