//! The top: a node at work (Redis's `server.c`, and `networking.c`'s reading and
//! writing). `connection` serves a tokio byte stream ([`Model`](connection::Model): read,
//! cut requests with `protocol::request`, execute, write the replies, keep the journal,
//! run the expiry cycle, restart); `execute` is the one place a request executes
//! (admission, MULTI queueing, blocking and serving blocked clients, error counting, the
//! append-only log), with the expiry cycle and a restart's replay; `busy` answers a
//! connection while a script holds the node (`amnesia serve-model` only).
//!
//! May import: every room below it.

pub(crate) mod busy;
pub(crate) mod connection;
pub(crate) mod execute;
