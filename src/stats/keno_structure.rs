//! Keno structure tests that must see past the number totals: draw position × number,
//! and pairs of numbers drawn together. Both are derived from the exact covariance of a
//! uniformly random ordered draw of 10 distinct numbers from 40.

use super::chisquare::MIN_EXPECTED;
use super::distributions::chi_square_sf;
use super::outcome::{NullMoments, TestOutcome};
use super::power::Power;
use crate::games::keno::{DRAWN, GRID};
use crate::tally::keno::{pair_index, PAIRS};
use crate::tally::KenoTally;

/// Degrees of freedom of the position × number interaction: (10 − 1)(40 − 1).
pub const POSITION_DF: usize = (DRAWN - 1) * (GRID - 1);

/// Draw position × number.
///
/// # Formula
///
/// `Mₖₙ` counts rounds whose k-th draw was `n`; each row sums to `R`. For one round the
/// 400 indicators have covariance `δδ'/40 − 1/1600 + [k≠k'][n≠n']/1560`. In the
/// decomposition of the 10×40 table into grand mean, position effects, number effects and
/// interaction, its eigenvalues are 0, 0, 1/52 and 1/39 (dimensions 1, 9, 39, 351). The
/// interaction part carries any position-dependent bias that leaves the number totals
/// alone. Its projection is the residual `rₖₙ = Mₖₙ − cₙ/10` (`cₙ` the number's total;
/// the rows are exactly `R`), and `X² = (39/R) Σ rₖₙ²` is asymptotically χ² with 351
/// degrees of freedom.
///
/// Exact moments: the squared norm of one round's interaction part is the same for every
/// ordered draw (all are alike under relabelling the numbers), so as for
/// [`crate::stats::frequency::keno_numbers`] `E[X²] = 351` and `Var[X²] = 702 (1 − 1/R)`.
pub fn positions(tally: &KenoTally) -> TestOutcome {
    let rounds = tally.stream.rounds as f64;
    if rounds == 0.0 {
        return TestOutcome::insufficient("position_by_number", "no rounds".into());
    }
    let squared: f64 = position_residuals(tally).iter().map(|r| r * r).sum();
    let statistic = squared * (GRID - 1) as f64 / rounds;
    let df = POSITION_DF as f64;
    // One cell raised by δ·R/40 keeps 351/400 of its square in the interaction part; the
    // statistic is (39/R)·|interaction|².
    let cell = rounds / GRID as f64;
    let per_unit = (GRID - 1) as f64 / rounds * cell * cell * POSITION_DF as f64 / (DRAWN * GRID) as f64;
    let outcome = TestOutcome::valid(
        "position_by_number",
        statistic,
        Some(df),
        chi_square_sf(statistic, df),
        "chi-square of the position x number interaction (number totals removed, 351 df)".into(),
    )
    .with_power(Power::chi_square(df, per_unit))
    .with_moments(NullMoments {
        value: f64::NAN,
        mean: df,
        variance: 2.0 * df * (1.0 - 1.0 / rounds),
        exact_mean: true,
    });
    if cell < MIN_EXPECTED {
        return outcome.make_insufficient(format!("expected count {cell:.2} per cell"));
    }
    outcome
}

/// The interaction residual `rₖₙ = Mₖₙ − cₙ/10` of every cell, at `k * 40 + n − 1` (see
/// [`positions`]).
pub fn position_residuals(tally: &KenoTally) -> Vec<f64> {
    let mut totals = [0.0f64; GRID];
    for row in tally.positions.chunks_exact(GRID) {
        for (total, &count) in totals.iter_mut().zip(row) {
            *total += count as f64;
        }
    }
    tally
        .positions
        .chunks_exact(GRID)
        .flat_map(|row| row.iter().zip(&totals).map(|(&count, &total)| count as f64 - total / DRAWN as f64))
        .collect()
}

