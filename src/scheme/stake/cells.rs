//! What a sweep of the family counts per round, and the exact law of every count.
//!
//! Three views of a round, each with exact cell probabilities counted over the 2^32
//! equally likely floats ([`super::exact`]), none assumed uniform:
//!
//! - **The outcome** of the games played with one float, and of plinko: dice's roll
//!   (10,001 cells), roulette's pocket (37), limbo's multiplier in bands
//!   ([`LIMBO_BANDS`]), plinko's bucket (binomial: `floor(float * 2)` splits the floats
//!   exactly in half, so each row is a fair coin).
//! - **The draw steps** of the games that use several floats: the index each float picks
//!   among what is left (Keno's step `j` among `40 - j` numbers, mines' among `25 - j`
//!   tiles, plinko's direction per row). The steps use distinct floats, so they are
//!   independent, each with the law of `floor(float * remaining)`; and a draw is a
//!   one-to-one function of its indices, so the steps are the whole of its law. (Keno's
//!   number frequencies are not multinomial, and not exactly uniform here: the steps test
//!   the same thing exactly.)
//! - **A coarse class** of the outcome for pairs of rounds ([`coarse_law`]): dice's tenth,
//!   the pocket, limbo's band, the bucket, Keno's count of numbers 1 to 20 and the mines
//!   among tiles 0 to 11 (both laws by a recursion over the draw steps).

use super::exact::{limbo_reaching, FLOATS};
use super::games::LimboFormula;
use super::{StakeGame, StakeOutcome};
use crate::scheme::keyed::KeyedScheme;

/// Limbo's bands, as the multipliers (hundredths) where each begins: a band holds the
/// multipliers from its start up to the next band's; the last also holds `Infinity`.
pub const LIMBO_BANDS: [u64; 16] =
    [0, 100, 101, 105, 110, 125, 150, 200, 300, 500, 1_000, 2_000, 5_000, 10_000, 100_000, 1_000_000];

/// Keno's numbers and mines' tiles counted as "low" by the coarse class: 1 to 20 of 40,
/// tiles 0 to 11 of 25.
const LOW_NUMBERS: u32 = 20;
const LOW_TILES: u32 = 12;

/// Cells of the outcome view; 0 where the game has none (Keno and mines: their steps are
/// the whole law).
pub fn outcome_cells(game: &StakeGame) -> usize {
    match *game {
        StakeGame::Dice => 10_001,
        StakeGame::Roulette => 37,
        StakeGame::Limbo(_) => LIMBO_BANDS.len(),
        StakeGame::Plinko { rows, .. } => usize::from(rows) + 1,
        StakeGame::Keno | StakeGame::Mines { .. } => 0,
    }
}

/// The outcome's cell (for the games with an outcome view).
pub fn outcome_cell(outcome: &StakeOutcome) -> usize {
    match outcome {
        StakeOutcome::Roll(roll) => *roll as usize,
        StakeOutcome::Pocket(value) | StakeOutcome::Bucket(value) => usize::from(*value),
        StakeOutcome::Multiplier(multiplier) => limbo_band(*multiplier),
        StakeOutcome::Drawn(_) => unreachable!("draws are counted by their steps"),
    }
}

/// The band of a limbo multiplier (`None`: `Infinity`, the last band).
pub fn limbo_band(multiplier: Option<u64>) -> usize {
    match multiplier {
        None => LIMBO_BANDS.len() - 1,
        Some(m) => LIMBO_BANDS.iter().rposition(|&start| m >= start).expect("the first band starts at 0"),
    }
}

/// The exact laws of a game's views, computed once for the files and the report that
/// show each count beside its expectation (they only render them).
#[derive(Clone, Debug, PartialEq)]
pub struct GameLaws {
    /// Each outcome cell's probability ([`outcome_law`]).
    pub outcome: Vec<f64>,
    /// Each draw step's law ([`step_laws`]).
    pub steps: Vec<Vec<f64>>,
    /// The coarse classes' law ([`coarse_law`]).
    pub coarse: Vec<f64>,
}

impl GameLaws {
    /// The laws of `game` played by `scheme`.
    pub fn of(scheme: KeyedScheme, game: &StakeGame) -> Self {
        GameLaws {
            outcome: outcome_law(scheme, game),
            steps: step_laws(scheme, game),
            coarse: coarse_law(scheme, game),
        }
    }
}

