//! The driver: issues the plan's chatbot turns at their virtual times through each
//! client's store, and records every invocation and completion in the history and trace.
//!
//! A turn is (clear) → read context → (recall) → think → append the user message (and its
//! retry, racing it or after a failure) → append the assistant message → (remember, revise a memory, delete a
//! message). Turns of one session run in plan order (a user waits for the answer), each on
//! the client the plan's load balancer chose, except turns the plan marks as overlapping
//! (a double submit, a second tab), which start at their time whatever the previous one
//! is doing. A turn whose step fails stops there, as a chatbot request that errored would.

use crate::contract::{Context, MemoryStore, StoreError};
use crate::domain::{Memory, Message, SessionKey, UserKey};
use crate::history::Quiescence;
use crate::history::{OpKind, OpValue, Outcome};
use crate::plan::{Recall, Retries, Revision, Turn};
use crate::world::shared::World;
use std::sync::Arc;
use tracing::Instrument;

/// The target of the span that wraps every store call; its `host` field names the client,
/// so the store's own log events land on the right host in the timeline.
pub const HOST_SPAN_TARGET: &str = "amnesia::host";

/// The span of one store call on `client`.
fn host_span(client: u32) -> tracing::Span {
    tracing::info_span!(target: HOST_SPAN_TARGET, "op", host = %format_args!("client-{client}"))
}

/// Context limit of the final reads of the liveness phase.
pub const FINAL_READ_LIMIT: usize = 1_000;
/// The quiet period's rounds of final reads: the first meets what the faults broke (a
/// conversation's first failure is excused), the second judges whether the store
/// recovered.
pub const FINAL_ROUNDS: usize = 2;
/// From the end of one round of final reads to the start of the next: more than the
/// largest recovery grace a store may declare, so every failure of a round has completed,
/// plus any grace, before the next round is invoked.
pub const FINAL_ROUNDS_GAP_MS: u64 = crate::contract::RECOVERY_GRACE_MS_MAX + 1;
/// The time the final reads spend waiting between their rounds, all rounds together.
pub const FINAL_ROUNDS_WAIT_MS: u64 = FINAL_ROUNDS_GAP_MS * (FINAL_ROUNDS as u64 - 1);
/// A context read as the history keeps it: a plain window unless there is a summary.
fn context_value(context: Context) -> OpValue {
    match context.summary {
        None => OpValue::Messages(context.messages),
        Some(summary) => OpValue::Summarized {
            summary,
            messages: context.messages,
        },
    }
}

pub(crate) fn outcome_of<T>(
    result: Result<T, StoreError>,
    value: impl FnOnce(T) -> OpValue,
) -> Outcome {
    match result {
        Ok(v) => Outcome::Ok(value(v)),
        Err(error) if error.is_indeterminate() => Outcome::Unknown(error.to_string()),
        Err(error) => Outcome::Fail(error.to_string()),
    }
}

/// Runs operations against the clients' stores and records them.
#[derive(Clone)]
pub struct Driver {
    pub world: Arc<World>,
}

/// Why an operation did not reach the store or did not come back.
const CLIENT_DOWN: &str = "the client process is down";
const CLIENT_CRASHED: &str = "the client process crashed mid-request";

impl Driver {
    /// Invoke one operation on `client`'s store and record it. A crash of the client
    /// while it runs leaves its outcome unknown; a client that is down fails it at once.
    async fn call<T, F, Fut>(
        &self,
        client: u32,
        kind: OpKind,
        operation: F,
        value: fn(T) -> OpValue,
    ) -> bool
    where
        F: FnOnce(Arc<dyn MemoryStore>) -> Fut,
        Fut: std::future::Future<Output = Result<T, StoreError>> + Send + 'static,
        T: Send + 'static,
    {
        let recorder = &self.world.recorder;
        let host = &self.world.clients[client as usize];
        let _in_flight = self.world.gate.enter().await;
        let index = recorder.invoke(client, kind);
        let Some(store) = host.store() else {
            recorder.complete(index, Outcome::Fail(CLIENT_DOWN.into()));
            return false;
        };
        let crashed = host.crashed();
        let work = host.run(operation(store).instrument(host_span(client)));
        let result = tokio::select! {
            biased;
            _ = crashed => None,
            result = work => result,
        };
        let ok = matches!(result, Some(Ok(_)));
        let outcome = match result {
            None => Outcome::Unknown(CLIENT_CRASHED.into()),
            Some(result) => outcome_of(result, value),
        };
        recorder.complete(index, outcome);
        ok
    }

