//! Shrinking: from a failing plan to a minimal one that still fails with the same
//! violation class. Generic over stores and classes: the only question asked is "does this
//! smaller plan still show the class?".
//!
//! Removals: delta debugging over the plan's parts ([`super::edit`]): faults, sessions with
//! their turns, turns, system messages, memory operations, clients, message contents and
//! think times, in rounds until a whole round removes nothing (a *settling*). Its result is
//! 1-minimal: no single fault, session or turn can go.
//!
//! Loosening: 1-minimal is not small when the failure is timing-dependent. Every chunk's
//! delay is drawn from its connection's seeded stream, so removing any command on a
//! jittering link shifts all later delays on it, and the failure clings to all the traffic
//! that shaped those draws (write-behind seed 0 settled at 58 operations over 6 sessions).
//! Loosening edits remove no operation but take that dependence away, each kept while the
//! plan still fails: links lose their tail and jitter, contents and thinks are cut, turns
//! are pulled earlier against their predecessors (a race decided by base latencies, not by
//! a lucky tail draw), sessions are thinned to bare turns. A settling then removes what
//! they freed; a loosening that removes no operation is undone.
//!
//! Two paths, both within the one run budget: removals first (the seed's own timing kept as
//! long as possible, then loosening), and loosening first (while there is still plenty of
//! traffic for the failure to find another way to show). The plan with fewer operations
//! wins, removals first on a tie, so a shrink is never larger than removals alone gave.

use crate::check::ViolationClass;
use crate::plan::Plan;
use crate::runner::edit;
use crate::runner::guard::{run_guarded, Guarded, SEED_TIMEOUT_MS_DEFAULT};
use crate::runner::log::LogFilter;
use crate::runner::run::{run_plan_with, EngineKind, RunOptions};
use crate::runner::store::Store;
use std::collections::BTreeSet;
use std::time::Duration;

/// Runs a shrink may spend at most.
pub const SHRINK_RUNS_MAX: usize = 5_000;
/// Rounds over every kind of edit at most, per settling.
const ROUNDS_MAX: usize = 8;
/// Loosenings (each followed by a settling) at most.
const LOOSEN_ROUNDS_MAX: usize = 4;

/// How to shrink.
#[derive(Clone, Debug)]
pub struct ShrinkConfig {
    /// The store the plan fails with.
    pub store: Store,
    /// The engine every candidate plan runs on.
    pub engine: EngineKind,
    /// Runs the shrink may spend, the first one included; it stops with the smallest
    /// failing plan so far.
    pub runs_max: usize,
    /// Wall-clock limit of one run (see [`super::guard`]).
    pub seed_timeout: Duration,
    /// Which of the store's log events the trace records.
    pub log: LogFilter,
}

impl ShrinkConfig {
    /// Defaults for `store`: the event engine, [`SHRINK_RUNS_MAX`] runs, the default seed
    /// timeout.
    pub fn new(store: Store) -> ShrinkConfig {
        ShrinkConfig {
            store,
            engine: EngineKind::Event,
            runs_max: SHRINK_RUNS_MAX,
            seed_timeout: Duration::from_millis(SEED_TIMEOUT_MS_DEFAULT),
            log: LogFilter::default(),
        }
    }
}

/// Why a plan cannot be shrunk.
#[derive(Debug, thiserror::Error)]
pub enum ShrinkError {
    /// The plan shows no violation with the store: there is no failure to keep.
    #[error("the plan passes with store {store}: nothing to shrink")]
    Passes {
        /// The store's label.
        store: String,
    },
}

/// A shrunk plan and how it got there.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest plan found that still fails with the same class.
    pub plan: Plan,
    /// The class the shrunk plan still shows.
    pub class: ViolationClass,
    /// Runs spent, the first one included.
    pub runs: usize,
    /// [`edit::operations_total`] before and after.
    pub operations_before: usize,
    /// Operations of the shrunk plan.
    pub operations_after: usize,
}

