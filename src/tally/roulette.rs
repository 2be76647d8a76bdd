//! Roulette tallies: pockets, consecutive-spin pairs and pairs L = 2..=10 spins apart,
//! runs of colour and of low/high, and gaps between repeats of each pocket. The bet groups (colour, parity, low/high, dozens,
//! columns) are exact sums of pocket counts, so they are derived from them, not counted
//! twice.

use super::gaps::Gaps;
use super::runs::RunLengths;
use super::stream::StreamTally;
use super::window::{Unpaired, Window, MAX_LAG};
use super::{check_len, check_sum, set_bits, SequenceTally, TallyError};
use crate::chain::ROUNDS_PER_BATCH;
use crate::games::roulette::{is_red, REFERENCE_WORDS};
use crate::games::{Roulette, Spin, SpinColumns};
use serde::{Deserialize, Serialize};

/// Runs of length `RUN_CAP` or more share the histogram's last bucket.
pub const RUN_CAP: usize = 32;
/// Gaps of `GAP_CAP` or more rounds share the histogram's last bucket (about 3% of gaps
/// on a fair European wheel: (36/37)^128).
pub const GAP_CAP: usize = 128;

/// Colour symbols in the colour-run tally.
pub const COLOUR_SYMBOLS: [&str; 3] = ["red", "black", "green"];
/// Symbols in the low/high-run tally (zero is 0 and 00).
pub const LOW_HIGH_SYMBOLS: [&str; 3] = ["low", "high", "zero"];

/// The colour symbol of a pocket: 0 red, 1 black, 2 green (0 and 00).
#[inline]
pub const fn colour(pocket: u8) -> u8 {
    match pocket {
        0 | 37 => 2,
        p if is_red(p) => 0,
        _ => 1,
    }
}

/// The low/high symbol of a pocket: 0 low (1–18), 1 high (19–36), 2 zero (0 and 00).
#[inline]
pub const fn low_high(pocket: u8) -> u8 {
    match pocket {
        1..=18 => 0,
        19..=36 => 1,
        _ => 2,
    }
}

/// `COLOUR[p]`: [`colour`] of pocket `p`, and `LOW_HIGH[p]` its [`low_high`], looked up in
/// the sweep's batches (`colour` searches the red numbers: a tenth of the roulette
/// tally's time, profiled).
const COLOUR: [u8; 38] = symbol_table(false);
const LOW_HIGH: [u8; 38] = symbol_table(true);

const fn symbol_table(low_high_symbols: bool) -> [u8; 38] {
    let mut table = [0; 38];
    let mut pocket = 0;
    while pocket < 38 {
        table[pocket as usize] = if low_high_symbols { low_high(pocket) } else { colour(pocket) };
        pocket += 1;
    }
    table
}

/// Lags counted beside lag 1: 2..=[`MAX_LAG`].
pub const LAGGED: usize = MAX_LAG - 1;

/// The table of pairs `lag` spins apart (1..=[`MAX_LAG`]): `pairs` at lag 1, else lag
/// `lag`'s part of `lag_pairs`.
#[inline]
fn pair_table<'a>(
    pairs: &'a mut [u64],
    lag_pairs: &'a mut [u64],
    pockets: usize,
    lag: usize,
) -> &'a mut [u64] {
    match lag {
        1 => pairs,
        _ => &mut lag_pairs[(lag - 2) * pockets * pockets..(lag - 1) * pockets * pockets],
    }
}

#[inline]
fn count_pair(pairs: &mut [u64], lag_pairs: &mut [u64], pockets: usize, lag: usize, a: u8, b: u8) {
    pair_table(pairs, lag_pairs, pockets, lag)[usize::from(a) * pockets + usize::from(b)] += 1;
}

/// Integer counters for a run of roulette spins on one wheel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouletteTally {
    /// `pockets[p]`: spins landing on pocket `p` (37 is "00").
    pub pockets: Vec<u64>,
    /// `pairs[a * pockets + b]`: consecutive spins (n, n+1) landing on `a` then `b`.
    pub pairs: Vec<u64>,
    /// `lag_pairs[((L - 2) * pockets + a) * pockets + b]`: spins (n, n+L), L = 2..=10,
    /// landing on `a` then `b`.
    pub lag_pairs: Vec<u64>,
    /// The first and last ten pockets of the segment.
    pub edges: Window<u8>,
    /// Run lengths of red / black / green.
    pub colour_runs: RunLengths,
    /// Run lengths of low / high / zero.
    pub low_high_runs: RunLengths,
    /// Gaps between repeats of each pocket.
    pub gaps: Gaps,
    /// Stream consumption.
    pub stream: StreamTally,
}

