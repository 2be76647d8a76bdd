//! Merging the shards of one sweep ([`crate::tally::shards`]): every input must be a shard
//! of the same cut of the same plan; together they must cover the whole range, each shard
//! once and complete. What is missing or interrupted is named by index and range; a merge
//! of the complete shards alone is made only when asked for, and then says so in its tally
//! file ([`PartialOf`]).

use super::{merge, MergeError};
use crate::tally::file::TallyFile;
use crate::tally::shards::{PartialOf, ShardOf, Sharding};
use std::fmt;

/// One input of a shard merge: the tally file and where it came from (for messages).
pub struct ShardInput {
    /// Where the file came from (a folder), as the user should read it.
    pub label: String,
    /// The tallies.
    pub tallies: TallyFile,
}

/// What a merge found for one shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardState {
    /// Complete: it is merged.
    Complete,
    /// Interrupted (killed or stopped before its end): `tallied` of `planned` rounds.
    Interrupted {
        /// Rounds tallied so far, over every game and seed pair.
        tallied: u64,
        /// Rounds the shard sweeps when complete.
        planned: u64,
    },
    /// No input is this shard.
    Missing,
}

/// Which shards of a cut a merge found, and in what state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// The cut.
    pub sharding: Sharding,
    /// One state per shard, by index.
    pub states: Vec<ShardState>,
}

impl Coverage {
    /// Whether every shard is complete.
    pub fn is_complete(&self) -> bool {
        self.states.iter().all(|s| *s == ShardState::Complete)
    }

    /// The complete shards, ascending.
    pub fn complete(&self) -> Vec<u32> {
        self.indices(|s| s == ShardState::Complete)
    }

    /// The shards not complete (missing or interrupted), ascending.
    pub fn lacking(&self) -> Vec<u32> {
        self.indices(|s| s != ShardState::Complete)
    }

    fn indices(&self, keep: impl Fn(ShardState) -> bool) -> Vec<u32> {
        (0..self.sharding.count).filter(|&i| keep(self.states[i as usize])).collect()
    }

    /// The shards not complete, in one line: runs of consecutive shards in the same state
    /// are grouped (`shards 3-5 (nonces 300..600) missing`), so every one is named by
    /// index and range however many there are.
    pub fn gaps(&self) -> String {
        let mut parts = Vec::new();
        let mut i = 0usize;
        while i < self.states.len() {
            let state = self.states[i];
            if state == ShardState::Complete {
                i += 1;
                continue;
            }
            let mut j = i;
            while matches!(state, ShardState::Missing) && self.states.get(j + 1) == Some(&ShardState::Missing)
            {
                j += 1;
            }
            let (first, last) = (self.sharding.range(i as u32), self.sharding.range(j as u32));
            let which = if i == j { format!("shard {i}") } else { format!("shards {i}-{j}") };
            let what = match state {
                ShardState::Missing => "missing".to_owned(),
                ShardState::Interrupted { tallied, planned } => {
                    format!("interrupted ({tallied} of {planned} rounds tallied)")
                }
                ShardState::Complete => unreachable!(),
            };
            parts.push(format!("{which} (nonces {}..{}) {what}", first.start, last.end));
            i = j + 1;
        }
        parts.join(", ")
    }
}

/// Why shards cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum ShardMergeError {
    /// An input is not a shard (or is a partial merge) while others are.
    #[error("{0} is not a shard of a sweep cut with --shards; merge shards with shards, or plain sweeps with plain sweeps")]
    NotAShard(String),
    /// An input is a partial merge.
    #[error("{0} is a PARTIAL merge; merge the shard folders themselves instead")]
    Partial(String),
    /// Two inputs belong to different cuts.
    #[error("{0} and {1} are shards of different sweeps (another range or shard count)")]
    OtherCut(String, String),
    /// Two inputs are the same shard.
    #[error("{0} and {1} are both shard {2}")]
    Duplicate(String, String, u32),
    /// Some shards are missing or interrupted.
    #[error("{} of {} shards are missing or interrupted: {}; sweep them (the same command continues an interrupted shard), or pass --allow-partial to merge the complete ones", .0.lacking().len(), .0.sharding.count, .0.gaps())]
    Incomplete(Coverage),
    /// No shard is complete.
    #[error("no shard is complete, nothing to merge: {}", .0.gaps())]
    NothingComplete(Coverage),
    /// The complete shards cannot be merged (other games or seed pairs).
    #[error("{label}: {error}")]
    Merge {
        /// The input that does not fit.
        label: String,
        /// Why.
        error: MergeError,
    },
}

