//! `memory-index-rmw`: a user's memory index is one JSON array of ids in a string key,
//! updated by read-modify-write: `GET`, add the id, `SET`, without `WATCH` ("one user
//! writes one memory at a time"). But one user has several sessions (two tabs, a phone),
//! and their turns remember concurrently: both read the same array, each adds its id, the
//! second `SET` drops the first one's. That memory is stored and acknowledged yet never
//! found again (`recall-miss`), and the index disagrees with the data (`index-drift`).
//! The data and the index are written in one transaction, so a fault alone never splits
//! them: only two writers of one user do.
//!
//! The hop between the read and the write is a buggify point (a slow network or GC).
//! `memory-index-rmw-plain` is the same store as a team writes it without amnesia, with
//! no such point: only the plan's timing opens the gap, so few seeds catch it.

use crate::connect::Connector;
use crate::store::reference::{memory_keys, rank_memories};
use crate::store::{Memory, MemoryAudit, RedisChatStore, StoreError, UserKey};
use std::sync::Arc;

/// The reference store with a read-modify-write memory index.
pub struct MemoryIndexRmwStore {
    pub(crate) inner: RedisChatStore,
    pub(crate) connector: Arc<Connector>,
    /// Whether the gap between the read and the write is a buggify point.
    pub(crate) buggify: bool,
}

/// The user's data hash and the key of its JSON index.
fn keys(user: &UserKey) -> (String, String) {
    let (data, index) = memory_keys(user);
    (data, format!("{index}:json"))
}

impl MemoryIndexRmwStore {
    async fn read_index(&self, index: &str) -> Result<Vec<String>, StoreError> {
        let index = index.to_string();
        let raw: Option<String> = self
            .connector
            .run(|mut connection| async move {
                redis::cmd("GET")
                    .arg(&index)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        match raw {
            None => Ok(Vec::new()),
            Some(json) => serde_json::from_str(&json)
                .map_err(|e| StoreError::Server(format!("undecodable memory index: {e}"))),
        }
    }

    /// The bug: GET the index, change it, then write it back (in one transaction with
    /// the data write, so a failure leaves both or neither), with nothing to stop a
    /// concurrent writer between the GET and the write.
    async fn change_index(
        &self,
        index: &str,
        change: impl FnOnce(&mut Vec<String>),
        mut write: redis::Pipeline,
    ) -> Result<(), StoreError> {
        let mut ids = self.read_index(index).await?;
        change(&mut ids);
        if self.buggify {
            crate::buggify::delay("memory-index-rmw.between-get-and-set").await;
        }
        let json = serde_json::to_string(&ids).expect("ids serialize");
        write.set(index, json).ignore();
        self.connector
            .run(|mut connection| async move { write.query_async::<()>(&mut connection).await })
            .await
    }

    async fn write(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        let (data, index) = keys(user);
        let encoded = serde_json::to_string(memory).expect("a memory always serializes");
        let mut write = redis::pipe();
        write.atomic().hset(&data, &memory.id, encoded).ignore();
        let id = memory.id.clone();
        let add = |ids: &mut Vec<String>| {
            if !ids.contains(&id) {
                ids.push(id.clone());
            }
        };
        self.change_index(&index, add, write).await
    }

    async fn stored(&self, data: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let data = data.to_string();
        self.connector
            .run(|mut connection| async move {
                redis::cmd("HGETALL")
                    .arg(&data)
                    .query_async(&mut connection)
                    .await
            })
            .await
    }
}

super::memory_store!(MemoryIndexRmwStore, forward inner [append, context, policy] {
    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.write(user, memory).await
    }

    async fn update_memory(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.write(user, memory).await
    }

    async fn forget(&self, user: &UserKey, id: &str) -> Result<(), StoreError> {
        let (data, index) = keys(user);
        let mut write = redis::pipe();
        write.atomic().hdel(&data, id).ignore();
        self.change_index(&index, |ids| ids.retain(|other| other != id), write)
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
                    .map_err(|e| StoreError::Server(format!("undecodable memory: {e}")))
            })
            .collect::<Result<Vec<Memory>, _>>()?;
        Ok(rank_memories(memories, query, k))
    }

    async fn audit_memories(&self, user: &UserKey) -> Result<MemoryAudit, StoreError> {
        let (data, index) = keys(user);
        let mut stored: Vec<String> = self
            .stored(&data)
            .await?
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        let mut indexed = self.read_index(&index).await?;
        stored.sort();
        indexed.sort();
        Ok(MemoryAudit {
            stored,
            indexed,
            exact: None,
            embeddings: None,
        })
    }
});