/// The exact probabilities of the outcome view's cells, as `scheme` plays `game`: the law
/// of its pick composed with the game.
pub fn outcome_law(scheme: KeyedScheme, game: &StakeGame) -> Vec<f64> {
    match *game {
        StakeGame::Dice => scheme.probabilities(crate::games::dice::ROLLS),
        StakeGame::Roulette => scheme.probabilities(37),
        // Limbo's formulas read the word as a float whatever the scheme's rule.
        StakeGame::Limbo(formula) => {
            limbo_band_counts(formula).into_iter().map(|c| c as f64 / FLOATS as f64).collect()
        }
        StakeGame::Plinko { rows, .. } => {
            let right = scheme.probabilities(2)[1];
            assert!(right == 0.5, "plinko's law is written for a fair pick between two");
            binomial_half(u32::from(rows))
        }
        StakeGame::Keno | StakeGame::Mines { .. } => Vec::new(),
    }
}

/// The outcome cells of each game's top prizes, the rarest outcomes a player is paid for:
/// dice's rolls 0.00 and 100.00 (the only rolls on which the bets at the smallest chance,
/// under 0.01 and over 99.99, win), plinko's two end buckets (the highest multiplier at
/// every row count and risk: 1,000x at 16 rows, high risk) and limbo's top band (10,000x
/// and up). None for roulette (every straight-up pays the same), nor for Keno and mines
/// (no outcome view: their top prizes depend on the numbers or tiles picked, which the
/// bet tests of an audit judge).
pub fn top_prize_cells(game: &StakeGame) -> Vec<usize> {
    match *game {
        StakeGame::Dice => vec![0, outcome_cells(game) - 1],
        StakeGame::Plinko { rows, .. } => vec![0, usize::from(rows)],
        StakeGame::Limbo(_) => vec![LIMBO_BANDS.len() - 1],
        StakeGame::Roulette | StakeGame::Keno | StakeGame::Mines { .. } => Vec::new(),
    }
}

/// The floats landing in each limbo band: differences of the floats reaching each start.
fn limbo_band_counts(formula: LimboFormula) -> Vec<u64> {
    let reaching: Vec<u64> = LIMBO_BANDS.iter().map(|&start| limbo_reaching(formula, start)).collect();
    (0..LIMBO_BANDS.len()).map(|i| reaching[i] - reaching.get(i + 1).copied().unwrap_or(0)).collect()
}

/// `Binomial(n, 1/2)`, exactly: `C(n, k) / 2^n` (n ≤ 16, so every term is exact in f64),
/// each coefficient from the one before: `C(n, k) = C(n, k - 1) (n - k + 1) / k`.
fn binomial_half(n: u32) -> Vec<f64> {
    let coefficients = (1..=u64::from(n)).scan(1u64, |c, k| {
        *c = *c * (u64::from(n) - k + 1) / k;
        Some(*c)
    });
    std::iter::once(1).chain(coefficients).map(|c| c as f64 / f64::from(1u32 << n)).collect()
}

/// For each draw step, how many values the float chooses among (Keno 40, 39, …; mines
/// 25, 24, …; plinko 2 per row); empty for the one-float games.
pub fn step_sizes(game: &StakeGame) -> Vec<u32> {
    match *game {
        StakeGame::Keno => (0..10).map(|j| 40 - j).collect(),
        StakeGame::Mines { mines } => (0..u32::from(mines)).map(|j| 25 - j).collect(),
        StakeGame::Plinko { rows, .. } => vec![2; usize::from(rows)],
        _ => Vec::new(),
    }
}

/// The exact law of each draw step: the scheme's pick among the values left.
pub fn step_laws(scheme: KeyedScheme, game: &StakeGame) -> Vec<Vec<f64>> {
    step_sizes(game).into_iter().map(|size| scheme.probabilities(size)).collect()
}

