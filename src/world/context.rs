//! The world running on this thread, for observers outside the engine (the runner's
//! tracing layer stamps the store's log events with its virtual time and trace).
//!
//! A world runs on one `current_thread` runtime, so every task of it, the store's code
//! included, runs on the thread that entered it: a thread-local is exact, and parallel
//! worlds on other threads never see each other.

use crate::trace::Trace;
use crate::world::clock::WorldClock;
use std::cell::RefCell;

thread_local! {
    static WORLD: RefCell<Option<(WorldClock, Trace)>> = const { RefCell::new(None) };
}

/// Marks this thread as running a world until dropped.
pub struct WorldEntered {
    previous: Option<(WorldClock, Trace)>,
}

/// Make `clock` and `trace` the current world of this thread until the guard drops.
pub fn enter(clock: &WorldClock, trace: &Trace) -> WorldEntered {
    let previous = WORLD.with(|world| world.replace(Some((clock.clone(), trace.clone()))));
    WorldEntered { previous }
}

/// A world entered on this thread with the plan's buggify points installed (when its
/// scenario turns them on), both undone when dropped.
pub struct RunEntered {
    _buggify: Option<crate::buggify::BuggifyGuard>,
    _entered: WorldEntered,
}

/// Enter the world of `plan` on this thread: [`enter`], and the plan's buggify points
/// on `clock` with their delays scaled by `time_scale` (1 in the simulator).
pub fn enter_run(
    clock: &WorldClock,
    trace: &Trace,
    plan: &crate::plan::Plan,
    time_scale: f64,
) -> RunEntered {
    let entered = enter(clock, trace);
    let buggify = plan.scenario.buggify.then(|| {
        let clock = clock.clone();
        crate::buggify::Buggify::new(plan.seed, trace.clone(), move || clock.now_us())
            .time_scale(time_scale)
            .install()
    });
    RunEntered {
        _buggify: buggify,
        _entered: entered,
    }
}

impl Drop for WorldEntered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        WORLD.with(|world| *world.borrow_mut() = previous);
    }
}

/// Call `f` with the current world's clock and trace, if this thread runs one.
pub fn with_current<R>(f: impl FnOnce(&WorldClock, &Trace) -> R) -> Option<R> {
    WORLD.with(|world| {
        world
            .borrow()
            .as_ref()
            .map(|(clock, trace)| f(clock, trace))
    })
}
