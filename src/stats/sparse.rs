//! Goodness of fit over many sparse cells, without merging them into bins of ten: Pearson's
//! `X²` against the gamma law with its exact first three cumulants.
//!
//! [`super::chisquare::goodness_of_fit`] merges neighbouring cells until each expects
//! [`super::chisquare::MIN_EXPECTED`] (10), because its χ² tail needs that many. On a
//! histogram of thousands of nearly equal cells (Stake dice's 10,001 rolls) merging is
//! where the power goes: at 100,000 rolls each roll expects 9.999, the rolls were merged in
//! pairs, and a rig that gives alternate rolls 7 and 6 of 65,536 floats (a float made from
//! 16 bits) all but cancels in each pair (noncentrality 575 unmerged, about 55 merged).
//! This test keeps the cells (merging only below [`SPARSE_MIN_EXPECTED`]) and takes its
//! tail from the statistic's exact law instead.
//!
//! # Formula
//!
//! With `n` multinomial rounds over `k` bins of probabilities `πᵢ`,
//! `X² = Σ (Oᵢ − nπᵢ)² / (nπᵢ)` has, exactly (expanding `E[(Σ Oᵢ²/πᵢ)ʳ]`, `r ≤ 3`, in the
//! multinomial's factorial moments `E[Π Oᵢ^(aᵢ)] = n^(Σaᵢ) Π πᵢ^aᵢ`; [`third_cumulant`]),
//! with `P₋₁ = Σ 1/πᵢ` and `P₋₂ = Σ 1/πᵢ²`:
//!
//! * `κ₁ = k − 1`,
//! * `κ₂ = 2(k − 1) + (P₋₁ − k² − 2k + 2) / n`,
//! * `κ₃ = 8(k − 1) + (22P₋₁ − 18k² − 36k + 32) / n
//!   + (P₋₂ − 3kP₋₁ − 22P₋₁ + 2k³ + 18k² + 28k − 24) / n²`.
//!
//! χ²(k − 1) has the first two (up to `1/n`) but not the third: with small expectations
//! `m` per bin the statistic is more skewed (`κ₃ ≈ 8k + 4k/m` for equal bins, against
//! `8k`), and its far tail heavier: on Stake dice's 10,001 rolls, unmerged, χ²(10,000)
//! gave p-values below 0.01 1.26 times and below 10⁻⁴ 2.6 times as often as it should at
//! 1,000 rolls (0.1 expected a roll), 1.7 and 3.1 times at 600, 8.8 times below 10⁻⁴ at
//! 300 (100,000 simulated sequences each). As the number of bins grows with the
//! expectations per bin bounded, `X²` is asymptotically normal (Morris 1975, Holst 1972),
//! and the gamma law `a + bG`, `G ~ Gamma(ν)`, with the same three cumulants
//! (`ν = 4κ₂³/κ₃²`, `b = κ₃/(2κ₂)`, `a = κ₁ − bν`; Pearson's type III) corrects the normal
//! law for the skewness that remains, which is what sets the tail at the levels Holm
//! reads (at 10,001 bins of ten the normal tail is 0.78 times the gamma's at 10⁻⁴, 0.68
//! times at 10⁻⁵: the unit test below).
//!
//! The approximation needs many bins, each not too sparse, so that no single bin's
//! Poisson tail dominates the sum's: it runs where at least [`SPARSE_MIN_BINS`] bins each
//! expect [`SPARSE_MIN_EXPECTED`] or more (sparser cells merged with their neighbours).
//! The calibration tests (`tests/stake_sparse_tails.rs`) check its tail at 10⁻², 10⁻³
//! and 10⁻⁴ at those limits and at the sizes the battery runs it, and that χ²(k − 1)
//! on the same statistic fails the same check.

use super::chisquare::{merge_sparse, multinomial_moments, pearson};
use super::distributions::{chi_square_sf, normal_sf};
use super::outcome::NullMoments;

/// The smallest expected count per bin of the sparse test: sparser neighbours are merged.
pub const SPARSE_MIN_EXPECTED: f64 = 2.0;

/// The fewest bins (each expecting [`SPARSE_MIN_EXPECTED`] or more) for which the sparse
/// test runs: fewer, and one bin's Poisson tail can dominate the sum's.
pub const SPARSE_MIN_BINS: usize = 500;

