//! PostgreSQL in a build without the `real` feature: there is no connector, so a store
//! context's `postgres` is always `None` (the simulator never runs a PostgreSQL).

/// The PostgreSQL connector of a build with the `real` feature; without it no value of
/// this type exists.
pub enum PgConnector {}
