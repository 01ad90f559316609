//! One Redis node's state and the single place commands execute: lookup, arity, auth,
//! transaction queueing, WATCH invalidation and the append-only log. Execution is
//! synchronous and takes the time as an argument, so it is atomic (Redis is
//! single-threaded) and replayable.

use crate::model::protocol::args::{arity_error, is};
use crate::model::state::blocked::{Blocked, Waiter};
use crate::model::protocol::client::ClientState;
use crate::model::setup::params::InertParams;
use crate::model::commands::table::{self, Command, Flags};
use crate::model::setup::config::ModelConfig;
use crate::model::data::keyspace::Db;
use crate::model::persistence::aof::{Aof, AofEntry};
use crate::model::protocol::reply::Reply;
use crate::model::state::script_cache::ScriptState;
use crate::model::state::script_cache::StoppedScript;
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
    clock_ms: u64,
    scan_cursors: VecDeque<(u64, usize, Bytes)>,
    next_scan_cursor: u64,
    /// A fault: the next data command gets this error reply instead of running.
    injected_error: Option<String>,
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
    /// The script cache and `math.random`'s generator (`model::script`); a restart
    /// starts them afresh, as a restarted Redis does.
    pub(crate) scripting: ScriptState,
}

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
    pub restarts: u64,
    /// When the node last started, on its clock (INFO's uptime).
    pub started_ms: u64,
    /// Error replies by their first word (`ERR`, `WRONGTYPE`, ...), for INFO errorstats.
    pub error_replies: std::collections::BTreeMap<String, u64>,
}

/// Distinct error prefixes INFO errorstats counts; later ones are counted under the
/// last (Redis bounds its table at 128 too).
pub const ERROR_PREFIXES_MAX: usize = 128;

/// What executing one request produced.
#[derive(Debug)]
pub struct Execution {
    pub reply: Reply,
    /// The connection must be closed after the reply is written (QUIT).
    pub close: bool,
    /// The command blocked (BLPOP on empty keys): `reply` is not to be sent; the
    /// connection waits for [`Node::take_served`] or its deadline
    /// ([`Node::block_deadline_ms`], then [`Node::time_out`]).
    pub blocked: bool,
}

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

/// Redis's answer to a command while a script is busy.
const BUSY: &str =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

/// The commands Redis runs while a script is busy (`CMD_ALLOW_BUSY`).
fn allowed_while_busy(command: &Command, args: &[Bytes]) -> bool {
    match command.name {
        "auth" | "hello" | "quit" | "reset" | "multi" | "discard" | "watch" | "unwatch" => true,
        "script" => args.get(1).is_some_and(|sub| is(sub, "kill")),
        _ => false,
    }
}

/// A blocking command's request to wait.
#[derive(Debug)]
pub(crate) struct BlockRequest {
    pub keys: Vec<Bytes>,
    pub deadline_ms: Option<u64>,
}

/// Everything a command handler may touch.
pub struct Ctx<'a> {
    pub node: &'a mut Node,
    pub client: &'a mut ClientState,
    pub now_ms: u64,
    /// What the append-only log records for this command: itself, unless the handler
    /// names the deterministic commands with its effect (SPOP logs SREM, as Redis does).
    pub(crate) effects: Effects,
    /// The command changed data no key change shows (SWAPDB): log it anyway.
    pub(crate) dirty: bool,
    /// A blocking command may block here (not inside MULTI, a script or a replay).
    pub(crate) may_block: bool,
    /// Set by a blocking command that found no data.
    pub(crate) block: Option<BlockRequest>,
}

/// What a command that modified data writes to the append-only log.
#[derive(Debug, Default)]
pub(crate) enum Effects {
    /// The command itself: replaying it at the same time reproduces its effect.
    #[default]
    Verbatim,
    /// These commands instead (none when the effect needs no replay).
    Replaced(Vec<Vec<Bytes>>),
}

impl Effects {
    /// The commands to log for `args`.
    pub(crate) fn commands(self, args: &[Bytes]) -> Vec<Vec<Bytes>> {
        match self {
            Effects::Verbatim => vec![args.to_vec()],
            Effects::Replaced(commands) => commands,
        }
    }
}

/// What running one command's handler produced.
pub(crate) struct Ran {
    pub reply: Reply,
    pub effects: Effects,
    /// See [`Ctx::mark_dirty`].
    pub dirty: bool,
    pub block: Option<BlockRequest>,
}

