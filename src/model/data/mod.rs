//! The keyspace and its values (Redis's `db.c`, `object.c`, `expire.c`, `util.c`):
//! `keyspace` is one database (keys, values, TTLs, lazy and active expiry, the changes a
//! command made), `value` the value kinds (string, list, hash, set, sorted set), `glob`
//! Redis's pattern matching, `number` and `long_double` the numbers Redis reads and
//! prints. A new value kind or encoding goes in `value`.
//!
//! May import: `setup` (it needs nothing of the model today).

pub(crate) mod collections;
pub(crate) mod glob;
pub(crate) mod keyspace;
pub(crate) mod lfu;
pub(crate) mod long_double;
pub(crate) mod memory;
pub(crate) mod number;
pub(crate) mod value;
