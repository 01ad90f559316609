//! pgvector's two dense vector types, `vector` (`f32` elements) and `halfvec` (IEEE half
//! elements, `half.rs`): one set of functions (`value.rs`) serves both, told apart by
//! [`Kind`] where pgvector's two C files differ: the type's name in every message, how
//! an element is stored, and its width on the wire. A halfvec's elements are kept as the
//! `f32`s they widen to, so distances, order and text output are the same code.

use crate::pg::vector::half;

/// Which of pgvector's dense types a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `vector`: `f32` elements (`src/vector.c`).
    Vector,
    /// `halfvec`: half-precision elements (`src/halfvec.c`).
    Halfvec,
}

impl Kind {
    /// The type's name, as pgvector's messages spell it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Vector => "vector",
            Kind::Halfvec => "halfvec",
        }
    }

    /// An `f32` as the type stores it: as is, or rounded to the nearest half (which may
    /// be an infinity: the caller checks, as pgvector does, with its own message).
    pub(crate) fn store(self, value: f32) -> f32 {
        match self {
            Kind::Vector => value,
            Kind::Halfvec => half::round(value),
        }
    }

    /// The bytes one element takes in the binary form.
    pub(crate) fn element_bytes(self) -> usize {
        match self {
            Kind::Vector => 4,
            Kind::Halfvec => 2,
        }
    }
}
