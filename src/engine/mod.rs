//! The simulation engines: each runs the shared world ([`crate::world`]) on its own
//! executor and clock, and depends on the world alone, never on another engine.
//!
//! - [`event`]: a paused, seeded tokio runtime (the default);
//! - `turmoil`: turmoil's hosts and network (feature `turmoil`);
//! - `madsim`: madsim's seeded executor (`--cfg madsim` builds).

pub mod event;
#[cfg(madsim)]
pub mod madsim;
#[cfg(feature = "turmoil")]
pub mod turmoil;