impl SequenceTally for RouletteTally {
    type Game = Roulette;
    type Pending = Unpaired<u8>;

    fn new(game: Roulette) -> Self {
        let pockets = game.pockets() as usize;
        Self {
            pockets: vec![0; pockets],
            pairs: vec![0; pockets * pockets],
            lag_pairs: vec![0; LAGGED * pockets * pockets],
            edges: Window::default(),
            colour_runs: RunLengths::new(3, RUN_CAP),
            low_high_runs: RunLengths::new(3, RUN_CAP),
            gaps: Gaps::new(pockets, GAP_CAP),
            stream: StreamTally::new(1),
        }
    }

    #[inline]
    fn record(&mut self, spin: &Spin) {
        let pocket = spin.pocket;
        self.pockets[usize::from(pocket)] += 1;
        let (pairs, lag_pairs, n) = (&mut self.pairs, &mut self.lag_pairs, self.pockets.len());
        self.edges.push(pocket, |lag, earlier| count_pair(pairs, lag_pairs, n, lag, earlier, pocket));
        self.colour_runs.record(colour(pocket));
        self.low_high_runs.record(low_high(pocket));
        self.gaps.record(usize::from(pocket));
        self.stream.record(&[spin.rejected], REFERENCE_WORDS);
    }

    /// Records the spins of one batch: once `pending` is counted, exactly what
    /// [`SequenceTally::record`] on each of them in order would do. Each kind of counter
    /// takes the whole batch in turn, so that its table is the one in the cache and its
    /// loop has no branch that depends on the spins. The serial and lagged pairs wait in
    /// `pending` and are counted in bulk, a lag at a time ([`Unpaired`]).
    #[inline(always)]
    fn record_drawn(&mut self, spins: &SpinColumns, pending: &mut Unpaired<u8>) {
        let len = spins.len;
        assert!((1..=ROUNDS_PER_BATCH).contains(&len), "a batch holds 1 to {ROUNDS_PER_BATCH} spins");
        let pockets = &spins.pockets[..len];
        for &pocket in pockets {
            self.pockets[usize::from(pocket)] += 1;
        }
        pending.extend(&self.edges, self.rounds(), pockets);
        self.edges.advance(pockets);
        if pending.is_full() {
            self.count_pending(pending);
        }
        let (mut colours, mut low_high) = ([0u8; ROUNDS_PER_BATCH], [0u8; ROUNDS_PER_BATCH]);
        for ((colour, low_high), &pocket) in colours.iter_mut().zip(&mut low_high).zip(pockets) {
            *colour = COLOUR[usize::from(pocket)];
            *low_high = LOW_HIGH[usize::from(pocket)];
        }
        self.colour_runs.record_all(&colours[..len]);
        self.low_high_runs.record_all(&low_high[..len]);
        self.gaps.record_all(pockets);
        let rejecting = spins.rejecting & u64::MAX >> (ROUNDS_PER_BATCH - len);
        let plain = len as u64 - u64::from(rejecting.count_ones());
        self.stream.record_without_rejections(plain, 1, REFERENCE_WORDS);
        for r in set_bits(rejecting) {
            self.stream.record(&[spins.rejected[r]], REFERENCE_WORDS);
        }
    }

    /// Counts the held spins' pairs, a lag at a time into its table.
    fn count_pending(&mut self, pending: &mut Unpaired<u8>) {
        let n = self.pockets.len();
        let (pairs, lag_pairs) = (&mut self.pairs, &mut self.lag_pairs);
        pending.drain_pairs(|lag, before, now| {
            let table = pair_table(pairs, lag_pairs, n, lag);
            for (&a, &b) in before.iter().zip(now) {
                table[usize::from(a) * n + usize::from(b)] += 1;
            }
        });
    }

    fn append(&mut self, later: Self) {
        self.add_counts(&later);
        let (pairs, lag_pairs, n) = (&mut self.pairs, &mut self.lag_pairs, self.pockets.len());
        self.edges.join(later.edges, |lag, a, b| count_pair(pairs, lag_pairs, n, lag, a, b));
        self.colour_runs.append(later.colour_runs);
        self.low_high_runs.append(later.low_high_runs);
        self.gaps.append(later.gaps);
    }

    fn close(&mut self) {
        self.edges = Window::default();
        self.colour_runs.close();
        self.low_high_runs.close();
        self.gaps.close();
    }

    fn add_closed(&mut self, other: &Self) {
        self.add_counts(other);
        self.colour_runs.add_closed(&other.colour_runs);
        self.low_high_runs.add_closed(&other.low_high_runs);
        self.gaps.add_closed(&other.gaps);
    }

