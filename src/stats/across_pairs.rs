//! Tests across seed pairs: with several independent seed pairs, each test's p-values
//! should be uniform on (0, 1), and the share of pairs passing at `α` should be `1 − α`.
//!
//! # Formula
//!
//! Kolmogorov–Smirnov of the pairs' p-values against Uniform(0, 1) (as NIST SP 800-22
//! §4.2.2 does with its chi-square on ten bins, here without binning), and the number of
//! pairs failing at `α`, which is Binomial(K, α) under fairness, tested exactly
//! (two-sided). NIST's acceptable range for the proportion passing,
//! `(1 − α) ± 3√(α(1 − α)/K)`, is stated in the note. Only tests with continuous null
//! p-values take part: exact tests on tiny counts have lumpy p-values that are not
//! uniform even when the game is fair.

use super::distributions::binomial_two_sided;
use super::outcome::TestOutcome;
use super::uniformity::kolmogorov_smirnov;

/// Smallest number of seed pairs for the tests across pairs.
pub const MIN_PAIRS: usize = 2;

/// Tests across the numbered seed pairs of `per_pair` (rows labelled `all` are ignored).
pub fn across_pairs(per_pair: &[(String, Vec<TestOutcome>)], alpha: f64) -> Vec<TestOutcome> {
    let pairs: Vec<&Vec<TestOutcome>> =
        per_pair.iter().filter(|(label, _)| label != "all").map(|(_, t)| t).collect();
    if pairs.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (index, first) in pairs[0].iter().enumerate() {
        if !first.continuous {
            continue;
        }
        let p_values: Vec<f64> = pairs.iter().filter_map(|tests| tests.get(index)?.p_value).collect();
        let test = first.test.clone();
        if p_values.len() < MIN_PAIRS {
            out.push(TestOutcome::insufficient(
                &format!("{test}:uniformity_across_pairs"),
                format!("{} seed pairs with a valid p-value; needs {MIN_PAIRS}", p_values.len()),
            ));
            continue;
        }
        let k = p_values.len();
        let Ok(ks) = kolmogorov_smirnov(&p_values) else {
            out.push(TestOutcome::insufficient(
                &format!("{test}:uniformity_across_pairs"),
                "p-values outside [0, 1]".into(),
            ));
            continue;
        };
        let (statistic, p) = (ks.statistic, ks.p_value);
        out.push(TestOutcome {
            test: format!("{test}:uniformity_across_pairs"),
            statistic,
            df: None,
            p_value: Some(p),
            insufficient: None,
            noncentrality_per_unit_bias: None,
            continuous: true,
            note: format!("Kolmogorov-Smirnov of {k} p-values against uniform"),
        });
        let failing = p_values.iter().filter(|&&p| p < alpha).count() as u64;
        let half_width = 3.0 * (alpha * (1.0 - alpha) / k as f64).sqrt();
        out.push(TestOutcome {
            test: format!("{test}:proportion_passing"),
            statistic: 1.0 - failing as f64 / k as f64,
            df: None,
            p_value: Some(binomial_two_sided(failing, k as u64, alpha)),
            insufficient: None,
            noncentrality_per_unit_bias: None,
            continuous: false,
            note: format!(
                "{} of {k} pass at alpha {alpha}; NIST range {:.4}..{:.4}",
                k as u64 - failing,
                1.0 - alpha - half_width,
                1.0 - alpha + half_width
            ),
        });
    }
    out
}
