//! The sql room: a query string parsed as PostgreSQL's dialect (`parse`, bounded), and
//! the syntax tree's vocabulary the executor and the session read: names folded as
//! PostgreSQL folds them, SQL type spellings made types (`names`), and the FROM items a
//! column reference resolves among (`scope`).
//!
//! May import: `types`, `vector`, `error`.

pub(crate) mod maintenance;
pub(crate) mod names;
pub(crate) mod parse;
pub(crate) mod scope;
