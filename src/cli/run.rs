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
    if args.print_plan {
        println!("{}", plan.to_json_pretty());
    }
    println!("{}", plan.summary());
    let report =
        run_plan(plan, &args.store, args.engine).map_err(|e| CliError::Usage(e.to_string()))?;
    println!("--- timeline ---");
    let timeline = if args.trace {
        report.trace.timeline()
    } else {
        report.trace.summary_timeline()
    };
    print!("{timeline}");
    println!("--- verdict ---");
    println!("{}", text::verdict_text(&report.verdict));
    println!("trace hash: {:016x}", report.trace.hash());
    if report.verdict.is_pass() {
        Ok(EXIT_PASS)
    } else {
        println!("reproduce: {}", report.replay_command());
        Ok(EXIT_VIOLATION)
    }
}
