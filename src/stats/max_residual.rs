//! Sparse, max-type tests: the largest standardised residual over many cells.
//!
//! The omnibus χ² tests spread their power over every cell: a bias confined to one Keno
//! pair moves one of 740 squared residuals, so it must be large before the sum notices.
//! The maximum of the standardised residuals looks at each cell on its own and catches a
//! single biased cell far earlier (a pair drawn together 3% more often at 10⁶ rounds),
//! while the χ² tests keep the edge on biases spread over many cells. Both are run.
//!
//! # Formula
//!
//! Each cell's residual `rᵢ` (the count minus what the margins explain) is a linear form
//! in the counts, asymptotically normal with a known variance `vᵢ` under fairness, so
//! `zᵢ = rᵢ / √vᵢ` is asymptotically standard normal and the residuals are jointly normal.
//! The statistic is `M = maxᵢ |zᵢ|` over `N` cells, and its p-value is Šidák's bound
//! `p = 1 − (1 − 2Q(M))^N`, `Q` the standard normal survival function. Šidák's inequality
//! (1967) holds for any correlation between jointly normal variables, so this p-value is
//! valid (at worst slightly conservative: the correlations here are small, of order
//! 1/N, and the bound is then nearly exact in the tail).
//!
//! The normal approximation of a count's far tail needs large expected counts: the
//! two-sided tail cancels the first-order skewness, and what remains is of relative order
//! `z⁶/(72E)`. The tests therefore need every cell to expect at least
//! [`MAX_MIN_EXPECTED`], and are INSUFFICIENT below it (the calibration tests check the
//! size at and above it).

use super::chisquare::margins;
use super::distributions::normal_two_sided;
use super::keno_structure::{
    all_drawn, pair_interaction_variance, pair_residuals, position_residual_variance, position_residuals,
    PAIR_DF, POSITION_DF,
};
use super::outcome::TestOutcome;
use super::power::Power;
use crate::games::keno::{DRAWN, GRID};
use crate::games::Roulette;
use crate::tally::keno::PAIRS;
use crate::tally::{KenoTally, RouletteTally};

/// The smallest expected count per cell at which a max-type test is run.
pub const MAX_MIN_EXPECTED: f64 = 500.0;

/// Šidák's p-value for the largest of `cells` absolute standard normal residuals:
/// `1 − (1 − 2Q(z))^cells`, computed without cancellation.
pub fn sidak_p_value(z_max: f64, cells: f64) -> f64 {
    let per_cell = normal_two_sided(z_max);
    (-(cells * (-per_cell).ln_1p()).exp_m1()).clamp(0.0, 1.0)
}

/// The index and value of the largest `|z|`.
fn largest(z: &[f64]) -> (usize, f64) {
    z.iter().enumerate().fold((0, 0.0), |best, (i, &v)| if v.abs() > best.1.abs() { (i, v) } else { best })
}

/// A max-type test over standardised residuals `z`, named `test`, whose cells each expect
/// `expected`; `shift_per_unit` is how far a relative bias of 1 on one cell moves its
/// residual (for power); `describe(i)` names cell `i` in the note.
fn max_test(
    test: &str,
    z: &[f64],
    expected: f64,
    shift_per_unit: f64,
    describe: impl Fn(usize) -> String,
) -> TestOutcome {
    if z.is_empty() {
        return TestOutcome::insufficient(test, "no cells".into());
    }
    let cells = z.len() as f64;
    let (at, value) = largest(z);
    let outcome = TestOutcome::valid(
        test,
        value.abs(),
        None,
        sidak_p_value(value.abs(), cells),
        format!("largest |z| of {} standardised residuals: {value:.2} at {} (Sidak)", z.len(), describe(at)),
    )
    .with_power(Power::MaxNormal { cells, shift_per_unit });
    if expected < MAX_MIN_EXPECTED {
        return outcome.make_insufficient(format!(
            "expected count {expected:.1} per cell is below {MAX_MIN_EXPECTED} (the normal tail of a count needs more)"
        ));
    }
    outcome
}

