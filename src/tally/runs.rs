//! Run lengths of a symbol sequence (e.g. red/black/green), mergeable across segments.
//!
//! A run is a maximal block of equal consecutive symbols. Within a segment, runs that are
//! closed on both sides go straight into the histogram; the segment's first run (the
//! prefix) and last run (the suffix) stay open, because the neighbouring segment may
//! continue them. Joining two adjacent segments closes or extends those open runs, and
//! [`RunLengths::close`] finally counts the prefix and suffix as the sequence's first and
//! last runs. The result equals a single sequential scan, whatever the segmentation.

use serde::{Deserialize, Serialize};

/// Open runs at the ends of a non-empty segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenRuns {
    /// Symbol of the first run.
    pub first: u8,
    /// Length of the first run.
    pub prefix: u64,
    /// Symbol of the last run.
    pub last: u8,
    /// Length of the last run.
    pub suffix: u64,
    /// Length of the segment; the segment is a single run when `prefix == len`.
    pub len: u64,
}

/// A histogram of run lengths per symbol, with lengths at or above `cap` in one last bucket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunLengths {
    /// Number of distinct symbols.
    pub symbols: usize,
    /// Lengths `1..cap` have their own bucket; bucket `cap` holds every length `>= cap`.
    pub cap: usize,
    /// `hist[symbol * cap + min(length, cap) - 1]` counts closed runs.
    pub hist: Vec<u64>,
    /// The segment's open runs (`None` while empty or once closed).
    pub open: Option<OpenRuns>,
}

impl RunLengths {
    /// An empty tally for `symbols` symbols and the given cap.
    pub fn new(symbols: usize, cap: usize) -> Self {
        Self { symbols, cap, hist: vec![0; symbols * cap], open: None }
    }

    /// Closed runs of `symbol` with length `length` (the last bucket: `>= cap`).
    pub fn count(&self, symbol: usize, length: usize) -> u64 {
        self.hist[symbol * self.cap + length.min(self.cap) - 1]
    }

    #[inline]
    fn close_run(&mut self, symbol: u8, length: u64) {
        let bucket = length.min(self.cap as u64) as usize - 1;
        self.hist[usize::from(symbol) * self.cap + bucket] += 1;
    }

    /// Records the next symbol of the sequence.
    #[inline]
    pub fn record(&mut self, symbol: u8) {
        let Some(open) = self.open.as_mut() else {
            self.open = Some(OpenRuns { first: symbol, prefix: 1, last: symbol, suffix: 1, len: 1 });
            return;
        };
        if symbol == open.last {
            if open.prefix == open.len {
                open.prefix += 1;
            }
            open.suffix += 1;
            open.len += 1;
            return;
        }
        let (ended, ended_len, was_prefix) = (open.last, open.suffix, open.prefix == open.len);
        open.last = symbol;
        open.suffix = 1;
        open.len += 1;
        if !was_prefix {
            self.close_run(ended, ended_len);
        }
    }

    /// Records the next symbols of the sequence, in order: what [`RunLengths::record`] on
    /// each would do, with no branch on whether a run ended. For colours that branch is a
    /// coin flip, mispredicted about every other spin (profiled): here a symbol always
    /// adds 0 or 1 to the bucket of the run before it.
    #[inline(always)]
    pub fn record_all(&mut self, symbols: &[u8]) {
        let Some((&first, rest)) = symbols.split_first() else { return };
        self.record(first);
        let Self { hist, cap, open: Some(open), .. } = self else { unreachable!("a symbol was recorded") };
        let cap = *cap;
        // `single`: the segment is still one run (its first, which stays open).
        let (mut last, mut suffix, mut single) = (open.last, open.suffix, open.prefix == open.len);
        let mut prefix = open.prefix;
        for &symbol in rest {
            let ended = symbol != last;
            let bucket = usize::from(last) * cap + suffix.min(cap as u64) as usize - 1;
            hist[bucket] += u64::from(ended & !single);
            single &= !ended;
            prefix += u64::from(single);
            suffix = if ended { 1 } else { suffix + 1 };
            last = symbol;
        }
        open.len += rest.len() as u64;
        (open.prefix, open.last, open.suffix) = (prefix, last, suffix);
    }

