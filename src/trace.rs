//! The trace: every event of a run in order, stamped with virtual time and the host it
//! happened on. Its hash is the determinism fingerprint (same seed → same trace bytes);
//! its text is the timeline a user reads when debugging a seed.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// Events kept per run; past this the trace records that it overflowed and stops growing.
pub const TRACE_EVENTS_MAX: usize = 1_000_000;

/// One event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// Virtual microseconds since the world started.
    pub at_us: u64,
    /// `redis`, `client-0`, `driver`, `net`, ...
    pub host: String,
    pub text: String,
    /// Network-level detail (bytes on the wire), shown only in the full timeline.
    pub detail: bool,
    /// A log event of the code under test (`tracing`, filtered by `RUST_LOG`): shown in
    /// the timeline, left out of the hash so a log filter never changes the fingerprint.
    #[serde(default)]
    pub log: bool,
}

/// An append-only, shareable event log. Cloning shares it.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    events: Arc<Mutex<Vec<TraceEvent>>>,
}

impl Trace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Record an operation-level event (ops, faults, connections).
    pub fn record(&self, at_us: u64, host: impl Into<String>, text: impl Into<String>) {
        self.push(TraceEvent {
            at_us,
            host: host.into(),
            text: text.into(),
            detail: false,
            log: false,
        });
    }

    /// Record a log event of the code under test (see [`TraceEvent::log`]).
    pub fn record_log(&self, at_us: u64, host: impl Into<String>, text: impl Into<String>) {
        self.push(TraceEvent {
            at_us,
            host: host.into(),
            text: text.into(),
            detail: false,
            log: true,
        });
    }

    /// Record a network-level event (a chunk delivered).
    pub fn record_detail(&self, at_us: u64, host: impl Into<String>, text: impl Into<String>) {
        self.push(TraceEvent {
            at_us,
            host: host.into(),
            text: text.into(),
            detail: true,
            log: false,
        });
    }

    fn push(&self, event: TraceEvent) {
        let mut events = self.events.lock().expect("never poisoned");
        if events.len() < TRACE_EVENTS_MAX {
            events.push(event);
        } else if events.len() == TRACE_EVENTS_MAX {
            let text = "trace full: later events dropped".to_string();
            events.push(TraceEvent {
                at_us: event.at_us,
                host: "trace".into(),
                text,
                detail: false,
                log: false,
            });
        }
    }

    pub fn events(&self) -> Vec<TraceEvent> {
        self.events.lock().expect("never poisoned").clone()
    }

    pub fn len(&self) -> usize {
        self.events.lock().expect("never poisoned").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The full timeline: one line per event, network detail included.
    pub fn timeline(&self) -> String {
        self.render(true)
    }

    /// The operation-level timeline: ops, faults and connections, without wire detail.
    pub fn summary_timeline(&self) -> String {
        self.render(false)
    }

    fn render(&self, with_detail: bool) -> String {
        let events = self.events.lock().expect("never poisoned");
        let mut out = String::with_capacity(events.len() * 64);
        for event in events.iter().filter(|event| with_detail || !event.detail) {
            let _ = writeln!(out, "{}", format_event(event));
        }
        out
    }

    /// FNV-1a over the full timeline's bytes, log events excepted: equal for equal
    /// traces, in any process, whatever `RUST_LOG` shows.
    pub fn hash(&self) -> u64 {
        let events = self.events.lock().expect("never poisoned");
        let mut hash = FNV_OFFSET;
        for event in events.iter().filter(|event| !event.log) {
            hash = fnv1a_from(hash, format_event(event).as_bytes());
            hash = fnv1a_from(hash, b"\n");
        }
        hash
    }
}

/// `[  12.345678s] client-1   text`
pub fn format_event(event: &TraceEvent) -> String {
    let seconds = event.at_us / 1_000_000;
    let micros = event.at_us % 1_000_000;
    format!(
        "[{seconds:>4}.{micros:06}s] {:<9} {}",
        event.host, event.text
    )
}

/// 64-bit FNV-1a: tiny, stable across platforms and processes.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(FNV_OFFSET, bytes)
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a continued from `hash` over `bytes`.
fn fnv1a_from(hash: u64, bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(hash, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_and_hash_follow_the_events() {
        let trace = Trace::new();
        trace.record(1_500_000, "client-0", "invoke #0 append");
        assert_eq!(
            trace.timeline(),
            "[   1.500000s] client-0  invoke #0 append\n"
        );
        let other = Trace::new();
        other.record(1_500_001, "client-0", "invoke #0 append");
        assert_ne!(trace.hash(), other.hash());
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(trace.hash(), fnv1a(trace.timeline().as_bytes()));
        let hash = trace.hash();
        trace.record_log(1_600_000, "client-0", "log DEBUG store: append");
        assert_eq!(trace.hash(), hash, "log events stay out of the hash");
        assert!(trace.timeline().contains("log DEBUG"));
    }
}
