//! Tests across seed pairs: with several independent seed pairs, is each test's statistic
//! as dispersed across the pairs as fairness allows?
//!
//! A rig that biases each seed pair differently (a different favoured pocket per pair)
//! cancels out in the `all` row and may be too weak to flag in any single pair; it shows
//! as per-pair statistics that are too large *together*.
//!
//! # Formula
//!
//! For a test with per-pair values `Vᵢ` (the χ² statistic, or `z²` for a z-test) whose
//! mean `μᵢ` and variance `σᵢ²` under fairness are known at the pair's size, the pooled
//! statistic is `S = Σ Vᵢ` over the `K` pairs, with `E[S] = Σ μᵢ` and `Var[S] = Σ σᵢ²`
//! (pairs are independent). `S` is referred to the scaled chi-square with the same two
//! moments (Satterthwaite): `S / a ~ χ²(ν)` with `a = Var/(2E)` and `ν = 2E²/Var`. For
//! large `K` this is the normal law of a sum of many independent terms; for small `K` it
//! is the χ² law of the per-pair statistics themselves.
//!
//! Why not a Kolmogorov–Smirnov test of the pairs' p-values against uniform (NIST SP
//! 800-22's second level)? At the sizes per-pair audits take (many seed pairs with a few
//! hundred rounds each) the p-values are lattice-valued (a Binomial(100, 1/4) count has
//! about 20 likely values), their law is about `0.92/√R` away from uniform in KS distance,
//! and the KS test fails a fair game once `K` exceeds about `10·R`. The pooled statistic
//! uses only exact moments and needs no continuity.
//!
//! # The smallest exact p-value
//!
//! A test whose per-pair p-value comes from its exact law ([`TestOutcome::exact`]: the
//! binomial tests, the bet tests of an audit, the longest run, the rejections) is judged
//! across pairs by its smallest p-value instead, `TEST:min_across_pairs`, with Šidák's
//! exact correction for `K` independent pairs: `p = 1 − (1 − p_min)^K`. An exact
//! (or exactly conservative) p-value is accurate however small, so this row is right at
//! any threshold Holm sets, and it catches one pair rigged alone (one player whose draws
//! avoid the bets, among hundreds). The pooled sum of such statistics is not pooled: with
//! small counts `z²` is far heavier-tailed than its two moments say (a pooled `zeros` test
//! over pairs of 50 spins was 2.6 times too liberal at 2e-6), and for one-sided tests (a
//! shortfall of wins or returns) a dispersion would count lucky players as evidence.
//!
//! Where the moments are exact at any size (Pearson statistics with known probabilities
//! and the Keno quadratic forms; `z²` of the runs test), the pooled test runs even when
//! each pair is too small for its own test, provided there are at least [`MIN_POOLED`]
//! pairs (the sum then has many independent terms). Where only the asymptotic mean is
//! known (statistics with estimated margins), it runs only when every pair's own test is
//! valid. Otherwise it is INSUFFICIENT, with the reason.

use super::distributions::chi_square_sf;
use super::outcome::TestOutcome;
use super::power::Power;
use super::PValue;

/// Smallest number of seed pairs for any test across pairs.
pub const MIN_PAIRS: usize = 2;

/// Smallest number of seed pairs for pooling statistics whose pairs are each too small
/// for their own test.
pub const MIN_POOLED: usize = 20;

/// Tests across the numbered seed pairs of `per_pair` (rows labelled `all` are ignored);
/// `alpha` is only used to count the pairs that pass, for the note.
pub fn across_pairs(per_pair: &[(String, Vec<TestOutcome>)], alpha: f64) -> Vec<TestOutcome> {
    let pairs: Vec<&Vec<TestOutcome>> =
        per_pair.iter().filter(|(label, _)| label != "all").map(|(_, t)| t).collect();
    if pairs.len() < MIN_PAIRS {
        return Vec::new();
    }
    let labels: Vec<&str> =
        per_pair.iter().filter(|(label, _)| label != "all").map(|(label, _)| label.as_str()).collect();
    let k = pairs.len();
    let mut out = Vec::new();
    for (index, first) in pairs[0].iter().enumerate() {
        let outcomes: Vec<&TestOutcome> = pairs.iter().filter_map(|tests| tests.get(index)).collect();
        // What the pooled test judges is what the pairs' test judges.
        let pooled = across_one(first, &outcomes, &labels, k, alpha)
            .map(|t| TestOutcome { judges_outcomes: first.judges_outcomes, ..t });
        out.extend(pooled);
    }
    out
}