    async fn append(&self, client: u32, session: &SessionKey, msg: &Message) -> bool {
        let kind = OpKind::Append {
            session: session.clone(),
            msg: msg.clone(),
        };
        self.call(
            client,
            kind,
            {
                let (session, msg) = (session.clone(), msg.clone());
                move |store| async move { store.append(&session, &msg).await }
            },
            |_| OpValue::None,
        )
        .await
    }

    async fn context(&self, client: u32, session: &SessionKey, limit: usize) -> bool {
        let kind = OpKind::Context {
            session: session.clone(),
            limit,
        };
        let session = session.clone();
        let read = move |store: Arc<dyn MemoryStore>| async move {
            store.summarized_context(&session, limit).await
        };
        self.call(client, kind, read, context_value).await
    }

    /// Remember `memory` for `user` on `client`.
    async fn remember(&self, client: u32, user: &UserKey, memory: &Memory) -> bool {
        let kind = OpKind::Remember {
            user: user.clone(),
            memory: memory.clone(),
        };
        self.call(
            client,
            kind,
            {
                let (user, memory) = (user.clone(), memory.clone());
                move |store| async move { store.remember(&user, &memory).await }
            },
            |_| OpValue::None,
        )
        .await
    }

    async fn recall(&self, client: u32, user: &UserKey, recall: &Recall) -> bool {
        let kind = OpKind::Recall {
            user: user.clone(),
            query: recall.query.clone(),
            k: recall.k,
        };
        let (user, query, k) = (user.clone(), recall.query.clone(), recall.k);
        let ask =
            move |store: Arc<dyn MemoryStore>| async move { store.recall(&user, &query, k).await };
        self.call(client, kind, ask, OpValue::Memories).await
    }

    async fn clear(&self, client: u32, session: &SessionKey) -> bool {
        let kind = OpKind::Clear {
            session: session.clone(),
        };
        let session = session.clone();
        let clear = move |store: Arc<dyn MemoryStore>| async move { store.clear(&session).await };
        self.call(client, kind, clear, |_| OpValue::None).await
    }

    async fn delete(&self, client: u32, session: &SessionKey, id: &str) -> bool {
        let kind = OpKind::Delete {
            session: session.clone(),
            id: id.to_string(),
        };
        let (session, id) = (session.clone(), id.to_string());
        let delete =
            move |store: Arc<dyn MemoryStore>| async move { store.delete(&session, &id).await };
        self.call(client, kind, delete, |_| OpValue::None).await
    }

    async fn revise(&self, client: u32, user: &UserKey, revision: &Revision) -> bool {
        match revision {
            Revision::Update { memory } => {
                let kind = OpKind::UpdateMemory {
                    user: user.clone(),
                    memory: memory.clone(),
                };
                let (user, memory) = (user.clone(), memory.clone());
                let update = move |store: Arc<dyn MemoryStore>| async move {
                    store.update_memory(&user, &memory).await
                };
                self.call(client, kind, update, |_| OpValue::None).await
            }
            Revision::Forget { id } => {
                let kind = OpKind::Forget {
                    user: user.clone(),
                    id: id.clone(),
                };
                let (user, id) = (user.clone(), id.clone());
                let forget = move |store: Arc<dyn MemoryStore>| async move {
                    store.forget(&user, &id).await
                };
                self.call(client, kind, forget, |_| OpValue::None).await
            }
        }
    }

