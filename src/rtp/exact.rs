//! Exact RTP per bet type, in rational arithmetic: what the payout table and the game's
//! probabilities promise, with no simulation and no rounding.
//!
//! # Formula
//!
//! Every bet is a discrete law of the **return per unit stake** `X` (the total paid back,
//! stake included; 0 when the bet loses). For a bet type:
//!
//! - RTP = E\[X\] = Σ P(x)·x
//! - variance per unit stake (volatility) = E\[X²\] − E\[X\]² (the net win `X − 1` has the
//!   same variance)
//! - hit frequency = P(X > 0): any payout, even one smaller than the stake
//! - maximum return = the largest `x` with P(x) > 0
//!
//! **Roulette** (SPEC §5): a bet covering `c` of the `P` equally likely pockets and
//! paying `k:1` returns `k + 1` with probability `c/P`, so RTP = c(k+1)/P (36/37 for a
//! European straight, 36/38 for most American bets, 35/38 for the top line). Every bet
//! of a type covers as many pockets, so the type has one law.
//!
//! **Keno** (SPEC §4): a player picking `k` numbers has `h` hits with the hypergeometric
//! probability P(h | k) = C(10, h)·C(30, k − h) / C(40, k), whatever numbers are picked
//! (the draw does not depend on the picks), and receives the paytable's multiplier
//! m(k, h). Each pick count is a bet type.

use super::decimal::Percent;
use super::paytable::Paytable;
use super::roulette_bets::{bets, BetType};
use crate::games::keno::{DRAWN, GRID};
use crate::games::{GameId, Roulette, Wheel};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};

/// The law of one bet's return per unit stake: (return, probability) pairs whose
/// probabilities sum to 1. Returns may repeat (Keno pays 0 for several hit counts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnLaw(pub Vec<(BigRational, BigRational)>);

impl ReturnLaw {
    /// E\[X\]: the return to player per unit stake.
    pub fn mean(&self) -> BigRational {
        self.0.iter().map(|(x, p)| x * p).sum()
    }

    /// E\[X²\] − E\[X\]².
    pub fn variance(&self) -> BigRational {
        let mean = self.mean();
        self.0.iter().map(|(x, p)| x * x * p).sum::<BigRational>() - &mean * &mean
    }

    /// P(X > 0).
    pub fn hit_frequency(&self) -> BigRational {
        self.0.iter().filter(|(x, _)| x.is_positive()).map(|(_, p)| p.clone()).sum()
    }

    /// The largest return that has positive probability.
    pub fn max_return(&self) -> BigRational {
        self.0
            .iter()
            .filter(|(_, p)| !p.is_zero())
            .map(|(x, _)| x.clone())
            .max()
            .unwrap_or_else(BigRational::zero)
    }

    /// The sum of the probabilities (1 for a law built correctly).
    pub fn total_probability(&self) -> BigRational {
        self.0.iter().map(|(_, p)| p.clone()).sum()
    }
}

/// The exact figures of one bet type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactRtp {
    /// The game.
    pub game: GameId,
    /// The bet type: a roulette bet name (`straight`, `split`, …) or `picks_1` … `picks_10`.
    pub bet_type: String,
    /// How many distinct bets of the type there are (roulette), or 1 (a Keno pick count:
    /// every pick set of the size has the same law).
    pub bets: usize,
    /// Pockets per roulette bet, or numbers picked in Keno.
    pub covers: usize,
    /// The published payout: `35:1`, or `paytable` for Keno.
    pub pays: String,
    /// The law of the return per unit stake.
    pub law: ReturnLaw,
    /// E\[X\], per unit stake (multiply by 100 for percent).
    pub rtp: BigRational,
    /// Variance of the return per unit stake.
    pub variance: BigRational,
    /// P(any payout).
    pub hit_frequency: BigRational,
    /// The largest return per unit stake, stake included (36 for a straight).
    pub max_return: BigRational,
}

impl ExactRtp {
    fn from_law(
        game: GameId,
        bet_type: String,
        bets: usize,
        covers: usize,
        pays: String,
        law: ReturnLaw,
    ) -> Self {
        ExactRtp {
            game,
            bet_type,
            bets,
            covers,
            pays,
            rtp: law.mean(),
            variance: law.variance(),
            hit_frequency: law.hit_frequency(),
            max_return: law.max_return(),
            law,
        }
    }

