//! The exact law of the crash point against chains played in full: a chain of 10^6 links
//! built here from a chosen seed matches the law of both schemes (and ends where a walk
//! of 10^6 links from its top ends), the tests' p-values are calibrated on many short
//! chains, and a chain rigged to crash at once 1 game in 50 instead of 1 in 101 FAILs.

use fairaudit::scheme::crash::{digest_mod, point_of_digest, previous_hash, CrashPoint, CrashVariant};
use fairaudit::stats::crash::tests;
use fairaudit::sweep::crash::{play_chain, play_chain_with};
use sha2::{Digest, Sha256};

/// The top of a test chain: SHA-256 of a phrase, as hex text.
fn top(phrase: &str) -> String {
    Sha256::digest(phrase.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Every p-value of a chain's tests.
fn p_values(variant: CrashVariant, tally: &fairaudit::tally::crash::CrashTally) -> Vec<(&'static str, f64)> {
    tests(variant, tally).into_iter().map(|t| (t.name, t.p_value.expect("enough games to test"))).collect()
}

#[test]
fn a_million_games_match_the_exact_law_and_the_walk_ends_where_the_chain_does() {
    const GAMES: u64 = 1_000_000;
    for variant in CrashVariant::ALL {
        let top = top(&format!("fairaudit crash law {variant:?}"));
        let played = play_chain(variant, &top, variant.salt(), GAMES);
        assert_eq!(played.tally.games, GAMES);
        for (name, p) in p_values(variant, &played.tally) {
            // Three tests: each above 1e-3 / 3 unless the law is wrong.
            assert!(p > 1e-3 / 3.0, "{variant:?} {name}: p = {p}");
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

// Calibration at the shape of short chains: 2,000 chains of 2,000 games, each test's
// rejections at 0.05 and 0.01 within 3 sd of their expectation (a test 1.5x too liberal
// at 0.05, or never rejecting, fails).
#[test]
fn p_values_are_calibrated_on_many_short_chains() {
    const CHAINS: usize = 2_000;
    const GAMES: u64 = 2_000;
    let variant = CrashVariant::Roobet;
    let mut below = std::collections::BTreeMap::<&str, [usize; 2]>::new();
    for chain in 0..CHAINS {
        let played =
            play_chain(variant, &top(&format!("fairaudit calibration {chain}")), variant.salt(), GAMES);
        for (name, p) in p_values(variant, &played.tally) {
            let counts = below.entry(name).or_default();
            counts[0] += usize::from(p < 0.05);
            counts[1] += usize::from(p < 0.01);
        }
    }
    assert_eq!(below.len(), 3);
    for (name, counts) in below {
        for (count, alpha) in counts.into_iter().zip([0.05, 0.01]) {
            let expected = CHAINS as f64 * alpha;
            let sd = (expected * (1.0 - alpha)).sqrt();
            assert!((count as f64 - expected).abs() <= 3.0 * sd, "{name} at {alpha}: {count} of {CHAINS}");
        }
    }
}
