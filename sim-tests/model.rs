//! The Redis model under its clients: the real `redis` crate over in-memory and TCP
//! streams, TTL rules on virtual time, persistence across restarts, and hostile input.

#[path = "model/common.rs"]
mod common;

#[path = "model/bad_input.rs"]
mod bad_input;
#[path = "model/busy_script.rs"]
mod busy_script;
#[path = "model/client.rs"]
mod client;
#[path = "model/command_table.rs"]
mod command_table;
#[path = "model/connect_commands.rs"]
mod connect_commands;
#[path = "model/effects.rs"]
mod effects;
#[path = "model/parser_invariants.rs"]
mod parser_invariants;
#[path = "model/persistence.rs"]
mod persistence;
#[path = "serve_model.rs"]
mod serve_model;
#[path = "model/ttl.rs"]
mod ttl;
