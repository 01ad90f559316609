//! The state Redis keeps per connection: protocol, database, auth, name, transaction.

use crate::model::reply::Protocol;
use bytes::Bytes;

/// One WATCHed key and whether it was already logically expired when watched (Redis 7.0
/// aborts EXEC when a watched key expires in between, but not when it already had).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watch {
    pub db: usize,
    pub key: Bytes,
    pub expired_when_watched: bool,
}

/// Per-connection state.
#[derive(Clone, Debug)]
pub struct ClientState {
    pub id: u64,
    pub protocol: Protocol,
    pub db: usize,
    pub authenticated: bool,
    pub name: Option<Bytes>,
    /// Commands queued since MULTI; `None` outside a transaction.
    pub queued: Option<Vec<Vec<Bytes>>>,
    /// A command was rejected while queueing: EXEC answers EXECABORT.
    pub queue_failed: bool,
    pub watching: Vec<Watch>,
}

impl ClientState {
    pub fn new(id: u64, authenticated: bool) -> Self {
        Self {
            id,
            protocol: Protocol::Resp2,
            db: 0,
            authenticated,
            name: None,
            queued: None,
            queue_failed: false,
            watching: Vec::new(),
        }
    }

    pub fn in_multi(&self) -> bool {
        self.queued.is_some()
    }

    /// Leave the transaction state (EXEC, DISCARD, RESET).
    pub fn end_multi(&mut self) {
        self.queued = None;
        self.queue_failed = false;
    }
}
