//! Merging the shards of one sweep of the HMAC-SHA256 family: every input must be a shard
//! of the same cut of the same sweep (game, parameters, seed pairs), each once, and
//! together complete; what is missing or interrupted is named by index and range
//! ([`Coverage`]), and merged only when asked (`--allow-partial`: the complete shards, in
//! a file that records the missing ones). A complete merge is the file an unsharded sweep
//! of the whole range writes, byte for byte: a shard counts the pairs of rounds whose
//! first round it holds, so none is lost or doubled at a cut.

use super::shards::{Coverage, ShardState};
use crate::tally::shards::PartialOf;
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
    #[error("{} of {} shards are missing or interrupted: {}; sweep them (the same command continues an interrupted shard), or pass --allow-partial to merge the complete ones", .0.lacking().len(), .0.sharding.count, .0.gaps())]
    Incomplete(Coverage),
    /// No shard is complete: not even a partial merge has anything to hold.
    #[error("no shard is complete: {}; sweep them (the same command continues an interrupted shard)", .0.gaps())]
    NothingComplete(Coverage),
    /// An input is a partial merge (merge the shard folders instead).
    #[error("{0} is a partial merge; merge the shard folders themselves")]
    Partial(String),
}

/// Merges the shards of one sweep, in any order, into the tally file of one sweep of the
/// whole range. With a shard missing or interrupted it is refused, naming them all, unless
/// `allow_partial`: then the complete shards are merged into a file that records the
/// missing ones ([`StakeTallyFile::partial`]).
pub fn merge_stake_shards(
    inputs: Vec<StakeShard>,
    allow_partial: bool,
) -> Result<(StakeTallyFile, Coverage), StakeMergeError> {
    let mut found: Vec<StakeShard> = Vec::new();
    for input in inputs {
        if input.file.partial.is_some() {
            return Err(StakeMergeError::Partial(input.label));
        }
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
    if coverage.complete().is_empty() {
        return Err(StakeMergeError::NothingComplete(coverage));
    }
    if !coverage.is_complete() && !allow_partial {
        return Err(StakeMergeError::Incomplete(coverage));
    }
    let held: Vec<&StakeShard> = found.iter().filter(|input| input.file.complete).collect();
    let mut merged = held[0].file.clone();
    merged.nonces = sharding.nonces;
    merged.shard = None;
    merged.complete = coverage.is_complete();
    merged.partial = (!coverage.is_complete()).then(|| PartialOf {
        count: sharding.count,
        nonces: sharding.nonces,
        missing: coverage.lacking(),
    });
    let swept = sharding.covered(&coverage.complete());
    let game = first.file.stake_game();
    for (i, pair) in merged.seed_pairs.iter_mut().enumerate() {
        pair.swept = swept.clone();
        pair.tally = StakeTally::sum(&game, held.iter().map(|input| &input.file.seed_pairs[i].tally));
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
    use crate::tally::stake::StakeTally;
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
                let (merged, coverage) = merge_stake_shards(inputs, false).unwrap();
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
        let error = merge_stake_shards(inputs, false).unwrap_err().to_string();
        assert!(error.starts_with("2 of 9 shards are missing or interrupted"), "{error}");
        assert!(error.contains("shard 4 (nonces 400..500) missing"), "{error}");
        assert!(
            error.contains("shard 7 (nonces 700..800) interrupted (100 of 200 rounds tallied)"),
            "{error}"
        );

        let mut inputs = shards(&StakeGame::Dice, whole, 3);
        inputs.push(shards(&StakeGame::Dice, whole, 3).remove(1));
        assert!(matches!(merge_stake_shards(inputs, false), Err(StakeMergeError::Duplicate(_, _, 1))));

        let mut inputs = shards(&StakeGame::Dice, whole, 3);
        inputs[2] = shards(&StakeGame::Roulette, whole, 3).remove(2);
        assert!(matches!(merge_stake_shards(inputs, false), Err(StakeMergeError::OtherSweep(..))));

        let mut inputs = shards(&StakeGame::Dice, whole, 3);
        inputs[1] = shards(&StakeGame::Dice, whole, 4).remove(1);
        assert!(matches!(merge_stake_shards(inputs, false), Err(StakeMergeError::OtherSweep(..))));

        assert!(matches!(merge_stake_shards(Vec::new(), false), Err(StakeMergeError::Empty)));
        let mut none = shards(&StakeGame::Dice, whole, 2);
        none.remove(0);
        none[0].file.seed_pairs[0].swept.clear();
        none[0].file.seed_pairs[0].tally = crate::tally::stake::StakeTally::empty(&StakeGame::Dice);
        none[0].file.complete = false;
        assert!(matches!(merge_stake_shards(none, true), Err(StakeMergeError::NothingComplete(_))));
        let plain = StakeShard { label: "plain".into(), file: swept(&StakeGame::Dice, whole, None) };
        assert!(matches!(merge_stake_shards(vec![plain], false), Err(StakeMergeError::NotAShard(_))));
    }

    #[test]
    fn a_partial_merge_holds_the_complete_shards_and_names_the_others() {
        let whole = NonceRange { start: 3, end: 904 };
        let game = StakeGame::Roulette;
        let mut inputs = shards(&game, whole, 9);
        let expected = StakeTally::sum(
            &game,
            inputs
                .iter()
                .enumerate()
                .filter(|(i, _)| ![4, 7].contains(i))
                .map(|(_, s)| &s.file.seed_pairs[1].tally),
        );
        inputs.remove(4);
        inputs[6].file.seed_pairs[1].swept.clear();
        inputs[6].file.seed_pairs[1].tally = StakeTally::empty(&game);
        inputs[6].file.complete = false;
        let (merged, coverage) = merge_stake_shards(inputs, true).unwrap();
        assert_eq!(coverage.lacking(), vec![4, 7]);
        let partial = merged.partial.clone().unwrap();
        assert_eq!((partial.count, partial.nonces, partial.missing.clone()), (9, whole, vec![4, 7]));
        assert!(!merged.complete && merged.shard.is_none());
        assert_eq!(merged.seed_pairs[1].tally, expected);
        // It reads back as written (every count tied to the shards it holds), and cannot
        // be merged again.
        let again = StakeTallyFile::from_bytes(&merged.to_bytes()).unwrap();
        assert_eq!(again, merged);
        let input = StakeShard { label: "partial".into(), file: again };
        assert!(matches!(merge_stake_shards(vec![input], true), Err(StakeMergeError::Partial(_))));
        // A partial record that does not match the seed pairs' nonces is refused.
        let mut forged = merged.clone();
        forged.partial.as_mut().unwrap().missing = vec![4];
        let error = StakeTallyFile::from_bytes(&forged.to_bytes()).unwrap_err().to_string();
        assert!(error.contains("not the shards its partial merge holds"), "{error}");
    }
}
