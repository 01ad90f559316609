//! The recorder: every invocation and completion of an operation, into the history and,
//! as one line each, into the trace; and the facts the world observed (restarts).

use crate::domain::Message;
use crate::history::{History, Op, OpKind, OpValue, Outcome};
use crate::trace::Trace;
use crate::world::clock::WorldClock;
use crate::world::host::client_host_name;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// Message ids shown per read in the trace before eliding.
const TRACE_IDS_MAX: usize = 24;

/// Records operations as they are invoked and completed. Cloning shares it.
#[derive(Clone)]
pub struct Recorder {
    history: Arc<Mutex<History>>,
    clock: WorldClock,
    trace: Trace,
}

impl Recorder {
    pub fn new(clock: WorldClock, trace: Trace) -> Self {
        Self {
            history: Arc::new(Mutex::new(History::new())),
            clock,
            trace,
        }
    }

    pub(crate) fn invoke(&self, client: u32, kind: OpKind) -> usize {
        let invoke_us = self.clock.now_us();
        let mut history = self.history.lock().expect("never poisoned");
        let index = history.ops.len();
        let mut text = String::with_capacity(64);
        let _ = write!(text, "invoke #{index} ");
        describe(&mut text, &kind);
        self.trace.record(invoke_us, client_host_name(client), text);
        history.ops.push(Op {
            index,
            client,
            kind,
            invoke_us,
            complete_us: None,
            outcome: Outcome::Pending,
        });
        index
    }

    pub(crate) fn complete(&self, index: usize, outcome: Outcome) {
        let complete_us = self.clock.now_us();
        let mut history = self.history.lock().expect("never poisoned");
        let op = &mut history.ops[index];
        assert!(op.complete_us.is_none(), "an operation completes once");
        let mut text = String::with_capacity(64);
        let _ = write!(text, "{} #{index} ", outcome_word(&outcome));
        describe_outcome(&mut text, &outcome);
        self.trace
            .record(complete_us, client_host_name(op.client), text);
        op.complete_us = Some(complete_us);
        op.outcome = outcome;
    }

    /// Record a Redis restart the world observed.
    pub fn restart(&self, restart: crate::history::Restart) {
        self.history
            .lock()
            .expect("never poisoned")
            .push_restart(restart);
    }

    #[cfg(feature = "turmoil")]
    /// A copy of the history so far.
    pub fn history(&self) -> History {
        self.history.lock().expect("never poisoned").clone()
    }

    /// How many operations were invoked so far.
    #[cfg(feature = "real")]
    pub(crate) fn operations(&self) -> usize {
        self.history.lock().expect("never poisoned").ops.len()
    }

    /// The history so far, moved out: the world has ended and records nothing more.
    pub fn take_history(&self) -> History {
        std::mem::take(&mut *self.history.lock().expect("never poisoned"))
    }
}

/// `append t1/s0 m3 (36B)`: an operation as the timeline shows it, appended to `text`.
pub(crate) fn describe(text: &mut String, kind: &OpKind) {
    let _ = match kind {
        OpKind::Append { session, msg } => {
            write!(text, "append {session} {} ({}B)", msg.id, msg.content.len())
        }
        OpKind::Context { session, limit } => write!(text, "context {session} limit={limit}"),
        OpKind::Clear { session } => write!(text, "clear {session}"),
        OpKind::Delete { session, id } => write!(text, "delete {session} {id}"),
        OpKind::Remember { user, memory } => write!(text, "remember {user} {}", memory.id),
        OpKind::UpdateMemory { user, memory } => write!(text, "update {user} {}", memory.id),
        OpKind::Forget { user, id } => write!(text, "forget {user} {id}"),
        OpKind::Recall { user, k, .. } => write!(text, "recall {user} k={k}"),
    };
}

pub(crate) fn outcome_word(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Ok(_) => "ok",
        Outcome::Fail(_) => "fail",
        Outcome::Unknown(_) => "unknown",
        Outcome::Pending => "pending",
    }
}

/// What an operation returned, as the timeline shows it, appended to `text`.
pub(crate) fn describe_outcome(text: &mut String, outcome: &Outcome) {
    match outcome {
        Outcome::Ok(OpValue::None) | Outcome::Pending => {}
        Outcome::Ok(OpValue::Summarized { summary, messages }) => {
            let _ = write!(text, "summary of {} ", summary.folded_ids.len());
            describe_messages(text, messages);
        }
        Outcome::Ok(OpValue::Messages(messages)) => describe_messages(text, messages),
        Outcome::Ok(OpValue::Memories(memories)) => {
            let _ = write!(text, "{} memories", memories.len());
        }
        Outcome::Fail(reason) | Outcome::Unknown(reason) => text.push_str(reason),
    }
}

/// `[m1 m2 …]`: the ids of a read, elided past [`TRACE_IDS_MAX`].
fn describe_messages(text: &mut String, messages: &[Message]) {
    text.push('[');
    for (nth, message) in messages.iter().take(TRACE_IDS_MAX).enumerate() {
        if nth > 0 {
            text.push(' ');
        }
        text.push_str(&message.id);
    }
    if messages.len() > TRACE_IDS_MAX {
        text.push_str(" …");
    }
    text.push(']');
}