/// The index each float of a draw picked among what was left, recovered from the draw
/// itself (its values in draw order, each `first` or more): the value's place among the
/// values not yet drawn, which the family keeps in order.
pub fn draw_indices(drawn: &[u8], first: u8) -> impl Iterator<Item = usize> + '_ {
    drawn.iter().enumerate().map(move |(step, &value)| {
        let below = drawn[..step].iter().filter(|&&earlier| earlier < value).count();
        usize::from(value - first) - below
    })
}

/// How many of a draw's smallest values its coarse class counts (Keno 20, mines 12); 0
/// for the games that do not draw.
pub fn low_values(game: &StakeGame) -> u32 {
    match game {
        StakeGame::Keno => LOW_NUMBERS,
        StakeGame::Mines { .. } => LOW_TILES,
        _ => 0,
    }
}

/// Cells of the coarse class used for pairs of rounds.
pub fn coarse_cells(game: &StakeGame) -> usize {
    match *game {
        StakeGame::Dice => 10,
        StakeGame::Keno => 11,
        StakeGame::Mines { mines } => usize::from(mines.min(LOW_TILES as u8)) + 1,
        _ => outcome_cells(game),
    }
}

/// The coarse class of an outcome of `game`.
pub fn coarse_cell(game: &StakeGame, outcome: &StakeOutcome) -> usize {
    match (game, outcome) {
        (StakeGame::Dice, StakeOutcome::Roll(roll)) => *roll as usize * 10 / 10_001,
        (StakeGame::Keno, StakeOutcome::Drawn(drawn)) => {
            drawn.iter().filter(|&&n| u32::from(n) <= LOW_NUMBERS).count()
        }
        (StakeGame::Mines { .. }, StakeOutcome::Drawn(drawn)) => {
            drawn.iter().filter(|&&tile| u32::from(tile) < LOW_TILES).count()
        }
        _ => outcome_cell(outcome),
    }
}

/// The exact law of the coarse class.
pub fn coarse_law(scheme: KeyedScheme, game: &StakeGame) -> Vec<f64> {
    match *game {
        StakeGame::Dice => {
            let rolls = outcome_law(scheme, game);
            let mut tenths = vec![0.0; 10];
            for (roll, p) in rolls.into_iter().enumerate() {
                tenths[roll * 10 / 10_001] += p;
            }
            tenths
        }
        StakeGame::Keno => low_count_law(scheme, 40, LOW_NUMBERS, 10),
        StakeGame::Mines { mines } => low_count_law(scheme, 25, LOW_TILES, u32::from(mines)),
        _ => outcome_law(scheme, game),
    }
}

/// The law of how many of the `low` smallest values of an ordered pool of `pool` a draw
/// of `take` picks, the family's way (step `j` picks index `floor(float * (pool - j))`
/// among what is left, in order; a low value is picked when the index is below the low
/// values left), as a recursion over the steps with each step's exact law.
fn low_count_law(scheme: KeyedScheme, pool: u32, low: u32, take: u32) -> Vec<f64> {
    let mut by_count = vec![1.0];
    for step in 0..take {
        let left = pool - step;
        let (counts, words) = (scheme.law(left), scheme.words_of_law(left));
        let mut next = vec![0.0; by_count.len() + 1];
        for (picked, &p) in by_count.iter().enumerate() {
            let low_left = (low as usize).saturating_sub(picked).min(left as usize);
            let p_low = counts[..low_left].iter().sum::<u64>() as f64 / words as f64;
            next[picked + 1] += p * p_low;
            next[picked] += p * (1.0 - p_low);
        }
        by_count = next;
    }
    by_count.truncate(take.min(low) as usize + 1);
    by_count
}

#[cfg(test)]
mod tests {
    use super::super::stream::FloorOfFloat;
    use super::*;
    use crate::sampler::PickRule;
    use crate::scheme::stake::{replay, Risk};

