//! pgvector stores in the simulator, on the PostgreSQL model: the reference stores pass,
//! every pgvector variant of the catalogue is caught with the class (and within the seeds)
//! the real tier catches it with, replays to the same trace and shrinks to a small plan,
//! and PostgreSQL's crashes are part of the runs. `.ci/run` sweeps the reference stores
//! over thousands of seeds with the binary; the real tier (`real-tests/pgvector.rs`)
//! confirms the same seeds against a real server.

use amnesia::internal::plan::{FaultClass, Plan, ScenarioConfig};
use amnesia::internal::runner::shrink::{shrink, ShrinkConfig};
use amnesia::internal::runner::{run_seed, EngineKind, RunReport};
use amnesia::{Backend, Store, ViolationClass};

/// The real tier's pinned seeds of the reference (`real-tests/pgvector.rs`).
const PINNED_SEEDS: [u64; 3] = [1, 2, 7];

/// Every pgvector variant and the seeds (from 1) within which the real tier catches it
/// (`real-tests/pgvector.rs`): the simulator must catch it within the same seeds.
const VARIANTS: [(&str, u64); 5] = [
    ("pgvector-ef-search-below-k", 2),
    ("pgvector-filter-after-topk", 2),
    ("pgvector-ivfflat-before-load", 2),
    ("pgvector-embedding-v2", 3),
    ("migrate-nontransactional", 2),
];

/// The migration variants of the incidents the simulator sweeps (the real tier does not
/// run them), and the seeds (from 1) within which each must be caught: a job that embeds
/// with the old system's model, and one that writes zero placeholders for a backfill that
/// never runs (the memory whose index entry was never built).
const SIMULATOR_VARIANTS: [(&str, u64); 2] = [
    ("migrate-old-embedding", 3),
    ("migrate-placeholder-vectors", 3),
];

/// The variants only memory-heavy plans catch (the `corpus` scenario: hundreds of
/// memories per user, `k` far below them and below `hnsw.ef_search`), and the seeds (from
/// 0) within which each must be caught: a recall filtered by user after one HNSW search of
/// the default 40 candidates (no iterative scan), and an update that keeps the old
/// embedding in a store without the memory audit.
const CORPUS_VARIANTS: [(&str, u64); 2] = [
    ("pgvector-no-iterative-scan", 1),
    ("pgvector-update-keeps-embedding", 2),
];

/// Corpus seeds (from 0) the reference must pass here; `.ci/run`-scale sweeps are in
/// BENCHMARKS.md.
const CORPUS_REFERENCE_SEEDS: u64 = 2;

/// Operations a variant's shrunk plan may keep.
const SHRUNK_OPERATIONS_MAX: usize = 40;

/// The scenario the real tier runs a store of this backend in.
fn scenario_of(store: &Store) -> ScenarioConfig {
    match store.backend() {
        Backend::RedisThenPgvector => ScenarioConfig::migrate(),
        _ => ScenarioConfig::replay(),
    }
}

fn run(name: &str, seed: u64, scenario: &ScenarioConfig) -> RunReport {
    run_seed(
        seed,
        scenario,
        &Store::named(name).unwrap(),
        EngineKind::Event,
    )
}

/// The pgvector reference store with `lock_timeout` set to `lock_timeout_ms` before its
/// writes.
fn lock_timeout_store(lock_timeout_ms: u64) -> Store {
    use amnesia::store::pgvector::{PgVectorConfig, PgVectorStore};
    Store::new(
        "pgvector-lock-timeout",
        move |context: amnesia::PgContext| {
            let mut config =
                PgVectorConfig::reference(amnesia::store::MESSAGES_MAX, context.session_ttl_ms);
            config.lock_timeout_ms = Some(lock_timeout_ms);
            PgVectorStore::new(context.postgres, config)
        },
    )
}

/// The pgvector reference store with its appends under REPEATABLE READ, meeting a 40001 or
/// 40P01 as `on` says (`RetryTransaction`: the correct form of `pgvector-conflict-swallowed`).
fn repeatable_read_store(on: amnesia::store::pgvector::OnConflict) -> Store {
    use amnesia::store::pgvector::{AppendSerialization, PgVectorConfig, PgVectorStore};
    Store::new(
        "pgvector-repeatable-read",
        move |context: amnesia::PgContext| {
            let mut config =
                PgVectorConfig::reference(amnesia::store::MESSAGES_MAX, context.session_ttl_ms);
            config.appends = AppendSerialization::RepeatableRead(on);
            PgVectorStore::new(context.postgres, config)
        },
    )
}

