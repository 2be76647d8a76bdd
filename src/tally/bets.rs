//! What the players' bets met: Keno hits on the numbers actually picked, roulette wins on
//! the bets actually placed, the money returned against its exact expectation, and the
//! rounds at skipped nonces that would have paid. The counters of one group of rounds (a
//! player, or a whole log); groups add up.

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
    /// Rounds at skipped nonces replayed, one entry per chance of winning of the bet they
    /// were replayed with (in the order first seen).
    pub skipped: Vec<SkippedRounds>,
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
        let class = match self.skipped.iter().position(|s| s.win_probability == win_probability) {
            Some(i) => &mut self.skipped[i],
            None => {
                self.skipped.push(SkippedRounds { win_probability, ..SkippedRounds::default() });
                self.skipped.last_mut().expect("just pushed")
            }
        };
        class.skipped += count;
        class.skipped_winning += winning;
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
        for class in &other.skipped {
            self.skipped_rounds(class.win_probability, class.skipped, class.skipped_winning);
        }
    }

    /// Rounds with a bet recorded.
    pub fn bet_rounds(&self) -> u64 {
        self.keno_hits.iter().sum::<u64>() + self.roulette_rounds.iter().sum::<u64>()
    }
}
