//! Bet-conditional tests: do the draws depend on the wager? Every outcome-only test is
//! blind to a draw that avoids the numbers a player picked or the pockets a player bet
//! on (the outcomes stay uniform over all players), and to an operator who skips the
//! nonces whose round would have paid. These tests read the bets as placed.
//!
//! * [`keno_bet_hits`]: hits on the player's own picks. With `k` numbers picked, the hits
//!   are hypergeometric, `P(h) = C(10, h) C(30, k − h) / C(40, k)`, whatever numbers were
//!   picked (the draw is uniform over 10-subsets); per pick count, goodness of fit (sparse
//!   bins merged), summed over pick counts: χ² with `Σ (bins − 1)` degrees of freedom.
//! * [`roulette_bet_wins`]: wins on the bets as placed. A bet covering `c` of `P` pockets
//!   wins with probability `c/P`, independently, so the number of wins `W` has mean
//!   `Σ nᶜ c/P` and variance `Σ nᶜ (c/P)(1 − c/P)`. Its law, a sum of binomials, is
//!   computed exactly by convolution up to [`EXACT_LIMIT`] rounds; above, the
//!   continuity-corrected normal approximation. Two-sided.
//! * [`bet_return`]: the money returned against the exact expected return of the bets as
//!   placed: with stakes `sᵢ` and each bet's exact mean `μᵢ` and variance `σᵢ²` of return
//!   per unit stake, the total has mean `Σ sᵢμᵢ` and variance `Σ sᵢ²σᵢ²`;
//!   `z = (returned − mean) / √variance`, one-sided, low returns only. The returns of
//!   casino bets are skewed to the right (rare large prizes), so the lower tail of their
//!   sum is lighter than the normal one and this p-value is conservative; a lucky player
//!   is not a finding.
//! * [`skipped_wins`]: where a seed pair's nonces have gaps and its server seed is
//!   revealed, the rounds at the skipped nonces are replayed with the bet of the next
//!   round played. If skipping did not look at the outcome, which nonces were skipped is
//!   independent of which rounds would have won: given the `N` rounds of a pair (played
//!   and skipped) of which `W` would have paid more than the stake, the winners among the
//!   `s` skipped are hypergeometric, `Hyp(N, W, s)`. Summed over pairs (exactly, by
//!   convolution, up to [`EXACT_LIMIT`] skipped rounds; normal with continuity correction
//!   above); one-sided, too many skipped winners.

use super::chisquare::goodness_of_fit;
use super::distributions::{binomial_pmf, chi_square_sf, hypergeometric_pmf, normal_sf};
use super::outcome::{NullMoments, TestOutcome};
use super::power::Power;
use crate::games::keno::{DRAWN, GRID};
use crate::tally::bets::BetTally;

/// Up to this many rounds (or skipped rounds) the discrete laws are convolved exactly.
pub const EXACT_LIMIT: u64 = 20_000;

/// Hits on the players' own picks against the hypergeometric law, per pick count.
pub fn keno_bet_hits(tally: &BetTally) -> TestOutcome {
    let (mut statistic, mut df, mut per_unit) = (0.0, 0.0, f64::INFINITY);
    let (mut pooled, mut mean, mut variance) = (0.0, 0.0, 0.0);
    let mut used = Vec::new();
    for picks in 1..=DRAWN {
        let observed = &tally.keno_hits[(picks - 1) * 11..(picks - 1) * 11 + picks + 1];
        let probabilities: Vec<f64> = (0..=picks)
            .map(|h| hypergeometric_pmf(h as u64, GRID as u64, DRAWN as u64, picks as u64))
            .collect();
        if let Some(fit) = goodness_of_fit(observed, &probabilities) {
            statistic += fit.statistic;
            df += fit.df;
            per_unit = per_unit.min(fit.noncentrality_per_unit_bias);
            pooled += fit.moments.value;
            mean += fit.moments.mean;
            variance += fit.moments.variance;
            used.push(picks.to_string());
        }
    }
    if used.is_empty() {
        return TestOutcome::insufficient(
            "bet_hits",
            "no pick count has rounds enough for its own test".into(),
        );
    }
    TestOutcome::valid(
        "bet_hits",
        statistic,
        Some(df),
        chi_square_sf(statistic, df),
        format!(
            "chi-square of hits on the players' own picks against the hypergeometric law (pick counts {})",
            used.join(",")
        ),
    )
    .with_power(Power::chi_square(df, per_unit))
    .with_moments(NullMoments { value: pooled, mean, variance, exact_mean: true })
}

