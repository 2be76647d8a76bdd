//! The exact law of the crash point against chains played in full: a chain of 10^6 links
//! built here from a chosen seed matches the law of both schemes (and ends where a walk
//! of 10^6 links from its top ends), the tests' p-values are calibrated on many short
//! chains, a chain rigged to crash at once 1 game in 50 instead of 1 in 101 FAILs, and so
//! does one whose instant crashes come in pairs at the right rate.

use fairaudit::scheme::crash::{digest_mod, point_of_digest, previous_hash, CrashPoint, CrashVariant};
use fairaudit::stats::crash::tests;
use fairaudit::sweep::crash::{play_chain, play_chain_with};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The top of a test chain: SHA-256 of a phrase, as hex text.
fn top(phrase: &str) -> String {
    Sha256::digest(phrase.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Every p-value of a chain's tests.
fn p_values(variant: CrashVariant, tally: &fairaudit::tally::crash::CrashTally) -> Vec<(&'static str, f64)> {
    tests(variant, tally)
        .into_iter()
        .map(|t| {
            let p = t.p_value.unwrap_or_else(|| panic!("{} untested: {}", t.test, t.note));
            (name_of(&t.test), p)
        })
        .collect()
}

/// The test's name as a `&'static str`, for maps keyed by it.
fn name_of(test: &str) -> &'static str {
    ["crash_point_frequency", "instant_crash_rate", "instant_crash_runs", "pairs"]
        .into_iter()
        .find(|name| *name == test)
        .unwrap_or_else(|| panic!("a test this file does not know: {test}"))
}

#[test]
fn a_million_games_match_the_exact_law_and_the_walk_ends_where_the_chain_does() {
    const GAMES: u64 = 1_000_000;
    for variant in CrashVariant::ALL {
        let top = top(&format!("fairaudit crash law {variant:?}"));
        let played = play_chain(variant, &top, variant.salt(), GAMES);
        assert_eq!(played.tally.games, GAMES);
        for (name, p) in p_values(variant, &played.tally) {
            // Four tests: each above 1e-3 / 4 unless the law is wrong.
            assert!(p > 1e-3 / 4.0, "{variant:?} {name}: p = {p}");
        }
        // The same walk, link by link: the chain ends where the tally's walk ended.
        let walked = (0..GAMES).fold(top.clone(), |hash, _| previous_hash(&hash));
        assert_eq!(played.end, walked);
    }
}

#[test]
fn a_chain_rigged_to_crash_at_once_one_game_in_50_fails() {
    let variant = CrashVariant::BustabitV1;
    let rigged = |digest: &[u8; 32]| {
        if digest_mod(digest, 50) == 0 {
            CrashPoint::Instant
        } else {
            point_of_digest(variant, digest)
        }
    };
    let played = play_chain_with(&top("fairaudit rigged chain"), variant.salt(), 1_000_000, rigged);
    let p = p_values(variant, &played.tally);
    let rate = p.iter().find(|(name, _)| *name == "instant_crash_rate").unwrap().1;
    let frequency = p.iter().find(|(name, _)| *name == "crash_point_frequency").unwrap().1;
    assert!(rate < 1e-12 && frequency < 1e-12, "{p:?}");
}

#[test]
fn instant_crashes_bunched_in_pairs_at_the_right_rate_fail_the_runs_test() {
    // Half the instant crashes of the rule, each followed by a second one: 1 game in 101
    // still crashes at once, but never alone.
    let variant = CrashVariant::BustabitV1;
    let after_instant = std::cell::Cell::new(false);
    let rigged = |digest: &[u8; 32]| {
        let point = if after_instant.get() || digest_mod(digest, 202) == 0 {
            CrashPoint::Instant
        } else {
            match point_of_digest(variant, digest) {
                CrashPoint::Instant => CrashPoint::Hundredths(100),
                other => other,
            }
        };
        after_instant.set(point == CrashPoint::Instant && !after_instant.get());
        point
    };
    let played = play_chain_with(&top("fairaudit bunched chain"), variant.salt(), 1_000_000, rigged);
    let p = p_values(variant, &played.tally);
    let get = |name: &str| p.iter().find(|(n, _)| *n == name).unwrap().1;
    assert!(get("instant_crash_runs") < 1e-12, "{p:?}");
    assert!(get("instant_crash_rate") > 1e-3, "the rate is the rule's: {p:?}");
}

/// Per test, over `chains` chains of `games` games of Roobet, each from its own seed: the
/// chains it ran on and its rejections there at 0.05 and 0.01; tests INSUFFICIENT at this
/// size are counted apart.
fn rejections(chains: usize, games: u64) -> (BTreeMap<&'static str, [usize; 3]>, BTreeMap<String, usize>) {
    use rayon::prelude::*;
    let variant = CrashVariant::Roobet;
    let outcomes: Vec<_> = (0..chains)
        .into_par_iter()
        .map(|chain| {
            let top = top(&format!("fairaudit calibration {games} {chain}"));
            tests(variant, &play_chain(variant, &top, variant.salt(), games).tally)
        })
        .collect();
    let (mut below, mut untested) = (BTreeMap::<&str, [usize; 3]>::new(), BTreeMap::new());
    for test in outcomes.into_iter().flatten() {
        match test.p_value {
            Some(p) => {
                let counts = below.entry(name_of(&test.test)).or_default();
                counts[0] += usize::from(p < 0.05);
                counts[1] += usize::from(p < 0.01);
                counts[2] += 1;
            }
            None => *untested.entry(test.test).or_default() += 1,
        }
    }
    (below, untested)
}

/// The exact size of `instant_crash_rate` at `alpha` on chains of `games` games of
/// Roobet: the probability, under the binomial law of the count, of a count it rejects.
/// An exact test of a discrete count rejects less often than its level (0.040 at 0.05
/// on 2,000 games): its rejections are judged against this, not against the level.
fn rate_test_size(games: u64, alpha: f64) -> f64 {
    use fairaudit::stats::distributions::{binomial_pmf, binomial_two_sided};
    let p = 1.0 / CrashVariant::Roobet.instant_divisor() as f64;
    let size: f64 = (0..=games)
        .filter(|&k| binomial_two_sided(k, games, p) < alpha)
        .map(|k| binomial_pmf(k, games, p))
        .sum();
    assert!(size <= alpha && size >= 0.5 * alpha, "the exact test's size at {alpha}: {size}");
    size
}

/// Each count within 3 sd of its expectation over the chains the test ran on (a test 1.5x
/// too liberal at 0.05 over 2,000 chains, or one never rejecting, fails); the expectation
/// is the level, or the exact binomial's own size for `instant_crash_rate`.
fn assert_calibrated(below: &BTreeMap<&str, [usize; 3]>, games: u64) {
    for (name, counts) in below {
        let ran = counts[2];
        for (&count, alpha) in counts.iter().zip([0.05, 0.01]) {
            let size = if *name == "instant_crash_rate" { rate_test_size(games, alpha) } else { alpha };
            let expected = ran as f64 * size;
            let sd = (expected * (1.0 - size)).sqrt();
            assert!(
                (count as f64 - expected).abs() <= 3.0 * sd,
                "{name} at {alpha} (size {size:.4}): {count} of {ran} chains it ran on"
            );
        }
    }
}

// Calibration at the shape of short chains: 2,000 chains of 2,000 games. The runs test
// does not run there (3.2 pairs of consecutive instant crashes expected, fewer than 10).
#[test]
fn p_values_are_calibrated_on_many_short_chains() {
    let (below, untested) = rejections(2_000, 2_000);
    assert_eq!(
        below.keys().copied().collect::<Vec<_>>(),
        ["crash_point_frequency", "instant_crash_rate", "pairs"]
    );
    assert_eq!(untested.into_iter().collect::<Vec<_>>(), [("instant_crash_runs".to_owned(), 2_000)]);
    assert_calibrated(&below, 2_000);
}

// The runs test at the shortest chains it runs on: 4,000 chains of 6,250 games of Roobet
// (10 pairs expected), judged on the chains it ran on (its size there, from the exact
// law, is 0.047 at 0.05 and 0.009 at 0.01: `stats::crash`'s unit test).
#[test]
fn the_runs_test_is_calibrated_on_the_shortest_chains_it_runs_on() {
    let (below, untested) = rejections(4_000, 6_250);
    assert_eq!(below.len(), 4);
    // A chain with fewer instant crashes than expected (250) falls below the 10 pairs:
    // about half of them (49.1%). The runs test is judged on the others, 4,000 chains so
    // that about 2,000 remain.
    let ran = below["instant_crash_runs"][2];
    eprintln!("the runs test ran on {ran} of 4,000 chains; rejections {:?}", below["instant_crash_runs"]);
    assert!((1_800..=2_300).contains(&ran), "{untested:?}");
    assert_calibrated(&below, 6_250);
}
