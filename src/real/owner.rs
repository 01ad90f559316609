//! Who owns what the real tier starts, and the sweep that removes what a dead owner left.
//!
//! Every container carries its owner's pid and start time as labels; every local server's
//! temporary folder holds a file naming its owner and one naming the server's pid. An
//! owner is alive while a process with its pid *and* its start time exists, so a reused
//! pid never keeps a leftover alive. [`remove_local`] removes the local servers and
//! folders of [`Whose`] owners: dead ones at every server start (a run killed by SIGKILL,
//! a test binary that aborted), this process's on an interrupt (`interrupt.rs`, which
//! also removes containers through `docker.rs`). This file reads `/proc` and signals
//! processes; it imports nothing of the real tier.

use std::path::{Path, PathBuf};

/// The file in a local server's folder that names its owner: `pid start_ticks`.
const OWNER_FILE: &str = "amnesia-owner";
/// The file in a local server's folder that names the server's pid (the latest start).
const SERVER_PID_FILE: &str = "amnesia-server.pid";
/// The prefixes of the local servers' folders in the temporary directory.
const FOLDER_PREFIXES: [&str; 2] = ["amnesia-real-", "amnesia-pg-"];
/// The programs a local server's recorded pid may name: another program is never
/// signalled, whatever pid a file says.
const SERVER_PROGRAMS: [&str; 2] = ["redis-server", "postgres"];
/// The most temporary-directory entries one sweep reads.
const SWEEP_ENTRIES_MAX: usize = 100_000;

/// A process by pid and start time (clock ticks after boot, `/proc/PID/stat` field 22).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Owner {
    pub(crate) pid: u32,
    pub(crate) start_ticks: u64,
}

impl Owner {
    /// This process.
    pub(crate) fn current() -> Owner {
        let pid = std::process::id();
        let start_ticks = stat_fields(pid).map_or(0, |fields| fields.start_ticks);
        Owner { pid, start_ticks }
    }

    /// `pid start_ticks`, as the owner file holds it.
    fn to_line(self) -> String {
        format!("{} {}", self.pid, self.start_ticks)
    }

    fn parse(line: &str) -> Option<Owner> {
        let mut words = line.split_whitespace();
        let pid = words.next()?.parse().ok()?;
        let start_ticks = words.next()?.parse().ok()?;
        Some(Owner { pid, start_ticks })
    }

    /// The process still runs (a zombie does not).
    pub(crate) fn is_alive(self) -> bool {
        stat_fields(self.pid).is_some_and(|fields| {
            fields.state != 'Z' && (self.start_ticks == 0 || fields.start_ticks == self.start_ticks)
        })
    }
}

/// What the sweep reads of `/proc/PID/stat`.
struct StatFields {
    state: char,
    parent: u32,
    start_ticks: u64,
}

/// `/proc/PID/stat`'s state, parent and start time; `None` when no such process.
fn stat_fields(pid: u32) -> Option<StatFields> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields follow its last ')'.
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state): field N is fields[N - 3].
    Some(StatFields {
        state: fields.first()?.chars().next()?,
        parent: fields.get(1)?.parse().ok()?,
        start_ticks: fields.get(19)?.parse().ok()?,
    })
}

/// Which owners' leftovers a sweep removes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Whose {
    /// Owners that no longer run.
    Dead,
    /// This process (it is being interrupted).
    Mine(Owner),
}

impl Whose {
    pub(crate) fn takes(self, owner: Owner) -> bool {
        match self {
            Whose::Dead => !owner.is_alive(),
            Whose::Mine(me) => owner == me,
        }
    }
}

/// A local server's folder: created, with the owner file, before the server starts.
pub(crate) fn create_server_folder(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(OWNER_FILE), Owner::current().to_line())
}

/// Record the pid of the server just started in its folder.
pub(crate) fn record_server_pid(dir: &Path, pid: u32) {
    // A folder that cannot take the file loses only the sweep's help, not the run.
    let _ = std::fs::write(dir.join(SERVER_PID_FILE), pid.to_string());
}