/// The exact law of a sum of independent discrete variables given by their pmfs.
fn convolve(laws: impl IntoIterator<Item = Vec<f64>>) -> Vec<f64> {
    let mut total = vec![1.0];
    for law in laws {
        let mut next = vec![0.0; total.len() + law.len() - 1];
        for (i, &a) in total.iter().enumerate() {
            if a == 0.0 {
                continue;
            }
            for (j, &b) in law.iter().enumerate() {
                next[i + j] += a * b;
            }
        }
        total = next;
    }
    total
}

/// `P(X ≥ k)` and `P(X ≤ k)` of a law given as a pmf, summed from the smaller side.
fn tails(law: &[f64], k: usize) -> (f64, f64) {
    let at_least: f64 = law.iter().skip(k).sum();
    let at_most: f64 = law.iter().take(k + 1).sum();
    (at_least.min(1.0), at_most.min(1.0))
}

/// Continuity-corrected normal tails of an integer count `k` with mean `m`, sd `s`:
/// `(P(X ≥ k), P(X ≤ k))`.
fn normal_tails(k: u64, mean: f64, sd: f64) -> (f64, f64) {
    let k = k as f64;
    (normal_sf((k - 0.5 - mean) / sd), normal_sf((mean - k - 0.5) / sd))
}

/// Wins on the roulette bets as placed against their exact law.
pub fn roulette_bet_wins(tally: &BetTally, pockets: u32) -> TestOutcome {
    let p = |c: usize| c as f64 / f64::from(pockets);
    let rounds: u64 = tally.roulette_rounds.iter().sum();
    let wins: u64 = tally.roulette_wins.iter().sum();
    let mean: f64 = tally.roulette_rounds.iter().enumerate().map(|(c, &n)| n as f64 * p(c)).sum();
    let variance: f64 =
        tally.roulette_rounds.iter().enumerate().map(|(c, &n)| n as f64 * p(c) * (1.0 - p(c))).sum();
    if variance <= 0.0 {
        return TestOutcome::insufficient("bet_wins", "no roulette bets that can both win and lose".into());
    }
    let sd = variance.sqrt();
    let (upper, lower) = if rounds <= EXACT_LIMIT {
        let law = convolve(
            tally
                .roulette_rounds
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(c, &n)| (0..=n).map(|w| binomial_pmf(w, n, p(c))).collect::<Vec<f64>>()),
        );
        tails(&law, wins as usize)
    } else {
        normal_tails(wins, mean, sd)
    };
    let z = (wins as f64 - mean) / sd;
    TestOutcome::valid(
        "bet_wins",
        wins as f64,
        None,
        (2.0 * upper.min(lower)).min(1.0),
        format!(
            "{wins} of {rounds} bets won, {mean:.1} expected (sd {sd:.1}); {}",
            if rounds <= EXACT_LIMIT { "exact law" } else { "normal, continuity-corrected" }
        ),
    )
    .with_power(Power::NormalShift { shift_per_unit: mean / sd, sides: 2.0 })
    .with_moments(NullMoments { value: z * z, mean: 1.0, variance: 2.0, exact_mean: true })
}

/// The money returned against the exact expected return of the bets as placed (low
/// returns only).
pub fn bet_return(tally: &BetTally) -> TestOutcome {
    if tally.staked_rounds < 30 || tally.return_variance <= 0.0 {
        return TestOutcome::insufficient(
            "bet_return",
            format!("{} rounds with stake and payout; the test needs 30", tally.staked_rounds),
        );
    }
    let sd = tally.return_variance.sqrt();
    let z = (tally.returned - tally.expected_return) / sd;
    let percent = |x: f64| 100.0 * x / tally.staked;
    TestOutcome::valid(
        "bet_return",
        z,
        None,
        normal_sf(-z),
        format!(
            "returned {:.4}% of {} staked, {:.4}% expected of the bets as placed (z {z:.2}; one-sided, low returns)",
            percent(tally.returned),
            tally.staked,
            percent(tally.expected_return)
        ),
    )
    .with_power(Power::NormalShift { shift_per_unit: tally.expected_return / sd, sides: 1.0 })
    .with_moments(NullMoments { value: z * z, mean: 1.0, variance: 2.0, exact_mean: true })
}

