//! The team's pgvector memory store on amnesia's madsim engine, unchanged: on sqlx 0.8 (a
//! `PgPool` from `StoreContext::postgres_url`) and on tokio-postgres
//! (`tokio_postgres::connect(url, NoTls)`), each behind an adapter to amnesia's contract
//! and swept against the PostgreSQL model; and amnesia's own pgvector stores (the
//! reference, the catalogue's pgvector variants, the migration from Redis) judged alike on
//! both engines.
#![cfg(madsim)]

use amnesia::sweep::{Replay, SeedResult, SweepConfig};
use amnesia::{
    Backend, Builder, Durability, EngineKind, IndexedEmbedding, Memory, MemoryAudit, MemoryStore,
    Message, Policy, Role, ScenarioConfig, SeedRange, SessionKey, Store, StoreContext, StoreError,
    SweepReport, TtlPolicy, UserKey, ViolationClass,
};
use madsim_store::pg_schema::{Failure, StoredMemory, StoredMessage, DIMENSIONS};
use madsim_store::pg_sqlx::{PoolPings, SqlxMemory};
use madsim_store::pg_tokio::TokioPgMemory;

/// What the adapter needs of either client's store.
#[async_trait::async_trait]
trait MemoryDb: Send + Sync + 'static {
    fn open(url: &str) -> Self;
    async fn append(&self, conversation: &str, message: &StoredMessage) -> Result<(), StoreError>;
    async fn recent(
        &self,
        conversation: &str,
        limit: usize,
    ) -> Result<Vec<StoredMessage>, StoreError>;
    async fn clear(&self, conversation: &str) -> Result<(), StoreError>;
    async fn delete(&self, conversation: &str, id: &str) -> Result<(), StoreError>;
    async fn remember(
        &self,
        owner: &str,
        memory: &Memory,
        embedding: &[f32],
    ) -> Result<(), StoreError>;
    async fn recall(
        &self,
        owner: &str,
        embedding: &[f32],
        k: usize,
    ) -> Result<Vec<(String, String)>, StoreError>;
    async fn forget(&self, owner: &str, id: &str) -> Result<(), StoreError>;
    async fn memories(&self, owner: &str) -> Result<Vec<StoredMemory>, StoreError>;
}

/// A SQLSTATE of the connection classes (08: connection exception, 57: operator
/// intervention, a server shutting down): the statement's outcome is unknown.
fn is_connection_class(code: &str) -> bool {
    code.starts_with("08") || code.starts_with("57")
}

