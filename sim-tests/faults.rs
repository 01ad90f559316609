//! Every fault of the catalogue, forced by a hand-written plan, with its observable effect
//! asserted in the trace and the history.

use amnesia::history::{Kept, OpKind, OpValue, Outcome};
use amnesia::internal::model::Persistence;
use amnesia::internal::plan::{
    ClassRate, Direction, ErrorReply, Fault, FaultKind, Plan, ScenarioConfig, Turn,
};
use amnesia::internal::runner::{run_plan, EngineKind, RunReport};
use amnesia::internal::store::{
    MemoryStore, Message, Policy, Role, SessionKey, StoreContext, StoreError,
};
use amnesia::Store;
use std::sync::Arc;

/// A plan with two sessions, `clients` clients, calm links and no turns or faults yet.
fn base_plan(clients: u32) -> Plan {
    let scenario = ScenarioConfig {
        swarm: false,
        buggify: false,
        clients,
        ..ScenarioConfig::smoke()
    };
    let mut plan = Plan::generate(1, &scenario);
    plan.turns.clear();
    plan.faults.clear();
    plan.mix.classes.clear();
    plan.session_ttl_ms = 60_000;
    plan.duration_ms = 10_000;
    plan.quiet_ms = 2_000;
    plan
}

/// Add a turn of session `session` (0 or 1) on `client` at `start_ms`.
fn add_turn(plan: &mut Plan, session: usize, client: u32, start_ms: u64, think_ms: u64) {
    let index = plan.turns.len();
    let seq = 2 * index as u64;
    let message = |seq: u64, role: Role| Message {
        id: format!("m{seq}"),
        role,
        content: format!("turn {index} says hi"),
        seq,
    };
    plan.turns.push(Turn {
        index,
        session: plan.sessions[session].clone(),
        client,
        start_ms,
        context_limit: 10,
        think_ms,
        system: None,
        user: message(seq, Role::User),
        assistant: message(seq + 1, Role::Assistant),
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

fn add_fault(plan: &mut Plan, at_ms: u64, duration_ms: u64, kind: FaultKind) {
    let class = kind.class();
    if plan.mix.rate(class).is_none() {
        plan.mix.classes.push(ClassRate {
            class,
            per_minute: 1,
            duration_ms_max: duration_ms,
        });
        plan.mix.classes.sort_by_key(|rate| rate.class);
    }
    plan.faults.push(Fault {
        at_ms,
        duration_ms,
        kind,
    });
    plan.faults.sort_by_key(|fault| fault.at_ms);
}

fn run(plan: Plan, store: &str) -> RunReport {
    plan.validate().expect("a valid hand-written plan");
    run_plan(
        plan,
        &Store::named(store).expect("known store"),
        EngineKind::Event,
    )
}

/// Lines of the full timeline that contain `needle`, as (seconds, line).
fn lines_with(report: &RunReport, needle: &str) -> Vec<(f64, String)> {
    report
        .trace
        .events()
        .into_iter()
        .filter(|event| event.text.contains(needle))
        .map(|event| (event.at_us as f64 / 1e6, event.text))
        .collect()
}

fn outcome_of_append(report: &RunReport, id: &str) -> Outcome {
    report
        .history
        .ops
        .iter()
        .find(|op| matches!(&op.kind, OpKind::Append { msg, .. } if msg.id == id))
        .map(|op| op.outcome.clone())
        .unwrap_or_else(|| panic!("no append of {id}"))
}

/// The ids returned by the last successful read of `session`.
fn last_read(report: &RunReport, session: &SessionKey) -> Vec<String> {
    report
        .history
        .ops
        .iter()
        .rev()
        .find_map(|op| match (&op.kind, &op.outcome) {
            (OpKind::Context { session: s, .. }, Outcome::Ok(OpValue::Messages(messages)))
                if s == session =>
            {
                Some(messages.iter().map(|m| m.id.clone()).collect())
            }
            _ => None,
        })
        .expect("a successful read")
}

/// The outcome of the one operation invoked between `from_ms` and `to_ms`.
fn outcome_between(report: &RunReport, from_ms: u64, to_ms: u64) -> Outcome {
    let ops: Vec<&amnesia::history::Op> = report
        .history
        .ops
        .iter()
        .filter(|op| (from_ms * 1_000..to_ms * 1_000).contains(&op.invoke_us))
        .collect();
    assert_eq!(ops.len(), 1, "{ops:?}");
    ops[0].outcome.clone()
}

/// The policy of this file's own test stores: no window, no TTL, nothing durable.
fn unbounded_volatile(appends_idempotent: bool) -> Policy {
    Policy {
        messages_max: None,
        keep_first: false,
        summarizes: false,
        ttl: amnesia::internal::store::TtlPolicy::None,
        durability: amnesia::internal::store::Durability::Volatile,
        appends_idempotent,
        recovery_grace_ms: 0,
        eviction: amnesia::Eviction::Forbidden,
    }
}

/// Lines of the timeline that say a connection of client 0 was opened.
fn opened(report: &RunReport) -> Vec<(f64, String)> {
    lines_with(report, "opened")
        .into_iter()
        .filter(|(_, line)| line.starts_with("conn "))
        .collect()
}

#[test]
fn a_partition_loses_bytes_and_tcp_delivers_them_with_the_next_retransmission() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 2_500, 100);
    add_turn(&mut plan, 0, 0, 6_000, 100);
    add_fault(
        &mut plan,
        2_000,
        2_000,
        FaultKind::Partition {
            client: 0,
            direction: Direction::Both,
        },
    );
    let report = run(plan, "reference");
    let resent = lines_with(&report, "lost in a partition: sent again");
    assert!(
        !resent.is_empty(),
        "the append in the partition was retransmitted"
    );
    assert!(lines_with(&report, "black-holed").is_empty());
    assert!(lines_with(&report, "TCP gives up").is_empty());
    // Sent at 2.5 s: again at 2.7, 3.1, 3.9 (all lost) and 5.5 s, after the heal at 4 s.
    assert!(
        resent
            .iter()
            .any(|(_, line)| line.contains("sent again at 5.5")),
        "{resent:?}"
    );
    assert!(
        matches!(outcome_between(&report, 2_000, 4_000), Outcome::Unknown(_)),
        "the call timed out before its retransmission landed"
    );
    let landed: Vec<(f64, String)> = lines_with(&report, "conn 0 →redis")
        .into_iter()
        .filter(|(at, _)| (5.5..5.6).contains(at))
        .collect();
    assert_eq!(
        landed.len(),
        1,
        "the request landed after the heal: {landed:?}"
    );
    assert_eq!(
        outcome_of_append(&report, "m4"),
        Outcome::Ok(OpValue::None),
        "the turn after healing succeeds"
    );
    assert!(report.verdict.is_pass(), "{:?}", report.verdict);
}

#[test]
fn a_partition_past_the_retransmission_budget_resets_the_connection() {
    let mut plan = base_plan(1);
    plan.tcp.give_up_ms = 1_000;
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 2_500, 100);
    add_turn(&mut plan, 0, 0, 6_000, 100);
    add_fault(
        &mut plan,
        2_000,
        3_000,
        FaultKind::Partition {
            client: 0,
            direction: Direction::Both,
        },
    );
    let report = run(plan, "reference");
    let given_up = lines_with(&report, "TCP gives up");
    assert_eq!(given_up.len(), 1, "{given_up:?}");
    // The append went out at 2.5 s; unacknowledged for the 1 s budget.
    assert!((given_up[0].0 - 3.5).abs() < 0.01, "{given_up:?}");
    let resets = lines_with(&report, "reset");
    assert!(
        resets
            .iter()
            .any(|(at, line)| line.ends_with(" reset") && (*at - 3.5).abs() < 0.01),
        "{resets:?}"
    );
    assert!(report.verdict.is_pass(), "{:?}", report.verdict);
}

