//! The first and last [`MAX_LAG`] values of a contiguous segment, so that every pair of
//! rounds up to `MAX_LAG` apart (serial pairs at lag 1, lagged pairs at lags 2..=10) is
//! counted exactly once: inside a segment as it is recorded, and across a join when two
//! adjacent segments are joined.
//!
//! Why this is exact whatever the segmentation: a pair of rounds `L ≤ MAX_LAG` apart is
//! counted at the first moment both rounds lie in one segment. Either they were recorded
//! into the same segment (then [`Window::push`] counted it), or they entered one segment
//! at a join; at that join the earlier round is among the last `MAX_LAG` values of the
//! left segment and the later among the first `MAX_LAG` of the right one (each side holds
//! at least the rounds within `L` of the boundary), so [`Window::join`] counts it, once.

use crate::chain::ROUNDS_PER_BATCH;
use serde::{Deserialize, Serialize};

/// The largest lag between two rounds that the serial tallies count.
pub const MAX_LAG: usize = 10;

/// The first and last (up to) [`MAX_LAG`] values of a segment.
///
/// `head` holds the first `min(len, MAX_LAG)` values in order; `tail` the last
/// `min(len, MAX_LAG)` values, oldest first. Both are empty while the segment is empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window<T> {
    /// The segment's first values, in order.
    pub head: Vec<T>,
    /// The segment's last values, oldest first.
    pub tail: Vec<T>,
}

impl<T> Default for Window<T> {
    fn default() -> Self {
        Window { head: Vec::with_capacity(MAX_LAG), tail: Vec::with_capacity(MAX_LAG) }
    }
}

impl<T: Copy> Window<T> {
    /// Records the next value of the segment, calling `pair(lag, earlier)` for each earlier
    /// value in the segment `lag` rounds before it (`lag` = 1 is the previous round).
    #[inline]
    pub fn push(&mut self, value: T, mut pair: impl FnMut(usize, T)) {
        for (back, &earlier) in self.tail.iter().rev().enumerate() {
            pair(back + 1, earlier);
        }
        if self.head.len() < MAX_LAG {
            self.head.push(value);
        }
        if self.tail.len() == MAX_LAG {
            // Ten values: shifting them is cheaper than a ring buffer's bookkeeping here.
            self.tail.copy_within(1.., 0);
            self.tail[MAX_LAG - 1] = value;
        } else {
            self.tail.push(value);
        }
    }

    /// A batch of the segment's next values (at most [`ROUNDS_PER_BATCH`]) beside the
    /// values before it: what a batch's pairs are counted from, a lag at a time, before
    /// [`Window::advance`] records the batch. `Recent` gives, for each lag, the pairs
    /// [`Window::push`] on each value would visit, as two aligned rows.
    ///
    /// # Panics
    /// If `values` holds more than [`ROUNDS_PER_BATCH`] values.
    #[inline(always)]
    pub fn recent(&self, values: &[T]) -> Recent<T>
    where
        T: Default,
    {
        assert!(values.len() <= ROUNDS_PER_BATCH, "a batch holds at most {ROUNDS_PER_BATCH} values");
        let earlier = self.tail.len();
        let mut recent =
            Recent { values: [T::default(); MAX_LAG + ROUNDS_PER_BATCH], earlier, len: values.len() };
        recent.values[MAX_LAG - earlier..MAX_LAG].copy_from_slice(&self.tail);
        recent.values[MAX_LAG..MAX_LAG + values.len()].copy_from_slice(values);
        recent
    }

    /// Records the next `values` of the segment, in order, without visiting any pair: for
    /// callers that count the pairs themselves (see [`Window::recent`]).
    #[inline]
    pub fn advance(&mut self, values: &[T]) {
        if self.head.len() < MAX_LAG {
            let room = MAX_LAG - self.head.len();
            self.head.extend(values.iter().take(room));
        }
        if values.len() >= MAX_LAG {
            self.tail.clear();
            self.tail.extend_from_slice(&values[values.len() - MAX_LAG..]);
        } else {
            self.tail.extend_from_slice(values);
            let excess = self.tail.len().saturating_sub(MAX_LAG);
            self.tail.drain(..excess);
        }
    }

