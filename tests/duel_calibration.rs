//! Duel's battery calibrated under Duel's own law (issue 60): its dice is uniform over the
//! 10,001 rolls (each roll `w mod 10001` for exactly 429,453 accepted words), a law with
//! all cells equal, which the stake family's calibration (tests/stake_sparse_tails.rs,
//! nearly equal cells) does not cover by itself. At every shape users run it:
//!
//! - one long sequence: `outcome_frequency` at every size it runs (300 rolls, where the
//!   classic test runs, to 100,000 on the sparse route), `rarest_outcomes` where it can
//!   first fail, and the whole battery at 100,000 rolls;
//! - many short seed pairs: the whole battery over 50 pairs of 2,000 rolls (each pair,
//!   their sum, the tests across them), and 1,000 pairs of 4,000 rounds swept through
//!   Duel's own HMAC stream;
//! - short logs: an audited history's battery (`log_battery`) at 300 and 2,000 rows;
//! - merged shards: a merge writes the whole sweep's tallies byte for byte (tests/duel.rs),
//!   so its battery is the one sweep's.
//!
//! Rolls are drawn by the library's own dice over Duel's pick rule from ChaCha8 words (fast,
//! and independent of HMAC-SHA256), except the seed pairs swept through Duel's stream. CI
//! runs the counts below; `FAIRAUDIT_CALIBRATION=full` runs 3 to 10 times more:
//!
//! ```text
//! FAIRAUDIT_CALIBRATION=full cargo test --release --test duel_calibration -- --nocapture --test-threads 1
//! ```

mod common;

use common::calibration::{assert_battery_fails_at_most_alpha, assert_calibrated, runs};
use common::stake_tally::tally_of;
use common::ChaChaWords;
use fairaudit::chain::seeds::derive_seed_pairs;
use fairaudit::games::dice::roll;
use fairaudit::scheme::duel::DuelRule;
use fairaudit::scheme::keyed::KeyedScheme;
use fairaudit::scheme::stake::{StakeGame, StakeOutcome};
use fairaudit::stats::stake::{battery, log_battery, tests};
use fairaudit::sweep::stake::sweep;
use fairaudit::tally::bets::BetTally;
use fairaudit::tally::stake::StakeTally;
use rayon::prelude::*;
use std::sync::atomic::AtomicBool;

const DUEL: KeyedScheme = KeyedScheme::Duel;
const DICE: StakeGame = StakeGame::Dice;
const ALPHA: f64 = 0.01;

/// A tally of `rolls` fair Duel rolls from the ChaCha8 stream of `seed`.
fn rolls(rolls: u64, seed: u64) -> StakeTally {
    let mut words = ChaChaWords::seeded(seed);
    tally_of(&DICE, rolls, |_| (StakeOutcome::Roll(roll::<DuelRule, _>(&mut words)), vec![]))
}

/// The p-value of `test` among Duel dice's tests of `tally`.
fn p_of(tally: &StakeTally, test: &str) -> f64 {
    let outcomes = tests(DUEL, &DICE, tally);
    let outcome = outcomes.iter().find(|t| t.test == test).unwrap_or_else(|| panic!("no {test}"));
    outcome.p_value.unwrap_or_else(|| panic!("{test}: {}", outcome.note))
}

#[test]
fn the_rolls_are_uniform_over_the_accepted_words() {
    // The law every test below is against: 10,001 equal cells, each 429,453 words.
    assert!(DUEL.law(10_001).iter().all(|&words| words == 429_453));
}

/// One long sequence: `outcome_frequency` below 10⁻², 10⁻³ and 10⁻⁴ no more often than the
/// levels allow at every size it runs.
#[test]
fn outcome_frequency_is_calibrated_at_every_size_it_runs() {
    for (size, quick, full) in [
        (300u64, 20_000, 200_000),
        (1_000, 20_000, 200_000),
        (10_001, 20_000, 100_000),
        (100_000, 4_000, 40_000),
    ] {
        let p_values: Vec<f64> = (0..runs(quick, full))
            .into_par_iter()
            .map(|run| p_of(&rolls(size, size << 32 | run), "outcome_frequency"))
            .collect();
        assert_calibrated(&format!("duel outcome_frequency at {size} rolls"), &p_values, &[1e-2, 1e-3, 1e-4]);
    }
}

