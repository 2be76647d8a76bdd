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
//!   computed exactly at any size ([`BinomialSum`]). Two-sided.
//! * [`chance_bet_wins`]: the same law for bets whose chance follows from the bet alone
//!   over the HMAC-SHA256 family's 2^32 floats (a dice bet over or under a target, a limbo
//!   target below about 1.98x), the rounds grouped by exact chance so that the convolution
//!   has one class per chance however many rounds share it. Two-sided.
//! * [`bet_return`]: the money returned against the exact expected return of the bets as
//!   placed: with stakes `sᵢ` and each bet's exact mean `μᵢ` and variance `σᵢ²` of return
//!   per unit stake, the total has mean `Σ sᵢμᵢ` and variance `Σ sᵢ²σᵢ²`;
//!   `z = (returned − mean) / √variance`, one-sided, low returns only, with a continuity
//!   correction of half the step of the lattice the return lies on (the common divisor
//!   of every amount the bets can pay). The returns of casino bets are skewed to the
//!   right (rare large prizes), so the lower tail of their sum is lighter than the normal
//!   one and this p-value is conservative; a lucky player is not a finding.
//! * [`skipped_wins`]: where a seed pair's nonces have gaps and its server seed is
//!   revealed, the rounds at the skipped nonces are replayed with the bet of the next
//!   round played. They are verified draws of the chain, so under fairness (draws uniform,
//!   and skipping blind to the outcome) each would have paid more than its stake with the
//!   exact chance `pᵢ` of the bet it is replayed with (a roulette bet covering `c` pockets:
//!   `c/P`; `k` Keno picks: the hypergeometric mass of the hit counts that pay more than
//!   the stake), independently. The skipped winners are the Poisson-binomial `Σ
//!   Bernoulli(pᵢ)`, computed exactly with the rounds grouped by chance ([`BinomialSum`]);
//!   one-sided, too many skipped winners. Why not the hypergeometric law of the skipped
//!   among all of a pair's rounds (fairaudit's first version): it holds only when every
//!   round had the same chance, and a player who moved from a straight-up to red across a
//!   gap FAILed with p 1e-13 on fair draws (the red rounds replayed were compared with the
//!   straight-up rounds' win rate).

use super::binomial_sum::BinomialSum;
use super::chisquare::goodness_of_fit;
use super::distributions::{chi_square_sf, hypergeometric_pmf, normal_sf};
use super::outcome::{NullMoments, TestOutcome};
use super::power::Power;
use crate::games::keno::{DRAWN, GRID};
use crate::tally::bets::BetTally;

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

/// Wins on the roulette bets as placed against their exact law.
pub fn roulette_bet_wins(tally: &BetTally, pockets: u32) -> TestOutcome {
    let p = |c: usize| c as f64 / f64::from(pockets);
    let wins: u64 = tally.roulette_wins.iter().sum();
    let classes: Vec<(u64, f64)> =
        tally.roulette_rounds.iter().enumerate().filter(|(_, &n)| n > 0).map(|(c, &n)| (n, p(c))).collect();
    wins_against_their_law(&classes, wins, "roulette bets")
}

/// Wins on bets whose chance is exact from the bet alone (the HMAC-SHA256 family's dice
/// targets and limbo's targets below about 1.98x, [`BetTally::chance_wins`]: a bet winning
/// on `k` of the `of` words wins with chance `k / of`), against their exact law, one
/// binomial class per chance. Two-sided, as roulette's: an operator who turns the wins of
/// some bets into losses, keeping every roll as frequent, FAILs it.
pub fn chance_bet_wins(tally: &BetTally) -> TestOutcome {
    let classes: Vec<(u64, f64)> = tally
        .chance_wins
        .iter()
        .map(|(&(winning, of), count)| (count.rounds, winning as f64 / of as f64))
        .collect();
    let wins = tally.chance_wins.values().map(|count| count.wins).sum();
    wins_against_their_law(&classes, wins, "bets")
}

