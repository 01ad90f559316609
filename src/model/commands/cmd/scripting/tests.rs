//! Unit tests of the scripting commands for what the differential test cannot show:
//! restarts (the cache emptied, effects replayed from the log), the instruction budget.

use crate::model::protocol::client::ClientState;
use crate::model::protocol::reply::Reply;
use crate::model::script::engine::INSTRUCTIONS_MAX;
use crate::model::setup::config::{ModelConfig, Persistence};
use crate::model::state::node::Node;
use bytes::Bytes;

const NOW_MS: u64 = 1_700_000_000_000;

fn node(persistence: Persistence) -> (Node, ClientState) {
    let config = ModelConfig {
        persistence,
        ..ModelConfig::default()
    };
    let mut node = Node::new(config, NOW_MS);
    let client = node.connect();
    (node, client)
}

fn exec(node: &mut Node, client: &mut ClientState, args: &[&str]) -> Reply {
    let args = args.iter().map(|a| Bytes::copy_from_slice(a.as_bytes()));
    node.execute(client, args.collect(), NOW_MS).reply
}

fn bulk(text: &str) -> Reply {
    Reply::Bulk(Bytes::copy_from_slice(text.as_bytes()))
}

#[test]
fn a_restart_empties_the_script_cache() {
    let (mut node, mut client) = node(Persistence::AofAlways);
    let sha = exec(&mut node, &mut client, &["SCRIPT", "LOAD", "return 7"]);
    let Reply::Bulk(sha) = sha else {
        panic!("SCRIPT LOAD answers the sha: {sha:?}")
    };
    let sha = String::from_utf8(sha.to_vec()).unwrap();
    assert_eq!(
        exec(&mut node, &mut client, &["EVALSHA", &sha, "0"]),
        Reply::Integer(7)
    );
    node.restart();
    let mut client = node.connect();
    assert_eq!(
        exec(&mut node, &mut client, &["EVALSHA", &sha, "0"]),
        Reply::error("NOSCRIPT No matching script. Please use EVAL.")
    );
    assert_eq!(
        exec(&mut node, &mut client, &["SCRIPT", "EXISTS", &sha]),
        Reply::Array(vec![Reply::Integer(0)])
    );
}

#[test]
fn a_scripts_writes_are_logged_as_effects_and_replayed() {
    let (mut node, mut client) = node(Persistence::AofAlways);
    let script = "redis.call('set', KEYS[1], ARGV[1]) \
                  redis.call('select', 2) \
                  redis.call('rpush', KEYS[2], math.random(1000000)) \
                  redis.call('get', KEYS[1]) \
                  return redis.call('lrange', KEYS[2], 0, -1)";
    let reply = exec(
        &mut node,
        &mut client,
        &["EVAL", script, "2", "k", "l", "v"],
    );
    let Reply::Array(drawn) = reply else {
        panic!("{reply:?}")
    };
    // A read-only script and a failed one log nothing; a partial one logs its writes.
    exec(
        &mut node,
        &mut client,
        &["EVAL", "return redis.call('get','k')", "0"],
    );
    exec(
        &mut node,
        &mut client,
        &["EVAL", "redis.call('incr','n') error('late')", "0"],
    );
    // The log holds the script's commands, not the script: replay runs no Lua (and so
    // draws no random number: the list keeps the value drawn the first time).
    let (_, entries) = node.aof.clone().recover();
    let logged: Vec<Vec<Bytes>> = entries.into_iter().flat_map(|e| e.commands).collect();
    assert!(logged.iter().all(|c| !c[0].eq_ignore_ascii_case(b"eval")));
    node.restart();
    let mut client = node.connect();
    assert_eq!(exec(&mut node, &mut client, &["GET", "k"]), bulk("v"));
    assert_eq!(exec(&mut node, &mut client, &["GET", "n"]), bulk("1"));
    assert_eq!(exec(&mut node, &mut client, &["GET", "l"]), Reply::Nil);
    exec(&mut node, &mut client, &["SELECT", "2"]);
    assert_eq!(
        exec(&mut node, &mut client, &["LRANGE", "l", "0", "-1"]),
        Reply::Array(drawn)
    );
}

#[test]
fn set_repl_none_keeps_writes_out_of_the_log() {
    let (mut node, mut client) = node(Persistence::AofAlways);
    let script = "redis.set_repl(redis.REPL_NONE) redis.call('set','quiet','1') \
                  redis.set_repl(redis.REPL_ALL) redis.call('set','loud','1')";
    exec(&mut node, &mut client, &["EVAL", script, "0"]);
    node.restart();
    let mut client = node.connect();
    assert_eq!(exec(&mut node, &mut client, &["GET", "quiet"]), Reply::Nil);
    assert_eq!(exec(&mut node, &mut client, &["GET", "loud"]), bulk("1"));
}

/// `args` on `client`; true if it blocked (no reply yet).
fn blocks(node: &mut Node, client: &mut ClientState, args: &[&str]) -> bool {
    let args = args.iter().map(|a| Bytes::copy_from_slice(a.as_bytes()));
    node.execute(client, args.collect(), NOW_MS).blocked
}

