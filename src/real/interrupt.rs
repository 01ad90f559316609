//! SIGINT and SIGTERM during a real run: the servers this process started are removed
//! (a paused container unpaused first, a local server killed with its backends, its
//! folder deleted) before the process exits with 128 + the signal's number, as a shell
//! reports it. A run killed by SIGKILL cannot do this: the next start's sweep does.

use crate::real::owner::{remove_local, Owner, Whose};
use crate::real::server::RealError;
use nix::sys::signal::{SigSet, Signal};

/// Remove this process's real-tier servers when it receives SIGINT or SIGTERM, then exit
/// with 130 or 143. Call it before the process starts any other thread: the two signals
/// are blocked in the calling thread (threads started later inherit that) and taken by a
/// thread of this function's own.
///
/// ```no_run
/// amnesia::real::clean_up_on_interrupt()?;
/// // ... run_real(...) ...
/// # Ok::<(), amnesia::real::RealError>(())
/// ```
pub fn clean_up_on_interrupt() -> Result<(), RealError> {
    let mut signals = SigSet::empty();
    signals.add(Signal::SIGINT);
    signals.add(Signal::SIGTERM);
    let failed = |e: &dyn std::fmt::Display| {
        RealError::Environment(format!("cannot take SIGINT and SIGTERM: {e}"))
    };
    signals.thread_block().map_err(|e| failed(&e))?;
    std::thread::Builder::new()
        .name("amnesia-interrupt".into())
        .spawn(move || {
            if let Ok(signal) = signals.wait() {
                remove_mine_and_exit(signal);
            }
        })
        .map_err(|e| failed(&e))?;
    Ok(())
}

fn remove_mine_and_exit(signal: Signal) -> ! {
    eprintln!("amnesia: {signal}: removing this run's servers");
    let removed = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map(|runtime| runtime.block_on(remove_mine()));
    match removed {
        Ok(removed) => eprintln!(
            "amnesia: removed {} container(s) and {} local server folder(s)",
            removed.containers, removed.folders
        ),
        Err(e) => eprintln!("amnesia: could not clean up ({e}): the next run's start will"),
    }
    std::process::exit(128 + signal as i32)
}

/// What an interrupt removed.
struct Removed {
    containers: usize,
    folders: usize,
}

/// This process's containers (on the engine, if one answers) and local servers.
async fn remove_mine() -> Removed {
    let mine = Whose::Mine(Owner::current());
    let containers = match crate::real::docker::engine().await {
        Ok(docker) => crate::real::docker::remove_containers(&docker, mine).await,
        Err(_) => 0,
    };
    Removed {
        containers,
        folders: remove_local(mine),
    }
}
