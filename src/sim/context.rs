//! The world running on this thread, for observers outside the engine (the runner's
//! tracing layer stamps the store's log events with its virtual time and trace).
//!
//! A world runs on one `current_thread` runtime, so every task of it, the store's code
//! included, runs on the thread that entered it: a thread-local is exact, and parallel
//! worlds on other threads never see each other.

use crate::sim::clock::WorldClock;
use crate::trace::Trace;
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