impl Ctx<'_> {
    /// The client's selected database.
    pub fn db(&mut self) -> &mut Db {
        let index = self.client.db;
        &mut self.node.dbs[index]
    }

    /// Log `commands` instead of the command being run (its effect, deterministically).
    pub(crate) fn propagate(&mut self, commands: Vec<Vec<Bytes>>) {
        self.effects = Effects::Replaced(commands);
    }

    /// The command changed data without changing a key (SWAPDB): it is logged anyway.
    pub(crate) fn mark_dirty(&mut self) {
        self.dirty = true;
    }
}

/// A command line of static words and arguments, for [`Ctx::propagate`].
pub(crate) fn command_line<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> Vec<Bytes> {
    parts.into_iter().map(Bytes::copy_from_slice).collect()
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
        Self {
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
        }
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
    /// first, up to a bound; see `cmd::scripting`.
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

    fn block(&mut self, client: &ClientState, args: Vec<Bytes>, request: BlockRequest) {
        let waiter = Waiter {
            db: client.db,
            keys: request.keys,
            args,
            protocol: client.protocol,
            deadline_ms: request.deadline_ms,
            served: None,
        };
        self.blocked.block(client.id, waiter);
    }

    /// Serve blocked clients from the keys the last command made ready, oldest waiter
    /// first, until no ready key is left (Redis's `handleClientsBlockedOnKeys`).
    fn serve_blocked(&mut self, now_ms: u64) {
        while let Some((db, key)) = self.blocked.next_ready() {
            for id in self.blocked.waiting_on(db, &key) {
                let waiter = self.blocked.waiter(id).expect("waiting");
                let (args, protocol) = (waiter.args.clone(), waiter.protocol);
                let mut client = ClientState::new(id, true);
                client.db = db;
                client.protocol = protocol;
                let mut ctx = Ctx {
                    node: self,
                    client: &mut client,
                    now_ms,
                    effects: Effects::Verbatim,
                    dirty: false,
                    may_block: false,
                    block: None,
                };
                let served = crate::model::commands::cmd::blocking::serve_ready(&mut ctx, &args, &key);
                let effects = ctx.effects;
                let Some(reply) = served else {
                    continue;
                };
                self.blocked.serve(id, reply);
                if self.settle_modifications(now_ms) {
                    let commands = effects.commands(&args);
                    let entry = AofEntry {
                        db,
                        at_ms: now_ms,
                        commands,
                    };
                    self.aof.append(entry, &self.dbs);
                }
            }
        }
    }

    /// SCRIPT KILL: stop a busy script that has not written; its caller gets the
    /// killed-script error.
    pub(crate) fn kill_script(&mut self) -> Result<Reply, Reply> {
        let Some(busy) = &self.busy_script else {
            return Err(Reply::error("NOTBUSY No scripts in execution right now."));
        };
        if busy.wrote {
            return Err(Reply::error(
                "UNKILLABLE Sorry the script already executed write commands against the \
                 dataset. You can either wait the script termination or kill the server in a \
                 hard way using the SHUTDOWN NOSAVE command.",
            ));
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

    /// End a blocked client's wait at its deadline: its served reply if it was served
    /// meanwhile, else the timeout reply.
    pub fn time_out(&mut self, client: &ClientState) -> Reply {
        if let Some(reply) = self.blocked.take_served(client.id) {
            return reply;
        }
        self.blocked.remove(client.id).expect("a blocked client");
        crate::model::commands::cmd::blocking::timeout_reply()
    }

    /// Execute one request of `client` at `now_ms`.
    pub fn execute(
        &mut self,
        client: &mut ClientState,
        args: Vec<Bytes>,
        now_ms: u64,
    ) -> Execution {
        self.clock_ms = self.clock_ms.max(now_ms);
        let execution = self.execute_request(client, args, now_ms);
        self.count_errors(&execution.reply);
        execution
    }

    /// Count the error replies in `reply` (EXEC's too) by their first word.
    fn count_errors(&mut self, reply: &Reply) {
        let errors: Vec<&String> = match reply {
            Reply::Error(text) => vec![text],
            Reply::Array(items) => items
                .iter()
                .filter_map(|r| match r {
                    Reply::Error(text) => Some(text),
                    _ => None,
                })
                .collect(),
            _ => return,
        };
        for text in errors {
            let prefix = text.split(' ').next().unwrap_or("ERR");
            let table = &mut self.stats.error_replies;
            let known = table.contains_key(prefix);
            let key = if known || table.len() < ERROR_PREFIXES_MAX {
                prefix.to_string()
            } else {
                table.keys().next_back().expect("full").clone()
            };
            *table.entry(key).or_insert(0) += 1;
        }
    }

    fn execute_request(
        &mut self,
        client: &mut ClientState,
        args: Vec<Bytes>,
        now_ms: u64,
    ) -> Execution {
        assert!(
            !args.is_empty(),
            "the request decoder never yields an empty command"
        );
        self.stats.commands_processed += 1;
        let command = match self.admit(client, &args) {
            Ok(command) => command,
            Err(rejected) => return rejected,
        };
        if client.in_multi() && !command.flags.contains(Flags::TX_CONTROL) {
            client.queued.as_mut().expect("in multi").push(args);
            return Execution {
                reply: Reply::status("QUEUED"),
                close: false,
                blocked: false,
            };
        }
        let db_before = client.db;
        let may_block = !self.blocked.is_full();
        let Ran {
            reply,
            effects,
            dirty,
            block,
        } = self.run_with(command, client, &args, now_ms, may_block);
        if let Some(block) = block {
            // A busy script's writes touch watched keys at once, though nothing logs them.
            self.settle_modifications(now_ms);
            self.block(client, args, block);
            return Execution {
                reply,
                close: false,
                blocked: true,
            };
        }
        let modified = self.settle_modifications(now_ms) || dirty;
        if modified && command.flags.contains(Flags::WRITE) {
            let commands = effects.commands(&args);
            if !commands.is_empty() {
                let entry = AofEntry {
                    db: db_before,
                    at_ms: now_ms,
                    commands,
                };
                self.aof.append(entry, &self.dbs);
            }
        }
        self.serve_blocked(now_ms);
        let close = command.flags.contains(Flags::CLOSES) && !reply.is_error();
        Execution {
            reply,
            close,
            blocked: false,
        }
    }

    /// The checks a request passes before it runs or is queued, in Redis's order: a known
    /// command, its arity and subcommand, authentication, a busy script, an injected
    /// error. Apart from `execute_request` so the gate reads as one list; the error is the
    /// rejection's `Execution`.
    fn admit(
        &mut self,
        client: &mut ClientState,
        args: &[Bytes],
    ) -> Result<&'static Command, Execution> {
        let Some(command) = table::lookup(&args[0]) else {
            return Err(self.reject(client, unknown_command(args)));
        };
        if !command.arity_ok(args.len()) {
            return Err(self.reject_command(client, command, arity_error(command.name)));
        }
        if let Some(rejection) =
            table::subcommand_rejection(command, args, self.config.client_commands_7_2)
        {
            return Err(self.reject_command(client, command, rejection));
        }
        if !client.authenticated && !command.flags.contains(Flags::NO_AUTH) {
            let reply = Reply::error("NOAUTH Authentication required.");
            return Err(self.reject_command(client, command, reply));
        }
        if self.busy_script.is_some() && !allowed_while_busy(command, args) {
            return Err(self.reject_command(client, command, Reply::error(BUSY)));
        }
        if command.flags.contains(Flags::DATA) {
            if let Some(error) = self.injected_error.take() {
                return Err(self.reject(client, Reply::Error(error)));
            }
        }
        Ok(command)
    }

    /// Run a command's handler, flattening its result. A blocking command does not
    /// block (MULTI, scripts, replay).
    pub(crate) fn run(
        &mut self,
        command: &Command,
        client: &mut ClientState,
        args: &[Bytes],
        now_ms: u64,
    ) -> Ran {
        self.run_with(command, client, args, now_ms, false)
    }

    fn run_with(
        &mut self,
        command: &Command,
        client: &mut ClientState,
        args: &[Bytes],
        now_ms: u64,
        may_block: bool,
    ) -> Ran {
        // Redis 7.2's `lookupKey`: the current client's NO-TOUCH spares keys' access
        // times, but for TOUCH itself (a TOUCH inside EXEC touches; one in a script, whose
        // current client ran EVAL, does not: the script's own client never sets this).
        let touch_before = client.no_touch.then(|| {
            let untouched = command.name != "touch";
            let before: Vec<bool> = self.dbs.iter().map(|db| db.untouched).collect();
            self.dbs.iter_mut().for_each(|db| db.untouched = untouched);
            before
        });
        let mut ctx = Ctx {
            node: self,
            client,
            now_ms,
            effects: Effects::Verbatim,
            dirty: false,
            may_block,
            block: None,
        };
        let reply = match (command.handler)(&mut ctx, args) {
            Ok(reply) | Err(reply) => reply,
        };
        let ran = Ran {
            reply,
            effects: ctx.effects,
            dirty: ctx.dirty,
            block: ctx.block,
        };
        if let Some(before) = touch_before {
            self.dbs
                .iter_mut()
                .zip(before)
                .for_each(|(db, untouched)| db.untouched = untouched);
        }
        ran
    }

    /// A rejected EXEC discards the transaction and answers EXECABORT with the reason,
    /// even outside MULTI (Redis's `rejectCommand` calling `execCommandAbort`).
    fn reject_command(
        &mut self,
        client: &mut ClientState,
        command: &Command,
        reply: Reply,
    ) -> Execution {
        let Reply::Error(text) = reply else {
            unreachable!("a rejection is an error")
        };
        if command.name != "exec" {
            return self.reject(client, Reply::Error(text));
        }
        client.end_multi();
        self.unwatch_all(client);
        let reason = text.strip_prefix("ERR ").unwrap_or(&text);
        let text = format!("EXECABORT Transaction discarded because of: {reason}");
        Execution {
            reply: Reply::Error(text),
            close: false,
            blocked: false,
        }
    }

    /// A rejected command inside MULTI makes EXEC fail (Redis's `flagTransaction`).
    fn reject(&mut self, client: &mut ClientState, reply: Reply) -> Execution {
        if client.in_multi() {
            client.queue_failed = true;
        }
        Execution {
            reply,
            close: false,
            blocked: false,
        }
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

    /// One active expiry cycle over every database, plus the `everysec` flush.
    pub fn cycle(&mut self, now_ms: u64) -> usize {
        self.clock_ms = self.clock_ms.max(now_ms);
        let keys_max = self.config.expire_cycle_keys_max;
        // A busy script holds Redis's event loop: no active expiry meanwhile.
        let deleted: usize = if self.active_expire && self.busy_script.is_none() {
            let dbs = self.dbs.iter_mut();
            dbs.map(|db| db.active_expire(now_ms, keys_max)).sum()
        } else {
            0
        };
        self.settle_modifications(now_ms);
        self.aof.tick(now_ms, &self.dbs);
        deleted
    }

    /// The earliest TTL deadline of any database.
    pub fn next_expiry_ms(&self) -> Option<u64> {
        self.dbs.iter().filter_map(Db::next_expiry_ms).min()
    }

    /// Restart the node: the keyspace becomes what the persistence model recovers,
    /// replayed at the times the writes first ran.
    pub fn restart(&mut self) {
        let (dbs, entries) = self.aof.recover();
        self.dbs = dbs;
        self.watches.clear();
        self.blocked.clear();
        self.busy_script = None;
        self.stats.started_ms = self.clock_ms;
        self.scan_cursors.clear();
        self.scripting = ScriptState::default();
        self.stats.restarts += 1;
        for entry in entries {
            self.replay(entry);
        }
        for db in &mut self.dbs {
            db.clear_changes();
        }
    }

    fn replay(&mut self, entry: AofEntry) {
        let mut client = ClientState::new(0, true);
        client.db = entry.db;
        for args in entry.commands {
            if is(&args[0], "MULTI") || is(&args[0], "EXEC") {
                continue; // block markers: the commands between them apply in order
            }
            let command = table::lookup(&args[0]).expect("only known commands are logged");
            self.run(command, &mut client, &args, entry.at_ms);
        }
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

/// Redis's unknown-command error, quoting the name and up to about 128 bytes of arguments.
fn unknown_command(args: &[Bytes]) -> Reply {
    let name = String::from_utf8_lossy(&args[0][..args[0].len().min(128)]).into_owned();
    let mut quoted = String::new();
    for arg in &args[1..] {
        if quoted.len() >= 128 {
            break;
        }
        // Redis prints each argument with `%s`: it ends at a NUL byte.
        let arg = &arg[..arg.iter().position(|&b| b == 0).unwrap_or(arg.len())];
        let shown = &arg[..arg.len().min(128 - quoted.len())];
        quoted.push_str(&format!("'{}' ", String::from_utf8_lossy(shown)));
    }
    let text = format!("ERR unknown command '{name}', with args beginning with: {quoted}");
    Reply::Error(text.replace(['\r', '\n'], " "))
}