    /// The turn's user message, and its retry (same message) when the plan has one and
    /// the run's [`Retries`] mode sends it: racing the first send, or after it failed.
    /// The request goes on if either send succeeded.
    async fn send_user(&self, turn: &Turn) -> bool {
        let first = self.append(turn.client, &turn.session, &turn.user);
        let Some(retry) = turn.retry else {
            return first.await;
        };
        let idempotent = self.world.policy().appends_idempotent;
        let again = async {
            tokio::time::sleep(std::time::Duration::from_millis(retry.after_ms)).await;
            self.append(retry.client, &turn.session, &turn.user).await
        };
        match self.world.plan.scenario.retries.resolve(idempotent) {
            Retries::Racing => {
                let (first, again) = tokio::join!(first, again);
                first || again
            }
            Retries::AfterFailure => first.await || again.await,
            Retries::None | Retries::Auto => first.await,
        }
    }

    /// One chatbot turn; stops at the first failed step.
    async fn turn(&self, turn: &Turn) {
        let clock = &self.world.clock;
        clock.sleep_until_ms(turn.start_ms).await;
        let (client, session, user) = (turn.client, &turn.session, turn.user());
        if turn.clear && !self.clear(client, session).await {
            return;
        }
        if let Some(system) = &turn.system {
            if !self.append(client, session, system).await {
                return;
            }
        }
        if !self.context(client, session, turn.context_limit).await {
            return;
        }
        if let Some(recall) = &turn.recall {
            // A chatbot answers without its memories if recall fails (or is unsupported).
            self.recall(client, &user, recall).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(turn.think_ms)).await;
        if !self.send_user(turn).await {
            return;
        }
        if !self.append(client, session, &turn.assistant).await {
            return;
        }
        if let Some(memory) = &turn.remember {
            self.remember(client, &user, memory).await;
        }
        if let Some(revision) = &turn.revise {
            self.revise(client, &user, revision).await;
        }
        if let Some(id) = &turn.delete {
            self.delete(client, session, id).await;
        }
    }

    /// Every session's turns, sessions concurrently, then the liveness phase's final reads
    /// once the quiet period has passed.
    pub async fn run(self) {
        let plan = self.world.plan.clone();
        // Each session's turns in plan order, found in one pass over the turns.
        let index: std::collections::BTreeMap<&SessionKey, usize> = plan
            .sessions
            .iter()
            .enumerate()
            .map(|(nth, session)| (session, nth))
            .collect();
        let mut turns_of: Vec<Vec<usize>> = vec![Vec::new(); plan.sessions.len()];
        for (nth, turn) in plan.turns.iter().enumerate() {
            turns_of[index[&turn.session]].push(nth);
        }
        self.preload().await;
        let mut sessions = tokio::task::JoinSet::new();
        for turns in turns_of {
            // An overlapping turn runs on its own; the others wait for each other.
            let (overlapping, sequential): (Vec<usize>, Vec<usize>) =
                turns.into_iter().partition(|&nth| plan.turns[nth].overlaps);
            for nth in overlapping {
                let (driver, plan) = (self.clone(), plan.clone());
                sessions.spawn(async move { driver.turn(&plan.turns[nth]).await });
            }
            let (driver, plan) = (self.clone(), plan.clone());
            sessions.spawn(async move {
                for nth in sequential {
                    driver.turn(&plan.turns[nth]).await;
                }
            });
        }
        while sessions.join_next().await.is_some() {}
        self.world
            .clock
            .sleep_until_ms(plan.duration_ms + plan.quiet_ms)
            .await;
        let recalls = final_recalls(&plan);
        for round in 0..FINAL_ROUNDS {
            if round > 0 {
                let gap = std::time::Duration::from_millis(FINAL_ROUNDS_GAP_MS);
                tokio::time::sleep(gap).await;
            }
            self.final_round(&recalls).await;
        }
        if plan.scenario.replay_memories {
            self.replay_memories().await;
        }
    }