/// Rounds at skipped nonces that would have paid, against their exact conditional law
/// (too many only).
pub fn skipped_wins(tally: &BetTally) -> TestOutcome {
    let skipped: u64 = tally.skipped.iter().map(|s| s.skipped).sum();
    let observed: u64 = tally.skipped.iter().map(|s| s.skipped_winning).sum();
    let moments = |s: &crate::tally::bets::SkippedRounds| {
        let (n, w, k) = (s.rounds as f64, s.winning as f64, s.skipped as f64);
        let mean = k * w / n;
        let variance = if n > 1.0 { k * (w / n) * (1.0 - w / n) * (n - k) / (n - 1.0) } else { 0.0 };
        (mean, variance)
    };
    let mean: f64 = tally.skipped.iter().map(|s| moments(s).0).sum();
    let variance: f64 = tally.skipped.iter().map(|s| moments(s).1).sum();
    if skipped == 0 || variance <= 0.0 {
        return TestOutcome::insufficient(
            "skipped_wins",
            format!("{skipped} rounds at skipped nonces replayed; nothing to compare"),
        );
    }
    let sd = variance.sqrt();
    let upper = if skipped <= EXACT_LIMIT {
        let law = convolve(tally.skipped.iter().filter(|s| s.skipped > 0).map(|s| {
            (0..=s.skipped)
                .map(|x| hypergeometric_pmf(x, s.rounds, s.winning, s.skipped))
                .collect::<Vec<f64>>()
        }));
        tails(&law, observed as usize).0
    } else {
        normal_tails(observed, mean, sd).0
    };
    let z = (observed as f64 - mean) / sd;
    TestOutcome::valid(
        "skipped_wins",
        observed as f64,
        None,
        upper,
        format!(
            "skipped rounds that would have won: {observed} of {skipped}, {mean:.1} expected if skipping ignored the outcome (one-sided)"
        ),
    )
    .with_power(Power::NormalShift { shift_per_unit: mean / sd, sides: 1.0 })
    .with_moments(NullMoments { value: z * z, mean: 1.0, variance: 2.0, exact_mean: true })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tally::bets::SkippedRounds;

    #[test]
    fn convolution_of_binomials_is_a_probability_law_with_the_right_mean() {
        let law = convolve([vec![0.5, 0.5], vec![0.25, 0.5, 0.25]]);
        assert_eq!(law, vec![0.125, 0.375, 0.375, 0.125]);
        assert_eq!(tails(&law, 2), (0.5, 0.875));
    }

    #[test]
    fn fair_wins_pass_and_wins_that_avoid_the_bets_fail() {
        let mut tally = BetTally::new();
        tally.roulette_rounds[1] = 3700; // straight bets
        tally.roulette_wins[1] = 100;
        tally.roulette_rounds[18] = 1000; // red
        tally.roulette_wins[18] = 486;
        assert!(roulette_bet_wins(&tally, 37).p_value.unwrap() > 0.05);
        // Straight-up bets winning a fifth as often: 506 wins against 586.5 (sd 18.6).
        tally.roulette_wins[1] = 20;
        assert!(roulette_bet_wins(&tally, 37).p_value.unwrap() < 1e-4);
    }

    #[test]
    fn skipped_winners_are_judged_by_their_hypergeometric_law() {
        let mut tally = BetTally::new();
        // 100 rounds, 20 winners, 10 skipped with 2 winning: what chance predicts.
        tally.skipped.push(SkippedRounds { rounds: 100, winning: 20, skipped: 10, skipped_winning: 2 });
        assert!(skipped_wins(&tally).p_value.unwrap() > 0.3);
        // All 10 skipped would have won: P = C(20,10)/C(100,10).
        tally.skipped[0].skipped_winning = 10;
        let p = skipped_wins(&tally).p_value.unwrap();
        let want = hypergeometric_pmf(10, 100, 20, 10);
        assert!((p / want - 1.0).abs() < 1e-9, "{p} vs {want}");
    }
}
