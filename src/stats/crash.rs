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
//! - `instant_crash_runs`: the runs of consecutive instant crashes, given how many games
//!   crashed at once, against their exact law (every arrangement of the instant crashes
//!   equally likely; two-sided mid-p): instant crashes bunched together (or kept apart)
//!   while their rate is right. It needs [`MIN_ADJACENT`] pairs of consecutive instant
//!   crashes expected (about 102,000 games of bustabit v1, 6,250 of Roobet): below that
//!   its law is too lumpy to test at the level asked, and the test is INSUFFICIENT;
//! - `pairs`: non-overlapping pairs of games (2k, 2k + 1) by a coarse class (instant,
//!   below 2x, 2x or more), against the product of the exact class probabilities.

use super::battery::{assess, Battery};
use super::distributions::{binomial_two_sided, binomial_two_sided_smallest, runs_of_ones_mid_p};
use super::frequency::ordered_fit;
use super::outcome::TestOutcome;
use super::power::Power;
use crate::scheme::crash::exact::reach_probability;
use crate::scheme::crash::CrashVariant;
use crate::tally::crash::{CrashTally, CLASSES, CLASS_CUT, EDGES};
use num_traits::ToPrimitive;

/// Pairs of consecutive instant crashes a chain must expect (`instant² / games`) for the
/// runs test to run: where it reaches 10 its mid-p rejects at 0.047 to 0.048 at the 0.05
/// level and 0.009 at 0.01 (the unit test below); at 3 (2,000 games of Roobet) only at
/// 0.041, and 0.005 at 0.01.
pub const MIN_ADJACENT: f64 = 10.0;

/// The game of a crash scheme, as the battery's rows name it (`crash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(into = "&'static str")]
pub struct CrashGame;

impl From<CrashGame> for &'static str {
    fn from(_: CrashGame) -> &'static str {
        "crash"
    }
}

impl std::fmt::Display for CrashGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("crash")
    }
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

/// The exact laws `crash_cells.csv` shows each count beside: the cells' and the pairs'
/// classes' (computed here, rendered by [`crate::report::crash::cells_table`]).
pub struct CrashLaws {
    /// [`cell_probabilities`].
    pub cells: Vec<f64>,
    /// [`class_probabilities`].
    pub classes: [f64; CLASSES],
}

impl CrashLaws {
    /// The laws of `variant`'s crash points.
    pub fn of(variant: CrashVariant) -> Self {
        CrashLaws { cells: cell_probabilities(variant), classes: class_probabilities(variant) }
    }
}

/// The exact probabilities of the pairs test's classes (instant, below 2x, 2x or more),
/// summed from the cells of [`cell_probabilities`].
pub fn class_probabilities(variant: CrashVariant) -> [f64; CLASSES] {
    let cells = cell_probabilities(variant);
    // Cell i + 1 starts at EDGES[i]: the cells below the cut are 1..=cut.
    let cut = EDGES.iter().position(|&edge| edge == CLASS_CUT).expect("the class cut is an edge");
    [cells[0], cells[1..=cut].iter().sum(), cells[cut + 1..].iter().sum()]
}

/// The four tests of a tally against the exact law of `variant`.
pub fn tests(variant: CrashVariant, tally: &CrashTally) -> Vec<TestOutcome> {
    let cells = cell_probabilities(variant);
    let frequency = ordered_fit(
        "crash_point_frequency",
        &tally.cells,
        &cells,
        "chi-square (Cressie-Read) of the crash points in 13 cells against their exact law over the 2^256 digests",
    );
    let instant = tally.cells[0];
    let rate = if tally.games == 0 {
        TestOutcome::insufficient("instant_crash_rate", "no games".to_owned())
    } else {
        TestOutcome::valid(
            "instant_crash_rate",
            instant as f64,
            None,
            binomial_two_sided(instant, tally.games, cells[0]),
            format!(
                "instant crashes counted, exact two-sided binomial against 1 in {}",
                variant.instant_divisor()
            ),
        )
        .with_exact_p()
        .with_smallest_p(binomial_two_sided_smallest(tally.games, cells[0]))
        // A relative change d of the rate moves the count by n p d: noncentrality n p d^2 / (1 - p).
        .with_power(Power::chi_square(1.0, tally.games as f64 * cells[0] / (1.0 - cells[0])))
    };
    let adjacent = if tally.games == 0 { 0.0 } else { (instant as f64).powi(2) / tally.games as f64 };
    let runs = if tally.gaps > 0 {
        TestOutcome::insufficient(
            "instant_crash_runs",
            format!(
                "the games counted have {} gap(s): runs of instant crashes are tested on an unbroken range",
                tally.gaps
            ),
        )
    } else if adjacent < MIN_ADJACENT || instant == tally.games {
        TestOutcome::insufficient(
            "instant_crash_runs",
            format!(
                "{adjacent:.1} pairs of consecutive instant crashes expected, fewer than {MIN_ADJACENT}: the law of the runs is too lumpy to test"
            ),
        )
    } else {
        TestOutcome::valid(
            "instant_crash_runs",
            tally.instant_runs as f64,
            None,
            runs_of_ones_mid_p(tally.instant_runs, instant, tally.games),
            format!(
                "runs of consecutive instant crashes, two-sided mid-p of their exact law given the {instant} instant crashes (every arrangement equally likely)"
            ),
        )
    };
    let classes = class_probabilities(variant);
    let products: Vec<f64> =
        (0..CLASSES * CLASSES).map(|c| classes[c / CLASSES] * classes[c % CLASSES]).collect();
    let pairs = if tally.gaps > 0 {
        // A player who chose a game after seeing the one before it would select the pairs
        // by their first game: only an unbroken range has pairs the law describes.
        TestOutcome::insufficient(
            "pairs",
            format!(
                "the games counted have {} gap(s): pairs of games are tested on an unbroken range",
                tally.gaps
            ),
        )
    } else {
        ordered_fit(
            "pairs",
            &tally.pairs,
            &products,
            "chi-square (Cressie-Read) of games 2k and 2k+1 by class (instant, below 2x, 2x or more) against the product of the exact law",
        )
    };
    vec![frequency, rate, runs, pairs]
}

