//! Buggy variants of the reference store, one file per bug class of DESIGN.md's catalogue.
//! Each is an honest rendition of a bug real memory stores shipped.

pub mod write_behind;
