//! The trace: every event of a run in order, stamped with virtual time and the host it
//! happened on. Its hash is the determinism fingerprint (same seed → same trace bytes);
//! its text is the timeline a user reads when debugging a seed. (FNV-1a, below, stays for
//! the small stable hashes of names and features; it is not the fingerprint.)

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use xxhash_rust::xxh3::Xxh3;

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
    inner: Arc<Mutex<Inner>>,
}

/// The events kept, and the fingerprint of every event recorded (kept or not).
struct Inner {
    events: Vec<Stored>,
    /// XXH3-64 streamed over each non-log event's canonical encoding as it is recorded,
    /// so the events past the cap change the fingerprint although they are not kept.
    fingerprint: Xxh3,
    /// Non-log events recorded, kept or not: hashed last, so two traces that differ only
    /// in how many events reached the cap still differ.
    hashed_count: u64,
    /// Events kept before the trace overflows ([`TRACE_EVENTS_MAX`]; smaller in tests).
    events_max: usize,
}

impl Default for Inner {
    fn default() -> Self {
        Self {
            events: Vec::new(),
            fingerprint: Xxh3::new(),
            hashed_count: 0,
            events_max: TRACE_EVENTS_MAX,
        }
    }
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace")
            .field("events", &self.events)
            .field("hashed_count", &self.hashed_count)
            .finish()
    }
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

    /// Feed the event's canonical encoding to `hasher`: every field, each variable-length
    /// one prefixed with its length, so two different events never encode alike.
    fn hash_into(&self, hasher: &mut Xxh3) {
        hasher.update(&self.at_us.to_le_bytes());
        hasher.update(&(self.host.len() as u64).to_le_bytes());
        hasher.update(self.host.as_bytes());
        hasher.update(&[u8::from(self.detail)]);
        match &self.body {
            Body::Text(text) => {
                hasher.update(&[0]);
                hasher.update(&(text.len() as u64).to_le_bytes());
                hasher.update(text.as_bytes());
            }
            Body::Chunk(chunk) => {
                hasher.update(&[1, chunk.flow]);
                hasher.update(&chunk.conn.to_le_bytes());
                hasher.update(&(chunk.bytes.len() as u64).to_le_bytes());
                hasher.update(&chunk.bytes);
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
        let mut inner = self.inner.lock().expect("never poisoned");
        let inner = &mut *inner;
        if !event.log {
            event.hash_into(&mut inner.fingerprint);
            inner.hashed_count += 1;
        }
        let events = &mut inner.events;
        if events.len() < inner.events_max {
            events.push(event);
        } else if events.len() == inner.events_max {
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
        let inner = self.inner.lock().expect("never poisoned");
        let events = &inner.events;
        events.iter().map(Stored::event).collect()
    }

    /// Every event but the network detail, without rendering any chunk.
    pub fn text_events(&self) -> Vec<TraceEvent> {
        let inner = self.inner.lock().expect("never poisoned");
        let events = &inner.events;
        events
            .iter()
            .filter(|event| !event.detail)
            .map(Stored::event)
            .collect()
    }

    /// Every chunk of bytes that crossed the network, as hops between a client and Redis.
    pub fn hops(&self) -> Vec<Hop> {
        let inner = self.inner.lock().expect("never poisoned");
        let events = &inner.events;
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
        let inner = self.inner.lock().expect("never poisoned");
        for event in inner.events.iter() {
            if let Body::Chunk(chunk) = &event.body {
                if chunk.flow == 1 {
                    f(&event.host, chunk.conn, &chunk.bytes);
                }
            }
        }
    }

    /// How many events the trace holds.
    pub fn len(&self) -> usize {
        self.inner.lock().expect("never poisoned").events.len()
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
        let inner = self.inner.lock().expect("never poisoned");
        let events = &inner.events;
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

    /// The run's fingerprint: XXH3-64 (`xxhash-rust`) over the canonical encoding of
    /// every event recorded, log events excepted (time, host, text, or a chunk's raw
    /// bytes, each length-prefixed), then the count of events: equal for equal traces, in
    /// any process, whatever `RUST_LOG` shows. Events past [`TRACE_EVENTS_MAX`] are not
    /// kept but are hashed. Hashing the fields instead of the rendered timeline spares
    /// formatting every event of every run of a sweep.
    pub fn hash(&self) -> u64 {
        let inner = self.inner.lock().expect("never poisoned");
        let mut fingerprint = inner.fingerprint.clone();
        fingerprint.update(&inner.hashed_count.to_le_bytes());
        fingerprint.digest()
    }

    /// A trace that keeps at most `events_max` events (the overflow path, in tests).
    #[cfg(test)]
    fn with_events_max(events_max: usize) -> Self {
        let trace = Self::default();
        trace.inner.lock().expect("never poisoned").events_max = events_max;
        trace
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

/// `12.345678s`: a virtual instant as the timeline writes it.
pub(crate) fn seconds_text(at_us: u64) -> String {
    format!("{}.{:06}s", at_us / 1_000_000, at_us % 1_000_000)
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

    fn chunk_trace(payload: &[u8]) -> Trace {
        let trace = Trace::new();
        let chunk = Chunk {
            sent_us: 0,
            conn: 1,
            flow: 0,
            bytes: bytes::Bytes::copy_from_slice(payload),
            render: |chunk| format!("{} bytes", chunk.bytes.len()),
        };
        trace.record_chunk(10, "client-0", chunk);
        trace
    }

    #[test]
    fn payloads_that_fooled_the_lane_hash_differ() {
        // The old fingerprint multiplied each 8-byte lane by an odd constant: bit 63 of
        // two words of one lane (bit 7 of bytes 7 and 39) flipped together cancelled out.
        let payload = [0x2a_u8; 64];
        let mut flipped = payload;
        flipped[7] ^= 0x80;
        flipped[39] ^= 0x80;
        assert_ne!(chunk_trace(&payload).hash(), chunk_trace(&flipped).hash());
        assert_eq!(chunk_trace(&payload).hash(), chunk_trace(&payload).hash());
    }

    #[test]
    fn events_past_the_cap_are_hashed_though_not_kept() {
        let full = |last: &str| {
            let trace = Trace::with_events_max(3);
            for text in ["a", "b", "c", "d", last] {
                trace.record(1, "driver", text);
            }
            trace
        };
        let (one, other) = (full("e"), full("f"));
        assert_eq!(one.len(), 4, "three events and the overflow line are kept");
        assert_eq!(one.timeline(), other.timeline());
        assert_ne!(one.hash(), other.hash(), "the dropped events still count");
        let shorter = Trace::with_events_max(3);
        for text in ["a", "b", "c", "d"] {
            shorter.record(1, "driver", text);
        }
        assert_ne!(shorter.hash(), one.hash());
    }
}
