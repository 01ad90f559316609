//! Plan-level properties: determinism, round-trip, invariants, limits.

use std::collections::{BTreeMap, BTreeSet};

use super::scenario::*;
use super::*;
use crate::domain::{Role, SessionKey};

fn standard(seed: u64) -> Plan {
    Plan::generate(seed, &ScenarioConfig::standard())
}

#[test]
fn same_seed_same_bytes() {
    for seed in [0, 1, 42, u64::MAX] {
        assert_eq!(
            standard(seed).to_json_pretty(),
            standard(seed).to_json_pretty()
        );
    }
}

#[test]
fn different_seeds_different_plans() {
    let plans: BTreeSet<String> = (0..50)
        .map(|seed| standard(seed).to_json_pretty())
        .collect();
    assert_eq!(plans.len(), 50);
    // The workload alone differs too, not just the seed field.
    assert_ne!(standard(1).turns, standard(2).turns);
}

#[test]
fn workload_does_not_depend_on_the_fault_mix() {
    let calm = ScenarioConfig {
        swarm: false,
        ..ScenarioConfig::standard()
    };
    for seed in 0..20 {
        let swarm = standard(seed);
        let no_swarm = Plan::generate(seed, &calm);
        assert_eq!(swarm.turns, no_swarm.turns);
        assert!(no_swarm.faults.is_empty() && no_swarm.mix.classes.is_empty());
        assert!(no_swarm.links.iter().all(|l| *l == LatencyModel::CALM));
    }
}

#[test]
fn json_round_trip() {
    for seed in 0..50 {
        let plan = standard(seed);
        let json = plan.to_json_pretty();
        let back = Plan::from_json(&json).unwrap();
        assert_eq!(back, plan);
        assert_eq!(back.to_json_pretty(), json);
    }
}

#[test]
fn the_mix_heads_the_json() {
    let json = standard(5).to_json_pretty();
    let mix = json.find("\"mix\"").unwrap();
    let turns = json.find("\"turns\"").unwrap();
    assert!(mix < turns && mix < 100, "{}", &json[..200]);
}

#[test]
fn standard_shape() {
    let mut turns_total = 0;
    let mut operations_total = 0;
    let mut faulted = 0;
    let mut idle_past_ttl = 0;
    let mut system = 0;
    let mut clients_per_session = Vec::new();
    let mut collided = 0;
    for seed in 0..200 {
        let plan = standard(seed);
        assert_eq!(plan.clients, 3);
        assert_eq!(plan.sessions.len(), 8);
        assert_eq!(plan.turns.len(), 60);
        let colliding = plan
            .sessions
            .iter()
            .filter(|s| s.tenant.contains(':') || s.session.contains(':'))
            .count();
        // Two; a canonical twin may copy one of them or rename one away.
        assert!(colliding <= 3, "seed {seed}: {colliding}");
        collided += usize::from(colliding >= 2);
        if colliding == 0 && twins::twin_sessions(&plan.sessions).is_empty() {
            assert_eq!(plan.sessions[0], SessionKey::new("t0", "s0"));
            assert_eq!(plan.sessions[7], SessionKey::new("t3", "s1"));
        }
        assert!((2_000..=10_000).contains(&plan.session_ttl_ms));
        turns_total += plan.turns.len();
        operations_total += plan.operations();
        faulted += usize::from(!plan.faults.is_empty());
        let mut last: BTreeMap<&SessionKey, &Turn> = BTreeMap::new();
        let mut clients: BTreeMap<&SessionKey, BTreeSet<u32>> = BTreeMap::new();
        for turn in &plan.turns {
            if let Some(prev) = last.get(&turn.session) {
                // An overlapping turn starts before the previous one ends.
                if turn.start_ms.saturating_sub(prev.think_end_ms()) > plan.session_ttl_ms {
                    idle_past_ttl += 1;
                }
            }
            system += usize::from(turn.system.is_some());
            last.insert(&turn.session, turn);
            clients
                .entry(&turn.session)
                .or_default()
                .insert(turn.client);
        }
        clients_per_session.extend(clients.values().map(BTreeSet::len));
    }
    let operations_mean = operations_total / 200;
    // ~185 chat operations plus ~30 memory operations.
    assert!((200..=230).contains(&operations_mean), "{operations_mean}");
    assert_eq!(turns_total, 200 * 60);
    // Eight classes, each on in half the seeds: nearly every seed has some fault.
    assert!(faulted >= 180, "{faulted} of 200 seeds have faults");
    assert!(
        idle_past_ttl > 200,
        "only {idle_past_ttl} idle gaps past the TTL"
    );
    assert!(system > 500, "{system}");
    // A quarter of the seeds name two sessions so that unescaped keys collide.
    assert!(
        (30..=70).contains(&collided),
        "{collided} of 200 seeds collide"
    );
    // Sessions are served by several clients: the cross-client races exist.
    assert!(clients_per_session.iter().filter(|&&n| n > 1).count() > 1_000);
}

