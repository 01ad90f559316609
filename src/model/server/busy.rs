//! Answering a connection while a script holds the node, past `busy-reply-threshold`
//! (Redis's `processEventsWhileBlocked` during a script, and `processCommand`'s checks in
//! their order): BUSY to what Redis refuses then, SCRIPT KILL and SHUTDOWN NOSAVE passed
//! to the script (through `state::script_watch`), and the allowed commands that need only
//! the connection's own state (MULTI, DISCARD, WATCH, UNWATCH, QUIT, queueing inside
//! MULTI). Only `amnesia serve-model` gets here: in a simulation a script never holds the
//! node across connections.
//!
//! What differs from Redis 7.0.15: WATCH and UNWATCH are answered at once but take effect
//! when the connection next holds the node (`deferred_while_busy`), so a watched key that
//! the busy script writes afterwards does not fail the transaction; AUTH, HELLO, RESET,
//! FUNCTION and a subcommand the model lacks wait for the script to end, as does a
//! command past `DEFERRED_MAX` deferred ones.

use crate::model::commands::table::{self, Command, Flags};
use crate::model::protocol::args::{arity_error, is};
use crate::model::protocol::client::ClientState;
use crate::model::protocol::reply::Reply;
use crate::model::server::execute::{allowed_while_busy, unknown_command, BUSY};
use crate::model::state::node::{Node, NOTBUSY, UNKILLABLE};
use crate::model::state::script_watch::{KillRefusal, ScriptWatch};
use bytes::Bytes;

/// WATCH/UNWATCH commands a connection may defer; past this it waits for the node.
const DEFERRED_MAX: usize = 1_000;

/// What the connection does after a busy answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum After {
    Continue,
    /// QUIT: close once the reply is written.
    Close,
    /// SHUTDOWN NOSAVE: the server stops (no reply, as Redis exits).
    Shutdown,
}

/// A request answered without the node.
#[derive(Debug)]
pub(crate) struct BusyAnswer {
    /// `None` for SHUTDOWN NOSAVE, whose connection just closes.
    pub reply: Option<Reply>,
    pub after: After,
}

fn reply(reply: Reply) -> Option<BusyAnswer> {
    Some(BusyAnswer {
        reply: Some(reply),
        after: After::Continue,
    })
}

/// A refused command inside MULTI makes EXEC fail (Redis's `flagTransaction`).
fn reject(client: &mut ClientState, error: Reply) -> Option<BusyAnswer> {
    if client.in_multi() {
        client.queue_failed = true;
    }
    reply(error)
}

/// Answer `args` of `client` while a script holds the node; `None` when the request
/// needs the node and must wait for the script to end.
pub(crate) fn answer(
    watch: &ScriptWatch,
    client: &mut ClientState,
    args: &[Bytes],
) -> Option<BusyAnswer> {
    assert!(
        !args.is_empty(),
        "the decoder never yields an empty request"
    );
    if client.deferred_while_busy.len() >= DEFERRED_MAX {
        return None;
    }
    if is(&args[0], "shutdown") {
        return shutdown(watch, client, args); // not in the model's table
    }
    let Some(command) = table::lookup(&args[0]) else {
        return reject(client, unknown_command(args));
    };
    if !command.arity_ok(args.len()) {
        return reject(client, arity_error(command.name));
    }
    if table::subcommand_rejection(command, args, true).is_some() {
        return None; // the node's own error text, once it is free
    }
    if !client.authenticated && !command.flags.contains(Flags::NO_AUTH) {
        return reject(client, Reply::error("NOAUTH Authentication required."));
    }
    if !allowed_while_busy(command, args) {
        return refuse_busy(client, command);
    }
    if client.in_multi() && !command.flags.contains(Flags::TX_CONTROL) {
        client
            .queued
            .as_mut()
            .expect("in multi")
            .push(args.to_vec());
        return reply(Reply::status("QUEUED"));
    }
    run_allowed(watch, client, command, args)
}

/// BUSY, and for EXEC the transaction discarded (Redis's `rejectCommand` calling
/// `execCommandAbort`).
fn refuse_busy(client: &mut ClientState, command: &Command) -> Option<BusyAnswer> {
    if command.name != "exec" {
        return reject(client, Reply::error(BUSY));
    }
    client.end_multi();
    client
        .deferred_while_busy
        .push(vec![Bytes::from_static(b"UNWATCH")]);
    let text = format!("EXECABORT Transaction discarded because of: {BUSY}");
    reply(Reply::Error(text))
}