    /// Joins `later`, the window of the segment that directly follows this one, calling
    /// `pair(lag, earlier, later_value)` for every pair of rounds at most [`MAX_LAG`] apart
    /// that straddles the join.
    pub fn join(&mut self, later: Window<T>, mut pair: impl FnMut(usize, T, T)) {
        let n = self.tail.len();
        for (i, &earlier) in self.tail.iter().enumerate() {
            // `earlier` is `n - i` rounds before the join (1 = the last round on the left).
            for (j, &next) in later.head.iter().enumerate() {
                let lag = (n - i) + j;
                if lag > MAX_LAG {
                    break;
                }
                pair(lag, earlier, next);
            }
        }
        if self.head.len() < MAX_LAG {
            let room = MAX_LAG - self.head.len();
            self.head.extend(later.head.iter().take(room));
        }
        let mut tail: Vec<T> = self.tail.iter().chain(&later.tail).copied().collect();
        let excess = tail.len().saturating_sub(MAX_LAG);
        tail.drain(..excess);
        self.tail = tail;
    }

    /// Whether the segment holds no value yet.
    pub fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    /// Checks the window's shape (for tallies read from files): both sides at most
    /// [`MAX_LAG`] long, of equal length, and equal when shorter than `MAX_LAG` (a short
    /// segment's head and tail are the whole segment).
    pub fn is_consistent(&self, rounds: u64) -> bool
    where
        T: PartialEq,
    {
        let expected = rounds.min(MAX_LAG as u64) as usize;
        self.head.len() == expected
            && self.tail.len() == expected
            && (expected == MAX_LAG || self.head == self.tail)
    }
}

/// A batch of values and the up to [`MAX_LAG`] values before it in the segment (see
/// [`Window::recent`]).
#[derive(Clone, Debug)]
pub struct Recent<T> {
    /// The earlier values right-aligned before index [`MAX_LAG`], then the batch.
    values: [T; MAX_LAG + ROUNDS_PER_BATCH],
    /// How many earlier values the segment has (at most [`MAX_LAG`]).
    earlier: usize,
    /// Values in the batch.
    len: usize,
}

impl<T> Recent<T> {
    /// The batch: entry `r` is its `r`-th value (entries from its length on mean nothing).
    #[inline(always)]
    pub fn now(&self) -> &[T; ROUNDS_PER_BATCH] {
        self.values[MAX_LAG..].try_into().expect("a batch of values")
    }

    /// The values `lag` (1..=[`MAX_LAG`]) before the batch's: entry `r` is the value `lag`
    /// before entry `r` of [`Recent::now`], where [`Recent::pairs_at`] says it exists.
    #[inline(always)]
    pub fn before(&self, lag: usize) -> &[T; ROUNDS_PER_BATCH] {
        self.values[MAX_LAG - lag..][..ROUNDS_PER_BATCH].try_into().expect("a batch of values")
    }

    /// The entries `r` of the batch that have a value `lag` before them in the segment.
    #[inline(always)]
    pub fn pairs_at(&self, lag: usize) -> std::ops::Range<usize> {
        lag.saturating_sub(self.earlier).min(self.len)..self.len
    }
}

/// How many values an [`Unpaired`] gathers before its owner counts their pairs: large
/// enough that the count runs a lag at a time over long rows with each lag's table hot in
/// the cache, small enough (4 KB of pockets) to stay beside the batch in L1.
pub const UNPAIRED_BULK: usize = 4096;

/// The segment's latest values whose pairs up to [`MAX_LAG`] apart are not counted yet,
/// after the up to [`MAX_LAG`] values before them: what a tally holds back between the
/// sweep's batches to count pairs in bulk ([`Unpaired::drain_pairs`]).
///
/// Why: the roulette tally counts ten pairs per spin, each an increment in one of ten
/// 37 × 37 tables. Counted per batch, 64 increments per lag and table, the pairs took a
/// tenth of the sweep's time, and neither tables small enough for L1 nor indices computed
/// in vector lanes changed that; counted a lag at a time over thousands of spins, the
/// same increments take under half of it (`cargo bench --bench share`).
///
/// The values held are those of one run of consecutive batches of one segment: each
/// batch is added with the segment's length before it, and a batch that does not follow
/// the last one held is a programming error (it panics).
#[derive(Clone, Debug)]
pub struct Unpaired<T> {
    /// The earlier values (`earlier` of them), then the unpaired ones.
    values: Vec<T>,
    earlier: usize,
    /// The segment's length after the last value held.
    end: u64,
}

impl<T> Default for Unpaired<T> {
    fn default() -> Self {
        Self { values: Vec::new(), earlier: 0, end: 0 }
    }
}

