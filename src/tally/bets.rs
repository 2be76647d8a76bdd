//! What the players' bets met: Keno hits on the numbers actually picked, roulette wins on
//! the bets actually placed, the money returned against its exact expectation, and the
//! rounds at skipped nonces that would have paid. The counters of one group of rounds (a
//! player, or a whole log); groups add up.

use std::collections::{BTreeMap, HashMap};

/// The bet counters of a group of rounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BetTally {
    /// Keno: `keno_hits[(k − 1) * 11 + h]` rounds where `k` numbers were picked and `h` hit.
    pub keno_hits: Vec<u64>,
    /// Roulette: `roulette_rounds[c]` rounds on bets covering `c` pockets.
    pub roulette_rounds: Vec<u64>,
    /// Roulette: `roulette_wins[c]` of them that won.
    pub roulette_wins: Vec<u64>,
    /// Rounds with a stake and a payout.
    pub staked_rounds: u64,
    /// The stakes, summed.
    pub staked: f64,
    /// The payouts as recorded, summed.
    pub returned: f64,
    /// The exact expected return of the bets as placed, summed (stake × the bet's RTP).
    pub expected_return: f64,
    /// The exact variance of the return of the bets as placed, summed (stake² × variance).
    pub return_variance: f64,
    /// The step of the lattice the total return lies on: the greatest common divisor of
    /// every amount a recorded bet can pay (0 when none is recorded). The return test's
    /// continuity correction is half of it.
    pub return_step: f64,
    /// Rounds at skipped nonces replayed, one entry per chance of winning of the bet they
    /// were replayed with (in the order first seen).
    pub skipped: Vec<SkippedRounds>,
    /// Bets whose chance of winning is exact from the bet alone (dice's target and
    /// direction, limbo's target): `chance_wins[(k, of)]` counts the rounds on bets that win
    /// on `k` of the `of` equally likely words a keyed scheme's pick accepts (2^32 floats in
    /// the HMAC-SHA256 family), and their wins. One class per chance, however many targets
    /// give it, so the exact law of the wins convolves one binomial per chance.
    pub chance_wins: BTreeMap<(u64, u64), WinCount>,
    /// Where each chance of `skipped` is (by its bits): a history whose gaps are followed by
    /// bets of a million chances finds each class at once, not by a scan.
    skipped_at: HashMap<u64, usize>,
}

/// Rounds on bets of one chance, and how many of them won.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WinCount {
    /// Rounds.
    pub rounds: u64,
    /// Of them, wins.
    pub wins: u64,
}

/// Rounds at skipped nonces replayed with bets that pay more than the stake with one
/// chance: one class of the law of the skipped-rounds test (`stats::bets::skipped_wins`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SkippedRounds {
    /// The exact chance that the replayed bet pays more than its stake on a fair draw.
    pub win_probability: f64,
    /// Rounds at skipped nonces replayed with such a bet.
    pub skipped: u64,
    /// Of them, those that would have paid more than the stake.
    pub skipped_winning: u64,
}

/// The greatest common divisor of two decimal amounts (0 is the identity). Euclid's
/// algorithm in floating point, a remainder below 1e-9 of the larger amount counting as
/// zero: the amounts are decimals of a few places, whose exact common step this finds; a
/// step found too small only weakens the continuity correction (never makes it too large).
/// By hand: the amounts are f64 here (the exact ones live in the audit layer above).
pub fn common_step(a: f64, b: f64) -> f64 {
    let tolerance = 1e-9 * a.max(b);
    let (mut a, mut b) = (a.max(b), a.min(b));
    while b > tolerance {
        (a, b) = (b, a % b);
    }
    a
}

/// Pick counts 1..=10, hits 0..=10: the layout of [`BetTally::keno_hits`].
pub const KENO_CELLS: usize = 10 * 11;
/// Pockets a roulette bet can cover, 0..=38: the layout of the roulette counters.
pub const ROULETTE_CELLS: usize = 39;

impl BetTally {
    /// Empty counters.
    pub fn new() -> BetTally {
        BetTally {
            keno_hits: vec![0; KENO_CELLS],
            roulette_rounds: vec![0; ROULETTE_CELLS],
            roulette_wins: vec![0; ROULETTE_CELLS],
            ..BetTally::default()
        }
    }

