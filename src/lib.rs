//! amnesia: deterministic simulation testing of LLM memory stores kept in Redis (and, in
//! the real tier, PostgreSQL + pgvector).
//!
//! A seed becomes a [`Plan`] (workload and faults); the plan runs in a simulated world
//! where your store's real code talks to a Redis model over virtual time, through the real
//! `redis` crate; the recorded [`History`](history::History) is judged by the checker into
//! a [`Verdict`]. One seed is one exact execution: it replays byte for byte and shrinks to
//! a minimal failing plan.
//!
//! # The front door
//!
//! A [`Builder`] names what to test: a [`Store`] (built in by name, or yours), a
//! [`ScenarioConfig`], seeds and an [`EngineKind`]. Then [`check`](Builder::check) from
//! `cargo test`, [`sweep`](Builder::sweep) for a [`SweepReport`], [`run`](Builder::run)
//! for one seed's [`RunReport`], [`replay`](Builder::replay) a saved plan,
//! [`shrink`](Builder::shrink) a failure to a few operations, or
//! [`snapshot`](Builder::snapshot) it for review ([`assert_seed_snapshot!`]).
//! [`Builder::validate`] (and `try_run`, `try_sweep`) refuse what cannot run, such as an
//! invalid scenario, with a [`BuildError`].
//!
//! ```
//! use amnesia::{Builder, ChatStoreConfig, RedisChatStore, Store, StoreContext};
//!
//! // A store, built per client process from what amnesia hands it: a connector to
//! // (simulated) Redis, the host's clock, the session TTL, the code version.
//! let mine = Store::new("my-store", |context: StoreContext| {
//!     let config = ChatStoreConfig { messages_max: 16, ttl_ms: context.session_ttl_ms };
//!     RedisChatStore::new(context.connector, config)
//! });
//! let builder = Builder::new().store(mine).seeds(0..8);
//!
//! // In a test: panics with every failing seed and the line that replays it.
//! builder.check();
//!
//! // One seed, one exact execution: the same trace, byte for byte.
//! let report = builder.run(42);
//! assert!(report.verdict.is_pass(), "{report}");
//! assert_eq!(report.trace.hash(), builder.run(42).trace.hash());
//!
//! // A buggy store fails; its verdict prints as `amnesia run` prints it.
//! let buggy = Builder::new().store(Store::named("write-behind").unwrap());
//! let failed = buggy.run(1);
//! assert!(failed.verdict.to_string().starts_with("verdict: FAIL"));
//! ```
//!
//! # Your own store
//!
//! Implement [`MemoryStore`] over your store's code (three methods are required; the rest
//! default to unsupported) and declare the [`Policy`] the checker holds it to. Reach Redis
//! through [`StoreContext::connector`]: the same code runs on every engine and in the real
//! tier. `examples/own-store` is a whole project; README's "Test your own store" walks
//! through it.
//!
//! ```no_run
//! use amnesia::{
//!     decode_message, encode_message, Builder, Durability, MemoryStore, Message, Policy,
//!     SessionKey, Store, StoreContext, StoreError, TtlPolicy,
//! };
//!
//! struct ListStore {
//!     context: StoreContext,
//! }
//!
//! #[async_trait::async_trait]
//! impl MemoryStore for ListStore {
//!     async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
//!         let (key, value) = (format!("chat:{session}"), encode_message(msg));
//!         self.context
//!             .connector
//!             .run(|mut conn| async move {
//!                 redis::cmd("RPUSH").arg(key).arg(value).query_async::<()>(&mut conn).await
//!             })
//!             .await
//!     }
//!
//!     async fn context(&self, session: &SessionKey, limit: usize) -> Result<Vec<Message>, StoreError> {
//!         let key = format!("chat:{session}");
//!         let start = -(limit as isize);
//!         let raw: Vec<Vec<u8>> = self
//!             .context
//!             .connector
//!             .run(|mut conn| async move {
//!                 redis::cmd("LRANGE").arg(key).arg(start).arg(-1).query_async(&mut conn).await
//!             })
//!             .await?;
//!         raw.iter().map(|data| decode_message(data)).collect()
//!     }
//!
//!     fn policy(&self) -> Policy {
//!         Policy {
//!             messages_max: None,
//!             keep_first: false,
//!             summarizes: false,
//!             ttl: TtlPolicy::None,
//!             durability: Durability::AsRedis,
//!             appends_idempotent: true,
//!             recovery_grace_ms: 0,
//!             eviction: amnesia::Eviction::Forbidden,
//!         }
//!     }
//! }
//!
//! let store = Store::new("list-store", |context| ListStore { context });
//! Builder::new().store(store).seeds(0..200).check();
//! ```
//!
//! # Reading a failure
//!
//! [`RunReport`], [`Verdict`], [`Violation`] and [`ViolationClass`] implement `Display`
//! (`{:#}` on a report prints every event, bytes on the wire included); a
//! [`RunReport::history`] holds every operation ([`history`]). A failing
//! [`check`](Builder::check) prints each seed's violations and the command that replays
//! it.
//!
//! # Features
//!
//! The default features are the simulator and the checker. `turmoil` adds
//! `EngineKind::Turmoil` and the `turmoil` module (amnesia's model and checker in your own
//! turmoil simulation); `real` adds the `real` module: the same plans against real
//! Redis and PostgreSQL + pgvector servers. The `amnesia` command line (package
//! `amnesia-cli`) turns both on.
//!
//! amnesia needs tokio's seeded scheduler, which exists only under `--cfg
//! tokio_unstable`: a crate that depends on amnesia puts this in its
//! `.cargo/config.toml` (the build stops with this advice otherwise):
//!
//! ```toml
//! [build]
//! rustflags = ["--cfg", "tokio_unstable"]
//! ```
//!
//! How the crate is built (the pipeline, the layers, where each concept lives) is in
//! ARCHITECTURE.md, beside this crate's Cargo.toml.

