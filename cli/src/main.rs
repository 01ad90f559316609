//! The `amnesia` command line: parse, run, map errors to exit codes (ARCHITECTURE.md: 0 pass,
//! 1 violation, 2 bad usage or input, 3 determinism broken, 4 environment missing, 5 a
//! regression corpus file corrupt or unwritable; 130 and 143 when SIGINT or SIGTERM ended a
//! real run after removing its servers).

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
        // Help and version print in full; a usage error is one line, exit 2.
        Err(error) if !error.use_stderr() => {
            let _ = error.print();
            return ExitCode::from(cli::EXIT_PASS);
        }
        Err(error) => {
            eprintln!("amnesia: {}", cli::usage_line(&error));
            return ExitCode::from(cli::EXIT_USAGE);
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
