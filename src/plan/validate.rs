//! The invariants every plan keeps, checked on generation and on load: a hand-edited or
//! shrunk plan that breaks one is rejected with one line, before any engine runs it.

use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;

use super::faults::{FaultClass, FaultKind, Lane, CLOCK_SKEW_MS_MAX};
use super::scenario::{
    CLIENTS_MAX, CONTENT_BYTES_MAX, CONTEXT_LIMIT_MAX, DURATION_MS_MAX, FAULTS_MAX,
    PLAN_CONTENT_BYTES_MAX, QUIET_MS_MAX, SESSIONS_MAX, SESSION_TTL_MS_MAX, THINK_MS_MAX,
    TURNS_MAX,
};
use super::{Plan, PlanError, PLAN_VERSION};
use crate::domain::{Message, Role};

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(PlanError::Invalid(format!($($fmt)+)));
        }
    };
}

impl Plan {
    /// Checks the plan's invariants: version, limits, unique sessions and message ids,
    /// sorted turns and faults, known sessions and clients, sequential turns per session
    /// (unless a turn is marked overlapping), faults inside the busy phase and enabled in
    /// the mix.
    pub fn validate(&self) -> Result<(), PlanError> {
        if self.version != PLAN_VERSION {
            return Err(PlanError::Version {
                found: u64::from(self.version),
            });
        }
        self.scenario.validate().map_err(PlanError::Invalid)?;
        self.tcp.validate().map_err(PlanError::Invalid)?;
        ensure!(
            (1..=CLIENTS_MAX).contains(&self.clients),
            "clients = {} is outside 1..={CLIENTS_MAX}",
            self.clients
        );
        ensure!(
            (1..=DURATION_MS_MAX).contains(&self.duration_ms),
            "duration_ms = {} is outside 1..={DURATION_MS_MAX}",
            self.duration_ms
        );
        ensure!(
            self.quiet_ms <= QUIET_MS_MAX,
            "quiet_ms = {} exceeds {QUIET_MS_MAX}",
            self.quiet_ms
        );
        ensure!(
            (1..=SESSION_TTL_MS_MAX).contains(&self.session_ttl_ms),
            "session_ttl_ms = {} is outside 1..={SESSION_TTL_MS_MAX}",
            self.session_ttl_ms
        );
        ensure!(
            self.links.len() == self.clients as usize,
            "{} latency links for {} clients",
            self.links.len(),
            self.clients
        );
        for (client, link) in self.links.iter().enumerate() {
            link.validate()
                .map_err(|e| PlanError::Invalid(format!("link of client {client}: {e}")))?;
        }

        ensure!(
            !self.sessions.is_empty() && self.sessions.len() <= SESSIONS_MAX,
            "{} sessions is outside 1..={SESSIONS_MAX}",
            self.sessions.len()
        );
        // Hash sets: validation runs on every generated plan, and a B-tree of strings cost
        // more than the rest of it. Only membership is asked, never an order.
        let mut sessions =
            FxHashSet::with_capacity_and_hasher(self.sessions.len(), Default::default());
        for session in &self.sessions {
            ensure!(
                sessions.insert(session),
                "session {session} is listed twice"
            );
        }

        self.validate_turns(&sessions)?;
        self.validate_memories()?;
        if let Some(pressure) = &self.pressure {
            pressure
                .validate(self.duration_ms)
                .map_err(PlanError::Invalid)?;
        }
        if let Some(at_ms) = self.deploy_at_ms {
            ensure!(
                at_ms < self.duration_ms,
                "deploy at {at_ms} ms is after the busy phase ({} ms)",
                self.duration_ms
            );
        }
        self.validate_faults()
    }

