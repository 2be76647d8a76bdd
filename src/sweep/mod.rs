//! The sweep: every game of a plan, for every seed pair, over the plan's nonce ranges,
//! tallied in parallel, resumable after an interruption, checkpointed as it goes
//! ([`checkpoint`]), mergeable across shards ([`shards`]).

pub mod checkpoint;
pub mod crash;
pub mod device;
pub mod runner;
pub mod shards;
pub mod stake;
pub mod stake_merge;

use crate::chain::seeds::SeedPair;
use crate::chain::{Kernel, RoundHasher};
use crate::device::{Accelerator, DeviceError};
use crate::games::{GameId, Keno, Roulette};
use crate::tally::file::{Entry, NonceRange, Plan, TallyFile};
use crate::tally::{Segments, SequenceTally, TallyError};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

pub use checkpoint::{run_with_checkpoints, CheckpointError};
pub use runner::{sweep_range, tally_rounds, tally_words, DEFAULT_CHUNK};

/// How a sweep runs (none of this changes its results).
pub struct SweepControl<'a> {
    /// Nonces per chunk.
    pub chunk: u64,
    /// Set to stop starting new chunks (Ctrl-C): the result is then incomplete.
    pub stop: &'a AtomicBool,
    /// Called with the number of rounds after each chunk.
    pub progress: &'a (dyn Fn(u64) + Sync),
    /// The Keccak path that hashes the rounds.
    pub kernel: Kernel,
    /// The device that sweeps, if not the CPU ([`device`]).
    pub device: Option<&'a dyn Accelerator>,
}

/// Why a sweep stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The tallies could not be joined (a prior file for another plan).
    #[error(transparent)]
    Tally(#[from] TallyError),
    /// The device failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
}

pub use crate::tally::file::missing_ranges;

/// Rounds the plan still needs, given what `prior` already holds.
pub fn rounds_remaining(plan: &Plan, prior: Option<&TallyFile>) -> u64 {
    let mut remaining = 0;
    for pair in 0..plan.seed_pairs.len() {
        for &game in &plan.games {
            let covered = find_entry(prior, game, pair).map(Entry::ranges).unwrap_or_default();
            remaining += missing_ranges(&plan.nonces, &covered).iter().map(|r| r.end - r.start).sum::<u64>();
        }
    }
    remaining
}

fn find_entry(file: Option<&TallyFile>, game: GameId, pair: usize) -> Option<&Entry> {
    file?.entries.iter().find(|e| e.game() == game && e.seed_pair() == pair)
}

/// Runs (or continues, from `prior`) the sweep of `plan` on the current rayon pool.
///
/// `prior` must have been made for the same plan (the caller checks). The result is
/// complete unless `control.stop` was set, in which case it holds everything tallied so
/// far and can be resumed.
pub fn run(
    plan: &Plan,
    prior: Option<TallyFile>,
    control: &SweepControl<'_>,
) -> Result<TallyFile, SweepError> {
    let mut entries = Vec::new();
    for (pair_index, pair) in plan.seed_pairs.iter().enumerate() {
        let hasher = RoundHasher::new(&pair.server_seed, &pair.client_seed);
        for &game in &plan.games {
            let mut entry = find_entry(prior.as_ref(), game, pair_index)
                .cloned()
                .unwrap_or_else(|| Entry::empty(game, pair_index));
            for range in missing_ranges(&plan.nonces, &entry.ranges()) {
                if control.stop.load(Ordering::Relaxed) {
                    break;
                }
                let swept = sweep_entry_range(game, (pair_index, pair), &hasher, range, control)?;
                entry = entry.merge(swept)?;
            }
            entries.push(entry);
        }
    }
    let complete = entries.iter().all(|e| missing_ranges(&plan.nonces, &e.ranges()).is_empty());
    Ok(TallyFile::new(plan.clone(), complete, entries))
}

