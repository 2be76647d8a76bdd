//! Serial tests: are consecutive rounds independent?
//!
//! Roulette: the table of consecutive pairs (pocket at n, pocket at n+1). Keno: the number
//! of drawn numbers that rounds n and n+1 share.

use super::chisquare::{independence, MIN_EXPECTED};
use super::distributions::{chi_square_sf, hypergeometric_pmf};
use super::frequency::ordered_fit;
use super::outcome::TestOutcome;
use crate::games::keno::{DRAWN, GRID};
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
    let (statistic, min_expected) = independence(&tally.pairs, p, p);
    if min_expected < MIN_EXPECTED {
        return TestOutcome::insufficient(
            "serial_pairs",
            format!("smallest expected pair count {min_expected:.2} is below {MIN_EXPECTED}"),
        );
    }
    let total = tally.pairs.iter().sum::<u64>() as f64;
    let df = ((p - 1) * (p - 1)) as f64;
    // A bump of δ·E on one transition keeps about (1 − 1/P)² of its square after the
    // margins are re-estimated.
    let typical = total / (p * p) as f64;
    let retained = (1.0 - 1.0 / p as f64).powi(2);
    TestOutcome {
        test: "serial_pairs".into(),
        statistic,
        df: Some(df),
        p_value: Some(chi_square_sf(statistic, df)),
        insufficient: None,
        noncentrality_per_unit_bias: Some(typical * retained),
        continuous: true,
        note: "Anderson-Goodman chi-square of independence on consecutive-spin pairs".into(),
    }
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
    let probabilities: Vec<f64> =
        (0..=DRAWN).map(|c| hypergeometric_pmf(c as u64, GRID as u64, DRAWN as u64, DRAWN as u64)).collect();
    ordered_fit(
        "serial_overlap",
        &tally.overlap,
        &probabilities,
        "chi-square of consecutive-round overlaps against the hypergeometric law",
    )
}