/// The test across the `k` pairs of one test (`first` is its first pair's outcome,
/// `outcomes` every pair's that has it): `None` for a test with no known moments, which is
/// not pooled.
fn across_one(
    first: &TestOutcome,
    outcomes: &[&TestOutcome],
    labels: &[&str],
    k: usize,
    alpha: f64,
) -> Option<TestOutcome> {
    let mut valid = outcomes.iter().filter(|t| t.p_value.is_some()).peekable();
    if valid.peek().is_some() && valid.all(|t| t.exact) {
        return Some(smallest_exact(&first.test, labels, outcomes));
    }
    if first.moments.is_none() && outcomes.iter().all(|t| t.moments.is_none()) {
        return None; // a test with no known moments (maxima, lag families): not pooled
    }
    let name = format!("{}:dispersion_across_pairs", first.test);
    let moments: Option<Vec<_>> = outcomes.iter().map(|t| t.moments).collect();
    let Some(moments) = moments.filter(|m| m.len() == k) else {
        return Some(TestOutcome::insufficient(
            &name,
            "some seed pairs have no statistic for this test".into(),
        ));
    };
    let all_valid = outcomes.iter().all(|t| t.p_value.is_some());
    let exact = moments.iter().all(|m| m.exact_mean);
    if !(all_valid || exact && k >= MIN_POOLED) {
        let reason = if exact {
            format!(
                "the pairs are too small for this test and only {k} pairs (pooling them needs {MIN_POOLED})"
            )
        } else {
            "the pairs are too small for this test, whose mean is only known asymptotically".to_owned()
        };
        return Some(TestOutcome::insufficient(&name, reason));
    }
    let sum: f64 = moments.iter().map(|m| m.value).sum();
    let mean: f64 = moments.iter().map(|m| m.mean).sum();
    let variance: f64 = moments.iter().map(|m| m.variance).sum();
    if !(variance > 0.0 && mean > 0.0 && sum.is_finite()) {
        return Some(TestOutcome::insufficient(&name, "the statistic has no variance at this size".into()));
    }
    let scale = variance / (2.0 * mean);
    let df = 2.0 * mean * mean / variance;
    let passing = outcomes.iter().filter(|t| t.p_value.is_some_and(|p| p >= alpha)).count();
    let valid = outcomes.iter().filter(|t| t.p_value.is_some()).count();
    let mut outcome = TestOutcome::valid(
        &name,
        sum,
        Some(df),
        chi_square_sf(sum / scale, df),
        format!(
            "sum over {k} seed pairs: {sum:.1}, expected {mean:.1}, variance {variance:.1} (scaled chi-square); {passing} of {valid} pairs pass their own test at alpha {alpha}"
        ),
    );
    // A bias of δ on one outcome of every pair (a different one in each, say) adds the
    // pairs' noncentralities; the scaled statistic carries 1/a of it.
    let per_unit: Option<f64> = outcomes
        .iter()
        .map(|t| match t.power {
            Some(Power::ChiSquare { per_unit, .. }) => Some(per_unit),
            _ => None,
        })
        .sum();
    if let Some(per_unit) = per_unit {
        outcome = outcome.with_power(Power::chi_square(df, per_unit / scale));
    }
    Some(outcome)
}

