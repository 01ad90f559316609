//! amnesia's own modules, reached by its binary, its tests, its benchmark and its fuzzers:
//! not a stable interface, hidden from the documentation. A user names what the crate root
//! re-exports (and the `history`, `coverage`, `sweep`, `buggify`, `sometimes`, `real` and
//! `turmoil` modules); everything here
//! may move between releases. ARCHITECTURE.md says which module holds what and who may
//! import whom.

#[path = "builder/mod.rs"]
pub mod builder;
#[path = "check/mod.rs"]
pub mod check;
#[path = "clock.rs"]
pub mod clock;
#[path = "connect.rs"]
pub mod connect;
#[path = "contract.rs"]
pub mod contract;
#[path = "domain.rs"]
pub mod domain;
#[path = "embed.rs"]
pub(crate) mod embed;
#[path = "engine/mod.rs"]
pub mod engine;
// The Redis model's items are its command handlers and wire details, documented per
// module (see `model`'s own docs); its entry points are `Model` and `ModelConfig`.
#[allow(missing_docs)]
#[path = "model/mod.rs"]
pub mod model;
/// amnesia's model of PostgreSQL with pgvector.
#[cfg(feature = "pg")]
#[path = "pg/mod.rs"]
pub mod pg;
#[cfg(feature = "pg")]
#[path = "pg_audit.rs"]
pub mod pg_audit;
#[path = "plan/mod.rs"]
pub mod plan;
#[cfg(feature = "pg")]
#[path = "postgres.rs"]
pub mod postgres;
#[cfg(not(feature = "pg"))]
#[path = "postgres_absent.rs"]
pub mod postgres;
// A local PostgreSQL server for the PostgreSQL differential test.
#[cfg(feature = "real")]
#[path = "real/pgdiff.rs"]
pub mod pgdiff;
#[path = "runner/mod.rs"]
pub mod runner;
#[path = "world/mod.rs"]
pub mod world;
// The built-in stores stay at the crate root (`amnesia::store`, hidden): their log lines'
// target is their module path, which `--log amnesia::store=debug` filters on.
pub use crate::store;
#[path = "model_panic.rs"]
pub(crate) mod model_panic;
#[path = "task.rs"]
pub(crate) mod task;
#[path = "trace.rs"]
pub mod trace;