    fn validate(&self) -> Result<(), TallyError> {
        let n = self.pockets.len();
        if n != 37 && n != 38 {
            return Err(TallyError::Shape(format!("pockets has {n} entries, expected 37 or 38")));
        }
        check_len("pairs", &self.pairs, n * n)?;
        check_len("lag_pairs", &self.lag_pairs, LAGGED * n * n)?;
        let shape = |name: &str, runs: &RunLengths| {
            if runs.symbols == 3 && runs.cap == RUN_CAP {
                Ok(())
            } else {
                Err(TallyError::Shape(format!(
                    "{name} has {} symbols and cap {}, expected 3 and {RUN_CAP}",
                    runs.symbols, runs.cap
                )))
            }
        };
        shape("colour_runs", &self.colour_runs)?;
        shape("low_high_runs", &self.low_high_runs)?;
        if self.gaps.outcomes != n || self.gaps.cap != GAP_CAP {
            return Err(TallyError::Shape(format!(
                "gaps has {} outcomes and cap {}, expected {n} and {GAP_CAP}",
                self.gaps.outcomes, self.gaps.cap
            )));
        }
        let rounds = self.rounds();
        check_sum("pockets", &self.pockets, rounds)?;
        check_sum("pairs", &self.pairs, rounds.saturating_sub(1))?;
        for (i, table) in self.lag_pairs.chunks_exact(n * n).enumerate() {
            check_sum(&format!("pairs at lag {}", i + 2), table, rounds.saturating_sub(i as u64 + 2))?;
        }
        self.colour_runs.validate("colour_runs", rounds)?;
        self.low_high_runs.validate("low_high_runs", rounds)?;
        self.gaps.validate(rounds)?;
        self.stream.validate(rounds, 1, REFERENCE_WORDS)?;
        let off_wheel = self.edges.head.iter().chain(&self.edges.tail).any(|&p| usize::from(p) >= n);
        if !self.edges.is_consistent(rounds) || off_wheel {
            return Err(TallyError::Shape("edges do not match the rounds tallied".into()));
        }
        self.check_relations()
    }

    fn rounds(&self) -> u64 {
        self.stream.rounds
    }

    fn edge_reach(&self) -> (u64, u64) {
        let len = self.rounds();
        let (mut front, mut back) = (MAX_LAG as u64, MAX_LAG as u64);
        for runs in [&self.colour_runs, &self.low_high_runs] {
            if let Some(open) = runs.open {
                front = front.max(open.prefix.saturating_add(1));
                back = back.max(open.suffix.saturating_add(1));
            }
        }
        for (first, last) in self.gaps.first.iter().zip(&self.gaps.last) {
            front = front.max(first.map_or(0, |f| f.saturating_add(1)));
            back = back.max(last.map_or(0, |l| len.saturating_sub(l)));
        }
        (front, back)
    }

    fn check_edges(&self, front: &Self, back: &Self) -> Result<(), TallyError> {
        let bad = |what: &str| Err(TallyError::Shape(format!("{what} are not those the seeds give")));
        if self.edges.head != front.edges.head || self.edges.tail != back.edges.tail {
            return bad("edges");
        }
        for (name, runs, front_runs, back_runs) in [
            ("colour_runs", &self.colour_runs, &front.colour_runs, &back.colour_runs),
            ("low_high_runs", &self.low_high_runs, &front.low_high_runs, &back.low_high_runs),
        ] {
            let ends = |runs: &RunLengths| runs.open.map(|o| ((o.first, o.prefix), (o.last, o.suffix)));
            let (first, last) = (ends(runs).map(|e| e.0), ends(runs).map(|e| e.1));
            if first != ends(front_runs).map(|e| e.0) || last != ends(back_runs).map(|e| e.1) {
                return bad(&format!("{name}: the open first and last runs"));
            }
        }
        // Positions in `back` count from its own first round.
        let offset = self.rounds() - back.rounds();
        let back_last = back.gaps.last.iter().map(|l| l.map(|l| l + offset));
        if self.gaps.first != front.gaps.first || !self.gaps.last.iter().copied().eq(back_last) {
            return bad("gaps: first and last positions");
        }
        Ok(())
    }
}

