//! amnesia's benchmark: throughput, latency, scaling, memory and the turmoil engine's cost
//! beside the event engine's, on the standard scenario (`ScenarioConfig::standard()`, the reference store, the
//! event-driven engine). Method and results: BENCHMARKS.md.
//!
//! Run everything: `cargo bench --bench amnesia_bench`
//! One section: `cargo bench --bench amnesia_bench -- SECTION [N]`, where SECTION is one of
//! `seeds` (N seeds one by one on this thread; wall time per seed, p50/p99, virtual
//! speed-up), `sweep` (N seeds through `runner::sweep` at 1 and 2 jobs), `rss` (an
//! N-seed sweep sampling VmRSS/VmHWM every 1000 seeds), `growth` (time per seed at about
//! 100, 1,000 and 10,000 operations), `replay` (N runs of `amnesia replay --seed`
//! as a process), `engines` (N seeds on the event and the turmoil engine: cost per seed,
//! and the reference store and the bug catalogue judged on both),
//! `phases` (N seeds with plan generation, world, checker, trace hash and teardown timed
//! apart), and `profile` (N seeds, nothing printed but a line: the target of callgrind).
//!
//! Wall times come from the real clock (`std::time::Instant`) outside the simulated
//! worlds; nothing here reaches a trace.

#[path = "../sim-tests/catalogue.rs"]
mod catalogue;

use amnesia::internal::check::ViolationClass;
use amnesia::internal::engine::event::EventEngine;
use amnesia::internal::plan::scenario::TENANTS_MAX;
use amnesia::internal::plan::{Plan, ScenarioConfig};
use amnesia::internal::runner::run::judge;
use amnesia::internal::runner::sweep::SweepEvent;
use amnesia::internal::runner::{run_seed, sweep, EngineKind, SeedRange, SweepConfig};
use amnesia::internal::world::Engine;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

// The same allocator as the `amnesia` binary, so the figures are the CLI's.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const STORE: &str = "reference";

/// The store every section measures.
fn store() -> amnesia::Store {
    amnesia::Store::named(STORE).expect("built in")
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--")) // `cargo bench` passes `--bench`
        .collect();
    let section = args.first().map(String::as_str).unwrap_or("all");
    let n = |default: u64| -> u64 { args.get(1).and_then(|n| n.parse().ok()).unwrap_or(default) };
    machine();
    match section {
        "seeds" => seeds(n(1_000)),
        "sweep" => sweeps(n(2_000)),
        "rss" => rss(n(10_000)),
        "growth" => growth(),
        "replay" => replay(n(10)),
        "engines" => engines(n(20)),
        "profile" => profile(n(20)),
        "phases" => phases(n(1_000)),
        "all" => {
            seeds(1_000);
            phases(1_000);
            sweeps(2_000);
            rss(10_000);
            growth();
            replay(10);
            engines(20);
        }
        other => {
            eprintln!("unknown section '{other}'");
            std::process::exit(2);
        }
    }
}

fn machine() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    println!("# machine: {cpus} cpus, {model}");
}

