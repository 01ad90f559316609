//! Eviction under `maxmemory` (Redis 7.0's `evict.c`): before a command runs, a node
//! over its limit deletes keys by its policy until it is under again, or finds nothing
//! it may delete, which makes a `denyoom` command fail with `-OOM`.
//!
//! The sampled policies keep Redis's eviction pool: 16 candidates across calls, best
//! (most idle, least used, soonest to expire) last; each round samples
//! `maxmemory-samples` keys of every database into it and evicts its best key that still
//! exists. Redis samples with `dictGetSomeKeys` (a random bucket and its neighbours); the
//! model draws distinct keys uniformly from the node's seeded stream. Drawing a key by
//! position walks the keyspace, so one round costs O(keys), as RANDOMKEY does.

use crate::model::data::keyspace::Db;
use crate::model::data::lfu::LfuParams;
use crate::model::persistence::aof::AofEntry;
use crate::model::setup::eviction::{Candidate, EvictedKey, Rank};
use crate::model::state::node::Node;
use bytes::Bytes;
use rand::Rng;

/// Redis's `EVPOOL_SIZE`.
pub(crate) const POOL_SIZE: usize = 16;

/// Keys one command's evictions may delete: past it the node stays over its limit and
/// answers as if nothing could be freed (Redis bounds a round by time instead).
const EVICTIONS_PER_COMMAND_MAX: usize = 100_000;

/// Evicted keys a node remembers; later ones are counted in `stats` only.
pub const EVICTED_LOG_MAX: usize = 100_000;

impl Node {
    /// Make the databases follow the maxmemory settings: shared integers, LFU counting.
    pub(crate) fn apply_maxmemory(&mut self) {
        let limits = self.config.maxmemory;
        let shared = limits.bytes == 0 || limits.policy.shares_integers();
        let lfu = limits.policy.lfu().then_some(LfuParams {
            log_factor: limits.lfu_log_factor,
            decay_time_min: limits.lfu_decay_time_min,
        });
        let seed = self.config.random_seed;
        for (index, db) in self.dbs.iter_mut().enumerate() {
            db.set_shared_ints(shared);
            db.set_lfu(
                lfu,
                seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            );
        }
    }

    /// Redis's `performEvictions`: true when the node is over `maxmemory` and could not
    /// get under it (noeviction, no candidate left): a `denyoom` command is refused.
    pub(crate) fn perform_evictions(&mut self, now_ms: u64) -> bool {
        let limits = self.config.maxmemory;
        let used = self.used_memory_bytes() as u64;
        if limits.bytes == 0 || used <= limits.bytes {
            return false;
        }
        let Some(rank) = limits.policy.rank() else {
            return true;
        };
        let to_free = used - limits.bytes;
        let mut freed = 0;
        let mut evicted = 0;
        while freed < to_free {
            if evicted == EVICTIONS_PER_COMMAND_MAX {
                return true;
            }
            let Some((db, key)) = self.choose_victim(rank, limits.policy.volatile(), now_ms) else {
                return true;
            };
            let before = self.used_memory_bytes() as u64;
            self.evict(db, key, now_ms, used);
            freed += before.saturating_sub(self.used_memory_bytes() as u64);
            evicted += 1;
        }
        false
    }

    /// Delete `key` as an eviction: counted, logged, a DEL in the append-only log, and
    /// its watchers told (Redis's `signalModifiedKey`).
    fn evict(&mut self, db: usize, key: Bytes, now_ms: u64, used_bytes: u64) {
        assert!(self.dbs[db].remove(&key).is_some(), "a victim exists");
        self.stats.evicted_keys += 1;
        if self.evicted_log.len() < EVICTED_LOG_MAX {
            self.evicted_log.push(EvictedKey {
                at_ms: now_ms,
                db,
                key: key.clone(),
                policy: self.config.maxmemory.policy,
                used_memory_bytes: used_bytes,
                maxmemory_bytes: self.config.maxmemory.bytes,
            });
        }
        let commands = vec![vec![Bytes::from_static(b"DEL"), key]];
        let entry = AofEntry {
            db,
            at_ms: now_ms,
            commands,
        };
        self.aof.append(entry, &self.dbs);
        self.settle_modifications(now_ms);
    }

