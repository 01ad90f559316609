//! The scenario: the knobs a plan is generated from, with the standard defaults and the
//! hard limits every plan stays inside (so a hand-edited or shrunk plan cannot ask the
//! simulator for unbounded work).

use serde::{Deserialize, Serialize};

/// Redis nodes a plan may name. One for now: the catalogue's node faults come later.
pub const REDIS_NODES_MAX: u32 = 1;
/// App clients (hosts running the store) a plan may name.
pub const CLIENTS_MAX: u32 = 64;
/// Tenants a plan may name.
pub const TENANTS_MAX: u32 = 64;
/// Sessions per tenant a plan may name.
pub const SESSIONS_PER_TENANT_MAX: u32 = 64;
/// Sessions in one plan.
pub const SESSIONS_MAX: usize = 1_024;
/// Turns in one plan.
pub const TURNS_MAX: usize = 10_000;
/// Faults in one plan.
pub const FAULTS_MAX: usize = 10_000;
/// Bytes of one message's content.
pub const CONTENT_BYTES_MAX: usize = 64 * 1024;
/// Bytes of all message contents of one plan.
pub const PLAN_CONTENT_BYTES_MAX: usize = 64 * 1024 * 1024;
/// The context limit of one read.
pub const CONTEXT_LIMIT_MAX: usize = 1_000;
/// Simulated LLM latency of one turn.
pub const THINK_MS_MAX: u64 = 120_000;
/// Length of the busy phase.
pub const DURATION_MS_MAX: u64 = 3_600_000;
/// Length of the final fault-free quiet period.
pub const QUIET_MS_MAX: u64 = 600_000;
/// Session TTL.
pub const SESSION_TTL_MS_MAX: u64 = 3_600_000;
/// Gap between two turns of one session (user reading and typing).
pub const GAP_MS_MAX: u64 = 600_000;
/// One-way latency of one chunk on one link, tail included.
pub const LATENCY_US_MAX: u64 = 10_000_000;
/// Parts per million: the unit of every probability in a plan (integers round-trip
/// through JSON exactly, floats may not).
pub const PPM: u32 = 1_000_000;

