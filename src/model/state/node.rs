//! One Redis node's state, shared by all its connections: the databases, the append-only
//! log, watches, blocked clients, a busy script, counters, the random stream and the script
//! cache, with the operations on it that command handlers call (WATCH, SCAN cursors,
//! SCRIPT KILL, settling what a command modified, logging a transaction). How the node
//! executes a request is `server::execute`; how a command runs, `commands::dispatch`.

use crate::model::data::keyspace::Db;
use crate::model::persistence::aof::{Aof, AofEntry};
use crate::model::protocol::client::ClientState;
use crate::model::protocol::reply::Reply;
use crate::model::setup::config::ModelConfig;
use crate::model::setup::params::InertParams;
use crate::model::state::blocked::Blocked;
use crate::model::state::script_cache::{ScriptState, StoppedScript};
use crate::model::state::watch::Watches;
use bytes::Bytes;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Open SCAN cursors remembered per node; older ones restart from the beginning.
const SCAN_CURSORS_MAX: usize = 1024;

/// The state of a Redis node shared by all its connections.
#[derive(Debug)]
pub struct Node {
    pub config: ModelConfig,
    pub dbs: Vec<Db>,
    pub aof: Aof,
    next_client_id: u64,
    pub(crate) watches: Watches,
    pub(crate) blocked: Blocked,
    /// A script Redis would still be running (see [`BusyScript`]).
    pub(crate) busy_script: Option<BusyScript>,
    /// The latest time a command or cycle ran at (what a restart stamps its start with).
    pub(crate) clock_ms: u64,
    pub(crate) scan_cursors: VecDeque<(u64, usize, Bytes)>,
    next_scan_cursor: u64,
    /// A fault: the next data command gets this error reply instead of running.
    pub(crate) injected_error: Option<String>,
    pub stats: NodeStats,
    /// Every key deleted by expiry (lazy or active), in order, up to
    /// `EXPIRED_LOG_MAX`: what the simulator's page marks on the Redis lane.
    pub expired_log: Vec<ExpiredKey>,
    /// Every random choice (SPOP, SRANDMEMBER, RANDOMKEY, ...) draws from this stream,
    /// seeded by the configuration: a seed's replies are its own.
    pub(crate) rng: ChaCha8Rng,
    /// CONFIG parameters the model keeps but does not act on.
    pub(crate) inert_params: InertParams,
    /// `DEBUG SET-ACTIVE-EXPIRE`: the periodic cycle deletes expired keys.
    pub(crate) active_expire: bool,
    /// The script cache and `math.random`'s generator (`state::script_cache`); a restart
    /// starts them afresh, as a restarted Redis does.
    pub(crate) scripting: ScriptState,
    /// Every key deleted by eviction, in order, up to `EVICTED_LOG_MAX`: facts for the
    /// history, like `expired_log`.
    pub evicted_log: Vec<crate::model::setup::eviction::EvictedKey>,
    /// Redis's eviction pool, kept across commands (`state::evict`).
    pub(crate) evict_pool: Vec<crate::model::setup::eviction::Candidate>,
    /// The database the random policies look at next.
    pub(crate) evict_next_db: usize,
    /// `performEvictions` found the node out of memory before this command (Redis's
    /// `pre_command_oom_state`): a script's first `denyoom` call is refused.
    pub(crate) oom_before_command: bool,
    /// The running script as other connections see it without the node's lock
    /// (`state::script_watch`).
    pub(crate) script_watch: std::sync::Arc<crate::model::state::script_watch::ScriptWatch>,
    /// Served on a real clock to real clients (`amnesia serve-model`): a script has no
    /// instruction budget and no memory bound (it runs, off the event loop, until it ends
    /// or SCRIPT KILL stops it; other clients get BUSY past `busy-reply-threshold`), and
    /// DEBUG SLEEP sleeps. Off in a simulation, where time is virtual and a script's run
    /// is bounded in instructions.
    pub(crate) real_time: bool,
}

/// SCRIPT KILL's answer when no script runs.
pub(crate) const NOTBUSY: &str = "NOTBUSY No scripts in execution right now.";
/// SCRIPT KILL's answer when the running script wrote.
pub(crate) const UNKILLABLE: &str = "UNKILLABLE Sorry the script already executed write \
    commands against the dataset. You can either wait the script termination or kill the \
    server in a hard way using the SHUTDOWN NOSAVE command.";

/// Redis's default `busy-reply-threshold`.
pub(crate) const BUSY_REPLY_THRESHOLD_DEFAULT_MS: u64 = 5_000;

/// Expired keys a node remembers; later ones are counted in `stats` only.
pub const EXPIRED_LOG_MAX: usize = 100_000;

