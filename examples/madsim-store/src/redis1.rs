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
    connection: tokio::sync::OnceCell<ConnectionManager>,
    pub ttl_secs: u64,
}

impl ChatLog {
    /// A log on the Redis at `url`; nothing is dialed until the first call.
    pub fn open(url: &str, ttl_secs: u64) -> RedisResult<ChatLog> {
        Ok(ChatLog {
            client: redis1::Client::open(url)?,
            connection: tokio::sync::OnceCell::new(),
            ttl_secs,
        })
    }

    async fn connection(&self) -> RedisResult<ConnectionManager> {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_secs(2)))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let manager = self
            .connection
            .get_or_try_init(|| ConnectionManager::new_with_config(self.client.clone(), config))
            .await?;
        Ok(manager.clone())
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
        redis1::Script::new(APPEND)
            .key(list)
            .key(ids)
            .arg(id)
            .arg(record)
            .arg(self.ttl_secs)
            .invoke_async::<i64>(&mut connection)
            .await?;
        Ok(entry)
    }

    /// The newest `limit` entries of `conversation`, oldest first.
    pub async fn recent(&self, conversation: &str, limit: usize) -> RedisResult<Vec<Entry>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let (list, _) = keys(conversation);
        let mut connection = self.connection().await?;
        let raw: Vec<String> = connection.lrange(list, -(limit as isize), -1).await?;
        Ok(decode(&raw))
    }
}
