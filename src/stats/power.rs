//! Stated power: the smallest bias a test detects with 80% power at the battery's level.
//!
//! Each test describes how a bias moves its statistic ([`Power`]); the battery evaluates
//! it at `α / m` (`m` tests), the threshold the first Holm step applies, so the figure is
//! conservative.
//!
//! # Formulas
//!
//! * **Chi-square** ([`Power::ChiSquare`]). Under an alternative where one outcome's
//!   probability is `π(1 + δ)` and the others shrink in proportion, Pearson's statistic is
//!   approximately non-central χ² with the null's degrees of freedom and noncentrality
//!   `λ = δ² · E / (1 − π)` (`E = nπ`, the outcome's expected count; times the design's
//!   scale factor where there is one). The test reports `c = λ / δ²` for the outcome on
//!   which a bias is hardest to see; with `λ₈₀` the noncentrality at which the test's power
//!   at its level is 80%, the smallest detectable relative bias is `δ = √(λ₈₀ / c)`. A test
//!   that splits its level over `w` sub-tests (Bonferroni over lags) uses `level / w`.
//! * **Largest standardised residual** ([`Power::MaxNormal`]). The test rejects when
//!   `max |zᵢ|` over `N` cells exceeds `c`, with `1 − (1 − 2Q(c))^N = level` (Šidák). A
//!   relative bias `δ` on one cell shifts its residual by `s·δ`; power 80% needs
//!   `s·δ ≥ c + Φ⁻¹(0.8)`, so `δ = (c + 0.8416) / s`.
//! * **Poisson rate** ([`Power::PoissonRate`]). An exact two-sided Poisson test of a count
//!   with mean `μ` rejects from the smallest `k` with `P(X ≥ k; μ) ≤ level / 2`; the
//!   detectable bias is the smallest relative increase `f − 1` of the rate with
//!   `P(X ≥ k; fμ) ≥ 0.8`.
//! * **Shortfall of a rare count** ([`Power::Shortfall`]). An exact one-sided test of a
//!   count too low (Poisson, mean `μ`) rejects up to the largest `k` with
//!   `P(X ≤ k; μ) ≤ level`; the detectable bias is the smallest relative decrease `1 − f`
//!   of the rate with `P(X ≤ k; fμ) ≥ 0.8`. None when even `k = 0` is above the level
//!   (`e^−μ > level`): then no shortfall, not even the whole rate, can be detected.

use super::distributions::{noncentrality_for_power, poisson_at_least, poisson_at_most};
use crate::tally::SequenceLengths;
use statrs::distribution::{ContinuousCDF, Normal};

/// The power at which detectable biases are stated.
pub const POWER: f64 = 0.8;

/// How a bias moves a test's statistic.
#[derive(Clone, Debug, PartialEq)]
pub enum Power {
    /// A chi-square test with `df` degrees of freedom whose noncentrality is
    /// `per_unit · δ²` for a relative bias `δ` on the hardest single outcome, run at its
    /// level divided by `within` (1 unless the test is a Bonferroni minimum of several).
    ChiSquare {
        /// Degrees of freedom.
        df: f64,
        /// Noncentrality per unit squared relative bias.
        per_unit: f64,
        /// Sub-tests the level is split over.
        within: f64,
    },
    /// The largest of `cells` standardised residuals, two-sided (Šidák), where a relative
    /// bias `δ` on one cell shifts that cell's residual by `shift_per_unit · δ`.
    MaxNormal {
        /// Cells the maximum is taken over.
        cells: f64,
        /// Shift of one cell's residual per unit relative bias.
        shift_per_unit: f64,
    },
    /// A z-test, one- or two-sided (`sides` 1 or 2), whose statistic a relative bias `δ`
    /// shifts by `shift_per_unit · δ`: the bias is detected at 80% power when
    /// `shift_per_unit · δ ≥ Φ⁻¹(1 − level/sides) + Φ⁻¹(0.8)`.
    NormalShift {
        /// Shift of the z statistic per unit relative bias.
        shift_per_unit: f64,
        /// 1 for a one-sided test, 2 for a two-sided one.
        sides: f64,
    },
    /// An exact Poisson count with `expected` events under fairness.
    PoissonRate {
        /// The count's mean under fairness.
        expected: f64,
    },
    /// An exact one-sided test of a count too low, with `expected` events under fairness:
    /// the bias is a relative shortfall of the rate.
    Shortfall {
        /// The count's mean under fairness.
        expected: f64,
    },
    /// The longest run of a two-coloured sequence (see [`super::longest_run`]): the bias
    /// is a relative change of the probability that a run continues.
    LongestRun(LongestRunLaw),
}

/// What the exact law of the longest run depends on: the sequences and the probabilities.
/// Its law and power are computed in [`super::longest_run`]; only the data is here, so that
/// a power model can carry it without this module depending on that one.
#[derive(Clone, Debug, PartialEq)]
pub struct LongestRunLaw {
    /// The sequences summed.
    pub lengths: SequenceLengths,
    /// Probabilities of the two streak symbols and of the zeros.
    pub probabilities: [f64; 3],
    /// The longest length the tally tells apart (longer runs share its bucket).
    pub cap: usize,
}

impl Power {
    /// A plain chi-square power model.
    pub fn chi_square(df: f64, per_unit: f64) -> Self {
        Power::ChiSquare { df, per_unit, within: 1.0 }
    }

    /// The smallest relative bias detected with [`POWER`] at `level`, for the models that
    /// need nothing beyond this module (`None` for [`Power::LongestRun`], which its own
    /// module evaluates).
    pub fn detectable_bias(&self, level: f64) -> Option<f64> {
        self.detectable_bias_with(level, &mut |df, level| noncentrality_for_power(df, level, POWER))
    }