/// The per-round variance of one cell's interaction residual: the eigenvalue 1/39 times
/// the projection's diagonal 351/400.
pub fn position_residual_variance() -> f64 {
    POSITION_DF as f64 / (DRAWN * GRID) as f64 / (GRID - 1) as f64
}

/// Degrees of freedom of the pair test: the pair space (780) minus the grand mean (1) and
/// the number effects (39).
pub const PAIR_DF: usize = PAIRS - GRID;

/// Probability that a given set of `j` numbers is all drawn: `K!/(K−j)! · (N−j)!/N!`.
pub fn all_drawn(j: u64) -> f64 {
    (0..j).map(|i| (DRAWN as u64 - i) as f64 / (GRID as u64 - i) as f64).product()
}

/// The per-round variance of each component of the pair table in the interaction space.
///
/// # Formula
///
/// For a random 10-subset the pair indicators `Wₐᵦ` have covariance `p₂(1 − p₂)` (same
/// pair), `p₃ − p₂²` (pairs sharing a number) and `p₄ − p₂²` (disjoint pairs), where `pⱼ`
/// is the probability that `j` given numbers are all drawn. Pair space is the Johnson
/// scheme J(40, 2); on its 740-dimensional interaction space the two adjacency relations
/// have eigenvalues −2 and 1, so the covariance has the single eigenvalue
/// `λ₂ = p₂ − 2p₃ + p₄`.
pub fn pair_interaction_variance() -> f64 {
    all_drawn(2) - 2.0 * all_drawn(3) + all_drawn(4)
}

/// Pairs of numbers drawn together, beyond what the number totals explain.
///
/// # Formula
///
/// `Bₐᵦ` counts rounds in which both `a` and `b` were drawn. Its row sums are `9·cₐ`, so
/// the raw pair counts mostly echo the number totals, and a χ² on them would drown a pair
/// bias in that echo. The test removes it: with `rₐ = Σᵦ Bₐᵦ` and `S = Σ Bₐᵦ`, the
/// interaction residual `xₐᵦ = Bₐᵦ − (rₐ + rᵦ)/(N − 2) + 2S/((N − 1)(N − 2))` is the
/// projection of `B` onto the space orthogonal to the grand mean and all number effects.
/// Its covariance there is `R·λ₂` times the identity ([`pair_interaction_variance`]), so
/// `X² = Σ xₐᵦ² / (R λ₂)` is asymptotically χ² with 740 degrees of freedom; as for
/// [`positions`], its moments are exactly `E = 740` and `Var = 1480 (1 − 1/R)`.
pub fn pairs(tally: &KenoTally) -> TestOutcome {
    let rounds = tally.stream.rounds as f64;
    if rounds == 0.0 {
        return TestOutcome::insufficient("pairs", "no rounds".into());
    }
    let expected = rounds * all_drawn(2);
    let squared: f64 = pair_residuals(tally).iter().map(|x| x * x).sum();
    let variance = rounds * pair_interaction_variance();
    let statistic = squared / variance;
    let df = PAIR_DF as f64;
    let outcome = TestOutcome::valid(
        "pairs",
        statistic,
        Some(df),
        chi_square_sf(statistic, df),
        "chi-square of pair co-occurrence after removing number totals (740 df)".into(),
    )
    // One pair raised by δ·E through a number brought in for another keeps
    // `replacement_rig_share` of its square in the interaction space.
    .with_power(Power::chi_square(df, expected * expected * replacement_rig_share() / variance))
    .with_moments(NullMoments {
        value: f64::NAN,
        mean: df,
        variance: 2.0 * df * (1.0 - 1.0 / rounds),
        exact_mean: true,
    });
    if expected < MIN_EXPECTED {
        return outcome.make_insufficient(format!("expected count {expected:.2} per pair"));
    }
    outcome
}

