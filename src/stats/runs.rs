//! Runs tests on roulette colour (red/black/green) and low/high/zero sequences: the number
//! of runs ([`runs_test`]) and the distribution of run lengths ([`run_lengths_test`]).
//!
//! Both are exact for the shape they are applied to: a tally may hold one long sequence,
//! many short seed pairs, or the separate ranges of a merge, and each sequence's first and
//! last runs are cut by its ends. [`SequenceLengths`] says how many sequences of which
//! lengths were summed, and every expectation below is the sum of the per-sequence ones.
//!
//! # Number of runs
//!
//! With symbol probabilities `pₛ` known under fairness (18/P, 18/P and the zeros), let
//! `Iᵢ = [xᵢ ≠ xᵢ₊₁]`, so a sequence of `m` spins has `R = 1 + Σ Iᵢ` runs. Each `Iᵢ` is 1
//! with probability `q = 1 − Σ pₛ²`; neighbouring indicators are dependent, with
//! `Cov(Iᵢ, Iᵢ₊₁) = Σ pₛ(1 − pₛ)² − q²`, and others independent. Hence
//! `E[R] = 1 + (m − 1) q` and
//! `Var[R] = (m − 1) q(1 − q) + 2 (m − 2)⁺ (Σ pₛ(1 − pₛ)² − q²)`, exactly. Sequences are
//! independent, so over `S` sequences of `n` spins in all `E = S + (n − S) q` and the
//! variances add. `R` is a sum of 1-dependent terms, so `(R − E) / √Var` is asymptotically
//! standard normal. `R` is an integer, and at a hundred spins its normal approximation
//! without correction puts about 30% too many fair sequences below p = 0.01, so the test
//! uses the continuity-corrected `z = sign(R − E) · max(|R − E| − ½, 0) / √Var`; two-sided
//! p-value. Too few runs means clustering, too many means alternation.
//!
//! # Run lengths
//!
//! A run of symbol `s` (probability `p`, `q = 1 − p`) of length exactly `ℓ` in a sequence
//! of `m` spins starts at the beginning (`p^ℓ q`), ends at the end (`q p^ℓ`), lies inside
//! (`m − ℓ − 1` places, each `q p^ℓ q`), or is the whole sequence (`ℓ = m`, `p^m`):
//! `E[N_{s,ℓ}] = 2 q p^ℓ + (m − ℓ − 1) q² p^ℓ` for `ℓ < m`. Given how many runs of `s`
//! there are, their lengths are close to independent draws from these proportions, so
//! each symbol's histogram (lengths `1..cap`, and `≥ cap` in one bucket, sparse tail bins
//! merged) is tested by Pearson's χ² against them, and the three symbols' statistics are
//! summed: χ² with `Σ (binsₛ − 1)` degrees of freedom (the calibration tests check it at
//! every shape).

use super::chisquare::{cressie_read, merge_sparse, MIN_EXPECTED};
use super::distributions::{chi_square_sf, normal_two_sided};
use super::outcome::{NullMoments, TestOutcome};
use super::power::Power;
use crate::tally::runs::RunLengths;
use crate::tally::SequenceLengths;

/// Smallest number of spins for the normal approximation of the run count.
pub const MIN_SPINS: u64 = 100;

/// The exact mean and variance of the number of runs in `lengths` sequences of symbols
/// with probabilities `probabilities`.
pub fn runs_moments(lengths: &SequenceLengths, probabilities: &[f64]) -> (f64, f64) {
    let q = 1.0 - probabilities.iter().map(|p| p * p).sum::<f64>();
    let triple = probabilities.iter().map(|p| p * (1.0 - p) * (1.0 - p)).sum::<f64>();
    let mean = lengths.sum_of(|m| 1.0 + (m - 1) as f64 * q);
    let variance = lengths
        .sum_of(|m| (m - 1) as f64 * q * (1.0 - q) + 2.0 * m.saturating_sub(2) as f64 * (triple - q * q));
    (mean, variance)
}