    /// The next key to evict, or `None` when no key is a candidate.
    fn choose_victim(&mut self, rank: Rank, volatile: bool, now_ms: u64) -> Option<(usize, Bytes)> {
        if rank == Rank::Random {
            return self.random_victim(volatile);
        }
        loop {
            let mut candidates_total = 0;
            for index in 0..self.dbs.len() {
                let len = candidates_len(&self.dbs[index], volatile);
                if len > 0 {
                    self.populate_pool(index, rank, volatile, now_ms);
                    candidates_total += len;
                }
            }
            if candidates_total == 0 {
                return None;
            }
            // The best first; a key deleted since it entered the pool is dropped.
            while let Some(best) = self.evict_pool.pop() {
                let db = &self.dbs[best.db];
                let present = if volatile {
                    db.peek(&best.key).is_some_and(|e| e.expire_at_ms.is_some())
                } else {
                    db.holds(&best.key)
                };
                if present {
                    return Some((best.db, best.key));
                }
            }
        }
    }

    /// Redis's `evictionPoolPopulate`: sample one database's candidates into the pool.
    fn populate_pool(&mut self, index: usize, rank: Rank, volatile: bool, now_ms: u64) {
        let db = &self.dbs[index];
        let len = candidates_len(db, volatile);
        let samples = (self.config.maxmemory.samples as usize).min(len);
        let positions = distinct_positions(&mut self.rng, len, samples);
        for key in keys_at(db, volatile, positions) {
            let entry = db.peek(&key).expect("a sampled key exists");
            let rank = match rank {
                // Idle time at the LRU clock's resolution of a second.
                Rank::Lru => (now_ms / 1000).saturating_sub(entry.accessed_ms / 1000) * 1000,
                Rank::Lfu => {
                    let params = db.lfu_params().expect("an LFU policy counts accesses");
                    255 - u64::from(entry.lfu.decayed(now_ms, params))
                }
                Rank::Ttl => u64::MAX - entry.expire_at_ms.expect("a volatile key"),
                Rank::Random => unreachable!("random policies keep no pool"),
            };
            insert_candidate(
                &mut self.evict_pool,
                Candidate {
                    rank,
                    db: index,
                    key,
                },
            );
        }
    }

    /// The random policies: a random key of the next database that has one, the
    /// databases taken in turn across calls (Redis's `next_db`).
    fn random_victim(&mut self, volatile: bool) -> Option<(usize, Bytes)> {
        let databases = self.dbs.len();
        for _ in 0..databases {
            self.evict_next_db = (self.evict_next_db + 1) % databases;
            let db = &self.dbs[self.evict_next_db];
            let len = candidates_len(db, volatile);
            if len > 0 {
                let at = self.rng.random_range(0..len);
                let key = keys_at(db, volatile, vec![at]).pop().expect("in range");
                return Some((self.evict_next_db, key));
            }
        }
        None
    }
}

/// The keys a policy may evict from `db`.
fn candidates_len(db: &Db, volatile: bool) -> usize {
    if volatile {
        db.expires_len()
    } else {
        db.len()
    }
}

/// The keys at `positions` among `db`'s candidates (in key order, or deadline order for
/// volatile ones), in one walk.
fn keys_at(db: &Db, volatile: bool, mut positions: Vec<usize>) -> Vec<Bytes> {
    positions.sort_unstable();
    let mut keys = Vec::with_capacity(positions.len());
    let mut walked: Box<dyn Iterator<Item = &Bytes>> = if volatile {
        Box::new((0..db.expires_len()).map_while(|i| db.expiring_at(i)))
    } else {
        Box::new(db.keys())
    };
    let mut next = 0;
    for at in positions {
        let key = walked
            .nth(at - next)
            .expect("a position inside the keyspace");
        keys.push(key.clone());
        next = at + 1;
    }
    keys
}

