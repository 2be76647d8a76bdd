//! Merging the shards of one sweep of the HMAC-SHA256 family: every input must be a shard
//! of the same cut of the same sweep (game, parameters, seed pairs), each once, and
//! together complete; what is missing or interrupted is named by index and range
//! ([`Coverage`]). The merged file is the one an unsharded sweep of the whole range
//! writes, byte for byte: a shard counts the pairs of rounds whose first round it holds,
//! so none is lost or doubled at a cut.

use super::shards::{Coverage, ShardState};
use crate::tally::stake::StakeTally;
use crate::tally::stake_file::StakeTallyFile;

/// One input of a merge: a shard's tally file and where it came from (for messages).
pub struct StakeShard {
    /// Where the file came from (a folder), as the user should read it.
    pub label: String,
    /// The tallies.
    pub file: StakeTallyFile,
}

/// Why the shards of a sweep of the family cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum StakeMergeError {
    /// An input is not a shard.
    #[error("{0} is not a shard of a sweep cut with --shards: a merge of scheme stake joins the shard folders of one sweep")]
    NotAShard(String),
    /// Two inputs are shards of different sweeps.
    #[error("{0} and {1} are shards of different sweeps (another game, parameters, seed pairs, range or shard count)")]
    OtherSweep(String, String),
    /// Two inputs are the same shard.
    #[error("{0} and {1} are both shard {2}")]
    Duplicate(String, String, u32),
    /// No input at all.
    #[error("no shard to merge")]
    Empty,
    /// Some shards are missing or interrupted.
    #[error("{} of {} shards are missing or interrupted: {}; sweep them (the same command continues an interrupted shard)", .0.lacking().len(), .0.sharding.count, .0.gaps())]
    Incomplete(Coverage),
}

