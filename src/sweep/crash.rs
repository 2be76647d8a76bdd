//! Playing a crash chain: from a game's hash down the chain (each game's hash hashes to
//! the one before it), every crash point computed and counted ([`CrashTally`]).
//!
//! The walk down the chain is sequential by nature (a link needs the one above it: two
//! SHA-256 compressions), while a game's crash point (an HMAC: five compressions) needs
//! only its own hash. So [`sweep_chain`] walks on one thread and hands the hashes over in
//! segments of [`SEGMENT`] games, whose crash points are computed and counted on every
//! core of the current rayon pool while the walk goes on; the segments' tallies join in
//! chain order ([`CrashTally::append`]), so the result does not depend on the threads.
//! Memory is bounded: at most three batches of hashes (32 bytes a game) are alive.

use crate::chain::hex_lower;
use crate::scheme::crash::blocks::GameHmac;
use crate::scheme::crash::{
    game_digest, hash_bytes, hash_text, point_of_digest, previous_digest, previous_hash, CrashPoint,
    CrashVariant,
};
use crate::tally::crash::CrashTally;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Games per unit of parallel work: even, so that every segment but the last starts at an
/// even offset from the top (the pairs test's alignment).
pub const SEGMENT: usize = 1 << 14;

/// The most links walked between a game and its chain's published game (`verify`, and
/// the end of a `sweep`): more than any real chain's length (10^7 games), seconds of
/// SHA-256 on one core. Further, the game numbers are wrong.
pub const MAX_LINK_WALK: u64 = 100_000_000;

/// Steps of a walk between looks at the stop flag and reports of progress.
const WALK_STEP: u64 = 1 << 16;

/// What playing a chain found: the tally of its games, and the hash the walk ended on
/// (the hash of the game before the last one played).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedChain {
    /// The games' counts.
    pub tally: CrashTally,
    /// SHA-256 of the last game's hash: the next link down the chain.
    pub end: String,
}

/// Plays `games` games of a chain, from the game whose hash is `top` down, with `salt`,
/// each crash point from `point`, on one thread, link by link through the text path (the
/// reference [`sweep_chain`] is tested against; tests pass a rigged `point`).
pub fn play_chain_with(
    top: &str,
    salt: &str,
    games: u64,
    point: impl Fn(&[u8; 32]) -> CrashPoint,
) -> PlayedChain {
    let mut tally = CrashTally::new();
    let mut hash = top.to_owned();
    for _ in 0..games {
        tally.add(point(&game_digest(&hash, salt)));
        hash = previous_hash(&hash);
    }
    PlayedChain { tally, end: hash }
}

/// Plays `games` games of a chain of `variant` from `top` down, on one thread.
pub fn play_chain(variant: CrashVariant, top: &str, salt: &str, games: u64) -> PlayedChain {
    play_chain_with(top, salt, games, |digest| point_of_digest(variant, digest))
}

