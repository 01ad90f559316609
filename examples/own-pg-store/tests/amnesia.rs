//! The store under amnesia, by README's "Test your own store" steps for a PostgreSQL
//! store: an adapter from amnesia's contract to the team's functions over a connection
//! kept across their awaits (`PgContext::postgres.get()`, as a pool's), the memory audit
//! from one declared query, a sweep that must pass, and (with `--features
//! stale-embedding`) a sweep that must catch an edit that keeps the old embedding.

use amnesia::{
    Builder, Durability, Memory, MemoryAudit, MemoryStore, Message, PgClient, PgConnector,
    PgContext, Policy, Role, SessionKey, Store, StoreError, SynchronousCommit, TtlPolicy,
    UserKey,
};
use own_pg_store::{embed, ChatMessage};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How a user's memories are read for the audit: `$1` the tenant, `$2` the user.
const AUDIT: &str = "SELECT id, text, embedding FROM memories WHERE tenant = $1 AND user_name = $2";

/// How long a call may take before the adapter gives up on it (virtual time in a run).
const CALL_TIMEOUT: Duration = Duration::from_secs(2);

/// amnesia's contract over the team's store.
struct Adapter {
    pg: Arc<PgConnector>,
    schema_created: AtomicBool,
}

impl Adapter {
    fn new(context: PgContext) -> Adapter {
        Adapter {
            pg: context.postgres,
            schema_created: AtomicBool::new(false),
        }
    }

    /// A connection of the adapter's own for one call; the first creates the schema.
    async fn client(&self) -> Result<PgClient, StoreError> {
        if !self.schema_created.load(Ordering::Acquire) {
            let mut client = self.pg.get().await?;
            let created = own_pg_store::create_schema(&mut client);
            let outcome = tokio::time::timeout(CALL_TIMEOUT, created).await;
            settle(client, outcome)?;
            self.schema_created.store(true, Ordering::Release);
        }
        self.pg.get().await
    }
}

/// A call's outcome as amnesia's: a connection whose call timed out or broke is closed,
/// not handed back (its reply is still owed).
fn settle<T>(
    client: PgClient,
    outcome: Result<Result<T, tokio_postgres::Error>, tokio::time::error::Elapsed>,
) -> Result<T, StoreError> {
    let failure = match outcome {
        Ok(Ok(value)) => return Ok(value),
        Ok(Err(error)) => StoreError::from(error),
        Err(_) => StoreError::Timeout,
    };
    if failure.is_indeterminate() {
        client.discard();
    }
    Err(failure)
}

/// Run `$body` on a connection of the adapter's own (`$client`), bounded by
/// `CALL_TIMEOUT`: the team's function holds its transaction across its own awaits.
macro_rules! call {
    ($self:ident, |$client:ident| $body:expr) => {{
        let mut $client = $self.client().await?;
        let outcome = tokio::time::timeout(CALL_TIMEOUT, $body).await;
        settle($client, outcome)
    }};
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

fn role_of(name: &str) -> Role {
    match name {
        "system" => Role::System,
        "user" => Role::User,
        _ => Role::Assistant,
    }
}

#[async_trait::async_trait]
impl MemoryStore for Adapter {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let message = ChatMessage {
            id: msg.id.clone(),
            role: role_name(msg.role).to_string(),
            content: msg.content.clone(),
            turn: msg.seq as i64,
        };
        let key = (session.tenant.as_str(), session.session.as_str());
        call!(self, |client| own_pg_store::append(
            &mut client,
            key,
            &message
        ))
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let key = (session.tenant.as_str(), session.session.as_str());
        let recent = call!(self, |client| own_pg_store::recent(
            &mut client,
            key,
            limit as i64
        ))?;
        Ok(recent
            .into_iter()
            .map(|m| Message {
                id: m.id,
                role: role_of(&m.role),
                content: m.content,
                seq: m.turn as u64,
            })
            .collect())
    }

    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        let key = (user.tenant.as_str(), user.user.as_str());
        let row = (memory.id.as_str(), memory.text.as_str());
        call!(self, |client| own_pg_store::remember(
            &mut client,
            key,
            row,
            embed(&memory.text)
        ))
    }

    async fn update_memory(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        self.remember(user, memory).await
    }

    async fn recall(
        &self,
        user: &UserKey,
        query: &str,
        k: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let key = (user.tenant.as_str(), user.user.as_str());
        let found = call!(self, |client| own_pg_store::recall(
            &mut client,
            key,
            embed(query),
            k as i64
        ))?;
        Ok(found
            .into_iter()
            .map(|(id, text)| Memory { id, text })
            .collect())
    }

    async fn forget(&self, user: &UserKey, id: &str) -> Result<(), StoreError> {
        let key = (user.tenant.as_str(), user.user.as_str());
        call!(self, |client| own_pg_store::forget(&mut client, key, id))
    }

    async fn audit_memories(&self, user: &UserKey) -> Result<MemoryAudit, StoreError> {
        self.pg.audit(user, AUDIT, embed).await
    }

    fn policy(&self) -> Policy {
        Policy {
            // Every message is kept; no TTL.
            messages_max: None,
            keep_first: false,
            summarizes: false,
            ttl: TtlPolicy::None,
            // It acknowledges only what PostgreSQL committed and flushed, and adds no loss
            // of its own.
            durability: Durability::Postgres(SynchronousCommit::On),
            appends_idempotent: true,
            // A broken connection is replaced on the next call.
            recovery_grace_ms: 0,
            eviction: amnesia::Eviction::Forbidden,
        }
    }
}

/// Seeds of the sweeps: `OWN_PG_STORE_SEEDS=a..b` to run others.
fn seeds() -> std::ops::Range<u64> {
    let range = std::env::var("OWN_PG_STORE_SEEDS").unwrap_or_else(|_| "0..24".into());
    let (start, end) = range.split_once("..").expect("OWN_PG_STORE_SEEDS is a..b");
    start.parse().expect("a seed")..end.parse().expect("a seed")
}

fn builder() -> Builder {
    // The factory takes a `PgContext`: the store is a pgvector store, and its runs default
    // to the pgvector backend's scenario (`replay`).
    Builder::new()
        .store(Store::new("own-pg-store", Adapter::new))
        .seeds(seeds())
}

#[cfg(not(feature = "stale-embedding"))]
#[test]
fn the_store_survives_every_seed() {
    assert_eq!(builder().scenario_config().name, "replay");
    builder().check();
}

/// An edit that keeps the memory's old embedding is caught: the audit's one query sees
/// vectors that are not their texts' (`index-drift`).
#[cfg(feature = "stale-embedding")]
#[test]
fn the_stale_embedding_is_caught() {
    let report = builder().sweep();
    assert!(!report.is_pass(), "{}", report.text());
    let classes: Vec<amnesia::ViolationClass> =
        report.summary.by_class.iter().map(|c| c.class).collect();
    let (fail, seeds) = (report.summary.fail, report.summary.seeds);
    eprintln!("stale embedding: {fail} of {seeds} seeds fail: {classes:?}");
    assert!(
        classes.contains(&amnesia::ViolationClass::IndexDrift),
        "{classes:?}"
    );
}