/// Shrink `plan`, which must fail with `config.store`, keeping its first violation class.
///
/// ```
/// use amnesia::internal::runner::{shrink, ShrinkConfig};
/// use amnesia::{Plan, ScenarioConfig, Store};
/// let plan = Plan::generate(0, &ScenarioConfig::standard());
/// let shrunk = shrink(plan, &ShrinkConfig::new(Store::named("lossy-serde").unwrap())).unwrap();
/// assert_eq!(shrunk.class, amnesia::ViolationClass::Corrupt);
/// assert!(shrunk.operations_after < shrunk.operations_before);
/// ```
pub fn shrink(plan: Plan, config: &ShrinkConfig) -> Result<Shrunk, ShrinkError> {
    // Shrunk as it runs: its faults named for the store's server, so the saved plan is.
    let plan = plan.for_backend(config.store.backend());
    let mut search = Search {
        config,
        class: ViolationClass::Lost,
        runs: 0,
    };
    let Some(class) = search.classes(&plan).into_iter().next() else {
        return Err(ShrinkError::Passes {
            store: config.store.label().to_string(),
        });
    };
    search.class = class;
    let operations_before = edit::operations_total(&plan);
    // Two paths from the seed's plan. Removals first keeps the seed's timing and latency
    // as long as it can; loosening first takes the failure off the other traffic while
    // there is still plenty of traffic to find another way to fail. Each ends in the
    // other's moves; the smaller result wins, removals first on a tie.
    let removals_first = search.settle(plan.clone());
    let removals_first = search.loosen_and_settle(removals_first);
    let loosened = search.loosen(plan);
    let loosened_first = search.settle(loosened);
    let loosened_first = search.loosen_and_settle(loosened_first);
    let plan = if edit::operations_total(&loosened_first) < edit::operations_total(&removals_first)
    {
        loosened_first
    } else {
        removals_first
    };
    Ok(Shrunk {
        operations_after: edit::operations_total(&plan),
        plan,
        class,
        runs: search.runs,
        operations_before,
    })
}

/// The state of one shrink.
struct Search<'a> {
    config: &'a ShrinkConfig,
    class: ViolationClass,
    runs: usize,
}

