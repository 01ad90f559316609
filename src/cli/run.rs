//! `amnesia run --seed N`: one seed, its plan summary, timeline and verdict. `replay`
//! shares the rendering ([`show`]).

use crate::cli::{CliError, EXIT_NONDETERMINISM, EXIT_PASS, EXIT_VIOLATION};
use amnesia::plan::{Plan, ScenarioConfig};
use amnesia::runner::determinism::first_divergence;
use amnesia::runner::{run_plan_with, text, EngineKind, LogFilter, RunOptions};

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
    #[arg(long, default_value = "reference")]
    pub store: String,
    /// Print the whole plan as JSON before running it.
    #[arg(long)]
    pub print_plan: bool,
    /// Show the full timeline, bytes on the wire included.
    #[arg(long)]
    pub trace: bool,
    /// The simulation engine.
    #[arg(long, default_value = "event", value_parser = EngineKind::parse)]
    pub engine: EngineKind,
    /// Run twice and compare the trace hashes (exit 3 if they differ).
    #[arg(long)]
    pub check_determinism: bool,
}

pub fn run(args: Args) -> Result<u8, CliError> {
    let reproduce = amnesia::runner::replay_command(args.seed, &args.show.store, args.show.engine);
    let plan = Plan::generate(args.seed, &ScenarioConfig::standard());
    show(plan, &args.show, &reproduce)
}

/// Run `plan` and print its summary, timeline and verdict; `reproduce` is the command
/// printed on failure.
pub fn show(plan: Plan, args: &ShowArgs, reproduce: &str) -> Result<u8, CliError> {
    amnesia::store::check_name(&args.store).map_err(|e| CliError::Usage(e.to_string()))?;
    let options = RunOptions {
        log: LogFilter::from_env().map_err(CliError::Usage)?,
    };
    let mut out = String::new();
    if args.print_plan {
        out.push_str(&plan.to_json_pretty());
    }
    out.push_str(&plan.summary());
    out.push('\n');
    let again = args.check_determinism.then(|| plan.clone());
    let report = run_plan_with(plan, &args.store, args.engine, &options)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    out.push_str("--- timeline ---\n");
    out.push_str(&if args.trace {
        report.trace.timeline()
    } else {
        report.trace.summary_timeline()
    });
    out.push_str("--- verdict ---\n");
    out.push_str(&text::verdict_text(&report.verdict));
    out.push_str(&format!("\ntrace hash: {:016x}\n", report.trace.hash()));
    let mut code = if report.verdict.is_pass() {
        EXIT_PASS
    } else {
        out.push_str(&format!("reproduce: {reproduce}\n"));
        EXIT_VIOLATION
    };
    if let Some(plan) = again {
        let second = run_plan_with(plan, &args.store, args.engine, &options)
            .map_err(|e| CliError::Usage(e.to_string()))?;
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
