//! The parallel sweep of one nonce range of one game and seed pair.
//!
//! The range is cut into chunks of consecutive nonces; rayon tallies chunks on every
//! thread and combines neighbouring results in order (rayon's `reduce` on an indexed
//! iterator is ordered), joining adjacent segments exactly. Each chunk allocates its
//! tally and its batch hasher once; a round allocates nothing. Progress is reported once
//! per chunk.
//!
//! Within a chunk, rounds are hashed [`ROUNDS_PER_BATCH`] consecutive nonces at a time
//! ([`BatchHasher`], with the chosen [`Kernel`]), then drawn and tallied one by one from
//! the batch, in nonce order, exactly as if hashed one at a time.

use crate::chain::{BatchHasher, Kernel, RoundBatch, RoundHasher, WordSource, ROUNDS_PER_BATCH};
use crate::games::Game;
use crate::simd::CompiledForPath;
use crate::tally::{Segment, Segments, SequenceTally};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Default nonces per chunk: large enough that per-chunk costs vanish, small enough that
/// an interruption is honoured within a fraction of a second.
pub const DEFAULT_CHUNK: u64 = 1 << 16;

/// Tallies the rounds `range` of `game` for the seed pair behind `hasher`, hashed with
/// `kernel`, on the current rayon pool. Stops starting new chunks once `stop` is set: the result then covers only
/// the chunks that were tallied (several segments, possibly). Calls `progress(rounds)`
/// after each chunk.
pub fn sweep_range<T: SequenceTally>(
    game: T::Game,
    hasher: &RoundHasher,
    kernel: Kernel,
    range: Range<u64>,
    chunk: u64,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Segments<T> {
    assert!(chunk > 0, "chunk size must be positive");
    let len = range.end.saturating_sub(range.start);
    let chunks = usize::try_from(len.div_ceil(chunk)).expect("chunk count fits in usize");
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            if stop.load(Ordering::Relaxed) {
                return Segments::default();
            }
            let start = range.start + c as u64 * chunk;
            let end = start.saturating_add(chunk).min(range.end);
            let tally = tally_rounds::<T>(game, hasher, kernel, start..end);
            progress(end - start);
            Segments(vec![Segment { start, end, tally }])
        })
        .reduce(Segments::default, |mut earlier, later| {
            earlier.extend_after(later);
            earlier
        })
}

/// Tallies `nonces` sequentially, hashed in batches with `kernel`: the per-thread inner
/// loop, and the single-thread reference that tests compare the parallel sweep with.
pub fn tally_rounds<T: SequenceTally>(
    game: T::Game,
    hasher: &RoundHasher,
    kernel: Kernel,
    nonces: Range<u64>,
) -> T {
    kernel.run_compiled_for_path(TallyBatches::<T> { game, hasher, kernel, nonces })
}

/// The body of [`tally_rounds`], run compiled for the kernel's path.
struct TallyBatches<'a, T: SequenceTally> {
    game: T::Game,
    hasher: &'a RoundHasher,
    kernel: Kernel,
    nonces: Range<u64>,
}

impl<T: SequenceTally> CompiledForPath for TallyBatches<'_, T> {
    type Output = T;

    #[inline(always)]
    fn run(self) -> T {
        let mut tally = T::new(self.game);
        let mut batcher = BatchHasher::new(self.hasher, self.kernel);
        let mut batch = RoundBatch::default();
        let mut drawn = Default::default();
        let mut pending = T::Pending::default();
        let mut start = self.nonces.start;
        while start < self.nonces.end {
            let end = start.saturating_add(ROUNDS_PER_BATCH as u64).min(self.nonces.end);
            batcher.hash(start..end, &mut batch);
            tally.record_batch(self.game, &batch, &mut drawn, &mut pending);
            start = end;
        }
        tally.count_pending(&mut pending);
        tally
    }
}

/// Tallies `rounds` consecutive rounds drawn from one continuous word source. The same
/// draw and tally code as the sweep, in the same batches, driven by any generator: the
/// calibration and mutant tests feed it an independent generator and deliberately broken
/// ones.
pub fn tally_words<T: SequenceTally, W: WordSource + ?Sized>(game: T::Game, words: &mut W, rounds: u64) -> T {
    let mut tally = T::new(game);
    let mut pending = T::Pending::default();
    let mut batch = vec![<T::Game as Game>::Outcome::default(); ROUNDS_PER_BATCH];
    let mut left = rounds;
    while left > 0 {
        let len = left.min(ROUNDS_PER_BATCH as u64) as usize;
        for round in &mut batch[..len] {
            game.draw(words, round);
        }
        tally.record_drawn(&T::Game::drawn_from(&batch[..len]), &mut pending);
        left -= len as u64;
    }
    tally.count_pending(&mut pending);
    tally
}