/// A store that keeps one connection until it breaks (as redis-rs' `ConnectionManager`
/// does): a timeout does not replace it.
struct KeepsConnection {
    connector: Arc<amnesia::Connector>,
}

#[async_trait::async_trait]
impl MemoryStore for KeepsConnection {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let mut connection = self.connector.connection().await?;
        let key = format!("keeps:{}:{}", session.tenant, session.session);
        redis::cmd("RPUSH")
            .arg(key)
            .arg(amnesia::encode_message(msg))
            .query_async::<()>(&mut connection)
            .await
            .map_err(|error| amnesia::internal::connect::classify(&error))
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let mut connection = self.connector.connection().await?;
        let key = format!("keeps:{}:{}", session.tenant, session.session);
        let raw: Vec<Vec<u8>> = redis::cmd("LRANGE")
            .arg(key)
            .arg(-(limit as i64))
            .arg(-1)
            .query_async(&mut connection)
            .await
            .map_err(|error| amnesia::internal::connect::classify(&error))?;
        raw.iter()
            .map(|bytes| amnesia::decode_message(bytes))
            .collect()
    }

    fn policy(&self) -> Policy {
        unbounded_volatile(false)
    }
}

#[test]
fn a_connection_that_lived_through_a_partition_serves_the_calls_after_the_heal() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 2_100, 100);
    add_turn(&mut plan, 0, 0, 6_000, 100);
    add_fault(
        &mut plan,
        2_000,
        2_000,
        FaultKind::Partition {
            client: 0,
            direction: Direction::Both,
        },
    );
    let keeps = Store::new("keeps-connection", |context: StoreContext| {
        KeepsConnection {
            connector: context.connector.clone(),
        }
    });
    let report = run_plan(plan, &keeps, EngineKind::Event);
    assert_eq!(
        opened(&report).len(),
        1,
        "one connection all along: {:?}",
        opened(&report)
    );
    assert!(matches!(
        outcome_between(&report, 2_000, 4_000),
        Outcome::Unknown(_)
    ));
    for id in ["m4", "m5"] {
        assert_eq!(
            outcome_of_append(&report, id),
            Outcome::Ok(OpValue::None),
            "{id}"
        );
    }
    assert!(report.verdict.is_pass(), "{:?}", report.verdict);
}

