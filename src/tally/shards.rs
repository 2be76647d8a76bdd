//! Shards: one sweep's nonce range cut into `count` contiguous pieces that separate tasks
//! sweep (a Slurm job array, a Kubernetes Indexed Job) and `merge` joins, and the records
//! a shard's tally file and a partial merge's tally file carry, so that a merge can check
//! that its inputs cover the range exactly once and say which pieces are missing.
//!
//! # How the range is cut
//!
//! The range `A..B` of `L = B − A` nonces is cut into `count` contiguous ranges in index
//! order. Each holds `⌊L / count⌋` nonces, and the first `L mod count` hold one more, so
//! shard `i` starts at `A + i·⌊L / count⌋ + min(i, L mod count)`. Every shard is non-empty
//! (`count ≤ L`), the shards are disjoint, and together they are `A..B`. Every seed pair is
//! swept over every shard's range: shards cut the nonces, never the seed pairs.

use super::nonces::NonceRange;
use serde::{Deserialize, Serialize};

/// The most shards one sweep may be cut into: far beyond a Slurm array (1,001 tasks by
/// default) or a Kubernetes Indexed Job (100,000 completions), small enough that a typo
/// cannot ask for billions of one-nonce tasks.
pub const MAX_SHARDS: u32 = 1_000_000;

/// A nonce range cut into shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sharding {
    /// The whole range the shards cover together.
    pub nonces: NonceRange,
    /// How many shards.
    pub count: u32,
}

/// Why a range cannot be cut as asked, or a shard index is not one of its shards.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// A count of zero or above [`MAX_SHARDS`].
    #[error("a shard count is 1 to {MAX_SHARDS}, got {0}")]
    Count(u64),
    /// More shards than nonces.
    #[error("{count} shards of {nonces} nonces would leave some shards empty (at most one shard per nonce)")]
    TooMany {
        /// The shards asked for.
        count: u32,
        /// The nonces in the range.
        nonces: u64,
    },
    /// An index past the last shard.
    #[error("shard index {index} is out of range: {count} shards are numbered 0 to {}", count - 1)]
    Index {
        /// The index given.
        index: u64,
        /// The shards.
        count: u32,
    },
}

impl Sharding {
    /// `nonces` cut into `count` shards (see the module docs).
    pub fn new(nonces: NonceRange, count: u32) -> Result<Self, ShardError> {
        if count == 0 || count > MAX_SHARDS {
            return Err(ShardError::Count(u64::from(count)));
        }
        let len = nonces.end.saturating_sub(nonces.start);
        if u64::from(count) > len {
            return Err(ShardError::TooMany { count, nonces: len });
        }
        Ok(Sharding { nonces, count })
    }

    /// Checks that `index` names one of the shards.
    pub fn check_index(&self, index: u64) -> Result<u32, ShardError> {
        match u32::try_from(index) {
            Ok(i) if i < self.count => Ok(i),
            _ => Err(ShardError::Index { index, count: self.count }),
        }
    }

    /// The nonces of shard `index` (which must be below the count).
    pub fn range(&self, index: u32) -> NonceRange {
        assert!(index < self.count, "shard {index} of {}", self.count);
        let len = self.nonces.end - self.nonces.start;
        let (base, extra) = (len / u64::from(self.count), len % u64::from(self.count));
        let i = u64::from(index);
        let start = self.nonces.start + i * base + i.min(extra);
        let end = start + base + u64::from(i < extra);
        NonceRange { start, end }
    }

    /// Every shard's range, in index order.
    pub fn ranges(&self) -> impl Iterator<Item = NonceRange> + '_ {
        (0..self.count).map(|i| self.range(i))
    }

    /// The ranges of the shards `indices` (ascending), adjacent ones joined: what a merge
    /// of exactly those shards covers.
    pub fn covered(&self, indices: &[u32]) -> Vec<NonceRange> {
        let mut covered: Vec<NonceRange> = Vec::new();
        for &index in indices {
            let range = self.range(index);
            match covered.last_mut() {
                Some(last) if last.end == range.start => last.end = range.end,
                _ => covered.push(range),
            }
        }
        covered
    }
}

