//! Memory pressure: Redis runs with `maxmemory` and an eviction policy, and another
//! tenant's cache shares the instance (a noisy neighbour) and fills it, so eviction or
//! `-OOM` replies happen at the seed's own moments. Drawn from its own stream, for the
//! scenarios that ask for it ([`crate::ScenarioConfig::pressure`]).

use serde::{Deserialize, Serialize};

use super::prng::{between, chance, stream, Stream};
use super::scenario::ScenarioConfig;
pub use crate::model::setup::eviction::EvictionPolicy;

/// What an empty Redis 7.0.15 holds before its clients connect (`used_memory_startup`),
/// which every `maxmemory` of a plan is above.
pub(crate) const STARTUP_BYTES: u64 = 876_000;
/// Room a plan leaves above [`STARTUP_BYTES`] for clients and keys, at least; with the
/// standard scenario's connections (~40 KB each) and data (tens of KB) well inside it,
/// so `noeviction` refuses only while the neighbour's cache fills the rest.
pub(crate) const HEADROOM_BYTES_MIN: u64 = 768 * 1024;
/// At most this much room: the neighbour fills it within seconds.
pub(crate) const HEADROOM_BYTES_MAX: u64 = 2 * 1024 * 1024;
/// The neighbour writes one value this often at the most.
pub(crate) const NEIGHBOUR_EVERY_MS_MIN: u64 = 10;
/// Bytes of one value of the neighbour's, at most.
pub(crate) const NEIGHBOUR_VALUE_BYTES_MAX: u32 = 64 * 1024;
/// The longest TTL of a neighbour's key: its cache drains within this of its last write.
pub(crate) const NEIGHBOUR_TTL_MS_MAX: u64 = 10_000;

/// The prefix of the noisy neighbour's keys: the history keeps no fact of them (their
/// expiries and evictions are another tenant's).
pub const NEIGHBOUR_KEY_PREFIX: &str = "amnesia-neighbour:cache:";

/// Redis under memory pressure for one run.
///
/// ```
/// use amnesia::{EvictionPolicy, Plan, ScenarioConfig};
/// let plan = Plan::generate(3, &ScenarioConfig::pressure());
/// // A saved pressure plan replays as it was drawn.
/// assert_eq!(Plan::from_json(&plan.to_json_pretty()).unwrap(), plan);
/// let pressure = plan.pressure.expect("the pressure scenario presses every seed");
/// assert!(pressure.maxmemory_bytes > 876_000, "above an empty Redis's used_memory");
/// assert!(EvictionPolicy::ALL.contains(&pressure.policy));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pressure {
    /// Redis's `maxmemory`.
    pub maxmemory_bytes: u64,
    /// Redis's `maxmemory-policy`.
    pub policy: EvictionPolicy,
    /// Redis's `maxmemory-samples`.
    pub samples: u32,
    /// The other tenant's cache traffic.
    pub neighbour: Neighbour,
}

/// Another tenant's cache on the same Redis: `SET amnesia-neighbour:cache:<n> <value>
/// [PX ttl]`
/// every `every_ms` from `start_ms` until `end_ms`, each key new.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Neighbour {
    /// When its first write goes out.
    pub start_ms: u64,
    /// No write goes out at or after this.
    pub end_ms: u64,
    /// Between two writes.
    pub every_ms: u64,
    /// Bytes of each value.
    pub value_bytes: u32,
    /// Its keys' TTL; `None`: they stay until evicted.
    pub ttl_ms: Option<u64>,
}

impl Neighbour {
    /// When its keys are all gone, if they expire: the pressure's end for the liveness
    /// rule (under `noeviction` a full Redis refuses writes until then).
    pub fn drained_ms(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl_ms| self.end_ms + ttl_ms)
    }

    /// The times of its writes.
    pub fn writes_ms(&self) -> impl Iterator<Item = u64> + '_ {
        (self.start_ms..self.end_ms).step_by(self.every_ms.max(1) as usize)
    }
}

