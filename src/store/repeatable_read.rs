//! The pgvector store's append under REPEATABLE READ, as a team writes it when it drops
//! the session's advisory lock ("one lock per session serializes every write through
//! one backend") and lets PostgreSQL's first-updater-wins rule do the serializing: every
//! append upserts its session's row, so of two appends of one session in flight together
//! the second to reach the row fails with 40001 (`could not serialize access due to
//! concurrent update`), or 40P01 when their locks cross. What the store does then is
//! [`OnConflict`]: PostgreSQL's documentation says to retry the whole transaction
//! ([`OnConflict::RetryTransaction`], correct); the catalogue's
//! `pgvector-conflict-swallowed` does what many a team's history layer does
//! ([`OnConflict::AssumeOtherWriterWon`]).

use crate::contract::StoreError;
use crate::domain::{Message, SessionKey};
use crate::postgres::PgConnector;
use crate::store::pgvector::{PURGE_EXPIRED, PURGE_EXPIRED_MESSAGES, TRIM_WINDOW, UPSERT_SESSION};
use tokio_postgres::error::SqlState;
use tokio_postgres::IsolationLevel;

/// Attempts of one append under [`OnConflict::RetryTransaction`] before its 40001 is the
/// caller's: each conflict means another append of the session committed, so a session
/// with fewer writers than this in flight always gets through.
const ATTEMPTS_MAX: usize = 8;

/// What a REPEATABLE READ append does when PostgreSQL fails it with 40001 or 40P01.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnConflict {
    /// Run the whole transaction again on a fresh snapshot, up to eight
    /// times, then report the failure: PostgreSQL's documented rule (13.2.2, "applications
    /// using this level must be prepared to retry transactions due to serialization
    /// failures").
    RetryTransaction,
    /// The bug (`pgvector-conflict-swallowed`): the store's `ignore_conflict` helper was
    /// written for the session's TTL touch, an idempotent upsert where a concurrent
    /// writer's row is as good as ours ("someone else updated the session first; fine"),
    /// and the append reuses it. A conflicting append is rolled back and reported as
    /// stored: the message of the second of two overlapping turns (a second tab, a double
    /// submit, the answer of the previous turn) is acknowledged and never written.
    AssumeOtherWriterWon,
}

/// The session and message an append writes, owned for the connection's closure.
pub(crate) struct AppendRow {
    tenant: String,
    session: String,
    id: String,
    body: Vec<u8>,
    ttl_ms: f64,
    keep: i64,
}

impl AppendRow {
    pub(crate) fn new(session: &SessionKey, msg: &Message, ttl_ms: u64, keep: usize) -> Self {
        AppendRow {
            tenant: session.tenant.clone(),
            session: session.session.clone(),
            id: msg.id.clone(),
            body: crate::store::reference::encode_message(msg),
            ttl_ms: ttl_ms as f64,
            keep: keep as i64,
        }
    }
}

/// Whether `error` is one PostgreSQL asks the client to answer by running the
/// transaction again: a serialization failure or a deadlock victim.
pub(crate) fn is_conflict(error: &tokio_postgres::Error) -> bool {
    matches!(
        error.code(),
        Some(code) if *code == SqlState::T_R_SERIALIZATION_FAILURE
            || *code == SqlState::T_R_DEADLOCK_DETECTED
    )
}

/// Append `row` under REPEATABLE READ (after the session's `sets`, the store's `SET`s
/// before a write), meeting a conflict as `on` says.
pub(crate) async fn append(
    pg: &PgConnector,
    row: AppendRow,
    sets: Option<String>,
    on: OnConflict,
) -> Result<(), StoreError> {
    pg.run(move |client| {
        Box::pin(async move {
            if let Some(sets) = &sets {
                client.batch_execute(sets).await?;
            }
            let mut attempt = 1;
            loop {
                debug_assert!(attempt <= ATTEMPTS_MAX);
                match (attempt_once(client, &row).await, on) {
                    (Err(error), OnConflict::RetryTransaction)
                        if is_conflict(&error) && attempt < ATTEMPTS_MAX =>
                    {
                        attempt += 1;
                    }
                    (Err(error), OnConflict::AssumeOtherWriterWon) => {
                        return ignore_conflict(Err(error))
                    }
                    (outcome, _) => return outcome,
                }
            }
        })
    })
    .await
}

/// The team's helper: a conflict means a concurrent writer got there first, taken as
/// success (right for an idempotent touch, wrong for an append).
fn ignore_conflict(
    outcome: Result<(), tokio_postgres::Error>,
) -> Result<(), tokio_postgres::Error> {
    match outcome {
        Err(error) if is_conflict(&error) => Ok(()),
        other => other,
    }
}

/// One transaction of the append, the reference's statements but its lock: the expired
/// session purged, the session row upserted (where two appends of a session meet), then the message, moved to the end if re-sent, and the window trimmed.
async fn attempt_once(
    client: &mut tokio_postgres::Client,
    row: &AppendRow,
) -> Result<(), tokio_postgres::Error> {
    let (tenant, name) = (&row.tenant, &row.session);
    let tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .start()
        .await?;
    tx.execute(PURGE_EXPIRED, &[tenant, name]).await?;
    tx.execute(PURGE_EXPIRED_MESSAGES, &[tenant, name]).await?;
    tx.execute(
        UPSERT_SESSION,
        &[tenant, name, &row.id, &row.body, &row.ttl_ms],
    )
    .await?;
    tx.execute(
        "DELETE FROM chat_messages WHERE tenant = $1 AND session = $2 AND id = $3",
        &[tenant, name, &row.id],
    )
    .await?;
    tx.execute(
        "INSERT INTO chat_messages (tenant, session, id, body) VALUES ($1, $2, $3, $4)",
        &[tenant, name, &row.id, &row.body],
    )
    .await?;
    tx.execute(TRIM_WINDOW, &[tenant, name, &row.keep]).await?;
    tx.commit().await
}
