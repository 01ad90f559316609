//! The madsim engine's cost per seed beside the event engine's, for BENCHMARKS.md: the
//! reference store, the standard scenario, seeds `0..N` one after another on this thread.
//!
//! `cargo run --release --example engines -- 200` prints wall time per seed of both engines;
//! `valgrind --tool=callgrind target/release/examples/engines 20 madsim` counts one engine's
//! instructions (wall times move by ±10 % between runs and machines; counts do not).

fn main() {
    let mut args = std::env::args().skip(1);
    let seeds: u64 = match args.next().map(|n| n.parse()) {
        None => 200,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => exit_usage(),
    };
    let engines = match args.next().as_deref() {
        None | Some("both") => vec!["event", "madsim"],
        Some("event") => vec!["event"],
        Some("madsim") => vec!["madsim"],
        Some(_) => exit_usage(),
    };
    for name in engines {
        let engine = amnesia::EngineKind::parse(name).unwrap_or_else(|error| {
            eprintln!("{error}");
            std::process::exit(2)
        });
        measure(engine, seeds);
    }
}

fn exit_usage() -> ! {
    eprintln!("usage: engines [SEEDS > 0] [event|madsim|both]");
    std::process::exit(2)
}

fn measure(engine: amnesia::EngineKind, seeds: u64) {
    let builder = amnesia::Builder::new().engine(engine);
    let started = std::time::Instant::now();
    let mut failed = 0;
    for seed in 0..seeds {
        let report = builder.run(seed);
        failed += usize::from(!report.verdict.is_pass());
    }
    let wall_us = started.elapsed().as_micros() as u64;
    println!(
        "{:6}  {seeds} seeds  {:.1} ms/seed  {failed} failing",
        engine.name(),
        wall_us as f64 / seeds as f64 / 1_000.0
    );
}