    fn validate_memories(&self) -> Result<(), PlanError> {
        let mut ids = FxHashSet::default();
        let k_max = if self.corpus.is_empty() {
            crate::plan::memory::RECALL_K_MAX
        } else {
            crate::plan::corpus::CORPUS_RECALL_K_MAX
        };
        self.validate_corpus(&mut ids)?;
        for turn in &self.turns {
            if let Some(recall) = &turn.recall {
                ensure!(
                    (1..=k_max).contains(&recall.k),
                    "turn {}: recall k {} is outside 1..={k_max}",
                    turn.index,
                    recall.k
                );
                ensure!(
                    recall.query.len() <= CONTENT_BYTES_MAX,
                    "turn {}: recall query too long",
                    turn.index
                );
            }
            if let Some(memory) = &turn.remember {
                ensure!(
                    ids.insert(memory.id.as_str()),
                    "turn {}: memory id {} is used twice",
                    turn.index,
                    memory.id
                );
                ensure!(
                    memory.text.len() <= CONTENT_BYTES_MAX,
                    "turn {}: memory text too long",
                    turn.index
                );
            }
        }
        Ok(())
    }

    /// The preloaded memories: known clients, unique ids (into `ids`), bounded texts.
    fn validate_corpus<'a>(&'a self, ids: &mut FxHashSet<&'a str>) -> Result<(), PlanError> {
        let total: usize = self.corpus.iter().map(|p| p.memories.len()).sum();
        let total_max = SESSIONS_MAX * super::scenario::CORPUS_MEMORIES_MAX as usize;
        ensure!(
            total <= total_max,
            "{total} corpus memories exceed {total_max}"
        );
        for preload in &self.corpus {
            ensure!(
                preload.client < self.clients,
                "corpus of {:?}: unknown client {}",
                preload.user,
                preload.client
            );
            for memory in &preload.memories {
                ensure!(
                    ids.insert(memory.id.as_str()),
                    "corpus of {:?}: memory id {} is used twice",
                    preload.user,
                    memory.id
                );
                ensure!(
                    memory.text.len() <= CONTENT_BYTES_MAX,
                    "corpus of {:?}: memory text too long",
                    preload.user
                );
            }
        }
        Ok(())
    }

    /// The impolite parts of one turn: retry, delete, user name and memory revision.
    fn validate_extras(&self, turn: &super::Turn) -> Result<(), PlanError> {
        let i = turn.index;
        if let Some(retry) = turn.retry {
            ensure!(
                retry.client < self.clients,
                "turn {i}: retry client {} is out of range (plan has {} clients)",
                retry.client,
                self.clients
            );
            let max = super::RETRY_AFTER_MS_MAX;
            ensure!(
                retry.after_ms <= max,
                "turn {i}: retry after {} ms exceeds {max} ms",
                retry.after_ms
            );
        }
        if let Some(id) = &turn.delete {
            ensure!(!id.is_empty(), "turn {i}: deletes an empty message id");
        }
        if let Some(name) = &turn.user_name {
            ensure!(!name.is_empty(), "turn {i}: an empty user name");
        }
        match &turn.revise {
            Some(super::Revision::Update { memory }) => {
                ensure!(
                    !memory.id.is_empty(),
                    "turn {i}: updates an empty memory id"
                );
                ensure!(
                    memory.text.len() <= CONTENT_BYTES_MAX,
                    "turn {i}: updated memory text too long"
                );
            }
            Some(super::Revision::Forget { id }) => {
                ensure!(!id.is_empty(), "turn {i}: forgets an empty memory id");
            }
            None => {}
        }
        Ok(())
    }

    fn validate_turns(
        &self,
        sessions: &FxHashSet<&crate::domain::SessionKey>,
    ) -> Result<(), PlanError> {
        ensure!(
            self.turns.len() <= TURNS_MAX,
            "{} turns exceed {TURNS_MAX}",
            self.turns.len()
        );
        let mut tally = MessageTally {
            ids: FxHashSet::with_capacity_and_hasher(self.turns.len() * 3, Default::default()),
            seq_last: None,
            content_bytes: 0,
        };
        // Per session: the previous turn's index and think end.
        let mut previous: FxHashMap<&crate::domain::SessionKey, (usize, u64)> =
            FxHashMap::default();
        let mut start_last_ms = 0;
        for (position, turn) in self.turns.iter().enumerate() {
            self.validate_turn_fields(position, turn, sessions, start_last_ms)?;
            start_last_ms = turn.start_ms;
            validate_session_order(turn, &mut previous)?;
            self.validate_extras(turn)?;
            tally.check_turn(turn)?;
        }
        let content_bytes = tally.content_bytes;
        ensure!(
            content_bytes <= PLAN_CONTENT_BYTES_MAX,
            "contents total {content_bytes} bytes, above {PLAN_CONTENT_BYTES_MAX}"
        );
        Ok(())
    }

    /// The checks of one turn that need nothing but the turn, the plan and the previous
    /// turn's start: kept apart so `validate_turns` reads as the walk over the turns.
    fn validate_turn_fields(
        &self,
        position: usize,
        turn: &super::Turn,
        sessions: &FxHashSet<&crate::domain::SessionKey>,
        start_last_ms: u64,
    ) -> Result<(), PlanError> {
        let i = turn.index;
        ensure!(i == position, "turn at position {position} has index {i}");
        ensure!(
            sessions.contains(&turn.session),
            "turn {i}: session {} is not among the plan's sessions",
            turn.session
        );
        ensure!(
            turn.client < self.clients,
            "turn {i}: client {} is out of range (plan has {} clients)",
            turn.client,
            self.clients
        );
        ensure!(
            turn.start_ms >= start_last_ms,
            "turn {i}: start_ms {} is before the previous turn's {start_last_ms} (turns must be sorted by start_ms)",
            turn.start_ms
        );
        ensure!(
            (1..=CONTEXT_LIMIT_MAX).contains(&turn.context_limit),
            "turn {i}: context_limit {} is outside 1..={CONTEXT_LIMIT_MAX}",
            turn.context_limit
        );
        ensure!(
            turn.think_ms <= THINK_MS_MAX,
            "turn {i}: think_ms {} exceeds {THINK_MS_MAX}",
            turn.think_ms
        );
        ensure!(
            turn.think_end_ms() <= self.duration_ms,
            "turn {i}: start_ms {} + think_ms {} ends after the busy phase ({} ms)",
            turn.start_ms,
            turn.think_ms,
            self.duration_ms
        );
        Ok(())
    }

    fn validate_faults(&self) -> Result<(), PlanError> {
        ensure!(
            self.faults.len() <= FAULTS_MAX,
            "{} faults exceed {FAULTS_MAX}",
            self.faults.len()
        );
        let mut at_last_ms = 0;
        // Faults of one class never overlap on one lane; different classes may combine.
        let mut busy_until_ms: BTreeMap<(Lane, FaultClass), u64> = BTreeMap::new();
        for (i, fault) in self.faults.iter().enumerate() {
            let class = fault.kind.class();
            ensure!(
                self.mix.rate(class).is_some(),
                "fault {i}: {} is not enabled in the plan's mix",
                class.name()
            );
            ensure!(
                fault.at_ms >= at_last_ms,
                "fault {i}: at_ms {} is before the previous fault's {at_last_ms} (faults must be sorted by at_ms)",
                fault.at_ms
            );
            at_last_ms = fault.at_ms;
            ensure!(fault.duration_ms > 0, "fault {i}: duration_ms is 0");
            ensure!(
                fault.at_ms.saturating_add(fault.duration_ms) <= self.duration_ms,
                "fault {i}: ends at {} ms, after the busy phase ({} ms)",
                fault.at_ms.saturating_add(fault.duration_ms),
                self.duration_ms
            );
            if let Some(client) = fault.kind.client() {
                ensure!(
                    client < self.clients,
                    "fault {i}: client {client} is out of range (plan has {} clients)",
                    self.clients
                );
            }
            if let FaultKind::ClockSkew { offset_ms, .. } = fault.kind {
                ensure!(
                    offset_ms.unsigned_abs() <= CLOCK_SKEW_MS_MAX,
                    "fault {i}: clock skew {offset_ms} ms exceeds {CLOCK_SKEW_MS_MAX} ms"
                );
            }
            ensure!(
                super::backend::kind_fits(&fault.kind, self.backend),
                "fault {i}: {} names PostgreSQL, and the plan's backend is {:?}",
                class.name(),
                self.backend
            );
            let lane = fault.kind.lane();
            let until_ms = busy_until_ms.entry((lane, class)).or_insert(0);
            ensure!(
                fault.at_ms >= *until_ms,
                "fault {i}: overlaps an earlier {} fault on {lane:?} (until {} ms)",
                class.name(),
                *until_ms
            );
            *until_ms = fault.end_ms();
        }
        Ok(())
    }
}

