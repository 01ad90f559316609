//! How far a real run is, for a progress display: the run writes it a few times a
//! second, any thread reads it. Real runs take the plan's time (tens of seconds a seed),
//! so `amnesia real` shows elapsed against planned time and the operations so far.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// How often a run updates its progress.
pub(crate) const PROGRESS_PERIOD_MS: u64 = 250;

/// A real run's progress: shared (`Arc`) between the run and whatever displays it.
///
/// ```no_run
/// use amnesia::real::{run_real_with_progress, Provider, RealOptions, RealProgress};
/// use amnesia::{Plan, ScenarioConfig, Store};
/// let progress = std::sync::Arc::new(RealProgress::default());
/// let watcher = progress.clone();
/// std::thread::spawn(move || while !watcher.is_done() {
///     eprintln!("{} of {} ms, {} operations",
///         watcher.elapsed_ms(), watcher.planned_ms(), watcher.operations());
///     std::thread::sleep(std::time::Duration::from_secs(1));
/// });
/// let options = RealOptions { provider: Provider::from_env()?, time_scale: 1.0 };
/// let plan = Plan::generate(7, &ScenarioConfig::smoke());
/// let store = Store::named("reference").unwrap();
/// run_real_with_progress(plan, &store, &options, &progress)?;
/// # Ok::<(), amnesia::real::RealError>(())
/// ```
#[derive(Debug, Default)]
pub struct RealProgress {
    elapsed_ms: AtomicU64,
    planned_ms: AtomicU64,
    operations: AtomicU64,
    done: AtomicBool,
}

impl RealProgress {
    /// Milliseconds of the (scaled) plan elapsed so far.
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed_ms.load(Ordering::Relaxed)
    }

    /// Milliseconds the (scaled) plan lasts, the quiet phase included; 0 until it starts.
    pub fn planned_ms(&self) -> u64 {
        self.planned_ms.load(Ordering::Relaxed)
    }

    /// Operations the clients invoked so far.
    pub fn operations(&self) -> u64 {
        self.operations.load(Ordering::Relaxed)
    }

    /// The run ended (passed, failed or broke).
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }

    pub(crate) fn start(&self, planned_ms: u64) {
        self.planned_ms.store(planned_ms, Ordering::Relaxed);
    }

    pub(crate) fn update(&self, elapsed_ms: u64, operations: usize) {
        self.elapsed_ms.store(elapsed_ms, Ordering::Relaxed);
        self.operations.store(operations as u64, Ordering::Relaxed);
    }

    pub(crate) fn finish(&self) {
        self.done.store(true, Ordering::Relaxed);
    }
}