impl RouletteTally {
    /// Checks what the counters fix about each other, so that a tally read from a file is
    /// one a sweep could have produced (every single changed counter breaks one of these):
    ///
    /// - the pairs `L` spins apart (`L` = 1..=10) leaving pocket `a` are the spins of `a`
    ///   but those among the last `L`, and those arriving at `b` the spins of `b` but those
    ///   among the first `L` (the edges);
    /// - colour and low/high runs against the pocket counts and the serial pairs
    ///   ([`RunLengths::check_against`]), their open first and last symbols against the
    ///   edges;
    /// - gaps against the pocket counts ([`Gaps::check_against`]), and the gap of 0
    ///   before a pocket against the consecutive pairs repeating it.
    ///
    /// The edges themselves, the open runs' lengths and the gaps' first and last positions
    /// are re-derived from the seeds when a file is read ([`super::anchor`]).
    fn check_relations(&self) -> Result<(), TallyError> {
        let (n, rounds) = (self.pockets.len(), self.rounds());
        let bad = |what: String| Err(TallyError::Shape(what));
        for lag in 1..=MAX_LAG.min(rounds as usize) {
            let table = match lag {
                1 => &self.pairs[..],
                _ => &self.lag_pairs[(lag - 2) * n * n..(lag - 1) * n * n],
            };
            let (head, tail) = (&self.edges.head[..lag], &self.edges.tail[self.edges.tail.len() - lag..]);
            for pocket in 0..n {
                let spins = u128::from(self.pockets[pocket]);
                let leaving: u128 = table[pocket * n..(pocket + 1) * n].iter().map(|&c| u128::from(c)).sum();
                let arriving: u128 = (0..n).map(|a| u128::from(table[a * n + pocket])).sum();
                let among = |edge: &[u8]| edge.iter().filter(|&&p| usize::from(p) == pocket).count() as u128;
                if leaving + among(tail) != spins || arriving + among(head) != spins {
                    return bad(format!(
                        "pairs at lag {lag} do not add up to the {spins} spins of pocket {pocket}"
                    ));
                }
            }
        }
        for (name, runs, symbol) in
            [("colour_runs", &self.colour_runs, &COLOUR), ("low_high_runs", &self.low_high_runs, &LOW_HIGH)]
        {
            let (mut seen, mut changes) = ([0u64; 3], [0u64; 3]);
            for a in 0..n {
                let s = usize::from(symbol[a]);
                seen[s] += self.pockets[a];
                for b in (0..n).filter(|&b| symbol[b] != symbol[a]) {
                    changes[s] += self.pairs[a * n + b];
                }
            }
            runs.check_against(name, &seen, &changes)?;
            if let (Some(open), Some(&head), Some(&tail)) =
                (runs.open, self.edges.head.first(), self.edges.tail.last())
            {
                if open.first != symbol[usize::from(head)] || open.last != symbol[usize::from(tail)] {
                    return bad(format!("{name}: the open runs' symbols are not those of the edges"));
                }
            }
        }
        self.gaps.check_against(&self.pockets)?;
        for pocket in 0..n {
            if self.gaps.count(pocket, 0) != self.pairs[pocket * n + pocket] {
                return bad(format!(
                    "gaps of 0 before pocket {pocket} differ from its repeated consecutive spins"
                ));
            }
        }
        Ok(())
    }

    fn add_counts(&mut self, other: &Self) {
        self.pockets.iter_mut().zip(&other.pockets).for_each(|(m, t)| *m += t);
        self.pairs.iter_mut().zip(&other.pairs).for_each(|(m, t)| *m += t);
        self.lag_pairs.iter_mut().zip(&other.lag_pairs).for_each(|(m, t)| *m += t);
        self.stream.add(&other.stream);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_follow_the_table() {
        assert_eq!((colour(0), colour(37), colour(1), colour(2)), (2, 2, 0, 1));
        assert_eq!((low_high(0), low_high(18), low_high(19), low_high(37)), (2, 0, 1, 2));
        for pocket in 0..38 {
            assert_eq!(COLOUR[usize::from(pocket)], colour(pocket), "pocket {pocket}");
            assert_eq!(LOW_HIGH[usize::from(pocket)], low_high(pocket), "pocket {pocket}");
        }
    }

    #[test]
    fn batches_drawn_at_once_tally_as_spins_drawn_and_recorded_one_by_one() {
        // Consecutive hashed batches on every path (the shared check), and spins with
        // rejections through `record_all`, against recording spin by spin.
        for wheel in [Roulette::EUROPEAN, Roulette::AMERICAN] {
            crate::tally::assert_batches_tally_as_rounds_one_by_one::<RouletteTally>(wheel);
            let spins: Vec<Spin> = (0..900u32)
                .map(|i| Spin {
                    pocket: ((i * 7919 + i / 13) % wheel.pockets()) as u8,
                    rejected: u32::from(i % 61 == 3) * (i % 4),
                })
                .collect();
            let mut one_by_one = RouletteTally::new(wheel);
            spins.iter().for_each(|spin| one_by_one.record(spin));
            for batch in [1, 7, 10, 63, 64, 65, 200, 900] {
                let mut batched = RouletteTally::new(wheel);
                spins.chunks(batch).for_each(|chunk| batched.record_all(chunk));
                assert_eq!(batched, one_by_one, "{wheel:?}, batches of {batch}");
            }
        }
    }
}
