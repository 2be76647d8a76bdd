//! The checks the calibration tests share: a count of p-values below a level, or of fair
//! batteries that FAIL, against the level, by an exact one-sided binomial test; and the
//! two run counts (CI's and `FAIRAUDIT_CALIBRATION=full`'s).

use fairaudit::stats::battery::{Battery, Verdict};
use fairaudit::stats::distributions::binomial_at_least;

/// A calibration check fails when an exact one-sided binomial p-value is below this.
pub const CHECK: f64 = 0.001;

/// Whether `FAIRAUDIT_CALIBRATION=full` asks for the long runs.
pub fn full() -> bool {
    std::env::var("FAIRAUDIT_CALIBRATION").is_ok_and(|v| v == "full")
}

/// `quick` runs in CI, `full_runs` under `FAIRAUDIT_CALIBRATION=full`.
pub fn runs(quick: u64, full_runs: u64) -> u64 {
    if full() {
        full_runs
    } else {
        quick
    }
}

/// How many of `p_values` fall below each level, printed; fails when a count is more than
/// chance allows at that level (an exact one-sided binomial p-value below [`CHECK`]).
pub fn assert_calibrated(label: &str, p_values: &[f64], levels: &[f64]) {
    let n = p_values.len() as u64;
    for &level in levels {
        let below = p_values.iter().filter(|&&p| p < level).count() as u64;
        let check = binomial_at_least(below, n, level);
        println!(
            "{label}: below {level:e}: {below} of {n} ({:.2} x the level), binomial p {check:.3}",
            below as f64 / (n as f64 * level)
        );
        assert!(check > CHECK, "{label}: {below} of {n} below {level:e}");
    }
}

/// The share of fair batteries that FAILed anything, against `alpha`: fails when more did
/// than chance allows.
pub fn assert_battery_fails_at_most_alpha<G>(label: &str, batteries: Vec<Battery<G>>, alpha: f64) {
    let n = batteries.len() as u64;
    let fails =
        batteries.iter().filter(|b| b.results.iter().any(|r| r.verdict == Verdict::Fail)).count() as u64;
    let check = binomial_at_least(fails, n, alpha);
    println!("{label}: the battery FAILed {fails} of {n} fair runs, binomial p {check:.3}");
    assert!(check > CHECK, "{label}: {fails} of {n}");
}
