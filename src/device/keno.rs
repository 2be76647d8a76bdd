//! What a device sweep of Keno rounds hands back, and how it becomes a tally segment.
//!
//! A launch covers the nonces `start..end`, cut into *runs* of consecutive nonces, one per
//! device thread. Each run is tallied in nonce order by one thread; the counters that do
//! not depend on order (positions, pairs, hits, the overlaps inside each run, the stream)
//! are added up over all runs ([`KenoCounts`]). The runs are joined, in order, into
//! *segments* of `per_segment` nonces (a device block's runs, joined by the block's first
//! thread, which counts the overlaps across them), and each segment leaves its edge state
//! ([`KenoEdges`]). [`keno_segment`] then joins the segments' edges in nonce order, which
//! counts the overlaps of the round pairs that straddle two segments, exactly as the CPU
//! sweep joins its chunks. The result is the [`KenoTally`] a CPU sweep of the same nonces
//! gives, field for field.

use super::DeviceError;
use crate::games::keno::{DRAWN, GRID};
use crate::tally::keno::{is_ten_distinct, LAGGED, PAIRS};
use crate::tally::stream::StreamTally;
use crate::tally::window::{Window, MAX_LAG};
use crate::tally::{KenoTally, Segment, SequenceTally};
use std::ops::Range;

/// The order-independent Keno counters of some runs, laid out as `kernel.c`'s
/// `fa_keno_counts` (the device writes this memory). Each field is its namesake in
/// [`KenoTally`] or its [`StreamTally`]; the numbers are the positions' row sums.
#[repr(C)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KenoCounts {
    /// `positions[k * 40 + n - 1]`: rounds whose draw `k` was number `n`.
    pub positions: [u64; DRAWN * GRID],
    /// Rounds holding each pair of numbers ([`crate::tally::keno::pair_index`]).
    pub pairs: [u64; PAIRS],
    /// `hits[(k - 1) * 11 + h]`: rounds in which the `k`-number pick set had `h` hits.
    pub hits: [u64; DRAWN * (DRAWN + 1)],
    /// Consecutive round pairs within a run sharing `c` numbers.
    pub overlap: [u64; DRAWN + 1],
    /// Round pairs `L` = 2..=10 apart within a run sharing `c` numbers.
    pub lag_overlap: [u64; LAGGED * (DRAWN + 1)],
    /// Rejected words per draw.
    pub rejections: [u64; DRAWN],
    /// Rounds.
    pub rounds: u64,
    /// Words consumed.
    pub words: u64,
    /// Rounds beyond the published verifier's 80 words.
    pub beyond_reference_words: u64,
    /// The most words one round consumed.
    pub max_words_in_round: u64,
}

impl Default for KenoCounts {
    fn default() -> Self {
        KenoCounts {
            positions: [0; DRAWN * GRID],
            pairs: [0; PAIRS],
            hits: [0; DRAWN * (DRAWN + 1)],
            overlap: [0; DRAWN + 1],
            lag_overlap: [0; LAGGED * (DRAWN + 1)],
            rejections: [0; DRAWN],
            rounds: 0,
            words: 0,
            beyond_reference_words: 0,
            max_words_in_round: 0,
        }
    }
}

impl KenoCounts {
    /// The counters, as the `u64` cells of the struct (what a device copies back).
    pub const CELLS: usize = DRAWN * GRID + PAIRS + DRAWN * (DRAWN + 1) + (DRAWN + 1) * MAX_LAG + DRAWN + 4;

    /// The counts from their `u64` cells in the struct's order (device memory copied back).
    ///
    /// # Panics
    /// If `cells` does not hold [`KenoCounts::CELLS`] cells.
    pub fn from_cells(cells: &[u64]) -> KenoCounts {
        assert_eq!(cells.len(), Self::CELLS, "Keno counts are {} cells", Self::CELLS);
        let mut rest = cells;
        let mut take = |n: usize| {
            let (taken, left) = rest.split_at(n);
            rest = left;
            taken
        };
        let mut counts = KenoCounts::default();
        counts.positions.copy_from_slice(take(DRAWN * GRID));
        counts.pairs.copy_from_slice(take(PAIRS));
        counts.hits.copy_from_slice(take(DRAWN * (DRAWN + 1)));
        counts.overlap.copy_from_slice(take(DRAWN + 1));
        counts.lag_overlap.copy_from_slice(take(LAGGED * (DRAWN + 1)));
        counts.rejections.copy_from_slice(take(DRAWN));
        [counts.rounds, counts.words, counts.beyond_reference_words, counts.max_words_in_round] =
            [take(1)[0], take(1)[0], take(1)[0], take(1)[0]];
        counts
    }

    /// Adds the counts of other runs.
    pub fn add(&mut self, other: &KenoCounts) {
        for (mine, theirs) in [
            (&mut self.positions[..], &other.positions[..]),
            (&mut self.pairs[..], &other.pairs[..]),
            (&mut self.hits[..], &other.hits[..]),
            (&mut self.overlap[..], &other.overlap[..]),
            (&mut self.lag_overlap[..], &other.lag_overlap[..]),
            (&mut self.rejections[..], &other.rejections[..]),
        ] {
            super::add_cells(mine, theirs);
        }
        self.rounds += other.rounds;
        self.words += other.words;
        self.beyond_reference_words += other.beyond_reference_words;
        self.max_words_in_round = self.max_words_in_round.max(other.max_words_in_round);
    }
}

