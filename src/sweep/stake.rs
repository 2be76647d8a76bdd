//! The sweep of a game of the HMAC-SHA256 family ([`crate::scheme::stake`]): the nonces of
//! one seed pair in chunks on every core, each chunk counted into a [`StakeTally`] and the
//! chunks' tallies added. A chunk counts the pairs of rounds whose first round it holds
//! ([`Counter::count`]), so the sum does not depend on the threads, the chunk size, or
//! which chunks an interrupted sweep had done before it was continued.

use crate::scheme::keyed::KeyedPair;
use crate::scheme::stake::StakeGame;
use crate::tally::stake::{Counter, StakeTally, Swept};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Counts the rounds of the nonces in `todo` (ascending, disjoint) of a sweep that ends at
/// `end`, chunk by chunk on the current rayon pool; `progress` is called with the rounds
/// of each chunk. When `stop` is raised, the chunks in flight finish and the others are
/// left: the result says which nonces it covers.
pub fn sweep_ranges(
    game: &StakeGame,
    pair: &KeyedPair,
    todo: &[Range<u64>],
    end: u64,
    chunk: u64,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Swept {
    // Small enough that chunk boundaries below 2^64 never overflow.
    let chunk = chunk.clamp(1, 1 << 40);
    // The chunks of each range, numbered on from the ranges before it; a chunk is found
    // from its number rather than listed, so memory does not grow with the range.
    let mut first_chunks = Vec::with_capacity(todo.len());
    let mut chunks = 0u64;
    for range in todo {
        first_chunks.push(chunks);
        chunks += range.end.div_ceil(chunk) - range.start / chunk;
    }
    let nth = |n: u64| {
        let which = first_chunks.partition_point(|&first| first <= n) - 1;
        let range = &todo[which];
        let i = range.start / chunk + (n - first_chunks[which]);
        (i * chunk).max(range.start)..(i + 1).saturating_mul(chunk).min(range.end)
    };
    let counter = Counter::new(game);
    let nothing = || Swept { tally: StakeTally::empty(game), nonces: Vec::new() };
    (0..chunks)
        .into_par_iter()
        .map(nth)
        .map(|nonces| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let tally = counter.count(pair, nonces.clone(), end);
            progress(nonces.end - nonces.start);
            Some(Swept { tally, nonces: vec![nonces] })
        })
        // A stop ends the walk over the chunks (however many are left) once those in
        // flight are done; what they counted is kept.
        .while_some()
        .reduce(nothing, Swept::join)
}

/// Counts the rounds of nonces `nonces` of `game` into a tally, chunk by chunk on the
/// current rayon pool; `progress` is called with the rounds of each chunk. `None` when
/// `stop` was set before the end.
pub fn sweep(
    game: &StakeGame,
    pair: &KeyedPair,
    nonces: Range<u64>,
    chunk: u64,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Option<StakeTally> {
    let swept = sweep_ranges(game, pair, std::slice::from_ref(&nonces), nonces.end, chunk, stop, progress);
    let whole = nonces.is_empty() || swept.nonces == [nonces];
    whole.then_some(swept.tally)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::keyed::KeyedScheme;

    fn stake_pair(server: &str, client: &str) -> KeyedPair {
        KeyedScheme::Stake.pair(server, client).unwrap()
    }
    use crate::scheme::stake::{LimboFormula, Risk};
    use crate::tally::stake::tally_by_replay;

    #[test]
    fn the_sweep_counts_what_the_games_play_whatever_the_chunks_and_threads() {
        let pair = stake_pair("tally server", "tally client");
        let stop = AtomicBool::new(false);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        for game in [
            StakeGame::Dice,
            StakeGame::Keno,
            StakeGame::Limbo(LimboFormula::Fair),
            StakeGame::Plinko { rows: 8, risk: Risk::Expert },
            StakeGame::Mines { mines: 3 },
        ] {
            for nonces in [0..1_001, 7..500] {
                let replayed = tally_by_replay(&game, &pair, nonces.clone());
                for chunk in [1, 64, 10_000] {
                    let swept = pool.install(|| sweep(&game, &pair, nonces.clone(), chunk, &stop, &|_| ()));
                    assert_eq!(swept.as_ref(), Some(&replayed), "{game:?} {nonces:?} chunk {chunk}");
                }
            }
        }
    }

    #[test]
    fn pairs_are_even_nonces_with_the_next_inside_the_range() {
        let pair = stake_pair("s", "c");
        let stop = AtomicBool::new(false);
        // 3..10: pairs (4,5), (6,7), (8,9); 3 alone.
        let tally = sweep(&StakeGame::Dice, &pair, 3..10, 4, &stop, &|_| ()).unwrap();
        assert_eq!(tally.rounds, 7);
        assert_eq!(tally.pairs.iter().sum::<u64>(), 3);
        let tally = sweep(&StakeGame::Dice, &pair, 3..9, 4, &stop, &|_| ()).unwrap();
        assert_eq!(tally.pairs.iter().sum::<u64>(), 2);
    }

    #[test]
    fn the_last_nonces_below_2_to_the_64_are_swept_with_any_chunk() {
        let pair = stake_pair("s", "c");
        let stop = AtomicBool::new(false);
        let nonces = u64::MAX - 1_001..u64::MAX;
        let replayed = tally_by_replay(&StakeGame::Dice, &pair, nonces.clone());
        for chunk in [2, 999, u64::MAX] {
            let swept = sweep(&StakeGame::Dice, &pair, nonces.clone(), chunk, &stop, &|_| ());
            assert_eq!(swept.as_ref(), Some(&replayed), "chunk {chunk}");
        }
    }

    #[test]
    fn a_stopped_sweep_says_what_it_covers_and_the_rest_completes_it() {
        let pair = stake_pair("s", "c");
        let game = StakeGame::Mines { mines: 3 };
        let never = AtomicBool::new(false);
        let whole = sweep(&game, &pair, 5..4_000, 100, &never, &|_| ()).unwrap();
        let stop = AtomicBool::new(false);
        let chunks = std::sync::atomic::AtomicU64::new(0);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let part = pool.install(|| {
            sweep_ranges(&game, &pair, std::slice::from_ref(&(5..4_000)), 4_000, 100, &stop, &|_| {
                if chunks.fetch_add(1, Ordering::SeqCst) == 9 {
                    stop.store(true, Ordering::SeqCst);
                }
            })
        });
        let covered: u64 = part.nonces.iter().map(|r| r.end - r.start).sum();
        assert_eq!(part.tally.rounds, covered);
        assert!(covered > 0 && covered < 3_995, "{:?}", part.nonces);
        let todo = crate::tally::file::missing_ranges(&[(5..4_000).into()], &part.nonces);
        let rest = sweep_ranges(&game, &pair, &todo, 4_000, 333, &never, &|_| ());
        let mut tally = part.tally;
        tally.add(&rest.tally);
        assert_eq!(tally, whole);
    }

    #[test]
    fn a_stopped_sweep_has_no_tally() {
        let stop = AtomicBool::new(true);
        assert_eq!(sweep(&StakeGame::Dice, &stake_pair("s", "c"), 0..100, 10, &stop, &|_| ()), None);
    }
}
