//! Mergeable integer tallies of a sequence of rounds.
//!
//! A tally covers one contiguous *segment* of nonces of one game and seed pair. Counters
//! are integers and merging is addition, so results never depend on how the rounds were
//! split among threads, chunks or shards. Statistics that look at nearby rounds (serial
//! pairs and lagged pairs up to [`window::MAX_LAG`] apart, runs, gaps, Keno overlaps) keep
//! the segment's edges, so that whatever straddles two segments is counted exactly once,
//! when the segments are joined ([`SequenceTally::append`]). [`SequenceTally::close`] then
//! declares the segment a whole sequence, after which closed tallies of different
//! sequences (other seed pairs, non-adjacent ranges, other players) can be summed
//! ([`Closed::add`]), remembering how many sequences of which lengths the sum holds
//! ([`SequenceLengths`]): the statistics of runs and gaps depend on it.

pub mod anchor;
pub mod bets;
pub mod crash;
pub mod file;
pub mod gaps;
pub mod keno;
pub mod nonces;
pub mod roulette;
pub mod runs;
pub mod shards;
pub mod stake;
pub mod stake_file;
pub mod stream;
pub mod window;

use crate::chain::{RoundBatch, ROUNDS_PER_BATCH};
use crate::games::Game;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::Range;

pub use keno::KenoTally;
pub use roulette::RouletteTally;

/// A problem with tallies read from a file or asked to merge.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TallyError {
    /// A counter table has the wrong size for its game.
    #[error("malformed tally: {0}")]
    Shape(String),
    /// Two segments cover some of the same nonces.
    #[error("nonce ranges {0}..{1} and {2}..{3} overlap")]
    Overlap(u64, u64, u64, u64),
}

/// Checks that a counter table sums to what its rounds imply (`expected`): every count a
/// real sweep writes is tied to its rounds, so a table that is not is a damaged or forged
/// file.
pub(crate) fn check_sum(name: &str, table: &[u64], expected: u64) -> Result<(), TallyError> {
    let sum: u128 = table.iter().map(|&c| u128::from(c)).sum();
    if sum == u128::from(expected) {
        Ok(())
    } else {
        Err(TallyError::Shape(format!("{name} sum to {sum}, the rounds imply {expected}")))
    }
}

/// The positions of the set bits of `bits`, lowest first.
pub(crate) fn set_bits(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let at = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            at
        })
    })
}

/// The numbers a tally holds (every counter, edge and length), counted through its
/// serialized form: what a sweep keeps in memory per seed pair and game is about eight
/// bytes each, so a plan can be sized before it is run.
pub fn counter_cells<T: Serialize>(tally: &T) -> u64 {
    fn count(value: &serde_json::Value) -> u64 {
        match value {
            serde_json::Value::Number(_) => 1,
            serde_json::Value::Array(items) => items.iter().map(count).sum(),
            serde_json::Value::Object(fields) => fields.values().map(count).sum(),
            _ => 0,
        }
    }
    serde_json::to_value(tally).map_or(0, |value| count(&value))
}

pub(crate) fn check_len<T>(name: &str, table: &[T], expected: usize) -> Result<(), TallyError> {
    if table.len() == expected {
        Ok(())
    } else {
        Err(TallyError::Shape(format!("{name} has {} entries, expected {expected}", table.len())))
    }
}

/// Counters for a sequence of rounds of one game.
pub trait SequenceTally: Clone + Send + Serialize + DeserializeOwned {
    /// The game whose rounds are tallied.
    type Game: Game;

    /// An empty tally.
    fn new(game: Self::Game) -> Self;

    /// Records the next round of the sequence.
    fn record(&mut self, round: &<Self::Game as Game>::Outcome);

    /// What the tally may hold back between the batches of one run of consecutive rounds,
    /// to count it in bulk ([`record_drawn`]); `()` for a tally that holds nothing back.
    /// Roulette holds its spins' serial pairs ([`window::Unpaired`]).
    ///
    /// [`record_drawn`]: SequenceTally::record_drawn
    type Pending: Default + Clone + std::fmt::Debug;

