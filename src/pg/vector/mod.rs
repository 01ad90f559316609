//! The vector room: pgvector's dense types, `vector` and `halfvec` (`kind`; `half`: IEEE
//! half precision), its sparse one (`sparse`: `sparsevec`), as pure functions (`value`: text and binary forms, arithmetic,
//! distances, dimensions, with pgvector's own messages) and its approximate
//! nearest-neighbour indexes (`ann`: HNSW and IVFFlat, built insert by insert). Nothing
//! here knows SQL: the types room calls the I/O and distances, the storage room keeps the
//! index structures, the executor plans their scans.
//!
//! May import: `error` only.

pub(crate) mod ann;
pub(crate) mod half;
pub(crate) mod kind;
pub(crate) mod sparse;
pub(crate) mod value;