/// A merge of shards: the merged tallies and what was found.
pub struct ShardMerge {
    /// The merged tallies: with every shard, exactly those of one unsharded sweep of the
    /// whole range; with some, a file marked [`PartialOf`].
    pub tallies: TallyFile,
    /// Which shards were found, in what state.
    pub coverage: Coverage,
}

impl fmt::Debug for ShardMerge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShardMerge").field("coverage", &self.coverage).finish_non_exhaustive()
    }
}

/// Merges the shards of one cut, in any order. With every shard complete the result is
/// identical to one sweep of the whole range; otherwise it is refused
/// ([`ShardMergeError::Incomplete`]) unless `allow_partial`, when the complete shards are
/// merged into a file that records the missing ones.
pub fn merge_shards(inputs: Vec<ShardInput>, allow_partial: bool) -> Result<ShardMerge, ShardMergeError> {
    let mut found: Vec<(ShardOf, ShardInput)> = Vec::new();
    for input in inputs {
        if input.tallies.partial.is_some() {
            return Err(ShardMergeError::Partial(input.label));
        }
        let Some(shard) = input.tallies.shard else {
            return Err(ShardMergeError::NotAShard(input.label));
        };
        if let Some((first, first_input)) = found.first() {
            if first.sharding() != shard.sharding() {
                return Err(ShardMergeError::OtherCut(first_input.label.clone(), input.label));
            }
        }
        if let Some((_, twin)) = found.iter().find(|(s, _)| s.index == shard.index) {
            return Err(ShardMergeError::Duplicate(twin.label.clone(), input.label, shard.index));
        }
        found.push((shard, input));
    }
    let Some((first, _)) = found.first() else {
        return Err(ShardMergeError::Merge { label: String::new(), error: MergeError::Empty });
    };
    let sharding = first.sharding();
    found.sort_by_key(|(shard, _)| shard.index);
    let mut states = vec![ShardState::Missing; sharding.count as usize];
    for (shard, input) in &found {
        let planned = input.tallies.plan.rounds_per_sequence()
            * (input.tallies.plan.games.len() * input.tallies.plan.seed_pairs.len()) as u64;
        states[shard.index as usize] = if input.tallies.complete {
            ShardState::Complete
        } else {
            ShardState::Interrupted { tallied: input.tallies.rounds(), planned }
        };
    }
    let coverage = Coverage { sharding, states };
    if coverage.complete().is_empty() {
        return Err(ShardMergeError::NothingComplete(coverage));
    }
    if !coverage.is_complete() && !allow_partial {
        return Err(ShardMergeError::Incomplete(coverage));
    }
    let (labels, files): (Vec<String>, Vec<TallyFile>) = found
        .into_iter()
        .filter(|(_, input)| input.tallies.complete)
        .map(|(_, input)| {
            let mut tallies = input.tallies;
            tallies.shard = None;
            (input.label, tallies)
        })
        .unzip();
    let mut tallies = merge(files).map_err(|error| {
        let label = match &error {
            MergeError::Games(i, ..) | MergeError::SeedPairs(i) | MergeError::Incomplete(i) => {
                labels[i - 1].clone()
            }
            _ => labels.join(", "),
        };
        ShardMergeError::Merge { label, error }
    })?;
    debug_assert_eq!(tallies.plan.nonces, sharding.covered(&coverage.complete()));
    if !coverage.is_complete() {
        tallies.partial =
            Some(PartialOf { count: sharding.count, nonces: sharding.nonces, missing: coverage.lacking() });
    }
    Ok(ShardMerge { tallies, coverage })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tally::file::NonceRange;

    fn coverage(states: Vec<ShardState>) -> Coverage {
        let count = states.len() as u32;
        Coverage { sharding: Sharding::new(NonceRange { start: 0, end: 100 }, count).unwrap(), states }
    }

    #[test]
    fn gaps_name_every_shard_not_complete_grouping_runs_of_missing_ones() {
        use ShardState::*;
        let c = coverage(vec![
            Complete,
            Missing,
            Missing,
            Missing,
            Complete,
            Interrupted { tallied: 5, planned: 10 },
            Interrupted { tallied: 0, planned: 10 },
            Complete,
            Complete,
            Missing,
        ]);
        assert_eq!(
            c.gaps(),
            "shards 1-3 (nonces 10..40) missing, shard 5 (nonces 50..60) interrupted (5 of 10 rounds tallied), \
             shard 6 (nonces 60..70) interrupted (0 of 10 rounds tallied), shard 9 (nonces 90..100) missing"
        );
        assert_eq!(c.lacking(), vec![1, 2, 3, 5, 6, 9]);
        assert_eq!(c.complete(), vec![0, 4, 7, 8]);
        assert!(!c.is_complete());
    }
}