    /// Records a Keno round on `picks` numbers with `hits` hits.
    pub fn keno(&mut self, picks: usize, hits: u32) {
        self.keno_hits[(picks - 1) * 11 + hits as usize] += 1;
    }

    /// Records a roulette round on a bet covering `covered` pockets.
    pub fn roulette(&mut self, covered: usize, won: bool) {
        self.roulette_rounds[covered] += 1;
        self.roulette_wins[covered] += u64::from(won);
    }

    /// Records a round's money: what was staked and returned, and the bet's exact mean and
    /// variance of return per unit stake.
    pub fn money(&mut self, stake: f64, returned: f64, mean: f64, variance: f64) {
        self.staked_rounds += 1;
        self.staked += stake;
        self.returned += returned;
        self.expected_return += stake * mean;
        self.return_variance += stake * stake * variance;
    }

    /// Records `count` rounds at skipped nonces replayed with a bet that pays more than the
    /// stake with chance `win_probability`, `winning` of which would have.
    pub fn skipped_rounds(&mut self, win_probability: f64, count: u64, winning: u64) {
        let at = *self.skipped_at.entry(win_probability.to_bits()).or_insert_with(|| {
            self.skipped.push(SkippedRounds { win_probability, ..SkippedRounds::default() });
            self.skipped.len() - 1
        });
        let class = &mut self.skipped[at];
        class.skipped += count;
        class.skipped_winning += winning;
    }

    /// Records a round on a bet that wins on `winning.0` of the `winning.1` equally likely
    /// words of its pick, and whether it won.
    pub fn chance_bet(&mut self, winning: (u64, u64), won: bool) {
        let class = self.chance_wins.entry(winning).or_default();
        class.rounds += 1;
        class.wins += u64::from(won);
    }

    /// Records the step of the amounts a recorded bet can pay (its stake times the common
    /// divisor of its multipliers, since `gcd(s·a, s·b) = s·gcd(a, b)`): the return's
    /// lattice step becomes the common divisor of it and those before.
    pub fn payable(&mut self, amount: f64) {
        self.return_step = common_step(self.return_step, amount);
    }

    /// Adds another group's counters.
    pub fn add(&mut self, other: &BetTally) {
        for (mine, theirs) in [
            (&mut self.keno_hits, &other.keno_hits),
            (&mut self.roulette_rounds, &other.roulette_rounds),
            (&mut self.roulette_wins, &other.roulette_wins),
        ] {
            mine.iter_mut().zip(theirs).for_each(|(m, t)| *m += t);
        }
        self.staked_rounds += other.staked_rounds;
        self.staked += other.staked;
        self.returned += other.returned;
        self.expected_return += other.expected_return;
        self.return_variance += other.return_variance;
        self.return_step = common_step(self.return_step, other.return_step);
        for class in &other.skipped {
            self.skipped_rounds(class.win_probability, class.skipped, class.skipped_winning);
        }
        for (&winning, count) in &other.chance_wins {
            let class = self.chance_wins.entry(winning).or_default();
            class.rounds += count.rounds;
            class.wins += count.wins;
        }
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.bet_rounds() == 0
            && self.staked_rounds == 0
            && self.skipped.is_empty()
            && self.chance_wins.is_empty()
    }

    /// Rounds with a bet recorded.
    pub fn bet_rounds(&self) -> u64 {
        self.keno_hits.iter().sum::<u64>() + self.roulette_rounds.iter().sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_return_step_is_the_common_divisor_of_the_amounts() {
        assert_eq!(common_step(0.0, 2.5), 2.5);
        assert!((common_step(2.0, 36.0) - 2.0).abs() < 1e-12);
        assert!((common_step(0.5 * 36.0, 2.0 * 2.0) - 2.0).abs() < 1e-12);
        assert!((common_step(1.3, 0.2) - 0.1).abs() < 1e-9);
        let mut tally = BetTally::new();
        for amount in [36.0, 72.0, 180.0] {
            tally.payable(amount);
        }
        let mut other = BetTally::new();
        other.payable(2.0);
        tally.add(&other);
        assert!((tally.return_step - 2.0).abs() < 1e-12);
    }
}