    /// Joins `later`, the tally of the segment directly after this one.
    pub fn append(&mut self, later: RunLengths) {
        debug_assert_eq!((self.symbols, self.cap), (later.symbols, later.cap));
        for (mine, theirs) in self.hist.iter_mut().zip(&later.hist) {
            *mine += theirs;
        }
        let (a, b) = match (self.open, later.open) {
            (_, None) => return,
            (None, Some(b)) => {
                self.open = Some(b);
                return;
            }
            (Some(a), Some(b)) => (a, b),
        };
        let (a_single, b_single) = (a.prefix == a.len, b.prefix == b.len);
        let (mut prefix, mut suffix) = (a.prefix, b.suffix);
        if a.last == b.first {
            let joined = a.suffix + b.prefix;
            match (a_single, b_single) {
                (true, true) => (prefix, suffix) = (joined, joined),
                (true, false) => prefix = joined,
                (false, true) => suffix = joined,
                (false, false) => self.close_run(a.last, joined),
            }
        } else {
            if !a_single {
                self.close_run(a.last, a.suffix);
            }
            if !b_single {
                self.close_run(b.first, b.prefix);
            }
        }
        self.open = Some(OpenRuns { first: a.first, prefix, last: b.last, suffix, len: a.len + b.len });
    }

    /// Counts the open first and last runs as complete: the segment is the whole sequence.
    pub fn close(&mut self) {
        if let Some(open) = self.open.take() {
            self.close_run(open.first, open.prefix);
            if open.prefix != open.len {
                self.close_run(open.last, open.suffix);
            }
        }
    }

    /// Checks a tally of `rounds` symbols read from a file: the open runs fit the segment
    /// and the closed runs fit in its rounds.
    pub fn validate(&self, name: &str, rounds: u64) -> Result<(), super::TallyError> {
        let bad = |what: &str| Err(super::TallyError::Shape(format!("{name}: {what}")));
        super::check_len(&format!("{name}.hist"), &self.hist, self.symbols * self.cap)?;
        let closed_rounds: u128 =
            self.hist.iter().enumerate().map(|(i, &c)| u128::from(c) * (i % self.cap + 1) as u128).sum();
        if closed_rounds > u128::from(rounds) {
            return bad("more runs than rounds");
        }
        match (&self.open, rounds) {
            (None, 0) => Ok(()),
            (None, _) | (Some(_), 0) => bad("open runs do not match the rounds"),
            (Some(o), _) => {
                let symbols = self.symbols as u64;
                let single = o.prefix == o.len;
                let fits = o.len == rounds
                    && u64::from(o.first) < symbols
                    && u64::from(o.last) < symbols
                    && (1..=o.len).contains(&o.prefix)
                    && (1..=o.len).contains(&o.suffix)
                    && if single {
                        o.suffix == o.len && o.first == o.last
                    } else {
                        o.prefix + o.suffix <= o.len
                    };
                if fits {
                    Ok(())
                } else {
                    bad("open runs out of range")
                }
            }
        }
    }

    /// Checks the runs against what other counters of the same segment fix: `symbols_seen[s]`,
    /// the rounds whose symbol is `s`, and `changes_from[s]`, the consecutive rounds going
    /// from `s` to another symbol (from the serial pairs). Every run but the segment's last
    /// ends in such a change, so the closed runs of `s` number `changes_from[s]`, less one
    /// when the open first run is of `s`; and their lengths add up to the rounds of `s`
    /// outside the open runs, exactly when none is in the last bucket (whose lengths are
    /// only known to be at least `cap`). Call after [`RunLengths::validate`].
    pub fn check_against(
        &self,
        name: &str,
        symbols_seen: &[u64],
        changes_from: &[u64],
    ) -> Result<(), super::TallyError> {
        let Some(open) = self.open else {
            return Ok(()); // No rounds: `validate` saw every table at zero sum.
        };
        let single = open.prefix == open.len;
        for s in 0..self.symbols {
            let row = &self.hist[s * self.cap..(s + 1) * self.cap];
            let closed: u128 = row.iter().map(|&c| u128::from(c)).sum();
            let first_is_s = usize::from(open.first) == s;
            let ending_in_open = u128::from(!single && first_is_s);
            let ended = u128::from(changes_from[s]);
            if ended < ending_in_open || closed != ended - ending_in_open {
                return Err(super::TallyError::Shape(format!(
                    "{name}: {closed} closed runs of symbol {s}, where the serial pairs leave the symbol {ended} times"
                )));
            }
            let mut in_open = if first_is_s { u128::from(open.prefix) } else { 0 };
            if !single && usize::from(open.last) == s {
                in_open += u128::from(open.suffix);
            }
            let at_least: u128 = row.iter().enumerate().map(|(i, &c)| u128::from(c) * (i as u128 + 1)).sum();
            let rounds = u128::from(symbols_seen[s]).checked_sub(in_open);
            let fits = rounds.is_some_and(|rounds| {
                if row[self.cap - 1] == 0 {
                    at_least == rounds
                } else {
                    at_least <= rounds
                }
            });
            if !fits {
                return Err(super::TallyError::Shape(format!(
                    "{name}: the runs of symbol {s} do not add up to its {} rounds",
                    symbols_seen[s]
                )));
            }
        }
        Ok(())
    }

