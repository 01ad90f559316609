//! amnesia: deterministic simulation testing of LLM memory stores kept in Redis.
pub mod check;
pub mod connect;
pub mod history;
pub mod model;
pub mod plan;
pub mod runner;
pub mod sim;
pub mod store;
pub mod trace;