/// `rarest_outcomes` (rolls 0.00 and 100.00, 2 of 10,001) where it can first reach
/// Holm's bar: a handful expected.
#[test]
fn rarest_outcomes_is_calibrated_where_it_can_first_fail() {
    let p_values: Vec<f64> = (0..runs(2_000, 10_000))
        .into_par_iter()
        .map(|run| p_of(&rolls(60_000, run << 8 | 3), "rarest_outcomes"))
        .collect();
    assert_calibrated("duel rarest_outcomes at 60000", &p_values, &[ALPHA, ALPHA / 10.0]);
}

/// The whole battery on one long sequence and on many short seed pairs.
#[test]
fn the_battery_fails_fair_rolls_at_most_alpha_long_and_over_many_pairs() {
    let long = (0..runs(1_000, 3_000))
        .into_par_iter()
        .map(|run| battery(DUEL, &DICE, &[rolls(100_000, run << 8 | 1)], ALPHA))
        .collect();
    assert_battery_fails_at_most_alpha("duel dice 1 x 100000", long, ALPHA);
    let pairs = (0..runs(300, 1_500))
        .into_par_iter()
        .map(|run| {
            let pairs: Vec<StakeTally> =
                (0..50).map(|pair| rolls(2_000, run << 16 | pair << 2 | 2)).collect();
            battery(DUEL, &DICE, &pairs, ALPHA)
        })
        .collect();
    assert_battery_fails_at_most_alpha("duel dice 50 x 2000", pairs, ALPHA);
}

/// Short logs: a bet history's battery on its recorded rolls (no bets recorded).
#[test]
fn a_short_history_fails_fair_rolls_at_most_alpha() {
    for (rows, quick, full) in [(300u64, 5_000, 20_000), (2_000, 2_000, 10_000)] {
        let batteries = (0..runs(quick, full))
            .into_par_iter()
            .map(|run| {
                // The seed holds the size: no history is the start of a longer one.
                let recorded = rolls(rows, rows << 40 | run << 8 | 4);
                log_battery(DUEL, &[(DICE, recorded)], &[BetTally::default()], &[], ALPHA)
            })
            .collect();
        assert_battery_fails_at_most_alpha(&format!("duel history of {rows} rows"), batteries, ALPHA);
    }
}

/// Many short seed pairs swept through Duel's own HMAC stream: each test's p-values below
/// 0.5, 0.05 and 0.01 within 3 standard deviations of the level (the seeds are fixed).
#[test]
fn seed_pairs_swept_through_the_duel_stream_give_uniform_p_values() {
    let stop = AtomicBool::new(false);
    let mut by_test: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    for pair in derive_seed_pairs("calibration duel dice", 1_000) {
        // Duel's server seeds are hex text: the derived seed's bytes, as hex.
        let server: String = pair.server_seed.bytes().map(|b| format!("{b:02x}")).collect();
        let keyed = DUEL.pair(&server, &pair.client_seed).unwrap();
        let tally = sweep(&DICE, &keyed, 0..4_000, 1 << 14, &stop, &|_| ()).unwrap();
        for test in tests(DUEL, &DICE, &tally).into_iter().filter(|test| !test.exact) {
            by_test.entry(test.test).or_default().push(test.p_value.expect("runs at 4,000 rolls"));
        }
    }
    assert!(
        by_test.contains_key("outcome_frequency") && by_test.contains_key("pairs"),
        "{:?}",
        by_test.keys()
    );
    for (test, ps) in by_test {
        for level in [0.5, 0.05, 0.01] {
            let below = ps.iter().filter(|&&p| p < level).count() as f64;
            let (mean, sd) = (level * 1_000.0, (level * (1.0 - level) * 1_000.0).sqrt());
            assert!((below - mean).abs() <= 3.0 * sd, "duel {test}: {below} below {level}");
        }
    }
}
