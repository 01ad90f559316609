//! Buggify points, after FoundationDB's `BUGGIFY`: places in store code where the simulator
//! may inject a delay or a failure, to open the races that production timing hides.
//!
//! Per run, a point is enabled or not the first time it is reached (a fixed share of
//! points per seed), and an enabled point then fires with some probability each time it is
//! reached. Every decision is drawn from the seed and written to the trace. Outside a
//! simulation (production, the real tier) no point is ever enabled and the calls cost a
//! thread-local lookup.
//!
//! ```
//! async fn append_somewhere() {
//!     // Give the simulator a chance to delay the write, as a slow network would.
//!     amnesia::buggify::delay("mystore.append.before_write").await;
//!     // ... send the write ...
//! }
//! ```

use crate::trace::Trace;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

#[doc(hidden)]
/// Share of points a seed enables, in percent.
pub const ENABLED_PERCENT: u32 = 25;
#[doc(hidden)]
/// Shares of visits at which an enabled point fires, in percent: each enabled point draws
/// one per seed (swarm-style), so some seeds hit a rare path nearly every time.
pub const FIRE_PERCENTS: [u32; 4] = [10, 25, 50, 90];
#[doc(hidden)]
/// Longest injected delay.
pub const DELAY_MS_MAX: u64 = 3_000;
#[doc(hidden)]
/// Distinct points remembered per run.
pub const POINTS_MAX: usize = 1_024;

#[doc(hidden)]
/// The buggify state of one simulated run.
pub struct Buggify {
    seed: u64,
    /// Per point seen: its fire percentage this run, 0 when disabled.
    enabled: BTreeMap<String, u32>,
    fire_rng: ChaCha8Rng,
    trace: Trace,
    now_us: Box<dyn Fn() -> u64>,
    /// Real milliseconds per drawn millisecond of delay (the real tier's time scale).
    time_scale: f64,
}

thread_local! {
    static CURRENT: RefCell<Option<Buggify>> = const { RefCell::new(None) };
}

impl Buggify {
    /// A run's buggify state: decisions drawn from `seed`, written to `trace` stamped with
    /// `now_us` (virtual microseconds).
    pub fn new(seed: u64, trace: Trace, now_us: impl Fn() -> u64 + 'static) -> Self {
        let mut fire_rng = ChaCha8Rng::seed_from_u64(seed);
        fire_rng.set_stream(0xB0661F7);
        Self {
            seed,
            enabled: BTreeMap::new(),
            fire_rng,
            trace,
            now_us: Box::new(now_us),
            time_scale: 1.0,
        }
    }

    /// Every delay multiplied by `factor` (the real tier runs plans scaled to real time).
    pub fn time_scale(mut self, factor: f64) -> Self {
        self.time_scale = factor;
        self
    }

    /// Make this the state of the current thread's run until the guard drops. The
    /// simulator's world runs on one thread, so the state is the run's alone.
    pub fn install(self) -> BuggifyGuard {
        CURRENT.with(|current| *current.borrow_mut() = Some(self));
        BuggifyGuard {
            _not_send: std::marker::PhantomData,
        }
    }

    /// The share of visits at which `point` fires this run (0: disabled): a pure function
    /// of seed and name.
    fn fire_percent(&mut self, point: &str) -> u32 {
        if let Some(percent) = self.enabled.get(point) {
            return *percent;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ crate::trace::fnv1a(point.as_bytes()));
        let enabled = rng.random_range(0..100) < ENABLED_PERCENT;
        let percent = if enabled {
            FIRE_PERCENTS[rng.random_range(0..FIRE_PERCENTS.len())]
        } else {
            0
        };
        if self.enabled.len() < POINTS_MAX {
            self.enabled.insert(point.to_string(), percent);
        }
        let decision = if enabled {
            format!("enabled, fires {percent}%")
        } else {
            "disabled".to_string()
        };
        self.trace
            .record((self.now_us)(), "buggify", format!("{point} {decision}"));
        percent
    }

    /// Decide one visit of `point`: `Some(delay)` if it fires.
    fn visit(&mut self, point: &str) -> Option<Duration> {
        let percent = self.fire_percent(point);
        if percent == 0 || self.fire_rng.random_range(0..100) >= percent {
            return None;
        }
        let drawn_ms = self.fire_rng.random_range(1..=DELAY_MS_MAX);
        let delay_ms = match self.time_scale {
            1.0 => drawn_ms,
            factor => ((drawn_ms as f64 * factor).round() as u64).max(1),
        };
        self.trace.record(
            (self.now_us)(),
            "buggify",
            format!("{point} fired ({delay_ms} ms)"),
        );
        Some(Duration::from_millis(delay_ms))
    }
}

#[doc(hidden)]
/// Removes the run's state when dropped.
pub struct BuggifyGuard {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for BuggifyGuard {
    fn drop(&mut self) {
        CURRENT.with(|current| *current.borrow_mut() = None);
    }
}

fn visit(point: &str) -> Option<Duration> {
    CURRENT.with(|current| {
        current
            .borrow_mut()
            .as_mut()
            .and_then(|state| state.visit(point))
    })
}

/// True if `point` fires on this visit: the caller injects its own failure.
pub fn fires(point: &str) -> bool {
    visit(point).is_some()
}

/// Sleep a seeded delay if `point` fires on this visit; return at once otherwise.
pub async fn delay(point: &str) {
    if let Some(duration) = visit(point) {
        tokio::time::sleep(duration).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_run_nothing_fires() {
        assert!(!(0..1000).any(|_| fires("anything")));
    }

    #[test]
    fn decisions_are_seeded_and_traced() {
        let decide = |seed: u64| {
            let trace = Trace::new();
            let guard = Buggify::new(seed, trace.clone(), || 0).install();
            let fired: Vec<bool> = (0..200).map(|i| fires(&format!("p{}", i % 10))).collect();
            drop(guard);
            (fired, trace.timeline())
        };
        assert_eq!(decide(7), decide(7));
        let (fired, timeline) = decide(7);
        assert!(
            fired.iter().any(|f| *f),
            "some enabled point fires in 200 visits"
        );
        assert!(timeline.contains("enabled") && timeline.contains("fired"));
        assert!(!fires("p0"), "the guard removed the state");
    }
}
