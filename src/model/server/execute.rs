//! The single place requests execute: lookup, arity, auth, a busy script, transaction
//! queueing, blocking and serving blocked clients, error counting and the append-only log;
//! then the expiry cycle and a restart's replay. Execution is synchronous and takes the
//! time as an argument, so it is atomic (Redis is single-threaded) and replayable.

use crate::model::commands::dispatch::Ran;
use crate::model::commands::table::{self, Command, Flags};
use crate::model::persistence::aof::AofEntry;
use crate::model::protocol::args::{arity_error, is};
use crate::model::protocol::client::ClientState;
use crate::model::protocol::reply::Reply;
use crate::model::state::blocked::Waiter;
use crate::model::state::ctx::{BlockRequest, Ctx, Effects};
use crate::model::state::node::{Node, ERROR_PREFIXES_MAX};
use crate::model::state::script_cache::ScriptState;
use bytes::Bytes;

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

/// Redis's answer to a command while a script is busy.
pub(crate) const BUSY: &str =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

/// The commands Redis runs while a script is busy (`CMD_ALLOW_BUSY`).
pub(crate) fn allowed_while_busy(command: &Command, args: &[Bytes]) -> bool {
    match command.name {
        "auth" | "hello" | "quit" | "reset" | "multi" | "discard" | "watch" | "unwatch" => true,
        "script" => args.get(1).is_some_and(|sub| is(sub, "kill")),
        _ => false,
    }
}

impl Node {
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
                let served =
                    crate::model::commands::cmd::blocking::serve_ready(&mut ctx, &args, &key);
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
        // A handler that panics is the model's bug: the command gets an error reply, the
        // node stays usable (no lock is poisoned) and the run reports the panic.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.execute_request(client, args, now_ms)
        }));
        let execution = run.unwrap_or_else(|panic| {
            let text = crate::model_panic::payload_text(panic.as_ref()).to_string();
            crate::model_panic::record(format!("the Redis model panicked: {text}"));
            Execution {
                reply: Reply::Error(format!("ERR amnesia's Redis model failed: {text}")),
                close: false,
                blocked: false,
            }
        });
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
        // Redis evicts before any command when a limit is set, a busy script aside.
        if self.config.maxmemory.bytes > 0 && self.busy_script.is_none() {
            let out_of_memory = self.perform_evictions(self.clock_ms);
            self.oom_before_command = out_of_memory;
            if out_of_memory && refused_on_oom(command, client) {
                return Err(self.reject_command(
                    client,
                    command,
                    Reply::error(crate::model::setup::eviction::OOM),
                ));
            }
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
        self.evict_pool.clear();
        self.apply_maxmemory();
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
}

/// Whether an out-of-memory node refuses `command` (Redis's `processCommand`): a
/// `denyoom` command, an EXEC whose queue holds one, and inside MULTI anything but EXEC,
/// DISCARD, QUIT and RESET (queueing itself takes memory).
fn refused_on_oom(command: &Command, client: &ClientState) -> bool {
    let denyoom = |flags: Flags| flags.contains(Flags::DENYOOM);
    if denyoom(command.flags) {
        return true;
    }
    let Some(queued) = &client.queued else {
        return false;
    };
    if command.name == "exec" {
        let flags_of = |args: &Vec<Bytes>| table::lookup(&args[0]).map(|c| c.flags);
        return queued.iter().filter_map(flags_of).any(denyoom);
    }
    !matches!(command.name, "discard" | "quit" | "reset")
}

/// Redis's unknown-command error, quoting the name and up to about 128 bytes of arguments.
pub(crate) fn unknown_command(args: &[Bytes]) -> Reply {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::setup::config::ModelConfig;

    fn run(node: &mut Node, client: &mut ClientState, args: &[&str]) -> Reply {
        let args = args.iter().map(|a| Bytes::copy_from_slice(a.as_bytes()));
        node.execute(client, args.collect(), 1_000).reply
    }

    #[test]
    fn a_handler_that_panics_answers_an_error_and_the_node_serves_on() {
        crate::model_panic::clear();
        let mut node = Node::new(ModelConfig::default(), 1_000);
        let (mut first, mut second) = (node.connect(), node.connect());
        assert_eq!(run(&mut node, &mut first, &["SET", "k", "v"]), Reply::ok());
        let failed = run(&mut node, &mut first, &["ECHO", "amnesia-test-panic"]);
        assert!(
            matches!(&failed, Reply::Error(text) if text.starts_with("ERR amnesia's Redis model failed")),
            "{failed:?}"
        );
        let value = run(&mut node, &mut second, &["GET", "k"]);
        assert_eq!(value, Reply::Bulk(Bytes::from_static(b"v")));
        let panics = crate::model_panic::take().expect("the panic is reported");
        assert!(panics.contains("amnesia-test-panic"), "{panics}");
    }

    #[test]
    fn debug_sleep_takes_no_time_in_a_simulation() {
        let mut node = Node::new(ModelConfig::default(), 1_000);
        let mut client = node.connect();
        let started = std::time::Instant::now();
        assert_eq!(
            run(&mut node, &mut client, &["DEBUG", "SLEEP", "5"]),
            Reply::ok()
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }
}
