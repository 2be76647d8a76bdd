//! The tally file of a sweep of the HMAC-SHA256 family, `stake_tally.json`: per seed pair,
//! the nonces swept so far and their [`StakeTally`]. A sweep saves it at each checkpoint,
//! when it is stopped, and at its end, so that the same command continues an interrupted
//! sweep where it stopped; a shard's file says which shard of which cut it is, and `merge`
//! adds the shards' tallies into the file of one sweep of the whole range (the sweep
//! module's `stake_merge`).
//!
//! Every count is a sum and a chunk counts the pairs of rounds whose first round it holds
//! ([`crate::tally::stake::Counter::count`]), so a file continued any number of times, or
//! merged from shards, is byte for byte the file of one uninterrupted sweep. A file read
//! back is checked against its game and its own ranges: one that does not add up is
//! refused, not continued.

use super::file::{missing_ranges, NonceRange};
use super::shards::{PartialOf, ShardOf, Sharding};
use super::stake::{StakeTally, Swept};
use crate::scheme::keyed::KeyedScheme;
use crate::scheme::stake::StakeGame;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The file's name in a sweep's folder.
pub const STAKE_TALLY_FILE: &str = "stake_tally.json";

/// The version of the file this build writes and reads.
pub const STAKE_TALLY_FORMAT: u32 = 1;

/// The tallies of a sweep of the family, complete or not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StakeTallyFile {
    /// [`STAKE_TALLY_FORMAT`].
    pub format: u32,
    /// The keyed scheme the rounds are played by; absent for stake's own.
    #[serde(default, skip_serializing_if = "KeyedScheme::is_stake")]
    pub scheme: KeyedScheme,
    /// The game's name ([`StakeGame::name`]).
    pub game: String,
    /// Its parameters ([`StakeGame::params`]).
    pub params: String,
    /// The nonces this file sweeps (a shard's own range).
    pub nonces: NonceRange,
    /// Which shard of which cut, for a shard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardOf>,
    /// For a merge of some of a sweep's shards (`merge --allow-partial`): the shards it
    /// lacks. Its seed pairs then hold exactly the other shards' nonces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialOf>,
    /// Whether every seed pair is swept over every nonce.
    pub complete: bool,
    /// Per seed pair, in the plan's order.
    pub seed_pairs: Vec<PairTallies>,
}

/// The tallies of one seed pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairTallies {
    /// The server seed.
    pub server_seed: String,
    /// The client seed.
    pub client_seed: String,
    /// The nonces swept (ascending, disjoint, adjacent ranges joined).
    pub swept: Vec<NonceRange>,
    /// Their counts.
    pub tally: StakeTally,
}

impl StakeTallyFile {
    /// Nothing swept yet of `game` of `scheme` over `nonces` for each `(server, client)`
    /// seed pair.
    pub fn new(
        scheme: KeyedScheme,
        game: &StakeGame,
        nonces: NonceRange,
        seeds: &[(String, String)],
        shard: Option<ShardOf>,
    ) -> Self {
        StakeTallyFile {
            format: STAKE_TALLY_FORMAT,
            scheme,
            game: game.name().to_owned(),
            params: game.params(),
            nonces,
            shard,
            partial: None,
            complete: false,
            seed_pairs: seeds
                .iter()
                .map(|(server, client)| PairTallies {
                    server_seed: server.clone(),
                    client_seed: client.clone(),
                    swept: Vec::new(),
                    tally: StakeTally::empty(game),
                })
                .collect(),
        }
    }

    /// The game the file tallies (checked when the file is read).
    pub fn stake_game(&self) -> StakeGame {
        StakeGame::new(&self.game, &self.params)
            .expect("a tally file's game is checked when it is made or read")
    }

    /// Where the whole sweep ends (a shard's cut's end): a pair whose second round lies
    /// past the file's own range but below this is the file's.
    pub fn sweep_end(&self) -> u64 {
        self.shard.map_or(self.nonces.end, |shard| shard.nonces.end)
    }

    /// The nonces of seed pair `pair` not swept yet.
    pub fn todo(&self, pair: usize) -> Vec<Range<u64>> {
        let swept: Vec<Range<u64>> = self.seed_pairs[pair].swept.iter().map(|r| r.range()).collect();
        missing_ranges(&[self.nonces], &swept)
    }

