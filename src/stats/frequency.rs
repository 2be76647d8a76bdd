//! Frequency tests: roulette pockets and bet groups, Keno numbers, Keno hits.
//!
//! Roulette spins are independent, so pocket and group counts are multinomial and the
//! goodness-of-fit statistic of [`super::chisquare`] applies as is. Keno draws ten numbers
//! *without replacement*, so the forty number counts are not multinomial; see
//! [`keno_numbers`] for the corrected null.

use super::chisquare::{goodness_of_fit, multinomial_moments, pearson, GoodnessOfFit, MIN_EXPECTED};
use super::distributions::{
    binomial_two_sided, binomial_two_sided_smallest, chi_square_sf, hypergeometric_pmf,
};
use super::outcome::{NullMoments, TestOutcome};
use super::power::Power;
use super::sparse::sparse_fit;
use crate::games::keno::{DRAWN, GRID};
use crate::games::roulette::outside_groups;
use crate::tally::{KenoTally, RouletteTally};

/// Pocket frequency: goodness of fit of the pocket counts to uniform, χ² with `P − 1`
/// degrees of freedom.
pub fn pocket_frequency(tally: &RouletteTally) -> TestOutcome {
    let probabilities = vec![1.0 / tally.pockets.len() as f64; tally.pockets.len()];
    fixed_bins(
        "pocket_frequency",
        &tally.pockets,
        &probabilities,
        "chi-square (Cressie-Read) against uniform pockets",
    )
}

/// A goodness-of-fit test whose bins must not be merged (categories, not an ordered
/// scale): INSUFFICIENT when any bin expects fewer than [`MIN_EXPECTED`] (then no merging
/// happens in [`ordered_fit`]). Pearson's statistic and its exact moments are kept even
/// then: the test across seed pairs pools them.
fn fixed_bins(test: &str, observed: &[u64], probabilities: &[f64], note: &str) -> TestOutcome {
    let total: u64 = observed.iter().sum();
    let min_expected = probabilities.iter().fold(f64::INFINITY, |m, p| m.min(p * total as f64));
    if min_expected < MIN_EXPECTED {
        let expected: Vec<f64> = probabilities.iter().map(|p| p * total as f64).collect();
        let mut moments = multinomial_moments(probabilities, total);
        moments.value = pearson(observed, &expected);
        return TestOutcome::insufficient(
            test,
            format!("smallest expected count {min_expected:.2} is below {MIN_EXPECTED}"),
        )
        .with_moments(moments);
    }
    ordered_fit(test, observed, probabilities, note)
}

/// The bet-group tests, aimed at biases that spread over a bet's numbers:
///
/// * `zeros`: spins landing on the zeros (0, and 00 on the American wheel) against
///   `Binomial(n, zeros/P)`, an exact two-sided test. The zeros are where the house edge
///   lives, and the cell is small (1/37 of the spins), so it gets an exact test of its own
///   rather than being one small bin of a chi-square, whose far tail the small bin would
///   make unreliable.
/// * `colour`, `parity`, `low_high`: among the spins that are not zeros, the count of red
///   (odd, low) against `Binomial(n′, 1/2)`, exact two-sided.
/// * `dozens`, `columns`: among the spins that are not zeros, the three dozens (columns)
///   against equal thirds, goodness of fit with 2 degrees of freedom.
///
/// Given the number of non-zero spins `n′`, the non-zero spins are uniform over the 36
/// numbers whatever the zeros did, so each test conditions on `n′` exactly.
pub fn bet_groups(tally: &RouletteTally) -> Vec<TestOutcome> {
    let pockets = tally.pockets.len();
    let groups = outside_groups(pockets);
    let count = |name: &str| -> u64 {
        let members = &groups.iter().find(|(n, _)| *n == name).expect("known group").1;
        members.iter().map(|&p| tally.pockets[usize::from(p)]).sum()
    };
    let spins: u64 = tally.pockets.iter().sum();
    let zeros = count("green");
    let non_zero = spins - zeros;
    let zero_share = (pockets - 36) as f64 / pockets as f64;
    let mut tests = vec![binomial_test(
        "zeros",
        zeros,
        spins,
        zero_share,
        format!("{zeros} of {spins} spins on the zeros (exact binomial)"),
    )];
    for (test, [a, b]) in
        [("colour", ["red", "black"]), ("parity", ["odd", "even"]), ("low_high", ["low", "high"])]
    {
        let first = count(a);
        tests.push(binomial_test(
            test,
            first,
            non_zero,
            0.5,
            format!("{first} {a} of {non_zero} non-zero spins, {} {b} (exact binomial)", non_zero - first),
        ));
    }
    for (test, names) in
        [("dozens", ["dozen_1", "dozen_2", "dozen_3"]), ("columns", ["column_1", "column_2", "column_3"])]
    {
        let observed: Vec<u64> = names.iter().map(|n| count(n)).collect();
        tests.push(fixed_bins(
            test,
            &observed,
            &[1.0 / 3.0; 3],
            "chi-square (Cressie-Read) of the three groups among non-zero spins",
        ));
    }
    tests
}

