//! The counts of a game of the HMAC-SHA256 family ([`crate::scheme::stake`]) over nonces
//! of one seed pair, in the views of [`crate::scheme::stake::cells`]: the outcomes, the
//! draw steps, and pairs of rounds.
//!
//! Pairs are the rounds of nonces `2k` and `2k + 1` (both in the range): they do not
//! overlap, so the pair counts are multinomial with exact cell probabilities (the product
//! of the coarse law with itself) in a sweep; an audited history, whose pairs the
//! player's choices select, tests them given their first round ([`crate::stats::stake`]).
//! A pair belongs to the chunk that holds its first round: a chunk that ends between the
//! two looks at the second (without counting it as a round), so chunks cut anywhere (threads, resumed holes, shards) never lose or double a pair.
//! Every count is a sum, so tallies of chunks add up to the tally of their union whatever
//! the order ([`crate::sweep::stake`] runs the chunks in parallel).

use crate::sampler::PickRule;
use crate::scheme::keyed::{on_stream, KeyedPair, KeyedStream};
use crate::scheme::stake::cells::{
    coarse_cell, coarse_cells, low_values, outcome_cell, outcome_cells, step_sizes,
};
use crate::scheme::stake::StakeGame;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The counts of one game over some nonces of one seed pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StakeTally {
    /// Rounds counted.
    pub rounds: u64,
    /// Rounds per outcome cell ([`super::cells::outcome_law`]); empty for Keno and mines.
    pub outcomes: Vec<u64>,
    /// Per draw step, rounds per index picked ([`super::cells::step_laws`]).
    pub steps: Vec<Vec<u64>>,
    /// Pairs of rounds (`2k`, `2k + 1`) per (coarse class of the first, of the second),
    /// row by row ([`super::cells::coarse_law`]).
    pub pairs: Vec<u64>,
}

impl StakeTally {
    /// No rounds of `game`.
    pub fn empty(game: &StakeGame) -> Self {
        let coarse = coarse_cells(game);
        StakeTally {
            rounds: 0,
            outcomes: vec![0; outcome_cells(game)],
            steps: step_sizes(game).into_iter().map(|n| vec![0; n as usize]).collect(),
            pairs: vec![0; coarse * coarse],
        }
    }

    /// The counts of `tallies` (of `game`) added together.
    pub fn sum<'a>(game: &StakeGame, tallies: impl IntoIterator<Item = &'a StakeTally>) -> Self {
        let mut sum = StakeTally::empty(game);
        tallies.into_iter().for_each(|tally| sum.add(tally));
        sum
    }

    /// Adds `other`'s counts (of the same game).
    pub fn add(&mut self, other: &StakeTally) {
        fn add_to(into: &mut [u64], from: &[u64]) {
            into.iter_mut().zip(from).for_each(|(a, b)| *a += b);
        }
        self.rounds += other.rounds;
        add_to(&mut self.outcomes, &other.outcomes);
        self.steps.iter_mut().zip(&other.steps).for_each(|(a, b)| add_to(a, b));
        add_to(&mut self.pairs, &other.pairs);
    }
}

/// What a sweep of some nonces of one seed pair counted: the tally, and the nonces it
/// covers (ascending, disjoint, adjacent ranges joined), all of them unless stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swept {
    /// The counts of the rounds swept.
    pub tally: StakeTally,
    /// The nonces swept.
    pub nonces: Vec<Range<u64>>,
}

impl Swept {
    /// Adds `other` (of other nonces): the tallies added, the nonces joined.
    pub fn join(mut self, other: Swept) -> Swept {
        self.tally.add(&other.tally);
        self.nonces.extend(other.nonces);
        self.nonces.sort_by_key(|r| r.start);
        let mut joined: Vec<Range<u64>> = Vec::with_capacity(self.nonces.len());
        for range in self.nonces {
            match joined.last_mut() {
                Some(last) if last.end >= range.start => last.end = last.end.max(range.end),
                _ => joined.push(range),
            }
        }
        self.nonces = joined;
        self
    }
}

/// What counting a round needs, prepared once per sweep.
pub struct Counter {
    game: StakeGame,
    steps: Vec<u32>,
    low: u32,
    coarse: usize,
}

impl Counter {
    /// The counter of `game`.
    pub fn new(game: &StakeGame) -> Self {
        Counter { game: *game, steps: step_sizes(game), low: low_values(game), coarse: coarse_cells(game) }
    }

