//! `tokio::time` with simulated timers: inside a simulation a sleep waits on the
//! simulator's clock; outside, on tokio's timer. `Instant` is tokio's (it reads
//! `std::time::Instant`, which a simulation's clock replaces).

use crate::simulation::{current, BoxFuture};
use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

pub use real::time::*;

/// tokio's `time::error`, with a [`Elapsed`] this crate's [`Timeout`] can make.
pub mod error {
    pub use real::time::error::Error;

    /// A [`super::timeout`] ran out before its future completed.
    #[derive(Debug, PartialEq, Eq)]
    pub struct Elapsed(());

    impl Elapsed {
        pub(super) fn new() -> Self {
            Elapsed(())
        }
    }

    impl std::fmt::Display for Elapsed {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("deadline has elapsed")
        }
    }

    impl std::error::Error for Elapsed {}

    impl From<Elapsed> for std::io::Error {
        fn from(_: Elapsed) -> std::io::Error {
            std::io::ErrorKind::TimedOut.into()
        }
    }
}

pin_project! {
    /// A future that completes at its deadline.
    #[derive(Debug)]
    pub struct Sleep {
        #[pin]
        inner: SleepInner,
    }
}

pin_project! {
    #[project = SleepProjection]
    #[derive(Debug)]
    enum SleepInner {
        Real { #[pin] sleep: real::time::Sleep },
        Simulated { deadline: Instant, wait: SimulatedWait },
    }
}

/// The simulator's timer future: only ever polled through `&mut`, so the `Sync` tokio's
/// `Sleep` promises holds.
struct SimulatedWait(sync_wrapper::SyncWrapper<BoxFuture<()>>);

impl std::fmt::Debug for SimulatedWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SimulatedWait")
    }
}

impl Sleep {
    fn until(deadline: Instant) -> Sleep {
        let inner = match current() {
            Some(simulator) => SleepInner::Simulated {
                deadline,
                wait: SimulatedWait(sync_wrapper::SyncWrapper::new(
                    simulator.sleep_until(deadline.into_std()),
                )),
            },
            None => SleepInner::Real {
                sleep: real::time::sleep_until(deadline),
            },
        };
        Sleep { inner }
    }

    pub fn deadline(&self) -> Instant {
        match &self.inner {
            SleepInner::Real { sleep } => sleep.deadline(),
            SleepInner::Simulated { deadline, .. } => *deadline,
        }
    }

    pub fn is_elapsed(&self) -> bool {
        match &self.inner {
            SleepInner::Real { sleep } => sleep.is_elapsed(),
            SleepInner::Simulated { deadline, .. } => Instant::now() >= *deadline,
        }
    }

    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        let mut inner = self.project().inner;
        match inner.as_mut().project() {
            SleepProjection::Real { sleep } => sleep.reset(deadline),
            SleepProjection::Simulated { .. } => inner.set(Sleep::until(deadline).inner),
        }
    }
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match self.project().inner.project() {
            SleepProjection::Real { sleep } => sleep.poll(cx),
            SleepProjection::Simulated { wait, .. } => wait.0.get_mut().as_mut().poll(cx),
        }
    }
}

/// Wait until `deadline`.
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::until(deadline)
}

/// Wait for `duration`.
pub fn sleep(duration: Duration) -> Sleep {
    match Instant::now().checked_add(duration) {
        Some(deadline) => Sleep::until(deadline),
        // tokio's own answer to an unreachable deadline: about 30 years.
        None => Sleep::until(Instant::now() + Duration::from_secs(86_400 * 365 * 30)),
    }
}

pin_project! {
    /// A future with a deadline: its output, or [`error::Elapsed`].
    #[derive(Debug)]
    pub struct Timeout<T> {
        #[pin]
        value: T,
        #[pin]
        delay: Sleep,
    }
}

impl<T> Timeout<T> {
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    pub fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T: Future> Future for Timeout<T> {
    type Output = Result<T::Output, error::Elapsed>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(value) = this.value.poll(cx) {
            return Poll::Ready(Ok(value));
        }
        this.delay.poll(cx).map(|()| Err(error::Elapsed::new()))
    }
}

/// `future`, cut off after `duration`.
pub fn timeout<F: std::future::IntoFuture>(
    duration: Duration,
    future: F,
) -> Timeout<F::IntoFuture> {
    Timeout {
        value: future.into_future(),
        delay: sleep(duration),
    }
}

/// `future`, cut off at `deadline`.
pub fn timeout_at<F: std::future::IntoFuture>(
    deadline: Instant,
    future: F,
) -> Timeout<F::IntoFuture> {
    Timeout {
        value: future.into_future(),
        delay: sleep_until(deadline),
    }
}

/// Ticks every `period`, the first at once.
pub fn interval(period: Duration) -> Interval {
    interval_at(Instant::now(), period)
}

/// Ticks every `period` from `start`.
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    Interval {
        delay: Box::pin(sleep_until(start)),
        period,
        missed_tick_behavior: MissedTickBehavior::Burst,
    }
}

/// A timer that ticks periodically, as tokio's does, on this crate's [`Sleep`].
#[derive(Debug)]
pub struct Interval {
    delay: Pin<Box<Sleep>>,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

impl Interval {
    pub async fn tick(&mut self) -> Instant {
        std::future::poll_fn(|cx| self.poll_tick(cx)).await
    }

    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        ready!(self.delay.as_mut().poll(cx));
        let due = self.delay.deadline();
        let now = Instant::now();
        // tokio's tolerance before a tick counts as missed.
        let missed = now > due + Duration::from_millis(5);
        let next = match (missed, self.missed_tick_behavior) {
            (false, _) | (true, MissedTickBehavior::Burst) => due + self.period,
            (true, MissedTickBehavior::Delay) => now + self.period,
            (true, MissedTickBehavior::Skip) => {
                let behind_ns = (now - due).as_nanos() % self.period.as_nanos();
                now + self.period - Duration::from_nanos(behind_ns as u64)
            }
        };
        self.delay.as_mut().reset(next);
        Poll::Ready(due)
    }

    pub fn reset(&mut self) {
        self.delay.as_mut().reset(Instant::now() + self.period);
    }

    /// The next tick `after` from now.
    pub fn reset_after(&mut self, after: Duration) {
        let deadline = Instant::now()
            .checked_add(after)
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400 * 365 * 30));
        self.delay.as_mut().reset(deadline);
    }

    pub fn reset_immediately(&mut self) {
        self.delay.as_mut().reset(Instant::now());
    }

    pub fn reset_at(&mut self, deadline: Instant) {
        self.delay.as_mut().reset(deadline);
    }

    pub fn period(&self) -> Duration {
        self.period
    }

    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }
}