    /// Records the rounds of one drawn batch ([`Game::draw_batch`]), in order. The sweep
    /// counts this way, every counter over the whole batch at once (Keno's by columns of
    /// bits). Some counts may wait in `pending`, which must then be handed, batch after
    /// batch, to this tally only, and counted by [`count_pending`] before the tally is
    /// read: after that, the tally is exactly what [`record`] on each round would give.
    ///
    /// [`record`]: SequenceTally::record
    /// [`count_pending`]: SequenceTally::count_pending
    fn record_drawn(&mut self, drawn: &<Self::Game as Game>::Drawn, pending: &mut Self::Pending);

    /// Counts what [`record_drawn`] held back in `pending`, which is left empty.
    ///
    /// [`record_drawn`]: SequenceTally::record_drawn
    fn count_pending(&mut self, pending: &mut Self::Pending);

    /// Records the next rounds of the sequence, in order: exactly what [`record`] on each
    /// would do, counted as the sweep counts, a batch at a time ([`record_drawn`]).
    ///
    /// [`record`]: SequenceTally::record
    /// [`record_drawn`]: SequenceTally::record_drawn
    fn record_all(&mut self, rounds: &[<Self::Game as Game>::Outcome]) {
        let mut pending = Self::Pending::default();
        for chunk in rounds.chunks(ROUNDS_PER_BATCH) {
            self.record_drawn(&Self::Game::drawn_from(chunk), &mut pending);
        }
        self.count_pending(&mut pending);
    }

    /// Draws the rounds of a hashed batch ([`Game::draw_batch`]) into `drawn` and records
    /// them, as [`record_drawn`] does (with `pending`): the sweep's per-thread loop calls
    /// this once per batch. `drawn` is the caller's, reused from batch to batch: made anew
    /// for each, Keno's columns (3 KB) were zeroed every 64 rounds, about 0.5% of a sweep.
    ///
    /// [`record_drawn`]: SequenceTally::record_drawn
    // Always inlined: into the sweep's loop compiled for the kernel's path.
    #[inline(always)]
    fn record_batch(
        &mut self,
        game: Self::Game,
        batch: &RoundBatch,
        drawn: &mut <Self::Game as Game>::Drawn,
        pending: &mut Self::Pending,
    ) {
        game.draw_batch(batch, drawn);
        self.record_drawn(drawn, pending);
    }

    /// Joins `later`, the tally of the segment that directly follows this one.
    fn append(&mut self, later: Self);

    /// Declares the segment a complete sequence: counts what was open at its edges
    /// (first and last runs) and drops what is censored (gaps open at either end).
    fn close(&mut self);

    /// Adds a closed tally of another sequence (both must be closed). Use [`Closed::add`],
    /// which also keeps the sequence lengths the statistics need.
    fn add_closed(&mut self, other: &Self);

    /// Checks a tally read from a file: every table has the size its game needs, every
    /// field is in range, and every counter is consistent with the rounds tallied.
    fn validate(&self) -> Result<(), TallyError>;

    /// Rounds tallied.
    fn rounds(&self) -> u64;

    /// How many of the segment's first and of its last rounds fix its edge state (the
    /// edges, and whatever else records where near its ends an outcome or a run is):
    /// [`anchor`] re-derives that many rounds from the seeds to check it.
    fn edge_reach(&self) -> (u64, u64);

    /// Checks the edge state against `front` and `back`, the tallies of the segment's
    /// first and last rounds as many as [`edge_reach`] says (each the whole segment when
    /// that is shorter), drawn again from the seeds.
    ///
    /// [`edge_reach`]: SequenceTally::edge_reach
    fn check_edges(&self, front: &Self, back: &Self) -> Result<(), TallyError>;
}

/// The tally of the contiguous nonce range `start..end`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment<T> {
    /// First nonce.
    pub start: u64,
    /// One past the last nonce.
    pub end: u64,
    /// The counters.
    pub tally: T,
}