/// The record in a shard's tally file: which shard of which cut it is. The file's plan
/// holds the shard's own range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardOf {
    /// The shard's index, 0 to `count − 1`.
    pub index: u32,
    /// How many shards.
    pub count: u32,
    /// The whole range the shards cover together.
    pub nonces: NonceRange,
}

impl ShardOf {
    /// The cut this shard belongs to.
    pub fn sharding(&self) -> Sharding {
        Sharding { nonces: self.nonces, count: self.count }
    }
}

/// The record in the tally file of a merge that lacks some shards (`merge
/// --allow-partial`). The file's plan holds the ranges of the shards it merged; the
/// missing ones (not swept, or interrupted) are listed by index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartialOf {
    /// How many shards the sweep was cut into.
    pub count: u32,
    /// The whole range the shards cover together.
    pub nonces: NonceRange,
    /// The shards not in this merge, ascending.
    pub missing: Vec<u32>,
}

impl PartialOf {
    /// The cut the merged shards belong to.
    pub fn sharding(&self) -> Sharding {
        Sharding { nonces: self.nonces, count: self.count }
    }

    /// The shards in this merge, ascending.
    pub fn merged(&self) -> Vec<u32> {
        (0..self.count).filter(|i| self.missing.binary_search(i).is_err()).collect()
    }

    /// Whether the record is one a partial merge writes: its missing shards listed once
    /// each, ascending, all of its cut, some but not all of them (checked when a tally
    /// file of either scheme is read).
    pub fn lists_its_missing_shards(&self) -> bool {
        let ascending = self.missing.windows(2).all(|w| w[0] < w[1]);
        !self.missing.is_empty()
            && ascending
            && self.missing.last().is_some_and(|&last| last < self.count)
            && self.missing.len() < self.count as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: u64, end: u64) -> NonceRange {
        NonceRange { start, end }
    }

    #[test]
    fn shards_cover_the_range_exactly_once_with_the_remainder_first() {
        for (len, count) in [(10u64, 3u32), (10, 10), (7, 1), (1_000_003, 16), (17, 5)] {
            let cut = Sharding::new(range(100, 100 + len), count).unwrap();
            let ranges: Vec<NonceRange> = cut.ranges().collect();
            assert_eq!(ranges.first().unwrap().start, 100);
            assert_eq!(ranges.last().unwrap().end, 100 + len);
            for pair in ranges.windows(2) {
                assert_eq!(pair[0].end, pair[1].start, "contiguous");
                assert!(pair[0].end - pair[0].start >= pair[1].end - pair[1].start, "longest first");
            }
            let sizes: Vec<u64> = ranges.iter().map(|r| r.end - r.start).collect();
            assert!(sizes.iter().all(|&s| s == len / u64::from(count) || s == len / u64::from(count) + 1));
            assert_eq!(cut.covered(&(0..count).collect::<Vec<_>>()), vec![range(100, 100 + len)]);
        }
        let cut = Sharding::new(range(0, 10), 3).unwrap();
        assert_eq!(cut.ranges().collect::<Vec<_>>(), vec![range(0, 4), range(4, 7), range(7, 10)]);
        assert_eq!(cut.covered(&[0, 2]), vec![range(0, 4), range(7, 10)]);
    }

    #[test]
    fn the_full_u64_range_cuts_without_overflow() {
        let cut = Sharding::new(range(0, u64::MAX), MAX_SHARDS).unwrap();
        assert_eq!(cut.range(MAX_SHARDS - 1).end, u64::MAX);
        assert_eq!(cut.range(0).start, 0);
    }

    #[test]
    fn impossible_cuts_and_indices_are_refused() {
        assert_eq!(Sharding::new(range(0, 10), 0), Err(ShardError::Count(0)));
        assert_eq!(Sharding::new(range(0, 10), MAX_SHARDS + 1), Err(ShardError::Count(1_000_001)));
        assert_eq!(Sharding::new(range(5, 7), 3), Err(ShardError::TooMany { count: 3, nonces: 2 }));
        let cut = Sharding::new(range(0, 10), 4).unwrap();
        assert_eq!(cut.check_index(3), Ok(3));
        let error = cut.check_index(4).unwrap_err();
        assert_eq!(error.to_string(), "shard index 4 is out of range: 4 shards are numbered 0 to 3");
        assert!(cut.check_index(u64::MAX).is_err());
    }
}
