//! The realised RTP of the bets of a game of the HMAC-SHA256 family over tallied rounds (a
//! sweep's rounds, or an audited history's recorded results), beside each bet's exact RTP
//! over the 2^32 floats, with its interval and z ([`super::empirical::estimate_of`]):
//! what a sweep's and an audit's `rtp.csv` hold.
//!
//! Only the bets whose return follows from the outcome the tallies count: every roulette
//! bet (the pocket), limbo's targets that start one of the tallies' bands (a round reaches
//! a target at a band's start exactly when its band starts at or above it), and plinko's
//! drop (the bucket). Dice, Keno and mines have no sourced payout rule
//! ([`super::stake::exact_rtp`]), so they have no row.

use super::empirical::{estimate_of, Estimate};
use super::stake::{exact_rtp, plinko_multipliers, StakeBetRtp, LIMBO_TARGETS};
use crate::games::roulette::outside_groups;
use crate::scheme::keyed::KeyedScheme;
use crate::scheme::stake::cells::LIMBO_BANDS;
use crate::scheme::stake::StakeGame;
use crate::tally::stake::StakeTally;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;

/// A bet whose return per unit stake is a function of the outcome cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CellBet {
    /// The bet and its exact return.
    pub exact: StakeBetRtp,
    /// The exact variance of one round's return per unit stake.
    pub variance: BigRational,
    /// The return per unit stake of each outcome cell.
    pub returns: Vec<BigRational>,
}

impl CellBet {
    /// The bet's realised return over the rounds of `tally` (of its game), against its
    /// exact RTP, at confidence 1 − `alpha`.
    pub fn realised(&self, tally: &StakeTally, alpha: f64) -> Estimate {
        let total = self
            .returns
            .iter()
            .zip(&tally.outcomes)
            .filter(|(r, &count)| count > 0 && !r.is_zero())
            .fold(BigRational::zero(), |sum, (r, &count)| sum + r * BigInt::from(count));
        estimate_of(&total, tally.rounds, &self.exact.rtp, &self.variance, alpha)
    }
}

/// One bet's realised return over a group of rounds of a game, beside its exact RTP: a row
/// of `rtp.csv` and of the reports' return tables, which only render it.
#[derive(Clone, Debug, PartialEq)]
pub struct RealisedReturn {
    /// The game, with its parameters.
    pub game: StakeGame,
    /// The group of rounds: a seed pair, their sum `all`, a history's rounds of the game.
    pub group: String,
    /// The bet and its exact return.
    pub exact: StakeBetRtp,
    /// The realised return against the exact one.
    pub estimate: Estimate,
}

/// The realised return of every bet of each group's game whose return the tallies give
/// ([`cell_bets`]), group by group, at confidence 1 − `alpha`.
pub fn realised_returns(
    scheme: KeyedScheme,
    groups: &[(StakeGame, String, StakeTally)],
    alpha: f64,
) -> Vec<RealisedReturn> {
    let mut rows = Vec::new();
    for (game, group, tally) in groups {
        for bet in cell_bets(scheme, game) {
            let estimate = bet.realised(tally, alpha);
            rows.push(RealisedReturn { game: *game, group: group.clone(), exact: bet.exact, estimate });
        }
    }
    rows
}

/// The bets of `game` whose realised return the tallies give (see the module docs); none
/// for dice, Keno and mines.
pub fn cell_bets(scheme: KeyedScheme, game: &StakeGame) -> Vec<CellBet> {
    let Ok(bets) = exact_rtp(scheme, game) else { return Vec::new() };
    let square = |x: &BigRational| x * x;
    // A bet that pays `pays` or nothing: E[X²] − E[X]².
    let all_or_nothing = |exact: StakeBetRtp, returns: Vec<BigRational>| CellBet {
        variance: square(&exact.pays) * &exact.win_probability - square(&exact.rtp),
        exact,
        returns,
    };
    match *game {
        StakeGame::Roulette => {
            bets.into_iter()
                .map(|exact| {
                    let pockets = roulette_pockets(&exact.bet);
                    let returns =
                        (0..37u8)
                            .map(|pocket| {
                                if pockets.contains(&pocket) {
                                    exact.pays.clone()
                                } else {
                                    BigRational::zero()
                                }
                            })
                            .collect();
                    all_or_nothing(exact, returns)
                })
                .collect()
        }
        StakeGame::Limbo(_) => LIMBO_TARGETS
            .iter()
            .zip(bets)
            .filter(|(target, _)| LIMBO_BANDS.contains(target))
            .map(|(&target, exact)| {
                let returns = LIMBO_BANDS
                    .iter()
                    .map(|&start| if start >= target { exact.pays.clone() } else { BigRational::zero() })
                    .collect();
                all_or_nothing(exact, returns)
            })
            .collect(),
        StakeGame::Plinko { rows, risk } => bets
            .into_iter()
            .map(|exact| {
                let multipliers = plinko_multipliers(rows, risk);
                let all = BigInt::from(1u8) << u32::from(rows);
                let mut coefficient = BigInt::from(1u8);
                let mut second_moment = BigRational::zero();
                for (bucket, m) in multipliers.iter().enumerate() {
                    if bucket > 0 {
                        coefficient = coefficient * BigInt::from(u32::from(rows) + 1 - bucket as u32)
                            / BigInt::from(bucket as u32);
                    }
                    second_moment += BigRational::new(coefficient.clone(), all.clone()) * square(m);
                }
                CellBet { variance: second_moment - square(&exact.rtp), exact, returns: multipliers }
            })
            .collect(),
        StakeGame::Dice | StakeGame::Keno | StakeGame::Mines { .. } => Vec::new(),
    }
}