impl<T> Segment<T> {
    /// The nonces covered.
    pub fn range(&self) -> Range<u64> {
        self.start..self.end
    }
}

/// Disjoint segments in nonce order; adjacent segments are always joined into one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Segments<T>(pub Vec<Segment<T>>);

impl<T> Default for Segments<T> {
    fn default() -> Self {
        Segments(Vec::new())
    }
}

impl<T: SequenceTally> Segments<T> {
    /// Appends segments that all lie after the current last one, joining adjacent ones.
    /// This is the merge step of the parallel sweep, which combines neighbours in order.
    pub fn extend_after(&mut self, later: Segments<T>) {
        for segment in later.0 {
            self.push_after(segment);
        }
    }

    fn push_after(&mut self, segment: Segment<T>) {
        if segment.start == segment.end {
            return;
        }
        match self.0.last_mut() {
            Some(last) if last.end == segment.start => {
                last.tally.append(segment.tally);
                last.end = segment.end;
            }
            _ => self.0.push(segment),
        }
    }

    /// Merges segment lists in any order: sorts, refuses overlaps, joins neighbours.
    pub fn merge(lists: impl IntoIterator<Item = Segments<T>>) -> Result<Segments<T>, TallyError> {
        let mut all: Vec<Segment<T>> = lists.into_iter().flat_map(|list| list.0).collect();
        all.sort_by_key(|segment| (segment.start, segment.end));
        for pair in all.windows(2) {
            if pair[1].start < pair[0].end {
                return Err(TallyError::Overlap(pair[0].start, pair[0].end, pair[1].start, pair[1].end));
            }
        }
        let mut merged = Segments::default();
        for segment in all {
            merged.push_after(segment);
        }
        Ok(merged)
    }

    /// The ranges covered.
    pub fn ranges(&self) -> Vec<Range<u64>> {
        self.0.iter().map(Segment::range).collect()
    }

    /// Rounds covered.
    pub fn rounds(&self) -> u64 {
        self.0.iter().map(|segment| segment.tally.rounds()).sum()
    }

    /// The sum of all segments, each closed as a sequence of its own: the counters the
    /// statistics use. `None` when there are no segments.
    pub fn closed_total(&self) -> Option<Closed<T>> {
        let mut segments = self.0.iter();
        let mut total = Closed::sequence(segments.next()?.tally.clone());
        for segment in segments {
            total.add(&Closed::sequence(segment.tally.clone()));
        }
        Some(total)
    }
}

/// How many sequences of each length a sum of closed tallies holds: `length → count`.
///
/// One long sweep is one sequence; `K` seed pairs of `m` nonces are `K` sequences of `m`;
/// a merge of non-adjacent ranges adds one sequence per range. The laws of runs and gaps
/// depend on these lengths (a sequence of `m` rounds holds `m − g − 1` places for a gap of
/// `g`, not a number proportional to the rounds), so the sum carries them exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SequenceLengths(pub BTreeMap<u64, u64>);

impl SequenceLengths {
    /// One sequence of `length` rounds.
    pub fn one(length: u64) -> Self {
        let mut lengths = SequenceLengths::default();
        lengths.add_sequences(length, 1);
        lengths
    }

    /// Adds `count` sequences of `length` rounds (empty sequences are not sequences).
    pub fn add_sequences(&mut self, length: u64, count: u64) {
        if length > 0 && count > 0 {
            *self.0.entry(length).or_insert(0) += count;
        }
    }

    /// Adds every sequence of `other`.
    pub fn add(&mut self, other: &SequenceLengths) {
        for (&length, &count) in &other.0 {
            self.add_sequences(length, count);
        }
    }

    /// The number of sequences.
    pub fn sequences(&self) -> u64 {
        self.0.values().sum()
    }

    /// The rounds in all sequences.
    pub fn rounds(&self) -> u64 {
        self.0.iter().map(|(&length, &count)| length * count).sum()
    }

