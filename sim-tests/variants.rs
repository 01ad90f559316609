//! The bug catalogue is caught: every buggy variant of the reference store fails with (one
//! of) its expected violation classes within a stated seed budget of the standard scenario,
//! and its first failing seed, run again, gives the same classes.
//!
//! `cargo test --release --test variants -- --nocapture` prints, per variant, the first
//! failing seed, its classes and the command that replays it: the numbers of the README.

#[path = "catalogue.rs"]
mod catalogue;

use amnesia::history::{OpKind, Outcome};
use amnesia::internal::check::ViolationClass;
use amnesia::internal::plan::ScenarioConfig;
use amnesia::internal::runner::{run_seed, EngineKind, RunReport};
use amnesia::{Retries, Store};
use catalogue::catalogue;
use std::collections::BTreeMap;

fn classes(seed: u64, store: &str) -> Vec<ViolationClass> {
    let store = Store::named(store).expect("a known store");
    run_seed(seed, &ScenarioConfig::standard(), &store, EngineKind::Event)
        .verdict
        .classes()
}

#[test]
fn every_variant_is_caught_within_its_budget_and_replays() {
    let mut failures = Vec::new();
    for &(store, expected, budget) in &catalogue() {
        let first = (0..budget).find_map(|seed| {
            let found = classes(seed, store);
            found
                .iter()
                .any(|class| expected.contains(class))
                .then_some((seed, found))
        });
        let Some((seed, found)) = first else {
            failures.push(format!(
                "{store}: not caught as {expected:?} in seeds 0..{budget}"
            ));
            continue;
        };
        println!(
            "{store:20} first failing seed {seed:4} (budget {budget:3})  classes {found:?}  \
             replay: amnesia run --seed {seed} --store {store}"
        );
        let replayed = classes(seed, store);
        if replayed != found {
            failures.push(format!(
                "{store}: seed {seed} gave {found:?}, then {replayed:?} on replay"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_catalogue_names_every_variant() {
    let mut named: Vec<&str> = catalogue().iter().map(|(store, ..)| *store).collect();
    named.extend(["reference", "plain-list"]);
    let mut known = amnesia::internal::store::STORE_NAMES.to_vec();
    named.sort_unstable();
    known.sort_unstable();
    assert_eq!(named, known);
}

fn with_retries(retries: Retries) -> ScenarioConfig {
    ScenarioConfig {
        retries,
        ..ScenarioConfig::standard()
    }
}

/// Seeds of `store` under `scenario` that fail, with their classes.
fn failing(store: &str, scenario: &ScenarioConfig, seeds: std::ops::Range<u64>) -> Vec<String> {
    let store = Store::named(store).expect("a known store");
    seeds
        .filter_map(|seed| {
            let report = run_seed(seed, scenario, &store, EngineKind::Event);
            let classes = report.verdict.classes();
            (!classes.is_empty()).then(|| format!("seed {seed}: {classes:?}"))
        })
        .collect()
}

/// A store that stores every send (a plain `RPUSH`) and says so passes, whichever
/// retries its application sends: the checker allows a copy per send that may have been
/// applied, and nothing else changes.
#[test]
fn a_store_that_is_not_idempotent_passes_under_every_retry_mode() {
    for (retries, seeds) in [
        (Retries::Auto, 0..300),
        (Retries::Racing, 0..200),
        (Retries::None, 0..100),
    ] {
        let failed = failing("plain-list", &with_retries(retries), seeds);
        assert!(failed.is_empty(), "{retries:?}: {failed:?}");
    }
}

/// One send of a message: invoked, completed, acked.
type Send = (u64, Option<u64>, bool);

/// The sends of one message id to one session, for the ids sent more than once.
fn sends_by_message(report: &RunReport) -> Vec<Vec<Send>> {
    let mut sends: BTreeMap<(String, String), Vec<Send>> = BTreeMap::new();
    for op in &report.history.ops {
        if let OpKind::Append { session, msg } = &op.kind {
            let acked = matches!(op.outcome, Outcome::Ok(_));
            sends
                .entry((session.to_string(), msg.id.clone()))
                .or_default()
                .push((op.invoke_us, op.complete_us, acked));
        }
    }
    sends
        .into_values()
        .filter(|sends| sends.len() > 1)
        .collect()
}

/// `Auto` sends a non-idempotent store's retries only after its first send failed or
/// timed out, and an idempotent store's racing their first send.
#[test]
fn retries_follow_the_declared_idempotency() {
    let (mut after_failure, mut racing) = (0, 0);
    let scenario = ScenarioConfig::standard();
    for seed in 0..200 {
        let plain = run_seed(
            seed,
            &scenario,
            &Store::named("plain-list").unwrap(),
            EngineKind::Event,
        );
        for sends in sends_by_message(&plain) {
            let (_, first_done, first_acked) = sends[0];
            assert!(
                !first_acked,
                "seed {seed}: a retry after an acked send: {sends:?}"
            );
            let first_done = first_done.expect("a failed send completed");
            assert!(
                sends[1..].iter().all(|&(invoke, ..)| invoke >= first_done),
                "seed {seed}: {sends:?}"
            );
            after_failure += 1;
        }
        let reference = run_seed(
            seed,
            &scenario,
            &Store::named("reference").unwrap(),
            EngineKind::Event,
        );
        racing += sends_by_message(&reference)
            .iter()
            .filter(|sends| sends[1].0 < sends[0].1.unwrap_or(u64::MAX))
            .count();
    }
    assert!(
        after_failure > 0,
        "no retry after a failed send in 200 seeds"
    );
    assert!(racing > 0, "no retry racing its first send in 200 seeds");
    println!("retries after a failure: {after_failure}; racing: {racing}");
}

/// A built-in store that declares another policy: every call forwarded, its promise
/// changed by `change` (a later recovery, a tolerance of eviction).
struct Redeclared {
    inner: std::sync::Arc<dyn amnesia::MemoryStore>,
    policy: amnesia::Policy,
}

#[async_trait::async_trait]
impl amnesia::MemoryStore for Redeclared {
    async fn append(
        &self,
        session: &amnesia::SessionKey,
        msg: &amnesia::Message,
    ) -> Result<(), amnesia::StoreError> {
        self.inner.append(session, msg).await
    }

    async fn context(
        &self,
        session: &amnesia::SessionKey,
        limit: usize,
    ) -> Result<Vec<amnesia::Message>, amnesia::StoreError> {
        self.inner.context(session, limit).await
    }

    async fn summarized_context(
        &self,
        session: &amnesia::SessionKey,
        limit: usize,
    ) -> Result<amnesia::Context, amnesia::StoreError> {
        self.inner.summarized_context(session, limit).await
    }

    async fn clear(&self, session: &amnesia::SessionKey) -> Result<(), amnesia::StoreError> {
        self.inner.clear(session).await
    }

    async fn delete(
        &self,
        session: &amnesia::SessionKey,
        id: &str,
    ) -> Result<(), amnesia::StoreError> {
        self.inner.delete(session, id).await
    }

    async fn remember(
        &self,
        user: &amnesia::UserKey,
        memory: &amnesia::Memory,
    ) -> Result<(), amnesia::StoreError> {
        self.inner.remember(user, memory).await
    }

    async fn recall(
        &self,
        user: &amnesia::UserKey,
        query: &str,
        k: usize,
    ) -> Result<Vec<amnesia::Memory>, amnesia::StoreError> {
        self.inner.recall(user, query, k).await
    }

    async fn update_memory(
        &self,
        user: &amnesia::UserKey,
        memory: &amnesia::Memory,
    ) -> Result<(), amnesia::StoreError> {
        self.inner.update_memory(user, memory).await
    }

    async fn forget(&self, user: &amnesia::UserKey, id: &str) -> Result<(), amnesia::StoreError> {
        self.inner.forget(user, id).await
    }

    async fn audit_memories(
        &self,
        user: &amnesia::UserKey,
    ) -> Result<amnesia::MemoryAudit, amnesia::StoreError> {
        self.inner.audit_memories(user).await
    }

    async fn migrate(&self) -> Result<Option<String>, amnesia::StoreError> {
        self.inner.migrate().await
    }

    fn policy(&self) -> amnesia::Policy {
        self.policy
    }
}

/// `name` declaring the policy `change` makes of its own, under the name `label`.
fn redeclared(
    name: &str,
    label: String,
    change: impl Fn(amnesia::Policy) -> amnesia::Policy + std::marker::Send + Sync + 'static,
) -> Store {
    let factory = Store::named(name).expect("a known store").factory().clone();
    Store::new(label, move |context| {
        let inner = factory(context);
        let policy = change(inner.policy());
        Redeclared { inner, policy }
    })
}

/// `name` declaring a recovery grace of `grace_ms`.
fn with_grace(name: &str, grace_ms: u64) -> Store {
    redeclared(name, format!("{name}+grace{grace_ms}"), move |policy| {
        amnesia::Policy {
            recovery_grace_ms: grace_ms,
            ..policy
        }
    })
}

/// `unavailable` is judged per conversation: a store with a connection per session that
/// replaces a broken one (a per-session `ConnectionManager`) fails each session's first
/// call after a reset and passes; the same store that never replaces one
/// (`session-connection`) is caught whatever grace it declares, up to the largest, since
/// the second round of final reads comes after any grace.
#[test]
fn a_connection_per_session_is_judged_per_conversation_at_any_grace() {
    let scenario = ScenarioConfig::standard();
    let reconnecting = Store::named("test-session-reconnect").expect("a test store");
    for seed in 0..200 {
        let report = run_seed(seed, &scenario, &reconnecting, EngineKind::Event);
        assert!(
            report.verdict.is_pass(),
            "seed {seed}: {:?}",
            report.verdict
        );
    }
    for grace_ms in [0, 1_000, amnesia::RECOVERY_GRACE_MS_MAX] {
        let store = with_grace("session-connection", grace_ms);
        let caught = (0..500).find(|&seed| {
            let report = run_seed(seed, &scenario, &store, EngineKind::Event);
            report.verdict.classes() == [ViolationClass::Unavailable]
        });
        let seed = caught.unwrap_or_else(|| panic!("grace {grace_ms} ms: not caught in 0..500"));
        println!("session-connection at grace {grace_ms} ms: first caught at seed {seed}");
    }
}

/// A store that declares a grace above the largest is refused, with the bound named.
#[test]
#[should_panic(expected = "exceeds RECOVERY_GRACE_MS_MAX")]
fn a_grace_above_the_largest_is_refused() {
    let store = with_grace("session-connection", amnesia::RECOVERY_GRACE_MS_MAX + 1);
    run_seed(0, &ScenarioConfig::standard(), &store, EngineKind::Event);
}

/// Seeds of `scenario` run with `store`: each with its report.
fn reports(
    store: &Store,
    scenario: &ScenarioConfig,
    seeds: std::ops::Range<u64>,
) -> Vec<(u64, RunReport)> {
    seeds
        .map(|seed| (seed, run_seed(seed, scenario, store, EngineKind::Event)))
        .collect()
}

/// The pressure scenario with one policy.
fn pressure(policy: amnesia::EvictionPolicy) -> ScenarioConfig {
    ScenarioConfig {
        maxmemory_policy: Some(policy),
        ..ScenarioConfig::pressure()
    }
}

/// Under `noeviction` a full Redis refuses the store's writes with `-OOM` while the
/// neighbour's cache fills it: the reference store reports them failed and passes.
#[test]
fn under_noeviction_a_full_redis_refuses_writes_and_the_reference_store_passes() {
    let reference = Store::named("reference").unwrap();
    let runs = reports(
        &reference,
        &pressure(amnesia::EvictionPolicy::Noeviction),
        0..60,
    );
    let mut refused = 0;
    for (seed, report) in &runs {
        assert!(
            report.verdict.is_pass(),
            "seed {seed}: {:?}",
            report.verdict
        );
        refused += report
            .history
            .ops
            .iter()
            .filter(|op| matches!(&op.outcome, Outcome::Fail(e) if e.contains("OOM")))
            .count();
    }
    assert!(refused > 0, "no write refused for memory in 60 seeds");
    println!("noeviction: {refused} writes refused with -OOM in 60 seeds");
}

/// Under the evicting policies the reference store (which forbids eviction) loses
/// sessions and memories to it: `evicted`, never another class, each naming its key and
/// policy; the same store declaring `Eviction::Tolerated` passes with the losses noted.
#[test]
fn eviction_is_judged_evicted_and_a_tolerant_store_passes_with_the_losses_noted() {
    let reference = Store::named("reference").unwrap();
    let tolerant = redeclared("reference", "reference+tolerant".into(), |policy| {
        amnesia::Policy {
            eviction: amnesia::Eviction::Tolerated,
            ..policy
        }
    });
    let (mut evicted, mut noted) = (0, 0);
    // allkeys-lru alone, then a policy drawn per seed from all eight.
    let scenarios = [
        pressure(amnesia::EvictionPolicy::AllkeysLru),
        ScenarioConfig::pressure(),
    ];
    for (scenario, seed) in scenarios
        .iter()
        .flat_map(|s| (0..30).map(move |seed| (s, seed)))
    {
        let report = run_seed(seed, scenario, &reference, EngineKind::Event);
        for violation in &report.verdict.violations {
            assert_eq!(
                violation.class,
                ViolationClass::Evicted,
                "seed {seed}: {violation:?}"
            );
            assert!(
                violation.explanation.contains("Redis evicted key"),
                "{violation:?}"
            );
            evicted += 1;
        }
        let report = run_seed(seed, scenario, &tolerant, EngineKind::Event);
        assert!(
            report.verdict.is_pass(),
            "seed {seed}: {:?}",
            report.verdict
        );
        noted += report
            .verdict
            .info
            .iter()
            .filter(|info| matches!(info, amnesia::Info::Evicted { .. }))
            .count();
    }
    assert!(evicted > 0 && noted > 0, "evicted {evicted}, noted {noted}");
    println!("pressure: {evicted} evicted violations, {noted} tolerated notes in 60 seeds");
}

/// A store that pipelines its writes and ignores the replies' errors acknowledges
/// appends a full Redis refused: `lost`, with no other fault in the plan.
#[test]
fn a_pipeline_that_ignores_oom_replies_is_caught_as_lost() {
    let scenario = ScenarioConfig {
        swarm: false,
        ..pressure(amnesia::EvictionPolicy::Noeviction)
    };
    let reference = Store::named("reference").unwrap();
    let pipeline = Store::named("pipeline-partial").unwrap();
    let caught = (0..100).find(|&seed| {
        let report = run_seed(seed, &scenario, &pipeline, EngineKind::Event);
        report.verdict.classes().contains(&ViolationClass::Lost)
    });
    let seed = caught.expect("pipeline-partial not caught as lost in 0..100");
    let report = run_seed(seed, &scenario, &reference, EngineKind::Event);
    assert!(
        report.verdict.is_pass(),
        "reference at seed {seed}: {:?}",
        report.verdict
    );
    println!("pipeline-partial under noeviction, no faults: lost at seed {seed}");
}
