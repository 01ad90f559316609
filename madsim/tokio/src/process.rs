//! `tokio::process` that refuses inside a simulation: a child process runs outside the
//! simulation's clock and network, and tokio reaps it on real threads. Inside a run
//! [`Command`]'s `spawn`, `status` and `output` fail with an [`io::ErrorKind::Unsupported`]
//! error naming the call and the simulation ([`crate::simulation::refuse`]); outside one
//! they are tokio's. `Child` and its pipes are tokio's: only a spawn, which refuses, makes
//! one.

use crate::simulation::refuse;
use std::ffi::OsStr;
use std::future::Future;
use std::io;
use std::path::Path;
use std::process::{ExitStatus, Output, Stdio};

pub use real::process::*;

/// tokio's command builder, refusing to start a process inside a simulation.
#[derive(Debug)]
pub struct Command {
    inner: real::process::Command,
}

impl Command {
    pub fn new<S: AsRef<OsStr>>(program: S) -> Command {
        Command {
            inner: real::process::Command::new(program),
        }
    }

    pub fn as_std(&self) -> &std::process::Command {
        self.inner.as_std()
    }

    pub fn as_std_mut(&mut self) -> &mut std::process::Command {
        self.inner.as_std_mut()
    }

    pub fn into_std(self) -> std::process::Command {
        self.inner.into_std()
    }

    pub fn arg<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.inner.arg(arg);
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.inner.args(args);
        self
    }

    pub fn env<K: AsRef<OsStr>, V: AsRef<OsStr>>(&mut self, key: K, val: V) -> &mut Command {
        self.inner.env(key, val);
        self
    }

    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.inner.envs(vars);
        self
    }

    pub fn env_remove<K: AsRef<OsStr>>(&mut self, key: K) -> &mut Command {
        self.inner.env_remove(key);
        self
    }

    pub fn env_clear(&mut self) -> &mut Command {
        self.inner.env_clear();
        self
    }

    pub fn current_dir<P: AsRef<Path>>(&mut self, dir: P) -> &mut Command {
        self.inner.current_dir(dir);
        self
    }

    pub fn stdin<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.inner.stdin(cfg);
        self
    }

    pub fn stdout<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.inner.stdout(cfg);
        self
    }

    pub fn stderr<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.inner.stderr(cfg);
        self
    }

    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.inner.kill_on_drop(kill_on_drop);
        self
    }

    pub fn get_kill_on_drop(&self) -> bool {
        self.inner.get_kill_on_drop()
    }

    #[cfg(unix)]
    pub fn uid(&mut self, id: u32) -> &mut Command {
        self.inner.uid(id);
        self
    }

    #[cfg(unix)]
    pub fn gid(&mut self, id: u32) -> &mut Command {
        self.inner.gid(id);
        self
    }

    #[cfg(unix)]
    pub fn arg0<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.inner.arg0(arg);
        self
    }

    #[cfg(unix)]
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        self.inner.process_group(pgroup);
        self
    }

    /// # Safety
    ///
    /// tokio's (and std's) contract for `pre_exec`, passed on unchanged.
    #[cfg(unix)]
    pub unsafe fn pre_exec<F>(&mut self, f: F) -> &mut Command
    where
        F: FnMut() -> io::Result<()> + Send + Sync + 'static,
    {
        // SAFETY: the caller's promise.
        unsafe { self.inner.pre_exec(f) };
        self
    }

    pub fn spawn(&mut self) -> io::Result<Child> {
        refuse("tokio::process::Command::spawn")?;
        self.inner.spawn()
    }

    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> {
        // tokio starts the child when `status` is called, not when it is awaited.
        let status = refuse("tokio::process::Command::status").map(|()| self.inner.status());
        async move { status?.await }
    }

    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> {
        // tokio starts the child when `output` is called, not when it is awaited.
        let output = refuse("tokio::process::Command::output").map(|()| self.inner.output());
        async move { output?.await }
    }
}

impl From<std::process::Command> for Command {
    fn from(std: std::process::Command) -> Command {
        Command {
            inner: real::process::Command::from(std),
        }
    }
}
