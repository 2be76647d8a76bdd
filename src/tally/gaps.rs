//! Gaps between repeats of each outcome, mergeable across segments.
//!
//! The gap before a repeat of outcome `x` is the number of rounds strictly between two
//! consecutive occurrences of `x` (0 when they are adjacent). A segment remembers where
//! each outcome first and last occurred, so the gap that straddles a join is counted when
//! two adjacent segments are joined. Gaps open at either end of the whole sequence are
//! censored (their length is unknown) and are never counted, as in a sequential scan.

use serde::{Deserialize, Serialize};

/// Per-outcome gap histograms, gaps at or above `cap` in one last bucket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gaps {
    /// Number of outcomes.
    pub outcomes: usize,
    /// Gaps `0..cap` have their own bucket; bucket `cap` holds every gap `>= cap`.
    pub cap: usize,
    /// `hist[outcome * (cap + 1) + min(gap, cap)]`.
    pub hist: Vec<u64>,
    /// Rounds in the segment.
    pub len: u64,
    /// Position (0-based, within the segment) of each outcome's first occurrence.
    pub first: Vec<Option<u64>>,
    /// Position of each outcome's last occurrence.
    pub last: Vec<Option<u64>>,
}

impl Gaps {
    /// An empty tally.
    pub fn new(outcomes: usize, cap: usize) -> Self {
        Self {
            outcomes,
            cap,
            hist: vec![0; outcomes * (cap + 1)],
            len: 0,
            first: vec![None; outcomes],
            last: vec![None; outcomes],
        }
    }

    /// Gaps of `gap` rounds before a repeat of `outcome` (the last bucket: `>= cap`).
    pub fn count(&self, outcome: usize, gap: usize) -> u64 {
        self.hist[outcome * (self.cap + 1) + gap.min(self.cap)]
    }

    #[inline]
    fn count_gap(&mut self, outcome: usize, gap: u64) {
        self.hist[outcome * (self.cap + 1) + gap.min(self.cap as u64) as usize] += 1;
    }

    /// Records the next round's outcome.
    #[inline(always)]
    pub fn record(&mut self, outcome: usize) {
        let position = self.len;
        match self.last[outcome] {
            Some(previous) => self.count_gap(outcome, position - previous - 1),
            None => self.first[outcome] = Some(position),
        }
        self.last[outcome] = Some(position);
        self.len += 1;
    }

    /// Records the next rounds' outcomes, in order.
    #[inline(always)]
    pub fn record_all(&mut self, outcomes: &[u8]) {
        outcomes.iter().for_each(|&outcome| self.record(usize::from(outcome)));
    }

    /// Joins `later`, the tally of the segment directly after this one.
    pub fn append(&mut self, later: Gaps) {
        debug_assert_eq!((self.outcomes, self.cap), (later.outcomes, later.cap));
        for (mine, theirs) in self.hist.iter_mut().zip(&later.hist) {
            *mine += theirs;
        }
        let offset = self.len;
        for outcome in 0..self.outcomes {
            if let (Some(a), Some(b)) = (self.last[outcome], later.first[outcome]) {
                self.count_gap(outcome, (offset - 1 - a) + b);
            }
            if self.first[outcome].is_none() {
                self.first[outcome] = later.first[outcome].map(|b| b + offset);
            }
            if let Some(b) = later.last[outcome] {
                self.last[outcome] = Some(b + offset);
            }
        }
        self.len += later.len;
    }

    /// Drops the censored edges: the segment is the whole sequence.
    pub fn close(&mut self) {
        self.len = 0;
        self.first.iter_mut().for_each(|f| *f = None);
        self.last.iter_mut().for_each(|l| *l = None);
    }

    /// Checks a tally of `rounds` rounds read from a file: positions inside the segment,
    /// and no more gaps than rounds.
    pub fn validate(&self, rounds: u64) -> Result<(), super::TallyError> {
        let bad = |what: &str| Err(super::TallyError::Shape(format!("gaps: {what}")));
        super::check_len("gaps.hist", &self.hist, self.outcomes * (self.cap + 1))?;
        super::check_len("gaps.first", &self.first, self.outcomes)?;
        super::check_len("gaps.last", &self.last, self.outcomes)?;
        if self.len != rounds {
            return bad("length does not match the rounds");
        }
        let positions_fit = self.first.iter().zip(&self.last).all(|pair| match pair {
            (None, None) => true,
            (Some(first), Some(last)) => first <= last && *last < rounds,
            _ => false,
        });
        if !positions_fit {
            return bad("first and last positions out of range");
        }
        if self.hist.iter().map(|&c| u128::from(c)).sum::<u128>() > u128::from(rounds) {
            return bad("more gaps than rounds");
        }
        Ok(())
    }