/// One key deleted by expiry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpiredKey {
    /// When, on the node's clock.
    pub at_ms: u64,
    pub db: usize,
    pub key: Bytes,
}

/// Counters for INFO and for the simulator's trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeStats {
    pub commands_processed: u64,
    pub connections_received: u64,
    /// Connections open now.
    pub connected_clients: u64,
    pub expired_keys: u64,
    /// Keys deleted by eviction (INFO stats' `evicted_keys`).
    pub evicted_keys: u64,
    pub restarts: u64,
    /// When the node last started, on its clock (INFO's uptime).
    pub started_ms: u64,
    /// Error replies by their first word (`ERR`, `WRONGTYPE`, ...), for INFO errorstats.
    pub error_replies: std::collections::BTreeMap<String, u64>,
}

/// Distinct error prefixes INFO errorstats counts; later ones are counted under the
/// last (Redis bounds its table at 128 too).
pub const ERROR_PREFIXES_MAX: usize = 128;

/// A script past its time limit (the instruction budget), which Redis would still be
/// running: its caller waits, every other client is answered BUSY.
#[derive(Debug)]
pub(crate) struct BusyScript {
    pub client: u64,
    /// It called a write command: SCRIPT KILL is refused.
    pub wrote: bool,
    /// What its caller gets when SCRIPT KILL stops it.
    pub killed: Reply,
}

impl Node {
    pub fn new(config: ModelConfig, now_ms: u64) -> Self {
        config.validate().expect("a valid model configuration");
        let aof = Aof::new(
            config.persistence,
            config.databases,
            config.aof_rewrite_commands_min,
            now_ms,
        );
        let mut node = Self {
            dbs: vec![Db::default(); config.databases],
            aof,
            rng: ChaCha8Rng::seed_from_u64(config.random_seed),
            inert_params: InertParams::new(config.persistence),
            active_expire: true,
            config,
            next_client_id: 1,
            watches: Watches::default(),
            blocked: Blocked::default(),
            busy_script: None,
            scan_cursors: VecDeque::new(),
            next_scan_cursor: 1,
            injected_error: None,
            expired_log: Vec::new(),
            stats: NodeStats {
                started_ms: now_ms,
                ..NodeStats::default()
            },
            clock_ms: now_ms,
            scripting: ScriptState::default(),
            evicted_log: Vec::new(),
            evict_pool: Vec::new(),
            evict_next_db: 0,
            oom_before_command: false,
            script_watch: Default::default(),
            real_time: false,
        };
        node.apply_maxmemory();
        node
    }

    /// Serve on a real clock to real clients (see the `real_time` field).
    pub(crate) fn serve_in_real_time(&mut self) {
        self.real_time = true;
    }

    /// `busy-reply-threshold` (alias `lua-time-limit`), milliseconds: how long a script
    /// runs before other clients are answered BUSY.
    pub(crate) fn busy_reply_threshold_ms(&self) -> u64 {
        let value = self.inert_params.values.get("busy-reply-threshold");
        value
            .and_then(|v| v.parse().ok())
            .unwrap_or(BUSY_REPLY_THRESHOLD_DEFAULT_MS)
    }

    /// Answer the next data command (from any client) with `error` instead of running it,
    /// as Redis answers OOM, LOADING, READONLY or BUSY. Inside MULTI the rejected command
    /// makes EXEC fail, as Redis's own rejections do.
    pub fn inject_error(&mut self, error: &str) {
        self.injected_error = Some(error.to_string());
    }

    /// Drop the injected error if no command has met it yet; true when there was one.
    pub fn withdraw_injected_error(&mut self) -> bool {
        self.injected_error.take().is_some()
    }

    /// The scripts the instruction budget stopped (the model's `lua-time-limit`), oldest
    /// first, up to a bound; see `commands::cmd::scripting`.
    pub fn scripts_stopped(&self) -> &[StoppedScript] {
        &self.scripting.stopped
    }

    /// Register a new connection.
    pub fn connect(&mut self) -> ClientState {
        let id = self.next_client_id;
        self.next_client_id += 1;
        self.stats.connections_received += 1;
        self.stats.connected_clients += 1;
        ClientState::new(id, self.config.password.is_none())
    }

    /// Forget a closed connection's watches.
    pub fn disconnect(&mut self, client: &mut ClientState) {
        self.stats.connected_clients = self.stats.connected_clients.saturating_sub(1);
        self.unwatch_all(client);
        self.blocked.remove(client.id);
    }