/// The pockets a roulette bet of [`exact_rtp`] covers (`straight 17`, `red`, `dozen_2`).
fn roulette_pockets(bet: &str) -> Vec<u8> {
    match bet.strip_prefix("straight ") {
        Some(pocket) => vec![pocket.parse().expect("a straight bet names its pocket")],
        None => outside_groups(37)
            .into_iter()
            .find(|(name, _)| *name == bet)
            .map(|(_, pockets)| pockets)
            .expect("every outside bet of the exact table is a group"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::stake::cells::{outcome_cell, outcome_law};
    use crate::scheme::stake::{LimboFormula, Risk, SeedPair};
    use num_traits::ToPrimitive;

    fn games() -> [StakeGame; 4] {
        [
            StakeGame::Roulette,
            StakeGame::Limbo(LimboFormula::Verifierform),
            StakeGame::Plinko { rows: 16, risk: Risk::High },
            StakeGame::Plinko { rows: 9, risk: Risk::Low },
        ]
    }

    #[test]
    fn each_bets_returns_average_to_its_exact_rtp_over_the_exact_law() {
        for game in games() {
            let law = outcome_law(crate::scheme::keyed::KeyedScheme::Stake, &game);
            let bets = cell_bets(KeyedScheme::Stake, &game);
            assert!(!bets.is_empty(), "{game}");
            for bet in bets {
                let mean: f64 = bet.returns.iter().zip(&law).map(|(r, p)| r.to_f64().unwrap() * p).sum();
                let second: f64 =
                    bet.returns.iter().zip(&law).map(|(r, p)| r.to_f64().unwrap().powi(2) * p).sum();
                let (rtp, variance) = (bet.exact.rtp.to_f64().unwrap(), bet.variance.to_f64().unwrap());
                assert!((mean - rtp).abs() < 1e-9, "{game} {}: {mean} against {rtp}", bet.exact.bet);
                assert!(
                    (second - mean * mean - variance).abs() < 1e-6 * variance.max(1.0),
                    "{game} {}",
                    bet.exact.bet
                );
            }
        }
        assert_eq!(cell_bets(KeyedScheme::Stake, &StakeGame::Roulette).len(), 37 + 12);
        assert_eq!(
            cell_bets(KeyedScheme::Stake, &StakeGame::Limbo(LimboFormula::Fair)).len(),
            10,
            "the targets at band starts"
        );
        assert!(
            cell_bets(KeyedScheme::Stake, &StakeGame::Dice).is_empty()
                && cell_bets(KeyedScheme::Stake, &StakeGame::Mines { mines: 3 }).is_empty()
        );
    }

    #[test]
    fn the_realised_return_is_what_the_rounds_paid() {
        // Red over 2,000 spins: the return is 2 per red pocket, counted by hand.
        let pair = SeedPair::new("realised server", "realised client");
        let game = StakeGame::Roulette;
        let mut tally = StakeTally::empty(&game);
        let mut reds = 0u64;
        for nonce in 0..2_000 {
            let outcome = game.play(&mut pair.floats(nonce));
            let cell = outcome_cell(&outcome);
            tally.outcomes[cell] += 1;
            tally.rounds += 1;
            reds += u64::from(crate::games::roulette::is_red(cell as u8) && cell != 0);
        }
        let red = cell_bets(KeyedScheme::Stake, &game).into_iter().find(|b| b.exact.bet == "red").unwrap();
        let estimate = red.realised(&tally, 0.01);
        assert_eq!(estimate.rounds, 2_000);
        assert!((estimate.realised_percent - 100.0 * 2.0 * reds as f64 / 2_000.0).abs() < 1e-9);
        assert!(
            estimate.low_percent < estimate.realised_percent
                && estimate.realised_percent < estimate.high_percent
        );
    }
}