    /// Adds what a sweep of seed pair `pair` counted (nonces it had not swept).
    pub fn record(&mut self, pair: usize, swept: Swept) {
        let entry = &mut self.seed_pairs[pair];
        let before =
            Swept { tally: entry.tally.clone(), nonces: entry.swept.iter().map(|r| r.range()).collect() };
        let after = before.join(swept);
        entry.tally = after.tally;
        entry.swept = after.nonces.into_iter().map(NonceRange::from).collect();
        // From the last seed pair back: a sweep goes through them in order, so the first
        // one looked at is usually not done yet (no quadratic cost over many pairs).
        let whole = [self.nonces];
        self.complete = self.seed_pairs.iter().rev().all(|p| p.swept == whole);
    }

    /// The pairs of rounds a seed pair's tally holds when it counted its swept nonces: one
    /// per even nonce swept whose next nonce is below [`Self::sweep_end`]
    /// ([`crate::tally::stake::Counter::count`]).
    fn pairs_of(&self, swept: &[NonceRange]) -> u64 {
        // Even numbers in a..b.
        let evens = |a: u64, b: u64| if b > a { b.div_ceil(2) - a.div_ceil(2) } else { 0 };
        let last_first = self.sweep_end() - 1;
        swept.iter().map(|r| evens(r.start, r.end.min(last_first))).sum()
    }

    /// Rounds tallied, over every seed pair.
    pub fn rounds(&self) -> u64 {
        self.seed_pairs.iter().map(|p| p.tally.rounds).sum()
    }

    /// Rounds the file holds when complete.
    pub fn planned_rounds(&self) -> u64 {
        (self.nonces.end - self.nonces.start).saturating_mul(self.seed_pairs.len() as u64)
    }

    /// The tallies, one per seed pair.
    pub fn tallies(&self) -> Vec<StakeTally> {
        self.seed_pairs.iter().map(|p| p.tally.clone()).collect()
    }

    /// Whether `other` is a file of the same sweep (game, nonces, seed pairs, shard),
    /// whatever it has swept.
    pub fn same_sweep(&self, other: &StakeTallyFile) -> bool {
        let seeds = |f: &StakeTallyFile| -> Vec<(String, String)> {
            f.seed_pairs.iter().map(|p| (p.server_seed.clone(), p.client_seed.clone())).collect()
        };
        (self.scheme, &self.game, &self.params, self.nonces, self.shard)
            == (other.scheme, &other.game, &other.params, other.nonces, other.shard)
            && seeds(self) == seeds(other)
    }