/// Remove the local servers (killed with their children) and folders of `whose` owners
/// from the temporary directory. Returns how many folders were removed.
pub(crate) fn remove_local(whose: Whose) -> usize {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return 0;
    };
    let folders: Vec<PathBuf> = entries
        .take(SWEEP_ENTRIES_MAX)
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| is_server_folder(path))
        .collect();
    let mut removed = 0;
    for folder in folders {
        let owner = std::fs::read_to_string(folder.join(OWNER_FILE))
            .ok()
            .and_then(|line| Owner::parse(&line));
        // Folders without an owner file are not known to be amnesia's: left alone.
        if !owner.is_some_and(|owner| whose.takes(owner)) {
            continue;
        }
        kill_recorded_server(&folder);
        if std::fs::remove_dir_all(&folder).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn is_server_folder(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    FOLDER_PREFIXES
        .iter()
        .any(|prefix| name.starts_with(prefix))
        && path.is_dir()
}

/// SIGKILL the server a folder names and its children, if that pid still runs one of the
/// server programs.
fn kill_recorded_server(folder: &Path) {
    let Some(pid) = std::fs::read_to_string(folder.join(SERVER_PID_FILE))
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok())
    else {
        return;
    };
    let program = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    if !SERVER_PROGRAMS.contains(&program.trim()) {
        return;
    }
    let _ = signal_with_children(pid, nix::sys::signal::Signal::SIGKILL);
}

/// Send `signal` to `pid`, then to each of its children: PostgreSQL's backends each call
/// setsid(), so neither a process-group signal nor the parent's death reaches them at
/// once. The children are listed before the parent is signalled (a killed parent's
/// children are adopted by init at once, and would be found no more: a paused, then
/// killed, postmaster left its stopped backends behind) and again after (a child forked
/// meanwhile; a stopped or killed postmaster forks no more). Fails only when `pid`
/// itself cannot be signalled.
pub(crate) fn signal_with_children(pid: u32, signal: nix::sys::signal::Signal) -> nix::Result<()> {
    use nix::sys::signal::kill;
    use nix::unistd::Pid;
    let mut children = children_of(pid);
    kill(Pid::from_raw(pid as i32), signal)?;
    children.extend(children_of(pid));
    children.sort_unstable();
    children.dedup();
    for child in children {
        let _ = kill(Pid::from_raw(child as i32), signal);
    }
    Ok(())
}

/// The processes whose parent is `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&child| stat_fields(child).is_some_and(|fields| fields.parent == pid))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_changed_start_time_is_not() {
        let me = Owner::current();
        assert!(me.start_ticks > 0, "read from /proc");
        assert!(me.is_alive());
        let reused = Owner {
            start_ticks: me.start_ticks + 1,
            ..me
        };
        assert!(!reused.is_alive(), "a reused pid is another process");
        assert_eq!(Owner::parse(&me.to_line()), Some(me));
        assert_eq!(Owner::parse("12"), None);
        assert_eq!(Owner::parse("x 1"), None);
    }

    #[test]
    fn a_paused_then_killed_parent_leaves_no_stopped_child() {
        use nix::sys::signal::Signal;
        let mut parent = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30 & wait"])
            .spawn()
            .unwrap();
        let pid = parent.id();
        let started = std::time::Instant::now();
        while children_of(pid).len() < 2 {
            assert!(
                started.elapsed().as_secs() < 5,
                "the shell forked its sleeps"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let children = children_of(pid);
        signal_with_children(pid, Signal::SIGSTOP).unwrap();
        signal_with_children(pid, Signal::SIGKILL).unwrap();
        parent.wait().unwrap();
        let started = std::time::Instant::now();
        // Adopted by init once the parent died: gone, or a zombie init has yet to reap.
        let ended = |child: &u32| stat_fields(*child).is_none_or(|f| f.state == 'Z');
        while !children.iter().all(ended) && started.elapsed().as_secs() < 5 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let left: Vec<u32> = children.iter().copied().filter(|c| !ended(c)).collect();
        for child in &left {
            // Never leave a stopped process holding the test's output open.
            let _ =
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(*child as i32), Signal::SIGKILL);
        }
        assert!(left.is_empty(), "{left:?} were left stopped");
    }

    #[test]
    fn a_dead_owner_s_folder_is_removed_and_a_live_one_s_kept() {
        let live =
            std::env::temp_dir().join(format!("amnesia-real-test-live-{}", std::process::id()));
        let dead =
            std::env::temp_dir().join(format!("amnesia-real-test-dead-{}", std::process::id()));
        create_server_folder(&live).unwrap();
        std::fs::create_dir_all(&dead).unwrap();
        let gone = Owner {
            pid: u32::MAX - 1,
            start_ticks: 1,
        };
        std::fs::write(dead.join(OWNER_FILE), gone.to_line()).unwrap();
        // A pid that is not a server program is never signalled: this test's own.
        record_server_pid(&dead, std::process::id());
        remove_local(Whose::Dead);
        assert!(live.exists(), "a live owner's folder stays");
        assert!(!dead.exists(), "a dead owner's folder goes");
        remove_local(Whose::Mine(Owner::current()));
        assert!(
            !live.exists(),
            "an interrupt removes this process's folders"
        );
    }
}
