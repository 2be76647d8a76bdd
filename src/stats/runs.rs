//! Runs tests on roulette colour (red/black/green) and low/high/zero sequences.
//!
//! # Formula
//!
//! With symbol probabilities `pₛ` known under fairness (18/P, 18/P and the zeros), let
//! `Iᵢ = [xᵢ ≠ xᵢ₊₁]`, so the number of runs is `R = 1 + Σ Iᵢ` over `n` spins. Each `Iᵢ`
//! is 1 with probability `q = 1 − Σ pₛ²`; neighbouring indicators are dependent, with
//! `Cov(Iᵢ, Iᵢ₊₁) = Σ pₛ(1 − pₛ)² − q²`, and others independent. Hence
//! `E[R] = 1 + (n − 1) q` and
//! `Var[R] = (n − 1) q(1 − q) + 2(n − 2)(Σ pₛ(1 − pₛ)² − q²)`, exactly; `R` is a sum of a
//! 1-dependent sequence, so `z = (R − E[R]) / √Var[R]` is asymptotically standard normal.
//! Two-sided p-value. Too few runs means clustering, too many means alternation.

use super::distributions::normal_two_sided;
use super::outcome::TestOutcome;
use crate::tally::runs::RunLengths;

/// Smallest number of spins for the normal approximation.
pub const MIN_SPINS: u64 = 100;

/// The runs test on one symbol sequence of `spins` symbols with probabilities `probs`.
pub fn runs_test(test: &str, runs: &RunLengths, spins: u64, probabilities: &[f64]) -> TestOutcome {
    if spins < MIN_SPINS {
        return TestOutcome::insufficient(test, format!("{spins} spins; the test needs {MIN_SPINS}"));
    }
    let observed = runs.hist.iter().sum::<u64>() as f64;
    let n = spins as f64;
    let q = 1.0 - probabilities.iter().map(|p| p * p).sum::<f64>();
    let triple = probabilities.iter().map(|p| p * (1.0 - p) * (1.0 - p)).sum::<f64>();
    let mean = 1.0 + (n - 1.0) * q;
    let variance = (n - 1.0) * q * (1.0 - q) + 2.0 * (n - 2.0) * (triple - q * q);
    let z = (observed - mean) / variance.sqrt();
    TestOutcome {
        test: test.to_owned(),
        statistic: z,
        df: None,
        p_value: Some(normal_two_sided(z)),
        insufficient: None,
        noncentrality_per_unit_bias: None,
        continuous: true,
        note: format!("z of the number of runs: {observed} observed, {mean:.1} expected"),
    }
}

/// Symbol probabilities of a sequence whose first two symbols cover 18 pockets each and
/// whose third is the zeros (red/black/green, low/high/zero) on a wheel of `pockets`.
pub fn eighteen_eighteen_zeros(pockets: usize) -> [f64; 3] {
    let p = pockets as f64;
    [18.0 / p, 18.0 / p, (pockets - 36) as f64 / p]
}