/// `TEST:min_across_pairs`: the smallest of the pairs' exact p-values, Šidák-corrected
/// for the pairs that have one.
fn smallest_exact(test: &str, labels: &[&str], outcomes: &[&TestOutcome]) -> TestOutcome {
    let name = format!("{test}:min_across_pairs");
    let valid: Vec<(&str, f64)> =
        labels.iter().zip(outcomes).filter_map(|(label, t)| Some((*label, t.p_value?))).collect();
    if valid.len() < MIN_PAIRS {
        return TestOutcome::insufficient(
            &name,
            format!("{} seed pairs have this test; the smallest of them needs {MIN_PAIRS}", valid.len()),
        );
    }
    let (label, smallest) = valid.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1)).expect("two or more");
    let count = valid.len() as f64;
    // 1 − (1 − p)^K without cancellation for small p.
    let sidak = |p: f64| -(count * (-p).ln_1p()).exp_m1();
    let p = sidak(smallest);
    // The smallest it can give: from the smallest any pair can give, when each pair's test
    // says what that is.
    let reachable: Option<f64> = outcomes
        .iter()
        .filter(|t| t.p_value.is_some())
        .map(|t| t.smallest_p)
        .try_fold(1.0f64, |low, s| Some(low.min(s?)));
    let outcome = TestOutcome::valid(
        &name,
        smallest,
        None,
        p.clamp(0.0, 1.0),
        format!(
            "smallest exact p-value of {} seed pairs: {} at {label} (Sidak-corrected)",
            valid.len(),
            PValue(smallest)
        ),
    )
    .with_exact_p();
    match reachable {
        Some(low) => outcome.with_smallest_p(sidak(low).clamp(0.0, 1.0)),
        None => outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::outcome::NullMoments;

    fn pair(value: f64, valid: bool) -> TestOutcome {
        let outcome = TestOutcome::valid("t", value, Some(3.0), 0.5, String::new())
            .with_moments(NullMoments { value: f64::NAN, mean: 3.0, variance: 6.0, exact_mean: true });
        if valid {
            outcome
        } else {
            outcome.make_insufficient("small".into())
        }
    }

    #[test]
    fn the_pooled_sum_is_a_chi_square_of_the_summed_degrees() {
        let rows: Vec<(String, Vec<TestOutcome>)> =
            (0..4).map(|i| (i.to_string(), vec![pair(3.0, true)])).collect();
        let result = &across_pairs(&rows, 0.01)[0];
        assert_eq!(result.statistic, 12.0);
        assert!((result.df.unwrap() - 12.0).abs() < 1e-12);
        assert!((result.p_value.unwrap() - chi_square_sf(12.0, 12.0)).abs() < 1e-12);
    }

    #[test]
    fn exact_tests_are_judged_by_their_smallest_p_value_with_sidak() {
        let exact = |p: f64| TestOutcome::valid("zeros", 0.0, None, p, String::new()).with_exact_p();
        let rows: Vec<(String, Vec<TestOutcome>)> = [0.5, 1e-6, 0.2, 0.9]
            .iter()
            .enumerate()
            .map(|(i, &p)| (i.to_string(), vec![exact(p)]))
            .chain([("all".to_owned(), vec![exact(1e-9)])])
            .collect();
        let result = &across_pairs(&rows, 0.01)[0];
        assert_eq!(result.test, "zeros:min_across_pairs");
        let want = 1.0 - (1.0 - 1e-6_f64).powi(4);
        assert!((result.p_value.unwrap() / want - 1.0).abs() < 1e-9, "{:?}", result.p_value);
        assert!(result.note.contains("at 1"), "{}", result.note);
        assert!(result.exact);
        assert_eq!(result.smallest_p, None, "the pairs do not say what they can reach");

        // Four pairs of three spins each (smallest 0.25): the smallest of them, Sidak-
        // corrected, is at least 1 - 0.75^4 = 0.68, so this row cannot fail either.
        let short = |p: f64| exact(p).with_smallest_p(0.25);
        let rows: Vec<(String, Vec<TestOutcome>)> =
            [0.25, 1.0, 0.5, 1.0].iter().enumerate().map(|(i, &p)| (i.to_string(), vec![short(p)])).collect();
        let result = &across_pairs(&rows, 0.01)[0];
        assert!((result.smallest_p.unwrap() - (1.0 - 0.75_f64.powi(4))).abs() < 1e-12);
        assert!((result.p_value.unwrap() - result.smallest_p.unwrap()).abs() < 1e-12);
    }

    #[test]
    fn small_pairs_pool_only_with_exact_moments_and_enough_pairs() {
        let few: Vec<(String, Vec<TestOutcome>)> =
            (0..5).map(|i| (i.to_string(), vec![pair(3.0, false)])).collect();
        assert!(across_pairs(&few, 0.01)[0].p_value.is_none());
        let many: Vec<(String, Vec<TestOutcome>)> =
            (0..MIN_POOLED).map(|i| (i.to_string(), vec![pair(3.0, false)])).collect();
        assert!(across_pairs(&many, 0.01)[0].p_value.is_some());
    }
}
