//! The memory audit of a PostgreSQL store from one declared query: the store says how to
//! read a user's memories (id, text, vector) and amnesia makes the [`MemoryAudit`] of them,
//! each vector compared with the embedding of its text by the store's own embedder. A
//! pgvector index is the table's own (PostgreSQL maintains it with every row), so what is
//! stored is what is indexed; what can drift is a vector that is not its text's (an edit
//! that kept the old embedding, a model change without re-embedding): `index-drift`.

use crate::contract::{MemoryAudit, StoreError};
use crate::domain::{IndexedEmbedding, UserKey};
use crate::postgres::PgConnector;

/// Rows an audit query may return: a user's memories. A plan gives a user at most a few
/// thousand (its corpus and what the turns add); more is a query that missed its `WHERE`.
pub(crate) const AUDIT_ROWS_MAX: usize = 100_000;

impl PgConnector {
    /// The memory audit of `user` from `query`, whose `$1` is the user's tenant and `$2`
    /// its name, and whose rows are the user's memories: `id` (text), `text` (text), the
    /// indexed vector (`vector`, `real[]`, or NULL for none). `embed` is the store's
    /// embedder. A store's whole [`MemoryStore::audit_memories`](crate::MemoryStore::audit_memories):
    ///
    /// ```no_run
    /// # struct Mine { pg: std::sync::Arc<amnesia::PgConnector> }
    /// # fn embed(_: &str) -> Vec<f32> { vec![1.0; 64] }
    /// # impl Mine {
    /// async fn audit_memories(&self, user: &amnesia::UserKey) -> Result<amnesia::MemoryAudit, amnesia::StoreError> {
    ///     let query = "SELECT id, text, embedding FROM memories WHERE tenant = $1 AND user_name = $2";
    ///     self.pg.audit(user, query, embed).await
    /// }
    /// # }
    /// ```
    pub async fn audit<E>(
        &self,
        user: &UserKey,
        query: &str,
        embed: E,
    ) -> Result<MemoryAudit, StoreError>
    where
        E: Fn(&str) -> Vec<f32>,
    {
        let (tenant, name, query) = (user.tenant.clone(), user.user.clone(), query.to_string());
        let rows = self
            .run(move |client| {
                Box::pin(async move { client.query(&query, &[&tenant, &name]).await })
            })
            .await?;
        if rows.len() > AUDIT_ROWS_MAX {
            return Err(StoreError::Server(format!(
                "the audit query returned {} rows, more than AUDIT_ROWS_MAX ({AUDIT_ROWS_MAX}): \
                 does it select one user's memories ($1 tenant, $2 user)?",
                rows.len()
            )));
        }
        let mut memories = rows.iter().map(memory_of).collect::<Result<Vec<_>, _>>()?;
        memories.sort_by(|a, b| a.0.cmp(&b.0));
        let embeddings = memories
            .iter()
            .map(|(id, text, vector)| {
                IndexedEmbedding::compare(id, vector.as_deref(), &embed(text))
            })
            .collect();
        let stored: Vec<String> = memories.into_iter().map(|(id, _, _)| id).collect();
        Ok(MemoryAudit {
            indexed: stored.clone(),
            stored,
            exact: None,
            embeddings: Some(embeddings),
        })
    }
}

/// One audit row as (id, text, vector); a row of other types is a one-line error.
fn memory_of(row: &tokio_postgres::Row) -> Result<(String, String, Option<Vec<f32>>), StoreError> {
    let shape = |e: tokio_postgres::Error| {
        StoreError::Server(format!(
            "the audit query's rows must be (id text, text text, vector): {e}"
        ))
    };
    let id: String = row.try_get(0).map_err(shape)?;
    let text: String = row.try_get(1).map_err(shape)?;
    let vector = match row.try_get::<_, Option<pgvector::Vector>>(2) {
        Ok(vector) => vector.map(|v| v.to_vec()),
        Err(_) => row.try_get::<_, Option<Vec<f32>>>(2).map_err(shape)?,
    };
    Ok((id, text, vector))
}
