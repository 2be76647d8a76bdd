//! Rejection counts per P against their exact expectation.
//!
//! # Formula
//!
//! At a draw among `P` outcomes each word is rejected with probability
//! `q = (2³² mod P) / 2³²`, independently; the rejections before acceptance are geometric
//! with mean `q / (1 − q)`, so over `D` draws the total is negative binomial with mean
//! `μ = D q / (1 − q)`. With `q` below 10⁻⁸ this is Poisson(μ) to within a relative
//! `q` — far below anything measurable — so the test is an exact two-sided Poisson test
//! on the observed total. Counts are tiny (μ ≈ 0.04 for 10⁷ draws at P = 40): the test
//! catches a sampler that rejects far too often (or at all, for P a power of two), and
//! cannot see one that never rejects; the reference vectors catch that one.

use super::distributions::poisson_two_sided;
use super::outcome::TestOutcome;
use crate::sampler::expected_rejections;

/// The test for one P: `rejected` words over `draws` draws.
pub fn rejection_test(outcomes: u32, draws: u64, rejected: u64) -> TestOutcome {
    let mean = expected_rejections(outcomes, draws);
    TestOutcome {
        test: format!("rejections_p{outcomes}"),
        statistic: rejected as f64,
        df: None,
        p_value: Some(poisson_two_sided(rejected, mean)),
        insufficient: None,
        noncentrality_per_unit_bias: None,
        continuous: false,
        note: format!("{rejected} rejected words, {mean:.4} expected over {draws} draws (exact Poisson)"),
    }
}
