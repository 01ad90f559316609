//! The `amnesia` command line: parse, run, map errors to exit codes (DESIGN.md: 0 pass,
//! 1 violation, 2 bad usage or input, 3 determinism broken, 4 environment missing).

use clap::Parser;
use std::process::ExitCode;

mod cli;

// Seeds allocate and free many small buffers; see the `mimalloc` feature in Cargo.toml.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(error) => {
            let code = if error.use_stderr() {
                cli::EXIT_USAGE
            } else {
                0
            };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    match cli::run(args) {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("amnesia: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
