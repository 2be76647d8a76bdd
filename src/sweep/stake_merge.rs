//! Merging sweeps of the HMAC-SHA256 family, of two kinds ([`merge_stake`]):
//!
//! - **The shards of one sweep**: every input a shard of the same cut of the same sweep
//!   (game, parameters, seed pairs), each once, and together complete; what is missing or
//!   interrupted is named by index and range ([`Coverage`]), and merged only when asked
//!   (`--allow-partial`: the complete shards, in a file that records the missing ones). A
//!   shard counts the pairs of rounds whose first round it holds (peeking past its end),
//!   so none is lost or doubled at a cut.
//! - **Whole sweeps of adjacent ranges** (`a..b`, `b..c`, …; a complete merge is one):
//!   each complete, of the same game and seed pairs. A sweep counts no pair past its own
//!   end, so where two meet at an odd nonce `b` the pair (`b - 1`, `b`) is in neither:
//!   the merge plays those two rounds from the seeds the files hold and adds the pair.
//!
//! Either way a complete merge is the file one sweep of the whole range writes, byte for
//! byte.

use super::shards::{Coverage, ShardState};
use crate::tally::file::NonceRange;
use crate::tally::shards::PartialOf;
use crate::tally::stake::{Counter, StakeTally};
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
    /// Shards and whole sweeps given together.
    #[error("{0} is a shard of a sweep cut with --shards and {1} is not: a merge joins either the shards of one sweep or whole sweeps of adjacent ranges")]
    Mixed(String, String),
    /// Two whole sweeps of different plans.
    #[error("{0} and {1} are sweeps of different plans (another game, parameters or seed pairs): a merge joins sweeps of one plan over adjacent ranges")]
    OtherPlan(String, String),
    /// A whole sweep that was interrupted.
    #[error("{0} is an interrupted sweep ({1} of {2} rounds tallied); finish it first (the same sweep command continues it)")]
    Interrupted(String, u64, u64),
    /// Two whole sweeps that share nonces.
    #[error("{0} and {1} both hold nonces {2}..{3}: a merge joins sweeps of disjoint, adjacent ranges")]
    Overlap(String, String, u64, u64),
    /// Two whole sweeps with nonces between them that neither holds.
    #[error("{0} ends at nonce {2} and {1} starts at {3}: nonces {2}..{3} are in no input; a merge joins sweeps of adjacent ranges (sweep the gap and merge it too)")]
    Gap(String, String, u64, u64),
    /// More rounds than fit in the tallies.
    #[error("the merged sweep would hold more rounds than fairaudit counts (2^64)")]
    TooManyRounds,
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
    /// A seed pair the scheme cannot play (a tally file written by hand).
    #[error("{0}")]
    Seeds(String),
    /// An input is a partial merge (merge the shard folders instead).
    #[error("{0} is a partial merge; merge the shard folders themselves")]
    Partial(String),
}

/// What a merge joined.
#[derive(Clone, Debug)]
pub enum MergedInputs {
    /// The shards of one cut: which were found, complete or not.
    Shards(Coverage),
    /// Whole sweeps of adjacent ranges: their ranges, ascending.
    Sweeps(Vec<NonceRange>),
}

/// Merges sweeps of the family, in any order: the shards of one sweep
/// ([`merge_stake_shards`]), or whole sweeps of adjacent ranges ([`merge_adjacent_sweeps`]),
/// into the tally file of one sweep of the whole range. A partial merge is never an input
/// (merge the shard folders themselves).
pub fn merge_stake(
    inputs: Vec<StakeShard>,
    allow_partial: bool,
) -> Result<(StakeTallyFile, MergedInputs), StakeMergeError> {
    if let Some(partial) = inputs.iter().find(|input| input.file.partial.is_some()) {
        return Err(StakeMergeError::Partial(partial.label.clone()));
    }
    let shard = inputs.iter().find(|input| input.file.shard.is_some());
    let whole = inputs.iter().find(|input| input.file.shard.is_none());
    match (shard, whole) {
        (Some(shard), Some(whole)) => Err(StakeMergeError::Mixed(shard.label.clone(), whole.label.clone())),
        (None, Some(_)) => {
            merge_adjacent_sweeps(inputs).map(|(file, ranges)| (file, MergedInputs::Sweeps(ranges)))
        }
        _ => merge_stake_shards(inputs, allow_partial)
            .map(|(file, coverage)| (file, MergedInputs::Shards(coverage))),
    }
}