fn percentile(sorted: &[u64], p: usize) -> u64 {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

/// Seeds one by one on this thread: what one core does.
fn seeds(count: u64) {
    let scenario = ScenarioConfig::standard();
    for seed in 0..20 {
        run_seed(seed, &scenario, &store(), EngineKind::Event);
    }
    let mut wall_us = Vec::new();
    let (mut virtual_ms, mut ops, mut failed) = (0u64, 0usize, 0usize);
    let started = Instant::now();
    for seed in 0..count {
        let one = Instant::now();
        let report = run_seed(seed, &scenario, &store(), EngineKind::Event);
        wall_us.push(one.elapsed().as_micros() as u64);
        virtual_ms += report.end_virtual_ms();
        ops += report.history.ops.len();
        failed += usize::from(!report.verdict.is_pass());
    }
    let total = started.elapsed().as_secs_f64();
    wall_us.sort_unstable();
    let (p50, p99) = (percentile(&wall_us, 50), percentile(&wall_us, 99));
    println!("## seeds: standard scenario, seeds 0..{count}, one thread");
    println!(
        "ops/seed {:.1}, virtual s/seed {:.1}, failed {failed}",
        ops as f64 / count as f64,
        virtual_ms as f64 / 1e3 / count as f64
    );
    println!(
        "seeds/s/core {:.0} | virtual s per wall s {:.0} | p50 {:.2} ms | p99 {:.2} ms | max {:.2} ms | p99/p50 {:.2}",
        count as f64 / total,
        virtual_ms as f64 / 1e3 / total,
        p50 as f64 / 1e3,
        p99 as f64 / 1e3,
        *wall_us.last().unwrap() as f64 / 1e3,
        p99 as f64 / p50 as f64
    );
}

/// Where a seed's wall time goes: the same steps as `run_seed`, each timed apart.
fn phases(count: u64) {
    let scenario = ScenarioConfig::standard();
    let factory = store().factory().clone();
    let mut totals_us = [0u128; 5];
    let started = Instant::now();
    for seed in 0..count {
        let t = Instant::now();
        let plan = Arc::new(Plan::generate(seed, &scenario));
        let t_plan = t.elapsed();
        let t = Instant::now();
        let output = EventEngine.run(plan.clone(), &factory);
        let t_world = t.elapsed();
        let t = Instant::now();
        let verdict = judge(&plan, &output);
        let t_check = t.elapsed();
        assert!(
            verdict.is_pass(),
            "seed {seed}: the reference store must pass"
        );
        let t = Instant::now();
        std::hint::black_box(output.trace.hash());
        let t_hash = t.elapsed();
        let t = Instant::now();
        drop((output, plan, verdict));
        let t_drop = t.elapsed();
        for (total, part) in totals_us
            .iter_mut()
            .zip([t_plan, t_world, t_check, t_hash, t_drop])
        {
            *total += part.as_micros();
        }
    }
    let all_us = started.elapsed().as_micros() as f64;
    println!("## phases: standard scenario, seeds 0..{count}, one thread, mean per seed");
    let names = [
        "plan generation",
        "world (engine, store, model, trace)",
        "checker",
        "trace hash",
        "teardown (drop)",
    ];
    for (name, total) in names.iter().zip(totals_us) {
        println!(
            "{name:<36} {:>7.3} ms  {:>5.1} %",
            total as f64 / count as f64 / 1e3,
            total as f64 * 100.0 / all_us
        );
    }
    println!("{:<36} {:>7.3} ms", "all", all_us / count as f64 / 1e3);
}

trait EndVirtual {
    fn end_virtual_ms(&self) -> u64;
}

impl EndVirtual for amnesia::internal::runner::RunReport {
    /// The virtual time the plan covers: busy phase plus quiet period.
    fn end_virtual_ms(&self) -> u64 {
        self.plan.duration_ms + self.plan.quiet_ms
    }
}

fn sweep_config(count: u64, jobs: usize) -> SweepConfig {
    let mut config = SweepConfig::new(
        SeedRange {
            start: 0,
            end: count,
        },
        store(),
    );
    config.jobs = jobs;
    config
}

/// `runner::sweep` at 1 and 2 jobs.
fn sweeps(count: u64) {
    println!("## sweep: runner::sweep, seeds 0..{count}");
    let mut base = 0.0;
    for jobs in [1, 2] {
        let config = sweep_config(count, jobs);
        let started = Instant::now();
        let results = sweep(&config, &|_| {});
        let rate = count as f64 / started.elapsed().as_secs_f64();
        let failed = results.iter().filter(|r| !r.is_pass()).count();
        if jobs == 1 {
            base = rate;
        }
        println!(
            "jobs {jobs}: {rate:.0} seeds/s ({:.2}x of 1 job), failed {failed}",
            rate / base
        );
    }
}

fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse().ok())
        })
        .unwrap_or(0)
}