/// The interaction residual `xₐᵦ` of every pair, in [`pair_index`] order (see [`pairs`]).
pub fn pair_residuals(tally: &KenoTally) -> Vec<f64> {
    let counts: Vec<f64> = tally.pairs.iter().map(|&c| c as f64).collect();
    project_out_numbers(&counts)
}

/// The projection of values on the pairs (in [`pair_index`] order) onto the space
/// orthogonal to the grand mean and all number effects:
/// `xₐᵦ = Bₐᵦ − (rₐ + rᵦ)/(N − 2) + 2S/((N − 1)(N − 2))`.
fn project_out_numbers(values: &[f64]) -> Vec<f64> {
    let n = GRID as f64;
    let mut row = [0.0f64; GRID];
    let mut sum = 0.0;
    for a in 1..=GRID as u8 {
        for b in a + 1..=GRID as u8 {
            let value = values[pair_index(a, b)];
            row[usize::from(a) - 1] += value;
            row[usize::from(b) - 1] += value;
            sum += value;
        }
    }
    let mean_term = 2.0 * sum / ((n - 1.0) * (n - 2.0));
    let mut residuals = vec![0.0; PAIRS];
    for a in 1..=GRID as u8 {
        for b in a + 1..=GRID as u8 {
            residuals[pair_index(a, b)] = values[pair_index(a, b)]
                - (row[usize::from(a) - 1] + row[usize::from(b) - 1]) / (n - 2.0)
                + mean_term;
        }
    }
    residuals
}

/// How much of a rigged pair's excess the `pairs` test sees, for the rig its stated power
/// is for: when `a` is drawn and `b` is not, `b` is brought in for another drawn number
/// `c`. Per unit of excess on `(a, b)` the expected change of the pair counts is `+1` on
/// `(a, b)`, `+8/38` on every `(b, x)` (the 8 numbers kept beside `a`), `−1/38` on every
/// `(a, y)` and `−16/(38·37)` on every other pair (the pairs of the number replaced). Its
/// squared norm after the number totals are projected out ([`project_out_numbers`]) is the
/// share of the noncentrality left, 0.614 (against 740/780 = 0.949 for a bump of the one
/// pair alone, which no draw rule produces without moving the totals).
pub fn replacement_rig_share() -> f64 {
    let (a, b) = (1u8, 2u8);
    let mut change = vec![0.0; PAIRS];
    for x in 1..=GRID as u8 {
        for y in x + 1..=GRID as u8 {
            change[pair_index(x, y)] = match (x, y) {
                _ if (x, y) == (a, b) => 1.0,
                _ if x == b || y == b => 8.0 / 38.0,
                _ if x == a || y == a => -1.0 / 38.0,
                _ => -16.0 / (38.0 * 37.0),
            };
        }
    }
    project_out_numbers(&change).iter().map(|x| x * x).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_probabilities_are_the_hypergeometric_ones() {
        assert!((all_drawn(2) - 90.0 / 1560.0).abs() < 1e-15);
        assert!((all_drawn(4) - 5040.0 / 2_193_360.0).abs() < 1e-15);
        assert!((pair_interaction_variance() - 0.035_698_6).abs() < 1e-6);
    }

    #[test]
    fn a_bump_of_one_pair_keeps_740_of_780_and_the_replacement_rig_less() {
        let mut one = vec![0.0; PAIRS];
        one[pair_index(3, 9)] = 1.0;
        let kept: f64 = project_out_numbers(&one).iter().map(|x| x * x).sum();
        assert!((kept - 740.0 / 780.0).abs() < 1e-12, "{kept}");
        let share = replacement_rig_share();
        assert!((share - 0.6139).abs() < 1e-3, "{share}");
        // The projection removes number effects: a change that only moves totals is gone.
        let totals: Vec<f64> = (0..PAIRS).map(|i| f64::from(u8::from(i < GRID - 1))).collect();
        assert!(project_out_numbers(&totals).iter().all(|x| x.abs() < 1e-12));
    }
}
