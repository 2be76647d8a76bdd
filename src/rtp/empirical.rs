//! Empirical RTP from a sweep's tallies: the return the swept rounds actually paid, per
//! bet type, with its uncertainty and a test against the exact RTP ([`super::exact`]).
//!
//! This is a confirming, bounded measurement; the certificate is the exact figure. The
//! realised return is summed exactly from integer counts; floating point starts at the
//! statistics, after merging, so the table does not depend on threads or shards.
//!
//! # Which bet
//!
//! - **Keno**, pick count `k`: the documented pick set `PICK_ORDER[..k]`
//!   (`7 13 22 29 36 2 18 25 33 40`), through the tally's hits histogram. Realised RTP =
//!   Σₕ count(h)·m(k, h) / rounds. The ten pick sets are nested and read the same draws,
//!   so their rows are strongly correlated: they are not ten independent tests.
//! - **Roulette**: for each bet type, one representative bet
//!   ([`super::roulette_bets::representative`]: straight 17, split 17-18, …), whose
//!   realised RTP is (k+1)·Σ pocket counts over its pockets / rounds. Not the average
//!   over all bets of the type: for straights that average is exactly 36/37 (or 36/38)
//!   whatever the wheel does, so it could not show a biased wheel. The rows of one wheel
//!   share the same spins and are correlated (red and black are nearly complementary).
//!
//! # Statistics
//!
//! Each round's return `X` is independent with the exact mean μ (the exact RTP) and the
//! exact variance σ² of [`super::exact::ExactRtp`] under a fair game (SPEC §2–§5), so by
//! the central limit theorem the realised mean of `n` rounds is approximately
//! N(μ, σ²/n). With `z* = Φ⁻¹(1 − α/2)` (2.576 for α = 0.01):
//!
//! - interval: realised ± z*·σ/√n. It uses the exact σ rather than the sample's, so a
//!   run that has not yet seen a rare large prize still gets an honest width;
//! - `z` = (realised − μ)/(σ/√n) and the two-sided p = 2·Φ̄(|z|) (standard normal survival
//!   function; "< 1e-300" where it underflows);
//! - rounds needed to pin the RTP to ±0.1 percentage points at the same confidence:
//!   ⌈(z*·σ / 0.001)²⌉.
//!
//! The normal approximation needs the bet's rare large returns to have occurred many
//! times: it is excellent for roulette and low Keno pick counts at 10⁵ rounds and more;
//! for Keno pick counts whose variance is dominated by top prizes (8–10 picks), the
//! realised RTP is skewed (typically a little below μ until the top prizes appear) and
//! the interval is approximate. The "rounds needed" column says how far from that a run
//! is.

use super::exact::{exact_rtp, ExactRtp};
use super::paytable::{Paytable, PaytableOrigin};
use super::roulette_bets::{representative, BetType};
use crate::games::keno::DRAWN;
use crate::games::{GameId, Wheel};
use crate::tally::file::TallyFile;
use crate::tally::keno::PICK_ORDER;
use crate::tally::{Closed, KenoTally, RouletteTally};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::ToPrimitive;
use statrs::distribution::{ContinuousCDF, Normal};

/// The file name of the empirical RTP table.
pub const RTP_TABLE: &str = "rtp.csv";

/// The half-width, per unit stake, that "rounds needed" pins the RTP to: 0.1 percentage
/// points.
pub const PIN_HALF_WIDTH: f64 = 0.001;

/// The realised RTP of one bet over some rounds, against its exact RTP. RTPs are in
/// percent, as the table shows them; the standard deviation is per unit stake.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Rounds played.
    pub rounds: u64,
    /// The exact RTP, in percent.
    pub exact_percent: f64,
    /// The realised RTP (total returned / total staked), in percent.
    pub realised_percent: f64,
    /// Lower end of the confidence interval, in percent.
    pub low_percent: f64,
    /// Upper end of the confidence interval, in percent.
    pub high_percent: f64,
    /// (realised − exact) / standard error.
    pub z: f64,
    /// Two-sided p-value of `z`.
    pub p_value: f64,
    /// The exact standard deviation of one round's return per unit stake.
    pub sd: f64,
    /// Rounds needed to pin the RTP to ±[`PIN_HALF_WIDTH`] at the same confidence.
    pub rounds_to_pin: u64,
}