    /// Checks the gaps against `seen[x]`, the rounds of outcome `x` (its count in the same
    /// segment): an outcome seen `c > 0` times has a first and a last position and `c - 1`
    /// gaps, which add up to the rounds between its first and last occurrence that are not
    /// its own (exactly when none is in the last bucket, whose gaps are only known to be at
    /// least `cap`); an outcome never seen has neither positions nor gaps. Call after
    /// [`Gaps::validate`].
    pub fn check_against(&self, seen: &[u64]) -> Result<(), super::TallyError> {
        let bad = |x: usize, what: &str| {
            Err(super::TallyError::Shape(format!("gaps of outcome {x}: {what}, for its {} rounds", seen[x])))
        };
        for (x, &count) in seen.iter().enumerate() {
            let row = &self.hist[x * (self.cap + 1)..(x + 1) * (self.cap + 1)];
            let gaps: u128 = row.iter().map(|&c| u128::from(c)).sum();
            let (first, last) = match (self.first[x], self.last[x]) {
                (Some(first), Some(last)) if count > 0 => (first, last),
                (None, None) if count == 0 => {
                    if gaps != 0 {
                        return bad(x, "gaps");
                    }
                    continue;
                }
                _ => return bad(x, "first and last positions that do not fit"),
            };
            if gaps != u128::from(count - 1) {
                return bad(x, &format!("{gaps} gaps"));
            }
            let at_least: u128 = row.iter().enumerate().map(|(g, &c)| u128::from(c) * g as u128).sum();
            let between = (last - first).checked_sub(count - 1).map(u128::from);
            let fits = between.is_some_and(|between| {
                if row[self.cap] == 0 {
                    at_least == between
                } else {
                    at_least <= between
                }
            });
            if !fits || (count == 1) != (first == last) {
                return bad(x, "gaps that do not add up to its first and last positions");
            }
        }
        Ok(())
    }

    /// Adds another closed tally's counts.
    pub fn add_closed(&mut self, other: &Gaps) {
        for (mine, theirs) in self.hist.iter_mut().zip(&other.hist) {
            *mine += theirs;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tally::runs::tests::test_sequence;

    fn direct_scan(sequence: &[u8], outcomes: usize, cap: usize) -> Vec<u64> {
        let mut hist = vec![0; outcomes * (cap + 1)];
        for outcome in 0..outcomes {
            let positions: Vec<usize> = sequence
                .iter()
                .enumerate()
                .filter(|(_, &s)| usize::from(s) == outcome)
                .map(|(i, _)| i)
                .collect();
            for pair in positions.windows(2) {
                hist[outcome * (cap + 1) + (pair[1] - pair[0] - 1).min(cap)] += 1;
            }
        }
        hist
    }

    #[test]
    fn any_segmentation_equals_one_scan() {
        for seed in 0..300 {
            let sequence = test_sequence(seed, seed as usize % 60, 5);
            let mut cuts: Vec<usize> =
                test_sequence(seed + 7, 4, sequence.len() as u64 + 1).iter().map(|&c| c as usize).collect();
            cuts.extend([0, sequence.len()]);
            cuts.sort_unstable();
            let mut joined = Gaps::new(5, 6);
            for window in cuts.windows(2) {
                let mut part = Gaps::new(5, 6);
                sequence[window[0]..window[1]].iter().for_each(|&s| part.record(usize::from(s)));
                joined.append(part);
            }
            assert_eq!(joined.hist, direct_scan(&sequence, 5, 6), "seed {seed}");
        }
    }

    #[test]
    fn adjacent_repeats_have_gap_zero() {
        let mut gaps = Gaps::new(2, 3);
        [1, 1, 0, 0, 0, 1].iter().for_each(|&s| gaps.record(s));
        assert_eq!(gaps.count(1, 0), 1);
        assert_eq!(gaps.count(1, 3), 1, "gap of 3 in the >= 3 bucket");
        assert_eq!(gaps.count(0, 0), 2);
    }
}
