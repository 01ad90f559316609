//! `amnesia run --seed N`: one seed, its plan summary, timeline and verdict.

use crate::cli::{CliError, EXIT_PASS, EXIT_VIOLATION};
use amnesia::plan::{Plan, ScenarioConfig};
use amnesia::runner::{run_plan, text, EngineKind};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The seed to run.
    #[arg(long)]
    seed: u64,
    /// The store under test.
    #[arg(long, default_value = "reference")]
    store: String,
    /// Print the whole plan as JSON before running it.
    #[arg(long)]
    print_plan: bool,
    /// Show the full timeline, bytes on the wire included.
    #[arg(long)]
    trace: bool,
    /// The simulation engine.
    #[arg(long, default_value = "event", value_parser = parse_engine)]
    engine: EngineKind,
}

pub fn parse_engine(text: &str) -> Result<EngineKind, String> {
    match text {
        "event" => Ok(EngineKind::Event),
        other => Err(format!("unknown engine '{other}' (known: event)")),
    }
}

pub fn run(args: Args) -> Result<u8, CliError> {
    amnesia::store::check_name(&args.store).map_err(|e| CliError::Usage(e.to_string()))?;
    let plan = Plan::generate(args.seed, &ScenarioConfig::standard());
    let mut out = String::new();
    if args.print_plan {
        out.push_str(&plan.to_json_pretty());
        out.push('\n');
    }
    out.push_str(&plan.summary());
    out.push('\n');
    let report =
        run_plan(plan, &args.store, args.engine).map_err(|e| CliError::Usage(e.to_string()))?;
    out.push_str("--- timeline ---\n");
    out.push_str(&if args.trace {
        report.trace.timeline()
    } else {
        report.trace.summary_timeline()
    });
    out.push_str("--- verdict ---\n");
    out.push_str(&text::verdict_text(&report.verdict));
    out.push_str(&format!("\ntrace hash: {:016x}\n", report.trace.hash()));
    if !report.verdict.is_pass() {
        out.push_str(&format!("reproduce: {}\n", report.replay_command()));
    }
    crate::cli::emit(&out);
    Ok(if report.verdict.is_pass() {
        EXIT_PASS
    } else {
        EXIT_VIOLATION
    })
}
