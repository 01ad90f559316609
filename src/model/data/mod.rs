//! Data.

pub(crate) mod glob;
pub(crate) mod keyspace;
pub(crate) mod long_double;
pub(crate) mod number;
pub(crate) mod value;
