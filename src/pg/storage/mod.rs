//! The storage room: what the database keeps. Transactions, the commit log, snapshots and
//! the WAL's flush point (`txn`); tables and their heap of row versions with MVCC
//! visibility (`heap`), a version and its row locks (`version`), the heap's versions with
//! their unique keys' index and pruning (`versions`, `keys`); the database itself with its advisory locks and waits, and the
//! undo log of a statement's writes (`db`); a table's vector index structure and its
//! scan (`vector_index`).
//!
//! May import: `types`, `vector`, `settings`, `error`. Nothing here reads SQL.

pub(crate) mod db;
pub(crate) mod heap;
pub(crate) mod keys;
pub(crate) mod schema;
pub(crate) mod txn;
pub(crate) mod vector_index;
pub(crate) mod version;
pub(crate) mod versions;
