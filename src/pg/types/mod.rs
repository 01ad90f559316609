//! The types room: every type's values, as PostgreSQL's `utils/adt` has them. A value and
//! its type (`value`: `Type`, `Value`, the sort order; `typed`: a value with its type,
//! casts and coercions), the text and binary forms (`text`, `binary`, `array_recv`),
//! and each type's own files: `datetime*` (date, timestamp, timestamptz), `interval*`
//! (its input; its output and arithmetic), `numeric*`, `encoding` (UTF8 text coming in),
//! `json*`/`jsonb*`, `uuid`, `tsearch`, `regtype`, `like`, the binary operators (`ops`),
//! `hash` (`hashtext`), and pgvector's SQL functions (`vector_fn`).
//!
//! May import: `vector` (pgvector's value and distances), `settings`, `error`. A new type
//! gets its own file here (its I/O, operators, functions); a new function on values goes
//! beside its type, and is dispatched by name from `exec/functions.rs`.

pub(crate) mod array_recv;
pub(crate) mod array_text;
pub(crate) mod binary;
pub(crate) mod bit;
pub(crate) mod bit_fn;
pub(crate) mod builtin_names;
pub(crate) mod cast;
pub(crate) mod datetime;
pub(crate) mod datetime_cast;
pub(crate) mod datetime_fn;
pub(crate) mod datetime_ops;
pub(crate) mod encoding;
pub(crate) mod hash;
pub(crate) mod interval;
pub(crate) mod interval_iso;
pub(crate) mod interval_ops;
pub(crate) mod interval_parts;
pub(crate) mod json;
pub(crate) mod json_agg;
pub(crate) mod json_build;
pub(crate) mod json_number;
pub(crate) mod json_time;
pub(crate) mod jsonb;
pub(crate) mod jsonb_build;
pub(crate) mod jsonb_ops;
pub(crate) mod jsonb_parse;
pub(crate) mod jsonb_path;
pub(crate) mod like;
pub(crate) mod numeric;
pub(crate) mod numeric_cast;
pub(crate) mod numeric_fn;
pub(crate) mod ops;
pub(crate) mod pg_type;
pub(crate) mod regtype;
pub(crate) mod select_common;
pub(crate) mod text;
pub(crate) mod text_fn;
pub(crate) mod tsearch;
pub(crate) mod tsearch_fn;
pub(crate) mod uuid;
pub(crate) mod value;
pub(crate) mod vector_fn;
