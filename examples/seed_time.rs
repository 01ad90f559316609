//! Wall time per seed of the standard scenario on the event-driven engine, one thread.
//! Method: run seeds 0..N (default 300) once each in this process after a 20-seed warm-up,
//! time each `Builder::run` (plan generation, world, checker) with the real clock, and print
//! the median, p99 and the virtual time one seed covers.
//! Run: `cargo run --release --example seed_time [N]`.

use amnesia::ScenarioConfig;
use std::time::Instant;

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let scenario = ScenarioConfig::standard();
    let builder = amnesia::Builder::new().scenario(scenario);
    for seed in 0..20 {
        builder.run(seed);
    }
    let mut wall_us = Vec::new();
    let mut virtual_s = 0.0;
    let mut ops = 0;
    for seed in 0..seeds {
        let started = Instant::now();
        let report = builder.run(seed);
        wall_us.push(started.elapsed().as_micros() as u64);
        virtual_s += (report.plan.duration_ms + report.plan.quiet_ms) as f64 / 1000.0;
        ops += report.history.ops.len();
    }
    wall_us.sort_unstable();
    let median = wall_us[wall_us.len() / 2];
    let p99 = wall_us[wall_us.len() * 99 / 100];
    let total_s = wall_us.iter().sum::<u64>() as f64 / 1e6;
    println!("seeds {seeds}, ops/seed {:.0}", ops as f64 / seeds as f64);
    println!(
        "wall per seed: median {:.2} ms, p99 {:.2} ms",
        median as f64 / 1000.0,
        p99 as f64 / 1000.0
    );
    println!(
        "virtual per seed {:.1} s; virtual seconds per wall second {:.0}",
        virtual_s / seeds as f64,
        virtual_s / total_s
    );
}