/// What a plan is generated from. `Default` is the standard scenario: one Redis, three
/// clients, 4 tenants x 2 sessions, 60 turns (about 190 operations) over 30 s of virtual
/// time, then 5 s of quiet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScenarioConfig {
    /// Shown in summaries and reports.
    pub name: String,
    /// Redis nodes, from 1 to [`REDIS_NODES_MAX`] (one for now).
    pub redis_nodes: u32,
    /// App client processes; turns are spread over them.
    pub clients: u32,
    /// Tenants, each with its own sessions.
    pub tenants: u32,
    /// Sessions of each tenant.
    pub sessions_per_tenant: u32,
    /// Turns of the whole plan, spread over the sessions (every session gets at least one
    /// when there are enough turns).
    pub turns: u32,
    /// End of the busy phase: every turn starts and thinks, every fault ends, before it.
    pub duration_ms: u64,
    /// Fault-free period after the busy phase, before the final reads.
    pub quiet_ms: u64,
    /// The body of the think-time distribution, uniform.
    pub think_ms_min: u64,
    /// Upper end of that range, inclusive.
    pub think_ms_max: u64,
    /// Chance that a think time comes from the exponential tail instead.
    pub think_tail_ppm: u32,
    /// Mean of the exponential tail, in milliseconds.
    pub think_tail_mean_ms: u64,
    /// Tail samples are capped here.
    pub think_tail_ms_max: u64,
    /// Context limits of reads, uniform and inclusive.
    pub context_limit_min: u32,
    /// Upper end of that range, inclusive.
    pub context_limit_max: u32,
    /// The session TTL the store is configured with is drawn per seed in this range.
    pub session_ttl_ms_min: u64,
    /// Upper end of that range, inclusive.
    pub session_ttl_ms_max: u64,
    /// Gap between two turns of one session, uniform.
    pub gap_ms_min: u64,
    /// Upper end of that range, inclusive.
    pub gap_ms_max: u64,
    /// Chance that a gap is an idle period longer than the session TTL (the session
    /// expires before its next turn).
    pub idle_gap_ppm: u32,
    /// Chance that a session starts with a system message (exercises keep-first).
    pub system_message_ppm: u32,
    /// Chance that a seed renames two sessions so their names collide when joined with
    /// `:` (`(t, "s:u")` and `("t:s", u)`): catches key schemes that do not escape.
    pub colliding_names_ppm: u32,
    /// Per-seed fault mix on (VOPR swarm); off: no faults and calm, fixed latency.
    pub swarm: bool,
    /// Buggify points in store code may fire (FoundationDB's BUGGIFY). Hand-written
    /// plans that force one fault turn it off to see that fault alone.
    #[serde(default = "buggify_default")]
    pub buggify: bool,
    /// At quiescence, after the final reads, recall every memory text the plan wrote by
    /// itself (`k` = the largest a recall asks for): the incident suite's replay of every
    /// historical memory, which found the one index entry never built.
    #[serde(default)]
    pub replay_memories: bool,
    /// Every seed deploys, and the deploy's migration job has its connections reset
    /// within [`crate::plan::MIGRATION_RESET_MS_MAX`] of its start.
    #[serde(default)]
    pub migration: bool,
    /// Which of the plan's retries of a user message the driver sends ([`Retries`]).
    #[serde(default, skip_serializing_if = "Retries::is_auto")]
    pub retries: Retries,
    /// Memories each user holds before the first turn (a history corpus, remembered
    /// before the busy phase), drawn per user from this up to `corpus_memories_max`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub corpus_memories_min: u32,
    /// Upper end of that range, inclusive, at most [`CORPUS_MEMORIES_MAX`]; 0: no corpus
    /// (and left out of a saved plan, so plans written before it load alike).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub corpus_memories_max: u32,
    /// Every seed runs Redis under memory pressure ([`crate::Pressure`]): `maxmemory`,
    /// a policy, and another tenant's cache filling the instance. Left out of a saved
    /// plan when off.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pressure: bool,
    /// The pressure's `maxmemory-policy`; `None`: drawn per seed from all eight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maxmemory_policy: Option<crate::EvictionPolicy>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Memories a corpus scenario may preload per user.
pub const CORPUS_MEMORIES_MAX: u32 = 5_000;

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Which retries of a user message (same id) a run sends. A plan draws them for some
/// turns ([`crate::plan::Retry`]); this decides when they go out. Left out of a saved plan
/// when it is `Auto`, so plans written before it load and replay alike.
///
/// ```
/// use amnesia::{Retries, ScenarioConfig};
/// // An application that resends a message only when its first send errored or timed out.
/// let scenario = ScenarioConfig { retries: Retries::AfterFailure, ..ScenarioConfig::standard() };
/// assert_eq!(Retries::Auto.resolve(false), Retries::AfterFailure);
/// assert_eq!(Retries::Auto.resolve(true), Retries::Racing);
/// # let _ = scenario;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Retries {
    /// `Racing` for a store whose appends are idempotent by id, `AfterFailure` for one
    /// that declares they are not (`Policy::appends_idempotent`).
    #[default]
    Auto,
    /// The retry goes out on its own timer, racing the first send whatever becomes of
    /// it: a client timeout shorter than the request, a double submit of one id.
    Racing,
    /// The retry goes out only when the first send failed or timed out, its delay after
    /// that: an application that resends on error.
    AfterFailure,
    /// No retry goes out: an application that never resends a message.
    None,
}

impl Retries {
    /// The mode a run uses for a store whose appends are (or are not) idempotent.
    pub fn resolve(self, appends_idempotent: bool) -> Retries {
        match (self, appends_idempotent) {
            (Retries::Auto, true) => Retries::Racing,
            (Retries::Auto, false) => Retries::AfterFailure,
            (mode, _) => mode,
        }
    }

    fn is_auto(&self) -> bool {
        *self == Retries::Auto
    }
}

fn buggify_default() -> bool {
    true
}

impl Default for ScenarioConfig {
    fn default() -> Self {
        Self::standard()
    }
}

