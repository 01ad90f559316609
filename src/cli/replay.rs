//! `amnesia replay (--seed N | --plan FILE)`: the same as `run`, from a seed or from a
//! saved plan (e.g. one `amnesia shrink` wrote).

use crate::cli::run::{show, ShowArgs};
use crate::cli::CliError;
use amnesia::plan::{Plan, ScenarioConfig};

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["seed", "plan"])))]
pub struct Args {
    /// The seed to replay.
    #[arg(long)]
    seed: Option<u64>,
    /// A saved plan file (versioned JSON) to replay.
    #[arg(long, value_name = "FILE")]
    plan: Option<std::path::PathBuf>,
    #[command(flatten)]
    show: ShowArgs,
}

pub fn run(args: Args) -> Result<u8, CliError> {
    let (store, engine) = (&args.show.store, args.show.engine.name());
    if let Some(path) = &args.plan {
        let plan = load_plan(path)?;
        let reproduce = format!(
            "amnesia replay --plan {} --store {store} --engine {engine}",
            path.display()
        );
        return show(plan, &args.show, &reproduce);
    }
    let seed = args.seed.expect("clap requires --seed or --plan");
    let reproduce = amnesia::runner::replay_command(seed, store, args.show.engine);
    show(
        Plan::generate(seed, &ScenarioConfig::standard()),
        &args.show,
        &reproduce,
    )
}

/// Read and validate a plan file; every failure is one line.
pub fn load_plan(path: &std::path::Path) -> Result<Plan, CliError> {
    let json = std::fs::read_to_string(path)
        .map_err(|e| CliError::Usage(format!("cannot read plan file {}: {e}", path.display())))?;
    Plan::from_json(&json)
        .map_err(|e| CliError::Usage(format!("plan file {}: {e}", path.display())))
}
