//! Spawning a task that belongs to the host it runs on.
//!
//! On turmoil, a crash drops a host's runtime, and tokio drops the tasks of a runtime in an
//! order set by their ids, which count across the whole process: the sockets those tasks
//! hold would send their FINs and RSTs in an order that depends on what ran before in the
//! process. A host's tasks are spawned on its `LocalSet` instead (every turmoil host runs
//! in one), whose tasks are dropped in the order they were spawned.

use std::future::Future;

/// Spawn `task` on the current host: its `LocalSet` inside a turmoil simulation, the
/// runtime elsewhere.
pub fn spawn<T>(task: T) -> tokio::task::JoinHandle<T::Output>
where
    T: Future + Send + 'static,
    T::Output: Send + 'static,
{
    #[cfg(feature = "turmoil")]
    if turmoil::in_simulation() {
        return tokio::task::spawn_local(task);
    }
    tokio::spawn(task)
}