impl ScenarioConfig {
    /// The scenario sweeps, benchmarks and pinned snapshots use.
    pub fn standard() -> Self {
        Self {
            name: "standard".to_string(),
            redis_nodes: 1,
            clients: 3,
            tenants: 4,
            sessions_per_tenant: 2,
            turns: 60,
            duration_ms: 30_000,
            quiet_ms: 5_000,
            think_ms_min: 50,
            think_ms_max: 1_500,
            think_tail_ppm: 50_000,
            think_tail_mean_ms: 2_000,
            think_tail_ms_max: 10_000,
            context_limit_min: 4,
            context_limit_max: 20,
            session_ttl_ms_min: 2_000,
            session_ttl_ms_max: 10_000,
            gap_ms_min: 100,
            gap_ms_max: 3_000,
            idle_gap_ppm: 150_000,
            system_message_ppm: 500_000,
            colliding_names_ppm: 250_000,
            swarm: true,
            buggify: true,
            replay_memories: false,
            migration: false,
            retries: Retries::Auto,
            corpus_memories_min: 0,
            corpus_memories_max: 0,
            pressure: false,
            maxmemory_policy: None,
        }
    }

    /// The scenario a store of `backend` runs when none is named ([`crate::Builder`],
    /// `amnesia sweep`, `run`, `replay`, `shrink`, `real`): `standard` for Redis, `replay`
    /// for pgvector (every memory recalled at quiescence, where an index's faults show),
    /// `migrate` for redis-then-pgvector (every seed deploys).
    ///
    /// ```
    /// use amnesia::{Backend, ScenarioConfig};
    /// assert_eq!(ScenarioConfig::default_for(Backend::Redis).name, "standard");
    /// assert_eq!(ScenarioConfig::default_for(Backend::Pgvector).name, "replay");
    /// assert_eq!(ScenarioConfig::default_for(Backend::RedisThenPgvector).name, "migrate");
    /// ```
    pub fn default_for(backend: crate::domain::Backend) -> Self {
        match backend {
            crate::domain::Backend::Redis => Self::standard(),
            crate::domain::Backend::Pgvector => Self::replay(),
            crate::domain::Backend::RedisThenPgvector => Self::migrate(),
        }
    }

    /// [`Self::parse_name`] of `name`, or the default of `backend`'s stores when none is
    /// named ([`Self::default_for`]).
    pub fn parse_or_default(
        name: Option<&str>,
        backend: crate::domain::Backend,
    ) -> Result<Self, String> {
        name.map_or_else(|| Ok(Self::default_for(backend)), Self::parse_name)
    }