#![warn(missing_docs)]

// Documentation builds (`cargo doc`, doctests) read the source without the build's
// rustflags: the guard is for code that runs.

#[cfg(not(any(tokio_unstable, doc, doctest)))]
compile_error!(
    "amnesia needs `--cfg tokio_unstable` (tokio's seeded scheduler: without it a seed does \
     not replay). Add to your project's .cargo/config.toml:\n[build]\nrustflags = [\"--cfg\", \"tokio_unstable\"]"
);

#[doc(hidden)]
pub mod internal;

#[cfg(feature = "pg")]
pub(crate) use internal::pg;
pub(crate) use internal::{
    builder, check, clock, connect, contract, domain, embed, engine, model, model_panic, plan,
    postgres, runner, task, trace, world,
};
// Hidden, and at the root only because its stores' log target is their module path
// (`amnesia::store::reference`), which `--log amnesia::store=debug` names.
#[doc(hidden)]
pub mod store;

pub mod coverage;
pub mod history;
#[cfg(feature = "real")]
pub mod real;
#[cfg(feature = "turmoil")]
pub mod turmoil;

pub use builder::{BuildError, Builder, Store, UnknownStore};
pub use check::{Excused, Info, Subject, Verdict, Violation, ViolationClass};
pub use clock::Clock;
pub use connect::Connector;
pub use contract::{
    Backend, Context, Durability, Eviction, MemoryAudit, MemoryStore, PgContext, Policy,
    StoreContext, StoreError, StoreFactory, StoreInput, SynchronousCommit, TtlPolicy,
    RECOVERY_GRACE_MS_MAX,
};
pub use domain::{
    escape_key_part, IndexedEmbedding, Memory, Message, Persistence, Role, SessionKey, Summary,
    UserKey,
};
pub use plan::{EvictionPolicy, Neighbour, Plan, PlanError, Pressure, Retries, ScenarioConfig};
pub use postgres::PgConnector;
#[cfg(feature = "pg")]
pub use postgres::{PgClient, PgFuture};
pub use runner::shrink::{ShrinkError, Shrunk};
pub use runner::{EngineKind, LogFilter, RunReport, SeedRange, Snapshot, SweepReport};
pub use store::{decode_message, encode_message, ChatStoreConfig, RedisChatStore};
pub use trace::{Trace, TraceEvent};

