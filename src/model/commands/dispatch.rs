//! Running one command's handler (Redis's `call`): the handler's context is built, the
//! table's handler runs, its result is flattened into what the caller needs. The node runs
//! requests through here, and so do EXEC (its queue) and a script's `redis.call`: the
//! dispatch circle (see `commands`).

use crate::model::commands::table::Command;
use crate::model::protocol::client::ClientState;
use crate::model::protocol::reply::Reply;
use crate::model::state::ctx::{BlockRequest, Ctx, Effects};
use crate::model::state::node::Node;
use bytes::Bytes;

/// What running one command's handler produced.
pub(crate) struct Ran {
    pub reply: Reply,
    pub effects: Effects,
    /// See [`Ctx::mark_dirty`].
    pub dirty: bool,
    pub block: Option<BlockRequest>,
}

impl Node {
    /// Run a command's handler, flattening its result. A blocking command does not
    /// block (MULTI, scripts, replay).
    pub(crate) fn run(
        &mut self,
        command: &Command,
        client: &mut ClientState,
        args: &[Bytes],
        now_ms: u64,
    ) -> Ran {
        self.run_with(command, client, args, now_ms, false)
    }

    pub(crate) fn run_with(
        &mut self,
        command: &Command,
        client: &mut ClientState,
        args: &[Bytes],
        now_ms: u64,
        may_block: bool,
    ) -> Ran {
        // Redis 7.2's `lookupKey`: the current client's NO-TOUCH spares keys' access
        // times, but for TOUCH itself (a TOUCH inside EXEC touches; one in a script, whose
        // current client ran EVAL, does not: the script's own client never sets this).
        let touch_before = client.no_touch.then(|| {
            let untouched = command.name != "touch";
            let before: Vec<bool> = self.dbs.iter().map(|db| db.untouched).collect();
            self.dbs.iter_mut().for_each(|db| db.untouched = untouched);
            before
        });
        let mut ctx = Ctx {
            node: self,
            client,
            now_ms,
            effects: Effects::Verbatim,
            dirty: false,
            may_block,
            block: None,
        };
        let reply = match (command.handler)(&mut ctx, args) {
            Ok(reply) | Err(reply) => reply,
        };
        let ran = Ran {
            reply,
            effects: ctx.effects,
            dirty: ctx.dirty,
            block: ctx.block,
        };
        if let Some(before) = touch_before {
            self.dbs
                .iter_mut()
                .zip(before)
                .for_each(|(db, untouched)| db.untouched = untouched);
        }
        ran
    }
}
