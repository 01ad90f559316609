//! `cached-connection`: the `plain-list` store on one connection opened at first use and
//! kept for the life of the process, never replaced (daimon's `RedisMemory` keeps its
//! `MultiplexedConnection` so). Once a fault breaks that connection (a reset, a Redis
//! restart, a partition that leaves it dead), every later call fails on it until the
//! process restarts, long after the fault healed: `unavailable`.

use crate::connect::{classify, Connector};
use crate::contract::{Policy, StoreError};
use crate::domain::{Message, SessionKey};
use crate::store::plain_list::{append_pipe, clear_pipe, decode_all, range_pipe, PlainListStore};
use redis::aio::MultiplexedConnection;
use std::sync::Arc;

/// `plain-list` on a connection cached for good.
pub struct CachedConnectionStore {
    pub(crate) connector: Arc<Connector>,
    pub(crate) ttl_ms: u64,
    pub(crate) cached: tokio::sync::Mutex<Option<MultiplexedConnection>>,
}

impl CachedConnectionStore {
    /// The cached connection, opened by the first call that finds none.
    async fn connection(&self) -> Result<MultiplexedConnection, StoreError> {
        let mut cached = self.cached.lock().await;
        if let Some(connection) = cached.as_ref() {
            return Ok(connection.clone());
        }
        let connection = self.connector.dedicated().await?;
        *cached = Some(connection.clone());
        Ok(connection)
    }

    /// `pipe` on the cached connection. The bug: a broken connection is never dropped.
    async fn query<T: redis::FromRedisValue>(
        &self,
        pipe: redis::Pipeline,
    ) -> Result<T, StoreError> {
        let mut connection = self.connection().await?;
        pipe.query_async(&mut connection)
            .await
            .map_err(|error| classify(&error))
    }
}

super::memory_store!(CachedConnectionStore, forward base [] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        self.query::<()>(append_pipe(session, msg, self.ttl_ms)).await
    }

    async fn context(&self, session: &SessionKey, limit: usize) -> Result<Vec<Message>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = PlainListStore::key(session);
        let (raw,): (Vec<Vec<u8>>,) = self.query(range_pipe(&key, -(limit as isize))).await?;
        decode_all(&raw)
    }

    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        self.query::<()>(clear_pipe(session)).await
    }

    fn policy(&self) -> Policy {
        PlainListStore::declared(self.ttl_ms)
    }
});
