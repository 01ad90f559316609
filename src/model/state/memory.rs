//! The node's `used_memory` as Redis 7.0.15 reports it in INFO memory: what the server
//! holds at startup, each connected client, and every database's keys and tables
//! (`data::memory`). O(1) per database: the keyspace keeps its share as keys change.

use crate::model::state::node::Node;

/// `used_memory_startup` of redis-server 7.0.15 (jemalloc 5.3, x86_64, no modules):
/// what an empty server holds before any client connects.
pub(crate) const STARTUP_BYTES: usize = 876_000;

/// What one connected client holds once it has sent a command: its `client` structure,
/// its 16 KB reply buffer and its query buffer (redis-server 7.0.15: ten clients that
/// each sent PING added 405,600 bytes). Redis shrinks an idle client's buffers in its
/// cron, so a real server's figure moves by up to about 20 KB a client around this.
pub(crate) const CLIENT_BYTES: usize = 40_560;

impl Node {
    /// INFO memory's `used_memory`.
    pub fn used_memory_bytes(&self) -> usize {
        let clients = self.stats.connected_clients as usize * CLIENT_BYTES;
        let dbs: usize = self.dbs.iter().map(|db| db.used_memory_bytes()).sum();
        STARTUP_BYTES + clients + dbs
    }

    /// The keys' share of `used_memory` (INFO's `used_memory_dataset` is close to it).
    pub fn dataset_bytes(&self) -> usize {
        self.dbs.iter().map(|db| db.used_memory_bytes()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::setup::config::ModelConfig;
    use bytes::Bytes;
    use rand::{Rng, SeedableRng};

    /// The running figure equals a recount from every entry after any command: every
    /// change reaches the tally (a handler that changed a collection without touching
    /// its key would fail here).
    #[test]
    fn the_running_figure_equals_a_recount_after_every_command() {
        let mut node = Node::new(ModelConfig::default(), 1_000);
        let mut client = node.connect();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(48);
        const SHAPES: &[&[&str]] = &[
            &["RPUSH", "l", "v"],
            &["LPOP", "l"],
            &["LTRIM", "l", "1", "-2"],
            &["LSET", "l", "0", "w"],
            &["LREM", "l", "0", "v"],
            &["LINSERT", "l", "BEFORE", "w", "x"],
            &["LMOVE", "l", "l2", "LEFT", "RIGHT"],
            &["HSET", "h", "f", "v"],
            &["HDEL", "h", "f"],
            &["HINCRBY", "h", "n", "7"],
            &["SADD", "s", "v"],
            &["SREM", "s", "v"],
            &["SPOP", "s"],
            &["SMOVE", "s", "s2", "v"],
            &["SINTERSTORE", "s3", "s", "s2"],
            &["ZADD", "z", "1.5", "v"],
            &["ZINCRBY", "z", "2", "v"],
            &["ZREM", "z", "v"],
            &["ZPOPMIN", "z"],
            &["SET", "k", "v"],
            &["APPEND", "k", "v"],
            &["INCR", "n"],
            &["EXPIRE", "k", "100"],
            &["PERSIST", "k"],
            &["DEL", "l"],
            &["RENAME", "h", "h2"],
            &["COPY", "z", "z2"],
        ];
        for _ in 0..5_000 {
            let shape = SHAPES[rng.random_range(0..SHAPES.len())];
            let size = [1, 8, 70, 300][rng.random_range(0..4)];
            let args = shape.iter().map(|word| match *word {
                "v" | "f" => Bytes::from("v".repeat(size) + &rng.random_range(0..40).to_string()),
                other => Bytes::copy_from_slice(other.as_bytes()),
            });
            node.execute(&mut client, args.collect(), 2_000);
            for db in &node.dbs {
                let (running, recounted) = db.entries_bytes_recounted();
                assert_eq!(running, recounted, "after {shape:?}");
            }
        }
        assert!(node.used_memory_bytes() > STARTUP_BYTES + CLIENT_BYTES);
    }
}