/// The third cumulant of Pearson's `X²` over `n` multinomial rounds in bins of
/// probabilities `probabilities` (which sum to 1), exactly (module docs).
pub fn third_cumulant(probabilities: &[f64], n: u64) -> f64 {
    let n = n as f64;
    let k = probabilities.len() as f64;
    let inverse: f64 = probabilities.iter().map(|p| 1.0 / p).sum();
    let inverse_square: f64 = probabilities.iter().map(|p| 1.0 / (p * p)).sum();
    let first = 22.0 * inverse - 18.0 * k * k - 36.0 * k + 32.0;
    // P₋₂ − 3kP₋₁ + 2k³ cancels to O(k²) for equal bins: grouped so that it does so first.
    let second =
        (inverse_square - 3.0 * k * inverse + 2.0 * k * k * k) - 22.0 * inverse + 18.0 * k * k + 28.0 * k
            - 24.0;
    8.0 * (k - 1.0) + first / n + second / (n * n)
}

/// `P(X ≥ x)` for the gamma law with mean `mean`, variance `variance` and third cumulant
/// `third` (Pearson's type III); the normal tail when the skewness is not positive.
pub fn gamma_tail(x: f64, mean: f64, variance: f64, third: f64) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    if third <= 0.0 {
        return normal_sf((x - mean) / variance.sqrt());
    }
    let shape = 4.0 * variance.powi(3) / (third * third);
    let scale = third / (2.0 * variance);
    let origin = mean - scale * shape;
    // Gamma(ν) above g is χ²(2ν) above 2g.
    chi_square_sf(2.0 * (x - origin) / scale, 2.0 * shape)
}

/// The result of the sparse test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SparseFit {
    /// Pearson's `X²` over the bins.
    pub statistic: f64,
    /// Bins after merging the cells expecting fewer than [`SPARSE_MIN_EXPECTED`].
    pub bins: usize,
    /// The smallest expected count of a bin.
    pub min_expected: f64,
    /// `X²`'s exact mean and variance (`value`: the statistic).
    pub moments: NullMoments,
    /// `X²`'s exact third cumulant.
    pub third_cumulant: f64,
    /// `P(X² ≥ statistic)` from the gamma law with the three cumulants.
    pub p_value: f64,
    /// As [`super::chisquare::GoodnessOfFit::noncentrality_per_unit_bias`], over the bins.
    pub noncentrality_per_unit_bias: f64,
}

