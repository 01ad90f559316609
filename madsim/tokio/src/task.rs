//! `tokio::task` with simulated tasks: inside a simulation `spawn` runs the future on the
//! simulator's executor; outside, on tokio's runtime. The rest is tokio's.

use crate::simulation::{current, SimTask};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

pub use real::task::*;

/// Run `future` as a task of its own.
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let Some(simulator) = current() else {
        return JoinHandle {
            inner: JoinInner::Real(real::task::spawn(future)),
        };
    };
    let (sender, result) = real::sync::oneshot::channel();
    let task = simulator.spawn(Box::pin(async move {
        let _ = sender.send(future.await);
    }));
    JoinHandle {
        inner: JoinInner::Simulated { result, task },
    }
}

/// Run blocking `f`: on tokio's blocking pool, or, in a simulation (one thread, no pool),
/// as a task that runs it to the end when first polled.
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    if current().is_none() {
        return JoinHandle {
            inner: JoinInner::Real(real::task::spawn_blocking(f)),
        };
    }
    spawn(async move { f() })
}

/// Owns a task: await it for its output; dropping it detaches the task.
#[derive(Debug)]
pub struct JoinHandle<T> {
    inner: JoinInner<T>,
}

enum JoinInner<T> {
    Real(real::task::JoinHandle<T>),
    Simulated {
        result: real::sync::oneshot::Receiver<T>,
        task: Arc<dyn SimTask>,
    },
}

impl<T> std::fmt::Debug for JoinInner<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JoinInner::Real(_) => f.write_str("JoinHandle(tokio)"),
            JoinInner::Simulated { .. } => f.write_str("JoinHandle(simulated)"),
        }
    }
}

impl<T> JoinHandle<T> {
    /// tokio's handle of a task on tokio's runtime.
    pub(crate) fn from_real(handle: real::task::JoinHandle<T>) -> JoinHandle<T> {
        JoinHandle {
            inner: JoinInner::Real(handle),
        }
    }

    pub fn abort(&self) {
        match &self.inner {
            JoinInner::Real(handle) => handle.abort(),
            JoinInner::Simulated { task, .. } => task.abort(),
        }
    }

    pub fn is_finished(&self) -> bool {
        match &self.inner {
            JoinInner::Real(handle) => handle.is_finished(),
            JoinInner::Simulated { task, .. } => task.is_finished(),
        }
    }

    pub fn abort_handle(&self) -> AbortHandle {
        let inner = match &self.inner {
            JoinInner::Real(handle) => AbortInner::Real(handle.abort_handle()),
            JoinInner::Simulated { task, .. } => AbortInner::Simulated(task.clone()),
        };
        AbortHandle { inner }
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().inner {
            JoinInner::Real(handle) => Pin::new(handle).poll(cx).map_err(|error| JoinError {
                inner: JoinErrorInner::Real(error),
            }),
            // The sender drops unsent only when the task was aborted (a panic ends the
            // whole simulation).
            JoinInner::Simulated { result, .. } => {
                Pin::new(result).poll(cx).map_err(|_| JoinError {
                    inner: JoinErrorInner::Cancelled,
                })
            }
        }
    }
}

/// Cancels a task without owning it.
#[derive(Debug)]
pub struct AbortHandle {
    inner: AbortInner,
}

enum AbortInner {
    Real(real::task::AbortHandle),
    Simulated(Arc<dyn SimTask>),
}

impl std::fmt::Debug for AbortInner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AbortInner::Real(handle) => handle.fmt(f),
            AbortInner::Simulated(_) => f.write_str("AbortHandle(simulated)"),
        }
    }
}

impl AbortHandle {
    pub fn abort(&self) {
        match &self.inner {
            AbortInner::Real(handle) => handle.abort(),
            AbortInner::Simulated(task) => task.abort(),
        }
    }

    pub fn is_finished(&self) -> bool {
        match &self.inner {
            AbortInner::Real(handle) => handle.is_finished(),
            AbortInner::Simulated(task) => task.is_finished(),
        }
    }
}

/// A task that did not complete: cancelled, or (tokio's only) panicked.
pub struct JoinError {
    inner: JoinErrorInner,
}

enum JoinErrorInner {
    Real(real::task::JoinError),
    Cancelled,
}

impl JoinError {
    pub fn is_cancelled(&self) -> bool {
        match &self.inner {
            JoinErrorInner::Real(error) => error.is_cancelled(),
            JoinErrorInner::Cancelled => true,
        }
    }

    pub fn is_panic(&self) -> bool {
        match &self.inner {
            JoinErrorInner::Real(error) => error.is_panic(),
            JoinErrorInner::Cancelled => false,
        }
    }