#[test]
fn a_silent_drop_stalls_open_connections_until_a_timeout_replaces_them() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 2_500, 100);
    add_turn(&mut plan, 0, 0, 6_000, 100);
    add_fault(&mut plan, 2_000, 100, FaultKind::SilentDrop { client: 0 });
    let report = run(plan, "reference");
    assert_eq!(
        lines_with(&report, "silent drop client-0: 1 connections black-holed").len(),
        1
    );
    let resets: Vec<_> = lines_with(&report, " reset")
        .into_iter()
        .filter(|(_, line)| line.starts_with("conn "))
        .collect();
    assert!(resets.is_empty(), "no reset is seen: {resets:?}");
    assert!(matches!(
        outcome_between(&report, 2_000, 4_000),
        Outcome::Unknown(_)
    ));
    assert!(
        opened(&report).len() >= 2,
        "the timeout replaced the connection"
    );
    assert_eq!(outcome_of_append(&report, "m4"), Outcome::Ok(OpValue::None));
    assert!(report.verdict.is_pass(), "{:?}", report.verdict);
}

#[test]
fn a_silent_drop_catches_a_store_that_never_replaces_a_dead_connection() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 2_500, 100);
    add_fault(&mut plan, 2_000, 100, FaultKind::SilentDrop { client: 0 });
    let keeps = Store::new("keeps-connection", |context: StoreContext| {
        KeepsConnection {
            connector: context.connector.clone(),
        }
    });
    let report = run_plan(plan, &keeps, EngineKind::Event);
    let classes = report.verdict.classes();
    assert!(
        classes.contains(&amnesia::ViolationClass::Unavailable),
        "{:?}",
        report.verdict
    );
}

