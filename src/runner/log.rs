//! The store's own `tracing` events in the run's timeline: a `tracing-subscriber` layer
//! that appends each event to the current world's [`Trace`](crate::trace::Trace), stamped
//! with virtual time and the host whose operation logged it.
//!
//! The host comes from the `host` field of the span the driver wraps every store call in
//! (`HOST_SPAN_TARGET`); events outside such a span (a task the store spawned) are
//! stamped [`HOST_UNKNOWN`]. Which events are kept follows `RUST_LOG`'s syntax
//! ([`EnvFilter`]). The subscriber is installed per run with
//! `tracing::subscriber::with_default`, which is thread-local: seeds running in parallel
//! on other threads never mix their events. Log events stay out of the trace hash.

use crate::world::context;
use crate::world::driver::HOST_SPAN_TARGET;
use std::fmt::Write as _;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Dispatch, Event, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::{EnvFilter, Layer};

/// The filter when `RUST_LOG` is unset: info and above (`RUST_LOG=debug` shows more).
pub const LOG_FILTER_DEFAULT: &str = "info";
/// The host of an event logged outside any operation's span.
pub const HOST_UNKNOWN: &str = "store";
/// Bytes of one log line kept in the timeline.
const LOG_TEXT_BYTES_MAX: usize = 512;

/// A validated `RUST_LOG`-style filter for the store's log events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogFilter {
    directives: String,
}

impl LogFilter {
    /// Parse `directives` (e.g. `debug`, `amnesia::store=debug,warn`); the error is one line.
    pub fn new(directives: &str) -> Result<LogFilter, String> {
        let filter = LogFilter {
            directives: directives.trim().to_string(),
        };
        filter
            .env_filter()
            .map_err(|e| format!("bad log filter '{directives}': {e}"))?;
        Ok(filter)
    }

    /// `RUST_LOG` if set, else [`LOG_FILTER_DEFAULT`].
    pub fn from_env() -> Result<LogFilter, String> {
        match std::env::var("RUST_LOG") {
            Ok(directives) => LogFilter::new(&directives),
            Err(_) => LogFilter::new(LOG_FILTER_DEFAULT),
        }
    }

    /// The EnvFilter, with the host span always enabled so events keep their host
    /// whatever the user's directives say about the driver.
    fn env_filter(&self) -> Result<EnvFilter, tracing_subscriber::filter::ParseError> {
        let host = format!("{HOST_SPAN_TARGET}=info");
        let directives = if self.directives.is_empty() {
            host
        } else {
            format!("{},{host}", self.directives)
        };
        EnvFilter::try_new(directives)
    }

    /// A fresh subscriber for one run: the filter and the trace layer.
    pub fn dispatch(&self) -> Dispatch {
        let filter = self.env_filter().expect("validated in LogFilter::new");
        let subscriber = tracing_subscriber::registry().with(filter).with(TraceLayer);
        Dispatch::new(subscriber)
    }
}

impl Default for LogFilter {
    fn default() -> Self {
        LogFilter::new(LOG_FILTER_DEFAULT).expect("the default filter parses")
    }
}

/// Appends events to the current world's trace (see the module docs).
pub struct TraceLayer;

/// The host a span names, kept in its extensions.
struct Host(String);

impl<S> Layer<S> for TraceLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut visitor = HostVisitor(None);
        attrs.record(&mut visitor);
        if let (Some(host), Some(span)) = (visitor.0, ctx.span(id)) {
            span.extensions_mut().insert(Host(host));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let host = ctx
            .event_scope(event)
            .and_then(|scope| {
                scope
                    .into_iter()
                    .find_map(|span| span.extensions().get::<Host>().map(|h| h.0.clone()))
            })
            .unwrap_or_else(|| host_of_target(event.metadata().target()).to_string());
        let text = event_text(event);
        context::with_current(|clock, trace| trace.record_log(clock.now_us(), host, text));
    }
}

/// Where an event outside every host's span comes from: turmoil's own (a bind, a host
/// started on the turmoil engine), or the store's.
fn host_of_target(target: &str) -> &'static str {
    match target.split("::").next() {
        Some("turmoil") => "turmoil",
        _ => HOST_UNKNOWN,
    }
}

/// `log DEBUG amnesia::store::reference: append session=t0/s1 id=m3`
fn event_text(event: &Event<'_>) -> String {
    let metadata = event.metadata();
    let mut visitor = TextVisitor::default();
    event.record(&mut visitor);
    let mut text = format!(
        "log {} {}: {}{}",
        metadata.level(),
        metadata.target(),
        visitor.message,
        visitor.fields
    );
    if text.len() > LOG_TEXT_BYTES_MAX {
        let mut cut = LOG_TEXT_BYTES_MAX;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    // One event, one timeline line.
    text.replace(['\n', '\r'], " ")
}

struct HostVisitor(Option<String>);

impl Visit for HostVisitor {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "host" {
            self.0 = Some(value.to_string());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "host" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}

#[derive(Default)]
struct TextVisitor {
    message: String,
    fields: String,
}

impl Visit for TextVisitor {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }
}