/// Plays `games` games of a chain of `variant` from the game whose hash is `top` (64
/// lowercase hex digits) down, on every thread of the current rayon pool, reporting games
/// done to `progress`; `None` when `stop` was set before the end.
///
/// # Panics
/// If `top` is not a game hash (the caller checks its input first).
pub fn sweep_chain(
    variant: CrashVariant,
    top: &str,
    salt: &str,
    games: u64,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Option<PlayedChain> {
    let top = hash_bytes(top).expect("the top of a chain is a game hash");
    let hmac = GameHmac::new(salt.as_bytes());
    // Two segments a thread per batch: the workers have the next batch while the walker
    // fills the one after.
    let batch = (SEGMENT * 2 * rayon::current_num_threads()) as u64;
    let (sender, receiver) = std::sync::mpsc::sync_channel::<Vec<[u8; 32]>>(1);
    std::thread::scope(|scope| {
        let walker = scope.spawn(move || {
            let (mut hash, mut left) = (top, games);
            while left > 0 {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let count = left.min(batch);
                let mut links = Vec::with_capacity(count as usize);
                for _ in 0..count {
                    links.push(hash);
                    hash = previous_digest(&hash);
                }
                left -= count;
                // The receiver is gone only when the workers stopped.
                sender.send(links).ok()?;
            }
            Some(hash)
        });
        let mut tally = CrashTally::new();
        for links in receiver.iter() {
            let parts: Vec<CrashTally> = links
                .par_chunks(SEGMENT)
                .map(|segment| {
                    let mut part = CrashTally::new();
                    for hash in segment {
                        part.add(point_of_digest(variant, &hmac.digest(&hex_lower(hash))));
                    }
                    progress(segment.len() as u64);
                    part
                })
                .collect();
            parts.iter().for_each(|part| tally.append(part));
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
        drop(receiver);
        let end = walker.join().expect("the walker does not panic")?;
        (!stop.load(Ordering::Relaxed) && tally.games == games)
            .then(|| PlayedChain { tally, end: hash_text(&end) })
    })
}

/// The hash `steps` games below the game whose hash is `from`, reporting steps done to
/// `progress`; `None` when `stop` was set before the end.
///
/// # Panics
/// If `from` is not a game hash.
pub fn walk_down(from: &str, steps: u64, stop: &AtomicBool, progress: &dyn Fn(u64)) -> Option<String> {
    let mut hash = hash_bytes(from).expect("a walk starts from a game hash");
    let mut left = steps;
    while left > 0 {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let count = left.min(WALK_STEP);
        for _ in 0..count {
            hash = previous_digest(&hash);
        }
        left -= count;
        progress(count);
    }
    Some(hash_text(&hash))
}

/// How a swept range of games reaches the game the operator published when it seeded the
/// chain ([`CrashVariant::published_game`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ChainLink {
    /// The salt seeds no published chain: the games are those of the chain below the hash
    /// given, and nothing ties that hash to an operator's commitment.
    Unanchored,
    /// Walking `steps` links between the range and the published game joined them.
    Linked {
        /// The published game's number.
        game: u64,
        /// Its published hash.
        hash: &'static str,
        /// Links walked beyond the range's own.
        steps: u64,
    },
    /// The walk between the range and the published game did not join them: the games
    /// swept are not the chain the operator committed to under those numbers.
    Broken {
        /// The published game's number.
        game: u64,
        /// Its published hash.
        hash: &'static str,
        /// Links walked beyond the range's own.
        steps: u64,
        /// What the walk reached where the other end's hash was expected.
        reached: String,
        /// The hash expected there.
        expected: String,
    },
}

impl ChainLink {
    /// Whether the range was shown not to be the committed chain.
    pub fn is_broken(&self) -> bool {
        matches!(self, ChainLink::Broken { .. })
    }
}

/// Links the games `range` of a chain (its game `range.start - 1` has the hash `below`,
/// where the sweep's walk ended) to the published game of `salt`: from whichever of the
/// two is higher in the chain, walked down to the other, reporting links walked to
/// `progress`. `None` when `stop` was set before the end.
///
/// # Panics
/// If `below` is not a game hash, or `range` starts below the published chain's first
/// game played (the caller refuses that range).
pub fn link_to_published(
    variant: CrashVariant,
    salt: &str,
    range: std::ops::Range<u64>,
    below: &str,
    stop: &AtomicBool,
    progress: &dyn Fn(u64),
) -> Option<ChainLink> {
    let Some(published) = variant.published_game(salt) else {
        return Some(ChainLink::Unanchored);
    };
    assert!(range.start >= published.first_played, "games below the first one played");
    let under = range.start - 1;
    let (from, steps, expected) = if published.game <= under {
        (below.to_owned(), under - published.game, published.hash.to_owned())
    } else {
        (published.hash.to_owned(), published.game - under, below.to_owned())
    };
    let reached = walk_down(&from, steps, stop, progress)?;
    let (game, hash) = (published.game, published.hash);
    Some(if reached == expected {
        ChainLink::Linked { game, hash, steps }
    } else {
        ChainLink::Broken { game, hash, steps, reached, expected }
    })
}

/// Plays the games `range` of a chain whose game `range.end - 1` has the hash `top`, on
/// every thread of the current rayon pool ([`sweep_chain`]), then links them to the
/// published game of `salt` ([`link_to_published`]): what a sweep of a chain computes, and
/// what `certify` computes again. `None` when `stop` was set before the end.
///
/// # Panics
/// As [`sweep_chain`] and [`link_to_published`]: the caller checks `top` and `range`.
pub fn play_range(
    variant: CrashVariant,
    top: &str,
    salt: &str,
    range: std::ops::Range<u64>,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Option<(PlayedChain, ChainLink)> {
    let played = sweep_chain(variant, top, salt, range.end - range.start, stop, progress)?;
    let link = link_to_published(variant, salt, range, &played.end, stop, progress)?;
    Some((played, link))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: &str = "45c7aac99b649ed50b255430e66e63e0c581e199702d3cd25f94284be3a10b29";

    #[test]
    fn the_parallel_sweep_counts_what_one_thread_counts() {
        let never = AtomicBool::new(false);
        let games = 3 * SEGMENT as u64 + 7;
        for variant in CrashVariant::ALL {
            let reference = play_chain(variant, TOP, variant.salt(), games);
            for threads in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let done = std::sync::atomic::AtomicU64::new(0);
                let count = |n: u64| {
                    done.fetch_add(n, Ordering::Relaxed);
                };
                let swept = pool
                    .install(|| sweep_chain(variant, TOP, variant.salt(), games, &never, &count))
                    .unwrap();
                assert_eq!(swept, reference, "{variant:?}, {threads} threads");
                assert_eq!(done.load(Ordering::Relaxed), games);
            }
        }
        let walked = walk_down(TOP, 1_000, &never, &|_| {}).unwrap();
        assert_eq!(walked, (0..1_000).fold(TOP.to_owned(), |hash, _| previous_hash(&hash)));
    }

    #[test]
    fn a_stopped_sweep_returns_nothing() {
        let stopped = AtomicBool::new(true);
        let variant = CrashVariant::BustabitV1;
        assert_eq!(sweep_chain(variant, TOP, variant.salt(), 100_000, &stopped, &|_| {}), None);
        assert_eq!(walk_down(TOP, 100_000, &stopped, &|_| {}), None);
        // Nothing to do is done at once, stopped or not.
        assert_eq!(walk_down(TOP, 0, &stopped, &|_| {}).as_deref(), Some(TOP));
    }

    #[test]
    fn a_range_links_to_the_published_game_from_either_side() {
        let never = AtomicBool::new(false);
        let variant = CrashVariant::Roobet;
        let published = variant.published_game(variant.salt()).unwrap();
        // Below Roobet's published game 1: game 0's hash, and the one below it.
        let game_0 = previous_hash(published.hash);
        let game_minus_1 = previous_hash(&game_0);
        // A range of games starting at 1: the walk below it ended on game 0's hash.
        let link = link_to_published(variant, variant.salt(), 1..5, &game_0, &never, &|_| {}).unwrap();
        assert_eq!(link, ChainLink::Linked { game: 1, hash: published.hash, steps: 1 });
        // A range starting at 2 whose walk ended on the published game itself.
        let link = link_to_published(variant, variant.salt(), 2..5, published.hash, &never, &|_| {}).unwrap();
        assert_eq!(link, ChainLink::Linked { game: 1, hash: published.hash, steps: 0 });
        // One numbered a game too high: the walk reaches game -1's hash, not game 0's.
        let link = link_to_published(variant, variant.salt(), 1..5, &game_minus_1, &never, &|_| {}).unwrap();
        assert!(link.is_broken(), "{link:?}");
        // Another salt has no published game.
        let link = link_to_published(variant, "another salt", 1..5, &game_0, &never, &|_| {}).unwrap();
        assert_eq!(link, ChainLink::Unanchored);
        // bustabit v1: games from 1,000,000, whose game 999,999 is the published hash.
        let variant = CrashVariant::BustabitV1;
        let published = variant.published_game(variant.salt()).unwrap();
        let link =
            link_to_published(variant, variant.salt(), 1_000_000..1_000_010, published.hash, &never, &|_| {})
                .unwrap();
        assert_eq!(link, ChainLink::Linked { game: 999_999, hash: published.hash, steps: 0 });
        let stopped = AtomicBool::new(true);
        assert_eq!(
            link_to_published(variant, variant.salt(), 1_000_002..1_000_010, TOP, &stopped, &|_| {}),
            None
        );
    }
}
