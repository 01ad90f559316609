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
    /// What happened, as one line of the timeline.
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
    events: Arc<Mutex<Vec<Stored>>>,
}

/// Bytes that crossed the simulated network, kept raw: a run delivers thousands of chunks
/// and nearly every trace is only hashed, so the readable preview is rendered only when
/// the text is asked for ([`Trace::events`], the timelines). `render` is a pure function
/// of the other fields, so the text is the same whenever it is rendered.
#[derive(Clone)]
pub struct Chunk {
    /// When the bytes were written; the event's own time is their delivery. Not hashed:
    /// the delivery time and the bytes already fix the execution.
    pub sent_us: u64,
    /// The connection's number on its link.
    pub conn: u64,
    /// Which way the bytes went (0: to Redis, 1: from Redis).
    pub flow: u8,
    pub bytes: bytes::Bytes,
    pub render: fn(&Chunk) -> String,
}

impl std::fmt::Debug for Chunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&(self.render)(self))
    }
}

/// One chunk's trip over a client's link, for the page's arrows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The client whose link it crossed (`client-0`, ...).
    pub host: String,
    /// When it was written, in virtual microseconds.
    pub sent_us: u64,
    /// When it was read at the far end.
    pub delivered_us: u64,
    /// Towards Redis (a command), or back (a reply).
    pub to_redis: bool,
    /// The bytes as the full timeline shows them.
    pub text: String,
}

/// An event as the trace keeps it: its text, or a chunk still to be rendered.
#[derive(Clone, Debug)]
struct Stored {
    at_us: u64,
    host: String,
    body: Body,
    detail: bool,
    log: bool,
}

#[derive(Clone, Debug)]
enum Body {
    Text(String),
    Chunk(Chunk),
}

impl Stored {
    fn event(&self) -> TraceEvent {
        TraceEvent {
            at_us: self.at_us,
            host: self.host.clone(),
            text: match &self.body {
                Body::Text(text) => text.clone(),
                Body::Chunk(chunk) => (chunk.render)(chunk),
            },
            detail: self.detail,
            log: self.log,
        }
    }

    /// FNV-1a continued over the event's canonical encoding: every field, each variable
    /// length one prefixed with its length, so two different events never encode alike.
    fn hash_into(&self, mut hash: u64) -> u64 {
        hash = mix_words(hash, &self.at_us.to_le_bytes());
        hash = mix_words(hash, &(self.host.len() as u64).to_le_bytes());
        hash = mix_words(hash, self.host.as_bytes());
        hash = mix_words(hash, &[u8::from(self.detail)]);
        match &self.body {
            Body::Text(text) => {
                hash = mix_words(hash, &[0]);
                hash = mix_words(hash, &(text.len() as u64).to_le_bytes());
                mix_words(hash, text.as_bytes())
            }
            Body::Chunk(chunk) => {
                hash = mix_words(hash, &[1, chunk.flow]);
                hash = mix_words(hash, &chunk.conn.to_le_bytes());
                hash = mix_words(hash, &(chunk.bytes.len() as u64).to_le_bytes());
                mix_words(hash, &chunk.bytes)
            }
        }
    }
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record an operation-level event (ops, faults, connections).
    pub fn record(&self, at_us: u64, host: impl Into<String>, text: impl Into<String>) {
        self.push(Stored {
            at_us,
            host: host.into(),
            body: Body::Text(text.into()),
            detail: false,
            log: false,
        });
    }

    /// Record a log event of the code under test (see [`TraceEvent::log`]).
    pub fn record_log(&self, at_us: u64, host: impl Into<String>, text: impl Into<String>) {
        self.push(Stored {
            at_us,
            host: host.into(),
            body: Body::Text(text.into()),
            detail: false,
            log: true,
        });
    }

    /// Record a network-level event (a chunk delivered).
    pub fn record_detail(&self, at_us: u64, host: impl Into<String>, text: impl Into<String>) {
        self.push(Stored {
            at_us,
            host: host.into(),
            body: Body::Text(text.into()),
            detail: true,
            log: false,
        });
    }

    /// Record a chunk delivered on the network, raw; its text is rendered on demand.
    pub fn record_chunk(&self, at_us: u64, host: impl Into<String>, chunk: Chunk) {
        self.push(Stored {
            at_us,
            host: host.into(),
            body: Body::Chunk(chunk),
            detail: true,
            log: false,
        });
    }

    fn push(&self, event: Stored) {
        let mut events = self.events.lock().expect("never poisoned");
        if events.len() < TRACE_EVENTS_MAX {
            events.push(event);
        } else if events.len() == TRACE_EVENTS_MAX {
            let text = "trace full: later events dropped".to_string();
            events.push(Stored {
                at_us: event.at_us,
                host: "trace".into(),
                body: Body::Text(text),
                detail: false,
                log: false,
            });
        }
    }

    /// Every event with its text (chunks rendered).
    pub fn events(&self) -> Vec<TraceEvent> {
        let events = self.events.lock().expect("never poisoned");
        events.iter().map(Stored::event).collect()
    }

    /// Every event but the network detail, without rendering any chunk.
    pub fn text_events(&self) -> Vec<TraceEvent> {
        let events = self.events.lock().expect("never poisoned");
        events
            .iter()
            .filter(|event| !event.detail)
            .map(Stored::event)
            .collect()
    }