#[test]
fn clog_holds_bytes_and_delivers_them_in_a_burst_on_release() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 500, 100);
    add_turn(&mut plan, 0, 0, 2_100, 100);
    add_turn(&mut plan, 1, 0, 2_200, 100);
    add_fault(
        &mut plan,
        2_000,
        1_500,
        FaultKind::Clog {
            client: 0,
            direction: Direction::ToRedis,
        },
    );
    let report = run(plan, "reference");
    let release = lines_with(&report, "clog client-0 released")[0].0;
    let burst: Vec<(f64, String)> = lines_with(&report, "→redis")
        .into_iter()
        .filter(|(at, _)| (*at - release).abs() < 1e-9)
        .collect();
    assert!(
        burst.len() >= 2,
        "both held reads reach Redis at the release instant: {burst:?}"
    );
    assert!(
        lines_with(&report, "→redis")
            .iter()
            .all(|(at, _)| *at < 2.0 || *at >= release),
        "nothing passes during the clog"
    );
    assert!(
        report
            .history
            .ops
            .iter()
            .all(|op| matches!(op.outcome, Outcome::Ok(_))),
        "held, not lost"
    );
}

#[test]
fn reset_closes_the_connection_and_the_next_operation_reconnects() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 3_000, 100);
    add_fault(&mut plan, 2_000, 100, FaultKind::Reset { client: 0 });
    let report = run(plan, "reference");
    assert_eq!(
        lines_with(&report, "reset client-0: 1 connections closed").len(),
        1
    );
    assert_eq!(lines_with(&report, "conn 0 reset").len(), 1);
    assert!(
        !lines_with(&report, "conn 1 opened").is_empty(),
        "the next operation dials again"
    );
    assert_eq!(outcome_of_append(&report, "m3"), Outcome::Ok(OpValue::None));
}

#[test]
fn error_reply_reaches_the_client_and_fails_the_operation() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 2_100, 100);
    add_fault(
        &mut plan,
        2_000,
        100,
        FaultKind::ErrorReply {
            error: ErrorReply::Oom,
        },
    );
    let report = run(plan, "reference");
    assert!(
        !lines_with(&report, "-OOM command not allowed").is_empty(),
        "Redis answered OOM"
    );
    let failed: Vec<&Outcome> = report
        .history
        .ops
        .iter()
        .map(|op| &op.outcome)
        .filter(|o| matches!(o, Outcome::Fail(_)))
        .collect();
    assert_eq!(
        failed.len(),
        1,
        "exactly the hit operation failed: {failed:?}"
    );
    assert!(report.verdict.is_pass(), "{:?}", report.verdict);
}

#[test]
fn restart_without_persistence_empties_the_keyspace() {
    let mut plan = base_plan(1);
    plan.persistence = Persistence::None;
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 5_000, 100);
    add_fault(&mut plan, 3_000, 500, FaultKind::RedisRestart);
    let report = run(plan, "reference");
    assert_eq!(
        lines_with(&report, "redis restarted with 0 keys recovered").len(),
        1
    );
    let read_after = report
        .history
        .ops
        .iter()
        .find(|op| op.invoke_us >= 5_000_000 && matches!(op.kind, OpKind::Context { .. }))
        .expect("the read after the restart");
    assert_eq!(
        read_after.outcome,
        Outcome::Ok(OpValue::Messages(Vec::new())),
        "the history is gone"
    );
    let restarts = &report.history.restarts;
    assert_eq!(restarts.len(), 1, "the world recorded the restart");
    assert_eq!(restarts[0].at_us, 3_000_000);
    assert_eq!(restarts[0].persistence, Persistence::None);
    assert_eq!(restarts[0].kept, Kept::Nothing);
    assert!(
        report.verdict.is_pass(),
        "a loss across the restart is expected: {:?}",
        report.verdict
    );
    assert!(
        !report.verdict.info.is_empty(),
        "and reported as expected-loss information"
    );
}

