//! The Stake battery's sparse tails (issue 59, item 6): `outcome_frequency` over dice's
//! 10,001 rolls without merging them into bins of ten (Pearson's `X²` against the gamma law
//! of its exact three cumulants, `fairaudit::stats::sparse`), and `rarest_outcomes`, the
//! top prizes' count against its exact binomial law (`fairaudit::stats::rarest`).
//!
//! - Calibration: fair dice at every size the sparse route runs (from 1,000 rolls, where
//!   500 bins of two remain, to 100,000), and at 300 where the classic test runs; the whole
//!   battery on one long sequence and on many short seed pairs; the top prizes of dice,
//!   plinko and limbo where their test can first fail. The textbook χ²(10,000) on the same
//!   unmerged rolls fails the same check.
//! - Power, both ways: the rigs of the review (dice rolled from 16-bit floats at 100,000
//!   rolls; plinko without its two 1,000x buckets at 100,000, 200,000 and 1,000,000 balls)
//!   are caught far more often than by the merged test of before, which each test also
//!   runs on the same tallies.
//!
//! Rounds are played by the library's own game functions from ChaCha8 floats (independent
//! of HMAC-SHA256, and fast). CI runs the sizes below; `FAIRAUDIT_CALIBRATION=full` runs
//! 5 to 10 times more (the figures docs/statistics.md quotes):
//!
//! ```text
//! FAIRAUDIT_CALIBRATION=full cargo test --release --test stake_sparse_tails -- --nocapture --test-threads 1
//! ```

mod common;

use common::calibration::{assert_battery_fails_at_most_alpha, assert_calibrated, runs, CHECK};
use common::stake_tally::tally_of;
use fairaudit::scheme::keyed::KeyedScheme;
use fairaudit::scheme::stake::cells::{limbo_band, outcome_law};
use fairaudit::scheme::stake::games::{self, LimboFormula};
use fairaudit::scheme::stake::{FloatWords, Risk, StakeGame, StakeOutcome, UnitFloat};
use fairaudit::stats::battery::{assess, Verdict};
use fairaudit::stats::chisquare::goodness_of_fit;
use fairaudit::stats::distributions::{binomial_at_least, chi_square_sf, noncentral_chi_square_sf};
use fairaudit::stats::outcome::TestOutcome;
use fairaudit::stats::sparse::{gamma_tail, third_cumulant};
use fairaudit::stats::stake::{battery, tests};
use fairaudit::tally::stake::StakeTally;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;

const ALPHA: f64 = 0.01;
const PLINKO: StakeGame = StakeGame::Plinko { rows: 16, risk: Risk::High };
const LIMBO: StakeGame = StakeGame::Limbo(LimboFormula::Fair);

