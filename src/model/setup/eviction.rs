//! What a node does when its memory passes `maxmemory` (Redis's `maxmemory-policy`,
//! `maxmemory-samples`, `lfu-log-factor`, `lfu-decay-time`; `evict.c`).

use bytes::Bytes;
use serde::{Deserialize, Serialize};

/// Redis's `shared.oomerr`: the reply to a command refused for memory.
pub(crate) const OOM: &str = "OOM command not allowed when used memory > 'maxmemory'.";

/// One key deleted by eviction: the fact the history records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvictedKey {
    /// When, on the node's clock.
    pub at_ms: u64,
    pub db: usize,
    pub key: Bytes,
    pub policy: EvictionPolicy,
    /// `used_memory` when the round began, and the limit it was over.
    pub used_memory_bytes: u64,
    pub maxmemory_bytes: u64,
}

/// A candidate in the eviction pool: higher `rank` is evicted first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub(crate) rank: u64,
    pub(crate) db: usize,
    pub(crate) key: Bytes,
}

/// `maxmemory-policy`: which keys may be evicted, chosen how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvictionPolicy {
    /// The longest idle of the keys with a TTL, from a sampled pool.
    VolatileLru,
    /// The least frequently used of the keys with a TTL, from a sampled pool.
    VolatileLfu,
    /// Any key with a TTL.
    VolatileRandom,
    /// The key with a TTL soonest to expire, from a sampled pool.
    VolatileTtl,
    /// The longest idle key, from a sampled pool.
    AllkeysLru,
    /// The least frequently used key, from a sampled pool.
    AllkeysLfu,
    /// Any key.
    AllkeysRandom,
    /// Nothing is evicted: a write that needs memory gets `-OOM`.
    #[default]
    Noeviction,
}

/// How a policy ranks its candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rank {
    /// The longest idle first, from a sampled pool.
    Lru,
    /// The least frequently used first, from a sampled pool.
    Lfu,
    /// The soonest to expire first, from a sampled pool.
    Ttl,
    /// Any key, drawn at random.
    Random,
}

impl EvictionPolicy {
    /// Every policy in CONFIG SET's order (Redis's `maxmemory_policy_enum`).
    pub const ALL: [EvictionPolicy; 8] = [
        EvictionPolicy::VolatileLru,
        EvictionPolicy::VolatileLfu,
        EvictionPolicy::VolatileRandom,
        EvictionPolicy::VolatileTtl,
        EvictionPolicy::AllkeysLru,
        EvictionPolicy::AllkeysLfu,
        EvictionPolicy::AllkeysRandom,
        EvictionPolicy::Noeviction,
    ];

    /// The name `CONFIG SET maxmemory-policy` takes.
    ///
    /// ```
    /// use amnesia::EvictionPolicy;
    /// assert_eq!(EvictionPolicy::AllkeysLru.name(), "allkeys-lru");
    /// assert_eq!(EvictionPolicy::from_name("ALLKEYS-LRU"), Some(EvictionPolicy::AllkeysLru));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            EvictionPolicy::VolatileLru => "volatile-lru",
            EvictionPolicy::VolatileLfu => "volatile-lfu",
            EvictionPolicy::VolatileRandom => "volatile-random",
            EvictionPolicy::VolatileTtl => "volatile-ttl",
            EvictionPolicy::AllkeysLru => "allkeys-lru",
            EvictionPolicy::AllkeysLfu => "allkeys-lfu",
            EvictionPolicy::AllkeysRandom => "allkeys-random",
            EvictionPolicy::Noeviction => "noeviction",
        }
    }

    /// The policy `name` names, in any case.
    pub fn from_name(name: &str) -> Option<EvictionPolicy> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }

    /// `None` for noeviction.
    pub(crate) fn rank(self) -> Option<Rank> {
        match self {
            EvictionPolicy::VolatileLru | EvictionPolicy::AllkeysLru => Some(Rank::Lru),
            EvictionPolicy::VolatileLfu | EvictionPolicy::AllkeysLfu => Some(Rank::Lfu),
            EvictionPolicy::VolatileTtl => Some(Rank::Ttl),
            EvictionPolicy::VolatileRandom | EvictionPolicy::AllkeysRandom => Some(Rank::Random),
            EvictionPolicy::Noeviction => None,
        }
    }

    /// Only keys with a TTL are candidates.
    pub fn volatile(self) -> bool {
        self.name().starts_with("volatile-")
    }

    /// Access counts are kept (LFU) rather than access times.
    pub(crate) fn lfu(self) -> bool {
        self.rank() == Some(Rank::Lfu)
    }

    /// Small integers are not shared objects: each key needs its own access stamp
    /// (`MAXMEMORY_FLAG_NO_SHARED_INTEGERS`: the LRU and LFU policies).
    pub(crate) fn shares_integers(self) -> bool {
        !matches!(self.rank(), Some(Rank::Lru | Rank::Lfu))
    }
}

/// A node's memory limit and eviction settings, Redis 7.0's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaxMemory {
    /// `maxmemory`: 0 is no limit.
    pub bytes: u64,
    pub policy: EvictionPolicy,
    /// `maxmemory-samples`: keys sampled per database per eviction round.
    pub samples: u32,
    /// `lfu-log-factor`: how slowly the access counter grows.
    pub lfu_log_factor: u32,
    /// `lfu-decay-time`: minutes per step down of an idle key's counter (0: never).
    pub lfu_decay_time_min: u32,
}

impl Default for MaxMemory {
    fn default() -> Self {
        MaxMemory {
            bytes: 0,
            policy: EvictionPolicy::Noeviction,
            samples: 5,
            lfu_log_factor: 10,
            lfu_decay_time_min: 1,
        }
    }
}
