//! State.

pub(crate) mod blocked;
pub(crate) mod ctx;
pub(crate) mod node;
pub(crate) mod rand48;
pub(crate) mod script_cache;
pub(crate) mod watch;