    /// SCRIPT KILL: stop a busy script that has not written; its caller gets the
    /// killed-script error.
    pub(crate) fn kill_script(&mut self) -> Result<Reply, Reply> {
        let Some(busy) = &self.busy_script else {
            return Err(Reply::error(NOTBUSY));
        };
        if busy.wrote {
            return Err(Reply::error(UNKILLABLE));
        }
        let busy = self.busy_script.take().expect("checked above");
        if self.blocked.waiter(busy.client).is_some() {
            self.blocked.serve(busy.client, busy.killed);
        }
        Ok(Reply::ok())
    }

    /// The reply a blocked client was served, if it was; it is no longer blocked then.
    pub fn take_served(&mut self, client: &ClientState) -> Option<Reply> {
        self.blocked.take_served(client.id)
    }

    /// When a blocked client's wait ends; `None` for never (or not blocked).
    pub fn block_deadline_ms(&self, client: &ClientState) -> Option<u64> {
        self.blocked.waiter(client.id).and_then(|w| w.deadline_ms)
    }

    /// Drain what the last command modified or expired: invalidate WATCHes and count.
    /// Returns true if any key was modified by the command itself.
    pub(crate) fn settle_modifications(&mut self, now_ms: u64) -> bool {
        let mut modified_any = false;
        for (index, db) in self.dbs.iter_mut().enumerate() {
            let (modified, expired) = (db.modified(), db.expired());
            if modified.is_empty() && expired.is_empty() {
                continue; // most commands touch one database, or none
            }
            self.stats.expired_keys += expired.len() as u64;
            let room = EXPIRED_LOG_MAX.saturating_sub(self.expired_log.len());
            self.expired_log
                .extend(expired.iter().take(room).map(|key| ExpiredKey {
                    at_ms: now_ms,
                    db: index,
                    key: key.clone(),
                }));
            modified_any |= modified.len() > expired.len();
            if !self.watches.is_empty() {
                for touch in modified {
                    self.watches.touch(index, touch);
                }
            }
            if !self.blocked.is_empty() {
                for touch in modified.iter().filter(|t| t.exists_after) {
                    self.blocked.signal(index, &touch.key);
                }
            }
            db.clear_changes();
        }
        modified_any
    }

    pub fn watch(&mut self, client: &mut ClientState, key: Bytes, now_ms: u64) {
        let db = client.db;
        let expired = self.dbs[db].is_logically_expired(&key, now_ms);
        self.watches.watch(client.id, db, key, expired);
    }

    pub fn unwatch_all(&mut self, client: &mut ClientState) {
        self.watches.forget(client.id);
    }

    /// True if EXEC must abort: a watched key changed, or expired since WATCH.
    pub fn watch_broken(&self, client: &ClientState, now_ms: u64) -> bool {
        let dbs = &self.dbs;
        self.watches.broken(client.id, |db, key| {
            dbs[db].is_logically_expired(key, now_ms)
        })
    }

    /// Remember where a SCAN stopped; returns the cursor to hand out.
    pub fn open_scan_cursor(&mut self, db: usize, last_key: Bytes) -> u64 {
        let cursor = self.next_scan_cursor;
        self.next_scan_cursor += 1;
        if self.scan_cursors.len() == SCAN_CURSORS_MAX {
            self.scan_cursors.pop_front();
        }
        self.scan_cursors.push_back((cursor, db, last_key));
        cursor
    }

    /// The key a SCAN cursor stopped after; `None` starts from the beginning.
    pub fn resume_scan_cursor(&self, db: usize, cursor: u64) -> Option<Bytes> {
        self.scan_cursors
            .iter()
            .find(|(id, cursor_db, _)| *id == cursor && *cursor_db == db)
            .map(|(_, _, key)| key.clone())
    }

    /// The earliest TTL deadline of any database.
    pub fn next_expiry_ms(&self) -> Option<u64> {
        self.dbs.iter().filter_map(Db::next_expiry_ms).min()
    }

    /// Apply CONFIG's `appendonly`/`appendfsync`: turning the log on writes the dataset
    /// as its snapshot at once (Redis rewrites the file), turning it off forgets it.
    pub(crate) fn reconfigure_persistence(&mut self, now_ms: u64) {
        let mode = crate::model::setup::params::persistence_of(&self.inert_params);
        self.config.persistence = mode;
        self.aof.reconfigure(mode, &self.dbs, now_ms);
    }

    /// Log a MULTI/EXEC block that modified data, as one atomic entry.
    pub(crate) fn log_transaction(&mut self, db: usize, at_ms: u64, commands: Vec<Vec<Bytes>>) {
        let mut block = Vec::with_capacity(commands.len() + 2);
        block.push(vec![Bytes::from_static(b"MULTI")]);
        block.extend(commands);
        block.push(vec![Bytes::from_static(b"EXEC")]);
        self.aof.append(
            AofEntry {
                db,
                at_ms,
                commands: block,
            },
            &self.dbs,
        );
    }
}