/// `wins` among the rounds of `classes` (`(rounds, chance)`) against their exact law
/// ([`BinomialSum`]): the doubled smaller tail, `bet_wins`.
fn wins_against_their_law(classes: &[(u64, f64)], wins: u64, what: &str) -> TestOutcome {
    let rounds: u64 = classes.iter().map(|&(n, _)| n).sum();
    let law = BinomialSum::new(classes);
    let (mean, variance) = (law.mean(), law.variance());
    if variance <= 0.0 {
        return TestOutcome::insufficient("bet_wins", format!("no {what} that can both win and lose"));
    }
    let sd = variance.sqrt();
    // Doubled smaller tail: smallest at no win or at every bet that can win winning.
    let most: u64 = classes.iter().filter(|&&(_, p)| p > 0.0).map(|&(n, _)| n).sum();
    let smallest = (2.0 * law.at_most(0).min(law.at_least(most))).min(1.0);
    TestOutcome::valid(
        "bet_wins",
        wins as f64,
        None,
        (2.0 * law.at_least(wins).min(law.at_most(wins))).min(1.0),
        format!("{wins} of {rounds} bets won, {mean:.1} expected (sd {sd:.1}); exact law"),
    )
    .with_power(Power::NormalShift { shift_per_unit: mean / sd, sides: 2.0 })
    .with_exact_p()
    .with_smallest_p(smallest)
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
    // The return lies on a lattice of step h (the common divisor of the amounts the bets
    // can pay): P(R ≤ r) is read at r + h/2. Without it, 30 even-money bets of one stake were
    // 1.19 times too liberal at 0.01 (exactly; a review measured up to 1.33).
    let corrected = z + 0.5 * tally.return_step / sd;
    let percent = |x: f64| 100.0 * x / tally.staked;
    TestOutcome::valid(
        "bet_return",
        z,
        None,
        normal_sf(-corrected),
        format!(
            "returned {:.4}% of {} staked, {:.4}% expected of the bets as placed (z {z:.2}; one-sided, low returns)",
            percent(tally.returned),
            tally.staked,
            percent(tally.expected_return)
        ),
    )
    .with_power(Power::NormalShift { shift_per_unit: tally.expected_return / sd, sides: 1.0 })
}