const BUSY: &str =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

#[test]
fn an_endless_script_keeps_the_node_busy_until_script_kill() {
    // Bounded in instructions, hence in time even in a debug build.
    const { assert!(INSTRUCTIONS_MAX <= 100_000_000) };
    let (mut node, mut caller) = node(Persistence::None);
    let mut other = node.connect();
    assert!(blocks(
        &mut node,
        &mut caller,
        &["EVAL", "while true do end", "0"]
    ));
    assert_eq!(
        exec(&mut node, &mut other, &["GET", "k"]),
        Reply::error(BUSY)
    );
    assert_eq!(
        exec(&mut node, &mut other, &["MULTI"]),
        Reply::ok(),
        "allowed while busy"
    );
    assert_eq!(exec(&mut node, &mut other, &["PING"]), Reply::error(BUSY));
    let abort = exec(&mut node, &mut other, &["EXEC"]);
    assert_eq!(
        abort,
        Reply::error(format!(
            "EXECABORT Transaction discarded because of: {BUSY}"
        ))
    );
    assert_eq!(
        exec(&mut node, &mut other, &["SCRIPT", "KILL"]),
        Reply::ok()
    );
    let sha = "694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7"; // sha1("while true do end")
    let killed =
        format!("ERR Script killed by user with SCRIPT KILL... script: {sha}, on @user_script:1.");
    assert_eq!(node.take_served(&caller), Some(Reply::Error(killed)));
    assert_eq!(
        exec(&mut node, &mut other, &["PING"]),
        Reply::status("PONG")
    );
    assert_eq!(
        exec(&mut node, &mut other, &["SCRIPT", "KILL"]),
        Reply::error("NOTBUSY No scripts in execution right now.")
    );
    // Neither pcall nor coroutines escape the budget.
    let script = "local co = coroutine.wrap(function() while true do pcall(function() while true do end end) end end) co()";
    assert!(blocks(&mut node, &mut caller, &["EVAL", script, "0"]));
    assert_eq!(
        exec(&mut node, &mut other, &["SCRIPT", "KILL"]),
        Reply::ok()
    );
    assert!(node.take_served(&caller).is_some_and(|r| r.is_error()));
    assert_eq!(node.scripts_stopped().len(), 2);
}

#[test]
fn an_endless_script_that_wrote_is_unkillable_and_a_restart_loses_its_writes() {
    let (mut node, mut caller) = node(Persistence::AofAlways);
    let mut other = node.connect();
    let script = "redis.call('set','w','1') while true do end";
    assert!(blocks(&mut node, &mut caller, &["EVAL", script, "0"]));
    assert!(node.scripts_stopped()[0].wrote);
    let refusal = exec(&mut node, &mut other, &["SCRIPT", "KILL"]);
    assert!(
        matches!(&refusal, Reply::Error(e) if e.starts_with("UNKILLABLE ")),
        "{refusal:?}"
    );
    assert_eq!(
        exec(&mut node, &mut other, &["GET", "w"]),
        Reply::error(BUSY)
    );
    node.restart();
    let mut client = node.connect();
    assert_eq!(
        exec(&mut node, &mut client, &["GET", "w"]),
        Reply::Nil,
        "never logged"
    );
    assert_eq!(
        exec(&mut node, &mut client, &["PING"]),
        Reply::status("PONG")
    );
}

#[test]
fn an_endless_script_inside_exec_is_stopped_with_the_killed_error() {
    let (mut node, mut client) = node(Persistence::None);
    exec(&mut node, &mut client, &["MULTI"]);
    exec(&mut node, &mut client, &["EVAL", "while true do end", "0"]);
    let Reply::Array(replies) = exec(&mut node, &mut client, &["EXEC"]) else {
        panic!("EXEC answers its replies");
    };
    assert!(matches!(&replies[0], Reply::Error(e) if e.starts_with("ERR Script killed")));
    assert_eq!(
        exec(&mut node, &mut client, &["PING"]),
        Reply::status("PONG")
    );
}

#[test]
fn math_random_is_one_sequence_per_node_lifetime() {
    let (mut node, mut client) = node(Persistence::None);
    let draw = "return {math.random(100), math.random(100), math.random(100)}";
    let first = exec(&mut node, &mut client, &["EVAL", draw, "0"]);
    // A fresh redis-server 7.0.15 answers 40, 85, 36 (no reseeding per script).
    let expected = [40, 85, 36].map(Reply::Integer).to_vec();
    assert_eq!(first, Reply::Array(expected));
    let second = exec(&mut node, &mut client, &["EVAL", draw, "0"]);
    assert_eq!(
        second,
        Reply::Array([45, 32, 89].map(Reply::Integer).to_vec())
    );
    node.restart();
    let mut client = node.connect();
    assert_eq!(exec(&mut node, &mut client, &["EVAL", draw, "0"]), first);
}
