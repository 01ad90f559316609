//! The settings of one modelled Redis node.

use serde::{Deserialize, Serialize};

pub use crate::domain::Persistence;

/// Settings of a modelled node; the defaults are Redis 7.0's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelConfig {
    /// `requirepass`: when set, clients must AUTH before any other command.
    pub password: Option<String>,
    pub databases: usize,
    pub persistence: Persistence,
    /// `proto-max-bulk-len`.
    pub bulk_bytes_max: u64,
    /// `client-query-buffer-limit`: a client whose unparsed input grows past this is closed.
    pub query_buffer_bytes_max: usize,
    /// Active expiry cycles per second (`hz`).
    pub expire_cycles_per_second: u32,
    /// Keys one active expiry cycle may delete per database before yielding.
    pub expire_cycle_keys_max: usize,
    /// Write commands kept in the append-only log before it is rewritten as a snapshot.
    pub aof_rewrite_commands_min: usize,
    /// Seeds the node's random choices (SPOP, SRANDMEMBER, RANDOMKEY, ...).
    #[serde(default)]
    pub random_seed: u64,
    /// Answer Redis 7.2's client subcommands as 7.2 does: `CLIENT SETINFO` (which clients
    /// send at connect: redis-rs, redis-py, Jedis, go-redis) and `CLIENT NO-TOUCH`. Off,
    /// they get Redis 7.0.15's unknown-subcommand error, as the differential tests' server
    /// answers. Off by default: amnesia's event and turmoil worlds hand stores
    /// connections of the `redis` crate, which ignores either answer, and their pinned
    /// traces hold 7.0.15's bytes; the madsim world (stores bring their own clients) and
    /// `amnesia serve-model` turn it on.
    #[serde(default)]
    pub client_commands_7_2: bool,
    /// `maxmemory` and how keys are evicted past it (CONFIG SET changes it).
    #[serde(default)]
    pub maxmemory: crate::model::setup::eviction::MaxMemory,
}

impl Default for ModelConfig {
    fn default() -> Self {
        Self {
            password: None,
            databases: 16,
            persistence: Persistence::None,
            bulk_bytes_max: 512 * 1024 * 1024,
            query_buffer_bytes_max: 1024 * 1024 * 1024,
            expire_cycles_per_second: 10,
            expire_cycle_keys_max: 1_000,
            aof_rewrite_commands_min: 10_000,
            random_seed: 0,
            client_commands_7_2: false,
            maxmemory: Default::default(),
        }
    }
}

impl ModelConfig {
    /// Checks the settings' ranges; a one-line reason otherwise.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=1024).contains(&self.databases) {
            return Err(format!(
                "databases must be 1..=1024, not {}",
                self.databases
            ));
        }
        if !(1..=500).contains(&self.expire_cycles_per_second) {
            return Err("expire_cycles_per_second must be 1..=500".into());
        }
        if self.expire_cycle_keys_max == 0 || self.aof_rewrite_commands_min == 0 {
            return Err("cycle and rewrite limits must be positive".into());
        }
        Ok(())
    }
}
