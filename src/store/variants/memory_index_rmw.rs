//! `memory-index-rmw`: a user's memory index is one JSON array of ids in a string key,
//! updated by read-modify-write: `GET`, add the id, `SET`, without `WATCH` ("one user
//! writes one memory at a time"). But one user has several sessions (two tabs, a phone),
//! and their turns remember concurrently: both read the same array, each adds its id, the
//! second `SET` drops the first one's. That memory is stored and acknowledged yet never
//! found again (`recall-miss`), and the index disagrees with the data (`index-drift`).
//!
//! The hop between the read and the write is a buggify point (a slow network or GC).

use crate::connect::Connector;
use crate::store::reference::{memory_keys, rank_memories};
use crate::store::{
    Memory, MemoryAudit, MemoryStore, Message, Policy, RedisChatStore, SessionKey, StoreError,
    UserKey,
};
use std::sync::Arc;

/// The reference store with a read-modify-write memory index.
pub struct MemoryIndexRmwStore {
    inner: RedisChatStore,
    connector: Arc<Connector>,
}

/// The user's data hash and the key of its JSON index.
fn keys(user: &UserKey) -> (String, String) {
    let (data, index) = memory_keys(user);
    (data, format!("{index}:json"))
}

impl MemoryIndexRmwStore {
    pub fn new(inner: RedisChatStore, connector: Arc<Connector>) -> Self {
        Self { inner, connector }
    }

    async fn read_index(&self, index: &str) -> Result<Vec<String>, StoreError> {
        let index = index.to_string();
        let raw: Option<String> = self
            .connector
            .run(|mut connection| async move {
                redis::cmd("GET").arg(&index).query_async(&mut connection).await
            })
            .await?;
        match raw {
            None => Ok(Vec::new()),
            Some(json) => serde_json::from_str(&json)
                .map_err(|e| StoreError::Redis(format!("undecodable memory index: {e}"))),
        }
    }

    /// The bug: GET, change, SET, with nothing to stop a concurrent writer in between.
    async fn change_index(
        &self,
        index: &str,
        change: impl FnOnce(&mut Vec<String>),
    ) -> Result<(), StoreError> {
        let mut ids = self.read_index(index).await?;
        change(&mut ids);
        crate::buggify::delay("memory-index-rmw.between-get-and-set").await;
        let (index, json) = (index.to_string(), serde_json::to_string(&ids).expect("ids"));
        self.connector
            .run(|mut connection| async move {
                redis::cmd("SET")
                    .arg(&index)
                    .arg(&json)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
    }

    async fn write(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        let (data, index) = keys(user);
        let (id, encoded) = (
            memory.id.clone(),
            serde_json::to_string(memory).expect("a memory always serializes"),
        );
        self.connector
            .run(|mut connection| async move {
                redis::cmd("HSET")
                    .arg(&data)
                    .arg(&id)
                    .arg(&encoded)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await?;
        let id = memory.id.clone();
        self.change_index(&index, |ids| {
            if !ids.contains(&id) {
                ids.push(id);
            }
        })
        .await
    }

    async fn stored(&self, data: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let data = data.to_string();
        self.connector
            .run(|mut connection| async move {
                redis::cmd("HGETALL").arg(&data).query_async(&mut connection).await
            })
            .await
    }
}

#[async_trait::async_trait]
impl MemoryStore for MemoryIndexRmwStore {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        self.inner.append(session, msg).await
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        self.inner.context(session, limit).await
    }

    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.write(user, memory).await
    }

    async fn update_memory(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.write(user, memory).await
    }

    async fn forget(&self, user: &UserKey, id: &str) -> Result<(), StoreError> {
        let (data, index) = keys(user);
        let owned = id.to_string();
        self.connector
            .run(|mut connection| async move {
                redis::cmd("HDEL")
                    .arg(&data)
                    .arg(&owned)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await?;
        self.change_index(&index, |ids| ids.retain(|other| other != id))
            .await
    }

    async fn recall(
        &self,
        user: &UserKey,
        query: &str,
        k: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let (data, index) = keys(user);
        let indexed = self.read_index(&index).await?;
        let memories = self
            .stored(&data)
            .await?
            .iter()
            .filter(|(id, _)| indexed.contains(id))
            .map(|(_, encoded)| {
                serde_json::from_slice(encoded)
                    .map_err(|e| StoreError::Redis(format!("undecodable memory: {e}")))
            })
            .collect::<Result<Vec<Memory>, _>>()?;
        Ok(rank_memories(memories, query, k))
    }

    async fn audit_memories(&self, user: &UserKey) -> Result<MemoryAudit, StoreError> {
        let (data, index) = keys(user);
        let mut stored: Vec<String> = self.stored(&data).await?.into_iter().map(|(id, _)| id).collect();
        let mut indexed = self.read_index(&index).await?;
        stored.sort();
        indexed.sort();
        Ok(MemoryAudit { stored, indexed })
    }

    fn policy(&self) -> Policy {
        self.inner.policy()
    }
}