#[test]
fn turns_of_a_session_overlap_only_when_marked() {
    for seed in 0..1_000 {
        let plan = standard(seed);
        let mut think_end: BTreeMap<&SessionKey, u64> = BTreeMap::new();
        for turn in &plan.turns {
            if let Some(&end_ms) = think_end.get(&turn.session) {
                assert!(
                    turn.overlaps || turn.start_ms >= end_ms,
                    "seed {seed} turn {}",
                    turn.index
                );
            }
            think_end.insert(&turn.session, turn.think_end_ms());
        }
    }
}

#[test]
fn every_fault_ends_in_the_busy_phase() {
    let mut faults = 0;
    for seed in 0..1_000 {
        let plan = standard(seed);
        for fault in &plan.faults {
            assert!(fault.duration_ms > 0);
            assert!(fault.end_ms() <= plan.duration_ms, "seed {seed}: {fault:?}");
        }
        faults += plan.faults.len();
    }
    assert!(faults > 1_000, "{faults}");
}

#[test]
fn limits_hold_for_1000_seeds() {
    let scenarios = [
        ScenarioConfig::standard(),
        ScenarioConfig::smoke(),
        ScenarioConfig {
            name: "crowded".into(),
            clients: 16,
            tenants: 8,
            sessions_per_tenant: 8,
            turns: 2_000,
            duration_ms: 60_000,
            ..ScenarioConfig::standard()
        },
    ];
    for (i, scenario) in scenarios.iter().enumerate() {
        let seeds = if i == 2 { 20 } else { 1_000 };
        for seed in 0..seeds {
            let plan = Plan::generate(seed, scenario);
            plan.validate().unwrap();
            assert!(plan.clients <= CLIENTS_MAX);
            assert!(plan.sessions.len() <= SESSIONS_MAX);
            assert!(plan.turns.len() <= TURNS_MAX);
            assert!(plan.faults.len() <= FAULTS_MAX);
            assert_eq!(plan.turns.len(), scenario.turns as usize);
            let mut bytes = 0;
            for message in plan.messages() {
                assert!(message.content.len() <= CONTENT_BYTES_MAX);
                bytes += message.content.len();
            }
            assert!(bytes <= PLAN_CONTENT_BYTES_MAX);
            for turn in &plan.turns {
                assert!(turn.think_end_ms() <= plan.duration_ms);
                assert!((scenario.context_limit_min as usize
                    ..=scenario.context_limit_max as usize)
                    .contains(&turn.context_limit));
            }
            for link in &plan.links {
                assert!(link.base_us + link.jitter_us <= LATENCY_US_MAX);
            }
        }
    }
}

#[test]
fn message_ids_are_unique_and_seq_is_plan_order() {
    let plan = standard(9);
    let ids: BTreeSet<&str> = plan.messages().map(|m| m.id.as_str()).collect();
    assert_eq!(ids.len(), plan.messages().count());
    let seqs: Vec<u64> = plan.messages().map(|m| m.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] + 1 == w[1]));
    for message in plan.messages() {
        assert_eq!(message.id, format!("m{}", message.seq));
    }
}

#[test]
fn summary_names_the_essentials() {
    let plan = standard(3);
    let summary = plan.summary();
    assert!(summary.contains("seed 3"), "{summary}");
    assert!(
        summary.contains("clients 3, sessions 8, turns 60"),
        "{summary}"
    );
    assert!(summary.contains(&format!("operations {}", plan.operations())));
    assert!(summary.contains("mix: latency base"), "{summary}");
    assert!(
        summary.contains("busy 30000 ms, quiet 5000 ms"),
        "{summary}"
    );
    assert!(summary.contains("traffic: "), "{summary}");
    assert!(summary.contains("tcp retransmits from 200 ms"), "{summary}");
    assert_eq!(summary.lines().count(), 7);
}

