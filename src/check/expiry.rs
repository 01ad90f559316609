//! Sliding-TTL reasoning when application times are only known within an interval.
//!
//! An append applied at `a` keeps its session alive until `a + ttl`; a read does not
//! refresh the TTL. An acked append was applied somewhere in `[invoke, complete]`; an
//! unknown, pending or failed one at most once, anywhere in `[invoke, ∞)`, or never.
//! "Certainly alive" uses acked appends only; "certainly expired" treats every other
//! append as possibly applied at the worst moment.

use super::index::{Append, Index};
use super::keys::names_session;
use crate::domain::SessionKey;

/// Tolerance on every expiry judgement. Redis expires at millisecond resolution and its
/// active cycle may delete keys ~100 ms late (lazy expiry is on time); one second keeps
/// the checker clear of both and of TTLs a store rounds to whole seconds' milliseconds.
pub const EXPIRY_SLACK_US: u64 = 1_000_000;

/// The expiry questions of one history, with each session's appends sorted once: the
/// rules ask them per read and per missing message, and sorting the session's appends
/// on every question made the checker superlinear in the session's length.
pub(crate) struct Expiry {
    /// `None` without a TTL.
    ttl_us: Option<u64>,
    /// Per session number.
    sessions: Vec<SessionExpiry>,
}

struct SessionExpiry {
    /// (completion, invocation) of the acked appends, sorted.
    acked: Vec<(u64, u64)>,
    /// Running maximum of the invocations in `acked`, in `acked`'s order.
    acked_invoke_max_us: Vec<u64>,
    /// (invocation, latest possible application) of every append, sorted by invocation.
    spans: Vec<(u64, u64)>,
    /// Running maximum of the latest applications in `spans`.
    prefix_max_us: Vec<u64>,
    /// The instants just before an invocation at which the session was certainly
    /// expired, ascending.
    dead_gap_ends_us: Vec<u64>,
}

impl SessionExpiry {
    fn new(idx: &Index<'_>, session_no: usize, ttl_us: u64) -> Self {
        let mut acked: Vec<(u64, u64)> = idx
            .session_appends(session_no)
            .filter_map(|a| a.write.acked_by_us().map(|c| (c, a.write.invoke_us)))
            .collect();
        acked.sort_unstable();
        let acked_invoke_max_us = running_max(acked.iter().map(|&(_, invoke_us)| invoke_us));
        let mut spans: Vec<(u64, u64)> = idx
            .session_appends(session_no)
            .map(|a| (a.write.invoke_us, a.write.latest_apply_us()))
            .collect();
        spans.sort_unstable();
        let prefix_max_us = running_max(spans.iter().map(|&(_, latest_us)| latest_us));
        let mut session = SessionExpiry {
            acked,
            acked_invoke_max_us,
            spans,
            prefix_max_us,
            dead_gap_ends_us: Vec::new(),
        };
        // Whether the session was dead just before an invocation does not depend on the
        // question's horizon: found once here.
        session.dead_gap_ends_us = session
            .spans
            .iter()
            .filter_map(|&(invoke_us, _)| invoke_us.checked_sub(1))
            .filter(|&x| session.dead_at(x, ttl_us))
            .collect();
        session
    }

    /// No append invoked by `x` can have been applied within `ttl + EXPIRY_SLACK_US`
    /// before `x`.
    fn dead_at(&self, x: u64, ttl_us: u64) -> bool {
        let invoked = self.spans.partition_point(|&(invoke_us, _)| invoke_us <= x);
        invoked == 0
            || self.prefix_max_us[invoked - 1]
                .saturating_add(ttl_us)
                .saturating_add(EXPIRY_SLACK_US)
                < x
    }
}

impl Expiry {
    pub(crate) fn new(idx: &Index<'_>) -> Self {
        let ttl_us = idx.ttl_us();
        let sessions = match ttl_us {
            Some(ttl_us) => (0..idx.by_session.len())
                .map(|session_no| SessionExpiry::new(idx, session_no, ttl_us))
                .collect(),
            None => Vec::new(),
        };
        Expiry { ttl_us, sessions }
    }