/// Φ⁻¹(1 − α/2), the two-sided critical value for confidence 1 − α.
///
/// # Panics
/// When `alpha` is not strictly between 0 and 1.
pub fn critical_value(alpha: f64) -> f64 {
    assert!(alpha > 0.0 && alpha < 1.0, "alpha must lie in (0, 1), got {alpha}");
    Normal::standard().inverse_cdf(1.0 - alpha / 2.0)
}

/// The estimate for `rounds` rounds that returned `total_return` units of stake in all,
/// for a bet with the exact law in `exact`, at confidence 1 − `alpha` (see the module
/// docs for the formulas).
///
/// # Panics
/// When `alpha` is not strictly between 0 and 1.
pub fn estimate(total_return: &BigRational, rounds: u64, exact: &ExactRtp, alpha: f64) -> Estimate {
    estimate_of(total_return, rounds, &exact.rtp, &exact.variance, alpha)
}

/// [`estimate`] for a bet whose exact return per unit stake has mean `rtp` and variance
/// `variance` (a bet of another scheme's game).
///
/// # Panics
/// When `alpha` is not strictly between 0 and 1.
pub fn estimate_of(
    total_return: &BigRational,
    rounds: u64,
    rtp: &BigRational,
    variance: &BigRational,
    alpha: f64,
) -> Estimate {
    let z_star = critical_value(alpha);
    let to_f64 = |value: &BigRational| value.to_f64().unwrap_or(f64::NAN);
    let hundred = BigRational::from_integer(BigInt::from(100));
    let sd = to_f64(variance).sqrt();
    let rounds_to_pin = ((z_star * sd / PIN_HALF_WIDTH).powi(2)).ceil() as u64;
    let exact_percent = to_f64(&(rtp * &hundred));
    if rounds == 0 {
        let nan = f64::NAN;
        return Estimate {
            rounds,
            exact_percent,
            realised_percent: nan,
            low_percent: nan,
            high_percent: nan,
            z: nan,
            p_value: nan,
            sd,
            rounds_to_pin,
        };
    }
    let realised = total_return / BigRational::from_integer(BigInt::from(rounds));
    let realised_percent = to_f64(&(&realised * &hundred));
    let standard_error = sd / (rounds as f64).sqrt();
    // The difference is taken exactly, so z keeps its digits when it is small.
    let difference = to_f64(&(&realised - rtp));
    let z = if standard_error > 0.0 {
        difference / standard_error
    } else if difference == 0.0 {
        0.0
    } else {
        difference.signum() * f64::INFINITY
    };
    let half_width_percent = 100.0 * z_star * standard_error;
    Estimate {
        rounds,
        exact_percent,
        realised_percent,
        low_percent: realised_percent - half_width_percent,
        high_percent: realised_percent + half_width_percent,
        z,
        p_value: (2.0 * Normal::standard().sf(z.abs())).min(1.0),
        sd,
        rounds_to_pin,
    }
}

/// One row of the empirical RTP table: one bet type's realised return over one group of
/// rounds (a seed pair, their sum `all`, or an audited log).
#[derive(Clone, Debug, PartialEq)]
pub struct RtpRow {
    /// The game.
    pub game: GameId,
    /// The seed pair (`0`, `1`, …, `all`) or `log`.
    pub seed_pair: String,
    /// The bet type, as [`ExactRtp::bet_type`] names it.
    pub bet_type: String,
    /// The bet followed: the Keno pick set or the roulette pockets.
    pub bet: String,
    /// The confidence of the interval, `1 − alpha`.
    pub confidence: f64,
    /// The estimate.
    pub estimate: Estimate,
    /// Where the payouts come from.
    pub basis: RtpBasis,
}

/// What a row's exact RTP rests on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RtpBasis {
    /// Keno, against a paytable (its origin says whether it is the illustrative one).
    Paytable(PaytableOrigin),
    /// Roulette: the published payouts; the row follows one representative bet of its type.
    RepresentativeBet,
}

/// The empirical RTP of a complete tally file: for each game of the plan, each seed pair
/// row (and `all`), each bet type, the estimate at confidence 1 − `alpha` (0.01 gives 99%
/// intervals). Keno uses `paytable`.
///
/// # Panics
/// When `alpha` is not strictly between 0 and 1.
pub fn rtp_rows(file: &TallyFile, paytable: &Paytable, alpha: f64) -> Vec<RtpRow> {
    let keno = file.keno_totals();
    let roulette: Vec<_> = file.plan.games.iter().map(|&g| file.roulette_totals(g)).collect();
    let games: Vec<GameTallies<'_>> = file
        .plan
        .games
        .iter()
        .zip(&roulette)
        .map(|(&game, wheel)| match game {
            GameId::Keno => GameTallies::Keno(&keno.rows),
            _ => GameTallies::Roulette(game, &wheel.rows),
        })
        .collect();
    rtp_rows_of(&games, paytable, alpha)
}