/// An exact two-sided binomial test of `k` successes in `n` trials of probability `p`,
/// with the power and pooling of the equivalent two-bin chi-square.
fn binomial_test(test: &str, k: u64, n: u64, p: f64, note: String) -> TestOutcome {
    if n == 0 {
        return TestOutcome::insufficient(test, "no spins".into());
    }
    let expected = [p * n as f64, (1.0 - p) * n as f64];
    let mut moments = multinomial_moments(&[p, 1.0 - p], n);
    moments.value = pearson(&[k, n - k], &expected);
    TestOutcome::valid(test, k as f64, None, binomial_two_sided(k, n, p), note)
        .with_power(Power::chi_square(1.0, expected[0].min(expected[1]) / p.max(1.0 - p)))
        .with_moments(moments)
        .with_exact_p()
        .with_smallest_p(binomial_two_sided_smallest(n, p))
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
///
/// Exact moments at `R` rounds: each round's centred indicator vector `Y` has
/// `‖Y‖² = 10·(3/4)² + 30·(1/4)² = 7.5` whatever was drawn, so
/// `‖Σ Y‖² = 7.5R + Σ_{r≠s} Yᵣ·Yₛ`, whose cross terms are uncorrelated with variance
/// `tr(Σ²) = 39·(40/39 · 3/16)²`. Hence `E = 39` and `Var = 78 (1 − 1/R)` exactly.
pub fn keno_numbers(tally: &KenoTally) -> TestOutcome {
    let rounds = tally.stream.rounds as f64;
    let expected = rounds * DRAWN as f64 / GRID as f64;
    let scale = (GRID - 1) as f64 / (GRID - DRAWN) as f64;
    let df = (GRID - 1) as f64;
    let moments = NullMoments {
        value: f64::NAN,
        mean: df,
        variance: 2.0 * df * (1.0 - 1.0 / rounds.max(1.0)),
        exact_mean: true,
    };
    if rounds == 0.0 {
        return TestOutcome::insufficient("number_frequency", "no rounds".into());
    }
    let statistic = pearson(&tally.numbers, &vec![expected; GRID]) * scale;
    let outcome = TestOutcome::valid(
        "number_frequency",
        statistic,
        Some(df),
        chi_square_sf(statistic, df),
        "chi-square x 39/30: corrected for drawing 10 of 40 without replacement".into(),
    )
    .with_power(Power::chi_square(df, scale * expected / (1.0 - 1.0 / GRID as f64)))
    .with_moments(moments);
    if expected < MIN_EXPECTED {
        return outcome.make_insufficient(format!("expected count {expected:.2} per number"));
    }
    outcome
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

/// Goodness-of-fit statistics of independent multinomials summed (draw steps, rows of a
/// conditional table): a sum of independent χ² is χ² with the degrees of freedom added,
/// and the null moments add too; the power is that of the hardest bin of any of them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SummedFits {
    statistic: f64,
    df: f64,
    per_unit: f64,
    moments: NullMoments,
}

impl SummedFits {
    /// No statistics yet.
    pub(crate) fn new() -> Self {
        SummedFits {
            statistic: 0.0,
            df: 0.0,
            per_unit: f64::INFINITY,
            moments: NullMoments { value: 0.0, mean: 0.0, variance: 0.0, exact_mean: true },
        }
    }

    /// Adds one more independent fit.
    pub(crate) fn add(&mut self, fit: &GoodnessOfFit) {
        self.statistic += fit.statistic;
        self.df += fit.df;
        self.per_unit = self.per_unit.min(fit.noncentrality_per_unit_bias);
        self.moments.value += fit.moments.value;
        self.moments.mean += fit.moments.mean;
        self.moments.variance += fit.moments.variance;
    }

    /// The summed statistic against χ² with the summed degrees of freedom.
    pub(crate) fn outcome(self, test: &str, note: String) -> TestOutcome {
        TestOutcome::valid(test, self.statistic, Some(self.df), chi_square_sf(self.statistic, self.df), note)
            .with_power(Power::chi_square(self.df, self.per_unit))
            .with_moments(self.moments)
    }
}

/// Goodness of fit of a histogram of outcomes over many nearly equal cells (Stake dice's
/// 10,001 rolls): the sparse test of [`super::sparse`] where it runs (at least
/// [`super::sparse::SPARSE_MIN_BINS`] bins expecting
/// [`super::sparse::SPARSE_MIN_EXPECTED`] or more), which keeps the
/// cells that merging into bins of ten would pair up; otherwise [`ordered_fit`]. `note`
/// says what is fitted, against what.
pub(crate) fn outcome_fit(test: &str, observed: &[u64], probabilities: &[f64], note: &str) -> TestOutcome {
    let Some(fit) = sparse_fit(observed, probabilities) else {
        return ordered_fit(test, observed, probabilities, &format!("chi-square (Cressie-Read) {note}"));
    };
    let note = format!(
        "Pearson X2 over {} bins expecting {:.3} or more, {note}; gamma tail with its exact mean, variance and third cumulant",
        fit.bins, fit.min_expected
    );
    TestOutcome::valid(test, fit.statistic, None, fit.p_value, note)
        .with_power(Power::chi_square((fit.bins - 1) as f64, fit.noncentrality_per_unit_bias))
        .with_moments(fit.moments)
}

/// Goodness of fit on an ordered histogram whose sparse ends may be merged, with the
/// exact moments of multinomial counts.
pub(crate) fn ordered_fit(test: &str, observed: &[u64], probabilities: &[f64], note: &str) -> TestOutcome {
    match goodness_of_fit(observed, probabilities) {
        None => TestOutcome::insufficient(test, format!("fewer than two bins expect {MIN_EXPECTED} or more")),
        Some(fit) => {
            let outcome = TestOutcome::valid(test, fit.statistic, Some(fit.df), fit.p_value, note.to_owned())
                .with_power(Power::chi_square(fit.df, fit.noncentrality_per_unit_bias))
                .with_moments(fit.moments);
            if fit.exact {
                let note = format!("{note}; two bins after merging: exact binomial");
                TestOutcome { note, ..outcome.with_exact_p() }
            } else {
                outcome
            }
        }
    }
}