/// A turn of a session starts only after the session's previous turn ends thinking (unless
/// it is marked overlapping), and only a session's first turn carries a system message:
/// both need the per-session memory `previous`, which this check also updates.
fn validate_session_order<'a>(
    turn: &'a super::Turn,
    previous: &mut FxHashMap<&'a crate::domain::SessionKey, (usize, u64)>,
) -> Result<(), PlanError> {
    let i = turn.index;
    // One lookup per turn: the entry is both the check and the update.
    let entry = previous.entry(&turn.session);
    let first = matches!(entry, Entry::Vacant(_));
    if let (Entry::Occupied(ref occupied), false) = (&entry, turn.overlaps) {
        let &(prev, think_end_ms) = occupied.get();
        ensure!(
            turn.start_ms >= think_end_ms,
            "turn {i}: starts at {} ms, before turn {prev} of session {} ends thinking at {think_end_ms} ms",
            turn.start_ms,
            turn.session
        );
    }
    entry.insert_entry((i, turn.think_end_ms()));
    ensure!(
        first || turn.system.is_none(),
        "turn {i}: a system message on a turn that is not its session's first"
    );
    Ok(())
}

/// What the plan's messages share across turns: ids unique, seqs rising, contents bounded
/// in total. Held in one place so the turn walk carries one value, not three.
struct MessageTally<'a> {
    ids: FxHashSet<&'a str>,
    seq_last: Option<u64>,
    content_bytes: usize,
}