/// One round of `game` from ChaCha8 floats, each float passed through `rig` (dice and limbo
/// use one float; plinko's sixteen rows are the top bits of sixteen floats, exactly fair
/// coins, taken here as sixteen bits of one word, and `rig` then moves the bucket).
fn play(game: &StakeGame, rng: &mut ChaCha8Rng, rig: Rig) -> (StakeOutcome, Vec<usize>) {
    match game {
        StakeGame::Dice => {
            let mut float = rng.next_u32();
            if rig == Rig::SixteenBits {
                float &= 0xFFFF_0000;
            }
            (StakeOutcome::Roll(games::dice(&mut FloatWords(std::iter::once(UnitFloat(float))))), vec![])
        }
        StakeGame::Limbo(formula) => {
            (StakeOutcome::Multiplier(games::limbo(UnitFloat(rng.next_u32()), *formula)), vec![])
        }
        StakeGame::Plinko { rows, .. } => {
            let word = rng.next_u32();
            let mut rights: Vec<usize> = (0..*rows).map(|row| (word >> row & 1) as usize).collect();
            let last = rights.len() - 1;
            // The ball that would reach an end bucket bounces back on the last row.
            if rig == Rig::NoTopBuckets && rights.iter().all(|&r| r == rights[0]) {
                rights[last] = 1 - rights[last];
            }
            (StakeOutcome::Bucket(rights.iter().sum::<usize>() as u8), rights)
        }
        _ => unreachable!("the games with an outcome view tested here"),
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Rig {
    Fair,
    /// Dice's float made from its first 16 bits.
    SixteenBits,
    /// Plinko's two end buckets never reached.
    NoTopBuckets,
}

/// A tally of `rounds` rounds of `game` from the ChaCha8 stream of `seed`.
fn tally(game: &StakeGame, rounds: u64, seed: u64, rig: Rig) -> StakeTally {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    tally_of(game, rounds, |_| play(game, &mut rng, rig))
}

/// Only the outcome cells of a dice tally (what `outcome_frequency` reads), faster.
fn dice_rolls(rounds: u64, seed: u64) -> StakeTally {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tally = StakeTally::empty(&StakeGame::Dice);
    for _ in 0..rounds {
        tally.outcomes[games::dice(&mut FloatWords(std::iter::once(UnitFloat(rng.next_u32())))) as usize] +=
            1;
    }
    tally.rounds = rounds;
    tally
}

/// The p-value of the test named `test` among `outcomes`.
fn p_of(outcomes: &[TestOutcome], test: &str) -> f64 {
    let outcome = outcomes.iter().find(|t| t.test == test).unwrap_or_else(|| panic!("no {test}"));
    outcome.p_value.unwrap_or_else(|| panic!("{test}: {}", outcome.note))
}

/// Every size at which dice's `outcome_frequency` takes the sparse route (1,000 rolls: 500
/// bins of two, its smallest; 10,001 and 20,002: every roll its own bin, one and two
/// expected; 100,000: the size of the review), and 300, short logs, where the classic test
/// runs: its p-values below 10⁻², 10⁻³ and 10⁻⁴ no more often than the levels allow.
#[test]
fn dice_outcome_frequency_is_calibrated_at_every_size_it_runs() {
    for (rolls, quick, full_runs) in [
        (300u64, 20_000, 200_000),
        (1_000, 20_000, 200_000),
        (2_000, 20_000, 200_000),
        (4_000, 20_000, 100_000),
        (10_001, 20_000, 100_000),
        (20_002, 10_000, 100_000),
        (100_000, 4_000, 100_000),
    ] {
        let p_values: Vec<f64> = (0..runs(quick, full_runs))
            .into_par_iter()
            .map(|run| {
                p_of(
                    &tests(KeyedScheme::Stake, &StakeGame::Dice, &dice_rolls(rolls, rolls << 32 | run)),
                    "outcome_frequency",
                )
            })
            .collect();
        assert_calibrated(
            &format!("dice outcome_frequency at {rolls} rolls"),
            &p_values,
            &[1e-2, 1e-3, 1e-4],
        );
    }
}

/// The check has teeth: Pearson's `X²` on the same unmerged rolls against the textbook
/// χ²(10,000) gives p-values below 0.01 and 0.001 far too often at 600 and 1,000 rolls
/// (its third cumulant is that of 0.1 expected per cell, not χ²'s), and the check
/// rejects it, where the sparse route passes it on the same tallies above.
#[test]
fn the_textbook_chi_square_on_unmerged_rolls_would_fail_calibration() {
    for rolls in [600u64, 1_000] {
        let p_values: Vec<f64> = (0..20_000u64)
            .into_par_iter()
            .map(|run| {
                let tally = dice_rolls(rolls, rolls << 32 | run);
                let expected = rolls as f64 / 10_001.0;
                let x2: f64 = tally.outcomes.iter().map(|&o| (o as f64 - expected).powi(2) / expected).sum();
                chi_square_sf(x2, 10_000.0)
            })
            .collect();
        let below = p_values.iter().filter(|&&p| p < ALPHA).count() as u64;
        let check = binomial_at_least(below, 20_000, ALPHA);
        println!("textbook chi-square at {rolls} rolls: {below} of 20000 below {ALPHA} (200 expected), binomial p {check:e}");
        assert!(
            check < CHECK,
            "the textbook tail should be visibly too heavy at {rolls} rolls: {below} of 20000"
        );
    }
}

/// The whole Stake battery on fair games, at the shapes the new tests run: one long
/// sequence of dice (100,000 rolls) and of plinko at 200,000 balls (where
/// `rarest_outcomes` can first fail), and 50 seed pairs of 2,000 dice rolls (each pair on
/// the sparse route, their sum, and the tests across them).
#[test]
fn the_stake_battery_fails_fair_games_at_most_alpha_at_the_new_shapes() {
    for (game, rounds, quick, full_runs) in [
        (StakeGame::Dice, 100_000u64, 200, 2_000),
        (PLINKO, 200_000, 200, 2_000),
        (LIMBO, 60_000, 200, 2_000),
    ] {
        let batteries = (0..runs(quick, full_runs))
            .into_par_iter()
            .map(|run| {
                battery(KeyedScheme::Stake, &game, &[tally(&game, rounds, run << 8 | 1, Rig::Fair)], ALPHA)
            })
            .collect();
        assert_battery_fails_at_most_alpha(&format!("{game} 1 x {rounds}"), batteries, ALPHA);
    }
    let batteries = (0..runs(100, 1_000))
        .into_par_iter()
        .map(|run| {
            let pairs: Vec<StakeTally> = (0..50)
                .map(|pair| tally(&StakeGame::Dice, 2_000, run << 16 | pair << 2 | 2, Rig::Fair))
                .collect();
            battery(KeyedScheme::Stake, &StakeGame::Dice, &pairs, ALPHA)
        })
        .collect();
    assert_battery_fails_at_most_alpha("dice 50 x 2000", batteries, ALPHA);
}

/// `rarest_outcomes` is exact, so calibrated by construction; simulated at the sizes where
/// it can first reach Holm's bar (a handful expected), its p-values fall below α and α/10
/// no more often than the levels allow.
#[test]
fn rarest_outcomes_is_calibrated_where_it_can_first_fail() {
    for (game, rounds) in [(PLINKO, 200_000u64), (StakeGame::Dice, 60_000), (LIMBO, 60_000)] {
        let p_values: Vec<f64> = (0..runs(2_000, 5_000))
            .into_par_iter()
            .map(|run| {
                p_of(
                    &tests(KeyedScheme::Stake, &game, &tally(&game, rounds, run << 8 | 3, Rig::Fair)),
                    "rarest_outcomes",
                )
            })
            .collect();
        assert_calibrated(&format!("{game} rarest_outcomes at {rounds}"), &p_values, &[ALPHA, ALPHA / 10.0]);
    }
    // The limbo band the test counts is the last one: 10,000x and up.
    assert_eq!(limbo_band(Some(1_000_000)), 15);
    assert_eq!(limbo_band(None), 15);
    assert_eq!(limbo_band(Some(999_999)), 14);
}

/// The battery of before on a tally: the merged Cressie–Read `outcome_frequency` and the
/// tests beside it then (`draw_steps`, `pairs`; no `rarest_outcomes`), adjusted together;
/// whether `outcome_frequency` FAILed.
fn merged_test_fails(game: &StakeGame, tally: &StakeTally) -> bool {
    let fit = goodness_of_fit(&tally.outcomes, &outcome_law(KeyedScheme::Stake, game)).expect("bins of ten");
    let merged =
        TestOutcome::valid("outcome_frequency", fit.statistic, Some(fit.df), fit.p_value, String::new());
    let others = tests(KeyedScheme::Stake, game, tally)
        .into_iter()
        .filter(|t| t.test != "outcome_frequency" && t.test != "rarest_outcomes");
    let rows = std::iter::once(merged).chain(others).map(|t| (*game, "0".to_owned(), t)).collect();
    assess(rows, ALPHA).results[0].verdict == Verdict::Fail
}

/// Whether `test` FAILed in the battery of one tally.
fn fails(game: &StakeGame, tally: &StakeTally, test: &str) -> bool {
    battery(KeyedScheme::Stake, game, std::slice::from_ref(tally), ALPHA)
        .results
        .iter()
        .any(|r| r.outcome.test == test && r.verdict == Verdict::Fail)
}

/// Dice rolled from floats of 16 bits (each roll 6 or 7 of the 65,536 floats, ±7.5%),
/// 100,000 rolls: the review caught it 2 of 40 times with the rolls merged in pairs.
/// Unmerged, its noncentrality is `n Σ πᵢδᵢ² = 575.6` over 10,000 degrees of freedom; at
/// Holm's first bar for the battery's three tests the predicted power is printed, and the
/// measured one must be within chance of it and far above the merged test's.
#[test]
fn dice_rolled_from_sixteen_bit_floats_is_caught_at_100000_rolls() {
    let rolls = 100_000u64;
    let law = outcome_law(KeyedScheme::Stake, &StakeGame::Dice);
    // Each roll's share of the 65,536 16-bit floats against its exact law.
    let mut rigged = vec![0.0; law.len()];
    for top in 0..65_536u32 {
        rigged[games::dice(&mut FloatWords(std::iter::once(UnitFloat(top << 16)))) as usize] +=
            1.0 / 65_536.0;
    }
    let lambda: f64 = rigged.iter().zip(&law).map(|(q, p)| rolls as f64 * (q - p).powi(2) / p).sum();
    // The statistic's critical value at α/3 under the gamma law, by bisection.
    let (mean, variance) = (10_000.0, 2.0 * 10_000.0 * (1.0 - 1.0 / rolls as f64));
    let third = third_cumulant(&law, rolls);
    let (mut low, mut high) = (mean, mean + 20.0 * variance.sqrt());
    for _ in 0..100 {
        let mid = 0.5 * (low + high);
        if gamma_tail(mid, mean, variance, third) > ALPHA / 3.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    let predicted = noncentral_chi_square_sf(high, 10_000.0, lambda);
    let n = runs(40, 200);
    let outcomes: Vec<(bool, bool)> = (0..n)
        .into_par_iter()
        .map(|run| {
            let tally = tally(&StakeGame::Dice, rolls, run << 8 | 4, Rig::SixteenBits);
            (
                fails(&StakeGame::Dice, &tally, "outcome_frequency"),
                merged_test_fails(&StakeGame::Dice, &tally),
            )
        })
        .collect();
    let now = outcomes.iter().filter(|o| o.0).count() as u64;
    let before = outcomes.iter().filter(|o| o.1).count() as u64;
    println!(
        "dice from 16-bit floats, {rolls} rolls: noncentrality {lambda:.1}, predicted power {predicted:.3}; caught {now} of {n} (merged, before: {before} of {n})"
    );
    assert!((lambda - 575.6).abs() < 1.0, "{lambda}");
    // Within chance of the prediction (two-sided at 0.001), and the merged test far below.
    assert!(binomial_at_least(n - now, n, 1.0 - predicted) > CHECK / 2.0, "{now} of {n} against {predicted}");
    assert!(now >= n * 3 / 4 && before <= n / 5, "now {now}, before {before} of {n}");
}

/// Plinko (16 rows, high risk) whose balls never reach the two 1,000x buckets (3 points of
/// return): at 100,000 balls no test can catch it at α = 0.01 (the buckets expect 3.05
/// together, and none at all happens 4.7% of the time: `rarest_outcomes` is INSUFFICIENT,
/// it cannot fail); from 200,000 (6.1 expected, none has p 0.0022) every run FAILs it,
/// where the merged test of before (the end buckets merged with their neighbours, whose
/// counts the rig leaves whole) did not; at 1,000,000 both do (the end buckets expect 15
/// each there, enough to stand unmerged).
#[test]
fn plinko_without_its_top_buckets_is_caught_from_200000_balls() {
    for (balls, quick, full_runs) in [(100_000u64, 40, 200), (200_000, 40, 200), (1_000_000, 10, 40)] {
        let outcomes: Vec<(bool, bool, Verdict)> = (0..runs(quick, full_runs))
            .into_par_iter()
            .map(|run| {
                let tally = tally(&PLINKO, balls, run << 8 | 5, Rig::NoTopBuckets);
                let battery = battery(KeyedScheme::Stake, &PLINKO, std::slice::from_ref(&tally), ALPHA);
                let rarest =
                    battery.results.iter().find(|r| r.outcome.test == "rarest_outcomes").expect("a row");
                (rarest.verdict == Verdict::Fail, merged_test_fails(&PLINKO, &tally), rarest.verdict)
            })
            .collect();
        let n = outcomes.len();
        let now = outcomes.iter().filter(|o| o.0).count();
        let before = outcomes.iter().filter(|o| o.1).count();
        println!("plinko without its 1,000x buckets, {balls} balls: caught {now} of {n} (merged, before: {before} of {n})");
        if balls < 200_000 {
            assert!(outcomes.iter().all(|o| o.2 == Verdict::Insufficient), "{balls}: {outcomes:?}");
        } else {
            assert_eq!(now, n, "{balls}");
        }
        if balls < 1_000_000 {
            assert!(before <= n / 5, "{balls}: {before} of {n}");
        }
    }
}