    /// Until when the session holding `start`'s message is certainly not expired
    /// (exclusive), counting from `start`'s application, as far as `horizon_us`. `start`
    /// must be acked, and kept by every restart up to the horizon. Only acked appends that
    /// every Redis restart up to the horizon kept extend the chain: a TTL refresh that a
    /// restart lost keeps nothing alive.
    pub(crate) fn alive_until_us(
        &self,
        idx: &Index<'_>,
        start: &Append<'_>,
        horizon_us: u64,
    ) -> u64 {
        let Some(ttl_us) = self.ttl_us else {
            return u64::MAX;
        };
        let session = &self.sessions[start.session_no];
        let mut end_us = start.write.invoke_us.saturating_add(ttl_us);
        // Appends acked before `start` was invoked and invoked no later than it can
        // neither end the chain nor extend it: the walk starts after them.
        let mut from = session
            .acked
            .partition_point(|&(complete_us, _)| complete_us < start.write.invoke_us);
        if from > 0 && session.acked_invoke_max_us[from - 1] > start.write.invoke_us {
            from = 0;
        }
        for &(complete_us, invoke_us) in &session.acked[from..] {
            if idx
                .restart_losing_span(invoke_us, Some(complete_us), horizon_us)
                .is_some()
            {
                continue;
            }
            if complete_us >= end_us {
                break;
            }
            end_us = end_us.max(invoke_us.saturating_add(ttl_us));
        }
        end_us
    }

    /// True when `start`'s session certainly did not expire between `start`'s
    /// application and `until_us`.
    pub(crate) fn certainly_alive_through(
        &self,
        idx: &Index<'_>,
        start: &Append<'_>,
        until_us: u64,
    ) -> bool {
        start.write.is_acked()
            && self.alive_until_us(idx, start, until_us) > until_us.saturating_add(EXPIRY_SLACK_US)
    }

    /// The latest instant in `[0, until_us]` at which session `session_no` had certainly
    /// expired: no append of it, of any outcome, invoked by then can have been applied
    /// within `ttl + EXPIRY_SLACK_US` before it. `None` without a TTL or when there is no
    /// such instant.
    pub(crate) fn latest_certain_expiry(&self, session_no: usize, until_us: u64) -> Option<u64> {
        let ttl_us = self.ttl_us?;
        let session = &self.sessions[session_no];
        // Between two invocations the condition only improves with time: the candidates
        // are `until_us` and each gap's end.
        if session.dead_at(until_us, ttl_us) {
            return Some(until_us);
        }
        let at = session.dead_gap_ends_us.partition_point(|&x| x <= until_us);
        at.checked_sub(1).map(|i| session.dead_gap_ends_us[i])
    }
}

/// The running maximum of `values`: element i is the largest of the first i + 1.
fn running_max(values: impl Iterator<Item = u64>) -> Vec<u64> {
    values
        .scan(0, |max, value| {
            *max = value.max(*max);
            Some(*max)
        })
        .collect()
}

/// The keys of `session` the history saw Redis expire within `from_us..=to_us`, for an
/// explanation (`key chat:v1:t0:s1:messages expired at 8.923 s`), or `None`. Words only:
/// no rule judges a key. A key is the session's when its segments (split at `:`, `/` and
/// hash-tag braces) hold the session's tenant and name in a row.
pub(crate) fn recorded_key_expiries(
    idx: &Index<'_>,
    session: &SessionKey,
    from_us: u64,
    to_us: u64,
) -> Option<String> {
    let mut latest: Vec<(&str, u64)> = Vec::new();
    for expiry in idx.expiries {
        if expiry.at_us < from_us || expiry.at_us > to_us || !names_session(&expiry.key, session) {
            continue;
        }
        match latest.iter_mut().find(|(key, _)| *key == expiry.key) {
            Some(seen) => seen.1 = seen.1.max(expiry.at_us),
            None => latest.push((&expiry.key, expiry.at_us)),
        }
    }
    const SHOWN: usize = 3;
    let mut parts: Vec<String> = latest
        .iter()
        .take(SHOWN)
        .map(|(key, at_us)| format!("key {key} expired at {}", super::time::at(*at_us)))
        .collect();
    if latest.len() > SHOWN {
        parts.push(format!("{} more keys", latest.len() - SHOWN));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}