    /// The file's bytes (pretty JSON, one trailing newline).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("a tally file serialises");
        bytes.push(b'\n');
        bytes
    }

    /// A file read back, checked: its format, game and shard, and every seed pair's counts
    /// against its game and the nonces it says it swept.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        let file: StakeTallyFile =
            serde_json::from_slice(bytes).map_err(|e| format!("not a stake tally file: {e}"))?;
        file.check()?;
        Ok(file)
    }

    fn check(&self) -> Result<(), String> {
        if self.format != STAKE_TALLY_FORMAT {
            return Err(format!(
                "format {} (this fairaudit reads format {STAKE_TALLY_FORMAT}); sweep it again with this version",
                self.format
            ));
        }
        let game = self.scheme.game(&self.game, &self.params)?;
        if self.params != game.params() {
            return Err(format!("the parameters {} are not written as fairaudit writes them", self.params));
        }
        if self.nonces.start >= self.nonces.end {
            return Err(format!("an empty nonce range {}..{}", self.nonces.start, self.nonces.end));
        }
        if let Some(shard) = self.shard {
            let sharding = Sharding::new(shard.nonces, shard.count).map_err(|e| e.to_string())?;
            if shard.index >= shard.count || sharding.range(shard.index) != self.nonces {
                return Err(format!(
                    "nonces {}..{} are not shard {} of {} of {}..{}",
                    self.nonces.start,
                    self.nonces.end,
                    shard.index,
                    shard.count,
                    shard.nonces.start,
                    shard.nonces.end
                ));
            }
        }
        let held = match (&self.partial, self.shard) {
            (None, _) => None,
            (Some(_), Some(_)) => {
                return Err("a file is either one shard or a partial merge, not both".into())
            }
            (Some(partial), None) => {
                let sharding = Sharding::new(partial.nonces, partial.count).map_err(|e| e.to_string())?;
                if !partial.lists_its_missing_shards() || partial.nonces != self.nonces {
                    return Err("a partial merge covers the file's nonces and lists its missing shards once each, ascending, lacking some but not all".into());
                }
                Some(sharding.covered(&partial.merged()))
            }
        };
        if self.seed_pairs.is_empty() {
            return Err("no seed pairs".into());
        }
        if (self.nonces.end - self.nonces.start).checked_mul(self.seed_pairs.len() as u64).is_none() {
            return Err("more rounds than fairaudit counts (2^64)".into());
        }
        let empty = StakeTally::empty(&game);
        for (i, pair) in self.seed_pairs.iter().enumerate() {
            let at = |what: String| format!("seed pair {i}: {what}");
            if held.as_ref().is_some_and(|held| *held != pair.swept) {
                return Err(at("its swept nonces are not the shards its partial merge holds".into()));
            }
            let t = &pair.tally;
            let shape = |t: &StakeTally| {
                (t.outcomes.len(), t.steps.iter().map(Vec::len).collect::<Vec<_>>(), t.pairs.len())
            };
            if shape(t) != shape(&empty) {
                return Err(at(format!("its counts do not have the shape of {}", self.game)));
            }
            let mut covered = 0u64;
            let mut last_end = None;
            for r in &pair.swept {
                let ordered = last_end.is_none_or(|end| r.start > end);
                if r.start >= r.end || r.start < self.nonces.start || r.end > self.nonces.end || !ordered {
                    return Err(at(format!(
                        "its swept nonces {}..{} are not ascending, disjoint ranges inside the file's",
                        r.start, r.end
                    )));
                }
                covered += r.end - r.start;
                last_end = Some(r.end);
            }
            let sums = |v: &[u64]| v.iter().map(|&c| u128::from(c)).sum::<u128>();
            let rounds = u128::from(t.rounds);
            let steps_add_up = t.steps.iter().all(|s| sums(s) == rounds);
            let outcomes_add_up = t.outcomes.is_empty() || sums(&t.outcomes) == rounds;
            let pairs_add_up = sums(&t.pairs) == u128::from(self.pairs_of(&pair.swept));
            if t.rounds != covered || !steps_add_up || !outcomes_add_up || !pairs_add_up {
                return Err(at(format!(
                    "its counts do not add up to the {covered} rounds of the nonces it swept"
                )));
            }
        }
        let complete = (0..self.seed_pairs.len()).all(|i| self.todo(i).is_empty());
        if complete != self.complete {
            return Err(format!(
                "it says it is {}complete and its seed pairs say otherwise",
                if self.complete { "" } else { "not " }
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::keyed::{KeyedPair, KeyedScheme};

    use crate::tally::stake::Counter;

    fn seeds() -> Vec<(String, String)> {
        vec![("file server".into(), "file client".into()), ("other server".into(), "other client".into())]
    }

    /// What the sweep counts of `todo` (one chunk per range).
    fn sweep_ranges(game: &StakeGame, pair: &KeyedPair, todo: &[Range<u64>], end: u64) -> Swept {
        let counter = Counter::new(game);
        let chunks = todo
            .iter()
            .map(|r| Swept { tally: counter.count(pair, r.clone(), end), nonces: vec![r.clone()] });
        chunks.fold(Swept { tally: StakeTally::empty(game), nonces: Vec::new() }, Swept::join)
    }

    fn swept_file(game: &StakeGame, nonces: Range<u64>) -> StakeTallyFile {
        let mut file = StakeTallyFile::new(KeyedScheme::Stake, game, nonces.clone().into(), &seeds(), None);
        for (i, (server, client)) in seeds().iter().enumerate() {
            let pair = KeyedScheme::Stake.pair(server, client).unwrap();
            let swept = sweep_ranges(game, &pair, &file.todo(i), nonces.end);
            file.record(i, swept);
        }
        file
    }

    #[test]
    fn a_file_reads_back_as_written_and_knows_when_it_is_complete() {
        let game = StakeGame::Plinko { rows: 12, risk: crate::scheme::stake::Risk::Medium };
        let mut file = StakeTallyFile::new(KeyedScheme::Stake, &game, (10..500).into(), &seeds(), None);
        assert!(!file.complete);
        assert_eq!(file.todo(1), vec![10..500]);
        let pair = KeyedScheme::Stake.pair("file server", "file client").unwrap();
        file.record(0, sweep_ranges(&game, &pair, &[100..200, 300..500], 500));
        assert_eq!(file.todo(0), vec![10..100, 200..300]);
        assert_eq!(StakeTallyFile::from_bytes(&file.to_bytes()).unwrap(), file);
        let whole = swept_file(&game, 10..500);
        assert!(whole.complete);
        assert_eq!(whole.seed_pairs[0].swept, vec![NonceRange { start: 10, end: 500 }]);
        assert_eq!(whole.rounds(), whole.planned_rounds());
        assert_eq!(StakeTallyFile::from_bytes(&whole.to_bytes()).unwrap(), whole);
    }

    #[test]
    fn holes_cut_anywhere_read_back_with_their_exact_pair_counts() {
        // Odd chunks done out of order (a stop with several threads): each range that
        // ends between a pair's rounds counts that pair.
        let game = StakeGame::Dice;
        for (nonces, swept) in [
            (0..12, vec![0..3, 6..9]),
            (1..40, vec![1..2, 4..7, 9..10, 20..39]),
            (5..21, vec![5..9, 9..21]),
            (0..10, vec![1..2, 8..10]),
        ] {
            let mut file =
                StakeTallyFile::new(KeyedScheme::Stake, &game, nonces.clone().into(), &seeds()[..1], None);
            let pair = KeyedScheme::Stake.pair("file server", "file client").unwrap();
            file.record(0, sweep_ranges(&game, &pair, &swept, nonces.end));
            assert_eq!(StakeTallyFile::from_bytes(&file.to_bytes()).unwrap(), file, "{nonces:?} {swept:?}");
        }
    }

    #[test]
    fn files_that_do_not_add_up_are_refused() {
        let file = swept_file(&StakeGame::Dice, 0..300);
        let refused = |edit: &dyn Fn(&mut StakeTallyFile), says: &str| {
            let mut forged = file.clone();
            edit(&mut forged);
            let error = StakeTallyFile::from_bytes(&forged.to_bytes()).unwrap_err();
            assert!(error.contains(says), "{error}");
        };
        refused(&|f| f.seed_pairs[0].tally.outcomes[5] += 1, "do not add up");
        refused(&|f| f.seed_pairs[1].tally.rounds += 1, "do not add up");
        refused(&|f| f.seed_pairs[0].swept[0].end = 299, "do not add up");
        refused(
            &|f| {
                let pairs = &mut f.seed_pairs[1].tally.pairs;
                let cell = pairs.iter().position(|&c| c > 0).unwrap();
                pairs[cell] -= 1;
            },
            "do not add up",
        );
        refused(&|f| f.seed_pairs[0].swept.push(NonceRange { start: 400, end: 401 }), "inside the file's");
        refused(&|f| f.seed_pairs[0].tally.outcomes.pop().map(drop).unwrap_or(()), "shape");
        refused(&|f| f.complete = false, "says it is not complete");
        refused(&|f| f.format = 7, "format 7");
        refused(&|f| f.game = "craps".into(), "unknown game");
        refused(
            &|f| {
                f.nonces = (0..u64::MAX).into();
                f.complete = false;
            },
            "more rounds than fairaudit counts",
        );
        refused(
            &|f| f.shard = Some(ShardOf { index: 1, count: 2, nonces: (0..600).into() }),
            "not shard 1 of 2",
        );
        let text = String::from_utf8(file.to_bytes()).unwrap().replacen(
            "\"complete\"",
            "\"extra\": 1,\n  \"complete\"",
            1,
        );
        assert!(StakeTallyFile::from_bytes(text.as_bytes()).unwrap_err().contains("unknown field"));
    }
}
