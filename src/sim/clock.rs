//! Time of a world: microseconds since it started, on tokio's clock. Paused, it is the
//! simulation's virtual time; running, it is the real tier's real time.

use std::time::Duration;
use tokio::time::Instant;

/// Unix time, in milliseconds, at which every simulated world starts: fixed, so TTL
/// arithmetic and `TIME` replies are the same on every run.
pub const WORLD_EPOCH_UNIX_MS: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

/// The world's clock. Cloning shares the start instant.
#[derive(Clone, Debug)]
pub struct WorldClock {
    start: Instant,
    /// Unix milliseconds an unskewed host reads at the start.
    epoch_unix_ms: u64,
}

impl WorldClock {
    /// Must be created inside the world's runtime. Its hosts read `epoch_unix_ms` at the
    /// start: [`WORLD_EPOCH_UNIX_MS`] in the simulator, the real time in the real tier
    /// (which its Redis server's clock reads too).
    pub fn start_at(epoch_unix_ms: u64) -> Self {
        Self {
            start: Instant::now(),
            epoch_unix_ms,
        }
    }

    pub fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// Unix milliseconds now: what an unskewed host clock reads.
    pub fn unix_ms(&self) -> u64 {
        self.epoch_unix_ms + self.start.elapsed().as_millis() as u64
    }

    /// The first microsecond of the world at which an unskewed host reads unix millisecond
    /// `unix_ms` (0 for instants before the world started).
    pub fn us_of_unix_ms(&self, unix_ms: u64) -> u64 {
        unix_ms
            .saturating_sub(self.epoch_unix_ms)
            .saturating_mul(1_000)
    }

    /// The tokio instant `at_us` virtual microseconds after the start.
    pub fn instant_at_us(&self, at_us: u64) -> Instant {
        self.start + Duration::from_micros(at_us)
    }

    pub async fn sleep_until_us(&self, at_us: u64) {
        tokio::time::sleep_until(self.instant_at_us(at_us)).await;
    }

    pub async fn sleep_until_ms(&self, at_ms: u64) {
        self.sleep_until_us(at_ms * 1_000).await;
    }
}