/// Buggify points for your own store's code, after FoundationDB's `BUGGIFY`: the ones
/// amnesia's built-in stores have.
///
/// A point is a name at a place in your store where production timing hides a race: the
/// gap between two round trips, a read and the write it decides. In a simulated run the
/// seed enables some points (a quarter of them, each with its own rate: 10, 25, 50 or 90 %
/// of visits) and an enabled point then fires at that rate: [`delay`](buggify::delay)
/// sleeps a seeded 1 ms to 3 s of virtual time (a slow network, a GC pause, so that a
/// crash, a failover or another client lands in the gap), [`fires`](buggify::fires)
/// answers `true` and your code injects a failure of its own. Every decision is drawn from
/// the seed and the point's name and written to the trace (host `buggify`): a seed replays
/// the same decisions. Outside a simulated run (production, plain tests) no point is ever
/// enabled: `fires` is `false`, `delay` returns at once, each costs a thread-local lookup.
/// A shrunk plan turns every point off.
///
/// ```
/// async fn append(conn: &mut redis::aio::MultiplexedConnection) -> redis::RedisResult<()> {
///     redis::cmd("RPUSH").arg("chat:1").arg("hi").query_async::<()>(conn).await?;
///     // The TTL follows in a second round trip: let the simulator stretch the gap.
///     amnesia::buggify::delay("mystore.append.before-expire").await;
///     redis::cmd("EXPIRE").arg("chat:1").arg(60).query_async::<()>(conn).await
/// }
///
/// // Outside a simulated run a point never fires.
/// assert!(!amnesia::buggify::fires("mystore.append.drop-connection"));
/// ```
///
/// Name points `store.operation.place`, unique and stable: a renamed point draws other
/// decisions. amnesia needs `--cfg tokio_unstable`, so production code usually calls it
/// behind a cargo feature that only the tests turn on (README's "Test your own store").
pub mod buggify;

/// Where a run reached the `sometimes!` points of a store's code; see [`sometimes!`].
pub mod sometimes;

/// Marks a place in your store's code that a good search reaches now and then, after
/// Antithesis's `sometimes` assertions: `sometimes!("name")` records that the run got
/// here, `sometimes!(condition, "name")` that it got here with `condition` true.
///
/// It judges nothing and changes nothing the run does; it writes nothing to the trace, so
/// adding a point leaves trace hashes as they were. Each run's report counts the points
/// it reached ([`RunReport::coverage`]); a sweep counts the runs that reached each point,
/// and `amnesia sweep --explore` ([`Builder::explore`]) keeps the plans that reach a
/// point few runs reach and mutates them. Outside a simulated run (production, a plain
/// unit test) a point costs a thread-local lookup.
///
/// ```
/// async fn remember(conn: &mut redis::aio::MultiplexedConnection) -> redis::RedisResult<()> {
///     redis::cmd("WATCH").arg("memories:u1").query_async::<()>(conn).await?;
///     let applied: Option<()> = redis::pipe()
///         .atomic()
///         .hset("memories:u1", "m1", "likes tea")
///         .ignore()
///         .query_async(conn)
///         .await?;
///     // A watched key changed: EXEC aborted and the caller tries again.
///     amnesia::sometimes!(applied.is_none(), "mystore.remember.exec-aborted");
///     Ok(())
/// }
///
/// // Outside a simulated run a point records nothing and costs a lookup.
/// amnesia::sometimes!("mystore.reached-in-a-doc-test");
/// ```
///
/// Name points like buggify points, `store.operation.what`, unique and stable; a
/// point's name is its identity in reports (at most [`sometimes::NAME_BYTES_MAX`] bytes,
/// [`sometimes::POINTS_MAX`] distinct points per run).
#[macro_export]
macro_rules! sometimes {
    ($condition:expr, $name:expr $(,)?) => {
        if $condition {
            $crate::sometimes::reached($name)
        }
    };
    ($name:expr $(,)?) => {
        $crate::sometimes::reached($name)
    };
}

/// A sweep's parts: its configuration, each seed's result, the summary by class.
/// [`Builder::sweep`](crate::Builder::sweep) is the usual way in.
pub mod sweep {
    pub use crate::internal::runner::explore::{ExploreConfig, ExploreReport, ExploreRun, Origin};
    pub use crate::internal::runner::report::{ClassSeeds, CoverageSummary, PointRuns, Summary};
    pub use crate::internal::runner::seeds::Shard;
    pub use crate::internal::runner::sweep::{Replay, SeedResult, SeedStatus, SweepConfig};
}

// README's Rust examples compile as doc tests, so they cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