/// Merges complete sweeps (not shards) of one plan over adjacent ranges, in any order, into
/// the file of one sweep of their union: the tallies added, and for each meeting point at
/// an odd nonce `b` the pair (`b - 1`, `b`), which neither sweep counted, played from the
/// seeds and added ([`Counter::pair_only`]). Returns the inputs' ranges, ascending.
fn merge_adjacent_sweeps(
    mut inputs: Vec<StakeShard>,
) -> Result<(StakeTallyFile, Vec<NonceRange>), StakeMergeError> {
    if let Some(open) = inputs.iter().find(|input| !input.file.complete) {
        return Err(StakeMergeError::Interrupted(
            open.label.clone(),
            open.file.rounds(),
            open.file.planned_rounds(),
        ));
    }
    inputs.sort_by_key(|input| input.file.nonces.start);
    for pair in inputs.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let (a, b) = (before.file.nonces, after.file.nonces);
        let mut as_before = after.file.clone();
        as_before.nonces = a;
        if !before.file.same_sweep(&as_before) {
            return Err(StakeMergeError::OtherPlan(before.label.clone(), after.label.clone()));
        }
        if b.start < a.end {
            let shared = (b.start, a.end.min(b.end));
            return Err(StakeMergeError::Overlap(
                before.label.clone(),
                after.label.clone(),
                shared.0,
                shared.1,
            ));
        }
        if b.start > a.end {
            return Err(StakeMergeError::Gap(before.label.clone(), after.label.clone(), a.end, b.start));
        }
    }
    let ranges: Vec<NonceRange> = inputs.iter().map(|input| input.file.nonces).collect();
    let (Some(first), Some(last)) = (ranges.first(), ranges.last()) else {
        return Err(StakeMergeError::Empty);
    };
    let whole = NonceRange { start: first.start, end: last.end };
    let mut merged = inputs[0].file.clone();
    merged.nonces = whole;
    if (whole.end - whole.start).checked_mul(merged.seed_pairs.len() as u64).is_none() {
        return Err(StakeMergeError::TooManyRounds);
    }
    let game = merged.stake_game();
    let counter = Counter::new(&game);
    // Where two sweeps meet between the rounds of a pair (2k, 2k + 1).
    let odd_cuts: Vec<u64> = ranges[1..].iter().map(|r| r.start).filter(|cut| cut % 2 == 1).collect();
    for (i, pair) in merged.seed_pairs.iter_mut().enumerate() {
        let mut tally = StakeTally::sum(&game, inputs.iter().map(|input| &input.file.seed_pairs[i].tally));
        if !odd_cuts.is_empty() {
            let keyed =
                merged.scheme.pair(&pair.server_seed, &pair.client_seed).map_err(StakeMergeError::Seeds)?;
            for &cut in &odd_cuts {
                tally.add(&counter.pair_only(&keyed, cut - 1));
            }
        }
        pair.swept = vec![whole];
        pair.tally = tally;
    }
    merged.complete = true;
    Ok((merged, ranges))
}