/// The runs test on closed run tallies of `lengths` sequences with symbol probabilities
/// `probabilities`.
pub fn runs_test(
    test: &str,
    runs: &RunLengths,
    lengths: &SequenceLengths,
    probabilities: &[f64],
) -> TestOutcome {
    let spins = lengths.rounds();
    let observed = runs.hist.iter().sum::<u64>() as f64;
    let (mean, variance) = runs_moments(lengths, probabilities);
    if variance <= 0.0 {
        return TestOutcome::insufficient(test, format!("{spins} spins; the test needs {MIN_SPINS}"));
    }
    let deviation = observed - mean;
    let z = deviation.signum() * (deviation.abs() - 0.5).max(0.0) / variance.sqrt();
    let uncorrected = deviation / variance.sqrt();
    let outcome = TestOutcome::valid(
        test,
        z,
        None,
        normal_two_sided(z),
        format!("z of the number of runs: {observed} observed, {mean:.1} expected ({})", lengths.describe()),
    )
    // Uncorrected, z has mean 0 and variance 1 exactly; z² has mean 1, and variance 2 up to
    // the run count's excess kurtosis, of order 1/spins.
    .with_moments(NullMoments {
        value: uncorrected * uncorrected,
        mean: 1.0,
        variance: 2.0,
        exact_mean: true,
    });
    if spins < MIN_SPINS {
        return outcome.make_insufficient(format!("{spins} spins; the test needs {MIN_SPINS}"));
    }
    outcome
}

/// Symbol probabilities of a sequence whose first two symbols cover 18 pockets each and
/// whose third is the zeros (red/black/green, low/high/zero) on a wheel of `pockets`.
pub fn eighteen_eighteen_zeros(pockets: usize) -> [f64; 3] {
    let p = pockets as f64;
    [18.0 / p, 18.0 / p, (pockets - 36) as f64 / p]
}

/// Expected numbers of runs of a symbol of probability `p` with length `1..cap` and
/// `≥ cap` (index `cap − 1`), summed over `lengths` sequences.
pub fn expected_run_lengths(p: f64, cap: usize, lengths: &SequenceLengths) -> Vec<f64> {
    let q = 1.0 - p;
    let mut expected = vec![0.0; cap];
    for (m, count) in lengths.iter() {
        let count = count as f64;
        // Runs shorter than the sequence, length by length, until they vanish.
        let mut power = 1.0; // p^ℓ
        for length in 1..m {
            power *= p;
            if power < 1e-300 {
                break;
            }
            let places = (m - length - 1) as f64;
            let e = power * q * (2.0 + places * q);
            expected[(length as usize).min(cap) - 1] += count * e;
        }
        // The whole sequence as one run.
        let whole = p.powf(m as f64);
        expected[(m.min(cap as u64) as usize) - 1] += count * whole;
    }
    expected
}

