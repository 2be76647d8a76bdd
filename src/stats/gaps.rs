//! The gap test: spacing between repeats of each roulette pocket.
//!
//! # Formula
//!
//! Under fairness each pocket occurs independently with probability `p = 1/P` per spin, so
//! the number of spins between two consecutive occurrences is geometric:
//! `P(g) = p(1 − p)^g` for `g = 0, 1, …`, and `P(g ≥ cap) = (1 − p)^cap` for the tally's
//! last bucket. For pocket `x` with `mₓ` complete gaps, `Xₓ² = Σ (O − mₓπ)² / (mₓπ)` over
//! the buckets (sparse tail buckets merged) is asymptotically χ² with `bucketsₓ − 1`
//! degrees of freedom. Gaps of different pockets are nearly independent, so the test sums
//! `X² = Σₓ Xₓ²` with `Σₓ (bucketsₓ − 1)` degrees of freedom; the calibration tests
//! check that this holds at the sizes they run.

use super::chisquare::{merge_sparse, pearson, MIN_EXPECTED};
use super::distributions::chi_square_sf;
use super::outcome::TestOutcome;
use crate::tally::gaps::Gaps;

/// The gap test over all pockets.
pub fn gap_test(gaps: &Gaps) -> TestOutcome {
    let p = 1.0 / gaps.outcomes as f64;
    let cap = gaps.cap;
    let probabilities: Vec<f64> = (0..=cap)
        .map(|g| if g < cap { p * (1.0 - p).powi(g as i32) } else { (1.0 - p).powi(cap as i32) })
        .collect();
    let (mut statistic, mut df) = (0.0, 0.0);
    for outcome in 0..gaps.outcomes {
        let observed = &gaps.hist[outcome * (cap + 1)..(outcome + 1) * (cap + 1)];
        let total: u64 = observed.iter().sum();
        let expected: Vec<f64> = probabilities.iter().map(|q| q * total as f64).collect();
        let (o, e) = merge_sparse(observed, &expected, MIN_EXPECTED);
        if o.len() < 2 || e.iter().any(|&x| x < MIN_EXPECTED) {
            return TestOutcome::insufficient(
                "gaps",
                format!("pocket index {outcome} has too few gaps ({total})"),
            );
        }
        statistic += pearson(&o, &e);
        df += (o.len() - 1) as f64;
    }
    TestOutcome {
        test: "gaps".into(),
        statistic,
        df: Some(df),
        p_value: Some(chi_square_sf(statistic, df)),
        insufficient: None,
        noncentrality_per_unit_bias: None,
        continuous: true,
        note: "sum over pockets of chi-square of gap lengths against the geometric law".into(),
    }
}
