//! Tests of a crash chain's observed games against the exact law of the crash point
//! ([`crate::scheme::crash`]): under a fair chain every game's digest is a uniform 256-bit
//! value, independent of the others, so the crash point has an exact law (counted over
//! the 2^256 digests, [`crate::scheme::crash::exact`]) and consecutive games are independent.
//!
//! - `crash_point_frequency`: the games counted in cells (an instant crash, then crash
//!   points from 1.00x cut at [`EDGES`], [`crate::tally::crash`]), Cressie-Read against
//!   the exact cell probabilities;
//! - `instant_crash_rate`: the instant crashes against 1 in the divisor, exact two-sided
//!   binomial (the rule an operator would shade first);
//! - `pairs`: non-overlapping pairs of games (2k, 2k + 1) by a coarse class (instant,
//!   below 2x, 2x or more), against the product of the exact class probabilities.

use super::chisquare::goodness_of_fit;
use super::distributions::binomial_two_sided;
use crate::scheme::crash::exact::reach_probability;
use crate::scheme::crash::CrashVariant;
use crate::tally::crash::{CrashTally, CLASSES, EDGES};
use num_traits::ToPrimitive;

/// One test's result.
#[derive(Clone, Debug, PartialEq)]
pub struct CrashTest {
    /// The test's name.
    pub name: &'static str,
    /// The statistic (the count of instant crashes for `instant_crash_rate`).
    pub statistic: f64,
    /// The p-value; `None` where the counts are too few to test.
    pub p_value: Option<f64>,
}

/// The exact probability of each cell: an instant crash, then each crash point cell
/// (the games not instant whose point reaches its lower edge and not its upper one).
pub fn cell_probabilities(variant: CrashVariant) -> Vec<f64> {
    let reach = |target: u64| reach_probability(variant, target).to_f64().expect("a probability");
    let mut cells = vec![1.0 - reach(EDGES[0])];
    for (i, &edge) in EDGES.iter().enumerate() {
        let upper = EDGES.get(i + 1).map_or(0.0, |&next| reach(next));
        cells.push(reach(edge) - upper);
    }
    cells
}

/// The three tests of a tally against the exact law of `variant`.
pub fn tests(variant: CrashVariant, tally: &CrashTally) -> Vec<CrashTest> {
    let cells = cell_probabilities(variant);
    let fit = goodness_of_fit(&tally.cells, &cells);
    let instant = tally.cells[0];
    let rate = binomial_two_sided(instant, tally.games, cells[0]);
    let classes = [cells[0], cells[1..7].iter().sum(), cells[7..].iter().sum()];
    let products: Vec<f64> =
        (0..CLASSES * CLASSES).map(|c| classes[c / CLASSES] * classes[c % CLASSES]).collect();
    let pairs = goodness_of_fit(&tally.pairs, &products);
    vec![
        CrashTest {
            name: "crash_point_frequency",
            statistic: fit.map_or(f64::NAN, |f| f.statistic),
            p_value: fit.map(|f| f.p_value),
        },
        CrashTest {
            name: "instant_crash_rate",
            statistic: instant as f64,
            p_value: (tally.games > 0).then_some(rate),
        },
        CrashTest {
            name: "pairs",
            statistic: pairs.map_or(f64::NAN, |f| f.statistic),
            p_value: pairs.map(|f| f.p_value),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cells_law_sums_to_one() {
        for variant in CrashVariant::ALL {
            let cells = cell_probabilities(variant);
            assert_eq!(cells.len(), EDGES.len() + 1);
            assert!((cells.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{variant:?}");
            assert!((cells[0] - 1.0 / variant.instant_divisor() as f64).abs() < 1e-15);
            assert!(cells.iter().all(|&p| p > 0.0));
        }
        // Below 2x and 2x or more: 1 - 99/199 and 99/199 of the games not instant.
        let cells = cell_probabilities(CrashVariant::BustabitV1);
        let below_two: f64 = cells[1..7].iter().sum();
        assert!((below_two - (1.0 - 99.0 / 199.0) * 100.0 / 101.0).abs() < 1e-6, "{below_two}");
    }
}