impl Search<'_> {
    fn exhausted(&self) -> bool {
        self.runs >= self.config.runs_max
    }

    /// The violation classes of one run of `plan` (`stuck` if it hit the wall-clock limit).
    fn classes(&mut self, plan: &Plan) -> Vec<ViolationClass> {
        self.runs += 1;
        let (plan, store, engine) = (plan.clone(), self.config.store.clone(), self.config.engine);
        let options = RunOptions {
            log: self.config.log.clone(),
        };
        let run = run_guarded("shrink".into(), self.config.seed_timeout, move || {
            run_plan_with(plan, &store, engine, &options)
                .verdict
                .classes()
        });
        match run {
            Guarded::Done(classes) => classes,
            Guarded::Stuck => vec![ViolationClass::Stuck],
            Guarded::Panicked(_) => Vec::new(),
        }
    }

    /// Does `candidate` still fail the same way? Invalid plans never do.
    fn fails(&mut self, candidate: &Plan) -> bool {
        if self.exhausted() || candidate.validate().is_err() {
            return false;
        }
        self.classes(candidate).contains(&self.class)
    }

    /// Rounds of [`Search::round`] until one changes nothing.
    fn settle(&mut self, mut plan: Plan) -> Plan {
        for _ in 0..ROUNDS_MAX {
            let before = plan.clone();
            plan = self.round(plan);
            if plan == before || self.exhausted() {
                break;
            }
        }
        plan
    }

    /// Loosen and settle again while that removes operations. A loosening that buys none
    /// is undone: the plan stays as the removals left it, with more of the seed's own
    /// timing and latency, which is easier to read.
    fn loosen_and_settle(&mut self, mut plan: Plan) -> Plan {
        for _ in 0..LOOSEN_ROUNDS_MAX {
            if self.exhausted() {
                break;
            }
            let loosened = self.loosen(plan.clone());
            if loosened == plan {
                break;
            }
            let settled = self.settle(loosened);
            if edit::operations_total(&settled) >= edit::operations_total(&plan) {
                break;
            }
            plan = settled;
        }
        plan
    }

    /// Edits that remove no operation but take the failure's dependence on the other
    /// traffic away, each kept while the plan still fails: quiet links, turns pulled
    /// against their predecessors, thinned sessions. What they free, the next settling
    /// removes.
    fn loosen(&mut self, plan: Plan) -> Plan {
        let turns = |p: &Plan| p.turns.len();
        let messages = |p: &Plan| p.messages().count();
        let plan = self.change(plan, |p| 2 * p.links.len(), edit::calm_links);
        let plan = self.change(plan, messages, |p, s| edit::shorten_contents(p, s, 0, 1));
        let plan = self.change(plan, turns, |p, s| edit::shorten_thinks(p, s, 0, 1));
        let plan = self.change(plan, turns, |p, s| edit::pull_turns(p, s, 1, 1));
        let plan = self.change(plan, turns, |p, s| edit::pull_turns(p, s, 1, 2));
        self.change(plan, |p| p.sessions.len(), edit::thin_sessions)
    }

    /// One round of every kind of edit, largest first.
    fn round(&mut self, plan: Plan) -> Plan {
        let plan = self.reduce(plan, |p| p.faults.len(), edit::keep_faults);
        let plan = self.reduce(plan, |p| p.sessions.len(), edit::keep_sessions);
        let plan = self.reduce(plan, |p| p.turns.len(), edit::keep_turns);
        let plan = self.change(plan, |p| p.turns.len(), edit::drop_system_messages);
        let plan = self.change(plan, |p| p.turns.len(), edit::drop_memory_operations);
        let plan = self.change(plan, |p| p.turns.len(), edit::drop_edits);
        let plan = self.change(plan, |_| 2, edit::calm);
        let plan = self.merge_clients(plan);
        let messages = |p: &Plan| p.messages().count();
        let plan = self.change(plan, messages, |p, s| edit::shorten_contents(p, s, 0, 1));
        let plan = self.change(plan, messages, |p, s| edit::shorten_contents(p, s, 1, 4));
        let plan = self.change(
            plan,
            |p| p.turns.len(),
            |p, s| edit::shorten_thinks(p, s, 0, 1),
        );
        self.change(
            plan,
            |p| p.turns.len(),
            |p, s| edit::shorten_thinks(p, s, 1, 4),
        )
    }

    /// Delta debugging by removal: drop ever smaller chunks of the `count` parts while the
    /// plan still fails; `keep` builds the plan with only the parts of a set.
    fn reduce(
        &mut self,
        plan: Plan,
        count: impl Fn(&Plan) -> usize,
        keep: impl Fn(&Plan, &BTreeSet<usize>) -> Plan,
    ) -> Plan {
        let mut kept: Vec<usize> = (0..count(&plan)).collect();
        let original = plan;
        let mut best = original.clone();
        let mut chunk = kept.len().div_ceil(2).max(1);
        loop {
            let mut removed = false;
            let mut at = 0;
            while at < kept.len() && !self.exhausted() {
                let mut candidate_kept = kept.clone();
                candidate_kept.drain(at..(at + chunk).min(kept.len()));
                let candidate = keep(&original, &candidate_kept.iter().copied().collect());
                if self.fails(&candidate) {
                    kept = candidate_kept;
                    best = candidate;
                    removed = true;
                } else {
                    at += chunk;
                }
            }
            if self.exhausted() || (chunk == 1 && !removed) || kept.is_empty() {
                return best;
            }
            chunk = (chunk / 2).max(1);
        }
    }

    /// Like [`Search::reduce`], for edits that change parts rather than remove them:
    /// apply `edit` to ever smaller chunks, keeping each change that still fails.
    fn change(
        &mut self,
        plan: Plan,
        count: impl Fn(&Plan) -> usize,
        edit: impl Fn(&Plan, &BTreeSet<usize>) -> Plan,
    ) -> Plan {
        let total = count(&plan);
        let mut best = plan;
        let mut chunk = total.max(1);
        loop {
            for start in (0..total).step_by(chunk) {
                if self.exhausted() {
                    return best;
                }
                let parts: BTreeSet<usize> = (start..(start + chunk).min(total)).collect();
                let candidate = edit(&best, &parts);
                if candidate != best && self.fails(&candidate) {
                    best = candidate;
                }
            }
            if chunk == 1 {
                return best;
            }
            chunk = (chunk / 2).max(1);
        }
    }

    /// Fold clients into others, highest first, while the plan still fails.
    fn merge_clients(&mut self, plan: Plan) -> Plan {
        let mut best = edit::remap_clients(&plan);
        if best != plan && !self.fails(&best) {
            best = plan;
        }
        for client in (1..best.clients).rev() {
            for to in 0..client {
                let candidate = edit::merge_client(&best, client, to);
                if self.fails(&candidate) {
                    best = candidate;
                    break;
                }
            }
        }
        best
    }
}