#[test]
fn latency_samples_stay_in_bounds() {
    let mut rng = super::prng::stream(1, super::prng::Stream::Latency);
    let model = LatencyModel {
        base_us: 100,
        jitter_us: 50,
        tail: Some(ExpTail {
            probability_ppm: 500_000,
            mean_us: 1_000_000,
        }),
    };
    let samples: Vec<u64> = (0..10_000).map(|_| model.sample_us(&mut rng)).collect();
    assert!(samples.iter().all(|&s| (100..=LATENCY_US_MAX).contains(&s)));
    assert!(samples.iter().any(|&s| s > 1_000_000));
    assert!(samples.iter().any(|&s| s <= 150));
}

// validate catches each broken invariant.

fn broken(edit: impl FnOnce(&mut Plan)) -> String {
    let mut plan = (0..)
        .map(standard)
        .find(|p| !p.faults.is_empty() && p.turns.iter().any(|t| t.system.is_some()))
        .unwrap();
    edit(&mut plan);
    let error = plan.validate().unwrap_err().to_string();
    assert!(!error.contains('\n'), "{error}");
    // The same error comes out of loading the saved plan.
    let loaded = Plan::from_json(&plan.to_json_pretty())
        .unwrap_err()
        .to_string();
    assert_eq!(loaded, error);
    error
}

#[test]
fn validate_catches_duplicate_message_ids() {
    let error = broken(|p| p.turns[3].user.id = p.turns[1].assistant.id.clone());
    assert!(error.contains("is used twice"), "{error}");
}

#[test]
fn validate_catches_unsorted_turns() {
    let error = broken(|p| p.turns.last_mut().unwrap().start_ms = 0);
    assert!(error.contains("must be sorted by start_ms"), "{error}");
}

#[test]
fn validate_catches_unknown_sessions() {
    let error = broken(|p| p.turns[2].session = SessionKey::new("t99", "s0"));
    assert_eq!(
        error,
        "invalid plan: turn 2: session t99/s0 is not among the plan's sessions"
    );
}

#[test]
fn validate_catches_clients_out_of_range() {
    let error = broken(|p| p.turns[0].client = 3);
    assert_eq!(
        error,
        "invalid plan: turn 0: client 3 is out of range (plan has 3 clients)"
    );
    let error = broken(|p| {
        let fault = p
            .faults
            .iter_mut()
            .find(|f| f.kind.client().is_some())
            .expect("a client fault");
        *fault.kind.client_mut().expect("a client fault") = 7;
    });
    assert!(error.contains("client 7 is out of range"), "{error}");
}

#[test]
fn validate_catches_faults_past_the_busy_phase() {
    let error = broken(|p| p.faults.last_mut().unwrap().duration_ms = 1_000_000);
    assert!(error.contains("after the busy phase"), "{error}");
}

#[test]
fn validate_catches_faults_not_in_the_mix() {
    let error = broken(|p| p.mix.classes.clear());
    assert!(
        error.contains("is not enabled in the plan's mix"),
        "{error}"
    );
}

#[test]
fn validate_catches_overlapping_turns_of_a_session() {
    let error = broken(|p| {
        let session = p.turns[0].session.clone();
        let next = p
            .turns
            .iter()
            .position(|t| t.index > 0 && t.session == session)
            .unwrap();
        p.turns[0].think_ms = p.turns[next].start_ms - p.turns[0].start_ms + 1;
    });
    assert!(error.contains("ends thinking"), "{error}");
}

#[test]
fn validate_catches_broken_limits() {
    let error = broken(|p| p.turns[0].context_limit = CONTEXT_LIMIT_MAX + 1);
    assert!(error.contains("context_limit 1001 is outside"), "{error}");
    let error = broken(|p| p.turns[1].user.content = "x".repeat(CONTENT_BYTES_MAX + 1));
    assert!(error.contains("content bytes, above"), "{error}");
    let error = broken(|p| p.clients = CLIENTS_MAX + 1);
    assert!(error.contains("clients = 65 is outside"), "{error}");
    let error = broken(|p| p.scenario.turns = TURNS_MAX as u32 + 1);
    assert!(error.contains("scenario turns"), "{error}");
}

#[test]
fn validate_catches_misplaced_system_messages_and_roles() {
    let error = broken(|p| {
        let turn = p.turns.iter_mut().find(|t| t.system.is_some()).unwrap();
        turn.system.as_mut().unwrap().role = Role::User;
    });
    assert!(
        error.contains("has role User where System belongs"),
        "{error}"
    );
    let error = broken(|p| {
        let first = p.turns.iter().find(|t| t.system.is_some()).unwrap().clone();
        let later = p
            .turns
            .iter_mut()
            .find(|t| t.index > first.index && t.session == first.session)
            .unwrap();
        let mut system = first.system.unwrap();
        system.id = "extra".into();
        system.seq = later.user.seq - 1; // keep seq ordering plausible
        later.system = Some(system);
    });
    assert!(
        error.contains("not its session's first") || error.contains("not above"),
        "{error}"
    );
}

