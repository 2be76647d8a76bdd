//! The numerical foundations of the statistical battery: null distributions, uniformity
//! tests for p-values, multiple-testing correction, and how p-values are printed.
//!
//! * [`distributions`]: survival functions accurate far into the upper tail (chi-square,
//!   normal, binomial and Poisson tails for counts up to 1e12, the Keno hypergeometric pmf,
//!   and the non-central chi-square for power), each with its formula in its docs.
//! * [`uniformity`]: Kolmogorov–Smirnov, Anderson–Darling and the NIST proportion check,
//!   for the second level of the battery (are the p-values of many tests uniform?).
//! * [`multiple`]: Holm–Bonferroni adjustment across the tests of one report.
//!
//! On top of them, one file per test family, each stating its statistic and null
//! distribution where it is coded: [`frequency`] (pockets, bet groups, Keno numbers with
//! the without-replacement correction, hits), [`serial`] (consecutive rounds),
//! [`runs`], [`gaps`], [`keno_structure`] (position × number and pairs, with the number
//! totals projected out), [`rejections`], [`across_pairs`], [`rarest`] (the top prizes'
//! count); [`chisquare`], [`sparse`] (goodness of fit over many sparse cells, unmerged)
//! and [`power`] are their shared machinery, and [`battery`] runs them all, adjusts for multiplicity
//! and gives verdicts.
//!
//! Every p-value comes from a survival function, never `1 − cdf`. Every routine is tested
//! against 60-digit reference values from `reference_values.py` (mpmath), which writes the
//! test-only module `reference_values.rs`; the per-routine error bounds are stated in each
//! function's docs and asserted by its tests.

pub mod across_pairs;
pub mod battery;
pub mod bets;
pub mod binomial_sum;
pub mod chisquare;
pub mod crash;
pub mod distributions;
pub mod frequency;
pub mod gaps;
pub mod keno_structure;
pub mod longest_run;
pub mod max_residual;
pub mod multiple;
pub mod outcome;
pub mod power;
pub mod rarest;
pub mod rejections;
pub mod runs;
pub mod saddlepoint;
pub mod serial;
pub mod sparse;
pub mod stake;
pub mod uniformity;

#[cfg(test)]
mod reference_values;

pub use distributions::{
    binomial_at_least, binomial_at_most, binomial_two_sided, chi_square_critical, chi_square_sf,
    hypergeometric_pmf, noncentral_chi_square_sf, noncentrality_for_power, normal_sf, normal_two_sided,
    poisson_at_least, poisson_at_most, poisson_two_sided,
};
pub use multiple::holm;
pub use uniformity::{
    anderson_darling, anderson_darling_sf, kolmogorov_smirnov, kolmogorov_smirnov_sf, proportion_passing,
    ProportionCheck, TestResult, UniformityError,
};

use std::fmt;

/// A p-value as a report prints it: a string a spreadsheet parses as a number, or
/// `< 1e-300`.
///
/// * `p ≥ 0.001`: plain decimal, 3 significant digits, trailing zeros dropped
///   (`0.0123`, `0.5`, `1`);
/// * `1e-300 ≤ p < 0.001`: scientific, 3 significant digits (`3.2e-15`, `1.23e-7`);
/// * `p < 1e-300`, including 0: `< 1e-300`. That is where the survival functions stop
///   being trustworthy: doubles turn subnormal below 2.2e-308 (precision falls away bit by
///   bit) and end at 4.9e-324, and statrs' chi-square `sf` returns exactly 0 once its
///   prefactor `x^a e^(−x) / Γ(a)` underflows. So a computed 0 means "underflowed", never
///   "impossible"; the exact zeros of the battery (e.g. an infinite Anderson–Darling
///   statistic) print the same way, which is still true.
/// * NaN prints as `NaN` (a bug upstream; never hidden as a number).
///
/// ```
/// use fairaudit::stats::PValue;
/// assert_eq!(PValue(0.012345).to_string(), "0.0123");
/// assert_eq!(PValue(3.2e-15).to_string(), "3.2e-15");
/// assert_eq!(PValue(0.0).to_string(), "< 1e-300");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct PValue(pub f64);

impl PValue {
    /// Below this a p-value prints as `< 1e-300`.
    pub const FLOOR: f64 = 1e-300;
}

impl fmt::Display for PValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        if p.is_nan() {
            return f.write_str("NaN");
        }
        if p < Self::FLOOR {
            return f.write_str("< 1e-300");
        }
        // Round to 3 significant digits first, so that e.g. 0.00099996 (which rounds to
        // 1.00e-3) is printed as the decimal 0.001.
        let scientific = format!("{p:.2e}");
        let (mantissa, exponent) = scientific.split_once('e').expect("{:e} output has an exponent");
        let exponent: i32 = exponent.parse().expect("{:e} exponent is an integer");
        if exponent >= -3 {
            let decimals = (2 - exponent).max(0) as usize;
            f.write_str(trim_zeros(&format!("{p:.decimals$}")))
        } else {
            write!(f, "{}e{exponent}", trim_zeros(mantissa))
        }
    }
}

/// Drops trailing zeros after a decimal point, and the point if nothing is left after it.
fn trim_zeros(number: &str) -> &str {
    if number.contains('.') {
        number.trim_end_matches('0').trim_end_matches('.')
    } else {
        number
    }
}

#[cfg(test)]
mod tests {
    use super::PValue;

    #[test]
    fn p_values_print_as_spreadsheet_numbers() {
        let cases = [
            (1.0, "1"),
            (0.5, "0.5"),
            (0.999_96, "1"),
            (0.05, "0.05"),
            (0.012_345, "0.0123"),
            (0.001, "0.001"),
            (0.000_999_96, "0.001"),
            (0.000_999_4, "9.99e-4"),
            (3.2e-15, "3.2e-15"),
            (1.234_56e-7, "1.23e-7"),
            (1e-300, "1e-300"),
        ];
        for (p, want) in cases {
            let text = PValue(p).to_string();
            assert_eq!(text, want, "{p:e}");
            let parsed: f64 = text.parse().unwrap();
            assert!((parsed - p).abs() <= 0.005 * p, "{text} does not parse back to about {p:e}");
        }
    }

    #[test]
    fn underflow_and_nan() {
        assert_eq!(PValue(0.0).to_string(), "< 1e-300");
        assert_eq!(PValue(5e-310).to_string(), "< 1e-300");
        assert_eq!(PValue(9.9e-301).to_string(), "< 1e-300");
        assert_eq!(PValue(f64::NAN).to_string(), "NaN");
    }
}
