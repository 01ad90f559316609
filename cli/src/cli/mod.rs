//! Command-line parsing and dispatch for the `amnesia` binary.

#[cfg(feature = "real")]
mod golden;
#[cfg(feature = "real")]
mod real;
mod replay;
mod run;
mod serve_model;
#[cfg(feature = "pg")]
mod serve_pg_model;
mod shrink;
mod sweep;

use clap::{Parser, Subcommand};

pub const EXIT_PASS: u8 = 0;
pub const EXIT_VIOLATION: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_NONDETERMINISM: u8 = 3;
pub const EXIT_ENVIRONMENT: u8 = 4;
pub const EXIT_CORPUS: u8 = 5;

/// Deterministic simulation testing of LLM memory stores kept in Redis.
#[derive(Parser, Debug)]
#[command(name = "amnesia", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one seed: plan summary, timeline and verdict.
    Run(run::Args),
    /// Run many seeds on worker threads; summary, JSON and JUnit reports.
    Sweep(sweep::Args),
    /// Run one seed or a saved plan file, as `run` does.
    Replay(replay::Args),
    /// Minimize a failing seed's plan and save it for `replay --plan`.
    Shrink(shrink::Args),
    #[cfg(feature = "real")]
    /// Run one seed or a saved plan against a real server (Redis, or PostgreSQL with
    /// pgvector; Docker, or a local process with AMNESIA_REAL_PROVIDER=process) behind
    /// the fault proxy.
    Real(real::Args),
    #[cfg(feature = "real")]
    /// Replay the golden corpus of historical memories on a real server: recall by own
    /// text and recall@k against exact search.
    Golden(golden::Args),
    /// Serve the Redis model on 127.0.0.1 with the real clock.
    ServeModel(serve_model::Args),
    #[cfg(feature = "pg")]
    /// Serve the PostgreSQL model (with pgvector) on 127.0.0.1 with the real clock.
    ServePgModel(serve_pg_model::Args),
}

/// A clap error in one line: its first, less clap's `error: ` prefix, with the hint to
/// `--help` (clap's own rendering takes three lines or more).
pub fn usage_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let first = rendered
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("bad usage");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    format!("{first} (see --help)")
}

/// A failure that ends the command, with its exit code.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Environment(String),
    /// A regression corpus file that cannot be read, parsed or written.
    #[error("{0}")]
    Corpus(String),
}

/// A real-tier failure: what is missing is an environment error (exit 4), and so is a
/// server that would not start or obey; a plan the tier cannot reproduce is bad usage.
#[cfg(feature = "real")]
impl From<amnesia::real::RealError> for CliError {
    fn from(error: amnesia::real::RealError) -> CliError {
        match error {
            amnesia::real::RealError::Unsupported(_) => CliError::Usage(error.to_string()),
            _ => CliError::Environment(error.to_string()),
        }
    }
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => EXIT_USAGE,
            CliError::Environment(_) => EXIT_ENVIRONMENT,
            CliError::Corpus(_) => EXIT_CORPUS,
        }
    }
}

pub fn run(cli: Cli) -> Result<u8, CliError> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Shrink(args) => shrink::run(args),
        #[cfg(feature = "real")]
        Command::Real(args) => real::run(args),
        #[cfg(feature = "real")]
        Command::Golden(args) => golden::run(args),
        Command::ServeModel(args) => serve_model::run(args),
        #[cfg(feature = "pg")]
        Command::ServePgModel(args) => serve_pg_model::run(args),
    }
}

/// Check, before any work, that a file the command writes at the end can be written: an
/// unwritable path is a one-line usage error (exit 2) before any seed runs. A file that
/// did not exist is removed again.
pub fn check_writable(path: &std::path::Path) -> Result<(), CliError> {
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", path.display())))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// `--store`'s long help: the simulator's built-in stores, and where a store of one's own
/// goes.
pub fn store_help() -> String {
    format!(
        "The built-in store under test: {}. A store of your own runs through \
         `amnesia::Builder` (README, \"Test your own store\"), not this command line.",
        amnesia::internal::store::STORE_NAMES.join(", ")
    )
}

/// `--engine`'s long help: the engines.
pub const ENGINE_HELP: &str = "The simulation engine: event (amnesia's own executor, the \
    default) or turmoil (the turmoil network simulator); madsim needs a `--cfg madsim` build \
    (docs/madsim.md).";

/// Write to stdout; a closed pipe (`amnesia run ... | head`) ends the output quietly
/// instead of panicking.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush());
}