#[test]
fn restart_with_aof_everysec_loses_at_most_the_last_second() {
    let mut plan = base_plan(1);
    plan.persistence = Persistence::AofEverysec;
    add_turn(&mut plan, 0, 0, 1_000, 100); // m0, m1: written ~1.1 s, long before the crash
    add_turn(&mut plan, 1, 0, 3_850, 50); // m2, m3: written within the last second
    add_turn(&mut plan, 0, 0, 6_000, 100);
    add_fault(&mut plan, 4_000, 500, FaultKind::RedisRestart);
    let report = run(plan, "reference");
    let read = last_read(&report, &report.plan.sessions[0].clone());
    assert!(
        read.contains(&"m0".to_string()) && read.contains(&"m1".to_string()),
        "older writes survive: {read:?}"
    );
    let recovered = lines_with(&report, "redis restarted with");
    assert_eq!(recovered.len(), 1);
    assert!(report.verdict.is_pass(), "{:?}", report.verdict);
    // The durable point is the last fsync before the crash: within the last second.
    let [restart] = report.history.restarts[..] else {
        panic!("one restart: {:?}", report.history.restarts)
    };
    let Kept::AppliedBefore {
        before_us,
        observed: true,
    } = restart.kept
    else {
        panic!("an observed fsync: {restart:?}")
    };
    assert!(
        (3_000_000..=4_000_000).contains(&before_us),
        "fsync at {before_us} us"
    );
}

/// A store that flushes Redis when it sees a restarted server loses history that AOF
/// kept: acknowledged seconds before the crash, long before the durable point.
#[test]
fn losing_what_persistence_kept_is_caught() {
    for persistence in [Persistence::AofEverysec, Persistence::AofAlways] {
        let mut plan = base_plan(1);
        plan.persistence = persistence;
        add_turn(&mut plan, 0, 0, 1_000, 100); // m0, m1: acked at ~1.1 s
        add_turn(&mut plan, 0, 0, 6_000, 100); // its append flushes the restarted Redis
        add_turn(&mut plan, 0, 0, 7_000, 100); // reads: m0, m1 gone
        add_fault(&mut plan, 4_000, 500, FaultKind::RedisRestart);
        let kept = run(plan.clone(), "reference");
        assert!(kept.verdict.is_pass(), "{:?}", kept.verdict);
        let report = run(plan, "test-amnesiac");
        let lost: Vec<&String> = report
            .verdict
            .violations
            .iter()
            .filter(|v| v.class == amnesia::internal::check::ViolationClass::Lost)
            .flat_map(|v| &v.message_ids)
            .collect();
        assert!(
            lost.contains(&&"m0".to_string()) && lost.contains(&&"m1".to_string()),
            "{persistence:?}: {:?}",
            report.verdict
        );
    }
}

#[test]
fn restart_with_aof_always_keeps_every_acknowledged_write() {
    let mut plan = base_plan(1);
    plan.persistence = Persistence::AofAlways;
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 3_850, 50);
    add_turn(&mut plan, 0, 0, 6_000, 100);
    add_fault(&mut plan, 4_000, 500, FaultKind::RedisRestart);
    let report = run(plan, "reference");
    let read = last_read(&report, &report.plan.sessions[0].clone());
    for id in ["m0", "m1", "m2", "m3"] {
        assert!(
            read.contains(&id.to_string()),
            "{id} survived the restart: {read:?}"
        );
    }
    assert_eq!(report.history.restarts[0].kept, Kept::Everything);
}