    /// The tally of the rounds of `nonces`, a chunk of a sweep that ends at `end`: the
    /// pairs whose first round is in the chunk and whose second is below `end`.
    pub fn count(&self, pair: &KeyedPair, nonces: Range<u64>, end: u64) -> StakeTally {
        // Matched once per chunk: below, the rounds are played by the scheme's own stream
        // and rule, compiled for each.
        on_stream!(pair, stream => self.count_on(stream, nonces, end))
    }

    /// [`Counter::count`] on one scheme's stream.
    fn count_on<S: KeyedStream>(&self, pair: &S, nonces: Range<u64>, end: u64) -> StakeTally {
        let mut tally = StakeTally::empty(&self.game);
        let mut first_of_pair = None;
        for nonce in nonces.clone() {
            let class = self.round::<S>(&mut tally, &mut pair.words(nonce));
            if nonce % 2 == 0 {
                first_of_pair = (nonce + 1 < end).then_some(class);
            } else if let Some(first) = first_of_pair.take() {
                tally.pairs[first * self.coarse + class] += 1;
            }
        }
        if let Some(first) = first_of_pair {
            // The chunk ends between a pair's rounds: the second is played here for the
            // pair only; its round is the next chunk's.
            let class = self.round::<S>(&mut StakeTally::empty(&self.game), &mut pair.words(nonces.end));
            tally.pairs[first * self.coarse + class] += 1;
        }
        tally
    }

    /// The one pair of rounds (`first`, `first + 1`), `first` even, and nothing else: what
    /// two sweeps that meet between its rounds (one ending at `first + 1`, the next
    /// starting there) each leave out, since a sweep counts no pair past its own end.
    /// `merge` of such sweeps adds it.
    pub fn pair_only(&self, pair: &KeyedPair, first: u64) -> StakeTally {
        assert!(first.is_multiple_of(2), "a pair of rounds starts at an even nonce");
        let (class_of_first, class_of_second) =
            on_stream!(pair, stream => self.classes_of_pair(stream, first));
        let mut tally = StakeTally::empty(&self.game);
        tally.pairs[class_of_first * self.coarse + class_of_second] = 1;
        tally
    }

    /// The coarse classes of rounds `first` and `first + 1`.
    fn classes_of_pair<S: KeyedStream>(&self, pair: &S, first: u64) -> (usize, usize) {
        let mut scratch = StakeTally::empty(&self.game);
        let class_of_first = self.round::<S>(&mut scratch, &mut pair.words(first));
        (class_of_first, self.round::<S>(&mut scratch, &mut pair.words(first + 1)))
    }

    /// Counts one round; returns its coarse class. Draws are counted from their floats
    /// (the index each picks, and whether it picks a low value: the values left stay in
    /// order, so the low ones are the first), without building the draw; a test holds
    /// this equal to the game's own play.
    #[inline]
    fn round<S: KeyedStream>(&self, tally: &mut StakeTally, words: &mut S::Words<'_>) -> usize {
        tally.rounds += 1;
        match self.game {
            StakeGame::Dice | StakeGame::Roulette | StakeGame::Limbo(_) => {
                let outcome = self.game.play_by::<S::Rule, _>(words);
                tally.outcomes[outcome_cell(&outcome)] += 1;
                coarse_cell(&self.game, &outcome)
            }
            StakeGame::Plinko { .. } => {
                let mut bucket = 0;
                for row in &mut tally.steps {
                    let right = S::Rule::pick(words, 2).index as usize;
                    row[right] += 1;
                    bucket += right;
                }
                tally.outcomes[bucket] += 1;
                bucket
            }
            StakeGame::Keno | StakeGame::Mines { .. } => {
                let mut low_left = self.low;
                for (step, &size) in tally.steps.iter_mut().zip(&self.steps) {
                    let index = S::Rule::pick(words, size).index;
                    step[index as usize] += 1;
                    if index < low_left {
                        low_left -= 1;
                    }
                }
                (self.low - low_left) as usize
            }
        }
    }
}