/// `seeds` of `name` under `scenario`, on two threads: the failing ones, and the runs
/// whose PostgreSQL crashed.
fn sweep(
    name: &str,
    scenario: &ScenarioConfig,
    seeds: std::ops::Range<u64>,
) -> (Vec<String>, usize) {
    let halves = [
        (seeds.start..seeds.end).step_by(2),
        (seeds.start + 1..seeds.end).step_by(2),
    ];
    let outcomes: Vec<(Vec<String>, usize)> = std::thread::scope(|scope| {
        let workers: Vec<_> = halves
            .into_iter()
            .map(|half| {
                scope.spawn(move || {
                    let (mut failed, mut restarted) = (Vec::new(), 0);
                    for seed in half {
                        let report = run(name, seed, scenario);
                        restarted += usize::from(!report.history.restarts.is_empty());
                        if !report.verdict.is_pass() {
                            failed.push(format!(
                                "{name} seed {seed}: {:?}",
                                report.verdict.classes()
                            ));
                        }
                    }
                    (failed, restarted)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    outcomes
        .into_iter()
        .fold((Vec::new(), 0), |(mut f, r), (failed, restarted)| {
            f.extend(failed);
            (f, r + restarted)
        })
}

#[test]
fn the_reference_stores_pass_and_postgresql_crashes_are_among_their_runs() {
    let (mut failed, restarted) = sweep("pgvector-reference", &ScenarioConfig::standard(), 0..100);
    let (replay_failed, _) = sweep("pgvector-reference", &ScenarioConfig::replay(), 0..40);
    let (migrate_failed, _) = sweep("migrate-to-pgvector", &ScenarioConfig::migrate(), 0..60);
    failed.extend(replay_failed.into_iter().chain(migrate_failed));
    for seed in PINNED_SEEDS {
        let report = run("pgvector-reference", seed, &ScenarioConfig::replay());
        if !report.verdict.is_pass() {
            failed.push(format!(
                "pinned seed {seed}: {:?}",
                report.verdict.classes()
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(restarted > 0, "some of 100 standard seeds crash PostgreSQL");
}

/// The one class the registry states for the variant `name`.
fn class_of(name: &str) -> ViolationClass {
    match amnesia::internal::store::expected_classes(name) {
        Some(&[class]) => class,
        other => panic!("{name}: one expected class, not {other:?}"),
    }
}

#[test]
fn every_pgvector_variant_is_caught_as_the_real_tier_catches_it_and_replays() {
    let mut missed = Vec::new();
    for (name, seeds_max) in VARIANTS.into_iter().chain(SIMULATOR_VARIANTS) {
        let (class, store) = (class_of(name), Store::named(name).unwrap());
        let scenario = scenario_of(&store);
        let caught = (1..=seeds_max)
            .map(|seed| run(name, seed, &scenario))
            .find(|r| !r.verdict.is_pass());
        let Some(report) = caught else {
            missed.push(format!("{name}: not caught in seeds 1..={seeds_max}"));
            continue;
        };
        let classes = report.verdict.classes();
        println!(
            "{name}: caught at seed {} with {classes:?}",
            report.plan.seed
        );
        if !classes.contains(&class) {
            missed.push(format!("{name}: {classes:?}, not {class:?}"));
        }
        let again = run(name, report.plan.seed, &scenario);
        if again.trace.hash() != report.trace.hash() || again.verdict.classes() != classes {
            missed.push(format!("{name}: seed {} does not replay", report.plan.seed));
        }
    }
    assert!(missed.is_empty(), "{missed:#?}");
}

#[test]
fn memory_heavy_plans_catch_post_filtering_and_stale_embeddings() {
    let corpus = ScenarioConfig::corpus();
    let (mut missed, _) = sweep("pgvector-reference", &corpus, 0..CORPUS_REFERENCE_SEEDS);
    for (name, seeds_max) in CORPUS_VARIANTS {
        let class = class_of(name);
        let caught = (0..seeds_max)
            .map(|seed| run(name, seed, &corpus))
            .find(|r| !r.verdict.is_pass());
        match caught.map(|r| (r.plan.seed, r.verdict.classes())) {
            None => missed.push(format!("{name}: not caught in seeds 0..{seeds_max}")),
            Some((seed, classes)) if !classes.contains(&class) => {
                missed.push(format!("{name} seed {seed}: {classes:?}, not {class:?}"))
            }
            Some((seed, classes)) => println!("{name}: caught at seed {seed} with {classes:?}"),
        }
    }
    assert!(missed.is_empty(), "{missed:#?}");
}

#[test]
fn a_pgvector_variant_shrinks_to_a_small_plan_that_still_fails() {
    let store = Store::named("pgvector-ef-search-below-k").unwrap();
    let plan = Plan::generate(1, &ScenarioConfig::replay());
    let shrunk = shrink(plan, &ShrinkConfig::new(store.clone())).expect("seed 1 fails");
    let operations = shrunk.operations_after;
    assert!(
        operations <= SHRUNK_OPERATIONS_MAX,
        "{operations} operations left"
    );
    let report = amnesia::internal::runner::run_plan(shrunk.plan, &store, EngineKind::Event);
    assert!(report
        .verdict
        .classes()
        .contains(&ViolationClass::RecallMiss));
}

/// recall@5 of the golden corpus against exact search on a real PostgreSQL 18.3 with
/// pgvector 0.8.2 (the real tier, `amnesia golden --store …`, BENCHMARKS.md session 7),
/// and how far the model's figure may lie from it.
#[cfg(feature = "real")]
const GOLDEN_REAL: [(&str, f64); 4] = [
    ("pgvector-reference", 1.000),
    ("pgvector-ef-search-below-k", 0.222),
    ("pgvector-filter-after-topk", 0.190),
    ("pgvector-ivfflat-before-load", 0.290),
];
#[cfg(feature = "real")]
const GOLDEN_TOLERANCE: f64 = 0.05;

/// The model's vector indexes fail the way real ones do, by as much: the golden corpus's
/// recall@5 on the model lies within the tolerance of the real server's.
#[cfg(feature = "real")]
#[test]
fn the_golden_recall_on_the_model_matches_the_real_server() {
    use amnesia::real::{golden_corpus, run_golden_on_model, GOLDEN_VERSION};
    let corpus = golden_corpus(GOLDEN_VERSION);
    let mut off = Vec::new();
    for (name, real) in GOLDEN_REAL {
        let report = run_golden_on_model(&Store::named(name).unwrap(), &corpus, 5).unwrap();
        println!(
            "{name}: recall@5 {:.3} on the model, {real:.3} real",
            report.recall_at_k
        );
        if (report.recall_at_k - real).abs() > GOLDEN_TOLERANCE {
            off.push(format!(
                "{name}: {:.3} against {real:.3}",
                report.recall_at_k
            ));
        }
    }
    assert!(off.is_empty(), "{off:#?}");
}

/// Snapshots live in the repository's `snapshots/`, beside the Redis stores' (see
/// `sim-tests/snapshots.rs`).
fn in_snapshots(test: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.bind(test);
}

/// Reviewed snapshots of pgvector runs, kept as the Redis stores' are: the reference
/// store's pinned seeds, and each pgvector variant's shrunk failing plan
/// (`snapshots/plans/<variant>/shrunk.json`, made with `amnesia shrink --scenario
/// replay|migrate --seed 1`), which must still fail.
#[test]
fn pgvector_runs_are_pinned_as_reviewed_snapshots() {
    in_snapshots(|| {
        let reference = Store::named("pgvector-reference").unwrap();
        let builder = amnesia::Builder::new()
            .store(reference.clone())
            .scenario(scenario_of(&reference));
        amnesia::assert_seed_snapshot!(builder, [1, 7]);
        for (name, _) in VARIANTS.into_iter().chain(SIMULATOR_VARIANTS) {
            let store = Store::named(name).unwrap();
            let builder = amnesia::Builder::new()
                .store(store.clone())
                .scenario(scenario_of(&store));
            let file = std::path::Path::new("snapshots/plans")
                .join(name)
                .join("shrunk.json");
            let report = builder.replay(&file).expect("a pinned plan");
            assert!(!report.verdict.is_pass(), "{name}: its pinned plan passes");
            amnesia::assert_seed_snapshot!(builder, plan file);
        }
    });
}

/// The page of a failing pgvector run (`amnesia run --html`) draws every operation, the
/// PostgreSQL server's lane and the statements on the wire, and marks the violations.
#[test]
fn the_page_of_a_pgvector_run_draws_postgres_and_the_violations() {
    let report = run("pgvector-ef-search-below-k", 1, &ScenarioConfig::replay());
    assert!(!report.verdict.is_pass(), "seed 1 fails");
    let html = amnesia::internal::runner::page::render(&report);
    let xml = html.replacen("<!DOCTYPE html>", "", 1);
    let doc = roxmltree::Document::parse(&xml).expect("the page parses");
    let drawn = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("data-op").is_some())
        .count();
    assert_eq!(
        drawn,
        report.history.ops.len(),
        "every operation has its span"
    );
    let marked = doc
        .descendants()
        .filter(|n| n.attribute("data-op").is_some())
        .filter(|n| {
            n.attribute("class")
                .unwrap_or_default()
                .split(' ')
                .any(|c| c == "violation")
        })
        .count();
    assert!(marked > 0, "the violating operations are marked");
    assert!(html.contains("postgres"), "the server's lane is named");
    assert!(html.contains("SELECT"), "statements show on the wire");
}

/// A store of the user's own on PostgreSQL (a factory of theirs, `Store::with_backend`)
/// runs in the simulator through the front door, `Builder`, as a Redis store does: it
/// passes, and the same seed replays to the same trace.
#[test]
fn a_users_own_pgvector_store_runs_through_the_builder() {
    let factory = Store::named("pgvector-reference")
        .unwrap()
        .factory()
        .clone();
    let mine = Store::from_factory("my-pgvector-store", factory).with_backend(Backend::Pgvector);
    let builder = amnesia::Builder::new()
        .store(mine)
        .scenario(ScenarioConfig::replay());
    assert_eq!(builder.validate(), Ok(()));
    let report = builder.run(2);
    assert!(report.verdict.is_pass(), "{:?}", report.verdict.classes());
    assert_eq!(builder.run(2).trace.hash(), report.trace.hash());
}

/// A small store of one's own on PostgreSQL: every append a transaction on a connection
/// the store keeps across its awaits (`PgConnector::get`), run and committed in a task it
/// spawns; context reads on another kept connection. Memories are not offered.
struct SpawnedCommits {
    pg: std::sync::Arc<amnesia::PgConnector>,
    schema_created: std::sync::atomic::AtomicBool,
}

impl SpawnedCommits {
    fn new(context: amnesia::PgContext) -> SpawnedCommits {
        SpawnedCommits {
            pg: context.postgres,
            schema_created: Default::default(),
        }
    }

    async fn client(&self) -> Result<amnesia::PgClient, amnesia::StoreError> {
        use std::sync::atomic::Ordering;
        let client = self.pg.get().await?;
        if !self.schema_created.load(Ordering::Acquire) {
            client
                .batch_execute(
                    "BEGIN; SELECT pg_advisory_xact_lock(1);
                     CREATE TABLE IF NOT EXISTS log (pos bigserial PRIMARY KEY,
                         tenant text, session text, id text, body bytea, UNIQUE (tenant, session, id));
                     COMMIT;",
                )
                .await?;
            self.schema_created.store(true, Ordering::Release);
        }
        Ok(client)
    }
}

#[async_trait::async_trait]
impl amnesia::MemoryStore for SpawnedCommits {
    async fn append(
        &self,
        session: &amnesia::SessionKey,
        msg: &amnesia::Message,
    ) -> Result<(), amnesia::StoreError> {
        let mut client = self.client().await?;
        let (tenant, name) = (session.tenant.clone(), session.session.clone());
        let (id, body) = (msg.id.clone(), amnesia::encode_message(msg));
        let commit = tokio::spawn(async move {
            let tx = client.transaction().await?;
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))",
                &[&tenant, &name],
            )
            .await?;
            tx.execute(
                "INSERT INTO log (tenant, session, id, body) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (tenant, session, id) DO NOTHING",
                &[&tenant, &name, &id, &body],
            )
            .await?;
            tx.commit().await?;
            Ok::<_, amnesia::StoreError>(())
        });
        let committed = tokio::time::timeout(std::time::Duration::from_secs(2), commit).await;
        match committed {
            Ok(joined) => joined.map_err(|e| amnesia::StoreError::ConnectionLost(e.to_string()))?,
            Err(_) => Err(amnesia::StoreError::Timeout),
        }
    }

    async fn context(
        &self,
        session: &amnesia::SessionKey,
        limit: usize,
    ) -> Result<Vec<amnesia::Message>, amnesia::StoreError> {
        let client = self.client().await?;
        let (tenant, name, limit) = (&session.tenant, &session.session, limit as i64);
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] = [tenant, name, &limit];
        let read = client.query(
            "SELECT body FROM (SELECT body, pos FROM log WHERE tenant = $1 AND session = $2
                 ORDER BY pos DESC LIMIT $3) newest ORDER BY pos",
            &params,
        );
        let rows = match tokio::time::timeout(std::time::Duration::from_secs(2), read).await {
            Ok(rows) => rows?,
            Err(_) => {
                client.discard();
                return Err(amnesia::StoreError::Timeout);
            }
        };
        rows.iter()
            .map(|row| amnesia::decode_message(row.get::<_, Vec<u8>>(0).as_slice()))
            .collect()
    }

    fn policy(&self) -> amnesia::Policy {
        amnesia::Policy {
            messages_max: None,
            keep_first: false,
            summarizes: false,
            ttl: amnesia::TtlPolicy::None,
            durability: amnesia::Durability::Postgres(amnesia::SynchronousCommit::On),
            appends_idempotent: true,
            recovery_grace_ms: 0,
            eviction: amnesia::Eviction::Forbidden,
        }
    }
}

/// A store built from a `PgContext` is a pgvector store by that alone (no
/// `with_backend`), runs the pgvector backend's default scenario, and passes with its
/// commits placed in a task it spawns on a connection it keeps across awaits; the same
/// seed replays to the same trace.
#[test]
fn a_pg_context_store_keeps_its_connection_across_awaits_and_tasks() {
    let mine = Store::new("spawned-commits", SpawnedCommits::new);
    assert_eq!(mine.backend(), Backend::Pgvector);
    let builder = amnesia::Builder::new().store(mine).seeds(0..4).jobs(1);
    assert_eq!(builder.scenario_config().name, "replay");
    let report = builder.sweep();
    assert!(report.is_pass(), "{}", report.text());
    assert_eq!(builder.run(1).trace.hash(), builder.run(1).trace.hash());
}

/// A `PgContext` store told to run on Redis is refused in one line before anything runs
/// (`BuildError::Input`), never a panic; a sweep that goes around the builder meets a
/// store that fails every call, not a panicking factory.
#[test]
fn a_pg_context_store_on_redis_is_an_error_not_a_panic() {
    let wrong = Store::new("spawned-commits", SpawnedCommits::new).with_backend(Backend::Redis);
    let builder = amnesia::Builder::new().store(wrong.clone());
    let refusal = builder.validate().unwrap_err();
    assert!(
        matches!(refusal, amnesia::BuildError::Input { .. }),
        "{refusal:?}"
    );
    let line = refusal.to_string();
    assert!(!line.contains('\n') && line.contains("PgContext"), "{line}");
    assert!(builder.try_run(1).is_err());
    let config = amnesia::sweep::SweepConfig::new(amnesia::SeedRange { start: 0, end: 1 }, wrong);
    let report = amnesia::SweepReport::sweep(&config, &|_| {});
    assert!(report
        .results
        .iter()
        .all(|r| r.status != amnesia::sweep::SeedStatus::Panic));
}

/// Seeds (from 0) of the `replay` scenario within which a store that runs
/// `synchronous_commit = off` while declaring synchronous commits loses an acknowledged
/// message across a PostgreSQL crash (first at seed 7; 12 of 0..100 seeds `lost`).
const ASYNC_COMMIT_SEEDS: u64 = 10;

/// The (start, length) of `plan`'s fault windows but those of the classes `left_out`.
fn windows_but(plan: &Plan, left_out: &[FaultClass]) -> Vec<(u64, u64)> {
    plan.faults
        .iter()
        .filter(|f| !left_out.contains(&f.kind.class()))
        .map(|f| (f.at_ms, f.duration_ms))
        .collect()
}

/// A pgvector plan is the seed's plan with its server's faults named as PostgreSQL's: the
/// same windows at the same times, the crash and pause `postgres-restart` and
/// `postgres-pause`, no Redis error reply, and PostgreSQL's own faults besides (all
/// connection slots taken, a client's backends terminated) in some seeds, not all; the
/// Redis plan of the seed is untouched.
#[test]
fn a_pgvector_plan_names_postgresql_faults_and_draws_no_redis_error_reply() {
    let (mut renamed, mut dropped) = (0, 0);
    for seed in 0..200 {
        let redis = Plan::generate(seed, &ScenarioConfig::replay());
        assert_eq!(redis.clone().for_backend(Backend::Redis), redis);
        let postgres = redis.clone().for_backend(Backend::Pgvector);
        assert_eq!(postgres.clone().for_backend(Backend::Pgvector), postgres);
        let vocabulary = serde_json::to_string(&(&postgres.mix, &postgres.faults)).unwrap();
        assert!(
            !vocabulary.contains("redis") && !vocabulary.contains("error-reply"),
            "seed {seed}: {vocabulary}"
        );
        let kept = windows_but(&redis, &[FaultClass::ErrorReply]);
        // PostgreSQL's own faults are drawn besides, from streams of their own.
        let times = windows_but(&postgres, &FaultClass::POSTGRES_DRAWN);
        assert_eq!(kept, times, "seed {seed}: the same windows");
        renamed += postgres
            .faults
            .iter()
            .filter(|f| f.kind.class().name().starts_with("postgres-"))
            .count();
        dropped += redis.faults.len() - times.len();
        let summary = postgres.summary();
        let head: String = summary
            .lines()
            .filter(|l| !l.starts_with("traffic"))
            .collect();
        assert!(!head.contains("redis"), "seed {seed}: {summary}");
    }
    assert!(
        renamed > 0 && dropped > 0,
        "{renamed} renamed, {dropped} dropped"
    );
    for class in FaultClass::POSTGRES_DRAWN {
        let with = (0..200)
            .map(|seed| {
                Plan::generate(seed, &ScenarioConfig::replay()).for_backend(Backend::Pgvector)
            })
            .filter(|plan| plan.faults.iter().any(|f| f.kind.class() == class))
            .count();
        assert!(
            (1..200).contains(&with),
            "{}: {with} of 200 seeds",
            class.name()
        );
    }
}

/// A PostgreSQL crash's timeline line says what its WAL kept, and nothing the schedule
/// or the network logs names Redis.
#[test]
fn a_pgvector_run_names_postgresql_in_its_timeline() {
    let report = (0..40)
        .map(|seed| run("pgvector-reference", seed, &ScenarioConfig::replay()))
        .find(|r| !r.history.restarts.is_empty())
        .expect("a PostgreSQL crash in 40 replay seeds");
    let events = report.trace.text_events();
    let faults: Vec<_> = events.iter().filter(|e| e.host == "faults").collect();
    assert!(faults
        .iter()
        .any(|e| e.text.contains("postgres crashed") && e.text.contains("its WAL kept")));
    for event in faults {
        assert!(!event.text.contains("redis"), "{}", event.text);
    }
    assert!(report
        .history
        .restarts
        .iter()
        .all(|r| r.backend == Backend::Pgvector));
}

/// A store whose sessions commit asynchronously while its policy declares synchronous
/// commits loses an acknowledged message across a PostgreSQL crash: `lost`, within
/// [`ASYNC_COMMIT_SEEDS`], and the seed replays.
#[test]
fn a_store_committing_asynchronously_while_declaring_durability_is_caught() {
    let name = "pgvector-async-commit";
    let class = class_of(name);
    let caught = (0..ASYNC_COMMIT_SEEDS)
        .map(|seed| run(name, seed, &ScenarioConfig::replay()))
        .find(|r| !r.verdict.is_pass())
        .unwrap_or_else(|| panic!("{name}: not caught in seeds 0..{ASYNC_COMMIT_SEEDS}"));
    let classes = caught.verdict.classes();
    assert!(classes.contains(&class), "{name}: {classes:?}");
    assert!(!caught.history.restarts.is_empty(), "lost across a crash");
    let again = run(name, caught.plan.seed, &ScenarioConfig::replay());
    assert_eq!(again.trace.hash(), caught.trace.hash());
}

/// Seeds (from 0) of the `replay` scenario within which a store that takes its appends'
/// 40001 (or 40P01) for success loses an acknowledged message (first at seed 3; 17 of
/// 0..100 seeds `lost`, as on `standard`).
const CONFLICT_SWALLOWED_SEEDS: u64 = 6;

/// Seeds (from 0) of `replay` and of `standard` the retrying form must pass here (it
/// passes 0..300 of each, 216 of those 600 runs retrying a 40001).
const CONFLICT_RETRY_SEEDS: u64 = 40;

/// A store whose appends run under REPEATABLE READ and whose helper takes a serialization
/// failure for "a concurrent writer got there first" acknowledges the second of two
/// overlapping appends of a session and never writes it: `lost`, within
/// [`CONFLICT_SWALLOWED_SEEDS`], the run's PostgreSQL having answered 40001 (the model's
/// concurrency, nothing injected), and the seed replays.
#[test]
fn a_store_that_swallows_serialization_failures_is_caught() {
    let name = "pgvector-conflict-swallowed";
    let class = class_of(name);
    let caught = (0..CONFLICT_SWALLOWED_SEEDS)
        .map(|seed| run(name, seed, &ScenarioConfig::replay()))
        .find(|r| !r.verdict.is_pass())
        .unwrap_or_else(|| panic!("{name}: not caught in seeds 0..{CONFLICT_SWALLOWED_SEEDS}"));
    let classes = caught.verdict.classes();
    assert!(classes.contains(&class), "{name}: {classes:?}");
    let points = &caught.coverage.points;
    assert!(
        points.contains_key("postgres.serialization-failure"),
        "{points:?}"
    );
    let again = run(name, caught.plan.seed, &ScenarioConfig::replay());
    assert_eq!(again.trace.hash(), caught.trace.hash());
}

/// The same appends retried whole on 40001 and 40P01 (PostgreSQL's rule) pass, and the
/// conflicts they retried were there: the seeds are not quiet ones.
#[test]
fn a_store_that_retries_serialization_failures_passes() {
    use amnesia::store::pgvector::OnConflict;
    let store = repeatable_read_store(OnConflict::RetryTransaction);
    let mut conflicted = 0;
    for scenario in [ScenarioConfig::replay(), ScenarioConfig::standard()] {
        for seed in 0..CONFLICT_RETRY_SEEDS {
            let report = run_seed(seed, &scenario, &store, EngineKind::Event);
            let classes = report.verdict.classes();
            assert!(
                report.verdict.is_pass(),
                "{} seed {seed}: {classes:?}",
                scenario.name
            );
            let points = &report.coverage.points;
            conflicted += usize::from(points.contains_key("postgres.serialization-failure"));
        }
    }
    assert!(conflicted > 0, "no 40001 in the seeds");
}

/// Seeds (from 0) of `replay` in which an administrator's migration locks the tables.
const LOCK_TABLES_SEEDS: u64 = 16;

/// An administrator's migration (`postgres-lock-tables`, PostgreSQL plans only) holds
/// every table ACCESS EXCLUSIVE: a store that set `lock_timeout` has writes fail with
/// 55P03 and reports them failed, the reference (no timeout) waits; both pass, and the
/// timeline names the migration as PostgreSQL's.
#[test]
fn a_migrations_table_locks_time_out_a_store_with_lock_timeout() {
    let scenario = ScenarioConfig::replay();
    let guarded = lock_timeout_store(20);
    let (mut locked, mut timed_out) = (0, 0);
    for seed in 0..LOCK_TABLES_SEEDS {
        let plan = Plan::generate(seed, &scenario).for_backend(Backend::Pgvector);
        if !plan
            .faults
            .iter()
            .any(|f| f.kind.class() == FaultClass::PostgresLockTables)
        {
            continue;
        }
        locked += 1;
        let report = run_seed(seed, &scenario, &guarded, EngineKind::Event);
        assert!(
            report.verdict.is_pass(),
            "seed {seed}: {:?}",
            report.verdict.classes()
        );
        timed_out += usize::from(report.coverage.points.contains_key("postgres.lock-timeout"));
        let reference = run("pgvector-reference", seed, &scenario);
        assert!(reference.verdict.is_pass(), "seed {seed}");
        assert!(!reference
            .coverage
            .points
            .contains_key("postgres.lock-timeout"));
        let events = reference.trace.text_events();
        assert!(events
            .iter()
            .any(|e| e.host == "faults" && e.text.contains("IN ACCESS EXCLUSIVE MODE")));
    }
    assert!(
        locked > 0 && timed_out > 0,
        "{locked} seeds locked, {timed_out} timed out"
    );
}