#[test]
fn redis_pause_holds_every_link_then_releases() {
    let mut plan = base_plan(2);
    add_turn(&mut plan, 0, 0, 500, 100);
    add_turn(&mut plan, 0, 0, 2_100, 100);
    add_turn(&mut plan, 1, 1, 2_200, 100);
    add_fault(&mut plan, 2_000, 1_000, FaultKind::RedisPause);
    let report = run(plan, "reference");
    let resumed = lines_with(&report, "redis resumed")[0].0;
    let during: Vec<(f64, String)> = lines_with(&report, "redis ")
        .into_iter()
        .filter(|(at, text)| *at >= 2.0 && *at < resumed && text.contains("conn"))
        .collect();
    assert!(
        during.is_empty(),
        "nothing crosses any link while Redis is paused: {during:?}"
    );
    assert!(report
        .history
        .ops
        .iter()
        .all(|op| matches!(op.outcome, Outcome::Ok(_))));
}

#[test]
fn a_crashed_client_never_delivers_its_pending_async_write() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 600); // appends m0, m1 at ~1.6 s, held by the clog
    add_fault(
        &mut plan,
        1_200,
        2_000,
        FaultKind::Clog {
            client: 0,
            direction: Direction::ToRedis,
        },
    );
    add_fault(&mut plan, 2_000, 500, FaultKind::ClientCrash { client: 0 });
    let report = run(plan, "write-behind");
    assert_eq!(
        outcome_of_append(&report, "m0"),
        Outcome::Ok(OpValue::None),
        "write-behind acknowledged at once"
    );
    assert_eq!(lines_with(&report, "client-0 crashed").len(), 1);
    let read = last_read(&report, &report.plan.sessions[0].clone());
    assert!(
        !read.contains(&"m0".to_string()),
        "the pending write died with its process: {read:?}"
    );
    assert!(
        !report.verdict.is_pass(),
        "and the checker calls the acknowledged message lost"
    );
}

#[test]
fn a_client_crash_leaves_the_in_flight_operation_unknown_and_the_client_restarts() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 1_900, 100);
    add_turn(&mut plan, 0, 0, 4_000, 100);
    add_fault(
        &mut plan,
        1_800,
        2_000,
        FaultKind::Clog {
            client: 0,
            direction: Direction::ToRedis,
        },
    );
    add_fault(
        &mut plan,
        2_000,
        1_000,
        FaultKind::ClientCrash { client: 0 },
    );
    let report = run(plan, "reference");
    let unknown: Vec<&str> = report
        .history
        .ops
        .iter()
        .filter_map(|op| match &op.outcome {
            Outcome::Unknown(reason) => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(unknown, vec!["the client process crashed mid-request"]);
    assert_eq!(lines_with(&report, "client-0 restarted").len(), 1);
    assert_eq!(
        outcome_of_append(&report, "m5"),
        Outcome::Ok(OpValue::None),
        "the restarted client works"
    );
    assert!(report.verdict.is_pass(), "{:?}", report.verdict);
}

/// A store that sets an absolute expiry from its host's wall clock (what the
/// `skewed-expireat` bug does), to observe the skew on the wire.
struct ExpireAtProbe {
    context: (
        Arc<amnesia::internal::connect::Connector>,
        amnesia::internal::clock::Clock,
    ),
}

#[async_trait::async_trait]
impl MemoryStore for ExpireAtProbe {
    async fn append(&self, _session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (connector, clock) = &self.context;
        let at_ms = clock.now_ms() + 60_000;
        let key = format!("probe:{}", msg.id);
        connector
            .run(|mut c| async move {
                redis::cmd("SET")
                    .arg(&key)
                    .arg(1)
                    .arg("PXAT")
                    .arg(at_ms)
                    .query_async::<()>(&mut c)
                    .await
            })
            .await
    }

    async fn context(
        &self,
        _session: &SessionKey,
        _limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        Ok(Vec::new())
    }

    fn policy(&self) -> Policy {
        unbounded_volatile(true)
    }
}

#[test]
fn a_skewed_client_clock_shifts_an_expireat() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100); // m0 at ~1.1 s: clock in step
    add_turn(&mut plan, 1, 0, 2_500, 100); // m2 at ~2.6 s: clock 20 s ahead
    add_fault(
        &mut plan,
        2_000,
        2_000,
        FaultKind::ClockSkew {
            client: 0,
            offset_ms: 20_000,
        },
    );
    plan.validate().expect("valid");
    let probe = Store::new("expireat-probe", |context: StoreContext| ExpireAtProbe {
        context: (context.connector, context.clock),
    });
    let report = run_plan(plan, &probe, EngineKind::Event);
    let pxat = |id: &str| -> i64 {
        let (_, line) = lines_with(&report, &format!("SET probe:{id} 1 PXAT"))[0].clone();
        line.rsplit(' ')
            .next()
            .expect("the PXAT value")
            .parse()
            .expect("a number")
    };
    let shift_ms = pxat("m2") - pxat("m0");
    // 1.5 s of real difference plus the 20 s skew.
    assert!(
        (21_000..22_000).contains(&shift_ms),
        "EXPIREAT moved by {shift_ms} ms"
    );
    assert_eq!(
        lines_with(&report, "clock of client-0 jumps +20000ms").len(),
        1
    );
}