    /// Adds another closed tally's counts.
    pub fn add_closed(&mut self, other: &RunLengths) {
        debug_assert!(self.open.is_none() && other.open.is_none());
        for (mine, theirs) in self.hist.iter_mut().zip(&other.hist) {
            *mine += theirs;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small deterministic generator for test sequences (xorshift64*).
    pub(crate) fn test_sequence(seed: u64, len: usize, symbols: u64) -> Vec<u8> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as u8 % symbols as u8
            })
            .collect()
    }

    fn direct_scan(sequence: &[u8], symbols: usize, cap: usize) -> Vec<u64> {
        let mut hist = vec![0; symbols * cap];
        let mut start = 0;
        for i in 1..=sequence.len() {
            if i == sequence.len() || sequence[i] != sequence[start] {
                hist[usize::from(sequence[start]) * cap + (i - start).min(cap) - 1] += 1;
                start = i;
            }
        }
        hist
    }

    fn tally(sequence: &[u8]) -> RunLengths {
        let mut runs = RunLengths::new(3, 4);
        sequence.iter().for_each(|&s| runs.record(s));
        runs
    }

    #[test]
    fn any_segmentation_equals_one_scan() {
        for seed in 0..300 {
            // Two symbols, skewed, so long runs and whole-segment runs are common.
            let sequence: Vec<u8> = test_sequence(seed, 1 + seed as usize % 40, 5)
                .iter()
                .map(|&s| u8::from(s == 0) * 2)
                .collect();
            let cuts = test_sequence(seed + 1000, 3, sequence.len() as u64 + 1);
            let mut cuts: Vec<usize> = cuts.iter().map(|&c| c as usize).collect();
            cuts.push(0);
            cuts.push(sequence.len());
            cuts.sort_unstable();
            let mut joined = RunLengths::new(3, 4);
            for window in cuts.windows(2) {
                joined.append(tally(&sequence[window[0]..window[1]]));
            }
            joined.close();
            assert_eq!(
                joined.hist,
                direct_scan(&sequence, 3, 4),
                "seed {seed}: {sequence:?} cut at {cuts:?}"
            );
        }
    }

    #[test]
    fn recording_several_symbols_at_once_equals_recording_them_one_by_one() {
        // Open runs kept across calls, segments that stay one run, runs past the cap.
        for seed in 0..400 {
            let sequence: Vec<u8> = test_sequence(seed, seed as usize % 90, 7)
                .iter()
                .map(|&s| u8::from(s < 5) * (s % 3))
                .collect();
            let cuts = test_sequence(seed + 77, 4, sequence.len() as u64 + 1);
            let mut cuts: Vec<usize> = cuts.iter().map(|&c| c as usize).collect();
            cuts.extend([0, sequence.len()]);
            cuts.sort_unstable();
            let mut batched = RunLengths::new(3, 4);
            for window in cuts.windows(2) {
                batched.record_all(&sequence[window[0]..window[1]]);
            }
            assert_eq!(batched, tally(&sequence), "seed {seed}: {sequence:?} cut at {cuts:?}");
        }
    }

    #[test]
    fn long_runs_share_the_capped_bucket() {
        let mut runs = tally(&[1, 1, 1, 1, 1, 1, 0]);
        runs.close();
        assert_eq!(runs.count(1, 4), 1, "a run of 6 lands in the >= 4 bucket");
        assert_eq!(runs.count(0, 1), 1);
        assert_eq!(runs.hist.iter().sum::<u64>(), 2);
    }
}
