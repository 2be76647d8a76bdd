//! Stated power: the smallest bias a frequency-type test detects with 80% power.
//!
//! # Formula
//!
//! Under an alternative where one outcome's probability is `π(1 + δ)` and the others
//! shrink in proportion, Pearson's statistic is approximately non-central χ² with the
//! null's degrees of freedom and noncentrality `λ = δ² · E / (1 − π)` (`E = nπ`, the
//! outcome's expected count; times the design's scale factor where there is one). Each
//! test reports `c = λ / δ²` for the outcome on which a bias is hardest to see; with
//! `λ₈₀` the noncentrality at which the test's power at level `α` is 80%, the smallest
//! detectable relative bias is `δ = √(λ₈₀ / c)`. The battery uses `α / m` (`m` tests) as
//! the level, the threshold the first Holm step applies, so the figure is conservative.

use super::distributions::noncentrality_for_power;

/// The power at which detectable biases are stated.
pub const POWER: f64 = 0.8;

/// The smallest relative bias on one outcome detected with [`POWER`] by a chi-square test
/// with `df` degrees of freedom at level `alpha`, given `c = λ / δ²`.
pub fn detectable_bias(df: f64, alpha: f64, noncentrality_per_unit_bias: f64) -> f64 {
    (noncentrality_for_power(df, alpha, POWER) / noncentrality_per_unit_bias).sqrt()
}