    /// The scenarios the `amnesia` binary knows by name (`--scenario NAME`).
    pub const NAMES: &'static [&'static str] = &[
        "standard", "smoke", "replay", "migrate", "corpus", "pressure",
    ];

    /// The scenario called `name`, if the binary knows it.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "standard" => Some(Self::standard()),
            "smoke" => Some(Self::smoke()),
            "replay" => Some(Self::replay()),
            "migrate" => Some(Self::migrate()),
            "corpus" => Some(Self::corpus()),
            "pressure" => Some(Self::pressure()),
            _ => None,
        }
    }

    /// [`Self::named`], or a one-line error listing the known names.
    pub fn parse_name(name: &str) -> Result<Self, String> {
        Self::named(name).ok_or_else(|| {
            format!(
                "unknown scenario '{name}' (known: {})",
                Self::NAMES.join(", ")
            )
        })
    }

    /// The standard scenario with the replay of every memory at quiescence
    /// ([`Self::replay_memories`]): the pgvector backend's default.
    pub fn replay() -> Self {
        Self {
            name: "replay".to_string(),
            replay_memories: true,
            ..Self::standard()
        }
    }

    /// The `replay` scenario where every seed deploys and the deploy's migration job
    /// loses its connections midway: the redis-then-pgvector stores' default.
    pub fn migrate() -> Self {
        Self {
            name: "migrate".to_string(),
            migration: true,
            ..Self::replay()
        }
    }

    /// Memory-heavy users for pgvector stores: 12 users (4 tenants x 3 sessions) each
    /// holding 100 to 400 preloaded memories, grown and revised by 80 turns, recalled with
    /// `k` up to [`crate::plan::corpus::CORPUS_RECALL_K_MAX`]: far fewer than a user holds
    /// and than `hnsw.ef_search`'s 40, so the ANN search decides what a recall returns.
    /// The replay of every memory at quiescence is off (it would recall thousands).
    ///
    /// ```
    /// use amnesia::{Plan, ScenarioConfig};
    /// let plan = Plan::generate(1, &ScenarioConfig::corpus());
    /// assert!(plan.corpus.iter().all(|user| user.memories.len() >= 100));
    /// ```
    pub fn corpus() -> Self {
        Self {
            name: "corpus".to_string(),
            tenants: 4,
            sessions_per_tenant: 3,
            turns: 80,
            corpus_memories_min: 100,
            corpus_memories_max: 400,
            ..Self::standard()
        }
    }

    /// The standard scenario with Redis under memory pressure every seed
    /// ([`Self::pressure`]): `maxmemory` 1.6 to 2.9 MB, a policy drawn from all eight (or
    /// `maxmemory_policy`), and a neighbour's cache filling the rest, so eviction or
    /// `-OOM` replies meet the store mid-run.
    ///
    /// ```
    /// use amnesia::{EvictionPolicy, Plan, ScenarioConfig};
    /// let scenario = ScenarioConfig {
    ///     maxmemory_policy: Some(EvictionPolicy::Noeviction),
    ///     ..ScenarioConfig::pressure()
    /// };
    /// let plan = Plan::generate(1, &scenario);
    /// assert_eq!(plan.pressure.unwrap().policy, EvictionPolicy::Noeviction);
    /// ```
    pub fn pressure() -> Self {
        Self {
            name: "pressure".to_string(),
            pressure: true,
            ..Self::standard()
        }
    }

    /// A tiny scenario for unit tests and quick smoke runs.
    pub fn smoke() -> Self {
        Self {
            name: "smoke".to_string(),
            clients: 2,
            tenants: 1,
            sessions_per_tenant: 2,
            turns: 6,
            duration_ms: 5_000,
            quiet_ms: 1_000,
            ..Self::standard()
        }
    }

    /// Sessions this scenario names.
    pub fn sessions(&self) -> usize {
        self.tenants as usize * self.sessions_per_tenant as usize
    }

    /// Checks the scenario against the limits; the error is one line.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_sizes()?;
        self.validate_think()?;
        self.validate_context_and_ttl()?;
        self.validate_gaps_and_rates()?;
        Ok(())
    }

    /// The scenario's sizes: nodes, clients, tenants, sessions, turns and phases.
    fn validate_sizes(&self) -> Result<(), String> {
        range("redis_nodes", self.redis_nodes, 1, REDIS_NODES_MAX)?;
        range("clients", self.clients, 1, CLIENTS_MAX)?;
        range("tenants", self.tenants, 1, TENANTS_MAX)?;
        range(
            "sessions_per_tenant",
            self.sessions_per_tenant,
            1,
            SESSIONS_PER_TENANT_MAX,
        )?;
        range("sessions", self.sessions(), 1, SESSIONS_MAX)?;
        range("turns", self.turns as usize, 0, TURNS_MAX)?;
        range("duration_ms", self.duration_ms, 1, DURATION_MS_MAX)?;
        range("quiet_ms", self.quiet_ms, 0, QUIET_MS_MAX)?;
        Ok(())
    }

    /// The think-time knobs: the range and the tail.
    fn validate_think(&self) -> Result<(), String> {
        range("think_ms_min", self.think_ms_min, 0, THINK_MS_MAX)?;
        range("think_ms_max", self.think_ms_max, 0, THINK_MS_MAX)?;
        ordered(
            "think_ms_min",
            self.think_ms_min,
            "think_ms_max",
            self.think_ms_max,
        )?;
        range("think_tail_ppm", self.think_tail_ppm, 0, PPM)?;
        range(
            "think_tail_mean_ms",
            self.think_tail_mean_ms,
            0,
            THINK_MS_MAX,
        )?;
        range("think_tail_ms_max", self.think_tail_ms_max, 0, THINK_MS_MAX)?;
        Ok(())
    }

    /// The context-limit and session-TTL ranges.
    fn validate_context_and_ttl(&self) -> Result<(), String> {
        range(
            "context_limit_min",
            self.context_limit_min as usize,
            1,
            CONTEXT_LIMIT_MAX,
        )?;
        range(
            "context_limit_max",
            self.context_limit_max as usize,
            1,
            CONTEXT_LIMIT_MAX,
        )?;
        ordered(
            "context_limit_min",
            self.context_limit_min,
            "context_limit_max",
            self.context_limit_max,
        )?;
        range(
            "session_ttl_ms_min",
            self.session_ttl_ms_min,
            1,
            SESSION_TTL_MS_MAX,
        )?;
        range(
            "session_ttl_ms_max",
            self.session_ttl_ms_max,
            1,
            SESSION_TTL_MS_MAX,
        )?;
        ordered(
            "session_ttl_ms_min",
            self.session_ttl_ms_min,
            "session_ttl_ms_max",
            self.session_ttl_ms_max,
        )?;
        Ok(())
    }

    /// The gap range and the per-million rates.
    fn validate_gaps_and_rates(&self) -> Result<(), String> {
        range("gap_ms_min", self.gap_ms_min, 0, GAP_MS_MAX)?;
        range("gap_ms_max", self.gap_ms_max, 0, GAP_MS_MAX)?;
        ordered("gap_ms_min", self.gap_ms_min, "gap_ms_max", self.gap_ms_max)?;
        range("idle_gap_ppm", self.idle_gap_ppm, 0, PPM)?;
        range("system_message_ppm", self.system_message_ppm, 0, PPM)?;
        range("colliding_names_ppm", self.colliding_names_ppm, 0, PPM)?;
        range(
            "corpus_memories_max",
            self.corpus_memories_max,
            0,
            CORPUS_MEMORIES_MAX,
        )?;
        ordered(
            "corpus_memories_min",
            self.corpus_memories_min,
            "corpus_memories_max",
            self.corpus_memories_max,
        )?;
        Ok(())
    }
}

