//! What a node keeps for scripting between commands: the script cache (SHA1 → body, as
//! `SCRIPT LOAD` and `EVAL` fill it), the `math.random` generator, and the scripts
//! stopped by the instruction budget. A restart starts all of it afresh, as a restarted
//! `redis-server` does.

use crate::model::state::rand48::Rand48;
use bytes::Bytes;
use indexmap::IndexMap;

/// Scripts kept at most; beyond that the oldest is forgotten (its EVALSHA answers
/// NOSCRIPT). Redis 7.0 never evicts; a memory store loads a handful of scripts, so
/// only a runaway client that EVALs generated bodies reaches the bound.
pub(crate) const SCRIPTS_MAX: usize = 10_000;
/// Bytes of script bodies kept at most, with the same eviction.
pub(crate) const SCRIPT_BYTES_MAX: usize = 64 << 20;
/// Stopped scripts remembered in [`ScriptState::stopped`]; later ones are only counted.
pub(crate) const STOPPED_LOG_MAX: usize = 1_000;

/// How a script's shebang (`#!lua flags=...`) asks to be run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ScriptFlags {
    /// No shebang: Redis's backwards-compatible mode (writes allowed, flags ignored).
    pub compat: bool,
    pub no_writes: bool,
}

/// One cached script.
#[derive(Clone, Debug)]
pub(crate) struct CachedScript {
    pub body: Bytes,
    /// Bytes of the shebang line, skipped when compiling (its newline is kept, so line
    /// numbers stay the user's).
    pub shebang_len: usize,
    pub flags: ScriptFlags,
}

/// A script the instruction budget stopped (Redis's `lua-time-limit` passing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoppedScript {
    pub sha: String,
    pub at_ms: u64,
    /// It had called a write command: real Redis would have refused SCRIPT KILL
    /// (UNKILLABLE) and stayed BUSY until SHUTDOWN NOSAVE.
    pub wrote: bool,
}

/// The node's scripting state.
#[derive(Debug, Default)]
pub(crate) struct ScriptState {
    scripts: IndexMap<String, CachedScript>,
    bytes: usize,
    pub rand: Rand48,
    pub stopped: Vec<StoppedScript>,
    pub stopped_total: u64,
}

impl ScriptState {
    /// The script with this SHA1 (any case).
    pub(crate) fn get(&self, sha: &str) -> Option<&CachedScript> {
        if sha.bytes().any(|b| b.is_ascii_uppercase()) {
            self.scripts.get(&sha.to_ascii_lowercase())
        } else {
            self.scripts.get(sha)
        }
    }

    pub(crate) fn insert(&mut self, sha: String, script: CachedScript) {
        if self.scripts.contains_key(&sha) {
            return;
        }
        self.bytes += script.body.len();
        self.scripts.insert(sha, script);
        while self.scripts.len() > SCRIPTS_MAX
            || (self.bytes > SCRIPT_BYTES_MAX && self.scripts.len() > 1)
        {
            let (_, oldest) = self.scripts.shift_remove_index(0).expect("not empty");
            self.bytes -= oldest.body.len();
        }
    }

    /// SCRIPT FLUSH: forget every script (the generator goes on, as in Redis).
    pub(crate) fn flush(&mut self) {
        self.scripts.clear();
        self.bytes = 0;
    }

    pub(crate) fn record_stopped(&mut self, stopped: StoppedScript) {
        self.stopped_total += 1;
        if self.stopped.len() < STOPPED_LOG_MAX {
            self.stopped.push(stopped);
        }
    }

    /// Scripts cached now (INFO's `number_of_cached_scripts`).
    pub(crate) fn len(&self) -> usize {
        self.scripts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_scripts_are_evicted_past_the_bound() {
        let mut state = ScriptState::default();
        for i in 0..SCRIPTS_MAX + 5 {
            let script = CachedScript {
                body: Bytes::from(format!("return {i}")),
                shebang_len: 0,
                flags: ScriptFlags::default(),
            };
            state.insert(format!("{i:040}"), script);
        }
        assert_eq!(state.len(), SCRIPTS_MAX);
        assert!(state.get(&format!("{:040}", 0)).is_none());
        assert!(state.get(&format!("{:040}", SCRIPTS_MAX + 4)).is_some());
    }
}