    /// `(length, count)` pairs, ascending by length.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0.iter().map(|(&length, &count)| (length, count))
    }

    /// `Σ count · f(length)`: a per-sequence quantity summed over the sequences.
    pub fn sum_of(&self, f: impl Fn(u64) -> f64) -> f64 {
        self.iter().map(|(length, count)| count as f64 * f(length)).sum()
    }

    /// A short description: `1 sequence of 10000000 rounds`, `500 sequences of 100 rounds`,
    /// or `3 sequences of 10 to 900 rounds`.
    pub fn describe(&self) -> String {
        let n = self.sequences();
        let plural = if n == 1 { "sequence" } else { "sequences" };
        match (self.0.keys().next(), self.0.keys().next_back()) {
            (Some(lo), Some(hi)) if lo == hi => format!("{n} {plural} of {lo} rounds"),
            (Some(lo), Some(hi)) => format!("{n} {plural} of {lo} to {hi} rounds"),
            _ => "no rounds".to_owned(),
        }
    }
}

/// A sum of closed tallies and the lengths of the sequences it holds: what the statistics
/// read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closed<T> {
    /// The counters, summed over the sequences.
    pub tally: T,
    /// The sequences summed.
    pub lengths: SequenceLengths,
}

impl<T: SequenceTally> Closed<T> {
    /// Closes `tally` as one whole sequence.
    pub fn sequence(mut tally: T) -> Self {
        tally.close();
        let lengths = SequenceLengths::one(tally.rounds());
        Closed { tally, lengths }
    }

    /// Adds the sequences of `other`.
    pub fn add(&mut self, other: &Closed<T>) {
        self.tally.add_closed(&other.tally);
        self.lengths.add(&other.lengths);
    }

    /// Rounds tallied.
    pub fn rounds(&self) -> u64 {
        self.tally.rounds()
    }
}

/// Test support for each game's tally: consecutive hashed batches of lengths around the
/// columns and the window (a 1-round batch, ten, full ones, then more than
/// [`window::UNPAIRED_BULK`] rounds), on every Keccak path, tallied with
/// [`SequenceTally::record_batch`], each equal after every batch (once what is pending is
/// counted) to the tally of each round drawn from its own stream and recorded alone.
#[cfg(test)]
pub(crate) fn assert_batches_tally_as_rounds_one_by_one<T>(game: T::Game)
where
    T: SequenceTally + PartialEq + std::fmt::Debug,
{
    use crate::chain::{BatchHasher, KeccakPath, Kernel, RoundHasher};
    let hasher = RoundHasher::new("server", "client");
    for path in KeccakPath::supported() {
        let mut batcher = BatchHasher::new(&hasher, Kernel::new(path).unwrap());
        let mut batch = RoundBatch::default();
        let (mut batched, mut one_by_one) = (T::new(game), T::new(game));
        let mut pending = T::Pending::default();
        let mut drawn = Default::default();
        let mut start = 999_950;
        // Then full batches past the bulk at which roulette counts its held pairs.
        let lengths = [1, 3, 64, 10, 9, 64, 11, 63, 64, 2, 64].into_iter().chain([64; 70]);
        for (b, len) in lengths.enumerate() {
            batcher.hash(start..start + len, &mut batch);
            batched.record_batch(game, &batch, &mut drawn, &mut pending);
            for nonce in start..start + len {
                let mut round = Default::default();
                game.draw(&mut hasher.words(nonce), &mut round);
                one_by_one.record(&round);
            }
            // Equal once what is held is counted, on a copy (the run goes on holding), and
            // now and then for good, mid-run.
            let mut counted = batched.clone();
            counted.count_pending(&mut pending.clone());
            assert_eq!(counted, one_by_one, "{:?}, {path}, after the batch of {len} from {start}", game.id());
            if b % 29 == 5 {
                batched.count_pending(&mut pending);
                assert_eq!(batched, one_by_one, "{:?}, {path}, counted after {start}", game.id());
            }
            start += len;
        }
        batched.count_pending(&mut pending);
        assert_eq!(batched, one_by_one, "{:?}, {path}, at the end", game.id());
    }
}