impl<'a> MessageTally<'a> {
    /// Checks one turn's messages, in role order, and counts them into the tally.
    fn check_turn(&mut self, turn: &'a super::Turn) -> Result<(), PlanError> {
        let i = turn.index;
        let expected = [
            (turn.system.as_ref(), Role::System),
            (Some(&turn.user), Role::User),
            (Some(&turn.assistant), Role::Assistant),
        ];
        for (message, role) in expected {
            let Some(message) = message else { continue };
            check_message(i, message, role)?;
            ensure!(
                self.ids.insert(message.id.as_str()),
                "turn {i}: message id {} is used twice",
                message.id
            );
            if let Some(last) = self.seq_last {
                ensure!(
                    message.seq > last,
                    "turn {i}: message {} has seq {}, not above the previous {last}",
                    message.id,
                    message.seq
                );
            }
            self.seq_last = Some(message.seq);
            self.content_bytes += message.content.len();
        }
        Ok(())
    }
}

fn check_message(turn: usize, message: &Message, role: Role) -> Result<(), PlanError> {
    ensure!(
        message.role == role,
        "turn {turn}: message {} has role {:?} where {:?} belongs",
        message.id,
        message.role,
        role
    );
    ensure!(
        !message.id.is_empty(),
        "turn {turn}: a message has an empty id"
    );
    ensure!(
        message.content.len() <= CONTENT_BYTES_MAX,
        "turn {turn}: message {} has {} content bytes, above {CONTENT_BYTES_MAX}",
        message.id,
        message.content.len()
    );
    Ok(())
}