fn sweep_entry_range(
    game: GameId,
    (seed_pair, seeds): (usize, &SeedPair),
    hasher: &RoundHasher,
    range: Range<u64>,
    control: &SweepControl<'_>,
) -> Result<Entry, DeviceError> {
    fn go<T: SequenceTally>(
        game: T::Game,
        hasher: &RoundHasher,
        range: Range<u64>,
        c: &SweepControl<'_>,
    ) -> Segments<T> {
        sweep_range(game, hasher, c.kernel, range, c.chunk, c.stop, c.progress)
    }
    Ok(match game {
        GameId::Keno => {
            let segments = match control.device {
                Some(device) => {
                    device::sweep_keno(device, seeds, range, control.kernel, control.stop, control.progress)?
                }
                None => go(Keno, hasher, range, control),
            };
            Entry::Keno { seed_pair, segments }
        }
        GameId::RouletteEuropean | GameId::RouletteAmerican => {
            let wheel =
                if game == GameId::RouletteEuropean { Roulette::EUROPEAN } else { Roulette::AMERICAN };
            let segments = match control.device {
                Some(device) => {
                    device::sweep_roulette(device, wheel, seeds, range, control.stop, control.progress)?
                }
                None => go(wheel, hasher, range, control),
            };
            match game {
                GameId::RouletteEuropean => Entry::RouletteEuropean { seed_pair, segments },
                _ => Entry::RouletteAmerican { seed_pair, segments },
            }
        }
    })
}

/// Why tally files cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("nothing to merge")]
    Empty,
    /// An input (1-based) is an interrupted sweep.
    #[error("input {0} is an interrupted sweep")]
    Incomplete(usize),
    /// Inputs disagree on the games.
    #[error("input {0} sweeps different games ({1}) from input 1 ({2})")]
    Games(usize, String, String),
    /// Inputs disagree on the seed pairs.
    #[error("input {0} uses different seed pairs from input 1")]
    SeedPairs(usize),
    /// Overlapping ranges.
    #[error(transparent)]
    Tally(#[from] TallyError),
}

/// Merges complete tally files of the same games and seed pairs over disjoint nonce
/// ranges. The result is identical to one sweep over the union of the ranges.
pub fn merge(files: Vec<TallyFile>) -> Result<TallyFile, MergeError> {
    let mut files = files.into_iter().enumerate();
    let (_, first) = files.next().ok_or(MergeError::Empty)?;
    if !first.complete {
        return Err(MergeError::Incomplete(1));
    }
    let names = |games: &[GameId]| games.iter().map(|g| g.name()).collect::<Vec<_>>().join(", ");
    let mut merged = first;
    for (i, file) in files {
        let number = i + 1;
        if !file.complete {
            return Err(MergeError::Incomplete(number));
        }
        if file.plan.games != merged.plan.games {
            return Err(MergeError::Games(number, names(&file.plan.games), names(&merged.plan.games)));
        }
        if file.plan.seed_pairs != merged.plan.seed_pairs || file.plan.seed_source != merged.plan.seed_source
        {
            return Err(MergeError::SeedPairs(number));
        }
        let mut ranges: Vec<NonceRange> =
            merged.plan.nonces.iter().chain(&file.plan.nonces).copied().collect();
        ranges.sort();
        for pair in ranges.windows(2) {
            if pair[1].start < pair[0].end {
                return Err(
                    TallyError::Overlap(pair[0].start, pair[0].end, pair[1].start, pair[1].end).into()
                );
            }
        }
        merged.plan.nonces = join_adjacent(ranges);
        let mut others = file.entries.into_iter();
        merged.entries = std::mem::take(&mut merged.entries)
            .into_iter()
            .map(|entry| {
                let other = others.next().expect("same games and seed pairs give the same entries");
                entry.merge(other)
            })
            .collect::<Result<_, _>>()?;
    }
    Ok(merged)
}

fn join_adjacent(ranges: Vec<NonceRange>) -> Vec<NonceRange> {
    let mut joined: Vec<NonceRange> = Vec::new();
    for range in ranges {
        match joined.last_mut() {
            Some(last) if last.end == range.start => last.end = range.end,
            _ => joined.push(range),
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_ranges_subtracts_coverage() {
        let wanted = [NonceRange { start: 0, end: 100 }];
        assert_eq!(missing_ranges(&wanted, &[]), vec![0..100]);
        assert_eq!(missing_ranges(&wanted, &[10..20, 50..100]), vec![0..10, 20..50]);
        let everything: Vec<Range<u64>> = std::iter::once(0..100).collect();
        assert_eq!(missing_ranges(&wanted, &everything), Vec::<Range<u64>>::new());
    }
}
