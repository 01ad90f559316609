//! What survives a restart (Redis's `aof.c`, `rdb.c`): `aof` keeps the append-only log of
//! applied writes, flushed per the configured policy and compacted into a snapshot, and
//! says what a crash at any moment would keep (`Durable`). The replay on restart runs
//! commands, so it lives with the execution (`server::execute`).
//!
//! May import: `data`, `setup`.

pub(crate) mod aof;