/// The battery of one chain: its tests, Holm-adjusted at `alpha` (rows labelled `chain`).
pub fn battery(variant: CrashVariant, tally: &CrashTally, alpha: f64) -> Battery<CrashGame> {
    let rows = tests(variant, tally).into_iter().map(|t| (CrashGame, "chain".to_owned(), t)).collect();
    assess(rows, alpha)
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
        let [instant, below_two, two_or_more] = class_probabilities(CrashVariant::BustabitV1);
        assert!((below_two - (1.0 - 99.0 / 199.0) * 100.0 / 101.0).abs() < 1e-6, "{below_two}");
        assert!((instant + below_two + two_or_more - 1.0).abs() < 1e-12);
    }

    /// The runs test's size at a level on the chains it runs on, from the exact laws: the
    /// instant crashes' binomial count (where it gives [`MIN_ADJACENT`] pairs or more),
    /// then the runs given that count, summed over the runs it rejects.
    fn runs_test_size(games: u64, divisor: u64, alpha: f64) -> f64 {
        use crate::stats::distributions::binomial_pmf;
        let p = 1.0 / divisor as f64;
        let (mean, sd) = (games as f64 * p, (games as f64 * p * (1.0 - p)).sqrt());
        let (mut size, mut runs) = (0.0, 0.0);
        for ones in (mean - 7.0 * sd) as u64..=(mean + 7.0 * sd) as u64 {
            if (ones as f64).powi(2) / (games as f64) < MIN_ADJACENT {
                continue;
            }
            let zeros = games - ones;
            // P(R = r | ones) up to a constant, by the ratio of consecutive terms.
            let most = ones.min(zeros + 1);
            let mut terms = vec![0.0f64; most as usize];
            for r in 2..=most {
                let k = (r - 1) as f64;
                terms[r as usize - 1] = terms[r as usize - 2]
                    + ((ones as f64 - k) / k).ln()
                    + ((zeros as f64 + 1.0 - k) / (k + 1.0)).ln();
            }
            let top = terms.iter().copied().fold(f64::MIN, f64::max);
            let law: Vec<f64> = terms.iter().map(|t| (t - top).exp()).collect();
            let total: f64 = law.iter().sum();
            let (mut below, mut rejected) = (0.0, 0.0);
            for (i, &term) in law.iter().enumerate() {
                let above = total - below - term;
                let mid_p = (2.0 * (below + term / 2.0).min(above + term / 2.0) / total).min(1.0);
                // The library's mid-p, checked here at every 50th value of the runs.
                if i % 50 == 0 {
                    let library = runs_of_ones_mid_p(i as u64 + 1, ones, games);
                    // (This side subtracts sums for the upper tail: good to 1e-12 absolute.)
                    assert!((library - mid_p).abs() <= 1e-9 * mid_p + 1e-12, "{library} vs {mid_p}");
                }
                if mid_p < alpha {
                    rejected += term / total;
                }
                below += term;
            }
            size += binomial_pmf(ones, games, p) * rejected;
            runs += binomial_pmf(ones, games, p);
        }
        size / runs
    }

    #[test]
    fn the_runs_test_rejects_at_most_its_level_where_it_runs() {
        // The smallest chains it runs on (10 adjacent pairs expected) of bustabit v1's 1 in
        // 101 and Roobet's 1 in 25, and Roobet's 4x longer.
        for (games, divisor) in [(102_010, 101), (6_250, 25), (25_000, 25)] {
            for alpha in [0.05, 0.01] {
                let size = runs_test_size(games, divisor, alpha);
                assert!(
                    size <= alpha && size >= 0.75 * alpha,
                    "{games} games, 1 in {divisor}, at {alpha}: {size}"
                );
            }
        }
    }
}
