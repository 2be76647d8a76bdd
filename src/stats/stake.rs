//! The battery of a sweep of one game of the HMAC-SHA256 family: each view of
//! [`crate::scheme::stake::cells`] tested against its exact law, per seed pair, on the pairs summed, and across them,
//! adjusted for multiplicity by [`crate::stats::battery::assess`] (the same verdicts as
//! the default scheme's battery).
//!
//! - `outcome_frequency`: the outcome cells (dice's rolls, roulette's pockets, limbo's
//!   bands, plinko's buckets) against their exact law: Cressie–Read goodness of fit, sparse
//!   cells merged with their neighbours.
//! - `draw_steps`: each draw step's index against the exact law of `floor(float * left)`;
//!   the steps are independent (distinct floats), so the statistics add, and so do their
//!   degrees of freedom.
//! - `pairs`: the coarse classes of rounds `2k` and `2k + 1` against the product of their
//!   exact law (pairs that do not overlap are multinomial): dependence between
//!   consecutive rounds.

use super::battery::{assess, with_across, Battery};
use super::chisquare::goodness_of_fit;
use super::distributions::chi_square_sf;
use super::frequency::ordered_fit;
use super::outcome::{NullMoments, TestOutcome};
use super::power::Power;
use crate::scheme::stake::cells::{coarse_law, outcome_law, step_laws};
use crate::scheme::stake::StakeGame;
use crate::tally::stake::StakeTally;

/// The tests of one tally of `game`.
pub fn tests(game: &StakeGame, tally: &StakeTally) -> Vec<TestOutcome> {
    let mut tests = Vec::new();
    if !tally.outcomes.is_empty() {
        tests.push(ordered_fit(
            "outcome_frequency",
            &tally.outcomes,
            &outcome_law(game),
            "chi-square (Cressie-Read) against the exact law of the outcomes (preimages of 2^32 floats)",
        ));
    }
    if !tally.steps.is_empty() {
        tests.push(draw_steps(game, tally));
    }
    let law = coarse_law(game);
    let product: Vec<f64> = law.iter().flat_map(|a| law.iter().map(move |b| a * b)).collect();
    tests.push(ordered_fit(
        "pairs",
        &tally.pairs,
        &product,
        "chi-square (Cressie-Read) of rounds 2k and 2k+1 by coarse class against the product of its exact law",
    ));
    tests
}

/// The draw steps' statistics summed: independent chi-squares, degrees of freedom added.
fn draw_steps(game: &StakeGame, tally: &StakeTally) -> TestOutcome {
    const TEST: &str = "draw_steps";
    let (mut statistic, mut df, mut per_unit) = (0.0, 0.0, f64::INFINITY);
    let mut moments = NullMoments { value: 0.0, mean: 0.0, variance: 0.0, exact_mean: true };
    for (step, (counts, law)) in tally.steps.iter().zip(step_laws(game)).enumerate() {
        let Some(fit) = goodness_of_fit(counts, &law) else {
            return TestOutcome::insufficient(
                TEST,
                format!("draw step {} has fewer than two bins expecting 10 or more", step + 1),
            );
        };
        statistic += fit.statistic;
        df += fit.df;
        per_unit = per_unit.min(fit.noncentrality_per_unit_bias);
        moments.value += fit.moments.value;
        moments.mean += fit.moments.mean;
        moments.variance += fit.moments.variance;
    }
    let note = format!(
        "sum of {} chi-squares (Cressie-Read), one per draw step, against the exact law of floor(float * left)",
        tally.steps.len()
    );
    TestOutcome::valid(TEST, statistic, Some(df), chi_square_sf(statistic, df), note)
        .with_power(Power::chi_square(df, per_unit))
        .with_moments(moments)
}

/// The battery of a sweep of `game`: one tally per seed pair (labelled `0`, `1`, …), and
/// with several pairs their sum (`all`) and the tests across them.
pub fn battery(game: &StakeGame, per_pair: &[StakeTally], alpha: f64) -> Battery<StakeGame> {
    let mut groups: Vec<(String, Vec<TestOutcome>)> =
        per_pair.iter().enumerate().map(|(i, tally)| (i.to_string(), tests(game, tally))).collect();
    if per_pair.len() > 1 {
        groups.push(("all".to_owned(), tests(game, &StakeTally::sum(game, per_pair))));
    }
    assess(with_across(*game, groups, alpha), alpha)
}

/// The battery of an audited history: each game's tests on its recorded results (rows
/// labelled `log`), adjusted for multiplicity together.
pub fn log_battery(tallies: &[(StakeGame, StakeTally)], alpha: f64) -> Battery<StakeGame> {
    let rows = tallies
        .iter()
        .flat_map(|(game, tally)| tests(game, tally).into_iter().map(move |t| (*game, "log".to_owned(), t)))
        .collect();
    assess(rows, alpha)
}
