//! The per-seed wall-clock guard beside the virtual budget: a store that busy-loops or
//! blocks its thread never lets virtual time reach the run deadline, so each seed runs on
//! its own OS thread and is given up on after a wall-clock limit. The thread is left
//! behind (a blocked thread cannot be killed); the sweep goes on with the other seeds.
//!
//! The real clock is allowed here and only here: it decides whether to wait for a run,
//! never what the run does, and it never reaches a trace.

use std::sync::mpsc;
use std::time::Duration;

/// Wall-clock limit of one seed's run by default, in milliseconds.
pub const SEED_TIMEOUT_MS_DEFAULT: u64 = 60_000;
/// Stack of a seed's thread: the world runs on it.
const SEED_STACK_BYTES: usize = 16 * 1024 * 1024;

/// How a guarded run ended.
#[derive(Debug)]
pub enum Guarded<T> {
    Done(T),
    /// Still running after the limit; its thread was left behind.
    Stuck,
    /// The run panicked, with the panic's message.
    Panicked(String),
}

/// Run `f` on a thread of its own and wait at most `timeout` of wall-clock time for it.
pub fn run_guarded<T, F>(name: String, timeout: Duration, f: F) -> Guarded<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (sender, receiver) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name(name)
        .stack_size(SEED_STACK_BYTES)
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let _ = sender.send(result);
        });
    if let Err(error) = spawned {
        return Guarded::Panicked(format!("cannot start the seed's thread: {error}"));
    }
    match receiver.recv_timeout(timeout) {
        Ok(Ok(value)) => Guarded::Done(value),
        Ok(Err(panic)) => Guarded::Panicked(panic_message(panic.as_ref())),
        Err(mpsc::RecvTimeoutError::Timeout) => Guarded::Stuck,
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Guarded::Panicked("the seed's thread ended without a result".into())
        }
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocked_run_is_given_up_on() {
        let guarded = run_guarded("blocked".into(), Duration::from_millis(50), || loop {
            std::thread::park();
        });
        assert!(matches!(guarded, Guarded::<()>::Stuck));
        let done = run_guarded("done".into(), Duration::from_secs(5), || 7);
        assert!(matches!(done, Guarded::Done(7)));
        let panicked = run_guarded("panics".into(), Duration::from_secs(5), || -> u8 {
            panic!("boom")
        });
        assert!(matches!(panicked, Guarded::Panicked(ref m) if m == "boom"));
    }
}
