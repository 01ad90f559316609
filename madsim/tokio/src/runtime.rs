//! `tokio::runtime` with a [`Handle`] whose `spawn` runs a task on the simulator's
//! executor inside a simulation. Clients spawn through the current runtime's handle
//! (sqlx: `Handle::try_current()` then `handle.spawn`, for every pooled connection it
//! takes back); inside a run that handle is the runtime amnesia enters for its seeded
//! generators and never drives, where such a task would never run. Outside a simulation
//! every item is tokio's own.

pub use real::runtime::*;

use crate::simulation::current;
use crate::task::JoinHandle;
use std::future::Future;

/// tokio's handle of a runtime; its `spawn` and `spawn_blocking` go to the simulator
/// inside a simulation, and every other method is tokio's (through `Deref`).
#[derive(Clone, Debug)]
pub struct Handle {
    inner: real::runtime::Handle,
}

impl Handle {
    /// The handle of the runtime the calling thread is in; panics outside one (tokio's).
    #[track_caller]
    pub fn current() -> Handle {
        Handle::from(real::runtime::Handle::current())
    }

    /// The handle of the runtime the calling thread is in, if any.
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        real::runtime::Handle::try_current().map(Handle::from)
    }

    /// Run `future` as a task: the simulator's inside a simulation, this runtime's outside.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        match current() {
            Some(_) => crate::task::spawn(future),
            None => JoinHandle::from_real(self.inner.spawn(future)),
        }
    }

    /// Run blocking `f`: as [`crate::task::spawn_blocking`] does inside a simulation, on
    /// this runtime's blocking pool outside one.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        match current() {
            Some(_) => crate::task::spawn_blocking(f),
            None => JoinHandle::from_real(self.inner.spawn_blocking(f)),
        }
    }
}

impl std::ops::Deref for Handle {
    type Target = real::runtime::Handle;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl From<real::runtime::Handle> for Handle {
    fn from(inner: real::runtime::Handle) -> Handle {
        Handle { inner }
    }
}