/// Rounds at skipped nonces that would have paid, against their exact law (too many only).
pub fn skipped_wins(tally: &BetTally) -> TestOutcome {
    let skipped: u64 = tally.skipped.iter().map(|s| s.skipped).sum();
    let observed: u64 = tally.skipped.iter().map(|s| s.skipped_winning).sum();
    let classes: Vec<(u64, f64)> = tally.skipped.iter().map(|s| (s.skipped, s.win_probability)).collect();
    let law = BinomialSum::new(&classes);
    let (mean, variance) = (law.mean(), law.variance());
    if skipped == 0 || variance <= 0.0 {
        return TestOutcome::insufficient(
            "skipped_wins",
            format!("{skipped} rounds at skipped nonces replayed; nothing to compare"),
        );
    }
    let sd = variance.sqrt();
    // One-sided, too many: smallest when every skipped round that could win did.
    let could_win: u64 = tally.skipped.iter().filter(|s| s.win_probability > 0.0).map(|s| s.skipped).sum();
    TestOutcome::valid(
        "skipped_wins",
        observed as f64,
        None,
        law.at_least(observed),
        format!(
            "skipped rounds that would have won: {observed} of {skipped}, {mean:.1} expected of the bets they replay (exact law; one-sided)"
        ),
    )
    .with_power(Power::NormalShift { shift_per_unit: mean / sd, sides: 1.0 })
    .with_exact_p()
    .with_smallest_p(law.at_least(could_win))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Exact tail accuracy of `bet_return` on even-money bets of one stake (the return is
    /// twice a binomial count, on a lattice of step 2): for each level `t`, the true chance
    /// that a fair log's p-value falls below `t` is the binomial tail up to the largest
    /// count whose p-value does. Without the continuity correction it was 1.16 to 1.33
    /// times `t` at 0.01 (30 to 50 rounds).
    #[test]
    fn the_return_test_is_exact_or_conservative_on_a_lattice() {
        use crate::stats::distributions::binomial_at_most;
        let p = 18.0 / 37.0;
        for n in [30_u64, 50, 100, 400] {
            let p_value = |wins: u64| {
                let mut tally = BetTally::new();
                for _ in 0..n {
                    tally.money(1.0, 0.0, 2.0 * p, 4.0 * p * (1.0 - p));
                }
                tally.returned = 2.0 * wins as f64;
                tally.payable(2.0);
                bet_return(&tally).p_value.unwrap()
            };
            for t in [0.01, 1e-4, 0.01 / 150.0] {
                let Some(largest) = (0..=n).take_while(|&w| p_value(w) < t).last() else { continue };
                let ratio = binomial_at_most(largest, n, p) / t;
                assert!(ratio <= 1.0, "{n} rounds, level {t}: {ratio}");
            }
        }
    }

    /// The smallest p-value each exact bet test states is the smallest any count of wins
    /// gives (a stated value too large would call a test that can fail INSUFFICIENT):
    /// a few bets of mixed chances, and skipped rounds of two chances.
    #[test]
    fn the_bet_tests_smallest_p_values_are_the_smallest_any_count_gives() {
        for (straight, red) in [(1u64, 0u64), (0, 2), (2, 3), (5, 5), (0, 12)] {
            let mut tally = BetTally::new();
            tally.roulette_rounds[1] = straight;
            tally.roulette_rounds[18] = red;
            let mut seen = f64::INFINITY;
            let mut stated = f64::NAN;
            for wins in 0..=straight + red {
                tally.roulette_wins[1] = wins.min(straight);
                tally.roulette_wins[18] = wins - wins.min(straight);
                let outcome = roulette_bet_wins(&tally, 37);
                seen = seen.min(outcome.p_value.unwrap());
                stated = outcome.smallest_p.unwrap();
            }
            assert!(
                (stated - seen).abs() <= 1e-12 * seen,
                "{straight} straight, {red} red: {stated} vs {seen}"
            );
        }
        for (straight, red) in [(1u64, 0u64), (0, 3), (2, 2), (4, 6)] {
            let mut seen = f64::INFINITY;
            let mut stated = f64::NAN;
            for wins in 0..=straight + red {
                let mut tally = BetTally::new();
                tally.skipped_rounds(1.0 / 37.0, straight, wins.min(straight));
                tally.skipped_rounds(18.0 / 37.0, red, wins - wins.min(straight));
                let outcome = skipped_wins(&tally);
                seen = seen.min(outcome.p_value.unwrap());
                stated = outcome.smallest_p.unwrap();
            }
            assert!(
                (stated - seen).abs() <= 1e-12 * seen,
                "{straight} straight, {red} red: {stated} vs {seen}"
            );
        }
    }

    #[test]
    fn skipped_winners_are_judged_by_the_chances_of_their_own_bets() {
        // 200 rounds skipped while the player was on red (18/37), none on a straight-up: 97.3
        // winners expected, whatever the player's straight-up rounds won around the gap.
        let mut tally = BetTally::new();
        tally.skipped_rounds(18.0 / 37.0, 200, 97);
        assert!(skipped_wins(&tally).p_value.unwrap() > 0.3);
        // 10 straight-up rounds and 10 on red skipped: all 20 would have won.
        let mut tally = BetTally::new();
        tally.skipped_rounds(1.0 / 37.0, 10, 10);
        tally.skipped_rounds(18.0 / 37.0, 10, 10);
        let p = skipped_wins(&tally).p_value.unwrap();
        let want = (1.0_f64 / 37.0).powi(10) * (18.0_f64 / 37.0).powi(10);
        assert!((p / want - 1.0).abs() < 1e-9, "{p} vs {want}");
        // Classes of one chance are merged, across players too.
        let mut more = BetTally::new();
        more.skipped_rounds(1.0 / 37.0, 5, 0);
        tally.add(&more);
        assert_eq!(tally.skipped.len(), 2);
        assert_eq!(tally.skipped[0].skipped, 15);
    }
}