/// The run-length distribution test on closed run tallies of `lengths` sequences.
pub fn run_lengths_test(
    test: &str,
    runs: &RunLengths,
    lengths: &SequenceLengths,
    probabilities: &[f64],
) -> TestOutcome {
    let (mut statistic, mut df, mut per_unit) = (0.0, 0.0f64, f64::INFINITY);
    let mut used = 0;
    for (symbol, &p) in probabilities.iter().enumerate() {
        let observed = &runs.hist[symbol * runs.cap..(symbol + 1) * runs.cap];
        let total: u64 = observed.iter().sum();
        let shape = expected_run_lengths(p, runs.cap, lengths);
        let shape_total: f64 = shape.iter().sum();
        if shape_total <= 0.0 {
            continue;
        }
        // The bins and the test's validity come from the law's own expectation, never
        // from the observed number of runs: validity decided on the data selected the
        // samples with unusually many runs, and the few short sequences that passed it
        // (2000 pairs of 50 spins) had p below 0.01 in 21 of 27 fair cases.
        let (o, e_shape) = merge_sparse(observed, &shape, MIN_EXPECTED);
        if o.len() < 2 || e_shape.iter().any(|&x| x < MIN_EXPECTED) {
            continue;
        }
        if total == 0 {
            continue; // no run of this symbol at all: nothing to compare lengths of
        }
        // The statistic compares the lengths given the observed number of runs.
        let e: Vec<f64> = e_shape.iter().map(|x| x / shape_total * total as f64).collect();
        statistic += cressie_read(&o, &e);
        df += (o.len() - 1) as f64;
        per_unit =
            per_unit.min(e.iter().map(|&ei| ei / (1.0 - ei / total as f64)).fold(f64::INFINITY, f64::min));
        used += 1;
    }
    if used == 0 {
        return TestOutcome::insufficient(
            test,
            "no symbol has two length bins expecting 5 or more runs".into(),
        );
    }
    TestOutcome::valid(
        test,
        statistic,
        Some(df),
        chi_square_sf(statistic, df),
        format!(
            "chi-square of run lengths per symbol against their exact law for {} ({used} symbols)",
            lengths.describe()
        ),
    )
    .with_power(Power::chi_square(df, per_unit))
    .with_moments(NullMoments { value: f64::NAN, mean: df, variance: 2.0 * df, exact_mean: false })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tally::runs::tests::test_sequence;

    /// Exact expectations by enumerating every sequence of a small length.
    fn enumerate(m: u32, probabilities: &[f64; 3], cap: usize) -> (f64, f64, Vec<Vec<f64>>) {
        let (mut mean, mut second) = (0.0, 0.0);
        let mut lengths = vec![vec![0.0; cap]; 3];
        for code in 0..3u32.pow(m) {
            let symbols: Vec<u8> = (0..m).map(|i| ((code / 3u32.pow(i)) % 3) as u8).collect();
            let weight: f64 = symbols.iter().map(|&s| probabilities[usize::from(s)]).product();
            let mut runs = RunLengths::new(3, cap);
            symbols.iter().for_each(|&s| runs.record(s));
            runs.close();
            let r = runs.hist.iter().sum::<u64>() as f64;
            mean += weight * r;
            second += weight * r * r;
            for (by_symbol, hist) in lengths.iter_mut().zip(runs.hist.chunks_exact(cap)) {
                for (slot, &count) in by_symbol.iter_mut().zip(hist) {
                    *slot += weight * count as f64;
                }
            }
        }
        (mean, second - mean * mean, lengths)
    }

    #[test]
    fn moments_and_length_law_match_enumeration_for_short_sequences() {
        let probabilities = [0.5, 0.3, 0.2];
        for m in 1..=8u32 {
            let lengths = SequenceLengths::one(u64::from(m));
            let (mean, variance, by_length) = enumerate(m, &probabilities, 4);
            let (e, v) = runs_moments(&lengths, &probabilities);
            assert!((e - mean).abs() < 1e-12, "m {m}: {e} vs {mean}");
            assert!((v - variance).abs() < 1e-10, "m {m}: {v} vs {variance}");
            for (s, &p) in probabilities.iter().enumerate() {
                let got = expected_run_lengths(p, 4, &lengths);
                for (g, want) in got.iter().zip(&by_length[s]) {
                    assert!((g - want).abs() < 1e-12, "m {m} symbol {s}: {got:?} vs {:?}", by_length[s]);
                }
            }
        }
    }

    #[test]
    fn sums_of_sequences_add_their_moments() {
        let probabilities = eighteen_eighteen_zeros(37);
        let mut lengths = SequenceLengths::default();
        lengths.add_sequences(100, 500);
        let (e, v) = runs_moments(&lengths, &probabilities);
        let (e1, v1) = runs_moments(&SequenceLengths::one(100), &probabilities);
        assert!((e - 500.0 * e1).abs() < 1e-9 && (v - 500.0 * v1).abs() < 1e-9);
        // Not the moments of one sequence of 50 000 spins: 499 runs fewer boundaries.
        let (e_long, _) = runs_moments(&SequenceLengths::one(50_000), &probabilities);
        assert!(e - e_long > 200.0, "{e} {e_long}");
    }

    #[test]
    fn a_fair_sum_of_short_sequences_is_not_flagged() {
        // 500 sequences of 100 symbols, tallied separately and summed: z stays small.
        let probabilities = [18.0 / 37.0, 18.0 / 37.0, 1.0 / 37.0];
        let mut total = RunLengths::new(3, 32);
        let mut lengths = SequenceLengths::default();
        for seed in 0..500 {
            let mut runs = RunLengths::new(3, 32);
            for s in test_sequence(seed, 100, 37) {
                runs.record(match s {
                    0 => 2,
                    s if s % 2 == 1 => 0,
                    _ => 1,
                });
            }
            runs.close();
            total.add_closed(&runs);
            lengths.add_sequences(100, 1);
        }
        let outcome = runs_test("runs", &total, &lengths, &probabilities);
        assert!(outcome.statistic.abs() < 4.0, "{outcome:?}");
    }
}
