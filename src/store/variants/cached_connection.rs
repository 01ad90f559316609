//! Connections cached and never replaced, over the `plain-list` store's commands:
//! - `cached-connection`: one connection opened at first use and kept for the life of the
//!   process (daimon's `RedisMemory` keeps its `MultiplexedConnection` so);
//! - `session-connection`: one connection per session, opened at the session's first call
//!   and kept (a library whose per-conversation history object holds its own connection:
//!   a shipped bug issue 53 measured, fixed upstream by a `ConnectionManager`).
//!
//! Once a fault breaks a cached connection (a reset, a Redis restart, a partition that
//! leaves it dead), every later call on it fails until the process restarts, long after
//! the fault healed: `unavailable`. `test-session-reconnect` is `session-connection`
//! without the bug: it drops a connection that broke, so the conversation's next call
//! opens another (what a per-session `redis::aio::ConnectionManager` does), and it must
//! pass: a correct library that fails each conversation's first call after a reset.

use crate::connect::{classify, Connector};
use crate::contract::{Policy, StoreError};
use crate::domain::{Message, SessionKey};
use crate::store::plain_list::{append_pipe, clear_pipe, decode_all, range_pipe, PlainListStore};
use redis::aio::MultiplexedConnection;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What one cached connection serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every call of the process.
    Process,
    /// The calls of one session.
    Session,
}

/// `plain-list` on cached connections.
pub struct CachedConnectionStore {
    pub(crate) connector: Arc<Connector>,
    pub(crate) ttl_ms: u64,
    pub(crate) scope: Scope,
    /// Drop a connection a call found broken (a timeout or a lost connection), so the
    /// next call opens another. The variants never do: that is their bug.
    pub(crate) replaces_broken: bool,
    /// The cached connections, by session (`None`: the process's one).
    pub(crate) cached: tokio::sync::Mutex<BTreeMap<Option<SessionKey>, MultiplexedConnection>>,
}

impl CachedConnectionStore {
    /// A store of `scope` on `connector`, with no connection opened yet.
    pub(crate) fn new(
        connector: Arc<Connector>,
        ttl_ms: u64,
        scope: Scope,
        replaces_broken: bool,
    ) -> Self {
        CachedConnectionStore {
            connector,
            ttl_ms,
            scope,
            replaces_broken,
            cached: tokio::sync::Mutex::new(BTreeMap::new()),
        }
    }

    /// Which cached connection serves `session`'s calls.
    fn slot(&self, session: &SessionKey) -> Option<SessionKey> {
        match self.scope {
            Scope::Process => None,
            Scope::Session => Some(session.clone()),
        }
    }

    /// The connection cached for `slot`, opened by the first call that finds none.
    async fn connection(
        &self,
        slot: &Option<SessionKey>,
    ) -> Result<MultiplexedConnection, StoreError> {
        let mut cached = self.cached.lock().await;
        if let Some(connection) = cached.get(slot) {
            return Ok(connection.clone());
        }
        let connection = self.connector.dedicated().await?;
        cached.insert(slot.clone(), connection.clone());
        Ok(connection)
    }

    /// `pipe` on `session`'s cached connection. The bug, unless `replaces_broken`: a
    /// broken connection is never dropped.
    async fn query<T: redis::FromRedisValue>(
        &self,
        session: &SessionKey,
        pipe: redis::Pipeline,
    ) -> Result<T, StoreError> {
        let slot = self.slot(session);
        let mut connection = self.connection(&slot).await?;
        let result = pipe
            .query_async(&mut connection)
            .await
            .map_err(|error| classify(&error));
        if let Err(error) = &result {
            if self.replaces_broken && error.is_indeterminate() {
                self.cached.lock().await.remove(&slot);
            }
        }
        result
    }
}

super::memory_store!(CachedConnectionStore, forward base [] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        self.query::<()>(session, append_pipe(session, msg, self.ttl_ms)).await
    }

    async fn context(&self, session: &SessionKey, limit: usize) -> Result<Vec<Message>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = PlainListStore::key(session);
        let (raw,): (Vec<Vec<u8>>,) =
            self.query(session, range_pipe(&key, -(limit as isize))).await?;
        decode_all(&raw)
    }

    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        self.query::<()>(session, clear_pipe(session)).await
    }

    fn policy(&self) -> Policy {
        PlainListStore::declared(self.ttl_ms)
    }
});