/// A long sweep; RSS sampled every 1000 seeds from the observer.
fn rss(count: u64) {
    println!("## rss: runner::sweep, seeds 0..{count}, 2 jobs");
    println!(
        "before: VmRSS {} kB, VmHWM {} kB",
        status_kb("VmRSS:"),
        status_kb("VmHWM:")
    );
    let config = sweep_config(count, 2);
    let done = AtomicUsize::new(0);
    let samples = Mutex::new(Vec::new());
    let started = Instant::now();
    let observe = |event: SweepEvent<'_>| {
        if let SweepEvent::Done(_) = event {
            let done = done.fetch_add(1, Ordering::Relaxed) + 1;
            if done % 1_000 == 0 {
                let sample = (
                    done,
                    status_kb("VmRSS:"),
                    status_kb("VmHWM:"),
                    started.elapsed(),
                );
                samples.lock().unwrap().push(sample);
            }
        }
    };
    let results = sweep(&config, &observe);
    println!(
        "{} seeds in {:.1} s, failed {}",
        results.len(),
        started.elapsed().as_secs_f64(),
        results.iter().filter(|r| !r.is_pass()).count()
    );
    println!("| seeds done | VmRSS kB | VmHWM kB | wall s |");
    for (done, rss, hwm, at) in samples.into_inner().unwrap() {
        println!("| {done} | {rss} | {hwm} | {:.1} |", at.as_secs_f64());
    }
}

/// The standard scenario with `turns` scaled so a plan has about `ops` operations, and
/// the busy phase stretched in proportion so sessions keep their pace.
/// How a plan is made bigger.
#[derive(Clone, Copy)]
enum Growth {
    /// More turns for the same sessions: each user's memories grow with the plan, and the
    /// store's recall reads them all (its brute-force search is O(memories of the user)),
    /// so part of this growth is the store's own.
    Depth,
    /// More tenants (sessions, users) with the turns and the busy phase: the rate of
    /// operations per virtual second and each user's state stay as in the standard plan,
    /// so any growth per operation is the simulator's (engine, model, trace, checker).
    Breadth,
}

fn scaled(ops: usize, growth: Growth) -> ScenarioConfig {
    let standard = ScenarioConfig::standard();
    // About 3.6 operations per turn (context + two appends, plus system appends,
    // recalls and remembers).
    let turns = (ops * 60 / 215).max(1) as u32;
    // Breadth keeps turns per session as in the standard plan; past the tenant limit the
    // extra sessions go to the tenants.
    let sessions = standard.tenants * standard.sessions_per_tenant * turns / standard.turns;
    let (tenants, sessions_per_tenant) = match growth {
        Growth::Depth => (standard.tenants, standard.sessions_per_tenant),
        Growth::Breadth => {
            let tenants = (sessions / standard.sessions_per_tenant).clamp(1, TENANTS_MAX);
            (tenants, (sessions / tenants).max(1))
        }
    };
    ScenarioConfig {
        name: format!("standard-{ops}ops"),
        turns,
        tenants,
        sessions_per_tenant,
        duration_ms: standard.duration_ms * u64::from(turns) / u64::from(standard.turns),
        ..standard
    }
}

/// Time per seed and per operation as the plan grows, both ways.
fn growth() {
    for (growth, name) in [(Growth::Breadth, "breadth"), (Growth::Depth, "depth")] {
        growth_table(growth, name);
    }
}

fn growth_table(growth: Growth, name: &str) {
    println!("## growth ({name}): one thread, plan size scaled by turns");
    println!("| target ops | turns | sessions | ops/seed | virtual s | seeds | ms/seed | µs/op |");
    for (ops, seeds) in [(100usize, 200u64), (1_000, 40), (10_000, 6)] {
        let scenario = scaled(ops, growth);
        run_seed(0, &scenario, &store(), EngineKind::Event);
        let (mut wall, mut total_ops, mut virtual_ms) = (Duration::ZERO, 0usize, 0u64);
        for seed in 0..seeds {
            let started = Instant::now();
            let report = run_seed(seed, &scenario, &store(), EngineKind::Event);
            wall += started.elapsed();
            assert!(
                report.verdict.is_pass(),
                "seed {seed}: the reference store must pass"
            );
            total_ops += report.history.ops.len();
            virtual_ms += report.end_virtual_ms();
        }
        let ms_per_seed = wall.as_secs_f64() * 1e3 / seeds as f64;
        println!(
            "| {ops} | {} | {} | {:.0} | {:.0} | {seeds} | {ms_per_seed:.2} | {:.1} |",
            scenario.turns,
            scenario.tenants * scenario.sessions_per_tenant,
            total_ops as f64 / seeds as f64,
            virtual_ms as f64 / 1e3 / seeds as f64,
            wall.as_secs_f64() * 1e6 / total_ops as f64
        );
    }
}