    /// The house edge, 1 − RTP.
    pub fn house_edge(&self) -> BigRational {
        BigRational::one() - &self.rtp
    }

    /// The RTP in percent.
    pub fn rtp_percent(&self) -> Percent {
        Percent::of_fraction(&self.rtp)
    }

    /// The house edge in percent.
    pub fn house_edge_percent(&self) -> Percent {
        Percent::of_fraction(&self.house_edge())
    }

    /// The hit frequency in percent.
    pub fn hit_frequency_percent(&self) -> Percent {
        Percent::of_fraction(&self.hit_frequency)
    }
}

fn ratio(numerator: impl Into<BigInt>, denominator: impl Into<BigInt>) -> BigRational {
    BigRational::new(numerator.into(), denominator.into())
}

/// The exact RTP of every roulette bet type offered on `wheel`, in report order.
pub fn roulette_rtp(wheel: Wheel) -> Vec<ExactRtp> {
    let roulette = Roulette { wheel };
    let pockets = roulette.pockets();
    BetType::on(wheel)
        .into_iter()
        .map(|kind| {
            let all = bets(wheel, kind);
            let covered = all[0].pockets.len();
            let win = ratio(covered, pockets);
            let lose = BigRational::one() - &win;
            let law = ReturnLaw(vec![(ratio(kind.pays() + 1, 1), win), (BigRational::zero(), lose)]);
            ExactRtp::from_law(
                crate::games::Game::id(&roulette),
                kind.name().to_owned(),
                all.len(),
                covered,
                format!("{}:1", kind.pays()),
                law,
            )
        })
        .collect()
}

/// C(n, r), exactly (0 when r > n).
pub fn binomial(n: usize, r: usize) -> BigInt {
    if r > n {
        return BigInt::zero();
    }
    // Each partial product C(n, i) is an integer, so the division is exact at every step.
    (0..r).fold(BigInt::one(), |acc, i| acc * (n - i) / (i + 1))
}

/// P(h hits | k picks) = C(10, h)·C(30, k − h) / C(40, k), exactly.
pub fn keno_hit_probability(picks: usize, hits: usize) -> BigRational {
    if hits > picks || hits > DRAWN {
        return BigRational::zero();
    }
    BigRational::new(binomial(DRAWN, hits) * binomial(GRID - DRAWN, picks - hits), binomial(GRID, picks))
}

/// The exact RTP of each Keno pick count 1..=10 under `paytable`.
pub fn keno_rtp(paytable: &Paytable) -> Vec<ExactRtp> {
    (1..=DRAWN)
        .map(|picks| {
            let law = ReturnLaw(
                (0..=picks)
                    .map(|hits| (paytable.multiplier(picks, hits).clone(), keno_hit_probability(picks, hits)))
                    .collect(),
            );
            ExactRtp::from_law(GameId::Keno, keno_bet_type(picks), 1, picks, "paytable".to_owned(), law)
        })
        .collect()
}

/// The bet-type name of a Keno pick count (`picks_3`).
pub fn keno_bet_type(picks: usize) -> String {
    format!("picks_{picks}")
}

/// The exact RTP of every bet type of `game` (`paytable` is used for Keno only).
pub fn exact_rtp(game: GameId, paytable: &Paytable) -> Vec<ExactRtp> {
    match game {
        GameId::Keno => keno_rtp(paytable),
        GameId::RouletteEuropean => roulette_rtp(Wheel::European),
        GameId::RouletteAmerican => roulette_rtp(Wheel::American),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_are_pascals() {
        assert_eq!(binomial(40, 10), BigInt::from(847_660_528u64));
        assert_eq!(binomial(5, 0), BigInt::one());
        assert_eq!(binomial(3, 4), BigInt::zero());
        for n in 1..20 {
            for r in 1..n {
                assert_eq!(binomial(n, r), binomial(n - 1, r - 1) + binomial(n - 1, r));
            }
        }
    }

    #[test]
    fn every_law_sums_to_one() {
        for game in GameId::ALL {
            for bet in exact_rtp(game, &Paytable::example()) {
                assert_eq!(bet.law.total_probability(), BigRational::one(), "{game} {}", bet.bet_type);
            }
        }
    }
}
