//! What the other connections see of a running script without the node's lock: whether
//! one runs, since when (on the node's clock), whether it wrote, and the request to stop
//! it (Redis's `scriptRunCtx` as `processEventsWhileBlocked` reads it).
//!
//! Why outside the node: a script holds the node for its whole run (it is atomic), so a
//! connection that must answer BUSY, or pass on SCRIPT KILL, cannot take the node's lock.
//! The node keeps an `Arc` of it; the script's instruction hook reads the stop request
//! every few thousand instructions. Only `amnesia serve-model` (a real clock, scripts
//! off the event loop) consults it across threads; in a simulation the node runs a
//! script to its end or to the instruction budget within one command, and nothing reads
//! the watch meanwhile.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The state of the node's one running script (none: `running` is false).
#[derive(Debug, Default)]
pub(crate) struct ScriptWatch {
    running: AtomicBool,
    /// When it started, on the node's clock.
    started_ms: AtomicU64,
    /// `busy-reply-threshold` as it was when the script started.
    threshold_ms: AtomicU64,
    /// It called a write command: SCRIPT KILL is refused (UNKILLABLE).
    wrote: AtomicBool,
    /// SCRIPT KILL or SHUTDOWN NOSAVE asked it to stop.
    stop_requested: AtomicBool,
}

/// Why SCRIPT KILL did not stop the script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KillRefusal {
    NotBusy,
    Unkillable,
}

/// Ends the run when dropped, a panic's unwinding included: a watch never stays
/// `running` after its script.
pub(crate) struct Running<'w>(&'w ScriptWatch);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.running.store(false, Ordering::SeqCst);
    }
}

impl ScriptWatch {
    /// A script starts at `now_ms`; it runs until the returned guard is dropped.
    pub(crate) fn begin(&self, now_ms: u64, threshold_ms: u64) -> Running<'_> {
        assert!(
            !self.running.load(Ordering::SeqCst),
            "one script at a time: the node's lock serialises them"
        );
        self.started_ms.store(now_ms, Ordering::SeqCst);
        self.threshold_ms.store(threshold_ms, Ordering::SeqCst);
        self.wrote.store(false, Ordering::SeqCst);
        self.stop_requested.store(false, Ordering::SeqCst);
        self.running.store(true, Ordering::SeqCst);
        Running(self)
    }

    /// The running script called a write command.
    pub(crate) fn note_write(&self) {
        self.wrote.store(true, Ordering::SeqCst);
    }

    /// Whether the running script must stop now (read by its instruction hook).
    pub(crate) fn stop_requested(&self) -> bool {
        self.stop_requested.load(Ordering::SeqCst)
    }

    /// A script runs and has run for `busy-reply-threshold` or longer at `now_ms`: other
    /// clients are answered BUSY (Redis's `scriptIsTimedout`).
    pub(crate) fn busy(&self, now_ms: u64) -> bool {
        self.running.load(Ordering::SeqCst)
            && now_ms.saturating_sub(self.started_ms.load(Ordering::SeqCst))
                >= self.threshold_ms.load(Ordering::SeqCst)
    }

    /// SCRIPT KILL: stop the running script unless it wrote.
    pub(crate) fn request_kill(&self) -> Result<(), KillRefusal> {
        if !self.running.load(Ordering::SeqCst) {
            return Err(KillRefusal::NotBusy);
        }
        if self.wrote.load(Ordering::SeqCst) {
            return Err(KillRefusal::Unkillable);
        }
        self.stop_requested.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// SHUTDOWN NOSAVE: stop the running script, written or not (the server exits).
    pub(crate) fn force_stop(&self) {
        self.stop_requested.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_only_past_the_threshold_and_kill_only_before_a_write() {
        let watch = ScriptWatch::default();
        assert_eq!(watch.request_kill(), Err(KillRefusal::NotBusy));
        {
            let _running = watch.begin(1_000, 50);
            assert!(!watch.busy(1_049));
            assert!(watch.busy(1_050));
            watch.note_write();
            assert_eq!(watch.request_kill(), Err(KillRefusal::Unkillable));
            assert!(!watch.stop_requested());
            watch.force_stop();
            assert!(watch.stop_requested());
        }
        assert!(!watch.busy(9_999), "the guard ended the run");
        let _running = watch.begin(2_000, 0);
        assert!(!watch.stop_requested(), "a new run starts afresh");
        assert_eq!(watch.request_kill(), Ok(()));
        assert!(watch.stop_requested());
    }

    #[test]
    fn a_panicking_run_leaves_no_script_running() {
        let watch = ScriptWatch::default();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _running = watch.begin(0, 0);
            panic!("a script engine bug");
        }));
        assert!(result.is_err());
        assert!(!watch.busy(1));
    }
}
