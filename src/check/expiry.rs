//! Sliding-TTL reasoning when application times are only known within an interval.
//!
//! An append applied at `a` keeps its session alive until `a + ttl`; a read does not
//! refresh the TTL. An acked append was applied somewhere in `[invoke, complete]`; an
//! unknown, pending or failed one at most once, anywhere in `[invoke, ∞)`, or never.
//! "Certainly alive" uses acked appends only; "certainly expired" treats every other
//! append as possibly applied at the worst moment.

use super::index::{Append, Index};
use crate::store::SessionKey;

/// Tolerance on every expiry judgement. Redis expires at millisecond resolution and its
/// active cycle may delete keys ~100 ms late (lazy expiry is on time); one second keeps
/// the checker clear of both and of TTLs a store rounds to whole seconds' milliseconds.
pub const EXPIRY_SLACK_US: u64 = 1_000_000;

/// Until when the session holding `start`'s message is certainly not expired (exclusive),
/// counting from `start`'s application. `start` must be acked. Only acked appends that
/// were invoked after the last epoch boundary before `start` extend the chain: a TTL
/// refresh of a wiped incarnation keeps nothing alive.
pub(crate) fn alive_until_us(idx: &Index<'_>, start: &Append<'_>) -> u64 {
    let Some(ttl_us) = idx.ttl_us() else {
        return u64::MAX;
    };
    let floor_us = idx.epoch_before(start.write.invoke_us);
    let mut chain: Vec<(u64, u64)> = idx
        .session_appends(start.session)
        .into_iter()
        .filter(|a| floor_us.is_none_or(|b| a.write.invoke_us > b))
        .filter_map(|a| a.write.acked_by_us().map(|c| (c, a.write.invoke_us)))
        .collect();
    chain.sort_unstable();
    let mut end_us = start.write.invoke_us.saturating_add(ttl_us);
    for (complete_us, invoke_us) in chain {
        if complete_us >= end_us {
            break;
        }
        end_us = end_us.max(invoke_us.saturating_add(ttl_us));
    }
    end_us
}

/// True when `start`'s session certainly did not expire between `start`'s application
/// and `until_us`.
pub(crate) fn certainly_alive_through(idx: &Index<'_>, start: &Append<'_>, until_us: u64) -> bool {
    start.write.is_acked() && alive_until_us(idx, start) > until_us.saturating_add(EXPIRY_SLACK_US)
}

/// The latest instant in `[0, until_us]` at which `session` had certainly expired: no
/// append of it, of any outcome, invoked by then can have been applied within
/// `ttl + EXPIRY_SLACK_US` before it. `None` without a TTL or when there is no such instant.
pub(crate) fn latest_certain_expiry(
    idx: &Index<'_>,
    session: &SessionKey,
    until_us: u64,
) -> Option<u64> {
    let ttl_us = idx.ttl_us()?;
    // (invoke, latest possible application) sorted by invoke, with a running maximum.
    let mut spans: Vec<(u64, u64)> = idx
        .session_appends(session)
        .into_iter()
        .map(|a| (a.write.invoke_us, a.write.latest_apply_us()))
        .collect();
    spans.sort_unstable();
    let mut running_max_us = 0;
    let prefix_max_us: Vec<u64> = spans
        .iter()
        .map(|&(_, latest_us)| {
            running_max_us = running_max_us.max(latest_us);
            running_max_us
        })
        .collect();
    let dead_at = |x: u64| {
        let invoked = spans.partition_point(|&(invoke_us, _)| invoke_us <= x);
        invoked == 0
            || prefix_max_us[invoked - 1]
                .saturating_add(ttl_us)
                .saturating_add(EXPIRY_SLACK_US)
                < x
    };
    // Between two invocations the condition only improves with time: test each gap's end.
    let gap_ends = spans.iter().map(|&(invoke_us, _)| invoke_us.checked_sub(1));
    std::iter::once(Some(until_us))
        .chain(gap_ends)
        .flatten()
        .filter(|&x| x <= until_us && dead_at(x))
        .max()
}
