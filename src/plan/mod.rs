//! seed → Plan: the whole run decided up front, so one seed is one exact execution that
//! replays, shrinks and prints. A plan holds the workload (sessions, chatbot turns with
//! adversarial content), the per-seed fault mix, per-link latency and timed faults. It is
//! versioned JSON, and a saved plan replays without its seed.

pub mod content;
mod faults;
mod file;
mod generate;
pub mod memory;
mod prng;
pub mod scenario;
mod validate;
mod workload;

use serde::{Deserialize, Serialize};

pub use content::ContentClass;
pub use faults::{
    ClassRate, Direction, ErrorReply, ExpTail, Fault, FaultClass, FaultKind, FaultMix, Lane,
    LatencyMix, LatencyModel,
};
pub use file::PlanError;
pub use scenario::ScenarioConfig;
pub use workload::{sessions, Recall, Turn};

use crate::domain::{Message, SessionKey};

/// The plan format this amnesia reads and writes. Bump it on any change that alters the
/// meaning of a saved plan.
pub const PLAN_VERSION: u32 = 1;

/// One run, decided up front: a pure function of seed and scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub version: u32,
    pub seed: u64,
    /// What this seed is exposed to; first so it heads the printed plan.
    pub mix: FaultMix,
    /// App clients, `0..clients`; each talks to Redis over its own link.
    pub clients: u32,
    pub sessions: Vec<SessionKey>,
    /// The sliding session TTL the store under test is configured with. Some gaps between
    /// turns of a session are longer, so sessions expire mid-run.
    pub session_ttl_ms: u64,
    /// End of the busy phase: turns start and think, and faults heal, before it.
    pub duration_ms: u64,
    /// The fault-free period after the busy phase; then the final reads.
    pub quiet_ms: u64,
    /// One latency model per client link, indexed by client.
    pub links: Vec<LatencyModel>,
    /// When every client is redeployed with the code of the second key scheme (a deploy
    /// that changes the key layout mid-traffic); `None`: no deploy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deploy_at_ms: Option<u64>,
    /// What the Redis node keeps across a `redis-restart` fault.
    #[serde(default)]
    pub persistence: crate::domain::Persistence,
    /// Sorted by `start_ms`.
    pub turns: Vec<Turn>,
    /// Sorted by `at_ms`.
    pub faults: Vec<Fault>,
    /// The configuration the plan was generated with.
    pub scenario: ScenarioConfig,
}

impl Plan {
    /// Store operations of the whole plan (appends and reads).
    pub fn operations(&self) -> usize {
        self.turns.iter().map(Turn::operations).sum()
    }

    /// Every message in append order.
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.turns.iter().flat_map(Turn::messages)
    }

    /// The end of the quiet period: when the final reads start.
    pub fn end_ms(&self) -> u64 {
        self.duration_ms + self.quiet_ms
    }

    /// A short human text for the head of `amnesia run --print-plan`.
    pub fn summary(&self) -> String {
        let messages = self.messages().count();
        let content_bytes: usize = self.messages().map(|m| m.content.len()).sum();
        let mut faults_by_class = Vec::new();
        for class in FaultClass::ALL {
            let count = self
                .faults
                .iter()
                .filter(|f| f.kind.class() == class)
                .count();
            if count > 0 {
                faults_by_class.push(format!("{} {}", class.name(), count));
            }
        }
        let faults = if faults_by_class.is_empty() {
            String::new()
        } else {
            format!(" ({})", faults_by_class.join(", "))
        };
        format!(
            "plan v{version} seed {seed} scenario {scenario}\n\
             mix: {mix}\n\
             clients {clients}, sessions {sessions}, turns {turns}, operations {operations}, \
             messages {messages} ({content_bytes} content bytes)\n\
             busy {duration_ms} ms, quiet {quiet_ms} ms, session ttl {ttl_ms} ms, redis persistence {persistence:?}\n\
             faults {fault_count}{faults}",
            version = self.version,
            seed = self.seed,
            scenario = self.scenario.name,
            mix = self.mix.describe(),
            clients = self.clients,
            sessions = self.sessions.len(),
            turns = self.turns.len(),
            operations = self.operations(),
            duration_ms = self.duration_ms,
            quiet_ms = self.quiet_ms,
            ttl_ms = self.session_ttl_ms,
            persistence = self.persistence,
            fault_count = self.faults.len(),
        )
    }
}

#[cfg(test)]
mod tests;
