//! What a command handler works with: its context [`Ctx`] (the node, the client, the time)
//! and what it leaves for the node to do after it returns: the effects to log
//! ([`Effects`]), a request to block ([`BlockRequest`]).

use crate::model::data::keyspace::Db;
use crate::model::protocol::client::ClientState;
use crate::model::state::node::Node;
use bytes::Bytes;

/// A blocking command's request to wait.
#[derive(Debug)]
pub(crate) struct BlockRequest {
    pub keys: Vec<Bytes>,
    pub deadline_ms: Option<u64>,
}

/// Everything a command handler may touch.
pub struct Ctx<'a> {
    pub node: &'a mut Node,
    pub client: &'a mut ClientState,
    pub now_ms: u64,
    /// What the append-only log records for this command: itself, unless the handler
    /// names the deterministic commands with its effect (SPOP logs SREM, as Redis does).
    pub(crate) effects: Effects,
    /// The command changed data no key change shows (SWAPDB): log it anyway.
    pub(crate) dirty: bool,
    /// A blocking command may block here (not inside MULTI, a script or a replay).
    pub(crate) may_block: bool,
    /// Set by a blocking command that found no data.
    pub(crate) block: Option<BlockRequest>,
}

/// What a command that modified data writes to the append-only log.
#[derive(Debug, Default)]
pub(crate) enum Effects {
    /// The command itself: replaying it at the same time reproduces its effect.
    #[default]
    Verbatim,
    /// These commands instead (none when the effect needs no replay).
    Replaced(Vec<Vec<Bytes>>),
}

impl Effects {
    /// The commands to log for `args`.
    pub(crate) fn commands(self, args: &[Bytes]) -> Vec<Vec<Bytes>> {
        match self {
            Effects::Verbatim => vec![args.to_vec()],
            Effects::Replaced(commands) => commands,
        }
    }
}

impl Ctx<'_> {
    /// The client's selected database.
    pub fn db(&mut self) -> &mut Db {
        let index = self.client.db;
        &mut self.node.dbs[index]
    }

    /// Log `commands` instead of the command being run (its effect, deterministically).
    pub(crate) fn propagate(&mut self, commands: Vec<Vec<Bytes>>) {
        self.effects = Effects::Replaced(commands);
    }

    /// The command changed data without changing a key (SWAPDB): it is logged anyway.
    pub(crate) fn mark_dirty(&mut self) {
        self.dirty = true;
    }
}

/// A command line of static words and arguments, for [`Ctx::propagate`].
pub(crate) fn command_line<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> Vec<Bytes> {
    parts.into_iter().map(Bytes::copy_from_slice).collect()
}
