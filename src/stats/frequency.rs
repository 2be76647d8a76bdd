//! Frequency tests: roulette pockets and bet groups, Keno numbers, Keno hits.
//!
//! Roulette spins are independent, so pocket and group counts are multinomial and
//! Pearson's χ² applies as is. Keno draws ten numbers *without replacement*, so the forty
//! number counts are not multinomial; see [`keno_numbers`] for the corrected null.

use super::chisquare::{goodness_of_fit, pearson, MIN_EXPECTED};
use super::distributions::{chi_square_sf, hypergeometric_pmf};
use super::outcome::TestOutcome;
use crate::games::keno::{DRAWN, GRID};
use crate::games::roulette::outside_groups;
use crate::tally::{KenoTally, RouletteTally};

/// Pocket frequency: `X² = Σ (Oₚ − n/P)² / (n/P)` over the `P` pockets, χ² with `P − 1`
/// degrees of freedom under uniformity.
pub fn pocket_frequency(tally: &RouletteTally) -> TestOutcome {
    let probabilities = vec![1.0 / tally.pockets.len() as f64; tally.pockets.len()];
    fixed_bins("pocket_frequency", &tally.pockets, &probabilities, "chi-square against uniform pockets")
}

/// A goodness-of-fit test whose bins must not be merged (categories, not an ordered
/// scale): INSUFFICIENT when any bin expects fewer than [`MIN_EXPECTED`] (then no merging
/// happens in [`ordered_fit`]).
fn fixed_bins(test: &str, observed: &[u64], probabilities: &[f64], note: &str) -> TestOutcome {
    let total: u64 = observed.iter().sum();
    let min_expected = probabilities.iter().fold(f64::INFINITY, |m, p| m.min(p * total as f64));
    if min_expected < MIN_EXPECTED {
        return TestOutcome::insufficient(
            test,
            format!("smallest expected count {min_expected:.2} is below {MIN_EXPECTED}"),
        );
    }
    ordered_fit(test, observed, probabilities, note)
}

/// The bet-group tests: colour (red/black/green), parity (odd/even/zero), low/high/zero,
/// dozens (three dozens and zero), columns (three columns and zero). Each is a χ²
/// goodness of fit to the group sizes over `P` (zero standing for 0 and 00), with
/// `groups − 1` degrees of freedom. They are functions of the pocket counts, aimed at
/// biases that spread over a bet's numbers.
pub fn bet_groups(tally: &RouletteTally) -> Vec<TestOutcome> {
    let pockets = tally.pockets.len();
    let groups = outside_groups(pockets);
    let find = |name: &str| groups.iter().find(|(n, _)| *n == name).expect("known group").1.clone();
    let families: [(&str, [&str; 2], Option<&str>); 5] = [
        ("colour", ["red", "black"], None),
        ("parity", ["odd", "even"], None),
        ("low_high", ["low", "high"], None),
        ("dozens", ["dozen_1", "dozen_2"], Some("dozen_3")),
        ("columns", ["column_1", "column_2"], Some("column_3")),
    ];
    families
        .iter()
        .map(|(test, [a, b], c)| {
            let mut members: Vec<Vec<u8>> = vec![find(a), find(b)];
            if let Some(c) = c {
                members.push(find(c));
            }
            members.push(find("green"));
            let observed: Vec<u64> =
                members.iter().map(|m| m.iter().map(|&p| tally.pockets[usize::from(p)]).sum()).collect();
            let probabilities: Vec<f64> = members.iter().map(|m| m.len() as f64 / pockets as f64).collect();
            let names = members.len();
            fixed_bins(
                test,
                &observed,
                &probabilities,
                &format!("chi-square over {names} groups (zero is its own group)"),
            )
        })
        .collect()
}

/// Keno number frequency, corrected for drawing without replacement.
///
/// # Formula
///
/// `cₙ` counts the rounds (of `R`) in which number `n` was drawn. Each round contributes
/// the indicator vector of a uniformly random 10-subset of 40, whose covariance is
/// `p(1 − p) · N/(N − 1) · (I − J/N)` with `p = K/N = 1/4`, `N = 40`, `K = 10`. So the
/// textbook statistic `X² = Σ (cₙ − R/4)² / (R/4)` is asymptotically
/// `(N − K)/(N − 1) · χ²₃₉ = 30/39 · χ²₃₉` (mean 30, not 39): the textbook test would be
/// far too lenient. The test uses `X² · 39/30`, asymptotically χ² with 39 degrees of
/// freedom (the calibration tests confirm it).
pub fn keno_numbers(tally: &KenoTally) -> TestOutcome {
    let rounds = tally.stream.rounds as f64;
    let expected = rounds * DRAWN as f64 / GRID as f64;
    if expected < MIN_EXPECTED {
        return TestOutcome::insufficient(
            "number_frequency",
            format!("expected count {expected:.2} per number"),
        );
    }
    let scale = (GRID - 1) as f64 / (GRID - DRAWN) as f64;
    let statistic = pearson(&tally.numbers, &vec![expected; GRID]) * scale;
    let df = (GRID - 1) as f64;
    TestOutcome {
        test: "number_frequency".into(),
        statistic,
        df: Some(df),
        p_value: Some(chi_square_sf(statistic, df)),
        insufficient: None,
        noncentrality_per_unit_bias: Some(scale * expected / (1.0 - 1.0 / GRID as f64)),
        continuous: true,
        note: "chi-square x 39/30: corrected for drawing 10 of 40 without replacement".into(),
    }
}

/// The hits of each documented pick set (1 to 10 numbers) against the hypergeometric law:
/// with `k` numbers picked, `P(h hits) = C(10, h) C(30, k − h) / C(40, k)`. Rounds are
/// independent, so the counts are multinomial and Pearson's χ² applies (sparse tail bins
/// merged), `bins − 1` degrees of freedom.
pub fn keno_hits(tally: &KenoTally) -> Vec<TestOutcome> {
    (1..=DRAWN)
        .map(|picks| {
            let test = format!("hits_{picks}_picks");
            let observed = &tally.hits[(picks - 1) * (DRAWN + 1)..(picks - 1) * (DRAWN + 1) + picks + 1];
            let probabilities: Vec<f64> = (0..=picks)
                .map(|h| hypergeometric_pmf(h as u64, GRID as u64, DRAWN as u64, picks as u64))
                .collect();
            ordered_fit(&test, observed, &probabilities, "chi-square against the hypergeometric law")
        })
        .collect()
}

/// Goodness of fit on an ordered histogram whose sparse ends may be merged.
pub(crate) fn ordered_fit(test: &str, observed: &[u64], probabilities: &[f64], note: &str) -> TestOutcome {
    match goodness_of_fit(observed, probabilities) {
        None => TestOutcome::insufficient(test, "fewer than two bins expect 5 or more".into()),
        Some(fit) => TestOutcome {
            test: test.to_owned(),
            statistic: fit.statistic,
            df: Some(fit.df),
            p_value: Some(fit.p_value),
            insufficient: None,
            noncentrality_per_unit_bias: Some(fit.noncentrality_per_unit_bias),
            continuous: true,
            note: note.to_owned(),
        },
    }
}