/// A segment's edge state, laid out as `kernel.c`'s `fa_keno_edges`: the drawn-number bit
/// sets of its first and of its last `min(rounds, 10)` rounds (the last oldest first);
/// entries beyond that are unused.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KenoEdges {
    /// The first rounds' bit sets, in order.
    pub head: [u64; MAX_LAG],
    /// The last rounds' bit sets, oldest first.
    pub tail: [u64; MAX_LAG],
}

impl KenoEdges {
    /// The `u64` cells of one segment's edges (what a device copies back per segment).
    pub const CELLS: usize = 2 * MAX_LAG;

    /// The edges from their cells, head then tail.
    ///
    /// # Panics
    /// If `cells` does not hold [`KenoEdges::CELLS`] cells.
    pub fn from_cells(cells: &[u64]) -> KenoEdges {
        let (head, tail) = cells.split_at(MAX_LAG);
        KenoEdges { head: head.try_into().expect("ten cells"), tail: tail.try_into().expect("ten cells") }
    }
}

/// What one launch over `nonces` hands back, its edges in segments of `per_segment`.
#[derive(Clone, Debug)]
pub struct KenoLaunch {
    /// The nonces covered.
    pub nonces: Range<u64>,
    /// Nonces per segment (the last may be shorter).
    pub per_segment: u64,
    /// The runs' counts, added up, with the overlaps within each segment.
    pub counts: Box<KenoCounts>,
    /// Each segment's edges, in nonce order.
    pub edges: Vec<KenoEdges>,
}

/// The tally segment of a launch: its counts with its segments' edges joined in order.
///
/// The result must pass [`SequenceTally::validate`] (every count tied to the rounds, the
/// edges ten-number draws); a device that returned anything else is named as faulty
/// rather than trusted.
pub fn keno_segment(launch: KenoLaunch) -> Result<Segment<KenoTally>, DeviceError> {
    let KenoLaunch { nonces, per_segment, counts, edges } = launch;
    let segments = super::launch_segments(&nonces, per_segment, edges.len())?;
    let numbers = (0..GRID).map(|n| (0..DRAWN).map(|k| counts.positions[k * GRID + n]).sum()).collect();
    let mut tally = KenoTally {
        numbers,
        positions: counts.positions.to_vec(),
        pairs: counts.pairs.to_vec(),
        hits: counts.hits.to_vec(),
        overlap: counts.overlap.to_vec(),
        lag_overlap: counts.lag_overlap.to_vec(),
        edges: Window::default(),
        stream: StreamTally {
            rounds: counts.rounds,
            words: counts.words,
            rejections: counts.rejections.to_vec(),
            beyond_reference_words: counts.beyond_reference_words,
            max_words_in_round: counts.max_words_in_round,
        },
    };
    for (segment, edge) in segments.iter().zip(&edges) {
        let held = (segment.end - segment.start).min(MAX_LAG as u64) as usize;
        let window = Window { head: edge.head[..held].to_vec(), tail: edge.tail[..held].to_vec() };
        // Each segment's edges, not only the launch's: inner edges only count overlaps
        // across a join, which no sum checks.
        let draws = window.head.iter().chain(&window.tail).all(|&mask| is_ten_distinct(mask));
        if !draws || !window.is_consistent(segment.end - segment.start) {
            return Err(DeviceError::Faulty(format!(
                "the edges of its segment of nonces {}..{} are not draws of those rounds",
                segment.start, segment.end
            )));
        }
        tally.join_edges(window);
    }
    tally.validate().map_err(|error| {
        DeviceError::Faulty(format!(
            "its tally of nonces {}..{} is inconsistent: {error}",
            nonces.start, nonces.end
        ))
    })?;
    if tally.rounds() != nonces.end - nonces.start {
        return Err(DeviceError::Faulty(format!(
            "it tallied {} rounds of the {} nonces {}..{}",
            tally.rounds(),
            nonces.end - nonces.start,
            nonces.start,
            nonces.end
        )));
    }
    Ok(Segment { start: nonces.start, end: nonces.end, tally })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cells_are_the_structs_layout() {
        assert_eq!(std::mem::size_of::<KenoCounts>(), KenoCounts::CELLS * 8);
        assert_eq!(std::mem::size_of::<KenoEdges>(), KenoEdges::CELLS * 8);
        let cells: Vec<u64> = (0..KenoCounts::CELLS as u64).collect();
        let counts = KenoCounts::from_cells(&cells);
        assert_eq!((counts.positions[0], counts.pairs[0], counts.hits[0]), (0, 400, 1180));
        assert_eq!((counts.overlap[0], counts.lag_overlap[0], counts.rejections[0]), (1290, 1301, 1400));
        assert_eq!([counts.rounds, counts.max_words_in_round], [1410, 1413]);
        let edges = KenoEdges::from_cells(&cells[..20]);
        assert_eq!((edges.head[9], edges.tail[0]), (9, 10));
    }

    #[test]
    fn a_launch_whose_edges_do_not_match_its_segments_is_refused() {
        let launch = KenoLaunch { nonces: 0..25, per_segment: 10, counts: Box::default(), edges: vec![] };
        let error = keno_segment(launch).unwrap_err().to_string();
        assert!(error.contains("0 segments' edges for the 3 segments"), "{error}");
    }
}
