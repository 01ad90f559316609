//! The workload: sessions, and the chatbot turns on them. A turn is what an incident's
//! request does: read `context(limit)`, think (the LLM), append the user message, append
//! the assistant message. Turns of one session follow each other; which client serves a
//! turn is drawn per turn (a load balancer), which is where cross-client races live. The
//! impolite parts (overlapping turns and retries, users with several sessions, clears,
//! deletes and memory revisions, canonical twins) are drawn afterwards from their own
//! streams: see `overlap`, `users`, `edits` and `twins`.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::content;
use super::prng::{between, chance, exponential};
use super::scenario::ScenarioConfig;
use crate::domain::{Memory, Message, Role, SessionKey, UserKey};

/// One chatbot request on one session, served by one client.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// Position in `Plan::turns`.
    pub index: usize,
    /// The session the turn reads and appends to.
    pub session: SessionKey,
    /// The app client that serves this turn.
    pub client: u32,
    /// The earliest start in virtual time. Unless the turn `overlaps`, the driver also
    /// waits for the previous turn of the same session to finish, so a turn may start
    /// later than this, never earlier.
    pub start_ms: u64,
    /// The `limit` of the context read.
    pub context_limit: usize,
    /// Simulated LLM latency between the context read and the user append.
    pub think_ms: u64,
    /// The session's system prompt, appended before the context read by the session's
    /// first turn only (exercises keep-first retention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<Message>,
    /// The user message, appended after the think time.
    pub user: Message,
    /// The assistant message, appended after the user message.
    pub assistant: Message,
    /// After the context read: recall the session user's memories most like a text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<Recall>,
    /// After the assistant's answer: remember a fact about the session's user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remember: Option<Memory>,
    /// The user of the session when it is not the one named like the session: a user
    /// with several sessions (two tabs, two devices), whose memory writes race.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_name: Option<String>,
    /// The turn does not wait for the previous turn of its session: a double submit, or a
    /// second tab on the same conversation, served concurrently.
    #[serde(default, skip_serializing_if = "is_false")]
    pub overlaps: bool,
    /// "New chat": the session is cleared when the turn starts.
    #[serde(default, skip_serializing_if = "is_false")]
    pub clear: bool,
    /// The user message is sent a second time, racing the first: a client-side retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<Retry>,
    /// At the end of the turn: delete this message (by id) from the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete: Option<String>,
    /// At the end of the turn: update or forget one of the user's memories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revise: Option<Revision>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A second send of a turn's user message, same id: the request timed out on the client
/// (or a load balancer retried it elsewhere) while the first was still on its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retry {
    /// The client that sends it again (the same client or another app instance).
    pub client: u32,
    /// How long after the first send's invocation the retry is invoked.
    pub after_ms: u64,
}

/// An edit of a long-term memory (mem0-style update and delete).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Revision {
    /// Replace the memory with this id by this text (add it if there is none).
    Update {
        /// The memory in its new form.
        memory: Memory,
    },
    /// Delete the memory with this id.
    Forget {
        /// The id of the memory to forget.
        id: String,
    },
}

/// A recall request: the `k` memories most similar to `query`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recall {
    /// The text recalled against.
    pub query: String,
    /// How many memories to ask for at most.
    pub k: usize,
}

impl Turn {
    /// Store operations of this turn: the optional clear and system append, the read, two
    /// appends (and a retry), and the optional memory operations and delete.
    pub fn operations(&self) -> usize {
        3 + usize::from(self.clear)
            + usize::from(self.system.is_some())
            + usize::from(self.recall.is_some())
            + usize::from(self.retry.is_some())
            + usize::from(self.remember.is_some())
            + usize::from(self.revise.is_some())
            + usize::from(self.delete.is_some())
    }

    /// The user whose long-term memories this turn reads and writes: the one named like
    /// the session, unless the plan gave the session another user of its tenant.
    pub fn user(&self) -> UserKey {
        UserKey {
            tenant: self.session.tenant.clone(),
            user: self.user_name().to_string(),
        }
    }

    /// The name of [`Turn::user`] within its tenant.
    pub fn user_name(&self) -> &str {
        self.user_name.as_deref().unwrap_or(&self.session.session)
    }

    /// The messages this turn appends, in append order.
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.system.iter().chain([&self.user, &self.assistant])
    }

    /// When the thinking ends, at the earliest: the next turn of the session starts no
    /// earlier than this.
    pub fn think_end_ms(&self) -> u64 {
        self.start_ms + self.think_ms
    }
}

/// The sessions a scenario names: tenants `t0..`, sessions `s0..` per tenant.
pub fn sessions(scenario: &ScenarioConfig) -> Vec<SessionKey> {
    let mut sessions = Vec::with_capacity(scenario.sessions());
    for t in 0..scenario.tenants {
        for s in 0..scenario.sessions_per_tenant {
            sessions.push(SessionKey::new(format!("t{t}"), format!("s{s}")));
        }
    }
    sessions
}

