//! Which seeds a sweep runs: a half-open range `A..B`, optionally one shard of it.
//!
//! Sharding is by residue, so CI matrices split any range evenly and deterministically:
//! shard `K/N` (1-based `K`) runs the seeds with `seed % N == K - 1`. The N shards of a
//! range are disjoint and together cover it.

use std::fmt;

/// Seeds in one sweep at most.
pub const SWEEP_SEEDS_MAX: u64 = 100_000_000;

/// A half-open range of seeds, `start < end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SeedRange {
    /// First seed, included.
    pub start: u64,
    /// End of the range, excluded.
    pub end: u64,
}

impl SeedRange {
    /// Parse `A..B` (half-open, `A < B`); the error is one line.
    pub fn parse(text: &str) -> Result<SeedRange, String> {
        let Some((start, end)) = text.split_once("..") else {
            return Err(format!(
                "bad seed range '{text}': expected A..B, e.g. 0..1000"
            ));
        };
        let number = |part: &str| {
            part.trim()
                .parse::<u64>()
                .map_err(|_| format!("bad seed range '{text}': '{part}' is not a seed (u64)"))
        };
        let range = SeedRange {
            start: number(start)?,
            end: number(end)?,
        };
        if range.start >= range.end {
            return Err(format!(
                "bad seed range '{text}': empty (A..B runs A up to B-1, so A must be below B)"
            ));
        }
        if range.end - range.start > SWEEP_SEEDS_MAX {
            return Err(format!(
                "bad seed range '{text}': more than {SWEEP_SEEDS_MAX} seeds"
            ));
        }
        Ok(range)
    }

    /// The seeds of this range that `shard` runs, ascending.
    pub fn seeds(self, shard: Option<Shard>) -> Vec<u64> {
        (self.start..self.end)
            .filter(|&seed| shard.is_none_or(|shard| shard.contains(seed)))
            .collect()
    }
}

impl fmt::Display for SeedRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// Shard `index` of `count` (1-based): the seeds with `seed % count == index - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// Which shard, from 1 to `count`.
    pub index: u32,
    /// How many shards the range is split into.
    pub count: u32,
}

impl Shard {
    /// Parse `K/N` with `1 <= K <= N`; the error is one line.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = |why: &str| format!("bad shard '{text}': {why}");
        let Some((index, count)) = text.split_once('/') else {
            return Err(bad("expected K/N, e.g. 1/4"));
        };
        let index: u32 = index.trim().parse().map_err(|_| bad("K is not a number"))?;
        let count: u32 = count.trim().parse().map_err(|_| bad("N is not a number"))?;
        if count == 0 {
            return Err(bad("N must be at least 1"));
        }
        if index == 0 || index > count {
            return Err(bad("K must be between 1 and N (shards are 1-based)"));
        }
        Ok(Shard { index, count })
    }

    /// Whether this shard runs `seed`.
    pub fn contains(self, seed: u64) -> bool {
        seed % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_disjoint_and_cover_the_range() {
        let range = SeedRange::parse("7..1000").unwrap();
        for count in 1..=7 {
            let mut all: Vec<u64> = (1..=count)
                .flat_map(|index| range.seeds(Some(Shard { index, count })))
                .collect();
            let total = all.len();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), total, "shards of {count} overlap");
            assert_eq!(all, range.seeds(None), "shards of {count} miss seeds");
        }
    }

    #[test]
    fn bad_ranges_and_shards_are_refused_in_one_line() {
        for bad in ["5..2", "x", "3..3", "a..4", "1..b", "-1..4", ""] {
            let error = SeedRange::parse(bad).unwrap_err();
            assert!(!error.contains('\n'), "{error}");
        }
        for bad in ["3/2", "0/2", "1/0", "x", "1/x", "2"] {
            let error = Shard::parse(bad).unwrap_err();
            assert!(!error.contains('\n'), "{error}");
        }
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { index: 2, count: 3 });
        assert!(Shard::parse("2/3").unwrap().contains(4));
    }
}
