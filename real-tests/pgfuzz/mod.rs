//! The PostgreSQL model's fuzzer (issue 51): a seeded statement generator over the
//! grammar the model claims (`generate`), statements as trees a shrink can take apart
//! (`ast`), checks that need no reference (`metamorphic`: TLP and NoREC, against the model
//! alone, in the simulator's tier) and the differential mode against real PostgreSQL
//! (`differential`: refusals counted apart, a finding minimised into a pinned case's form).
//!
//! It lives with the tests rather than in `src/` behind a feature: it tests the model, it
//! is nothing a store author runs, and its differential half needs the harness of
//! `real-tests/pgdiff/` (the wire client, the comparison, the local PostgreSQL) that the
//! library does not ship. `sim-tests/pg_fuzz.rs` runs the metamorphic checks,
//! `real-tests/pg_fuzz.rs` the differential's short run and its long run (a documented
//! command, its figures printed as it goes).

pub mod ast;
pub mod differential;
pub mod generate;
pub mod metamorphic;
