//! The determinism check: the same seed run twice must give the same trace. When the
//! hashes differ, the first event where the two timelines part says where to look.

use crate::trace::{format_event, TraceEvent};
use serde::{Deserialize, Serialize};

/// Where two runs of one seed parted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// Position of the first differing event among the hashed (non-log) events.
    pub index: usize,
    /// The first run's event there, as a timeline line; absent if its trace ended.
    pub first: Option<String>,
    /// The second run's event there.
    pub second: Option<String>,
}

impl Divergence {
    /// Three lines for the terminal.
    pub fn text(&self) -> String {
        let line = |event: &Option<String>| event.clone().unwrap_or_else(|| "(trace ended)".into());
        format!(
            "first divergence at event {}:\n  run 1: {}\n  run 2: {}",
            self.index,
            line(&self.first),
            line(&self.second)
        )
    }
}

/// The first hashed event where `first` and `second` differ; `None` if they agree.
pub fn first_divergence(first: &[TraceEvent], second: &[TraceEvent]) -> Option<Divergence> {
    let hashed = |events: &[TraceEvent]| -> Vec<String> {
        events
            .iter()
            .filter(|event| !event.log)
            .map(format_event)
            .collect()
    };
    let (first, second) = (hashed(first), hashed(second));
    let index = first
        .iter()
        .zip(&second)
        .position(|(a, b)| a != b)
        .unwrap_or(first.len().min(second.len()));
    if index == first.len() && index == second.len() {
        return None;
    }
    Some(Divergence {
        index,
        first: first.get(index).cloned(),
        second: second.get(index).cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Trace;

    #[test]
    fn the_first_differing_event_is_named() {
        let (a, b) = (Trace::new(), Trace::new());
        for trace in [&a, &b] {
            trace.record(1, "driver", "start");
            trace.record_log(2, "client-0", "log only in one run");
        }
        b.record_log(3, "client-1", "a log line never diverges");
        a.record(5, "client-0", "invoke #0");
        b.record(6, "client-0", "invoke #0");
        let divergence = first_divergence(&a.events(), &b.events()).expect("they differ");
        assert_eq!(divergence.index, 1);
        assert!(divergence.first.unwrap().contains("0.000005s"));
        assert!(first_divergence(&a.events(), &a.events()).is_none());
        let shorter = first_divergence(&a.events()[..1], &a.events()).expect("one ended");
        assert_eq!(shorter.first, None);
    }
}
