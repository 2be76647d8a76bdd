//! Calibration: under fairness every test's p-values must be uniform and its FAIL rate at
//! α must be α. Thousands of independent small runs, driven by ChaCha8 (independent of
//! the chain's SHA-3) through the same draw and tally code as the sweep, give each test's
//! p-value distribution; a Kolmogorov–Smirnov test checks it is uniform (p > 0.001) and
//! an exact binomial test checks the rejection rate at α = 0.01 (p > 0.001).
//!
//! A test whose null distribution were wrong (the textbook chi-square on Keno numbers,
//! say, which ignores drawing without replacement) fails here: see
//! `the_textbook_keno_chi_square_would_fail_calibration`.

mod common;

use common::ChaChaWords;
use fairaudit::games::{Keno, Roulette};
use fairaudit::stats::battery::{keno_tests, roulette_tests};
use fairaudit::stats::distributions::{binomial_two_sided, chi_square_sf};
use fairaudit::stats::outcome::TestOutcome;
use fairaudit::stats::uniformity::kolmogorov_smirnov;

fn ks_uniform(values: &[f64]) -> (f64, f64) {
    let result = kolmogorov_smirnov(values).expect("values in [0, 1]");
    (result.statistic, result.p_value)
}
use fairaudit::sweep::tally_words;
use fairaudit::tally::{KenoTally, RouletteTally, SequenceTally};
use rayon::prelude::*;
use std::collections::BTreeMap;

const RUNS: u64 = 2000;
const KENO_ROUNDS: u64 = 4000;
const ROULETTE_SPINS: u64 = 20_000;
const ALPHA: f64 = 0.01;

fn collect(runs: Vec<Vec<TestOutcome>>) -> BTreeMap<String, Vec<f64>> {
    let mut by_test: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for run in runs {
        for outcome in run {
            let p = outcome
                .p_value
                .unwrap_or_else(|| panic!("{} insufficient: {:?}", outcome.test, outcome.insufficient));
            if outcome.continuous {
                by_test.entry(outcome.test).or_default().push(p);
            }
        }
    }
    by_test
}

fn assert_calibrated(by_test: &BTreeMap<String, Vec<f64>>) {
    let mut report = String::new();
    let mut bad = Vec::new();
    for (test, p_values) in by_test {
        let (d, ks_p) = ks_uniform(p_values);
        let failing = p_values.iter().filter(|&&p| p < ALPHA).count() as u64;
        let rate_p = binomial_two_sided(failing, p_values.len() as u64, ALPHA);
        report.push_str(&format!(
            "{test:<22} runs {} KS D {d:.4} p {ks_p:.4}; below {ALPHA}: {failing} (rate p {rate_p:.4})\n",
            p_values.len()
        ));
        if ks_p <= 0.001 || rate_p <= 0.001 {
            bad.push(test.clone());
        }
    }
    println!("{report}");
    assert!(bad.is_empty(), "miscalibrated: {bad:?}\n{report}");
}

#[test]
fn keno_tests_are_calibrated() {
    let runs: Vec<Vec<TestOutcome>> = (0..RUNS)
        .into_par_iter()
        .map(|run| {
            let mut tally: KenoTally = tally_words(Keno, &mut ChaChaWords::seeded(run), KENO_ROUNDS);
            tally.close();
            keno_tests(&tally, true, true)
        })
        .collect();
    assert_calibrated(&collect(runs));
}

#[test]
fn roulette_tests_are_calibrated() {
    for (offset, wheel) in [(1_000_000, Roulette::EUROPEAN), (2_000_000, Roulette::AMERICAN)] {
        let runs: Vec<Vec<TestOutcome>> = (0..RUNS)
            .into_par_iter()
            .map(|run| {
                let tally: RouletteTally =
                    tally_words(wheel, &mut ChaChaWords::seeded(offset + run), ROULETTE_SPINS);
                roulette_tests(&tally, true)
            })
            .collect();
        assert_calibrated(&collect(runs));
    }
}

#[test]
fn uniformity_test_across_pairs_is_calibrated() {
    // The KS test the battery applies across seed pairs, on 10 uniform p-values at a time.
    let p_values: Vec<f64> = (0..RUNS)
        .map(|run| {
            let mut words = ChaChaWords::seeded(3_000_000 + run);
            let sample: Vec<f64> = (0..10).map(|_| words.0.next_u64_f64()).collect();
            ks_uniform(&sample).1
        })
        .collect();
    let (_, p) = ks_uniform(&p_values);
    assert!(p > 0.001, "KS p-values for n = 10 are not uniform (p = {p})");
}

trait UnitInterval {
    fn next_u64_f64(&mut self) -> f64;
}

impl UnitInterval for rand_chacha::ChaCha8Rng {
    fn next_u64_f64(&mut self) -> f64 {
        use rand_core::RngCore;
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
}

/// The calibration check has teeth: the textbook chi-square on Keno number counts (39 df,
/// no correction for drawing without replacement) is far too lenient, and the check
/// rejects it.
#[test]
fn the_textbook_keno_chi_square_would_fail_calibration() {
    let p_values: Vec<f64> = (0..RUNS)
        .into_par_iter()
        .map(|run| {
            let tally: KenoTally = tally_words(Keno, &mut ChaChaWords::seeded(run), KENO_ROUNDS);
            let expected = KENO_ROUNDS as f64 / 4.0;
            let textbook: f64 = tally.numbers.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
            chi_square_sf(textbook, 39.0)
        })
        .collect();
    let (_, ks_p) = ks_uniform(&p_values);
    assert!(ks_p < 1e-6, "the uncorrected statistic should be visibly miscalibrated (KS p = {ks_p})");
}