/// The tally of the rounds of `nonces` counted through the games' own play and the draws'
/// indices recovered from the draws (slower: tests hold [`Counter::count`] and the
/// parallel sweep equal to it). Test-only: the sweep counts through [`Counter`].
#[cfg(test)]
pub(crate) fn tally_by_replay(game: &StakeGame, pair: &KeyedPair, nonces: Range<u64>) -> StakeTally {
    use crate::scheme::stake::cells::draw_indices;
    use crate::scheme::stake::StakeOutcome;
    let mut tally = StakeTally::empty(game);
    let coarse = coarse_cells(game);
    let mut first_of_pair = None;
    for nonce in nonces.clone() {
        let (outcome, _) = pair.play(game, nonce);
        tally.rounds += 1;
        match (&outcome, game) {
            (StakeOutcome::Drawn(drawn), _) => {
                let first = if *game == StakeGame::Keno { 1 } else { 0 };
                for (step, index) in tally.steps.iter_mut().zip(draw_indices(drawn, first)) {
                    step[index] += 1;
                }
            }
            (_, StakeGame::Plinko { .. }) => {
                on_stream!(pair, stream => {
                    let mut words = stream.words(nonce);
                    for row in tally.steps.iter_mut() {
                        row[pick_of(stream, &mut words, 2) as usize] += 1;
                    }
                });
                tally.outcomes[outcome_cell(&outcome)] += 1;
            }
            _ => tally.outcomes[outcome_cell(&outcome)] += 1,
        }
        let class = coarse_cell(game, &outcome);
        if nonce % 2 == 0 {
            first_of_pair = (nonce + 1 < nonces.end).then_some(class);
        } else if let Some(first) = first_of_pair.take() {
            tally.pairs[first * coarse + class] += 1;
        }
    }
    tally
}

/// One pick among `n` from a stream's words, by its rule (test-only: names the rule from
/// the stream's type).
#[cfg(test)]
fn pick_of<S: KeyedStream>(_: &S, words: &mut S::Words<'_>, n: u32) -> u32 {
    S::Rule::pick(words, n).index
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::keyed::KeyedScheme;
    use crate::scheme::stake::{LimboFormula, Risk};

    #[test]
    fn the_counter_counts_what_the_games_play() {
        let pair = KeyedScheme::Stake.pair("tally server", "tally client").unwrap();
        for game in [
            StakeGame::Dice,
            StakeGame::Roulette,
            StakeGame::Keno,
            StakeGame::Limbo(LimboFormula::Verifierform),
            StakeGame::Plinko { rows: 16, risk: Risk::Low },
            StakeGame::Mines { mines: 5 },
            StakeGame::Mines { mines: 24 },
        ] {
            for nonces in [0..1_001, 7..500] {
                let counted = Counter::new(&game).count(&pair, nonces.clone(), nonces.end);
                assert_eq!(counted, tally_by_replay(&game, &pair, nonces.clone()), "{game:?} {nonces:?}");
            }
        }
    }

    #[test]
    fn chunks_cut_anywhere_add_up_to_the_whole() {
        let pair = KeyedScheme::Stake.pair("tally server", "tally client").unwrap();
        for game in [StakeGame::Dice, StakeGame::Keno, StakeGame::Plinko { rows: 8, risk: Risk::High }] {
            let counter = Counter::new(&game);
            for (start, end) in [(0, 601), (7, 600), (3, 4)] {
                let whole = counter.count(&pair, start..end, end);
                for cut in [start + 1, start + 2, (start + end) / 2, end - 1]
                    .into_iter()
                    .filter(|&c| c > start && c < end)
                {
                    let mut joined = counter.count(&pair, start..cut, end);
                    joined.add(&counter.count(&pair, cut..end, end));
                    assert_eq!(joined, whole, "{game:?} {start}..{end} cut at {cut}");
                }
            }
            // Two sweeps that end where the other starts, cut between a pair's rounds,
            // each leave that pair out: adding it gives the whole.
            for (start, end, cut) in [(0, 601, 301), (7, 600, 9), (3, 8, 5)] {
                let mut joined = counter.count(&pair, start..cut, cut);
                joined.add(&counter.count(&pair, cut..end, end));
                assert_ne!(joined, counter.count(&pair, start..end, end));
                joined.add(&counter.pair_only(&pair, cut - 1));
                assert_eq!(joined, counter.count(&pair, start..end, end), "{game:?} {start}..{end} at {cut}");
            }
            // A chunk that ends at the sweep's end has no pair past it.
            let last = counter.count(&pair, 10..11, 11);
            assert_eq!(last.pairs.iter().sum::<u64>(), 0);
        }
    }
}
