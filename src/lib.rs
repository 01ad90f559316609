//! amnesia: deterministic simulation testing of LLM memory stores kept in Redis.
//!
//! A seed becomes a [`Plan`] (workload and faults); the plan runs in a
//! simulated world where your store's real code talks to a Redis model over virtual time,
//! through the real `redis` crate; the recorded [`History`](history::History) is judged by
//! the checker into a [`Verdict`]. One seed is one exact execution: it replays byte for
//! byte and shrinks to a minimal failing plan.
//!
//! The front door is the [`Builder`]: a [`Store`] (built in by name, or your own), a
//! scenario, seeds and an engine, then [`check`](Builder::check) from `cargo test`,
//! [`sweep`](Builder::sweep), [`run`](Builder::run), [`replay`](Builder::replay) or
//! [`shrink`](Builder::shrink).
//!
//! ```
//! use amnesia::{Builder, ChatStoreConfig, MemoryStore, RedisChatStore, Store, StoreContext};
//!
//! // Your store, built per client process from what amnesia hands it: a connector to
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
//! assert!(report.verdict.is_pass());
//! assert_eq!(report.trace.hash(), builder.run(42).trace.hash());
//!
//! // A buggy store fails, and its failure shrinks to a few operations.
//! let buggy = Builder::new().store(Store::named("write-behind").unwrap());
//! assert!(!buggy.run(1).verdict.is_pass());
//! ```
//!
//! amnesia needs tokio's seeded scheduler, which exists only under `--cfg
//! tokio_unstable`: a crate that depends on amnesia puts this in its
//! `.cargo/config.toml` (the build stops with this advice otherwise):
//!
//! ```toml
//! [build]
//! rustflags = ["--cfg", "tokio_unstable"]
//! ```

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

pub(crate) use internal::{
    buggify, builder, check, clock, connect, contract, domain, engine, model, plan, postgres,
    runner, task, trace, world,
};
// Hidden, and at the root only because its stores' log target is their module path
// (`amnesia::store::reference`), which `--log amnesia::store=debug` names.
#[doc(hidden)]
pub mod store;

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
    Backend, Context, Durability, MemoryAudit, MemoryStore, Policy, StoreContext, StoreError,
    StoreFactory, TtlPolicy,
};
pub use domain::{Memory, Message, Persistence, Role, SessionKey, Summary, UserKey};
pub use plan::{Plan, PlanError, ScenarioConfig};
pub use postgres::PgConnector;
#[cfg(feature = "real")]
pub use postgres::PgFuture;
pub use runner::shrink::{ShrinkError, Shrunk};
pub use runner::{EngineKind, LogFilter, RunReport, SeedRange, Snapshot, SweepReport};
pub use store::{decode_message, encode_message, escape_key_part, ChatStoreConfig, RedisChatStore};
pub use trace::{Trace, TraceEvent};

/// A sweep's parts: its configuration, each seed's result, the summary by class.
/// [`Builder::sweep`](crate::Builder::sweep) is the usual way in.
pub mod sweep {
    pub use crate::internal::runner::report::{ClassSeeds, Summary};
    pub use crate::internal::runner::seeds::Shard;
    pub use crate::internal::runner::sweep::{Replay, SeedResult, SeedStatus, SweepConfig};
}
