//! A window's frame: the rows of a partition that an aggregate, `first_value`,
//! `last_value` and `nth_value` see from each row. ROWS counts rows, GROUPS counts peer
//! groups (rows equal on the window's ORDER BY), RANGE measures the ORDER BY value
//! (offsets only over one integer key here; others are refused). PostgreSQL's default,
//! RANGE UNBOUNDED PRECEDING to CURRENT ROW, ends at the current row's last peer: with
//! ties every peer sees the same frame. Without ORDER BY every row is a peer of every
//! other, so the default frame is the whole partition.
//!
//! The frame is computed per row as a range of positions in the partition (window order),
//! possibly empty; parse analysis's refusals (PostgreSQL's 42P20) come from [`check`].

use crate::pg::error::*;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Units {
    Rows,
    Range,
    Groups,
}

/// A frame bound, its offset evaluated (never negative).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    UnboundedPreceding,
    Preceding(i64),
    CurrentRow,
    Following(i64),
    UnboundedFollowing,
}

impl Bound {
    fn has_offset(self) -> bool {
        matches!(self, Bound::Preceding(_) | Bound::Following(_))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameSpec {
    pub units: Units,
    pub start: Bound,
    pub end: Bound,
}

impl FrameSpec {
    /// PostgreSQL's frame when the window names none.
    pub(crate) const DEFAULT: FrameSpec = FrameSpec {
        units: Units::Range,
        start: Bound::UnboundedPreceding,
        end: Bound::CurrentRow,
    };

    pub(crate) fn has_offset(&self) -> bool {
        self.start.has_offset() || self.end.has_offset()
    }
}

/// The frame clause's shape as parse analysis checks it (`transformFrameOffset` and the
/// grammar's checks): PostgreSQL's 42P20 for a start after the end's kind, a GROUPS
/// frame without ORDER BY, a RANGE offset without exactly one ORDER BY key.
pub(crate) fn check(spec: &FrameSpec, order_keys: usize) -> PgResult<()> {
    let wrong = |message: &str| Err(PgError::new(WINDOWING_ERROR, message));
    match (spec.start, spec.end) {
        (Bound::UnboundedFollowing, _) => {
            return wrong("frame start cannot be UNBOUNDED FOLLOWING")
        }
        (_, Bound::UnboundedPreceding) => return wrong("frame end cannot be UNBOUNDED PRECEDING"),
        (Bound::CurrentRow, Bound::Preceding(_)) => {
            return wrong("frame starting from current row cannot have preceding rows")
        }
        (Bound::Following(_), Bound::Preceding(_) | Bound::CurrentRow) => {
            return wrong("frame starting from following row cannot have preceding rows")
        }
        _ => {}
    }
    if spec.units == Units::Groups && order_keys == 0 {
        return wrong("GROUPS mode requires an ORDER BY clause");
    }
    if spec.units == Units::Range && spec.has_offset() && order_keys != 1 {
        return wrong("RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
    }
    Ok(())
}

/// A partition's rows (in window order) as peer groups: rows equal on the ORDER BY keys.
pub(crate) struct Peers {
    /// Each row's peer group.
    pub group_of: Vec<usize>,
    /// Each group's first row.
    pub starts: Vec<usize>,
}

impl Peers {
    /// `same(i)`: whether row `i` is a peer of row `i - 1` (never asked for row 0).
    pub(crate) fn new(rows: usize, same: impl Fn(usize) -> bool) -> Peers {
        let mut group_of = Vec::with_capacity(rows);
        let mut starts = Vec::new();
        for at in 0..rows {
            if at == 0 || !same(at) {
                starts.push(at);
            }
            group_of.push(starts.len() - 1);
        }
        Peers { group_of, starts }
    }

    fn rows(&self) -> usize {
        self.group_of.len()
    }

    /// One past group `g`'s last row.
    pub(crate) fn end_of(&self, g: usize) -> usize {
        self.starts.get(g + 1).copied().unwrap_or(self.rows())
    }
}

/// One integer ORDER BY key's values over the partition, for RANGE offsets.
pub(crate) struct RangeKey<'a> {
    pub values: &'a [i64],
    pub descending: bool,
}

/// Row `at`'s frame: positions in the partition.
pub(crate) fn frame(
    spec: &FrameSpec,
    peers: &Peers,
    range: Option<&RangeKey<'_>>,
    at: usize,
) -> Range<usize> {
    let start = position(spec, peers, range, at, spec.start, true);
    let end = position(spec, peers, range, at, spec.end, false);
    start..end.max(start)
}

/// Where a bound puts the frame's start (`start`) or its end (one past its last row).
fn position(
    spec: &FrameSpec,
    peers: &Peers,
    range: Option<&RangeKey<'_>>,
    at: usize,
    bound: Bound,
    start: bool,
) -> usize {
    let n = peers.rows();
    match bound {
        Bound::UnboundedPreceding => 0,
        Bound::UnboundedFollowing => n,
        _ => match spec.units {
            Units::Rows => rows_position(n, at, bound, start),
            Units::Groups => groups_position(peers, peers.group_of[at], bound, start),
            Units::Range => match (bound, range) {
                (Bound::CurrentRow, _) | (_, None) => {
                    let g = peers.group_of[at];
                    if start {
                        peers.starts[g]
                    } else {
                        peers.end_of(g)
                    }
                }
                (_, Some(key)) => range_position(key, at, bound, start),
            },
        },
    }
}

fn rows_position(n: usize, at: usize, bound: Bound, start: bool) -> usize {
    let end_shift = usize::from(!start);
    let at = at as i128;
    let target = match bound {
        Bound::Preceding(k) => at - k as i128,
        Bound::Following(k) => at + k as i128,
        _ => at,
    };
    (target + end_shift as i128).clamp(0, n as i128) as usize
}

fn groups_position(peers: &Peers, g: usize, bound: Bound, start: bool) -> usize {
    let groups = peers.starts.len() as i128;
    let target = match bound {
        Bound::Preceding(k) => g as i128 - k as i128,
        Bound::Following(k) => g as i128 + k as i128,
        _ => g as i128,
    };
    match (start, target) {
        (true, t) if t < 0 => 0,
        (true, t) if t >= groups => peers.rows(),
        (true, t) => peers.starts[t as usize],
        (false, t) if t < 0 => 0,
        (false, t) => peers.end_of(t.min(groups - 1) as usize),
    }
}

/// A RANGE offset bound: the first row whose value reaches the bound (a start) or one past
/// the last row within it (an end); "preceding" means smaller values ascending, larger
/// descending. Computed in i128: the bound may leave i64.
fn range_position(key: &RangeKey<'_>, at: usize, bound: Bound, start: bool) -> usize {
    let here = key.values[at] as i128;
    let offset = match bound {
        Bound::Preceding(k) => -(k as i128),
        Bound::Following(k) => k as i128,
        _ => 0,
    };
    let values = key.values;
    match key.descending {
        false => {
            let limit = here + offset;
            match start {
                true => values.partition_point(|v| (*v as i128) < limit),
                false => values.partition_point(|v| (*v as i128) <= limit),
            }
        }
        true => {
            let limit = here - offset;
            match start {
                true => values.partition_point(|v| (*v as i128) > limit),
                false => values.partition_point(|v| (*v as i128) >= limit),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peers_of(keys: &[i64]) -> Peers {
        Peers::new(keys.len(), |i| keys[i] == keys[i - 1])
    }

    fn frames(spec: FrameSpec, keys: &[i64], descending: bool) -> Vec<Range<usize>> {
        let peers = peers_of(keys);
        let range = RangeKey {
            values: keys,
            descending,
        };
        (0..keys.len())
            .map(|at| frame(&spec, &peers, Some(&range), at))
            .collect()
    }

    fn spec(units: Units, start: Bound, end: Bound) -> FrameSpec {
        FrameSpec { units, start, end }
    }

    #[test]
    fn the_default_frame_ends_at_the_last_peer() {
        let got = frames(FrameSpec::DEFAULT, &[1, 2, 2, 3], false);
        assert_eq!(got, vec![0..1, 0..3, 0..3, 0..4]);
    }

    #[test]
    fn rows_frames_clamp_at_the_partition_edges() {
        let s = spec(Units::Rows, Bound::Preceding(1), Bound::Following(1));
        assert_eq!(frames(s, &[5, 5, 5], false), vec![0..2, 0..3, 1..3]);
        let s = spec(Units::Rows, Bound::Preceding(5), Bound::Preceding(2));
        assert_eq!(frames(s, &[1, 2, 3], false), vec![0..0, 0..0, 0..1]);
        let s = spec(Units::Rows, Bound::Following(1), Bound::UnboundedFollowing);
        assert_eq!(frames(s, &[1, 2, 3], false), vec![1..3, 2..3, 3..3]);
        let s = spec(Units::Rows, Bound::CurrentRow, Bound::Following(i64::MAX));
        assert_eq!(frames(s, &[1, 2], false), vec![0..2, 1..2]);
    }

    #[test]
    fn groups_frames_count_peer_groups() {
        let s = spec(Units::Groups, Bound::Preceding(1), Bound::CurrentRow);
        assert_eq!(
            frames(s, &[1, 1, 2, 3, 3], false),
            vec![0..2, 0..2, 0..3, 2..5, 2..5]
        );
        let s = spec(Units::Groups, Bound::Following(1), Bound::Following(5));
        assert_eq!(
            frames(s, &[1, 1, 2, 3], false),
            vec![2..4, 2..4, 3..4, 4..4]
        );
    }

    #[test]
    fn range_offsets_measure_values_in_either_direction() {
        let s = spec(Units::Range, Bound::Preceding(1), Bound::CurrentRow);
        assert_eq!(
            frames(s, &[1, 2, 2, 4], false),
            vec![0..1, 0..3, 0..3, 3..4]
        );
        assert_eq!(frames(s, &[4, 2, 2, 1], true), vec![0..1, 1..3, 1..3, 1..4]);
        let s = spec(Units::Range, Bound::Following(1), Bound::Following(2));
        assert_eq!(
            frames(s, &[1, 2, 3, 5], false),
            vec![1..3, 2..3, 3..4, 4..4]
        );
        let s = spec(
            Units::Range,
            Bound::Preceding(i64::MAX),
            Bound::Following(i64::MAX),
        );
        // Bounds past i64 measure as if unbounded (PostgreSQL's in_range on overflow).
        assert_eq!(
            frames(s, &[i64::MIN, 0, i64::MAX], false),
            vec![0..1, 1..3, 1..3]
        );
    }

    #[test]
    fn malformed_frames_are_windowing_errors() {
        let bad = [
            spec(
                Units::Rows,
                Bound::UnboundedFollowing,
                Bound::UnboundedFollowing,
            ),
            spec(Units::Rows, Bound::CurrentRow, Bound::Preceding(1)),
            spec(Units::Rows, Bound::Following(1), Bound::CurrentRow),
            spec(Units::Rows, Bound::CurrentRow, Bound::UnboundedPreceding),
        ];
        for s in bad {
            assert_eq!(check(&s, 1).unwrap_err().code, WINDOWING_ERROR, "{s:?}");
        }
        let groups = spec(Units::Groups, Bound::Preceding(1), Bound::CurrentRow);
        assert!(check(&groups, 0).is_err() && check(&groups, 2).is_ok());
        let range = spec(Units::Range, Bound::Preceding(1), Bound::CurrentRow);
        assert!(check(&range, 2).is_err() && check(&range, 1).is_ok());
        assert!(check(&FrameSpec::DEFAULT, 0).is_ok());
    }
}
