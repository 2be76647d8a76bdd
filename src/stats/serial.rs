//! Serial tests: are rounds independent of the rounds before them?
//!
//! Roulette: the table of pairs (pocket at n, pocket at n+L). Keno: the number of drawn
//! numbers that rounds n and n+L share. Lag 1 (consecutive rounds) is one test each;
//! lags 2..=10 form one family per game ([`roulette_lags`], [`keno_overlap_lags`]),
//! combined by Bonferroni, so that a dependence on the round three back, invisible at
//! lag 1, is caught without adding nine tests to the battery's multiplicity.

use super::chisquare::{independence, MIN_EXPECTED};
use super::distributions::{chi_square_sf, hypergeometric_pmf};
use super::frequency::ordered_fit;
use super::outcome::{NullMoments, TestOutcome};
use super::power::Power;
use crate::games::keno::{DRAWN, GRID};
use crate::tally::window::MAX_LAG;
use crate::tally::{KenoTally, RouletteTally};

/// Roulette serial pairs: independence of consecutive spins.
///
/// # Formula
///
/// `Nₐᵦ` counts consecutive spins landing on `a` then `b`; `rₐ`, `cᵦ` are its row and
/// column sums and `T = Σ Nₐᵦ`. The pairs overlap (spin n+1 is in two pairs), so they are
/// not a multinomial sample; but for a Markov chain the Pearson statistic of the
/// transition table, `X² = Σ (Nₐᵦ − rₐcᵦ/T)² / (rₐcᵦ/T)`, is asymptotically χ² with
/// `(P − 1)²` degrees of freedom under the hypothesis that the chain has order 0
/// (independent spins) — Anderson & Goodman (1957). Expected margins are estimated, so
/// the test targets dependence alone, whatever the pocket frequencies.
pub fn serial_pairs(tally: &RouletteTally) -> TestOutcome {
    let p = tally.pockets.len();
    pair_table_test(
        "serial_pairs",
        &tally.pairs,
        p,
        "Anderson-Goodman chi-square of independence on consecutive-spin pairs",
    )
}

/// The Anderson–Goodman test on one `p × p` table of (earlier, later) pockets. Its moments
/// are the asymptotic ones, `(P − 1)²` and `2(P − 1)²` (the finite-size bias of an
/// independence statistic is of relative order `1/T`).
fn pair_table_test(test: &str, table: &[u64], p: usize, note: &str) -> TestOutcome {
    let (statistic, _) = independence(table, p, p);
    let total = table.iter().sum::<u64>() as f64;
    let df = ((p - 1) * (p - 1)) as f64;
    // A bump of δ·E on one transition keeps about (1 − 1/P)² of its square after the
    // margins are re-estimated.
    let typical = total / (p * p) as f64;
    let retained = (1.0 - 1.0 / p as f64).powi(2);
    let outcome =
        TestOutcome::valid(test, statistic, Some(df), chi_square_sf(statistic, df), note.to_owned())
            .with_power(Power::chi_square(df, typical * retained))
            .with_moments(NullMoments { value: f64::NAN, mean: df, variance: 2.0 * df, exact_mean: false });
    // Validity from the count each cell expects under fairness, never from the estimated
    // margins: decided on the data, the test ran only on samples whose rarest pocket was
    // common, and at 16,000 spins 6 of its 210 valid runs had p below 0.01.
    if typical < MIN_EXPECTED {
        return outcome
            .make_insufficient(format!("expected pair count {typical:.2} is below {MIN_EXPECTED}"));
    }
    outcome
}

/// The lags beyond 1 that the serial families test.
pub const LAGS: std::ops::RangeInclusive<usize> = 2..=MAX_LAG;