/// Merges the shards of one sweep, in any order, into the tally file of one sweep of the
/// whole range. With a shard missing or interrupted it is refused, naming them all, unless
/// `allow_partial`: then the complete shards are merged into a file that records the
/// missing ones ([`StakeTallyFile::partial`]).
fn merge_stake_shards(
    inputs: Vec<StakeShard>,
    allow_partial: bool,
) -> Result<(StakeTallyFile, Coverage), StakeMergeError> {
    let mut found: Vec<StakeShard> = Vec::new();
    for input in inputs {
        let shard = input.file.shard.expect("merge_stake gives shards only");
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
    use crate::scheme::keyed::KeyedScheme;
    use crate::scheme::stake::StakeGame;
    use crate::sweep::stake::sweep_ranges;
    use crate::tally::file::NonceRange;
    use crate::tally::shards::{ShardOf, Sharding};
    use crate::tally::stake::StakeTally;
    use std::sync::atomic::AtomicBool;

    const SEEDS: [(&str, &str); 2] = [("merge server", "merge client"), ("second server", "second client")];

    fn swept(game: &StakeGame, nonces: NonceRange, shard: Option<ShardOf>) -> StakeTallyFile {
        let seeds: Vec<(String, String)> =
            SEEDS.iter().map(|(s, c)| (s.to_string(), c.to_string())).collect();
        let mut file = StakeTallyFile::new(KeyedScheme::Stake, game, nonces, &seeds, shard);
        let never = AtomicBool::new(false);
        for (i, (server, client)) in SEEDS.iter().enumerate() {
            let todo = file.todo(i);
            let end = file.sweep_end();
            file.record(
                i,
                sweep_ranges(
                    game,
                    &KeyedScheme::Stake.pair(server, client).unwrap(),
                    &todo,
                    end,
                    37,
                    &never,
                    &|_| (),
                ),
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
        let mut mixed = shards(&StakeGame::Dice, whole, 2);
        mixed.push(plain);
        assert!(matches!(merge_stake(mixed, false), Err(StakeMergeError::Mixed(..))));
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
        assert!(matches!(merge_stake(vec![input], true), Err(StakeMergeError::Partial(_))));
        // A partial record that does not match the seed pairs' nonces is refused.
        let mut forged = merged.clone();
        forged.partial.as_mut().unwrap().missing = vec![4];
        let error = StakeTallyFile::from_bytes(&forged.to_bytes()).unwrap_err().to_string();
        assert!(error.contains("not the shards its partial merge holds"), "{error}");
    }

    /// Whole sweeps of `ranges` (labelled by their range).
    fn sweeps(game: &StakeGame, ranges: &[(u64, u64)]) -> Vec<StakeShard> {
        ranges
            .iter()
            .map(|&(start, end)| StakeShard {
                label: format!("{start}..{end}"),
                file: swept(game, NonceRange { start, end }, None),
            })
            .collect()
    }

    #[test]
    fn adjacent_sweeps_met_at_odd_and_even_nonces_merge_to_the_one_sweep_of_their_union() {
        for game in [StakeGame::Dice, StakeGame::Keno, StakeGame::Mines { mines: 3 }, StakeGame::Roulette] {
            // Meeting at odd nonces (the pair across is played again), at even ones, in
            // any order, and one-nonce sweeps between.
            for ranges in [
                vec![(3, 501), (501, 1_004)],
                vec![(0, 500), (500, 1_000)],
                vec![(800, 1_001), (0, 7), (7, 8), (8, 9), (9, 800)],
                vec![(0, 1_000)],
            ] {
                let whole = NonceRange {
                    start: ranges.iter().map(|r| r.0).min().unwrap(),
                    end: ranges.iter().map(|r| r.1).max().unwrap(),
                };
                let (merged, how) = merge_stake(sweeps(&game, &ranges), false).unwrap();
                assert_eq!(merged.to_bytes(), swept(&game, whole, None).to_bytes(), "{game:?} {ranges:?}");
                let MergedInputs::Sweeps(found) = how else { panic!("merged as shards") };
                assert_eq!(found.len(), ranges.len());
                assert!(found.windows(2).all(|w| w[0].end == w[1].start));
                // It reads back (its pairs add up), and merges again with a neighbour.
                let again = StakeShard {
                    label: "merged".into(),
                    file: StakeTallyFile::from_bytes(&merged.to_bytes()).unwrap(),
                };
                let next = sweeps(&game, &[(whole.end, whole.end + 3)]).remove(0);
                let (longer, _) = merge_stake(vec![next, again], false).unwrap();
                let union = NonceRange { start: whole.start, end: whole.end + 3 };
                assert_eq!(longer.to_bytes(), swept(&game, union, None).to_bytes());
            }
        }
    }

    #[test]
    fn sweeps_that_overlap_leave_a_gap_differ_or_were_interrupted_are_named() {
        let game = StakeGame::Dice;
        let error = |inputs| merge_stake(inputs, false).unwrap_err().to_string();
        assert_eq!(
            error(sweeps(&game, &[(0, 100), (90, 200)])),
            "0..100 and 90..200 both hold nonces 90..100: a merge joins sweeps of disjoint, adjacent ranges"
        );
        assert!(matches!(
            merge_stake(sweeps(&game, &[(0, 100), (0, 100)]), false),
            Err(StakeMergeError::Overlap(..))
        ));
        assert!(error(sweeps(&game, &[(101, 200), (0, 100)])).starts_with(
            "0..100 ends at nonce 100 and 101..200 starts at 101: nonces 100..101 are in no input"
        ));
        let mut other = sweeps(&game, &[(0, 100), (100, 200)]);
        other[1] = sweeps(&StakeGame::Roulette, &[(100, 200)]).remove(0);
        assert!(matches!(merge_stake(other, false), Err(StakeMergeError::OtherPlan(..))));
        let mut other = sweeps(&game, &[(0, 100), (100, 200)]);
        other[1].file.seed_pairs.swap(0, 1);
        assert!(matches!(merge_stake(other, false), Err(StakeMergeError::OtherPlan(..))));
        let mut open = sweeps(&game, &[(0, 100), (100, 200)]);
        open[1].file.seed_pairs[0].swept.clear();
        open[1].file.seed_pairs[0].tally = StakeTally::empty(&game);
        open[1].file.complete = false;
        assert!(error(open).starts_with("100..200 is an interrupted sweep (100 of 200 rounds tallied)"));
    }
}
