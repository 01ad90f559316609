//! Time of a world: microseconds since it started. On tokio's clock (one runtime): paused,
//! the simulation's virtual time; running, the real tier's real time. On the turmoil
//! engine every host has its own runtime and its own tokio clock, so the world reads
//! turmoil's simulated time instead, the one clock all hosts share.

use std::time::Duration;
use tokio::time::Instant;

/// Unix time, in milliseconds, at which every simulated world starts: fixed, so TTL
/// arithmetic and `TIME` replies are the same on every run.
pub const WORLD_EPOCH_UNIX_MS: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

/// The world's clock. Cloning shares the start instant.
#[derive(Clone, Debug)]
pub struct WorldClock {
    source: Source,
    /// Unix milliseconds an unskewed host reads at the start.
    epoch_unix_ms: u64,
}

/// Where a world's time comes from.
#[derive(Clone, Debug)]
enum Source {
    /// The instant the world started on the one tokio runtime it runs on.
    Tokio(Instant),
    /// turmoil's simulated time, read by the host whose tick runs now.
    #[cfg(feature = "turmoil")]
    Turmoil(std::sync::Arc<TurmoilTime>),
}

/// What a clock on turmoil's time knows besides turmoil. The turmoil engine's step loop
/// (`driven`) tells it the step that runs now, and a reading is kept inside the step
/// (`step_start_us ..= step_start_us + tick_us`). Code that runs outside any host's
/// runtime (a crash tearing a runtime down) would read a wall-clock instant through
/// tokio: it reads the step's end in the engine, the latest time any reader saw in a
/// simulation amnesia does not step itself.
#[cfg(feature = "turmoil")]
#[derive(Debug, Default)]
pub struct TurmoilTime {
    pub driven: bool,
    pub step_start_us: std::sync::atomic::AtomicU64,
    pub tick_us: u64,
    /// The loop is between steps (crashing or bouncing a host): the time is the step's end.
    pub between_steps: std::sync::atomic::AtomicBool,
    /// The latest reading.
    pub last_us: std::sync::atomic::AtomicU64,
}

#[cfg(feature = "turmoil")]
impl TurmoilTime {
    fn now_us(&self) -> u64 {
        use std::sync::atomic::Ordering::Relaxed;
        let start_us = self.step_start_us.load(Relaxed);
        if self.driven && self.between_steps.load(Relaxed) {
            return start_us;
        }
        let in_runtime = tokio::runtime::Handle::try_current().is_ok();
        let Some(elapsed) = turmoil::sim_elapsed().filter(|_| in_runtime) else {
            return match self.driven {
                true => start_us,
                false => self.last_us.load(Relaxed),
            };
        };
        let mut now_us = elapsed.as_micros() as u64;
        if self.driven {
            now_us = now_us.clamp(start_us, start_us + self.tick_us);
        }
        self.last_us.fetch_max(now_us, Relaxed);
        now_us
    }
}

impl WorldClock {
    /// Must be created inside the world's runtime. Its hosts read `epoch_unix_ms` at the
    /// start: [`WORLD_EPOCH_UNIX_MS`] in the simulator, the real time in the real tier
    /// (which its Redis server's clock reads too).
    pub fn start_at(epoch_unix_ms: u64) -> Self {
        Self {
            source: Source::Tokio(Instant::now()),
            epoch_unix_ms,
        }
    }

    /// A clock on turmoil's simulated time, which starts with the simulation.
    #[cfg(feature = "turmoil")]
    pub fn turmoil(epoch_unix_ms: u64, time: std::sync::Arc<TurmoilTime>) -> Self {
        Self {
            source: Source::Turmoil(time),
            epoch_unix_ms,
        }
    }

    pub fn now_us(&self) -> u64 {
        match &self.source {
            Source::Tokio(start) => start.elapsed().as_micros() as u64,
            #[cfg(feature = "turmoil")]
            Source::Turmoil(time) => time.now_us(),
        }
    }

    /// Unix milliseconds now: what an unskewed host clock reads.
    pub fn unix_ms(&self) -> u64 {
        self.epoch_unix_ms + self.now_us() / 1_000
    }

    /// The first microsecond of the world at which an unskewed host reads unix millisecond
    /// `unix_ms` (0 for instants before the world started).
    pub fn us_of_unix_ms(&self, unix_ms: u64) -> u64 {
        unix_ms
            .saturating_sub(self.epoch_unix_ms)
            .saturating_mul(1_000)
    }

    /// The instant of the current runtime's tokio clock `at_us` microseconds after the
    /// world's start. On turmoil, every runtime's clock runs at the world's pace from
    /// wherever it stands, so the instant is reckoned from now.
    pub fn instant_at_us(&self, at_us: u64) -> Instant {
        match &self.source {
            Source::Tokio(start) => *start + Duration::from_micros(at_us),
            #[cfg(feature = "turmoil")]
            Source::Turmoil(_) => {
                Instant::now() + Duration::from_micros(at_us.saturating_sub(self.now_us()))
            }
        }
    }

    pub async fn sleep_until_us(&self, at_us: u64) {
        tokio::time::sleep_until(self.instant_at_us(at_us)).await;
    }

    pub async fn sleep_until_ms(&self, at_ms: u64) {
        self.sleep_until_us(at_ms * 1_000).await;
    }
}
