//! Steps over N connections to one target, with a lock wait made visible.
//!
//! The rule, the same for every target: a step is sent on its connection and given
//! [`Waits::blocked_ms`] of real time to reply; no reply makes it Blocked, and the
//! statement stays pending on its connection. A later step on a connection with a pending
//! statement first waits up to [`Waits::busy_ms`] for it (past PostgreSQL's 1 s
//! `deadlock_timeout`); if it is still pending the step is queued behind it (the wire runs
//! a connection's statements in order) and is Blocked too. After a step that can release
//! a lock (COMMIT, ROLLBACK, END, ABORT, `pg_advisory_unlock`) replies, every other
//! connection's pending statement gets [`Waits::blocked_ms`] to complete. A pending
//! statement's reply, whenever it arrives, is recorded as its step's `later` outcome.
//! When the steps end, each pending statement gets [`Waits::busy_ms`] to complete.

use super::outcome::{Observed, Reply};
use super::target::{Endpoint, Target};
use super::wire::Wire;
use super::Step;
use std::time::Duration;
use tokio::task::JoinHandle;

/// The real-time waits of the rule above.
#[derive(Clone, Copy, Debug)]
pub struct Waits {
    pub blocked_ms: u64,
    pub busy_ms: u64,
}

/// The waits the test uses.
pub const WAITS: Waits = Waits {
    blocked_ms: 300,
    busy_ms: 2_000,
};

/// A connection's statements in flight: the connection back (unless it broke) and each
/// finished step's reply.
type Done = (Option<Wire>, Vec<(usize, Reply)>);

enum Slot {
    Idle(Wire),
    Busy(JoinHandle<Done>),
    Gone,
}

/// One target's connections and what each step did on it.
pub struct Session {
    /// The database the connections are to.
    #[allow(dead_code)] // read by `Pair::discard`, the fuzzer's
    pub endpoint: Endpoint,
    slots: Vec<Slot>,
    observed: Vec<Option<Observed>>,
    waits: Waits,
}

impl Session {
    /// `connections` connections to a fresh, empty database of `target`.
    pub async fn open(
        target: &dyn Target,
        connections: usize,
        waits: Waits,
    ) -> Result<Session, String> {
        let endpoint = target.fresh().await?;
        let Endpoint { address, database } = endpoint.clone();
        let mut slots = Vec::with_capacity(connections);
        for _ in 0..connections {
            let wire = Wire::connect(address, amnesia::internal::postgres::PG_USER, &database)
                .await
                .map_err(|e| format!("{}: {e}", target.name()))?;
            slots.push(Slot::Idle(wire));
        }
        Ok(Session {
            endpoint,
            slots,
            observed: Vec::new(),
            waits,
        })
    }

    /// Run step `index` by the rule of the module's documentation.
    pub async fn run(&mut self, index: usize, step: &Step) {
        let conn = step.conn - 1;
        self.settle(conn, self.waits.busy_ms).await;
        let handle = match std::mem::replace(&mut self.slots[conn], Slot::Gone) {
            Slot::Idle(wire) => tokio::spawn(send(wire, index, step.clone())),
            Slot::Busy(previous) => tokio::spawn(queue(previous, index, step.clone())),
            Slot::Gone => {
                self.record(index, Reply::broken("the connection is gone".into()));
                return;
            }
        };
        self.slots[conn] = Slot::Busy(handle);
        self.settle(conn, self.waits.blocked_ms).await;
        if matches!(self.slots[conn], Slot::Busy(_)) {
            self.record(index, Reply::blocked());
        } else if releases(&step.sql) {
            for other in (0..self.slots.len()).filter(|&other| other != conn) {
                self.settle(other, self.waits.blocked_ms).await;
            }
        }
    }

    /// Give the pending statements `busy_ms` each, then return every step's observation.
    pub async fn finish(mut self) -> Vec<Option<Observed>> {
        for conn in 0..self.slots.len() {
            self.settle(conn, self.waits.busy_ms).await;
        }
        self.observed
    }

    /// Step `index`'s observation so far (its first reply, and its completion if any).
    pub fn observed(&self, index: usize) -> Option<&Observed> {
        self.observed.get(index).and_then(Option::as_ref)
    }

    /// Which connections have a statement pending.
    pub fn blocked(&self) -> Vec<bool> {
        let busy = |slot: &Slot| matches!(slot, Slot::Busy(_));
        self.slots.iter().map(busy).collect()
    }

    /// Wait up to `wait_ms` for connection `conn`'s pending statements, if any.
    async fn settle(&mut self, conn: usize, wait_ms: u64) {
        let Slot::Busy(handle) = &mut self.slots[conn] else {
            return;
        };
        let Ok(joined) = tokio::time::timeout(Duration::from_millis(wait_ms), handle).await else {
            return;
        };
        let (wire, replies) = joined.expect("a statement's task never panics");
        self.slots[conn] = wire.map_or(Slot::Gone, Slot::Idle);
        for (index, reply) in replies {
            self.record(index, reply);
        }
    }

    fn record(&mut self, index: usize, reply: Reply) {
        if self.observed.len() <= index {
            self.observed.resize(index + 1, None);
        }
        match &mut self.observed[index] {
            Some(observed) => observed.later = Some(reply),
            empty => {
                *empty = Some(Observed {
                    first: reply,
                    later: None,
                })
            }
        }
    }
}

/// Run one step on `wire`.
async fn send(mut wire: Wire, index: usize, step: Step) -> Done {
    let reply = match &step.params {
        None => wire.simple(&step.sql).await,
        Some(params) => wire.extended(&step.sql, params, step.declared).await,
    };
    match reply {
        Ok(reply) => (Some(wire), vec![(index, reply.normalised(&step.sql))]),
        Err(why) => (None, vec![(index, Reply::broken(why))]),
    }
}

/// Run one step after the pending statements of `previous`.
async fn queue(previous: JoinHandle<Done>, index: usize, step: Step) -> Done {
    let (wire, mut replies) = previous.await.expect("a statement's task never panics");
    let Some(wire) = wire else {
        replies.push((index, Reply::broken("the connection is gone".into())));
        return (None, replies);
    };
    let (wire, mine) = send(wire, index, step).await;
    replies.extend(mine);
    (wire, replies)
}

/// Whether a statement can release a lock another connection waits on.
fn releases(sql: &str) -> bool {
    let upper = sql.trim_start().to_ascii_uppercase();
    ["COMMIT", "ROLLBACK", "END", "ABORT"]
        .iter()
        .any(|word| upper.starts_with(word))
        || upper.contains("PG_ADVISORY_UNLOCK")
}
