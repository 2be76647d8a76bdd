//! The sweep of a game of the HMAC-SHA256 family ([`crate::scheme::stake`]): the nonces of
//! one seed pair in chunks on every core, each chunk counted into a
//! [`StakeTally`] and the chunks' tallies added. Chunks start at multiples of an even
//! chunk size, so no pair of rounds (`2k`, `2k + 1`) is split, and the sum does not depend
//! on the threads or the chunk size.

use crate::scheme::stake::{SeedPair, StakeGame};
use crate::tally::stake::{Counter, StakeTally};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Counts the rounds of nonces `nonces` of `game` into a tally, chunk by chunk on the
/// current rayon pool (`chunk` is rounded up to an even number); `progress` is called
/// with the rounds of each chunk. `None` when `stop` was set before the end.
pub fn sweep(
    game: &StakeGame,
    pair: &SeedPair,
    nonces: Range<u64>,
    chunk: u64,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Option<StakeTally> {
    // Even, and small enough that chunk boundaries below 2^64 never overflow.
    let chunk = chunk.clamp(2, 1 << 40).next_multiple_of(2);
    let first_chunk = nonces.start / chunk;
    let chunks = nonces.end.div_ceil(chunk) - first_chunk;
    let counter = Counter::new(game);
    let tally = (0..chunks)
        .into_par_iter()
        .map(|i| {
            let start = ((first_chunk + i) * chunk).max(nonces.start);
            let end = (first_chunk + i + 1).saturating_mul(chunk).min(nonces.end);
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let tally = counter.count(pair, start..end, nonces.end);
            progress(end - start);
            Some(tally)
        })
        .try_reduce(
            || StakeTally::empty(game),
            |mut a, b| {
                a.add(&b);
                Some(a)
            },
        );
    tally.filter(|_| !stop.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::stake::{LimboFormula, Risk};
    use crate::tally::stake::tally_by_replay;

    #[test]
    fn the_sweep_counts_what_the_games_play_whatever_the_chunks_and_threads() {
        let pair = SeedPair::new("tally server", "tally client");
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
        let pair = SeedPair::new("s", "c");
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
        let pair = SeedPair::new("s", "c");
        let stop = AtomicBool::new(false);
        let nonces = u64::MAX - 1_001..u64::MAX;
        let replayed = tally_by_replay(&StakeGame::Dice, &pair, nonces.clone());
        for chunk in [2, 999, u64::MAX] {
            let swept = sweep(&StakeGame::Dice, &pair, nonces.clone(), chunk, &stop, &|_| ());
            assert_eq!(swept.as_ref(), Some(&replayed), "chunk {chunk}");
        }
    }

    #[test]
    fn a_stopped_sweep_has_no_tally() {
        let stop = AtomicBool::new(true);
        assert_eq!(sweep(&StakeGame::Dice, &SeedPair::new("s", "c"), 0..100, 10, &stop, &|_| ()), None);
    }
}
