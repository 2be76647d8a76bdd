//! The gap test: spacing between repeats of each roulette pocket.
//!
//! # Formula
//!
//! Under fairness each pocket occurs independently with probability `p = 1/P` per spin. A
//! complete gap of `g` spins between two occurrences of a pocket needs the pocket at some
//! spin `i`, not in the next `g`, and again at `i + g + 1`: in a sequence of `m` spins
//! there are `m − g − 1` places for it, so the expected number of complete gaps of length
//! `g` is exactly `(m − g − 1)⁺ p² (1 − p)^g`, and for the tally's last bucket
//! `Σ_{g ≥ cap} (m − g − 1)⁺ p² (1 − p)^g`. Gaps open at either end of a sequence are
//! censored and never counted, which is why a short sequence holds fewer long gaps than
//! the geometric law `p (1 − p)^g` says: a sum of many short sequences (seed pairs, or the
//! ranges of a merge) must use these expectations, summed over its sequences, and not a
//! count proportional to the geometric law.
//!
//! For pocket `x` with `Tₓ` complete gaps the expected counts are scaled to `Tₓ`, and
//! the goodness-of-fit statistic `Xₓ²` of [`super::chisquare`] (Cressie–Read) over the
//! buckets (sparse tail buckets merged) is asymptotically
//! χ² with `bucketsₓ − 1` degrees of freedom. Gaps of different pockets are nearly
//! independent, so the test sums `X² = Σₓ Xₓ²` with `Σₓ (bucketsₓ − 1)` degrees of
//! freedom; the calibration tests check that this holds at every shape.

use super::chisquare::{cressie_read, merge_sparse, MIN_EXPECTED};
use super::distributions::chi_square_sf;
use super::outcome::{NullMoments, TestOutcome};
use crate::tally::gaps::Gaps;
use crate::tally::SequenceLengths;

/// `Σ_{g=c}^{n−1} (n − g) q^g`: the weight of gaps of `c` or more spins in a sequence of
/// `n + 1` spins (each gap `g` has `n − g` places), in closed form.
fn places_weighted_tail(c: u64, n: u64, q: f64) -> f64 {
    if c >= n {
        return 0.0;
    }
    // With j = g − c and A = n − c: q^c Σ_{j=0}^{A−1} (A − j) q^j
    //   = q^c [A(1 − q^A)/(1 − q) − (q − A q^A + (A − 1) q^(A+1)) / (1 − q)²].
    let a = (n - c) as f64;
    let qa = q.powf(a);
    let one = 1.0 - q;
    let sum = a * (1.0 - qa) / one - (q - a * qa + (a - 1.0) * qa * q) / (one * one);
    q.powf(c as f64) * sum
}

/// Expected complete gaps of each pocket per bucket `0..cap` and `≥ cap` (index `cap`),
/// summed over `lengths` sequences, for a pocket of probability `p`.
pub fn expected_gaps(p: f64, cap: usize, lengths: &SequenceLengths) -> Vec<f64> {
    let q = 1.0 - p;
    let mut expected = vec![0.0; cap + 1];
    for (m, count) in lengths.iter() {
        let n = m.saturating_sub(1); // places for gap g are n − g
        let count = count as f64;
        for (g, slot) in expected.iter_mut().take(cap).enumerate() {
            let g = g as u64;
            if g >= n {
                break;
            }
            *slot += count * (n - g) as f64 * p * p * q.powf(g as f64);
        }
        expected[cap] += count * p * p * places_weighted_tail(cap as u64, n, q);
    }
    expected
}

/// The gap test over all pockets of `lengths` sequences.
pub fn gap_test(gaps: &Gaps, lengths: &SequenceLengths) -> TestOutcome {
    let p = 1.0 / gaps.outcomes as f64;
    let cap = gaps.cap;
    let shape = expected_gaps(p, cap, lengths);
    let shape_total: f64 = shape.iter().sum();
    let (mut statistic, mut df) = (0.0, 0.0);
    for outcome in 0..gaps.outcomes {
        let observed = &gaps.hist[outcome * (cap + 1)..(outcome + 1) * (cap + 1)];
        let total: u64 = observed.iter().sum();
        // Bins and validity from the law's expectation, not the observed number of gaps
        // (see `runs::run_lengths_test`); the statistic is conditional on that number.
        let (o, e_shape) = merge_sparse(observed, &shape, MIN_EXPECTED);
        if shape_total <= 0.0 || o.len() < 2 || e_shape.iter().any(|&x| x < MIN_EXPECTED) {
            return TestOutcome::insufficient(
                "gaps",
                format!("each pocket expects too few gaps ({:.1})", shape_total),
            );
        }
        if total == 0 {
            continue; // a pocket never repeated: no gap lengths to compare
        }
        let e: Vec<f64> = e_shape.iter().map(|x| x / shape_total * total as f64).collect();
        statistic += cressie_read(&o, &e);
        df += (o.len() - 1) as f64;
    }
    TestOutcome::valid(
        "gaps",
        statistic,
        Some(df),
        chi_square_sf(statistic, df),
        format!(
            "sum over pockets of chi-square of gap lengths against their exact law for {}",
            lengths.describe()
        ),
    )
    .with_moments(NullMoments { value: f64::NAN, mean: df, variance: 2.0 * df, exact_mean: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closed_form_tail_equals_the_sum() {
        for (c, n, q) in
            [(0u64, 1u64, 0.9f64), (3, 10, 0.97), (128, 1000, 36.0 / 37.0), (5, 5, 0.5), (7, 6, 0.5)]
        {
            let brute: f64 = (c..n).map(|g| (n - g) as f64 * q.powf(g as f64)).sum();
            let closed = places_weighted_tail(c, n, q);
            assert!((closed - brute).abs() <= 1e-9 * brute.max(1.0), "c {c} n {n}: {closed} vs {brute}");
        }
    }

    #[test]
    fn expectations_match_enumeration_of_short_sequences() {
        // Three symbols with probabilities 1/3: all 3^m sequences of m ≤ 7.
        let p: f64 = 1.0 / 3.0;
        for m in 1..=7u32 {
            let mut want = vec![0.0; 4];
            for code in 0..3u32.pow(m) {
                let symbols: Vec<usize> = (0..m).map(|i| ((code / 3u32.pow(i)) % 3) as usize).collect();
                let weight = p.powi(m as i32);
                let mut gaps = Gaps::new(3, 3);
                symbols.iter().for_each(|&s| gaps.record(s));
                for (slot, count) in want.iter_mut().zip(&gaps.hist[..4]) {
                    *slot += weight * *count as f64;
                }
            }
            let got = expected_gaps(p, 3, &SequenceLengths::one(u64::from(m)));
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-12, "m {m}: {got:?} vs {want:?}");
            }
        }
    }
}
