//! The state Redis keeps per connection: protocol, database, auth, name, transaction.

use crate::model::protocol::reply::Protocol;
use bytes::Bytes;

/// Per-connection state.
#[derive(Clone, Debug)]
pub struct ClientState {
    pub id: u64,
    pub protocol: Protocol,
    pub db: usize,
    pub authenticated: bool,
    pub name: Option<Bytes>,
    /// `CLIENT NO-TOUCH ON`: this client's commands (but `TOUCH`) leave keys' access
    /// times as they were.
    pub no_touch: bool,
    /// Commands queued since MULTI; `None` outside a transaction.
    pub queued: Option<Vec<Vec<Bytes>>>,
    /// A command was rejected while queueing: EXEC answers EXECABORT.
    pub queue_failed: bool,
    /// WATCH and UNWATCH answered while a script held the node (`amnesia serve-model`),
    /// to apply when this connection next holds it (`server::busy`).
    pub(crate) deferred_while_busy: Vec<Vec<Bytes>>,
}

impl ClientState {
    pub fn new(id: u64, authenticated: bool) -> Self {
        Self {
            id,
            protocol: Protocol::Resp2,
            db: 0,
            authenticated,
            name: None,
            no_touch: false,
            queued: None,
            queue_failed: false,
            deferred_while_busy: Vec::new(),
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