/// In tests (debug builds), values dropped with their pairs uncounted are a bug of the
/// caller: the tally it fed would be missing pairs.
impl<T> Drop for Unpaired<T> {
    fn drop(&mut self) {
        debug_assert!(
            std::thread::panicking() || self.values.len() == self.earlier,
            "{} values were dropped with their pairs uncounted",
            self.values.len() - self.earlier
        );
    }
}

impl<T: Copy> Unpaired<T> {
    /// How many values wait for their pairs to be counted.
    pub fn len(&self) -> usize {
        self.values.len() - self.earlier
    }

    /// Whether no value waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether [`UNPAIRED_BULK`] values or more wait: time to count them.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.len() >= UNPAIRED_BULK
    }

    /// Holds `values`, the segment's next values: `window` is the segment's window before
    /// them (before [`Window::advance`] records them) and `at` the segment's length.
    ///
    /// # Panics
    /// If values are held and `values` do not directly follow them (`at` is not the
    /// segment's length after the last one held).
    #[inline]
    pub fn extend(&mut self, window: &Window<T>, at: u64, values: &[T]) {
        if self.is_empty() {
            // Nothing waits: the values before are the window's, whatever was held before.
            // Room for a whole bulk at once: grown step by step, the buffer's reallocations
            // added half a megabyte to a sweep's peak memory.
            self.values.clear();
            self.values.reserve_exact(MAX_LAG + UNPAIRED_BULK + ROUNDS_PER_BATCH);
            self.values.extend_from_slice(&window.tail);
            self.earlier = window.tail.len();
        } else {
            assert_eq!(at, self.end, "unpaired values must come from one run of consecutive batches");
        }
        self.values.extend_from_slice(values);
        self.end = at + values.len() as u64;
    }

    /// Calls `pairs(lag, earlier, later)` for each lag 1..=[`MAX_LAG`] with two aligned
    /// rows (`later[i]` came `lag` values after `earlier[i]`): exactly the pairs
    /// [`Window::push`] on each waiting value would visit. Then forgets them: the next
    /// values held start from the window again.
    pub fn drain_pairs(&mut self, mut pairs: impl FnMut(usize, &[T], &[T])) {
        let len = self.values.len();
        for lag in 1..=MAX_LAG {
            let first = self.earlier.max(lag);
            if first < len {
                pairs(lag, &self.values[first - lag..len - lag], &self.values[first..]);
            }
        }
        self.values.clear();
        self.earlier = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tally::runs::tests::test_sequence;

    /// Every pair (lag, a, b) of a sequence with lag ≤ MAX_LAG, by a direct scan.
    fn direct(sequence: &[u8]) -> Vec<(usize, u8, u8)> {
        let mut pairs = Vec::new();
        for j in 0..sequence.len() {
            for lag in 1..=MAX_LAG.min(j) {
                pairs.push((lag, sequence[j - lag], sequence[j]));
            }
        }
        pairs.sort_unstable();
        pairs
    }

    /// `count` random cut points in `0..=len`, with 0 and `len`, ascending.
    fn random_cuts(seed: u64, count: usize, len: usize) -> Vec<usize> {
        let mut cuts: Vec<usize> =
            test_sequence(seed, count, len as u64 + 1).iter().map(|&c| c as usize).collect();
        cuts.extend([0, len]);
        cuts.sort_unstable();
        cuts
    }

    fn record(values: &[u8], pairs: &mut Vec<(usize, u8, u8)>) -> Window<u8> {
        let mut window = Window::default();
        for &v in values {
            window.push(v, |lag, earlier| pairs.push((lag, earlier, v)));
        }
        window
    }

    #[test]
    fn any_segmentation_counts_every_pair_once() {
        for seed in 0..400 {
            let sequence = test_sequence(seed, seed as usize % 45, 7);
            let cuts = random_cuts(seed + 99, 1 + seed as usize % 6, sequence.len());
            let mut pairs = Vec::new();
            let mut parts: Vec<Window<u8>> =
                cuts.windows(2).map(|w| record(&sequence[w[0]..w[1]], &mut pairs)).collect();
            // Join in a tree order, as rayon's reduce does: neighbours pairwise.
            while parts.len() > 1 {
                let mut next = Vec::new();
                let mut iter = parts.into_iter();
                while let Some(mut left) = iter.next() {
                    if let Some(right) = iter.next() {
                        left.join(right, |lag, a, b| pairs.push((lag, a, b)));
                    }
                    next.push(left);
                }
                parts = next;
            }
            pairs.sort_unstable();
            assert_eq!(pairs, direct(&sequence), "seed {seed} cuts {cuts:?}");
            let whole = parts.pop().unwrap_or_default();
            assert!(whole.is_consistent(sequence.len() as u64), "seed {seed}");
        }
    }

    #[test]
    fn batches_pair_and_advance_as_pushing_their_values() {
        for seed in 0..300 {
            let sequence = test_sequence(seed, seed as usize % 170, 9);
            let cuts = random_cuts(seed + 7, 1 + seed as usize % 5, sequence.len());
            let (mut one_by_one, mut batched) = (Vec::new(), Vec::new());
            let single = record(&sequence, &mut one_by_one);
            let mut window = Window::default();
            for part in cuts.windows(2) {
                for batch in sequence[part[0]..part[1]].chunks(ROUNDS_PER_BATCH) {
                    let recent = window.recent(batch);
                    for lag in 1..=MAX_LAG {
                        for r in recent.pairs_at(lag) {
                            batched.push((lag, recent.before(lag)[r], recent.now()[r]));
                        }
                    }
                    window.advance(batch);
                }
            }
            one_by_one.sort_unstable();
            batched.sort_unstable();
            assert_eq!(batched, one_by_one, "seed {seed} cuts {cuts:?}");
            assert_eq!(window, single, "seed {seed} cuts {cuts:?}");
        }
    }

    #[test]
    fn unpaired_values_counted_in_bulk_pair_as_pushing_them() {
        // Long sequences (past UNPAIRED_BULK), cut into segments of random batches, each
        // batch's pairs drained when full, at random points and at the end of a segment.
        for seed in 0..40 {
            let sequence = test_sequence(seed, 1 + seed as usize * 397 % 13_000, 9);
            let cuts = random_cuts(seed + 11, 1 + seed as usize % 4, sequence.len());
            let (mut one_by_one, mut bulk) = (Vec::new(), Vec::new());
            record(&sequence, &mut one_by_one);
            let mut unpaired = Unpaired::default();
            for part in cuts.windows(2) {
                let mut window = Window::default();
                let segment = &sequence[part[0]..part[1]];
                let sizes = test_sequence(seed + 5, segment.len(), ROUNDS_PER_BATCH as u64);
                let (mut at, mut size) = (0, sizes.iter().cycle());
                while at < segment.len() {
                    let len = (*size.next().unwrap_or(&0) as usize + 1).min(segment.len() - at);
                    let batch = &segment[at..at + len];
                    unpaired.extend(&window, at as u64, batch);
                    window.advance(batch);
                    at += len;
                    if unpaired.is_full() || (seed + at as u64).is_multiple_of(7) {
                        unpaired.drain_pairs(|lag, a, b| {
                            bulk.extend(a.iter().zip(b).map(|(&a, &b)| (lag, a, b)))
                        });
                    }
                }
                unpaired.drain_pairs(|lag, a, b| bulk.extend(a.iter().zip(b).map(|(&a, &b)| (lag, a, b))));
                assert!(unpaired.is_empty());
                // The pairs that straddle the cuts are the joins' (counted here to compare).
                if part[0] > 0 {
                    let left = record(&sequence[..part[0]], &mut Vec::new());
                    left.clone().join(window.clone(), |lag, a, b| bulk.push((lag, a, b)));
                }
            }
            one_by_one.sort_unstable();
            bulk.sort_unstable();
            assert_eq!(bulk, one_by_one, "seed {seed} cuts {cuts:?}");
        }
    }

    #[test]
    #[should_panic(expected = "one run of consecutive batches")]
    fn unpaired_values_of_two_runs_are_refused() {
        let mut unpaired = Unpaired::default();
        let window = Window::default();
        unpaired.extend(&window, 0, &[1u8, 2, 3]);
        unpaired.extend(&window, 5, &[4u8]);
    }

    #[test]
    fn inconsistent_windows_are_detected() {
        let window = Window { head: vec![1u8, 2], tail: vec![1, 3] };
        assert!(!window.is_consistent(2));
        assert!(Window { head: vec![1u8, 2], tail: vec![1, 2] }.is_consistent(2));
        assert!(!Window::<u8>::default().is_consistent(1));
    }
}
