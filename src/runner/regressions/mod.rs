//! The regression corpus: each new failing seed of a check or a sweep, kept in the
//! user's repository (`amnesia-regressions/<test or store>.txt`, proptest's
//! `proptest-regressions/` convention) and replayed before the seed range on every later
//! run, so that a fixed bug that comes back is caught by the seed that found it, not by a
//! lucky sweep. [`file`](mod@file) is the file (format, merge, write), [`replay`](mod@replay)
//! replays it.

pub mod file;
pub mod replay;

pub use file::{entries_of, Corpus, CorpusError, Entry, DIR_DEFAULT};
pub use replay::{replay, Reach, Replayed};
