//! amnesia's model of PostgreSQL (with pgvector 0.8): a deterministic server that runs on
//! the simulator's network and clock, reached by unmodified clients (tokio-postgres, sqlx)
//! over the wire protocol, as `src/model/` is for Redis. It parses with `sqlparser`
//! (PostgreSQL dialect), frames with `pgwire`, and executes a subset of SQL (README lists
//! it) over in-memory MVCC tables: READ COMMITTED and REPEATABLE READ, row locks that
//! wait on virtual time and re-check a changed row, unique and foreign keys, advisory
//! locks, deadlock detection after `deadlock_timeout`, `synchronous_commit` and what a
//! crash loses. Anything outside the subset is refused with PostgreSQL's error class.
//!
//! # Rooms, in the order a statement travels
//!
//! Each room imports only the rooms below it (`sim-tests/layers.rs` holds the list and
//! fails on an import up, and on a cycle between the files of a room):
//!
//! | room | owns | PostgreSQL's part |
//! |---|---|---|
//! | `wire` | the protocol: startup, simple and extended queries, cancel, the TCP listener | `tcop/postgres.c`, `libpq/` |
//! | `server` | the database under its lock, backends, waits and deadlocks, crash and WAL flush | `postmaster/`, `storage/lmgr/` (the waits) |
//! | `session` | a connection's transaction block, savepoints, `SET`/`SHOW`, a statement's dispatch | `access/transam/xact.c`, `tcop/utility.c` |
//! | `exec` | running and describing statements: queries, DML, DDL, expressions, aggregates, CTEs, foreign keys, the catalog queries, type inference | `executor/`, `optimizer/` (the vector index rule), `commands/`, `parser/parse_*` (types of parameters) |
//! | `sql` | the parser and the syntax tree's names: identifiers, object names, SQL types, the FROM items in scope | `parser/` (the grammar is `sqlparser`'s) |
//! | `storage` | the heap of row versions, transactions and snapshots, the database's tables and advisory locks, the undo log, vector index structures | `access/heap/`, `access/transam/`, `storage/` |
//! | `types` | every type's values: text and binary I/O, casts, operators and functions (numeric, json/jsonb, uuid, tsearch, regtype, timestamps, arrays, `LIKE`, pgvector's functions) | `utils/adt/`, `parser/parse_coerce.c` |
//! | `vector` | pgvector's `vector` (I/O, distances) and its indexes' structures, HNSW and IVFFlat, with no SQL in them | pgvector's `src/` |
//! | `settings`, `error` | the floor: run-time settings and the server's version; SQLSTATEs and errors | `utils/misc/guc.c`, `utils/errcodes.h` |
//!
//! The executor interprets `sqlparser`'s tree directly (there is no plan tree), so `sql`
//! sits beneath `exec` as the vocabulary both read, not above it as a separate pass.

pub(crate) mod admin;
pub(crate) mod error;
pub(crate) mod exec;
pub(crate) mod server;
pub(crate) mod session;
pub(crate) mod settings;
pub(crate) mod sql;
pub(crate) mod storage;
pub(crate) mod types;
pub(crate) mod vector;
pub(crate) mod wire;

pub(crate) use server::{PgModel, WAL_WRITER_DELAY_MS};
pub use wire::serve_tcp;

/// The OIDs the model gives pgvector's `vector`, `halfvec`, `sparsevec` and their arrays (a real server
/// assigns its own at `CREATE EXTENSION`): what a comparison with a real server maps them
/// to.
pub const EXTENSION_TYPE_OIDS: [(&str, u32); 6] = [
    ("vector", types::pg_type::VECTOR_OID),
    ("_vector", types::pg_type::VECTOR_ARRAY_OID),
    ("halfvec", types::pg_type::HALFVEC_OID),
    ("_halfvec", types::pg_type::HALFVEC_ARRAY_OID),
    ("sparsevec", types::pg_type::SPARSEVEC_OID),
    ("_sparsevec", types::pg_type::SPARSEVEC_ARRAY_OID),
];