/// One scenario knob against its limits, with the one-line error `validate` promises.
fn range<T: PartialOrd + std::fmt::Display>(
    name: &str,
    value: T,
    min: T,
    max: T,
) -> Result<(), String> {
    if value < min || value > max {
        return Err(format!(
            "scenario {name} = {value} is outside {min}..={max}"
        ));
    }
    Ok(())
}

/// Two scenario knobs that bound a range: the minimum may not be above the maximum.
fn ordered<T: PartialOrd + std::fmt::Display>(
    name_min: &str,
    min: T,
    name_max: &str,
    max: T,
) -> Result<(), String> {
    if min > max {
        return Err(format!(
            "scenario {name_min} = {min} is above {name_max} = {max}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        ScenarioConfig::standard().validate().unwrap();
        ScenarioConfig::smoke().validate().unwrap();
        ScenarioConfig::corpus().validate().unwrap();
        assert_eq!(ScenarioConfig::default(), ScenarioConfig::standard());
    }

    #[test]
    fn limits_are_enforced() {
        let scenario = ScenarioConfig {
            clients: CLIENTS_MAX + 1,
            ..ScenarioConfig::standard()
        };
        assert_eq!(
            scenario.validate().unwrap_err(),
            format!("scenario clients = 65 is outside 1..={CLIENTS_MAX}")
        );
        let scenario = ScenarioConfig {
            think_ms_min: 10,
            think_ms_max: 5,
            ..ScenarioConfig::standard()
        };
        assert_eq!(
            scenario.validate().unwrap_err(),
            "scenario think_ms_min = 10 is above think_ms_max = 5"
        );
    }

    #[test]
    fn partial_scenario_json_takes_defaults() {
        let scenario: ScenarioConfig = serde_json::from_str(r#"{"clients": 5}"#).unwrap();
        assert_eq!(scenario.clients, 5);
        assert_eq!(scenario.turns, ScenarioConfig::standard().turns);
    }
}
