//! A chat log store written the way a team writes one, with no thought of amnesia: it
//! opens its own `redis::Client` from a URL and keeps a `ConnectionManager`, stamps every
//! entry with a `uuid` v4 and `chrono::Utc::now()`, and appends through a Lua script so a
//! retried message (its first reply lost) is stored once. `tests/madsim.rs` runs it,
//! unchanged, on amnesia's madsim engine. Beside it, the team's pgvector memory store on
//! sqlx ([`pg_sqlx`]) and on tokio-postgres ([`pg_tokio`]), swept by `tests/pgvector.rs`.

pub mod export;
pub mod pg_schema;
pub mod pg_sqlx;
pub mod pg_tokio;
pub mod redis1;
#[cfg(feature = "swiftide")]
pub mod swiftide;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, RedisResult};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One stored message of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The application's message id: the idempotency key of an append.
    pub id: String,
    /// This store's own id of the entry.
    pub entry: String,
    pub role: String,
    pub content: String,
    /// The conversation's turn counter when it was written.
    pub turn: u64,
    /// When the store wrote it (RFC 3339).
    pub written_at: String,
}

impl Entry {
    /// A new entry, stamped with its own id and the time, and its stored form.
    fn stamped(id: &str, role: &str, content: &str, turn: u64) -> (Entry, String) {
        let entry = Entry {
            id: id.to_string(),
            entry: uuid::Uuid::new_v4().to_string(),
            role: role.to_string(),
            content: content.to_string(),
            turn,
            written_at: chrono::Utc::now().to_rfc3339(),
        };
        let record = serde_json::to_string(&entry).expect("an entry always serializes");
        (entry, record)
    }
}

/// Conversations in Redis: a list of entries and the set of their ids, both expiring
/// `ttl_secs` after the last append.
pub struct ChatLog {
    client: redis::Client,
    /// Built by the first call; dropped after a timeout (see [`ChatLog::checked`]).
    connection: tokio::sync::Mutex<Option<ConnectionManager>>,
    pub ttl_secs: u64,
}

/// Appends `ARGV[2]` unless id `ARGV[1]` was stored already; refreshes both keys' TTL.
const APPEND: &str = r"
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  redis.call('RPUSH', KEYS[1], ARGV[2])
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
";

impl ChatLog {
    /// A log on the Redis at `url`; nothing is dialed until the first call.
    pub fn open(url: &str, ttl_secs: u64) -> RedisResult<ChatLog> {
        Ok(ChatLog {
            client: redis::Client::open(url)?,
            connection: tokio::sync::Mutex::new(None),
            ttl_secs,
        })
    }

    async fn connection(&self) -> RedisResult<ConnectionManager> {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Duration::from_secs(1))
            .set_response_timeout(Duration::from_secs(2))
            .set_number_of_retries(2);
        // redis 0.27's defaults back off 1 s, then 60 s and more (its factor 100 is
        // backon's multiplier): a Redis pause through two connects stalls every request
        // for a minute. amnesia's madsim engine reports it as Stuck (`--features
        // default-backoff`, seed 2); the cap is the fix.
        #[cfg(not(feature = "default-backoff"))]
        let config = config.set_max_delay(500);
        let mut cached = self.connection.lock().await;
        if let Some(manager) = cached.as_ref() {
            return Ok(manager.clone());
        }
        let manager = ConnectionManager::new_with_config(self.client.clone(), config).await?;
        *cached = Some(manager.clone());
        Ok(manager)
    }

    /// A `ConnectionManager` reconnects when its connection fails, not when a reply never
    /// comes: a connection a network fault left dead times out on every call, long after
    /// the fault healed (amnesia's `unavailable`, `--features keep-dead-connection`, seed
    /// 11). The fix: after a timeout, drop the manager so the next call builds a new one.
    async fn checked<T>(&self, result: RedisResult<T>) -> RedisResult<T> {
        let timed_out = result.as_ref().is_err_and(|error| error.is_timeout());
        if timed_out && cfg!(not(feature = "keep-dead-connection")) {
            *self.connection.lock().await = None;
        }
        result
    }

    /// Store a message at the end of `conversation`; a second append of the same id
    /// stores nothing.
    pub async fn append(
        &self,
        conversation: &str,
        id: &str,
        role: &str,
        content: &str,
        turn: u64,
    ) -> RedisResult<Entry> {
        let (entry, record) = Entry::stamped(id, role, content, turn);
        let (list, ids) = keys(conversation);
        let mut connection = self.connection().await?;
        let applied = redis::Script::new(APPEND)
            .key(list)
            .key(ids)
            .arg(id)
            .arg(record)
            .arg(self.ttl_secs)
            .invoke_async::<i64>(&mut connection)
            .await;
        self.checked(applied).await?;
        Ok(entry)
    }

    /// The newest `limit` entries of `conversation`, oldest first.
    pub async fn recent(&self, conversation: &str, limit: usize) -> RedisResult<Vec<Entry>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let (list, _) = keys(conversation);
        let mut connection = self.connection().await?;
        let raw: Vec<String> = self
            .checked(connection.lrange(list, -(limit as isize), -1).await)
            .await?;
        Ok(raw
            .iter()
            .filter_map(|r| serde_json::from_str(r).ok())
            .collect())
    }
}

/// The list and id-set keys of a conversation (ids may hold any character: the
/// conversation id goes last, whole).
fn keys(conversation: &str) -> (String, String) {
    (
        format!("chat:log:{conversation}"),
        format!("chat:ids:{conversation}"),
    )
}

/// The entries of stored records, skipping any this code cannot read.
fn decode(raw: &[String]) -> Vec<Entry> {
    raw.iter()
        .filter_map(|r| serde_json::from_str(r).ok())
        .collect()
}