/// Combines one test per lag 2..=10 into one family result: the lag with the smallest
/// p-value, its p-value times the number of lags (Bonferroni, capped at 1). Valid when
/// every lag's test is; its power is that lag's test at a ninth of the level.
fn lag_family(test: &str, per_lag: Vec<TestOutcome>, what: &str) -> TestOutcome {
    let lags = per_lag.len() as f64;
    if let Some((lag, bad)) = per_lag.iter().enumerate().find(|(_, t)| t.p_value.is_none()) {
        return TestOutcome::insufficient(
            test,
            format!("lag {}: {}", lag + LAGS.start(), bad.insufficient.clone().unwrap_or_default()),
        );
    }
    let (index, best) = per_lag
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.p_value.unwrap_or(1.0).total_cmp(&b.1.p_value.unwrap_or(1.0)))
        .expect("nine lags");
    let p = (best.p_value.expect("checked valid") * lags).min(1.0);
    let power = match best.power {
        Some(Power::ChiSquare { df, per_unit, .. }) => Some(Power::ChiSquare { df, per_unit, within: lags }),
        _ => None,
    };
    let all: Vec<String> = per_lag
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}:{}", i + LAGS.start(), super::PValue(t.p_value.unwrap_or(1.0))))
        .collect();
    let mut outcome = TestOutcome::valid(
        test,
        best.statistic,
        best.df,
        p,
        format!(
            "{what} at lags 2..10, smallest p at lag {} (Bonferroni x{lags}); p by lag {}",
            index + LAGS.start(),
            all.join(" ")
        ),
    );
    outcome.power = power;
    outcome
}

/// Roulette pairs `L` spins apart for `L` = 2..=10: the Anderson–Goodman test of each
/// lag's table (under fairness spin `n + L` is independent of everything up to spin
/// `n + L − 1`, so each lag's table behaves as the lag-1 table does), combined by
/// Bonferroni over the nine lags.
pub fn roulette_lags(tally: &RouletteTally) -> TestOutcome {
    let p = tally.pockets.len();
    let per_lag = tally
        .lag_pairs
        .chunks_exact(p * p)
        .map(|table| pair_table_test("serial_lag", table, p, ""))
        .collect();
    lag_family("serial_lags", per_lag, "Anderson-Goodman chi-square of spins L apart")
}

/// Keno overlaps between rounds `n` and `n + L` for `L` = 2..=10, each against the
/// hypergeometric law (see [`keno_overlap`]: round `n + L` is a fresh uniform draw, so its
/// overlap with any earlier round is hypergeometric and independent of all earlier
/// overlaps), combined by Bonferroni over the nine lags.
pub fn keno_overlap_lags(tally: &KenoTally) -> TestOutcome {
    let per_lag = tally
        .lag_overlap
        .chunks_exact(DRAWN + 1)
        .map(|histogram| overlap_fit("overlap_lag", histogram))
        .collect();
    lag_family("overlap_lags", per_lag, "chi-square of overlaps against the hypergeometric law")
}

fn overlap_fit(test: &str, histogram: &[u64]) -> TestOutcome {
    let probabilities: Vec<f64> =
        (0..=DRAWN).map(|c| hypergeometric_pmf(c as u64, GRID as u64, DRAWN as u64, DRAWN as u64)).collect();
    ordered_fit(
        test,
        histogram,
        &probabilities,
        "chi-square of consecutive-round overlaps against the hypergeometric law",
    )
}

/// Keno serial overlap: numbers shared by rounds n and n+1.
///
/// # Formula
///
/// Under fairness, given round n+1, round n is a uniform 10-subset, so the overlap is
/// hypergeometric, `P(c) = C(10, c) C(30, 10 − c) / C(40, 10)`, whatever round n+1 is.
/// Hence the overlaps of successive pairs are independent and identically distributed
/// (each is independent of all earlier rounds), their histogram is multinomial, and
/// Pearson's χ² applies with `bins − 1` degrees of freedom (sparse bins merged).
pub fn keno_overlap(tally: &KenoTally) -> TestOutcome {
    overlap_fit("serial_overlap", &tally.overlap)
}