/// `error` and its sources, `: `-joined (tokio-postgres's "error connecting to server"
/// keeps its cause there).
fn with_sources(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// sqlx's error as amnesia's: an error reply was not applied; no connection from the pool
/// sent nothing; a broken connection leaves the outcome unknown.
fn sqlx_error(failure: Failure<sqlx::Error>) -> StoreError {
    let error = match failure {
        Failure::TimedOut => return StoreError::Timeout,
        Failure::Client(error) => error,
    };
    match &error {
        sqlx::Error::Database(db) if !db.code().is_some_and(|c| is_connection_class(&c)) => {
            StoreError::Server(with_sources(&error))
        }
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => {
            StoreError::Unavailable(with_sources(&error))
        }
        sqlx::Error::ColumnDecode { .. }
        | sqlx::Error::Decode(_)
        | sqlx::Error::TypeNotFound { .. } => StoreError::Server(with_sources(&error)),
        _ => StoreError::ConnectionLost(with_sources(&error)),
    }
}

/// tokio-postgres's error as amnesia's: an error reply was not applied; anything else
/// (a broken or refused connection) may have happened after it was.
fn tokio_pg_error(failure: Failure<tokio_postgres::Error>) -> StoreError {
    let error = match failure {
        Failure::TimedOut => return StoreError::Timeout,
        Failure::Client(error) => error,
    };
    match error.as_db_error() {
        Some(db) if !is_connection_class(db.code().code()) => {
            StoreError::Server(with_sources(&error))
        }
        _ => StoreError::ConnectionLost(with_sources(&error)),
    }
}

/// `MemoryDb` for `$db`, opened by `$open`, its errors mapped by `$error`, each call made
/// on what `$inner` reads of it (the store itself unless a wrapper picks its pool).
macro_rules! impl_memory_db {
    ($db:ty, $open:expr, $error:path) => {
        impl_memory_db!($db, $open, $error, itself);
    };
    ($db:ty, $open:expr, $error:path, $inner:path) => {
        #[async_trait::async_trait]
        impl MemoryDb for $db {
            fn open(url: &str) -> Self {
                ($open)(url)
            }
            async fn append(
                &self,
                conversation: &str,
                message: &StoredMessage,
            ) -> Result<(), StoreError> {
                $inner(self)
                    .append(conversation, message)
                    .await
                    .map_err($error)
            }
            async fn recent(
                &self,
                conversation: &str,
                limit: usize,
            ) -> Result<Vec<StoredMessage>, StoreError> {
                $inner(self)
                    .recent(conversation, limit)
                    .await
                    .map_err($error)
            }
            async fn clear(&self, conversation: &str) -> Result<(), StoreError> {
                $inner(self).clear(conversation).await.map_err($error)
            }
            async fn delete(&self, conversation: &str, id: &str) -> Result<(), StoreError> {
                $inner(self).delete(conversation, id).await.map_err($error)
            }
            async fn remember(
                &self,
                owner: &str,
                memory: &Memory,
                embedding: &[f32],
            ) -> Result<(), StoreError> {
                $inner(self)
                    .remember(owner, &memory.id, &memory.text, embedding)
                    .await
                    .map_err($error)
            }
            async fn recall(
                &self,
                owner: &str,
                embedding: &[f32],
                k: usize,
            ) -> Result<Vec<(String, String)>, StoreError> {
                $inner(self)
                    .recall(owner, embedding, k)
                    .await
                    .map_err($error)
            }
            async fn forget(&self, owner: &str, id: &str) -> Result<(), StoreError> {
                $inner(self).forget(owner, id).await.map_err($error)
            }
            async fn memories(&self, owner: &str) -> Result<Vec<StoredMemory>, StoreError> {
                $inner(self).memories(owner).await.map_err($error)
            }
        }
    };
}

impl_memory_db!(
    SqlxMemory,
    |url: &str| SqlxMemory::connect_lazy(url).expect("a URL amnesia made parses"),
    sqlx_error
);
impl_memory_db!(TokioPgMemory, TokioPgMemory::new, tokio_pg_error);

/// The team's store on sqlx's pool defaults ([`PoolPings::SqlxDefaults`]).
struct SqlxDefaults(SqlxMemory);

impl_memory_db!(
    SqlxDefaults,
    |url: &str| SqlxDefaults(
        SqlxMemory::connect_lazy_with(url, PoolPings::SqlxDefaults)
            .expect("a URL amnesia made parses")
    ),
    sqlx_error,
    sqlx_of_defaults
);

fn sqlx_of_defaults(db: &SqlxDefaults) -> &SqlxMemory {
    &db.0
}

/// A store that is its own database.
fn itself<T>(db: &T) -> &T {
    db
}

/// The caller's embedding model: hashed words and character trigrams, normalised (a
/// constant feature keeps every vector non-zero, so cosine distances are defined).
fn embed(text: &str) -> Vec<f32> {
    let mut vector = vec![0f32; DIMENSIONS];
    vector[0] = 0.25;
    let lower = text.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let trigrams = chars
        .windows(3)
        .map(|w| (w.iter().collect::<String>(), 0.5));
    let words = lower.split_whitespace().map(|w| (w.to_string(), 1.0));
    for (feature, weight) in words.chain(trigrams) {
        let hash = fnv1a(feature.as_bytes());
        let sign = if hash >> 63 == 1 { -1.0 } else { 1.0 };
        vector[1 + (hash % (DIMENSIONS as u64 - 1)) as usize] += sign * weight;
    }
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    vector.iter_mut().for_each(|x| *x /= norm);
    vector
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// amnesia's contract over the team's store.
struct Adapter<D> {
    db: D,
}

impl<D: MemoryDb> Adapter<D> {
    fn new(context: StoreContext) -> Adapter<D> {
        let url = context
            .postgres_url
            .expect("the madsim engine gives every client process a PostgreSQL URL");
        Adapter { db: D::open(&url) }
    }
}

/// One conversation per session, one owner per user; the tenant's length keeps `a:b` + `c`
/// apart from `a` + `b:c`.
fn scoped(tenant: &str, name: &str) -> String {
    format!("{}:{tenant}:{name}", tenant.len())
}

fn conversation(session: &SessionKey) -> String {
    scoped(&session.tenant, &session.session)
}

fn owner(user: &UserKey) -> String {
    scoped(&user.tenant, &user.user)
}

fn stored(msg: &Message) -> StoredMessage {
    let role = match msg.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    StoredMessage {
        id: msg.id.clone(),
        role: role.to_string(),
        content: msg.content.clone(),
        turn: msg.seq,
    }
}

fn message_of(stored: StoredMessage) -> Message {
    let role = match stored.role.as_str() {
        "system" => Role::System,
        "user" => Role::User,
        _ => Role::Assistant,
    };
    Message {
        id: stored.id,
        role,
        content: stored.content,
        seq: stored.turn,
    }
}

#[async_trait::async_trait]
impl<D: MemoryDb> MemoryStore for Adapter<D> {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        self.db.append(&conversation(session), &stored(msg)).await
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let recent = self.db.recent(&conversation(session), limit).await?;
        Ok(recent.into_iter().map(message_of).collect())
    }

    async fn clear(&self, session: &SessionKey) -> Result<(), StoreError> {
        self.db.clear(&conversation(session)).await
    }

    async fn delete(&self, session: &SessionKey, id: &str) -> Result<(), StoreError> {
        self.db.delete(&conversation(session), id).await
    }

    async fn remember(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        let embedding = embed(&memory.text);
        self.db.remember(&owner(user), memory, &embedding).await
    }

    async fn recall(
        &self,
        user: &UserKey,
        query: &str,
        k: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let found = self.db.recall(&owner(user), &embed(query), k).await?;
        Ok(found
            .into_iter()
            .map(|(id, text)| Memory { id, text })
            .collect())
    }

    async fn update_memory(&self, user: &UserKey, memory: &Memory) -> Result<(), StoreError> {
        // The upsert replaces text and embedding in one statement.
        self.remember(user, memory).await
    }

    async fn forget(&self, user: &UserKey, id: &str) -> Result<(), StoreError> {
        self.db.forget(&owner(user), id).await
    }

    /// The store keeps a memory and its vector in one row, indexed by PostgreSQL itself:
    /// what is stored is what is indexed, and each vector is checked against its text.
    async fn audit_memories(&self, user: &UserKey) -> Result<MemoryAudit, StoreError> {
        let memories = self.db.memories(&owner(user)).await?;
        let ids: Vec<String> = memories.iter().map(|m| m.id.clone()).collect();
        let embeddings = memories
            .iter()
            .map(|m| IndexedEmbedding::compare(&m.id, Some(&m.embedding), &embed(&m.text)))
            .collect();
        Ok(MemoryAudit {
            stored: ids.clone(),
            indexed: ids,
            exact: None,
            embeddings: Some(embeddings),
        })
    }

    fn policy(&self) -> Policy {
        Policy {
            messages_max: None,
            keep_first: false,
            summarizes: false,
            ttl: TtlPolicy::None,
            // `synchronous_commit = on`: an acknowledged commit survives a crash.
            durability: Durability::AsRedis,
            appends_idempotent: true,
            // A failed call costs the next one a pool acquire or a reconnect.
            recovery_grace_ms: 1_000,
            eviction: amnesia::Eviction::Forbidden,
        }
    }
}

/// The team's store on sqlx.
fn sqlx_store() -> Store {
    Store::new("team-pgvector-sqlx", Adapter::<SqlxMemory>::new).with_backend(Backend::Pgvector)
}

/// The team's store on sqlx's pool defaults, its pings unbounded.
fn sqlx_defaults_store() -> Store {
    Store::new("team-pgvector-sqlx-defaults", Adapter::<SqlxDefaults>::new)
        .with_backend(Backend::Pgvector)
}

/// The team's store on tokio-postgres.
fn tokio_postgres_store() -> Store {
    Store::new(
        "team-pgvector-tokio-postgres",
        Adapter::<TokioPgMemory>::new,
    )
    .with_backend(Backend::Pgvector)
}

/// Seeds of a sweep: `AMNESIA_SEED=N` (the replay command a failing seed prints) runs
/// that one, `AMNESIA_SEEDS=a..b` a range.
fn seeds(default: std::ops::Range<u64>) -> SeedRange {
    if let Ok(seed) = std::env::var("AMNESIA_SEED") {
        let seed: u64 = seed.parse().expect("AMNESIA_SEED is a seed number");
        return SeedRange {
            start: seed,
            end: seed + 1,
        };
    }
    let text = std::env::var("AMNESIA_SEEDS")
        .unwrap_or_else(|_| format!("{}..{}", default.start, default.end));
    SeedRange::parse(&text).expect("AMNESIA_SEEDS is a..b")
}

/// The scenario a store of this backend runs in (as amnesia's own pgvector tests do): the
/// replay of every memory at quiescence; and a deploy with a migration for one that moves
/// from Redis to PostgreSQL.
fn scenario_of(store: &Store) -> ScenarioConfig {
    match store.backend() {
        Backend::RedisThenPgvector => ScenarioConfig::migrate(),
        _ => ScenarioConfig::replay(),
    }
}

/// A sweep of `store` on `engine`, each seed replayable by this test's name; `twice`: each
/// seed run twice, a divergence of the traces failing it as nondeterministic.
fn sweep(
    store: Store,
    engine: EngineKind,
    seeds: SeedRange,
    test: &str,
    twice: bool,
) -> SweepReport {
    let config = SweepConfig {
        engine,
        check_determinism: twice,
        scenario: scenario_of(&store),
        replay: Replay::CargoTest {
            test: test.to_string(),
        },
        ..SweepConfig::new(seeds, store)
    };
    SweepReport::sweep(&config, &|_| {})
}

/// Each failing seed: its status, classes and the command that replays it alone.
fn failing(report: &SweepReport) -> Vec<String> {
    let failing = report.results.iter().filter(|r| !r.is_pass());
    let line = |r: &SeedResult| {
        format!(
            "seed {} {:?} {:?}: {}\n  {:?}",
            r.seed, r.status, r.classes, r.replay, r.violations
        )
    };
    failing.map(line).collect()
}

/// The sweep reached PostgreSQL: appends were acknowledged, and in some seed the server
/// crashed with a write in flight (a pass of a store that never got through would prove
/// nothing). Checked only over a range, not a single replayed seed.
fn assert_exercised(report: &SweepReport) {
    if report.results.len() < 20 {
        return;
    }
    let acked: usize = report
        .results
        .iter()
        .map(|r| r.excused.acked_messages)
        .sum();
    let crashed = report
        .results
        .iter()
        .filter(|r| r.coverage.points.contains_key("restart.write-in-flight"))
        .count();
    println!("{} seeds: {acked} acked messages, {crashed} seeds restarted PostgreSQL with a write in flight", report.results.len());
    assert!(acked > 0, "no append was acknowledged");
    assert!(
        crashed > 0,
        "no seed restarted PostgreSQL with a write in flight"
    );
}

/// sqlx 0.8's pool on its defaults pings an idle connection before handing it out within
/// the call's acquire timeout: after a silent drop of its idle connections, each dead one
/// costs a call "pool timed out" though PostgreSQL is up, so a session fails again past
/// the recovery grace. The sweep catches it as `unavailable`, and nothing else; the
/// team's bounded pings (`PoolPings::Bounded`, the next test) pass the same seeds.
#[test]
fn sqlx_default_pool_hands_out_dead_connections_after_a_silent_drop() {
    let test = "sqlx_default_pool_hands_out_dead_connections_after_a_silent_drop";
    let report = sweep(
        sqlx_defaults_store(),
        EngineKind::Madsim,
        seeds(0..200),
        test,
        false,
    );
    let failures: Vec<&SeedResult> = report.results.iter().filter(|r| !r.is_pass()).collect();
    assert!(
        !failures.is_empty(),
        "no seed caught the dead connections handed out"
    );
    for failure in &failures {
        let stranded = failure.violations.iter().all(|v| {
            v.class == ViolationClass::Unavailable && v.explanation.contains("pool timed out")
        });
        assert!(stranded, "{}", failing(&report).join("\n"));
    }
    println!(
        "{} of {} seeds caught: {:?}",
        failures.len(),
        report.results.len(),
        failures.iter().map(|r| r.seed).collect::<Vec<_>>()
    );
}

/// sqlx's pool (its connections returned by a task spawned through the runtime's handle,
/// its acquire timeout, its ping on release) and every seed replaying to the same trace.
#[test]
fn the_team_store_on_sqlx_passes_a_sweep_on_the_madsim_engine() {
    let test = "the_team_store_on_sqlx_passes_a_sweep_on_the_madsim_engine";
    let report = sweep(sqlx_store(), EngineKind::Madsim, seeds(0..200), test, true);
    assert!(report.is_pass(), "failing seeds: {:?}", failing(&report));
    assert_exercised(&report);
}

#[test]
fn the_team_store_on_tokio_postgres_passes_a_sweep_on_the_madsim_engine() {
    let test = "the_team_store_on_tokio_postgres_passes_a_sweep_on_the_madsim_engine";
    let report = sweep(
        tokio_postgres_store(),
        EngineKind::Madsim,
        seeds(0..100),
        test,
        true,
    );
    assert!(report.is_pass(), "failing seeds: {:?}", failing(&report));
    assert_exercised(&report);
}

/// amnesia's pgvector stores of the catalogue, with the seeds (from 0) within which each
/// variant must be caught (sim-tests/pg_sim.rs's budgets, from 1, plus one).
const PGVECTOR_CATALOGUE: [(&str, u64); 8] = [
    ("pgvector-ef-search-below-k", 3),
    ("pgvector-filter-after-topk", 3),
    ("pgvector-ivfflat-before-load", 3),
    ("pgvector-embedding-v2", 4),
    ("migrate-nontransactional", 3),
    ("migrate-old-embedding", 4),
    ("migrate-placeholder-vectors", 4),
    // The reference stores: never caught (no classes expected).
    ("pgvector-reference", 0),
];

/// The seeds (from 0) on which each catalogue entry's classes are compared.
const AGREEMENT_SEEDS: u64 = 10;

/// The classes of `store` at `seed` on `engine`, in its backend's scenario.
fn classes(store: &str, engine: EngineKind, seed: u64) -> Vec<ViolationClass> {
    let store = Store::named(store).expect("built in");
    Builder::new()
        .scenario(scenario_of(&store))
        .store(store)
        .engine(engine)
        .run(seed)
        .verdict
        .classes()
}

#[test]
fn the_pgvector_catalogue_gets_the_same_classes_on_both_engines() {
    let mut differ = Vec::new();
    for (store, budget) in PGVECTOR_CATALOGUE {
        let expected = amnesia::internal::store::expected_classes(store).expect("built in");
        let caught = |classes: &[ViolationClass]| classes.iter().any(|c| expected.contains(c));
        let mut first = [None, None];
        for seed in 0..AGREEMENT_SEEDS {
            let [event, madsim] =
                [EngineKind::Event, EngineKind::Madsim].map(|engine| classes(store, engine, seed));
            if event != madsim {
                differ.push(format!(
                    "{store} seed {seed}: event {event:?}, madsim {madsim:?}"
                ));
            }
            for (slot, classes) in first.iter_mut().zip([&event, &madsim]) {
                if slot.is_none() && caught(classes) {
                    *slot = Some(seed);
                }
            }
        }
        println!(
            "{store:30} first caught: event {:?}, madsim {:?}",
            first[0], first[1]
        );
        if budget > 0 && first.contains(&None) {
            differ.push(format!(
                "{store}: not caught as {expected:?} in 0..{budget} on both: {first:?}"
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn the_migration_to_pgvector_passes_on_both_engines() {
    let test = "the_migration_to_pgvector_passes_on_both_engines";
    let store = || Store::named("migrate-to-pgvector").expect("built in");
    for engine in [EngineKind::Event, EngineKind::Madsim] {
        let report = sweep(store(), engine, seeds(0..30), test, false);
        assert!(
            report.is_pass(),
            "{}: failing seeds: {:?}",
            engine.name(),
            failing(&report)
        );
    }
}

/// The store pointed where the simulation has no PostgreSQL (`url_of` the URL amnesia
/// gives): every call fails, and the failure says why in the store's own error.
fn misdirected<D: MemoryDb>(url_of: fn(&str) -> String) -> Store {
    let store = move |context: StoreContext| {
        assert_eq!(context.redis_url, None, "a pgvector run has no Redis");
        let url = context
            .postgres_url
            .expect("a pgvector run has a PostgreSQL");
        Adapter {
            db: D::open(&url_of(&url)),
        }
    };
    Store::new("misdirected", store).with_backend(Backend::Pgvector)
}

#[test]
fn what_the_simulation_does_not_provide_fails_with_a_clear_error() {
    // sqlx retries a refused connect until its acquire timeout and then reports only
    // that; tokio-postgres reports the refusal itself.
    let cases: [(Store, &str); 3] = [
        (
            misdirected::<SqlxMemory>(|_| "postgres://amnesia@db.internal:5432/postgres".into()),
            "'db.internal' does not resolve in the simulation",
        ),
        // The process's own PostgreSQL name, at Redis's port: nothing listens there.
        (
            misdirected::<TokioPgMemory>(|url| url.replace(":5432/", ":6379/")),
            "nothing listens at [fd00:1::",
        ),
        (
            misdirected::<SqlxMemory>(|_| {
                "postgres://amnesia@localhost/postgres?host=/run/postgresql".into()
            }),
            "a Unix socket is not simulated by amnesia's madsim engine",
        ),
    ];
    for (store, expected) in cases {
        let report = Builder::new()
            .store(store)
            .scenario(ScenarioConfig::replay())
            .engine(EngineKind::Madsim)
            .run(0);
        let timeline: String = report
            .trace
            .events()
            .iter()
            .map(|e| format!("{}\n", e.text))
            .collect();
        assert!(
            timeline.contains(expected),
            "no '{expected}' in:\n{}",
            &timeline[..timeline.len().min(2_000)]
        );
        assert!(report
            .history
            .ops
            .iter()
            .all(|op| !matches!(op.outcome, amnesia::history::Outcome::Ok(_))));
    }
}
