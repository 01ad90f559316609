//! `amnesia replay (--seed N | --plan FILE)`: the same as `run`, from a seed or from a
//! saved plan (e.g. one `amnesia shrink` wrote).

use crate::cli::run::{show, ShowArgs};
use crate::cli::CliError;
use amnesia::internal::plan::Plan;
use amnesia::internal::runner::replay_command;

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
    let store = args.show.store()?;
    let scenario = args.show.scenario(&store)?;
    let reproduce = replay_command(seed, &scenario, &store, args.show.engine)
        .expect("a built-in store on a named scenario");
    show(Plan::generate(seed, &scenario), &args.show, &reproduce)
}

/// Read and validate a plan file; every failure is one line.
pub fn load_plan(path: &std::path::Path) -> Result<Plan, CliError> {
    Plan::load(path).map_err(|e| CliError::Usage(e.to_string()))
}