/// `amnesia replay --seed N` as a process, to its exit.
fn replay(runs: u64) {
    let exe = std::env::current_exe().expect("own path");
    // target/release/deps/amnesia_bench-HASH → target/release/amnesia
    let binary = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|release| release.join("amnesia"))
        .expect("a target dir");
    if !binary.exists() {
        println!("## replay: {} not built; skipped", binary.display());
        return;
    }
    let mut wall_us = Vec::new();
    for seed in 0..runs {
        let started = Instant::now();
        let output = std::process::Command::new(&binary)
            .args(["replay", "--seed", &seed.to_string()])
            .output()
            .expect("runs");
        wall_us.push(started.elapsed().as_micros() as u64);
        assert!(output.status.code().is_some(), "replay exited by a signal");
    }
    wall_us.sort_unstable();
    println!(
        "## replay: `amnesia replay --seed N`, N in 0..{runs}, process wall time: p50 {:.1} ms, max {:.1} ms",
        percentile(&wall_us, 50) as f64 / 1e3,
        *wall_us.last().unwrap() as f64 / 1e3
    );
}

/// The turmoil engine beside the event engine on the same standard seeds `0..count`: the
/// cost of a seed on each (one thread), and, for the reference store and every variant of
/// the bug catalogue, how many seeds fail, with which classes, and the first seed that
/// shows an expected class.
fn engines(count: u64) {
    println!("## engines: standard seeds 0..{count}, one thread, event vs turmoil");
    for engine in [EngineKind::Event, EngineKind::Turmoil] {
        let started = Instant::now();
        for seed in 0..count {
            run_seed(seed, &ScenarioConfig::standard(), &store(), engine);
        }
        let ms = started.elapsed().as_secs_f64() * 1e3 / count as f64;
        println!("{:8} reference: {ms:.2} ms/seed", engine.name());
    }
    println!(
        "| store | expected | event: failing seeds, classes, first expected | turmoil: same |"
    );
    println!("|---|---|---|---|");
    let reference: (&str, &[ViolationClass], u64) = ("reference", &[], 0);
    for &(name, expected, _) in std::iter::once(&reference).chain(&catalogue::catalogue()) {
        let store = amnesia::Store::named(name).expect("a known store");
        let cells: Vec<String> = [EngineKind::Event, EngineKind::Turmoil]
            .into_iter()
            .map(|engine| detection(&store, expected, engine, count))
            .collect();
        println!("| {name} | {expected:?} | {} | {} |", cells[0], cells[1]);
    }
}

/// `fails/count {classes} first S`: how `store` fares over seeds `0..count` on `engine`.
fn detection(
    store: &amnesia::Store,
    expected: &[ViolationClass],
    engine: EngineKind,
    count: u64,
) -> String {
    let mut classes = std::collections::BTreeSet::new();
    let (mut fails, mut first) = (0, None);
    for seed in 0..count {
        let found = run_seed(seed, &ScenarioConfig::standard(), store, engine)
            .verdict
            .classes();
        fails += usize::from(!found.is_empty());
        if first.is_none() && found.iter().any(|class| expected.contains(class)) {
            first = Some(seed);
        }
        classes.extend(found.iter().map(|class| format!("{class:?}")));
    }
    let first = first.map_or("-".to_string(), |seed| seed.to_string());
    let classes: Vec<String> = classes.into_iter().collect();
    format!("{fails}/{count} {} first {first}", classes.join(","))
}

/// The callgrind target: `count` standard seeds, one thread.
fn profile(count: u64) {
    let scenario = ScenarioConfig::standard();
    let mut hash = 0u64;
    for seed in 0..count {
        let report = run_seed(seed, &scenario, &store(), EngineKind::Event);
        hash ^= report.trace.hash();
    }
    println!("profile: {count} seeds, xor of trace hashes {hash:016x}");
}
