//! A panic inside one of amnesia's models (the Redis model or the PostgreSQL one) is
//! amnesia's bug, never the store's. The model catches it where it runs a command or a
//! statement, answers that one request with an internal error, keeps its shared state
//! unpoisoned and keeps serving; it records the panic here. When the run ends, the
//! runner reports it as the run's own failure (a sweep's `panic` status with the replay
//! line), never as a verdict on the store, which only saw an error reply.
//!
//! Per thread: a simulated run lives on one thread, so a sweep's parallel seeds keep
//! their panics apart.

use std::cell::RefCell;

/// Panics kept per thread; past this only the count grows.
const PANICS_MAX: usize = 16;

thread_local! {
    static PANICS: RefCell<(Vec<String>, usize)> = const { RefCell::new((Vec::new(), 0)) };
}

/// The text of a caught panic's payload.
pub(crate) fn payload_text(panic: &(dyn std::any::Any + Send)) -> &str {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => text,
        (None, Some(text)) => text.as_str(),
        (None, None) => "a panic",
    }
}

/// Keep the panic `what` (which model, doing what, and its message).
pub(crate) fn record(what: String) {
    PANICS.with(|panics| {
        let (kept, count) = &mut *panics.borrow_mut();
        *count += 1;
        if kept.len() < PANICS_MAX {
            kept.push(what);
        }
    });
}

/// Forget what this thread recorded (a run starts clean).
pub(crate) fn clear() {
    PANICS.with(|panics| *panics.borrow_mut() = (Vec::new(), 0));
}

/// What this thread recorded since the last [`clear`] or [`take`], as one line; `None`
/// when no model panicked.
pub(crate) fn take() -> Option<String> {
    let (kept, count) = PANICS.with(|panics| std::mem::take(&mut *panics.borrow_mut()));
    if count == 0 {
        return None;
    }
    let more = count - kept.len();
    let tail = if more > 0 {
        format!(" (and {more} more)")
    } else {
        String::new()
    };
    Some(format!("{}{tail}", kept.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_are_kept_per_thread_and_taken_once() {
        clear();
        assert_eq!(take(), None);
        for n in 0..PANICS_MAX + 2 {
            record(format!("panic {n}"));
        }
        std::thread::spawn(|| assert_eq!(take(), None))
            .join()
            .unwrap();
        let taken = take().expect("recorded");
        assert!(taken.starts_with("panic 0; panic 1"), "{taken}");
        assert!(taken.ends_with("(and 2 more)"), "{taken}");
        assert_eq!(take(), None);
    }
}