impl Pressure {
    /// `maxmemory 1.6 MB allkeys-lru (samples 5), a neighbour's 4096-byte values every
    /// 20 ms (ttl 5000 ms) from 1.2 s to 22.5 s`: the plan summary's line.
    pub fn describe(&self) -> String {
        let n = &self.neighbour;
        let ttl = n
            .ttl_ms
            .map_or_else(|| "no ttl".to_string(), |ttl_ms| format!("ttl {ttl_ms} ms"));
        format!(
            "maxmemory {} bytes {} (samples {}), a neighbour's {}-byte values every {} ms \
             ({ttl}) from {} ms to {} ms",
            self.maxmemory_bytes,
            self.policy.name(),
            self.samples,
            n.value_bytes,
            n.every_ms,
            n.start_ms,
            n.end_ms
        )
    }

    /// Within the limits a hand-edited plan must keep; the error is one line.
    pub(crate) fn validate(&self, duration_ms: u64) -> Result<(), String> {
        let n = &self.neighbour;
        let checks = [
            (
                self.maxmemory_bytes > STARTUP_BYTES
                    && self.maxmemory_bytes <= STARTUP_BYTES + HEADROOM_BYTES_MAX,
                "pressure.maxmemory_bytes is outside its bounds",
            ),
            (
                (1..=64).contains(&self.samples),
                "pressure.samples is outside 1..=64",
            ),
            (
                n.start_ms <= n.end_ms && n.end_ms <= duration_ms,
                "pressure.neighbour's writes are outside the busy phase",
            ),
            (
                n.every_ms >= NEIGHBOUR_EVERY_MS_MIN,
                "pressure.neighbour.every_ms is below its minimum",
            ),
            (
                (1..=NEIGHBOUR_VALUE_BYTES_MAX).contains(&n.value_bytes),
                "pressure.neighbour.value_bytes is outside its bounds",
            ),
            (
                n.ttl_ms
                    .is_none_or(|ttl_ms| (1..=NEIGHBOUR_TTL_MS_MAX).contains(&ttl_ms)),
                "pressure.neighbour.ttl_ms is outside its bounds",
            ),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, error)) => Err(error.to_string()),
            None => Ok(()),
        }
    }
}

/// The seed's pressure under `scenario`: `None` unless it asks for one. The policy is
/// the scenario's, or drawn from all eight. Under `noeviction` and the `volatile-*`
/// policies the neighbour's keys expire (the former drains, the latter has candidates).
pub(crate) fn generate(seed: u64, scenario: &ScenarioConfig) -> Option<Pressure> {
    if !scenario.pressure {
        return None;
    }
    let mut rng = stream(seed, Stream::Pressure);
    let policy = scenario.maxmemory_policy.unwrap_or_else(|| {
        EvictionPolicy::ALL[between(&mut rng, 0, EvictionPolicy::ALL.len() as u64 - 1) as usize]
    });
    let maxmemory_bytes = STARTUP_BYTES + between(&mut rng, HEADROOM_BYTES_MIN, HEADROOM_BYTES_MAX);
    let duration_ms = scenario.duration_ms;
    let start_ms = between(&mut rng, 0, duration_ms / 4);
    let end_ms = between(&mut rng, duration_ms / 2, duration_ms * 3 / 4).max(start_ms);
    let every_ms = between(&mut rng, NEIGHBOUR_EVERY_MS_MIN, 100);
    let expires = !policy.name().starts_with("allkeys") || chance(&mut rng, 500_000);
    let ttl_ms = expires.then(|| between(&mut rng, 2_000, 8_000));
    // Enough to fill the room twice over: what its live keys hold (those written within
    // a TTL, or all of them) outgrows the headroom, so the limit is met mid-run.
    let live_writes = ttl_ms.map_or((end_ms - start_ms) / 2, |ttl_ms| ttl_ms) / every_ms;
    let fill_bytes = 2 * (maxmemory_bytes - STARTUP_BYTES);
    let value_bytes_min = (fill_bytes / live_writes.max(1)).clamp(512, 32 * 1024);
    let value_bytes = between(&mut rng, value_bytes_min, value_bytes_min * 2) as u32;
    let pressure = Pressure {
        maxmemory_bytes,
        policy,
        samples: 5,
        neighbour: Neighbour {
            start_ms,
            end_ms,
            every_ms,
            value_bytes,
            ttl_ms,
        },
    };
    debug_assert_eq!(pressure.validate(duration_ms), Ok(()));
    Some(pressure)
}
