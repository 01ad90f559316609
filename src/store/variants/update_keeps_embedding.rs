//! `update-keeps-embedding`: memories with their vectors kept beside them (a hash of id →
//! memory, a hash of id → embedding, both written by `remember` in one `MULTI`; recall ranks
//! the stored vectors), as stores do that embed once at write time to spare the model
//! call at every recall. The bug: `update_memory` rewrites the memory's text and leaves
//! its vector ("the nightly re-embedding job refreshes it"), so recall keeps ranking the
//! memory by its old text. Reads return the new text, so nothing in a recall's result
//! looks wrong; the quiescence audit, which sets every indexed vector against the
//! embedding of its memory's stored text, shows it (`index-drift`).
//!
//! `reembed_on_update` is the same store without the bug (`test-vector-index`): it holds
//! the rule to zero false positives.

use crate::connect::Connector;
use crate::contract::{MemoryAudit, StoreError};
use crate::domain::{IndexedEmbedding, Memory, UserKey};
use crate::embed::{cosine, embed, DIMENSIONS};
use crate::store::reference::escape_key_part;
use crate::store::RedisChatStore;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The reference chat store with vector-keeping memories.
pub struct UpdateKeepsEmbeddingStore {
    pub(crate) inner: RedisChatStore,
    pub(crate) connector: Arc<Connector>,
    /// Whether an update writes the new text's vector too (the correct store).
    pub(crate) reembed_on_update: bool,
}

/// The user's memory hash and vector hash.
fn keys(user: &UserKey) -> (String, String) {
    let base = format!(
        "mem:vec:{}:{}",
        escape_key_part(&user.tenant),
        escape_key_part(&user.user)
    );
    (format!("{base}:data"), format!("{base}:vectors"))
}

/// A hash's fields and values.
type Fields = BTreeMap<String, Vec<u8>>;

fn vector_bytes(text: &str) -> Vec<u8> {
    embed(text).iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn vector_of(bytes: &[u8]) -> Result<[f32; DIMENSIONS], StoreError> {
    let mut vector = [0f32; DIMENSIONS];
    if bytes.len() != DIMENSIONS * 4 {
        return Err(StoreError::Server(format!(
            "a vector of {} bytes",
            bytes.len()
        )));
    }
    for (x, chunk) in vector.iter_mut().zip(bytes.chunks_exact(4)) {
        *x = f32::from_le_bytes(chunk.try_into().expect("4 bytes"));
    }
    Ok(vector)
}

fn decode(data: &[u8]) -> Result<Memory, StoreError> {
    serde_json::from_slice(data).map_err(|e| StoreError::Server(format!("undecodable memory: {e}")))
}

impl UpdateKeepsEmbeddingStore {
    /// Every memory of `user` with the vector its index holds, if any, by id.
    async fn load(
        &self,
        user: &UserKey,
    ) -> Result<BTreeMap<String, (Memory, Option<[f32; DIMENSIONS]>)>, StoreError> {
        let (data, vectors) = keys(user);
        let mut pipe = redis::pipe();
        pipe.atomic().hgetall(&data).hgetall(&vectors);
        let (stored, held): (Vec<(String, Vec<u8>)>, Fields) = self
            .connector
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await?;
        let mut memories = BTreeMap::new();
        for (id, encoded) in stored {
            let vector = held.get(&id).map(|bytes| vector_of(bytes)).transpose()?;
            memories.insert(id, (decode(&encoded)?, vector));
        }
        Ok(memories)
    }

    /// The memory's text, and its vector when `with_vector`, in one transaction.
    async fn write(
        &self,
        user: &UserKey,
        memory: &Memory,
        with_vector: bool,
    ) -> Result<(), StoreError> {
        let (data, vectors) = keys(user);
        let encoded = serde_json::to_string(memory).expect("a memory always serializes");
        let mut pipe = redis::pipe();
        pipe.atomic().hset(&data, &memory.id, &encoded).ignore();
        if with_vector {
            pipe.hset(&vectors, &memory.id, vector_bytes(&memory.text))
                .ignore();
        }
        self.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }
}

super::memory_store!(UpdateKeepsEmbeddingStore, forward inner [append, context, clear, delete, policy] {
    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.write(user, memory, true).await
    }

    async fn update_memory(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        // The bug: the text is replaced, the vector is left for a re-embedding job.
        self.write(user, memory, self.reembed_on_update).await
    }

    async fn recall(&self, user: &UserKey, query: &str, k: usize) -> Result<Vec<Memory>, StoreError> {
        let query = embed(query);
        let mut scored: Vec<(f32, Memory)> = self
            .load(user)
            .await?
            .into_values()
            .filter_map(|(memory, vector)| Some((cosine(&query, &vector?), memory)))
            .collect();
        scored.sort_by(|(a, ma), (b, mb)| b.total_cmp(a).then_with(|| ma.id.cmp(&mb.id)));
        Ok(scored.into_iter().take(k).map(|(_, memory)| memory).collect())
    }

    async fn forget(&self, user: &UserKey, id: &str) -> Result<(), StoreError> {
        let (data, vectors) = keys(user);
        let mut pipe = redis::pipe();
        pipe.atomic().hdel(&data, id).ignore().hdel(&vectors, id).ignore();
        self.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }

    async fn audit_memories(&self, user: &UserKey) -> Result<MemoryAudit, StoreError> {
        let memories = self.load(user).await?;
        let stored = memories.keys().cloned().collect();
        let indexed = memories
            .iter()
            .filter(|(_, (_, vector))| vector.is_some())
            .map(|(id, _)| id.clone())
            .collect();
        let embeddings = memories
            .iter()
            .map(|(id, (memory, vector))| {
                IndexedEmbedding::compare(id, vector.as_ref().map(|v| &v[..]), &embed(&memory.text))
            })
            .collect();
        Ok(MemoryAudit { stored, indexed, exact: None, embeddings: Some(embeddings) })
    }
});
