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
    /// The run finished with this value.
    Done(T),
    /// Still running after the limit; its thread was left behind.
    Stuck,
    /// The run panicked, with the panic's message.
    Panicked(String),
}

/// Run `f` on a worker thread and wait at most `timeout` of real time for it. A run that
/// does not finish is reported [`Guarded::Stuck`] and its worker is left behind (a thread
/// cannot be killed); a panic is caught and reported. Workers are reused between runs of
/// the calling thread: a fresh thread per seed cost a quarter of a sweep's throughput
/// (cold allocator arenas, stack setup).
pub fn run_guarded<T, F>(name: String, timeout: Duration, f: F) -> Guarded<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (sender, receiver) = mpsc::channel();
    let job: Job = Box::new(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = sender.send(result);
    });
    let worker = match hand_to_worker(name, job) {
        Ok(worker) => worker,
        Err(error) => return Guarded::Panicked(format!("cannot start the seed's thread: {error}")),
    };
    match receiver.recv_timeout(timeout) {
        Ok(Ok(value)) => {
            WORKER.with(|idle| *idle.borrow_mut() = Some(worker));
            Guarded::Done(value)
        }
        Ok(Err(panic)) => {
            WORKER.with(|idle| *idle.borrow_mut() = Some(worker));
            Guarded::Panicked(panic_message(panic.as_ref()))
        }
        // The worker is still busy (or gone): never reuse it.
        Err(mpsc::RecvTimeoutError::Timeout) => Guarded::Stuck,
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Guarded::Panicked("the seed's thread ended without a result".into())
        }
    }
}

/// A unit of work for a worker thread.
type Job = Box<dyn FnOnce() + Send>;

/// A thread that runs jobs one after another.
struct Worker {
    jobs: mpsc::Sender<Job>,
}

thread_local! {
    /// The calling thread's idle worker, if it has one.
    static WORKER: std::cell::RefCell<Option<Worker>> = const { std::cell::RefCell::new(None) };
}

/// Give `job` to this thread's idle worker, or to a new one; returns the worker.
fn hand_to_worker(name: String, job: Job) -> std::io::Result<Worker> {
    let idle = WORKER.with(|idle| idle.borrow_mut().take());
    let job = match idle {
        Some(worker) => match worker.jobs.send(job) {
            Ok(()) => return Ok(worker),
            Err(mpsc::SendError(job)) => job, // the worker died: start another
        },
        None => job,
    };
    let (jobs, inbox) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name(name)
        .stack_size(SEED_STACK_BYTES)
        .spawn(move || {
            while let Ok(job) = inbox.recv() {
                job();
            }
        })?;
    jobs.send(job).expect("a new worker is listening");
    Ok(Worker { jobs })
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