/// With `scenario.colliding_names_ppm`, rename two sessions so that their names pasted
/// together with the `:` separator read the same: `(T, "S:U")` and `("T:S", U)`. A store
/// that builds keys as `prefix:tenant:session` without escaping gives both one key (a
/// cross-tenant leak); a correct store keeps them apart. Only names change: timing,
/// clients and contents stay those of the seed, and seeds that draw no collision keep
/// their plan unchanged.
pub(crate) fn collide_names(
    rng: &mut impl Rng,
    scenario: &ScenarioConfig,
    workload: &mut Workload,
) {
    let n = workload.sessions.len();
    if n < 2 || !chance(rng, scenario.colliding_names_ppm) {
        return;
    }
    let a = rng.random_range(0..n);
    let b = (a + rng.random_range(1..n)) % n;
    let (first, second) = (workload.sessions[a].clone(), workload.sessions[b].clone());
    let renamed_first = SessionKey::new(
        first.tenant.clone(),
        format!("{}:{}", first.session, second.session),
    );
    let renamed_second = SessionKey::new(
        format!("{}:{}", first.tenant, first.session),
        second.session.clone(),
    );
    workload.rename([(a, renamed_first), (b, renamed_second)]);
}

/// The generated workload of one seed.
pub(crate) struct Workload {
    pub sessions: Vec<SessionKey>,
    pub session_ttl_ms: u64,
    pub turns: Vec<Turn>,
}

impl Workload {
    /// Rename the sessions at the given positions, in the session list and every turn.
    pub(crate) fn rename<const N: usize>(&mut self, renames: [(usize, SessionKey); N]) {
        let old: Vec<SessionKey> = renames
            .iter()
            .map(|(at, _)| self.sessions[*at].clone())
            .collect();
        for turn in &mut self.turns {
            if let Some(k) = old.iter().position(|o| *o == turn.session) {
                turn.session = renames[k].1.clone();
            }
        }
        for (at, renamed) in renames {
            self.sessions[at] = renamed;
        }
    }
}

/// A turn before it has a client, a limit and messages.
struct Slot {
    session: usize,
    /// Position among the session's turns.
    nth: usize,
    start_ms: u64,
    think_ms: u64,
}

/// Draws the workload: timing from `rng`, message contents from `content_rng`.
pub(crate) fn generate(
    rng: &mut impl Rng,
    content_rng: &mut impl Rng,
    scenario: &ScenarioConfig,
) -> Workload {
    let sessions = sessions(scenario);
    let session_ttl_ms = between(
        rng,
        scenario.session_ttl_ms_min,
        scenario.session_ttl_ms_max,
    );
    let counts = turn_counts(rng, sessions.len(), scenario.turns as usize);
    let (slots, system) = draw_slots(rng, scenario, session_ttl_ms, &counts);
    let turns = draw_turns(rng, content_rng, scenario, &sessions, &slots, &system);
    Workload {
        sessions,
        session_ttl_ms,
        turns,
    }
}

/// How many turns each session gets: one each while turns last, the rest by a weight
/// per session so some sessions are busy and others nearly idle. Apart from `generate`
/// because it is the one step that shapes load across sessions.
fn turn_counts(rng: &mut impl Rng, sessions: usize, turns_total: usize) -> Vec<usize> {
    let weights: Vec<u32> = (0..sessions).map(|_| rng.random_range(1..=4)).collect();
    let weight_total: u32 = weights.iter().sum();
    let mut counts = vec![0usize; sessions];
    for (i, count) in counts.iter_mut().enumerate() {
        if i < turns_total {
            *count = 1;
        }
    }
    for _ in sessions.min(turns_total)..turns_total {
        let mut pick = rng.random_range(0..weight_total);
        for (i, &w) in weights.iter().enumerate() {
            if pick < w {
                counts[i] += 1;
                break;
            }
            pick -= w;
        }
    }
    assert_eq!(counts.iter().sum::<usize>(), turns_total);
    counts
}

/// Draws, per session in order, whether it opens with a system message and where its
/// turns fall in time; returns the slots sorted by start, and the system flags by session.
fn draw_slots(
    rng: &mut impl Rng,
    scenario: &ScenarioConfig,
    session_ttl_ms: u64,
    counts: &[usize],
) -> (Vec<Slot>, Vec<bool>) {
    let mut slots = Vec::with_capacity(counts.iter().sum());
    let mut system = vec![false; counts.len()];
    for (session, &count) in counts.iter().enumerate() {
        system[session] = chance(rng, scenario.system_message_ppm);
        place_session(rng, scenario, session_ttl_ms, session, count, &mut slots);
    }
    slots.sort_by_key(|slot| (slot.start_ms, slot.session, slot.nth));
    (slots, system)
}