    pub fn into_panic(self) -> Box<dyn std::any::Any + Send + 'static> {
        self.try_into_panic()
            .expect("`JoinError` reason is not a panic.")
    }

    pub fn try_into_panic(self) -> Result<Box<dyn std::any::Any + Send + 'static>, JoinError> {
        match self.inner {
            JoinErrorInner::Real(error) => error.try_into_panic().map_err(|error| JoinError {
                inner: JoinErrorInner::Real(error),
            }),
            JoinErrorInner::Cancelled => Err(self),
        }
    }
}

impl std::fmt::Display for JoinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            JoinErrorInner::Real(error) => error.fmt(f),
            JoinErrorInner::Cancelled => f.write_str("task was cancelled"),
        }
    }
}

impl std::fmt::Debug for JoinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            JoinErrorInner::Real(error) => error.fmt(f),
            JoinErrorInner::Cancelled => f.write_str("JoinError::Cancelled"),
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for std::io::Error {
    fn from(error: JoinError) -> std::io::Error {
        std::io::Error::other(error.to_string())
    }
}

/// A set of tasks, joined in the order they finish. Whether its tasks are tokio's or the
/// simulator's is decided when the set is made.
#[derive(Debug)]
pub struct JoinSet<T> {
    inner: SetInner<T>,
}

#[derive(Debug)]
enum SetInner<T> {
    Real(real::task::JoinSet<T>),
    Simulated(VecDeque<JoinHandle<T>>),
}

impl<T> Default for JoinSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> JoinSet<T> {
    pub fn new() -> Self {
        let inner = match current() {
            Some(_) => SetInner::Simulated(VecDeque::new()),
            None => SetInner::Real(real::task::JoinSet::new()),
        };
        JoinSet { inner }
    }

    pub fn len(&self) -> usize {
        match &self.inner {
            SetInner::Real(set) => set.len(),
            SetInner::Simulated(handles) => handles.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Send + 'static> JoinSet<T> {
    pub fn abort_all(&mut self) {
        match &mut self.inner {
            SetInner::Real(set) => set.abort_all(),
            SetInner::Simulated(handles) => handles.iter().for_each(|handle| handle.abort()),
        }
    }

    pub fn detach_all(&mut self) {
        match &mut self.inner {
            SetInner::Real(set) => set.detach_all(),
            SetInner::Simulated(handles) => handles.clear(),
        }
    }

    pub fn spawn<F>(&mut self, future: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
    {
        match &mut self.inner {
            SetInner::Real(set) => AbortHandle {
                inner: AbortInner::Real(set.spawn(future)),
            },
            SetInner::Simulated(handles) => {
                let handle = spawn(future);
                let abort = handle.abort_handle();
                handles.push_back(handle);
                abort
            }
        }
    }

    /// Run blocking `f` as a task of the set ([`spawn_blocking`]'s way).
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
    {
        match &mut self.inner {
            SetInner::Real(set) => AbortHandle {
                inner: AbortInner::Real(set.spawn_blocking(f)),
            },
            SetInner::Simulated(_) => self.spawn(async move { f() }),
        }
    }

    /// tokio 1.40's: every task's output, in the order they finished; a task's panic
    /// resumes here.
    pub async fn join_all(mut self) -> Vec<T> {
        let mut output = Vec::with_capacity(self.len());
        while let Some(result) = self.join_next().await {
            match result {
                Ok(value) => output.push(value),
                Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
                Err(error) => panic!("{error}"),
            }
        }
        output
    }

    /// The next task to finish; among several finished, the earliest spawned.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next(cx)).await
    }

    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        let handles = match &mut self.inner {
            SetInner::Real(set) => {
                return set.poll_join_next(cx).map(|next| {
                    next.map(|result| {
                        result.map_err(|error| JoinError {
                            inner: JoinErrorInner::Real(error),
                        })
                    })
                });
            }
            SetInner::Simulated(handles) => handles,
        };
        if handles.is_empty() {
            return Poll::Ready(None);
        }
        for index in 0..handles.len() {
            if let Poll::Ready(result) = Pin::new(&mut handles[index]).poll(cx) {
                handles.remove(index);
                return Poll::Ready(Some(result));
            }
        }
        Poll::Pending
    }

    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        let waker = std::task::Waker::noop();
        match self.poll_join_next(&mut Context::from_waker(waker)) {
            Poll::Ready(next) => next,
            Poll::Pending => None,
        }
    }

    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        if let SetInner::Simulated(handles) = &self.inner {
            handles.iter().for_each(|handle| handle.abort());
        }
    }
}
