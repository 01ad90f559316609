//! The same chat log on redis 1.x, as a team on the current major version writes it: its
//! `ConnectionManager` connects with TCP keepalive on (the crate's default), which sets
//! socket options on the OS socket under the stream.

use crate::{decode, keys, Entry, APPEND};
use redis1::aio::{ConnectionManager, ConnectionManagerConfig};
use redis1::{AsyncCommands, RedisResult};
use std::time::Duration;

/// [`crate::ChatLog`] on redis 1.x.
pub struct ChatLog {
    client: redis1::Client,
    /// Built by the first call; dropped after a timeout (see [`ChatLog::checked`]).
    connection: tokio::sync::Mutex<Option<ConnectionManager>>,
    pub ttl_secs: u64,
}

impl ChatLog {
    /// A log on the Redis at `url`; nothing is dialed until the first call.
    pub fn open(url: &str, ttl_secs: u64) -> RedisResult<ChatLog> {
        Ok(ChatLog {
            client: redis1::Client::open(url)?,
            connection: tokio::sync::Mutex::new(None),
            ttl_secs,
        })
    }

    async fn connection(&self) -> RedisResult<ConnectionManager> {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_secs(2)))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let mut cached = self.connection.lock().await;
        if let Some(manager) = cached.as_ref() {
            return Ok(manager.clone());
        }
        let manager = ConnectionManager::new_with_config(self.client.clone(), config).await?;
        *cached = Some(manager.clone());
        Ok(manager)
    }

    /// As on redis 0.27 ([`crate::ChatLog`]): a timeout drops the manager, whose dead
    /// connection would otherwise time out on every call.
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
        let applied = redis1::Script::new(APPEND)
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
        Ok(decode(&raw))
    }
}