    #[test]
    fn every_law_sums_to_one_and_has_a_cell_for_every_outcome() {
        let games = [
            StakeGame::Dice,
            StakeGame::Roulette,
            StakeGame::Keno,
            StakeGame::Mines { mines: 3 },
            StakeGame::Mines { mines: 24 },
            StakeGame::Plinko { rows: 16, risk: Risk::High },
            StakeGame::Limbo(LimboFormula::Fair),
            StakeGame::Limbo(LimboFormula::StakePage),
        ];
        for game in games {
            for law in [outcome_law(KeyedScheme::Stake, &game), coarse_law(KeyedScheme::Stake, &game)]
                .into_iter()
                .chain(step_laws(KeyedScheme::Stake, &game))
            {
                let total: f64 = law.iter().sum();
                assert!(law.is_empty() || (total - 1.0).abs() < 1e-12, "{game:?}: {total}");
            }
            assert_eq!(outcome_law(KeyedScheme::Stake, &game).len(), outcome_cells(&game));
            assert_eq!(coarse_law(KeyedScheme::Stake, &game).len(), coarse_cells(&game), "{game:?}");
            for nonce in 0..300 {
                let round = replay(&game, "server", "client", nonce);
                assert!(coarse_cell(&game, &round.outcome) < coarse_cells(&game));
                if outcome_cells(&game) > 0 {
                    assert!(outcome_cell(&round.outcome) < outcome_cells(&game));
                }
            }
        }
    }

    #[test]
    fn draw_indices_are_the_floats_scaled_to_what_was_left() {
        let pair = crate::scheme::stake::SeedPair::new("server", "client");
        for nonce in 0..200 {
            let game = StakeGame::Keno;
            let StakeOutcome::Drawn(drawn) = game.play(&mut pair.floats(nonce)) else { unreachable!() };
            let scaled: Vec<usize> =
                pair.floats(nonce).zip(step_sizes(&game)).map(|(f, n)| f.scale(n) as usize).collect();
            assert_eq!(draw_indices(&drawn, 1).collect::<Vec<_>>(), scaled, "{nonce}");
        }
    }

    #[test]
    fn the_low_count_recursion_is_the_hypergeometric_law_within_the_floats_deviation() {
        // Uniform picks would give the hypergeometric law; the floats' deviation is 1e-8.
        let law = low_count_law(KeyedScheme::Stake, 40, 20, 10);
        for (k, p) in law.iter().enumerate() {
            let choose = |n: u64, r: u64| (0..r).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64);
            let uniform = choose(20, k as u64) * choose(20, 10 - k as u64) / choose(40, 10);
            assert!((p / uniform - 1.0).abs() < 1e-6, "{k}: {p} {uniform}");
        }
        // 24 mines of 25 tiles leave one tile: 11 or 12 of the low tiles are mines.
        let all = low_count_law(KeyedScheme::Stake, 25, 12, 24);
        assert_eq!(all.len(), 13);
        assert!(all[..11].iter().all(|&p| p == 0.0));
    }

    #[test]
    fn the_low_count_recursion_is_every_draw_enumerated() {
        // Pool 1..=7, low values 1..=3, four taken: every sequence of indices, weighted by
        // the exact laws, drawn from an ordered pool the family's way.
        fn enumerate(pool: Vec<u32>, take: u32, weight: f64, by_low: &mut [f64]) {
            if take == 0 {
                by_low[3 - pool.iter().filter(|&&v| v <= 3).count()] += weight;
                return;
            }
            for (index, &count) in FloorOfFloat::law(pool.len() as u32).iter().enumerate() {
                let mut left = pool.clone();
                left.remove(index);
                enumerate(left, take - 1, weight * count as f64 / FLOATS as f64, by_low);
            }
        }
        let mut brute = vec![0.0; 4];
        enumerate((1..=7).collect(), 4, 1.0, &mut brute);
        let recursion = low_count_law(KeyedScheme::Stake, 7, 3, 4);
        for (k, (a, b)) in recursion.iter().zip(&brute).enumerate() {
            assert!((a - b).abs() <= 1e-15, "{k}: {a} {b}");
        }
    }

    #[test]
    fn limbo_bands_hold_the_multipliers_in_order() {
        assert_eq!(limbo_band(Some(99)), 0);
        assert_eq!(limbo_band(Some(100)), 1);
        assert_eq!(limbo_band(Some(199)), 6);
        assert_eq!(limbo_band(Some(200)), 7);
        assert_eq!(limbo_band(None), LIMBO_BANDS.len() - 1);
        // The page's formula never shows less than 1.00.
        assert_eq!(outcome_law(KeyedScheme::Stake, &StakeGame::Limbo(LimboFormula::StakePage))[0], 0.0);
    }
}
