//! `index-skip`: a memory's data (`HSET`) and its index entry (`SADD`) are written in two
//! round trips, and the index write is treated as best effort ("the index is only a
//! cache; a rebuild job will fix it"). When the connection breaks between the two, the
//! memory is stored and acknowledged but never indexed: recall cannot find it
//! (`recall-miss`) and, at quiescence, stored and indexed memories disagree (`index-drift`).
//!
//! The window between the round trips is a buggify point: the simulator may break the
//! connection there.

use crate::connect::Connector;
use crate::store::reference::memory_keys;
use crate::store::{Memory, RedisChatStore, StoreError, UserKey};
use std::sync::Arc;

/// The reference store with a two-step, best-effort memory index.
pub struct IndexSkipStore {
    pub(crate) inner: RedisChatStore,
    pub(crate) connector: Arc<Connector>,
}

impl IndexSkipStore {
    async fn index(&self, index: &str, id: &str) -> Result<(), StoreError> {
        if crate::buggify::fires("index-skip.remember.connection-lost-before-index") {
            self.connector.discard();
            return Err(StoreError::ConnectionLost(
                "connection reset before SADD".into(),
            ));
        }
        let (index, id) = (index.to_string(), id.to_string());
        self.connector
            .run(|mut connection| async move {
                redis::cmd("SADD")
                    .arg(&index)
                    .arg(&id)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
    }
}

super::memory_store!(IndexSkipStore, forward inner [append, context, recall, audit_memories, policy] {
    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        let (data, index) = memory_keys(user);
        let encoded = serde_json::to_string(memory).expect("a memory always serializes");
        let (data_key, id) = (data.clone(), memory.id.clone());
        self.connector
            .run(|mut connection| async move {
                redis::cmd("HSET")
                    .arg(&data_key)
                    .arg(&id)
                    .arg(&encoded)
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await?;
        // The bug: the memory is stored; indexing it is best effort.
        if let Err(error) = self.index(&index, &memory.id).await {
            tracing::warn!(%user, memory = %memory.id, %error, "memory not indexed; a rebuild will add it");
        }
        Ok(())
    }
});
