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

/// A built-in store whose declared recovery grace is `grace_ms`: its commands unchanged
/// (those the cached-connection stores offer), its promise to recover later.
struct WithGrace {
    inner: std::sync::Arc<dyn amnesia::MemoryStore>,
    grace_ms: u64,
}

#[async_trait::async_trait]
impl amnesia::MemoryStore for WithGrace {
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

    async fn clear(&self, session: &amnesia::SessionKey) -> Result<(), amnesia::StoreError> {
        self.inner.clear(session).await
    }

    fn policy(&self) -> amnesia::Policy {
        amnesia::Policy {
            recovery_grace_ms: self.grace_ms,
            eviction: amnesia::Eviction::Forbidden,
            ..self.inner.policy()
        }
    }
}

/// `name` declaring a recovery grace of `grace_ms`.
fn with_grace(name: &str, grace_ms: u64) -> Store {
    let factory = Store::named(name).expect("a known store").factory().clone();
    Store::new(format!("{name}+grace{grace_ms}"), move |context| {
        WithGrace {
            inner: factory(context),
            grace_ms,
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
