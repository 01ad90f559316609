//! Wall clocks for simulated hosts: unix milliseconds, virtual inside a simulation.
//!
//! Code under test that needs the wall time (a store computing an EXPIREAT, a timestamp id)
//! takes a [`Clock`] instead of calling the OS: the simulator hands each host its own,
//! which it can skew and jump; the real tier hands out [`Clock::system`].

use std::sync::Arc;

/// A source of unix time in milliseconds. Inside a simulation it reads tokio's paused clock
/// (virtual time) plus the host's skew; `serve-model` and the real tier read the real clock.
#[derive(Clone)]
pub struct Clock {
    now_ms: Arc<dyn Fn() -> u64 + Send + Sync>,
}

impl Clock {
    /// Unix time `epoch_ms` at the moment of the call, advancing with tokio's clock (virtual
    /// when the runtime's time is paused).
    pub fn tokio(epoch_ms: u64) -> Self {
        let start = tokio::time::Instant::now();
        Self::from_fn(move || epoch_ms + start.elapsed().as_millis() as u64)
    }

    /// The real wall clock, for `serve-model` and the real tier. Never used inside a
    /// simulation: nothing it returns reaches a trace.
    pub fn system() -> Self {
        Self::from_fn(|| {
            let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            since_epoch.map_or(0, |elapsed| elapsed.as_millis() as u64)
        })
    }

    /// Any function of the caller's choice, e.g. a simulated host clock with skew.
    pub fn from_fn(now_ms: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        Self {
            now_ms: Arc::new(now_ms),
        }
    }

    /// The current unix time, in milliseconds.
    pub fn now_ms(&self) -> u64 {
        (self.now_ms)()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock").finish_non_exhaustive()
    }
}
