//! The model reads time through amnesia's host [`Clock`](crate::clock::Clock).

pub use crate::clock::Clock as ModelClock;