/// The largest standardised pair residual of Keno, number totals removed (see
/// [`super::keno_structure::pairs`]): each residual has variance `R·λ₂·740/780`.
pub fn keno_pairs_max(tally: &KenoTally) -> TestOutcome {
    let rounds = tally.stream.rounds as f64;
    let expected = rounds * all_drawn(2);
    let retained = PAIR_DF as f64 / PAIRS as f64;
    let sd = (rounds * pair_interaction_variance() * retained).sqrt();
    let z: Vec<f64> =
        if rounds > 0.0 { pair_residuals(tally).iter().map(|x| x / sd).collect() } else { Vec::new() };
    let names: Vec<(u8, u8)> =
        (1..=GRID as u8).flat_map(|a| (a + 1..=GRID as u8).map(move |b| (a, b))).collect();
    max_test("pairs_max", &z, expected, expected * retained / sd.max(f64::MIN_POSITIVE), |i| {
        format!("pair {}-{}", names[i].0, names[i].1)
    })
}

/// The largest standardised position × number residual of Keno, number totals removed
/// (see [`super::keno_structure::positions`]): each has variance `R/39 · 351/400`.
pub fn keno_positions_max(tally: &KenoTally) -> TestOutcome {
    let rounds = tally.stream.rounds as f64;
    let expected = rounds / GRID as f64;
    let sd = (rounds * position_residual_variance()).sqrt();
    let z: Vec<f64> =
        if rounds > 0.0 { position_residuals(tally).iter().map(|r| r / sd).collect() } else { Vec::new() };
    let retained = POSITION_DF as f64 / (DRAWN * GRID) as f64;
    max_test("position_max", &z, expected, expected * retained / sd.max(f64::MIN_POSITIVE), |i| {
        format!("draw {} number {}", i / GRID + 1, i % GRID + 1)
    })
}

/// The largest adjusted residual of the consecutive-spin table (Haberman):
/// `(Nₐᵦ − eₐᵦ) / √(eₐᵦ (1 − rₐ/T)(1 − cᵦ/T))` with `eₐᵦ = rₐcᵦ/T`, asymptotically
/// standard normal under independence.
pub fn roulette_serial_max(tally: &RouletteTally) -> TestOutcome {
    let p = tally.pockets.len();
    let (rows, cols) = margins(&tally.pairs, p);
    let total: f64 = rows.iter().sum();
    let mut z = Vec::with_capacity(p * p);
    if total > 0.0 {
        for (row, &r) in tally.pairs.chunks_exact(p).zip(&rows) {
            for (&count, &c) in row.iter().zip(&cols) {
                let e = r * c / total;
                let v = e * (1.0 - r / total) * (1.0 - c / total);
                z.push(if v > 0.0 { (count as f64 - e) / v.sqrt() } else { 0.0 });
            }
        }
    }
    let typical = total / (p * p) as f64;
    let shrink = 1.0 - 1.0 / p as f64;
    // Valid from the count each cell expects under fairness, not the estimated margins
    // (deciding on the data selects the samples; see `serial::pair_table_test`).
    max_test("serial_max", &z, typical, typical.sqrt() * shrink, |i| {
        format!("{} then {}", Roulette::label((i / p) as u8), Roulette::label((i % p) as u8))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidak_of_one_cell_is_the_two_sided_p_value() {
        assert!((sidak_p_value(1.959_963_984_540_054, 1.0) - 0.05).abs() < 1e-12);
        // Many cells: close to N times the per-cell p-value when that is small.
        let p = sidak_p_value(5.0, 780.0);
        assert!((p / (780.0 * normal_two_sided(5.0)) - 1.0).abs() < 1e-3, "{p}");
        assert_eq!(sidak_p_value(0.0, 780.0), 1.0);
    }
}
