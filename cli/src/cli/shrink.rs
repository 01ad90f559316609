//! `amnesia shrink --seed N`: minimize a failing seed's plan while it fails with the same
//! violation class, and save it for `amnesia replay --plan`.

use crate::cli::{CliError, EXIT_PASS, EXIT_VIOLATION};
use amnesia::internal::plan::Plan;
use amnesia::internal::runner::shrink::ShrinkError;
use amnesia::internal::runner::{shrink, text, EngineKind, LogFilter, ShrinkConfig};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The failing seed.
    #[arg(long)]
    seed: u64,
    /// The store under test.
    #[arg(long, default_value = "reference", long_help = crate::cli::store_help())]
    store: String,
    /// The scenario the seed's plan is generated from (standard, smoke, replay, migrate, corpus, pressure); default:
    /// the store's backend's: `standard` for Redis, `replay` for pgvector).
    #[arg(long)]
    scenario: Option<String>,
    /// Where to save the shrunk plan (default: amnesia-shrunk-STORE-seed-N.json).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// The simulation engine.
    #[arg(long, default_value = "event", value_parser = EngineKind::parse, long_help = crate::cli::ENGINE_HELP)]
    engine: EngineKind,
    /// Wall-clock limit of one run, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = amnesia::internal::runner::guard::SEED_TIMEOUT_MS_DEFAULT)]
    seed_timeout_ms: u64,
}

pub fn run(args: Args) -> Result<u8, CliError> {
    let store = crate::cli::run::store_named(&args.store, args.engine)?;
    let scenario = crate::cli::run::scenario_for(args.scenario.as_deref(), &store)?;
    let config = ShrinkConfig {
        engine: args.engine,
        seed_timeout: Duration::from_millis(args.seed_timeout_ms.max(1)),
        log: LogFilter::from_env().map_err(CliError::Usage)?,
        ..ShrinkConfig::new(store)
    };
    let path = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "amnesia-shrunk-{}-seed-{}.json",
            args.store, args.seed
        ))
    });
    crate::cli::check_writable(&path)?;
    let plan = Plan::generate(args.seed, &scenario).for_backend(config.store.backend());
    let before = plan.clone();
    let shrunk = match shrink(plan, &config) {
        Ok(shrunk) => shrunk,
        Err(ShrinkError::Passes { .. }) => {
            crate::cli::emit(&format!(
                "seed {} passes with store {}: nothing to shrink\n",
                args.seed, args.store
            ));
            return Ok(EXIT_PASS);
        }
    };
    std::fs::write(&path, shrunk.plan.to_json_pretty())
        .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", path.display())))?;
    let after = &shrunk.plan;
    let out = format!(
        "shrunk seed {seed} (store {store}) keeping {class} in {runs} runs: \
         {ops_before} → {ops_after} operations (final reads included), \
         turns {} → {}, sessions {} → {}, faults {} → {}, clients {} → {}\n\
         {summary}\nsaved: {path}\nreplay: amnesia replay --plan {path} --store {store} --engine {engine}\n",
        before.turns.len(),
        after.turns.len(),
        before.sessions.len(),
        after.sessions.len(),
        before.faults.len(),
        after.faults.len(),
        before.clients,
        after.clients,
        seed = args.seed,
        store = args.store,
        class = text::class_name(shrunk.class),
        runs = shrunk.runs,
        ops_before = shrunk.operations_before,
        ops_after = shrunk.operations_after,
        summary = after.summary(),
        path = path.display(),
        engine = args.engine.name(),
    );
    crate::cli::emit(&out);
    Ok(EXIT_VIOLATION)
}