/// Closed tallies of one game, labelled by seed pair (or `log` for an audit).
pub enum GameTallies<'a> {
    /// Keno.
    Keno(&'a [(String, Closed<KenoTally>)]),
    /// One roulette wheel.
    Roulette(GameId, &'a [(String, Closed<RouletteTally>)]),
}

/// [`rtp_rows`] for tallies that do not come from a tally file (an audited log).
pub fn rtp_rows_of(games: &[GameTallies<'_>], paytable: &Paytable, alpha: f64) -> Vec<RtpRow> {
    let mut rows = Vec::new();
    for tallies in games {
        let game = match tallies {
            GameTallies::Keno(_) => GameId::Keno,
            GameTallies::Roulette(game, _) => *game,
        };
        let exact = exact_rtp(game, paytable);
        let mut push =
            |pair: &str, exact: &ExactRtp, bet: String, total: BigRational, rounds: u64, basis: RtpBasis| {
                rows.push(RtpRow {
                    game,
                    seed_pair: pair.to_owned(),
                    bet_type: exact.bet_type.clone(),
                    bet,
                    confidence: 1.0 - alpha,
                    estimate: estimate(&total, rounds, exact, alpha),
                    basis,
                })
            };
        match tallies {
            GameTallies::Keno(groups) => {
                for (pair, closed) in groups.iter() {
                    let tally = &closed.tally;
                    for (k, bet) in (1..=DRAWN).zip(&exact) {
                        let total: BigRational = (0..=k)
                            .map(|h| {
                                let count = tally.hits[(k - 1) * (DRAWN + 1) + h];
                                paytable.multiplier(k, h) * BigRational::from_integer(count.into())
                            })
                            .sum();
                        let set = PICK_ORDER[..k].iter().map(u8::to_string).collect::<Vec<_>>().join(" ");
                        let basis = RtpBasis::Paytable(paytable.origin().clone());
                        push(pair, bet, set, total, tally.stream.rounds, basis);
                    }
                }
            }
            GameTallies::Roulette(_, groups) => {
                let wheel = if game == GameId::RouletteEuropean { Wheel::European } else { Wheel::American };
                for (pair, closed) in groups.iter() {
                    let tally = &closed.tally;
                    for (kind, bet) in BetType::on(wheel).into_iter().zip(&exact) {
                        let chosen = representative(wheel, kind).expect("every offered type has a bet");
                        let wins: u64 = chosen.pockets.iter().map(|&p| tally.pockets[usize::from(p)]).sum();
                        let total = BigRational::from_integer(BigInt::from(wins) * (kind.pays() + 1));
                        push(
                            pair,
                            bet,
                            chosen.label(),
                            total,
                            tally.stream.rounds,
                            RtpBasis::RepresentativeBet,
                        );
                    }
                }
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtp::exact::roulette_rtp;

    #[test]
    fn the_critical_value_is_the_normal_quantile() {
        assert!((critical_value(0.01) - 2.575_829_303_548_901).abs() < 1e-12);
        assert!((critical_value(0.05) - 1.959_963_984_540_054).abs() < 1e-12);
    }

    #[test]
    fn an_exactly_fair_result_has_z_zero_and_p_one() {
        let straight = &roulette_rtp(Wheel::European)[0];
        // 37 000 spins with 1000 on the bet: 36 000 returned, exactly 36/37 per spin.
        let e = estimate(&BigRational::from_integer(36_000.into()), 37_000, straight, 0.01);
        assert_eq!(e.z, 0.0);
        assert_eq!(e.p_value, 1.0);
        assert!(e.low_percent < e.exact_percent && e.exact_percent < e.high_percent);
        assert_eq!(e.realised_percent, 3600.0 / 37.0);
        // sd = 36·sqrt(36)/37; (2.5758·sd/0.001)² ≈ 2.26e8.
        assert_eq!(e.rounds_to_pin, ((critical_value(0.01) * e.sd / 0.001).powi(2)).ceil() as u64);
        assert!((e.sd - 36.0 * 6.0 / 37.0).abs() < 1e-12);
    }
}
