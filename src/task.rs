//! Spawning a task that belongs to the host it runs on.
//!
//! On turmoil, a crash drops a host's runtime, and tokio drops the tasks of a runtime in an
//! order set by their ids, which count across the whole process: the sockets those tasks
//! hold would send their FINs and RSTs in an order that depends on what ran before in the
//! process. A host's own tasks (its software, and what amnesia spawns from them) run on
//! the host's `LocalSet` instead (every turmoil host runs in one), whose tasks are dropped
//! in the order they were spawned. A task a store spawns with `tokio::spawn` stays the
//! runtime's (docs/turmoil.md, limits).

use std::future::Future;
#[cfg(feature = "turmoil")]
use std::{
    cell::Cell,
    pin::Pin,
    task::{Context, Poll},
};

#[cfg(feature = "turmoil")]
thread_local! {
    /// How many host-owned tasks are being polled on this thread (nested polls count).
    static ON_HOST: Cell<u32> = const { Cell::new(0) };
}

/// Spawn `task` on the current host: its `LocalSet` when called from a host-owned task,
/// the runtime elsewhere.
pub fn spawn<T>(task: T) -> tokio::task::JoinHandle<T::Output>
where
    T: Future + Send + 'static,
    T::Output: Send + 'static,
{
    #[cfg(feature = "turmoil")]
    if ON_HOST.with(Cell::get) > 0 {
        return tokio::task::spawn_local(OnHost::new(task));
    }
    tokio::spawn(task)
}

#[cfg(feature = "turmoil")]
/// `future` as a host-owned task: what it spawns through [`spawn`] is the host's too.
/// Poll it only on a `LocalSet` (a turmoil host's software is).
pub fn on_host<F: Future>(future: F) -> OnHost<F> {
    OnHost::new(future)
}

#[cfg(feature = "turmoil")]
/// A future polled as a host-owned task.
pub struct OnHost<F> {
    inner: Pin<Box<F>>,
}

#[cfg(feature = "turmoil")]
impl<F: Future> OnHost<F> {
    fn new(future: F) -> Self {
        Self {
            inner: Box::pin(future),
        }
    }
}

#[cfg(feature = "turmoil")]
impl<F: Future> Future for OnHost<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        ON_HOST.with(|depth| depth.set(depth.get() + 1));
        let _leave = Leave;
        self.inner.as_mut().poll(cx)
    }
}

#[cfg(feature = "turmoil")]
/// Ends one host-owned poll, even if it panics.
struct Leave;

#[cfg(feature = "turmoil")]
impl Drop for Leave {
    fn drop(&mut self) {
        ON_HOST.with(|depth| depth.set(depth.get() - 1));
    }
}
