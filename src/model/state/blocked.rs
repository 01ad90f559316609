//! Clients blocked by BLPOP and its kin: who waits on which key, in the order they
//! blocked, and the keys that became ready since the node last served them (Redis's
//! `blocking_keys` and `ready_keys`).

use crate::model::protocol::reply::{Protocol, Reply};
use bytes::Bytes;
use std::collections::{BTreeMap, VecDeque};

/// Clients one node keeps blocked at most; a client blocking past it is answered at once
/// as if its timeout had passed (a bound Redis does not have: its limit is `maxclients`).
pub const BLOCKED_CLIENTS_MAX: usize = 10_000;

/// One blocked client.
#[derive(Debug)]
pub(crate) struct Waiter {
    pub db: usize,
    pub keys: Vec<Bytes>,
    /// The blocking command, re-run for a key when it becomes ready.
    pub args: Vec<Bytes>,
    pub protocol: Protocol,
    /// On the node's clock; `None` waits forever.
    pub deadline_ms: Option<u64>,
    /// The reply once served; the connection takes it.
    pub served: Option<Reply>,
}

#[derive(Debug, Default)]
pub(crate) struct Blocked {
    by_key: BTreeMap<(usize, Bytes), VecDeque<u64>>,
    waiters: BTreeMap<u64, Waiter>,
    ready: VecDeque<(usize, Bytes)>,
}

impl Blocked {
    /// True when nobody waits: then no key can become ready.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// Clients waiting now (INFO's `blocked_clients`).
    pub(crate) fn len(&self) -> usize {
        self.waiters.values().filter(|w| w.served.is_none()).count()
    }

    pub(crate) fn is_full(&self) -> bool {
        self.waiters.len() >= BLOCKED_CLIENTS_MAX
    }

    pub(crate) fn block(&mut self, client: u64, waiter: Waiter) {
        assert!(!self.is_full(), "callers check the bound");
        for key in &waiter.keys {
            let queue = self.by_key.entry((waiter.db, key.clone())).or_default();
            if !queue.contains(&client) {
                queue.push_back(client);
            }
        }
        let previous = self.waiters.insert(client, waiter);
        assert!(previous.is_none(), "a blocked client sends nothing more");
    }

    /// A key some client waits on was written: serve it after the command.
    pub(crate) fn signal(&mut self, db: usize, key: &Bytes) {
        let slot = (db, key.clone());
        if self.by_key.contains_key(&slot) && !self.ready.contains(&slot) {
            self.ready.push_back(slot);
        }
    }

    /// After SWAPDB: every key waited on in `db` that `holds` now is ready (Redis's
    /// `scanDatabaseForReadyKeys`).
    pub(crate) fn signal_present(&mut self, db: usize, holds: impl Fn(&[u8]) -> bool) {
        let present: Vec<Bytes> = self
            .by_key
            .keys()
            .filter(|(d, key)| *d == db && holds(key))
            .map(|(_, key)| key.clone())
            .collect();
        for key in present {
            self.signal(db, &key);
        }
    }

    pub(crate) fn next_ready(&mut self) -> Option<(usize, Bytes)> {
        self.ready.pop_front()
    }

    /// The clients waiting on `key`, oldest first.
    pub(crate) fn waiting_on(&self, db: usize, key: &Bytes) -> Vec<u64> {
        self.by_key
            .get(&(db, key.clone()))
            .map(|queue| queue.iter().copied().collect())
            .unwrap_or_default()
    }

    pub(crate) fn waiter(&self, client: u64) -> Option<&Waiter> {
        self.waiters.get(&client)
    }

    /// Stop waiting on every key; the waiter stays until its connection takes the reply.
    fn release_keys(&mut self, client: u64) {
        let Some(waiter) = self.waiters.get(&client) else {
            return;
        };
        for key in &waiter.keys {
            let slot = (waiter.db, key.clone());
            if let Some(queue) = self.by_key.get_mut(&slot) {
                queue.retain(|c| *c != client);
                if queue.is_empty() {
                    self.by_key.remove(&slot);
                }
            }
        }
    }

    /// `client` was served `reply`.
    pub(crate) fn serve(&mut self, client: u64, reply: Reply) {
        self.release_keys(client);
        let waiter = self.waiters.get_mut(&client).expect("served a waiter");
        waiter.served = Some(reply);
    }

    /// The served reply, if any; the client is no longer blocked then.
    pub(crate) fn take_served(&mut self, client: u64) -> Option<Reply> {
        self.waiters.get(&client)?.served.as_ref()?;
        self.waiters.remove(&client).and_then(|w| w.served)
    }

    /// Forget `client` (timeout, disconnect); returns its waiter.
    pub(crate) fn remove(&mut self, client: u64) -> Option<Waiter> {
        self.release_keys(client);
        self.waiters.remove(&client)
    }

    /// A restart: no connection survives.
    pub(crate) fn clear(&mut self) {
        *self = Blocked::default();
    }
}