    /// Every chunk of bytes that crossed the network, as hops between a client and Redis.
    pub fn hops(&self) -> Vec<Hop> {
        let events = self.events.lock().expect("never poisoned");
        events
            .iter()
            .filter_map(|event| match &event.body {
                Body::Chunk(chunk) => Some(Hop {
                    host: event.host.clone(),
                    sent_us: chunk.sent_us,
                    delivered_us: event.at_us,
                    to_redis: chunk.flow == 0,
                    text: (chunk.render)(chunk),
                }),
                Body::Text(_) => None,
            })
            .collect()
    }

    /// Calls `f` with the host, connection number and bytes of every chunk Redis sent
    /// back, in delivery order, without rendering any (coverage reads the replies).
    pub(crate) fn for_each_reply(&self, mut f: impl FnMut(&str, u64, &[u8])) {
        let events = self.events.lock().expect("never poisoned");
        for event in events.iter() {
            if let Body::Chunk(chunk) = &event.body {
                if chunk.flow == 1 {
                    f(&event.host, chunk.conn, &chunk.bytes);
                }
            }
        }
    }

    /// How many events the trace holds.
    pub fn len(&self) -> usize {
        self.events.lock().expect("never poisoned").len()
    }

    /// Whether the trace holds no event.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The full timeline: one line per event, network detail included.
    pub fn timeline(&self) -> String {
        self.timeline_with(TimelineKind::Full, &[])
    }

    /// The operation-level timeline: ops, faults and connections, without wire detail.
    pub fn summary_timeline(&self) -> String {
        self.timeline_with(TimelineKind::Summary, &[])
    }

    /// The timeline a reviewed snapshot holds: [`Trace::summary_timeline`] without the
    /// store's log events, so `RUST_LOG` never changes a snapshot.
    pub fn review_timeline(&self) -> String {
        self.timeline_with(TimelineKind::Review, &[])
    }

    /// The timeline of `kind` with `marks` (facts recorded outside the trace, such as key
    /// expiries, in time order) merged in by time: each mark before the first event
    /// after it. The marks are rendered, never recorded: the hash does not see them.
    pub(crate) fn timeline_with(&self, kind: TimelineKind, marks: &[TraceEvent]) -> String {
        let keep = |event: &Stored| match kind {
            TimelineKind::Full => true,
            TimelineKind::Summary => !event.detail,
            TimelineKind::Review => !event.detail && !event.log,
        };
        let events = self.events.lock().expect("never poisoned");
        let mut out = String::with_capacity((events.len() + marks.len()) * 64);
        let mut marks = marks.iter().peekable();
        for event in events.iter().filter(|event| keep(event)) {
            while let Some(mark) = marks.next_if(|mark| mark.at_us < event.at_us) {
                let _ = writeln!(out, "{}", format_event(mark));
            }
            let _ = writeln!(out, "{}", format_event(&event.event()));
        }
        for mark in marks {
            let _ = writeln!(out, "{}", format_event(mark));
        }
        out
    }

    /// FNV-1a over a canonical encoding of every event, log events excepted (time,
    /// host, text, or a chunk's raw bytes): equal for equal traces, in any process,
    /// whatever `RUST_LOG` shows. Hashing the fields instead of the rendered timeline
    /// spares formatting every event of every run of a sweep.
    pub fn hash(&self) -> u64 {
        let events = self.events.lock().expect("never poisoned");
        events
            .iter()
            .filter(|event| !event.log)
            .fold(FNV_OFFSET, |hash, event| event.hash_into(hash))
    }
}

/// Which events a timeline shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimelineKind {
    /// Every event, network detail included ([`Trace::timeline`]).
    Full,
    /// Without wire detail ([`Trace::summary_timeline`]).
    Summary,
    /// Without wire detail and log events ([`Trace::review_timeline`]).
    Review,
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

/// FNV-1a's step over 8-byte little-endian words in four independent lanes (one
/// multiply chain would wait on itself; four keep the multiplier busy), the lanes then
/// folded in order, then the remaining bytes: a chunk's payload (up to 16 KiB) hashed at
/// a small fraction of the byte-wise cost, the same on every platform.
fn mix_words(hash: u64, bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
    let blocks = bytes.chunks_exact(32);
    let tail = blocks.remainder();
    let mut lanes = [hash, hash ^ 1, hash ^ 2, hash ^ 3];
    for block in blocks {
        for (lane, bytes) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = (*lane ^ word(bytes)).wrapping_mul(PRIME);
        }
    }
    let hash = lanes
        .iter()
        .fold(hash, |hash, &lane| (hash ^ lane).wrapping_mul(PRIME));
    let words = tail.chunks_exact(8);
    let rest = words.remainder();
    let hash = words.fold(hash, |hash, bytes| (hash ^ word(bytes)).wrapping_mul(PRIME));
    fnv1a_from(hash, rest)
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
        let mut same = Trace::new();
        same.record(1_500_000, "client-0", "invoke #0 append");
        assert_eq!(trace.hash(), same.hash());
        same = Trace::new();
        same.record(1_500_000, "client-", "0 invoke #0 append");
        assert_ne!(trace.hash(), same.hash(), "fields are length-prefixed");
        let hash = trace.hash();
        trace.record_log(1_600_000, "client-0", "log DEBUG store: append");
        assert_eq!(trace.hash(), hash, "log events stay out of the hash");
        assert!(trace.timeline().contains("log DEBUG"));
    }
}