    /// A corpus plan's history: each user's memories remembered in order by its client,
    /// users concurrently, before the first turn (a turn due earlier waits for it).
    async fn preload(&self) {
        let plan = self.world.plan.clone();
        let mut users = tokio::task::JoinSet::new();
        for nth in 0..plan.corpus.len() {
            let (driver, plan) = (self.clone(), plan.clone());
            users.spawn(async move {
                let preload = &plan.corpus[nth];
                for memory in &preload.memories {
                    driver.remember(preload.client, &preload.user, memory).await;
                }
            });
        }
        while users.join_next().await.is_some() {}
    }

    /// One round of final reads: every session's context, then a recall of every user
    /// with memories, one at a time. A conversation is read by the same client in every
    /// round (its place in the plan's order, round-robin), so each round meets the same
    /// connections of the store.
    async fn final_round(&self, recalls: &[(UserKey, Recall)]) {
        let plan = &self.world.plan;
        for (nth, session) in plan.sessions.iter().enumerate() {
            let client = (nth as u32) % plan.clients;
            self.context(client, session, FINAL_READ_LIMIT).await;
        }
        for (nth, (user, recall)) in recalls.iter().enumerate() {
            let client = (nth as u32) % plan.clients;
            self.recall(client, user, recall).await;
        }
    }

    /// Recall every memory text the plan wrote, each by itself, once per user and text,
    /// in plan order, round-robin over the clients.
    async fn replay_memories(&self) {
        let plan = self.world.plan.clone();
        let mut seen: std::collections::BTreeSet<(UserKey, &str)> = Default::default();
        for turn in &plan.turns {
            let revised = match &turn.revise {
                Some(crate::plan::Revision::Update { memory }) => Some(memory),
                _ => None,
            };
            for memory in turn.remember.iter().chain(revised) {
                let user = turn.user();
                if !seen.insert((user.clone(), memory.text.as_str())) {
                    continue;
                }
                let client = (seen.len() as u32) % plan.clients;
                let recall = Recall {
                    query: memory.text.clone(),
                    k: crate::plan::memory::RECALL_K_MAX,
                };
                self.recall(client, &user, &recall).await;
            }
        }
    }

    /// At quiescence: the memory ids every user's data and index hold, for the checker's
    /// `index-drift`. `None` if the store has no memories or an audit failed.
    pub async fn audit_memories(&self) -> Option<Quiescence> {
        let (host, store) = self
            .world
            .clients
            .iter()
            .find_map(|host| Some((host, host.store()?)))?;
        let users: std::collections::BTreeSet<UserKey> =
            self.world.plan.turns.iter().map(Turn::user).collect();
        let mut quiescence = Quiescence::default();
        for user in users {
            let store = store.clone();
            let audit = host.run(async move { store.audit_memories(&user).await });
            let audit = audit.await?.ok()?;
            quiescence.memories_stored.extend(audit.stored);
            quiescence.memories_indexed.extend(audit.indexed);
            quiescence
                .memory_embeddings
                .extend(audit.embeddings.into_iter().flatten());
            if let Some(exact) = audit.exact {
                quiescence
                    .memories_exact
                    .get_or_insert_default()
                    .extend(exact);
            }
        }
        quiescence.memories_stored.sort();
        quiescence.memories_indexed.sort();
        if let Some(exact) = &mut quiescence.memories_exact {
            exact.sort();
        }
        Some(quiescence)
    }
}

/// The final reads' recall of each user the plan remembers a memory for, in user order:
/// the text of the user's first memory, `k` the largest a recall asks for, so the
/// checker judges its answer as any recall's (`recall-miss` by exact text).
fn final_recalls(plan: &crate::plan::Plan) -> Vec<(UserKey, Recall)> {
    let mut first: std::collections::BTreeMap<UserKey, &str> = Default::default();
    for turn in &plan.turns {
        if let Some(memory) = &turn.remember {
            first.entry(turn.user()).or_insert(memory.text.as_str());
        }
    }
    first
        .into_iter()
        .map(|(user, text)| {
            let recall = Recall {
                query: text.to_string(),
                k: crate::plan::memory::RECALL_K_MAX,
            };
            (user, recall)
        })
        .collect()
}