/// Merges the shards of one sweep, in any order, into the tally file of one sweep of the
/// whole range; with a shard missing or interrupted it is refused, naming them all.
pub fn merge_stake_shards(inputs: Vec<StakeShard>) -> Result<(StakeTallyFile, Coverage), StakeMergeError> {
    let mut found: Vec<StakeShard> = Vec::new();
    for input in inputs {
        let Some(shard) = input.file.shard else {
            return Err(StakeMergeError::NotAShard(input.label));
        };
        if let Some(first) = found.first() {
            let cut = |f: &StakeTallyFile| f.shard.map(|s| s.sharding());
            let mut whole = input.file.clone();
            whole.nonces = first.file.nonces;
            whole.shard = first.file.shard;
            if cut(&first.file) != cut(&input.file) || !first.file.same_sweep(&whole) {
                return Err(StakeMergeError::OtherSweep(first.label.clone(), input.label));
            }
        }
        if let Some(twin) = found.iter().find(|f| f.file.shard.is_some_and(|s| s.index == shard.index)) {
            return Err(StakeMergeError::Duplicate(twin.label.clone(), input.label, shard.index));
        }
        found.push(input);
    }
    let Some(first) = found.first() else { return Err(StakeMergeError::Empty) };
    let sharding = first.file.shard.expect("every input is a shard").sharding();
    let mut states = vec![ShardState::Missing; sharding.count as usize];
    for input in &found {
        let index = input.file.shard.expect("every input is a shard").index as usize;
        states[index] = if input.file.complete {
            ShardState::Complete
        } else {
            ShardState::Interrupted { tallied: input.file.rounds(), planned: input.file.planned_rounds() }
        };
    }
    let coverage = Coverage { sharding, states };
    if !coverage.is_complete() {
        return Err(StakeMergeError::Incomplete(coverage));
    }
    let mut merged = first.file.clone();
    merged.nonces = sharding.nonces;
    merged.shard = None;
    let game = first.file.stake_game();
    for (i, pair) in merged.seed_pairs.iter_mut().enumerate() {
        pair.swept = vec![sharding.nonces];
        pair.tally = StakeTally::sum(&game, found.iter().map(|input| &input.file.seed_pairs[i].tally));
    }
    Ok((merged, coverage))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::stake::{SeedPair, StakeGame};
    use crate::sweep::stake::sweep_ranges;
    use crate::tally::file::NonceRange;
    use crate::tally::shards::{ShardOf, Sharding};
    use std::sync::atomic::AtomicBool;

    const SEEDS: [(&str, &str); 2] = [("merge server", "merge client"), ("second server", "second client")];

    fn swept(game: &StakeGame, nonces: NonceRange, shard: Option<ShardOf>) -> StakeTallyFile {
        let seeds: Vec<(String, String)> =
            SEEDS.iter().map(|(s, c)| (s.to_string(), c.to_string())).collect();
        let mut file = StakeTallyFile::new(game, nonces, &seeds, shard);
        let never = AtomicBool::new(false);
        for (i, (server, client)) in SEEDS.iter().enumerate() {
            let todo = file.todo(i);
            let end = file.sweep_end();
            file.record(
                i,
                sweep_ranges(game, &SeedPair::new(server, client), &todo, end, 37, &never, &|_| ()),
            );
        }
        file
    }

    fn shards(game: &StakeGame, whole: NonceRange, count: u32) -> Vec<StakeShard> {
        let sharding = Sharding::new(whole, count).unwrap();
        (0..count)
            .map(|index| StakeShard {
                label: format!("shard {index}"),
                file: swept(game, sharding.range(index), Some(ShardOf { index, count, nonces: whole })),
            })
            .collect()
    }

    #[test]
    fn shards_cut_at_odd_and_even_nonces_merge_to_the_unsharded_file() {
        for game in [StakeGame::Dice, StakeGame::Keno, StakeGame::Mines { mines: 2 }] {
            for (whole, count) in [((3..1_004).into(), 7), ((0..1_000).into(), 3), ((0..5).into(), 5)] {
                let mut inputs = shards(&game, whole, count);
                inputs.reverse();
                let (merged, coverage) = merge_stake_shards(inputs).unwrap();
                assert!(coverage.is_complete());
                assert_eq!(
                    merged.to_bytes(),
                    swept(&game, whole, None).to_bytes(),
                    "{game:?} {whole:?} / {count}"
                );
            }
        }
    }

    #[test]
    fn missing_interrupted_duplicate_and_foreign_shards_are_named() {
        let whole = NonceRange { start: 0, end: 900 };
        let mut inputs = shards(&StakeGame::Dice, whole, 9);
        inputs.remove(4);
        inputs[6].file.seed_pairs[1].swept.clear();
        inputs[6].file.seed_pairs[1].tally = crate::tally::stake::StakeTally::empty(&StakeGame::Dice);
        inputs[6].file.complete = false;
        let error = merge_stake_shards(inputs).unwrap_err().to_string();
        assert!(error.starts_with("2 of 9 shards are missing or interrupted"), "{error}");
        assert!(error.contains("shard 4 (nonces 400..500) missing"), "{error}");
        assert!(
            error.contains("shard 7 (nonces 700..800) interrupted (100 of 200 rounds tallied)"),
            "{error}"
        );

        let mut inputs = shards(&StakeGame::Dice, whole, 3);
        inputs.push(shards(&StakeGame::Dice, whole, 3).remove(1));
        assert!(matches!(merge_stake_shards(inputs), Err(StakeMergeError::Duplicate(_, _, 1))));

        let mut inputs = shards(&StakeGame::Dice, whole, 3);
        inputs[2] = shards(&StakeGame::Roulette, whole, 3).remove(2);
        assert!(matches!(merge_stake_shards(inputs), Err(StakeMergeError::OtherSweep(..))));

        let mut inputs = shards(&StakeGame::Dice, whole, 3);
        inputs[1] = shards(&StakeGame::Dice, whole, 4).remove(1);
        assert!(matches!(merge_stake_shards(inputs), Err(StakeMergeError::OtherSweep(..))));

        assert!(matches!(merge_stake_shards(Vec::new()), Err(StakeMergeError::Empty)));
        let plain = StakeShard { label: "plain".into(), file: swept(&StakeGame::Dice, whole, None) };
        assert!(matches!(merge_stake_shards(vec![plain]), Err(StakeMergeError::NotAShard(_))));
    }
}
