//! What survives a restart: an append-only log of applied writes, flushed per the
//! configured policy, compacted into a snapshot once it grows.
//!
//! Writes are logged with the time they ran at, so replaying them reproduces relative
//! TTLs (`EXPIRE k 10`) exactly; keys whose TTL passed during the downtime then expire.

use crate::model::data::keyspace::Db;
use crate::model::setup::config::Persistence;
use bytes::Bytes;

/// One logged write: a command, or a whole MULTI/EXEC block, with its database and time.
#[derive(Clone, Debug)]
pub struct AofEntry {
    pub db: usize,
    pub at_ms: u64,
    pub commands: Vec<Vec<Bytes>>,
}

/// The durable state of a node.
#[derive(Clone, Debug)]
pub struct Aof {
    mode: Persistence,
    snapshot: Vec<Db>,
    log: Vec<AofEntry>,
    /// Entries `log[..synced_len]` are on disk.
    synced_len: usize,
    synced_at_ms: u64,
    rewrite_len_min: usize,
}

/// What a crash at this moment would keep of the writes applied so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durable {
    /// Nothing (no persistence).
    Nothing,
    /// The writes applied before the last fsync, which ran at `at_ms` of the node's clock
    /// (writes of that same millisecond may be on either side of it).
    SyncedAt { at_ms: u64 },
    /// Every applied write (fsync after each).
    Everything,
}

/// The second between `everysec` flushes.
pub const EVERYSEC_INTERVAL_MS: u64 = 1_000;

impl Aof {
    pub fn new(mode: Persistence, databases: usize, rewrite_len_min: usize, now_ms: u64) -> Self {
        Self {
            mode,
            snapshot: vec![Db::default(); databases],
            log: Vec::new(),
            synced_len: 0,
            synced_at_ms: now_ms,
            rewrite_len_min,
        }
    }

    pub fn mode(&self) -> Persistence {
        self.mode
    }

    /// Switch to `mode` at runtime (CONFIG SET). Starting a log makes the current
    /// dataset its synced snapshot; stopping it drops everything; changing the fsync
    /// policy keeps the log and, for `always`, flushes it now.
    pub fn reconfigure(&mut self, mode: Persistence, dbs: &[Db], now_ms: u64) {
        let was = self.mode;
        self.mode = mode;
        match (was, mode) {
            (_, Persistence::None) => {
                self.snapshot = vec![Db::default(); dbs.len()];
                self.log.clear();
                self.synced_len = 0;
            }
            (Persistence::None, _) => {
                self.snapshot = dbs.to_vec();
                self.log.clear();
                self.synced_len = 0;
                self.synced_at_ms = now_ms;
            }
            (_, Persistence::AofAlways) => self.sync(dbs),
            _ => {}
        }
    }

    /// Record an applied write.
    pub fn append(&mut self, entry: AofEntry, dbs: &[Db]) {
        if self.mode == Persistence::None {
            return;
        }
        self.log.push(entry);
        if self.mode == Persistence::AofAlways {
            self.sync(dbs);
        }
    }

    /// The `everysec` flush, called from the server's periodic cycle.
    pub fn tick(&mut self, now_ms: u64, dbs: &[Db]) {
        if self.mode == Persistence::AofEverysec
            && now_ms >= self.synced_at_ms + EVERYSEC_INTERVAL_MS
        {
            self.synced_at_ms = now_ms;
            self.sync(dbs);
        }
    }

    fn sync(&mut self, dbs: &[Db]) {
        self.synced_len = self.log.len();
        if self.log.len() >= self.rewrite_len_min {
            // The log is fully on disk and `dbs` is its result: rewrite it as a snapshot.
            self.snapshot = dbs.to_vec();
            self.log.clear();
            self.synced_len = 0;
        }
    }

    /// What a restart starts from: the snapshot and the flushed log entries to replay.
    /// Unflushed entries are lost.
    pub fn recover(&mut self) -> (Vec<Db>, Vec<AofEntry>) {
        self.log.truncate(self.synced_len);
        match self.mode {
            Persistence::None => (vec![Db::default(); self.snapshot.len()], Vec::new()),
            _ => (self.snapshot.clone(), self.log.clone()),
        }
    }

    /// What a crash now would keep: the durable point.
    pub fn durable(&self) -> Durable {
        match self.mode {
            Persistence::None => Durable::Nothing,
            Persistence::AofEverysec => Durable::SyncedAt {
                at_ms: self.synced_at_ms,
            },
            Persistence::AofAlways => Durable::Everything,
        }
    }

    /// Entries not yet flushed (lost by a restart now).
    pub fn unsynced_len(&self) -> usize {
        self.log.len() - self.synced_len
    }
}
