//! `sometimes!` points, after Antithesis's `sometimes` assertions and moonpool's
//! `sometimes_assert!`: places in a store's own code that a good search should reach now
//! and then (a transaction whose `EXEC` aborted, a retry that found its id already there).
//! A point records that it was reached in this run, and how often; it judges nothing and
//! never changes what the run does. A sweep counts the runs that reached each point and
//! names the points its runs never reached; the guided search (`sweep --explore`) keeps
//! the plans that reach a point rarely reached.
//!
//! The state is the run's, on the thread that runs its world (the simulator's world runs
//! on one thread), installed by the runner around the engine's run. Outside a simulated
//! run (production, a plain unit test) a point costs a thread-local lookup. Reaching a
//! point writes nothing to the trace: adding one to a store leaves its trace hashes as
//! they were.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// Distinct points remembered per run; points past it are not counted.
pub const POINTS_MAX: usize = 256;
/// Longest point name kept; a longer one is cut at a character boundary.
pub const NAME_BYTES_MAX: usize = 120;

thread_local! {
    static CURRENT: RefCell<Option<BTreeMap<String, u64>>> = const { RefCell::new(None) };
}

/// Records that the point `name` was reached in the current run. What
/// [`sometimes!`](crate::sometimes!) expands to; call the macro.
#[doc(hidden)]
pub fn reached(name: &str) {
    CURRENT.with(|current| {
        let mut current = current.borrow_mut();
        let Some(points) = current.as_mut() else {
            return;
        };
        if let Some(count) = points.get_mut(name) {
            *count = count.saturating_add(1);
        } else if points.len() < POINTS_MAX {
            points.insert(cut(name).to_string(), 1);
        }
    });
}

fn cut(name: &str) -> &str {
    if name.len() <= NAME_BYTES_MAX {
        return name;
    }
    let mut end = NAME_BYTES_MAX;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// The points of the run on this thread, from [`install`] until [`Recording::finish`].
pub(crate) struct Recording {
    previous: Option<BTreeMap<String, u64>>,
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Start recording the points this thread reaches, for one run.
pub(crate) fn install() -> Recording {
    let previous = CURRENT.with(|current| current.replace(Some(BTreeMap::new())));
    Recording {
        previous,
        _not_send: std::marker::PhantomData,
    }
}

impl Recording {
    /// The points reached since [`install`], each with how many times; recording stops.
    pub(crate) fn finish(mut self) -> BTreeMap<String, u64> {
        let previous = self.previous.take();
        CURRENT
            .with(|current| current.replace(previous))
            .unwrap_or_default()
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        // A run that panicked: restore what was there before it.
        let previous = self.previous.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_counted_only_while_a_run_records() {
        reached("outside");
        let recording = install();
        crate::sometimes!("exec aborted");
        crate::sometimes!("exec aborted");
        crate::sometimes!(1 > 2, "never");
        crate::sometimes!(2 > 1, "taken");
        let points = recording.finish();
        let expected: BTreeMap<String, u64> =
            [("exec aborted".to_string(), 2), ("taken".to_string(), 1)].into();
        assert_eq!(points, expected);
        reached("after");
        assert!(install().finish().is_empty(), "nothing leaks between runs");
    }

    #[test]
    fn names_and_points_are_bounded() {
        let recording = install();
        for i in 0..POINTS_MAX + 10 {
            reached(&format!("p{i}"));
        }
        reached(&"é".repeat(NAME_BYTES_MAX));
        let points = recording.finish();
        assert_eq!(points.len(), POINTS_MAX);
        assert!(points.keys().all(|name| name.len() <= NAME_BYTES_MAX));
    }
}