/// The sparse test of `observed` against `probabilities` (which sum to 1), cells merged
/// with their neighbours until each bin expects [`SPARSE_MIN_EXPECTED`]; `None` when fewer
/// than [`SPARSE_MIN_BINS`] bins remain (the classic test is the one to run then).
pub fn sparse_fit(observed: &[u64], probabilities: &[f64]) -> Option<SparseFit> {
    let total: u64 = observed.iter().sum();
    let expected: Vec<f64> = probabilities.iter().map(|p| p * total as f64).collect();
    let (o, e) = merge_sparse(observed, &expected, SPARSE_MIN_EXPECTED);
    let min_expected = e.iter().copied().fold(f64::INFINITY, f64::min);
    if o.len() < SPARSE_MIN_BINS || min_expected < SPARSE_MIN_EXPECTED {
        return None;
    }
    let merged: Vec<f64> = e.iter().map(|&ei| ei / total as f64).collect();
    let statistic = pearson(&o, &e);
    let mut moments = multinomial_moments(&merged, total);
    moments.value = statistic;
    let third = third_cumulant(&merged, total);
    let p_value = gamma_tail(statistic, moments.mean, moments.variance, third);
    let noncentrality_per_unit_bias =
        e.iter().map(|&ei| ei / (1.0 - ei / total as f64)).fold(f64::INFINITY, f64::min);
    Some(SparseFit {
        statistic,
        bins: o.len(),
        min_expected,
        moments,
        third_cumulant: third,
        p_value,
        noncentrality_per_unit_bias,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::distributions::binomial_pmf;

    /// The exact first three cumulants of `X²` by summing over every outcome of a small
    /// multinomial.
    fn enumerated(probabilities: &[f64], n: u64) -> (f64, f64, f64) {
        fn walk(p: &[f64], left: u64, prob: f64, x: f64, n: u64, acc: &mut [f64; 3]) {
            let (first, rest) = p.split_first().expect("a bin");
            if rest.is_empty() {
                let e = first * n as f64;
                let x = x + (left as f64 - e).powi(2) / e;
                acc[0] += prob * x;
                acc[1] += prob * x * x;
                acc[2] += prob * x * x * x;
                return;
            }
            let share = first / (first + rest.iter().sum::<f64>());
            for o in 0..=left {
                let e = first * n as f64;
                let q = prob * binomial_pmf(o, left, share.min(1.0));
                walk(rest, left - o, q, x + (o as f64 - e).powi(2) / e, n, acc);
            }
        }
        let mut acc = [0.0; 3];
        walk(probabilities, n, 1.0, 0.0, n, &mut acc);
        let [m1, m2, m3] = acc;
        (m1, m2 - m1 * m1, m3 - 3.0 * m1 * m2 + 2.0 * m1.powi(3))
    }

    #[test]
    fn the_cumulants_are_those_of_the_multinomial_enumerated() {
        for (probabilities, n) in [
            (vec![0.1; 10], 20u64),
            (vec![1.0 / 6.0; 6], 12),
            (vec![0.05, 0.15, 0.3, 0.3, 0.2], 20),
            (vec![0.01, 0.09, 0.4, 0.5], 35),
        ] {
            let (mean, variance, third) = enumerated(&probabilities, n);
            let moments = multinomial_moments(&probabilities, n);
            assert!((moments.mean - mean).abs() < 1e-9, "{mean}");
            assert!((moments.variance / variance - 1.0).abs() < 1e-9, "{variance}");
            let formula = third_cumulant(&probabilities, n);
            assert!((formula / third - 1.0).abs() < 1e-9, "{probabilities:?} {n}: {formula} vs {third}");
        }
    }

    #[test]
    fn the_gamma_tail_is_the_chi_square_tail_when_the_cumulants_are_its_own() {
        let df = 30.0;
        for x in [10.0, 30.0, 60.0, 90.0] {
            let gamma = gamma_tail(x, df, 2.0 * df, 8.0 * df);
            assert!((gamma / chi_square_sf(x, df) - 1.0).abs() < 1e-9, "{x}");
        }
        assert_eq!(gamma_tail(f64::INFINITY, df, 2.0 * df, 8.0 * df), 0.0);
        assert_eq!(gamma_tail(-5.0, df, 2.0 * df, 8.0 * df), 1.0);
    }

    /// The skewness the gamma law adds is what the far tail needs: at Stake dice's 10,001
    /// rolls over 100,000 rounds, the normal tail with the same mean and variance is well
    /// below the gamma's where Holm reads.
    #[test]
    fn the_normal_tail_would_be_too_small_at_ten_thousand_bins() {
        let probabilities = vec![1.0 / 10_001.0; 10_001];
        let moments = multinomial_moments(&probabilities, 100_000);
        let third = third_cumulant(&probabilities, 100_000);
        for (level, most) in [(1e-4, 0.8), (1e-5, 0.7)] {
            let (mut low, mut high) = (moments.mean, moments.mean + 20.0 * moments.variance.sqrt());
            for _ in 0..100 {
                let mid = 0.5 * (low + high);
                if gamma_tail(mid, moments.mean, moments.variance, third) > level {
                    low = mid;
                } else {
                    high = mid;
                }
            }
            let normal = normal_sf((high - moments.mean) / moments.variance.sqrt());
            println!("normal tail at the gamma law's {level:e}: {:.3} of it", normal / level);
            assert!(normal / level < most && normal / level > 0.4, "{level}: {normal:e}");
        }
    }

    #[test]
    fn many_equal_cells_are_kept_and_few_are_left_to_the_classic_test() {
        let probabilities = vec![1.0 / 1000.0; 1000];
        let observed = vec![3u64; 1000];
        let fit = sparse_fit(&observed, &probabilities).expect("1000 bins of 3");
        assert_eq!(fit.bins, 1000);
        assert_eq!(fit.statistic, 0.0);
        assert!(fit.p_value > 0.999_999, "{}", fit.p_value);
        // One round a cell: merged in pairs, 500 bins of 2.
        let fit = sparse_fit(&[1u64; 1000], &probabilities).expect("500 bins of 2");
        assert_eq!(fit.bins, 500);
        // 998 rounds: 499 bins, too few.
        assert!(sparse_fit(&[1u64; 998], &vec![1.0 / 998.0; 998]).is_none());
    }
}