    /// [`Power::detectable_bias`] with the chi-square noncentrality `λ₈₀(df, level)` taken
    /// from `noncentrality` (a battery of thousands of rows with few distinct degrees of
    /// freedom computes each root once).
    pub fn detectable_bias_with(
        &self,
        level: f64,
        noncentrality: &mut dyn FnMut(f64, f64) -> f64,
    ) -> Option<f64> {
        match *self {
            Power::ChiSquare { df, per_unit, within } => {
                Some((noncentrality(df, level / within) / per_unit).sqrt())
            }
            Power::MaxNormal { cells, shift_per_unit } => {
                let c = sidak_critical_value(level, cells);
                let z_power = Normal::standard().inverse_cdf(POWER);
                Some((c + z_power) / shift_per_unit)
            }
            Power::NormalShift { shift_per_unit, sides } => {
                let normal = Normal::standard();
                let critical = -normal.inverse_cdf(level / sides);
                Some((critical + normal.inverse_cdf(POWER)) / shift_per_unit)
            }
            Power::PoissonRate { expected } => Some(poisson_detectable_increase(expected, level)),
            Power::Shortfall { expected } => poisson_detectable_decrease(expected, level),
            Power::LongestRun(_) => None,
        }
    }
}

/// The two-sided critical value `c` of the largest of `cells` standardised normal
/// residuals at `level`: `1 − (1 − 2Q(c))^cells = level`.
pub fn sidak_critical_value(level: f64, cells: f64) -> f64 {
    // Per-cell two-sided level, computed without cancellation for tiny levels.
    let per_cell = -(-level).ln_1p() / cells;
    let per_cell = -(-per_cell).exp_m1();
    -Normal::standard().inverse_cdf(per_cell / 2.0)
}

/// The smallest relative increase of a Poisson rate with mean `expected` that an exact
/// two-sided test at `level` detects with [`POWER`].
pub fn poisson_detectable_increase(expected: f64, level: f64) -> f64 {
    let mut k = 0u64;
    while poisson_at_least(k, expected) > level / 2.0 {
        k += 1;
    }
    // P(X ≥ k; fμ) grows with f: bisection on f.
    let (mut low, mut high) = (1.0f64, 2.0f64);
    while poisson_at_least(k, high * expected) < POWER {
        high *= 2.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (low + high);
        if poisson_at_least(k, mid * expected) < POWER {
            low = mid;
        } else {
            high = mid;
        }
    }
    high - 1.0
}

/// The smallest relative decrease of a Poisson rate with mean `expected` that an exact
/// one-sided test at `level` detects with [`POWER`]; `None` when no decrease can be.
pub fn poisson_detectable_decrease(expected: f64, level: f64) -> Option<f64> {
    if poisson_at_most(0, expected) > level {
        return None;
    }
    // The largest k rejected: from a few standard deviations below the mean, upward.
    let mut k = (expected - 10.0 * expected.sqrt() - 10.0).max(0.0) as u64;
    while poisson_at_most(k + 1, expected) <= level {
        k += 1;
    }
    // P(X ≤ k; fμ) falls as f grows: bisection on f for the largest f with power 0.8.
    let (mut low, mut high) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (low + high);
        if poisson_at_most(k, mid * expected) >= POWER {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(1.0 - low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidak_critical_value_of_one_cell_is_the_two_sided_quantile() {
        assert!((sidak_critical_value(0.05, 1.0) - 1.959_963_984_540_054).abs() < 1e-9);
        // 780 cells at 0.01: per cell 1 − 0.99^(1/780) = 1.2885e-5, and 2Q(c) equals it.
        let c = sidak_critical_value(0.01, 780.0);
        let per_cell = 1.0 - 0.99f64.powf(1.0 / 780.0);
        assert!((crate::stats::normal_two_sided(c) / per_cell - 1.0).abs() < 1e-9, "{c}");
    }

    #[test]
    fn poisson_increase_is_found_where_power_reaches_eighty_percent() {
        // μ = 100, level 0.01: reject from the smallest k with P(X ≥ k) ≤ 0.005.
        let k = (100..200).find(|&k| poisson_at_least(k, 100.0) <= 0.005).unwrap();
        let f = 1.0 + poisson_detectable_increase(100.0, 0.01);
        assert!((poisson_at_least(k, f * 100.0) - POWER).abs() < 1e-6);
        assert!(f > 1.3 && f < 1.4, "{f}");
    }

    #[test]
    fn a_shortfall_is_found_where_power_reaches_eighty_percent_or_not_at_all() {
        // μ = 30.5 (plinko's end buckets at 10⁶ rounds), level 0.01.
        let k = (0..30).rev().find(|&k| poisson_at_most(k, 30.5) <= 0.01).unwrap();
        let d = poisson_detectable_decrease(30.5, 0.01).unwrap();
        assert!((poisson_at_most(k, (1.0 - d) * 30.5) - POWER).abs() < 1e-6, "{d}");
        assert!(d > 0.3 && d < 0.6, "{d}");
        // μ = 3: even none at all happens 5% of the time.
        assert_eq!(poisson_detectable_decrease(3.0, 0.01), None);
    }

    #[test]
    fn max_normal_bias_scales_inversely_with_the_shift() {
        let a = Power::MaxNormal { cells: 100.0, shift_per_unit: 10.0 }.detectable_bias(0.001).unwrap();
        let b = Power::MaxNormal { cells: 100.0, shift_per_unit: 20.0 }.detectable_bias(0.001).unwrap();
        assert!((a - 2.0 * b).abs() < 1e-12);
    }
}