/// A store whose reads never return: the liveness phase reports it `stuck`, naming the
/// pending operations, and the run still ends.
struct HangingReads;

#[async_trait::async_trait]
impl MemoryStore for HangingReads {
    async fn append(&self, _session: &SessionKey, _msg: &Message) -> Result<(), StoreError> {
        Ok(())
    }

    async fn context(
        &self,
        _session: &SessionKey,
        _limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        std::future::pending().await
    }

    fn policy(&self) -> Policy {
        unbounded_volatile(true)
    }
}

#[test]
fn an_operation_that_never_completes_is_reported_stuck() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100);
    let hanging = Store::new("hanging", |_context: StoreContext| HangingReads);
    let report = run_plan(plan, &hanging, EngineKind::Event);
    let stuck: Vec<_> = report
        .verdict
        .violations
        .iter()
        .filter(|v| v.class == amnesia::internal::check::ViolationClass::Stuck)
        .collect();
    assert!(!stuck.is_empty(), "{:?}", report.verdict);
    assert!(
        stuck.iter().any(|v| v.op_indexes.contains(&0)),
        "the pending read is named: {stuck:?}"
    );
    assert!(report
        .history
        .ops
        .iter()
        .any(|op| op.outcome == Outcome::Pending));
    assert_eq!(lines_with(&report, "run deadline reached").len(), 1);
}

/// Two restart windows that meet at one instant: Redis stays down through both (found by
/// the 10,000-seed sweep: a restart slipped between them and wiped acknowledged writes).
#[test]
fn back_to_back_restarts_keep_redis_down_until_the_last_ends() {
    let mut plan = base_plan(1);
    add_turn(&mut plan, 0, 0, 1_000, 100);
    add_turn(&mut plan, 0, 0, 3_500, 100);
    add_turn(&mut plan, 0, 0, 6_000, 100);
    add_fault(&mut plan, 2_000, 1_000, FaultKind::RedisRestart);
    add_fault(&mut plan, 3_000, 2_000, FaultKind::RedisRestart);
    let report = run(plan, "reference");
    let restarts = lines_with(&report, "redis restarted");
    assert_eq!(
        restarts.len(),
        1,
        "one restart, when the last window ends: {restarts:?}"
    );
    assert!((restarts[0].0 - 5.0).abs() < 1e-9);
    let during: Vec<&Outcome> = report
        .history
        .ops
        .iter()
        .filter(|op| (3_000_000..5_000_000).contains(&op.invoke_us))
        .map(|op| &op.outcome)
        .collect();
    assert!(
        !during.is_empty() && during.iter().all(|o| !matches!(o, Outcome::Ok(_))),
        "{during:?}"
    );
    assert!(report.verdict.is_pass(), "{:?}", report.verdict);
}