/// The allowed commands the connection's own state answers.
fn run_allowed(
    watch: &ScriptWatch,
    client: &mut ClientState,
    command: &Command,
    args: &[Bytes],
) -> Option<BusyAnswer> {
    match command.name {
        "script" => reply(match watch.request_kill() {
            Ok(()) => Reply::ok(),
            Err(KillRefusal::NotBusy) => Reply::error(NOTBUSY),
            Err(KillRefusal::Unkillable) => Reply::error(UNKILLABLE),
        }),
        "quit" => Some(BusyAnswer {
            reply: Some(Reply::ok()),
            after: After::Close,
        }),
        "multi" if client.in_multi() => reply(Reply::error("ERR MULTI calls can not be nested")),
        "multi" => {
            client.queued = Some(Vec::new());
            reply(Reply::ok())
        }
        "discard" if !client.in_multi() => reply(Reply::error("ERR DISCARD without MULTI")),
        "discard" => {
            client.end_multi();
            client
                .deferred_while_busy
                .push(vec![Bytes::from_static(b"UNWATCH")]);
            reply(Reply::ok())
        }
        "watch" if client.in_multi() => {
            reply(Reply::error("ERR WATCH inside MULTI is not allowed"))
        }
        "watch" | "unwatch" => {
            client.deferred_while_busy.push(args.to_vec());
            reply(Reply::ok())
        }
        _ => None, // AUTH, HELLO, RESET: they need the node
    }
}

/// SHUTDOWN while busy: with NOSAVE the script is stopped and the server exits; without
/// it, BUSY (Redis's `shutdownCommand`); inside MULTI it is refused (`no-multi`).
fn shutdown(watch: &ScriptWatch, client: &mut ClientState, args: &[Bytes]) -> Option<BusyAnswer> {
    if client.in_multi() {
        let error = Reply::error("ERR Command not allowed inside a transaction");
        return reject(client, error);
    }
    if !args[1..].iter().any(|arg| is(arg, "nosave")) {
        return reply(Reply::error(BUSY));
    }
    watch.force_stop();
    Some(BusyAnswer {
        reply: None,
        after: After::Shutdown,
    })
}

impl Node {
    /// Apply the WATCH and UNWATCH a connection was answered while a script held the node.
    pub(crate) fn apply_deferred(&mut self, client: &mut ClientState, now_ms: u64) {
        for args in std::mem::take(&mut client.deferred_while_busy) {
            if is(&args[0], "watch") {
                for key in &args[1..] {
                    self.watch(client, key.clone(), now_ms);
                }
            } else {
                self.unwatch_all(client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<Bytes> {
        line.split(' ')
            .map(|a| Bytes::copy_from_slice(a.as_bytes()))
            .collect()
    }

    fn answered(watch: &ScriptWatch, client: &mut ClientState, line: &str) -> Reply {
        let answer = answer(watch, client, &args(line)).expect("answered without the node");
        answer.reply.expect("a reply")
    }

    #[test]
    fn busy_answers_in_redis_order() {
        let watch = ScriptWatch::default();
        let _running = watch.begin(0, 0);
        let mut client = ClientState::new(1, true);
        assert_eq!(answered(&watch, &mut client, "GET k"), Reply::error(BUSY));
        let unknown = answered(&watch, &mut client, "NOSUCH a");
        assert!(matches!(unknown, Reply::Error(e) if e.starts_with("ERR unknown command")));
        assert_eq!(answered(&watch, &mut client, "MULTI"), Reply::ok());
        assert_eq!(answered(&watch, &mut client, "GET k"), Reply::error(BUSY));
        assert_eq!(
            answered(&watch, &mut client, "UNWATCH"),
            Reply::status("QUEUED")
        );
        let abort = answered(&watch, &mut client, "EXEC");
        assert!(matches!(abort, Reply::Error(e) if e.starts_with("EXECABORT ")));
        assert!(!client.in_multi());
        assert_eq!(answered(&watch, &mut client, "WATCH k"), Reply::ok());
        assert_eq!(client.deferred_while_busy.len(), 2, "EXEC's UNWATCH, WATCH");
        assert!(answer(&watch, &mut client, &args("HELLO 3")).is_none());
        assert_eq!(
            answered(&watch, &mut client, "SHUTDOWN"),
            Reply::error(BUSY)
        );
        assert_eq!(answered(&watch, &mut client, "SCRIPT KILL"), Reply::ok());
        assert!(watch.stop_requested());
    }

    #[test]
    fn a_script_that_wrote_is_unkillable_but_shutdown_nosave_stops_it() {
        let watch = ScriptWatch::default();
        let _running = watch.begin(0, 0);
        watch.note_write();
        let mut client = ClientState::new(1, true);
        assert_eq!(
            answered(&watch, &mut client, "SCRIPT KILL"),
            Reply::error(UNKILLABLE)
        );
        let shutdown = answer(&watch, &mut client, &args("SHUTDOWN NOSAVE")).expect("answered");
        assert_eq!((shutdown.reply, shutdown.after), (None, After::Shutdown));
        assert!(watch.stop_requested());
    }
}