/// `count` distinct positions of `0..len` (Floyd's algorithm): `count` draws.
fn distinct_positions(rng: &mut impl Rng, len: usize, count: usize) -> Vec<usize> {
    assert!(count <= len, "no more samples than candidates");
    let mut chosen: Vec<usize> = Vec::with_capacity(count);
    for upper in len - count..len {
        let drawn = rng.random_range(0..=upper);
        chosen.push(if chosen.contains(&drawn) {
            upper
        } else {
            drawn
        });
    }
    chosen
}

/// Redis's pool insertion: ascending by rank; a full pool drops its worst (leftmost)
/// candidate for a better one and ignores one worse than all it holds.
fn insert_candidate(pool: &mut Vec<Candidate>, candidate: Candidate) {
    let at = pool
        .iter()
        .position(|c| c.rank >= candidate.rank)
        .unwrap_or(pool.len());
    if pool.len() < POOL_SIZE {
        pool.insert(at, candidate);
    } else if at > 0 {
        pool.remove(0);
        pool.insert(at - 1, candidate);
    }
    assert!(pool.len() <= POOL_SIZE);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::protocol::client::ClientState;
    use crate::model::protocol::reply::Reply;
    use crate::model::setup::config::ModelConfig;
    use crate::model::setup::eviction::EvictionPolicy;
    use crate::model::state::memory::{CLIENT_BYTES, STARTUP_BYTES};

    fn run(node: &mut Node, client: &mut ClientState, at_ms: u64, args: &[&str]) -> Reply {
        let args = args.iter().map(|a| Bytes::copy_from_slice(a.as_bytes()));
        node.execute(client, args.collect(), at_ms).reply
    }

    /// A node whose limit leaves room for about `keys` string keys of 100 bytes.
    fn limited(policy: &str, keys: u64) -> (Node, ClientState) {
        let mut node = Node::new(ModelConfig::default(), 1_000_000);
        let mut client = node.connect();
        let limit = (STARTUP_BYTES + CLIENT_BYTES) as u64 + keys * 200;
        let limit = limit.to_string();
        let set = [
            "CONFIG",
            "SET",
            "maxmemory",
            &limit,
            "maxmemory-policy",
            policy,
        ];
        assert_eq!(run(&mut node, &mut client, 1_000_000, &set), Reply::ok());
        (node, client)
    }

    fn value() -> String {
        "v".repeat(100)
    }

    #[test]
    fn noeviction_refuses_denyoom_writes_and_serves_the_rest() {
        let (mut node, mut client) = limited("noeviction", 10);
        let mut refused_at = None;
        for i in 0..100 {
            let reply = run(
                &mut node,
                &mut client,
                1_000_000,
                &["SET", &format!("k{i}"), &value()],
            );
            if reply != Reply::ok() {
                assert_eq!(reply, Reply::error(crate::model::setup::eviction::OOM));
                refused_at.get_or_insert(i);
            }
        }
        let refused_at = refused_at.expect("the limit is reached");
        assert!((5..20).contains(&refused_at), "{refused_at}");
        // Reads and deletions are not denyoom; a deletion makes room again.
        assert_eq!(
            run(&mut node, &mut client, 1_000_000, &["GET", "k0"]),
            Reply::bulk(Bytes::from(value()))
        );
        assert_eq!(
            run(
                &mut node,
                &mut client,
                1_000_000,
                &["DEL", "k0", "k1", "k2"]
            ),
            Reply::Integer(3)
        );
        assert_eq!(
            run(&mut node, &mut client, 1_000_000, &["SET", "again", "1"]),
            Reply::ok()
        );
        assert_eq!(node.stats.evicted_keys, 0);
    }

    #[test]
    fn out_of_memory_inside_multi_refuses_queueing_and_exec_with_a_denyoom_queue() {
        let oom = Reply::error(crate::model::setup::eviction::OOM);
        let (mut node, mut client) = limited("noeviction", 0);
        let mut other = node.connect();
        let limit = ((STARTUP_BYTES + 2 * CLIENT_BYTES) as u64).to_string();
        let set = ["CONFIG", "SET", "maxmemory", &limit];
        assert_eq!(run(&mut node, &mut client, 1_000_000, &set), Reply::ok());
        assert_eq!(
            run(&mut node, &mut client, 1_000_000, &["MULTI"]),
            Reply::ok()
        );
        let queued = run(&mut node, &mut client, 1_000_000, &["SET", "mine", "1"]);
        assert_eq!(queued, Reply::status("QUEUED"));
        // Another client fills the node while the transaction is open.
        assert_eq!(
            run(&mut node, &mut other, 1_000_000, &["SET", "k", &value()]),
            Reply::ok()
        );
        assert_eq!(
            run(&mut node, &mut client, 1_000_000, &["GET", "k"]),
            oom,
            "queueing is refused"
        );
        let exec = run(&mut node, &mut client, 1_000_000, &["EXEC"]);
        let abort =
            "EXECABORT Transaction discarded because of: OOM command not allowed when used \
                     memory > 'maxmemory'.";
        assert_eq!(exec, Reply::error(abort));
        // Not in MULTI: MULTI itself, reads and EXEC of reads are served.
        assert_eq!(
            run(&mut node, &mut client, 1_000_000, &["MULTI"]),
            Reply::ok()
        );
        assert_eq!(
            run(&mut node, &mut client, 1_000_000, &["DISCARD"]),
            Reply::ok()
        );
    }

    #[test]
    fn allkeys_lru_evicts_the_idle_keys_and_records_each() {
        let (mut node, mut client) = limited("allkeys-lru", 60);
        for i in 0..50 {
            run(
                &mut node,
                &mut client,
                1_000_000 + i * 1_000,
                &["SET", &format!("old{i}"), &value()],
            );
        }
        // The newest half is read again much later: the oldest half is idle.
        for i in 25..50 {
            run(
                &mut node,
                &mut client,
                2_000_000,
                &["GET", &format!("old{i}")],
            );
        }
        assert!(node.evicted_log.is_empty(), "room for the old keys");
        for i in 0..30 {
            let reply = run(
                &mut node,
                &mut client,
                2_000_000,
                &["SET", &format!("new{i}"), &value()],
            );
            assert_eq!(reply, Reply::ok());
        }
        let evicted = &node.evicted_log;
        assert!(evicted.len() >= 10, "{}", evicted.len());
        assert_eq!(node.stats.evicted_keys, evicted.len() as u64);
        let idle = |key: &Bytes| {
            key.starts_with(b"old")
                && std::str::from_utf8(&key[3..])
                    .unwrap()
                    .parse::<u32>()
                    .unwrap()
                    < 25
        };
        assert!(evicted.iter().all(|e| idle(&e.key)), "{evicted:?}");
        assert!(evicted
            .iter()
            .all(|e| e.policy == EvictionPolicy::AllkeysLru
                && e.used_memory_bytes > e.maxmemory_bytes));
        assert!(node.used_memory_bytes() as u64 <= node.config.maxmemory.bytes + 200);
    }

    #[test]
    fn volatile_policies_evict_only_keys_with_a_ttl_and_oom_without_them() {
        for policy in [
            "volatile-lru",
            "volatile-lfu",
            "volatile-random",
            "volatile-ttl",
        ] {
            let (mut node, mut client) = limited(policy, 20);
            for i in 0..10 {
                run(
                    &mut node,
                    &mut client,
                    1_000_000,
                    &[
                        "SET",
                        &format!("ttl{i}"),
                        &value(),
                        "EX",
                        &(1000 + i).to_string(),
                    ],
                );
            }
            let mut oom = false;
            for i in 0..60 {
                let reply = run(
                    &mut node,
                    &mut client,
                    1_000_000,
                    &["SET", &format!("keep{i}"), &value()],
                );
                oom |= reply.is_error();
            }
            assert!(oom, "{policy}: without volatile keys left, writes fail");
            assert_eq!(node.evicted_log.len(), 10, "{policy}");
            assert!(
                node.evicted_log.iter().all(|e| e.key.starts_with(b"ttl")),
                "{policy}"
            );
        }
    }

    #[test]
    fn a_scripts_first_denyoom_call_is_refused_when_out_of_memory() {
        let (mut node, mut client) = limited("noeviction", 0);
        run(&mut node, &mut client, 1_000_000, &["SET", "k", &value()]);
        let reply = run(
            &mut node,
            &mut client,
            1_000_000,
            &["EVAL", "return redis.pcall('SET', 'x', '1')", "0"],
        );
        let Reply::Error(text) = reply else {
            panic!("an error table: {reply:?}")
        };
        assert!(text.starts_with("OOM command not allowed"), "{text}");
        let after_a_write = "redis.call('DEL', 'nothing'); return redis.call('SET', 'x', '1')";
        assert_eq!(
            run(
                &mut node,
                &mut client,
                1_000_000,
                &["EVAL", after_a_write, "0"]
            ),
            Reply::ok()
        );
    }

    #[test]
    fn config_answers_the_settings_and_info_the_counters() {
        let (mut node, mut client) = limited("allkeys-lfu", 5);
        let get = run(
            &mut node,
            &mut client,
            1_000_000,
            &["CONFIG", "GET", "maxmemory-policy"],
        );
        assert_eq!(
            get,
            Reply::Map(vec![(
                Reply::bulk(Bytes::from_static(b"maxmemory-policy")),
                Reply::bulk(Bytes::from_static(b"allkeys-lfu"))
            )])
        );
        let refused = run(
            &mut node,
            &mut client,
            1_000_000,
            &["CONFIG", "SET", "maxmemory-samples", "0"],
        );
        assert!(refused.is_error());
        for i in 0..30 {
            run(
                &mut node,
                &mut client,
                1_000_000,
                &["SET", &format!("k{i}"), &value()],
            );
        }
        let Reply::Bulk(info) = run(&mut node, &mut client, 1_000_000, &["INFO"]) else {
            panic!()
        };
        let info = String::from_utf8_lossy(&info).into_owned();
        assert!(info.contains("maxmemory_policy:allkeys-lfu"), "{info}");
        assert!(info.contains(&format!("evicted_keys:{}", node.stats.evicted_keys)));
        assert!(node.stats.evicted_keys > 0);
        let kept = node.dbs[0].keys().next().expect("a kept key").clone();
        let kept = String::from_utf8(kept.to_vec()).expect("an ASCII key");
        let Reply::Integer(freq) = run(
            &mut node,
            &mut client,
            1_000_000,
            &["OBJECT", "FREQ", &kept],
        ) else {
            panic!("OBJECT FREQ answers under an LFU policy")
        };
        assert!((0..=255).contains(&freq));
        let idle = run(
            &mut node,
            &mut client,
            1_000_000,
            &["OBJECT", "IDLETIME", &kept],
        );
        assert!(idle.is_error(), "{idle:?}");
    }

    fn candidate(rank: u64) -> Candidate {
        Candidate {
            rank,
            db: 0,
            key: Bytes::from(rank.to_string()),
        }
    }

    #[test]
    fn a_full_pool_keeps_the_sixteen_best() {
        let mut pool = Vec::new();
        for rank in [
            5, 1, 9, 3, 7, 20, 11, 13, 2, 4, 6, 8, 10, 12, 14, 15, 16, 0, 30,
        ] {
            insert_candidate(&mut pool, candidate(rank));
        }
        let ranks: Vec<u64> = pool.iter().map(|c| c.rank).collect();
        // 16 dropped the worst (1) when it came, 0 was worse than all, 30 dropped 2.
        assert_eq!(
            ranks,
            [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 30]
        );
    }

    #[test]
    fn floyd_draws_distinct_positions() {
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        for len in 1..20 {
            let mut drawn = distinct_positions(&mut rng, len, len.min(5));
            drawn.sort_unstable();
            drawn.dedup();
            assert_eq!(drawn.len(), len.min(5));
            assert!(drawn.iter().all(|&p| p < len));
        }
    }
}