#[test]
fn validate_catches_bad_indexes_and_links() {
    let error = broken(|p| p.turns[4].index = 9);
    assert_eq!(error, "invalid plan: turn at position 4 has index 9");
    let error = broken(|p| {
        p.links.pop();
    });
    assert_eq!(error, "invalid plan: 2 latency links for 3 clients");
}

// Loading errors.

#[test]
fn version_mismatch_is_named() {
    let json = standard(1)
        .to_json_pretty()
        .replacen("\"version\": 1", "\"version\": 7", 1);
    let error = Plan::from_json(&json).unwrap_err();
    assert_eq!(error, PlanError::Version { found: 7 });
    assert_eq!(
        error.to_string(),
        "plan version 7 is not supported (this amnesia reads version 1)"
    );
    // Even when the rest has another shape.
    let error = Plan::from_json(r#"{"version": 2, "whatever": []}"#).unwrap_err();
    assert_eq!(
        error.to_string(),
        "plan version 2 is not supported (this amnesia reads version 1)"
    );
    assert_eq!(
        Plan::from_json("{}").unwrap_err().to_string(),
        "plan has no version field (this amnesia reads version 1)"
    );
}

#[test]
fn malformed_json_has_line_and_column() {
    let error = Plan::from_json("{\n  \"version\": 1,\n  \"seed\": ]\n}").unwrap_err();
    assert_eq!(
        error.to_string(),
        "malformed plan JSON at line 3, column 11: expected value"
    );
    let error = Plan::from_json("{\"version\": 1").unwrap_err();
    assert!(matches!(error, PlanError::Json { line: 1, .. }), "{error}");
}

#[test]
fn wrong_shape_is_a_format_error() {
    let json = standard(1)
        .to_json_pretty()
        .replacen("\"clients\": 3", "\"clients\": \"three\"", 1);
    let error = Plan::from_json(&json).unwrap_err();
    assert!(matches!(error, PlanError::Format { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.starts_with("plan JSON does not match the plan format at line "),
        "{text}"
    );
    assert!(!text.contains('\n'));
}

#[test]
fn print_the_standard_plan_head() {
    // Not an assertion: `cargo test -- --nocapture print_the` shows what a plan looks like.
    let plan = standard(42);
    println!("{}", plan.summary());
    println!("{}", &plan.to_json_pretty()[..1_500]);
}

#[test]
#[should_panic(expected = "scenario clients = 0 is outside 1..=64")]
fn generate_rejects_a_scenario_outside_the_limits() {
    let scenario = ScenarioConfig {
        clients: 0,
        ..ScenarioConfig::standard()
    };
    Plan::generate(1, &scenario);
}

#[test]
fn a_json_array_is_not_a_plan() {
    let error = Plan::from_json("[]").unwrap_err().to_string();
    assert_eq!(error, "a plan is a JSON object, this JSON is not one");
    let error = Plan::from_json(r#"{"version": "1"}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        r#"plan version "1" is not a number (this amnesia reads version 1)"#
    );
}

/// Swarm: over seeds 0..1000 every fault class is in some plans and absent from others,
/// and every class's faults actually get scheduled.
#[test]
fn every_fault_class_is_present_in_some_seeds_and_absent_in_others() {
    let mut with_class: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut scheduled: BTreeMap<&'static str, usize> = BTreeMap::new();
    for seed in 0..1000 {
        let plan = standard(seed);
        for rate in &plan.mix.classes {
            *with_class.entry(rate.class.name()).or_default() += 1;
        }
        for fault in &plan.faults {
            *scheduled.entry(fault.kind.class().name()).or_default() += 1;
        }
    }
    for class in FaultClass::DRAWN {
        let seeds = with_class.get(class.name()).copied().unwrap_or(0);
        assert!(
            (1..1000).contains(&seeds),
            "{} enabled in {seeds} of 1000 seeds",
            class.name()
        );
        assert!(
            scheduled.get(class.name()).copied().unwrap_or(0) > 0,
            "{} never scheduled",
            class.name()
        );
    }
}

/// Each impolite behaviour of the workload: present in some seeds of 0..1000 and absent in
/// others (swarm), each from its own stream.
#[test]
fn every_impolite_behaviour_is_in_some_seeds_and_not_others() {
    type Probe = (&'static str, fn(&Plan) -> bool);
    let shared_user = |p: &Plan| {
        let users: BTreeSet<_> = p
            .turns
            .iter()
            .map(|t| (t.session.clone(), t.user()))
            .collect();
        let distinct: BTreeSet<_> = users.iter().map(|(_, u)| u.clone()).collect();
        distinct.len() < users.len()
    };
    let probes: [Probe; 9] = [
        ("overlapping turns", |p| p.turns.iter().any(|t| t.overlaps)),
        ("retries", |p| p.turns.iter().any(|t| t.retry.is_some())),
        ("double submits", |p| {
            p.turns.iter().any(|t| {
                t.overlaps
                    && p.turns
                        .iter()
                        .any(|o| o.index != t.index && o.user.content == t.user.content)
            })
        }),
        ("users with several sessions", shared_user),
        ("clears", |p| p.turns.iter().any(|t| t.clear)),
        ("deletes", |p| p.turns.iter().any(|t| t.delete.is_some())),
        ("memory updates", |p| {
            p.turns
                .iter()
                .any(|t| matches!(t.revise, Some(Revision::Update { .. })))
        }),
        ("forgets", |p| {
            p.turns
                .iter()
                .any(|t| matches!(t.revise, Some(Revision::Forget { .. })))
        }),
        ("canonical twins", |p| {
            !twins::twin_sessions(&p.sessions).is_empty()
        }),
    ];
    let plans: Vec<Plan> = (0..1000).map(standard).collect();
    for (name, present) in probes {
        let with = plans.iter().filter(|p| present(p)).count();
        assert!(
            with > 0 && with < plans.len(),
            "{name}: in {with} of {} seeds",
            plans.len()
        );
        // Named in the printed summary whenever present.
        let word = name.split(' ').next().expect("a word");
        for plan in plans.iter().filter(|p| present(p)).take(5) {
            let traffic = plan.traffic();
            assert!(
                traffic.contains(word) || name == "double submits",
                "seed {}: {name} missing from '{traffic}'",
                plan.seed
            );
        }
    }
    // Every twin form is drawn somewhere.
    let forms: BTreeSet<String> = plans
        .iter()
        .flat_map(|p| twins::twin_sessions(&p.sessions))
        .map(|(a, b)| format!("{a:?}{b:?}"))
        .collect();
    assert!(forms.len() > TwinForm::ALL.len());
}

#[test]
fn impolite_plans_keep_their_invariants_and_seeds_without_them_stay_polite() {
    let mut polite = 0;
    for seed in 0..300 {
        let plan = standard(seed);
        plan.validate().expect("valid");
        // Overlapping turns start while their session's previous turn thinks.
        for t in plan.turns.iter().filter(|t| t.overlaps) {
            assert!(plan.turns[..t.index].iter().any(|o| o.session == t.session));
        }
        if plan.traffic() == "polite" {
            polite += 1;
            assert!(plan.turns.iter().all(|t| !t.overlaps
                && t.retry.is_none()
                && t.user_name.is_none()
                && !t.clear
                && t.delete.is_none()
                && t.revise.is_none()));
        }
    }
    assert!(polite > 0, "some seeds keep the polite workload");
}

#[test]
fn a_corpus_plan_preloads_hundreds_of_memories_per_user_and_recalls_far_fewer() {
    let scenario = ScenarioConfig::corpus();
    let plan = Plan::generate(3, &scenario);
    assert_eq!(Plan::from_json(&plan.to_json_pretty()).unwrap(), plan);
    let users: BTreeSet<crate::domain::UserKey> = plan.turns.iter().map(Turn::user).collect();
    assert_eq!(
        plan.corpus.len(),
        users.len(),
        "every turn user has a corpus"
    );
    let range = scenario.corpus_memories_min as usize..=scenario.corpus_memories_max as usize;
    assert!(plan
        .corpus
        .iter()
        .all(|p| range.contains(&p.memories.len())));
    let recalls: Vec<&Recall> = plan
        .turns
        .iter()
        .filter_map(|t| t.recall.as_ref())
        .collect();
    assert!(recalls.len() > 20, "{} recalls", recalls.len());
    assert!(recalls.iter().all(|r| r.k <= corpus::CORPUS_RECALL_K_MAX));
    let updates = plan.turns.iter().filter(|t| t.revise.is_some()).count();
    assert!(updates > 0, "corpus memories are revised");
    // Other scenarios draw no corpus, and their saved plans do not name one.
    assert!(standard(3).corpus.is_empty());
    assert!(!standard(3).to_json_pretty().contains("corpus"));
}