/// Turns the sorted slots into turns: per slot, a client and a context limit from `rng`,
/// then the messages (system if the session opens with one, user, assistant) from
/// `content_rng`, numbered in that order.
fn draw_turns(
    rng: &mut impl Rng,
    content_rng: &mut impl Rng,
    scenario: &ScenarioConfig,
    sessions: &[SessionKey],
    slots: &[Slot],
    system: &[bool],
) -> Vec<Turn> {
    let mut seq: u64 = 0;
    let mut scratch = String::new();
    let mut message = |role: Role, content_rng: &mut dyn rand::RngCore| {
        let (_, content) = content::draw_with(content_rng, &mut scratch);
        let m = Message {
            id: format!("m{seq}"),
            role,
            content,
            seq,
        };
        seq += 1;
        m
    };
    let mut turns = Vec::with_capacity(slots.len());
    for (index, slot) in slots.iter().enumerate() {
        let client = rng.random_range(0..scenario.clients);
        let context_limit = between(
            rng,
            u64::from(scenario.context_limit_min),
            u64::from(scenario.context_limit_max),
        ) as usize;
        let system =
            (slot.nth == 0 && system[slot.session]).then(|| message(Role::System, content_rng));
        let user = message(Role::User, content_rng);
        let assistant = message(Role::Assistant, content_rng);
        turns.push(Turn {
            index,
            session: sessions[slot.session].clone(),
            client,
            start_ms: slot.start_ms,
            context_limit,
            think_ms: slot.think_ms,
            system,
            user,
            assistant,
            recall: None,
            remember: None,
            user_name: None,
            overlaps: false,
            clear: false,
            retry: None,
            delete: None,
            revise: None,
        });
    }
    turns
}

/// Places the `count` turns of one session in the busy phase: think, then a gap (the user
/// reading and typing, sometimes idle past the TTL), then the next turn. A timeline longer
/// than the busy phase is compressed: gaps first, thinks too if they alone do not fit.
fn place_session(
    rng: &mut impl Rng,
    scenario: &ScenarioConfig,
    session_ttl_ms: u64,
    session: usize,
    count: usize,
    slots: &mut Vec<Slot>,
) {
    if count == 0 {
        return;
    }
    let duration_ms = scenario.duration_ms;
    let first_ms = between(rng, 0, duration_ms / 4);
    let mut thinks_ms = Vec::with_capacity(count);
    let mut gaps_ms = Vec::with_capacity(count);
    gaps_ms.push(first_ms);
    for k in 0..count {
        thinks_ms.push(think_ms(rng, scenario));
        if k + 1 < count {
            let gap_ms = if chance(rng, scenario.idle_gap_ppm) {
                session_ttl_ms + between(rng, 500, session_ttl_ms.max(500))
            } else {
                between(rng, scenario.gap_ms_min, scenario.gap_ms_max)
            };
            gaps_ms.push(gap_ms);
        }
    }
    let think_total_ms: u64 = thinks_ms.iter().sum();
    let gap_total_ms: u64 = gaps_ms.iter().sum();
    if think_total_ms + gap_total_ms > duration_ms {
        let scale = |x: u64, num: u64, den: u64| -> u64 {
            assert!(den > 0);
            (u128::from(x) * u128::from(num) / u128::from(den)) as u64
        };
        if think_total_ms <= duration_ms {
            let room_ms = duration_ms - think_total_ms;
            for gap in gaps_ms.iter_mut() {
                *gap = scale(*gap, room_ms, gap_total_ms);
            }
        } else {
            let total_ms = think_total_ms + gap_total_ms;
            for x in thinks_ms.iter_mut().chain(gaps_ms.iter_mut()) {
                *x = scale(*x, duration_ms, total_ms);
            }
        }
    }
    let mut at_ms = 0;
    for nth in 0..count {
        at_ms += gaps_ms[nth];
        slots.push(Slot {
            session,
            nth,
            start_ms: at_ms,
            think_ms: thinks_ms[nth],
        });
        at_ms += thinks_ms[nth];
    }
    assert!(
        at_ms <= duration_ms,
        "session timeline {at_ms} ms past {duration_ms} ms"
    );
}

/// Mostly uniform in the body; sometimes from the exponential tail (a slow LLM).
fn think_ms(rng: &mut impl Rng, scenario: &ScenarioConfig) -> u64 {
    if chance(rng, scenario.think_tail_ppm) {
        let tail_ms = exponential(rng, scenario.think_tail_mean_ms, scenario.think_tail_ms_max);
        scenario
            .think_ms_max
            .saturating_add(tail_ms)
            .min(scenario.think_tail_ms_max.max(scenario.think_ms_max))
    } else {
        between(rng, scenario.think_ms_min, scenario.think_ms_max)
    }
}
