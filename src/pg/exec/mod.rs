//! The exec room: one statement run or described against the database. `context` is the
//! statement's execution context (`Exec`: its transaction's view, parameters, undo log,
//! work bound) and the shapes every statement shares (rows, a row's frame, an outcome);
//! each other file adds `Exec`'s methods for one concern: `statement` dispatches (after
//! `fold` raised what PostgreSQL raises before reading a row),
//! `query` (with `cte`, `recursive`, `setop`, `lateral`, `distinct`, `unnest`, `aggregate`)
//! selects, `dml` (with `dml_join` for UPDATE … FROM and DELETE … USING, `dml_cte` for
//! data-modifying WITH) and `fk` write, `ddl`, `check`, `index` and `index_expr` define, `alter`,
//! `alter_column`, `alter_constraint` and `truncate` change a table's definition or
//! storage, `maintenance` accepts VACUUM and ANALYZE, `reindex` runs REINDEX and DROP INDEX
//! CONCURRENTLY, `expr` and `functions`
//! evaluate, `infer` types a statement without running it (`Describe`), `catalog`
//! answers the catalog queries clients send, `json_keys` refuses `json` as a key,
//! `pg_qsort` sorts ORDER BY's and a window's rows as PostgreSQL's quicksort does.
//!
//! May import: `sql`, `storage`, `types`, `vector`, `settings`, `error`. Inside, every
//! file imports `context` and none imports back up the statement's path: a query's
//! subquery is evaluated through `Exec`'s methods, not through a file's items.

pub(crate) mod aggregate;
pub(crate) mod aggregate_input;
pub(crate) mod alter;
pub(crate) mod alter_column;
pub(crate) mod alter_constraint;
pub(crate) mod analyze;
pub(crate) mod catalog;
pub(crate) mod check;
pub(crate) mod context;
pub(crate) mod create_as;
pub(crate) mod cte;
pub(crate) mod ddl;
pub(crate) mod distinct;
pub(crate) mod dml;
pub(crate) mod dml_cte;
pub(crate) mod dml_join;
pub(crate) mod expr;
pub(crate) mod fk;
pub(crate) mod fold;
pub(crate) mod functions;
pub(crate) mod hash_join;
pub(crate) mod index;
pub(crate) mod index_expr;
pub(crate) mod index_name;
pub(crate) mod infer;
pub(crate) mod json_keys;
pub(crate) mod keyed;
pub(crate) mod lateral;
pub(crate) mod maintenance;
pub(crate) mod pg_qsort;
pub(crate) mod query;
pub(crate) mod recursive;
pub(crate) mod reindex;
pub(crate) mod series;
pub(crate) mod setop;
pub(crate) mod statement;
pub(crate) mod string_syntax;
pub(crate) mod truncate;
pub(crate) mod unnest;
pub(crate) mod window;
pub(crate) mod window_frame;
