//! The CONFIG parameters a node keeps but does not act on (answered by CONFIG GET, set by
//! CONFIG SET in `commands::cmd::config`), and the persistence two of them ask for.

use crate::model::setup::config::Persistence;

/// The parameters' current values, for those the node's configuration does not hold.
#[derive(Clone, Debug, Default)]
pub(crate) struct InertParams {
    pub(crate) values: std::collections::BTreeMap<&'static str, String>,
}

impl InertParams {
    /// The values a node configured with `persistence` starts with.
    pub(crate) fn new(persistence: Persistence) -> Self {
        let mut values = std::collections::BTreeMap::new();
        let appendonly = persistence != Persistence::None;
        values.insert("appendonly", yes_no(appendonly).to_string());
        let always = persistence == Persistence::AofAlways;
        let fsync = if always { "always" } else { "everysec" };
        values.insert("appendfsync", fsync.to_string());
        Self { values }
    }
}

fn yes_no(flag: bool) -> &'static str {
    if flag {
        "yes"
    } else {
        "no"
    }
}

/// The persistence CONFIG's `appendonly` and `appendfsync` ask for. `appendfsync no`
/// (the OS flushes when it likes) is modelled as `everysec`.
pub(crate) fn persistence_of(params: &InertParams) -> Persistence {
    let get = |p: &'static str| params.values.get(p).map(String::as_str);
    let appendonly = get("appendonly") == Some("yes");
    let fsync_always = get("appendfsync") == Some("always");
    match (appendonly, fsync_always) {
        (false, _) => Persistence::None,
        (true, true) => Persistence::AofAlways,
        (true, false) => Persistence::AofEverysec,
    }
}
