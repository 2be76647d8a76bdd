//! What a device sweep of roulette spins hands back, and how it becomes a tally segment.
//!
//! As for Keno ([`super::keno`]): a launch's nonces are cut into runs, one per device
//! thread, each tallied in nonce order; a device block's runs are joined into a segment by
//! its first thread; the host joins the segments. Roulette's edge state is richer than
//! Keno's: beside the first and last ten spins ([`RouletteEdges`]) it holds the open runs
//! of colour and of low/high at either end and where each pocket first and last fell, so
//! that the runs and the gaps between repeats that straddle a join are counted there.
//!
//! [`roulette_segment`] turns each segment's edges into a tally of that segment that holds
//! its edge state and nothing else, which the sweep checks against the seeds as it checks
//! a tally file's segments ([`crate::tally::anchor::check_segment`]), joins them with
//! [`SequenceTally::append`], the CPU sweep's own join, and adds the launch's counts.

use super::DeviceError;
use crate::games::Roulette;
use crate::tally::roulette::{GAP_CAP, RUN_CAP};
use crate::tally::runs::OpenRuns;
use crate::tally::stream::StreamTally;
use crate::tally::window::{Window, MAX_LAG};
use crate::tally::{RouletteTally, Segment, SequenceTally};
use rayon::prelude::*;
use std::ops::Range;

/// Pockets of the larger wheel: the device's tables are sized for it.
const POCKETS: usize = 38;

/// A position no spin holds, for a pocket a segment does not hold (kernel.c's `FA_NONE`).
const NONE: u64 = u64::MAX;

/// The cells of the pairs of spins 1..=10 apart, a `P × P` table per lag on a wheel of `P`
/// pockets (kernel.c's `FA_PAIR_CELLS`, sized for 38).
pub const PAIR_CELLS: usize = MAX_LAG * POCKETS * POCKETS;

/// The roulette counters a device block keeps in shared memory, laid out as `kernel.c`'s
/// `fa_roulette_counts`. Each field is its namesake in [`RouletteTally`] or its
/// [`StreamTally`]; a European wheel leaves the 38th pocket's cells at zero.
#[repr(C)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouletteCounts {
    /// Spins landing on each pocket.
    pub pockets: [u64; POCKETS],
    /// Closed runs of red / black / green, by length ([`crate::tally::runs::RunLengths::hist`]).
    pub colour_runs: [u64; 3 * RUN_CAP],
    /// Closed runs of low / high / zero, by length.
    pub low_high_runs: [u64; 3 * RUN_CAP],
    /// Gaps before a repeat of each pocket, by length ([`crate::tally::gaps::Gaps::hist`]).
    pub gaps: [u64; POCKETS * (GAP_CAP + 1)],
    /// Rejected words.
    pub rejections: u64,
    /// Spins.
    pub rounds: u64,
    /// Words consumed.
    pub words: u64,
    /// Spins beyond the published verifier's 2 words.
    pub beyond_reference_words: u64,
    /// The most words one spin consumed.
    pub max_words_in_round: u64,
}

impl Default for RouletteCounts {
    fn default() -> Self {
        RouletteCounts {
            pockets: [0; POCKETS],
            colour_runs: [0; 3 * RUN_CAP],
            low_high_runs: [0; 3 * RUN_CAP],
            gaps: [0; POCKETS * (GAP_CAP + 1)],
            rejections: 0,
            rounds: 0,
            words: 0,
            beyond_reference_words: 0,
            max_words_in_round: 0,
        }
    }
}

impl RouletteCounts {
    /// The counters, as the `u64` cells of the struct (what a device copies back).
    pub const CELLS: usize = POCKETS + 6 * RUN_CAP + POCKETS * (GAP_CAP + 1) + 5;

    /// The counts from their `u64` cells in the struct's order (device memory copied back).
    ///
    /// # Panics
    /// If `cells` does not hold [`RouletteCounts::CELLS`] cells.
    pub fn from_cells(cells: &[u64]) -> RouletteCounts {
        assert_eq!(cells.len(), Self::CELLS, "roulette counts are {} cells", Self::CELLS);
        let mut counts = RouletteCounts::default();
        let mut rest = cells;
        for table in [
            &mut counts.pockets[..],
            &mut counts.colour_runs[..],
            &mut counts.low_high_runs[..],
            &mut counts.gaps[..],
        ] {
            let (taken, left) = rest.split_at(table.len());
            table.copy_from_slice(taken);
            rest = left;
        }
        [
            counts.rejections,
            counts.rounds,
            counts.words,
            counts.beyond_reference_words,
            counts.max_words_in_round,
        ] = rest.try_into().expect("five cells left");
        counts
    }

    /// Adds the counts of other runs.
    pub fn add(&mut self, other: &RouletteCounts) {
        for (mine, theirs) in [
            (&mut self.pockets[..], &other.pockets[..]),
            (&mut self.colour_runs[..], &other.colour_runs[..]),
            (&mut self.low_high_runs[..], &other.low_high_runs[..]),
            (&mut self.gaps[..], &other.gaps[..]),
        ] {
            super::add_cells(mine, theirs);
        }
        self.rejections += other.rejections;
        self.rounds += other.rounds;
        self.words += other.words;
        self.beyond_reference_words += other.beyond_reference_words;
        self.max_words_in_round = self.max_words_in_round.max(other.max_words_in_round);
    }
}

/// A segment's edge state, laid out as `kernel.c`'s `fa_roulette_edges`: its first and
/// last `min(spins, 10)` pockets (the last oldest first), the open runs at its ends as
/// `[first symbol, prefix, last symbol, suffix]`, and the position in the segment of each
/// pocket's first and last spin ([`u64::MAX`] for a pocket it does not hold).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouletteEdges {
    /// The first spins' pockets, in order.
    pub head: [u64; MAX_LAG],
    /// The last spins' pockets, oldest first.
    pub tail: [u64; MAX_LAG],
    /// The open runs of colour.
    pub colour: [u64; 4],
    /// The open runs of low / high.
    pub low_high: [u64; 4],
    /// Where each pocket first fell.
    pub first: [u64; POCKETS],
    /// Where each pocket last fell.
    pub last: [u64; POCKETS],
}

impl Default for RouletteEdges {
    fn default() -> Self {
        RouletteEdges {
            head: [0; MAX_LAG],
            tail: [0; MAX_LAG],
            colour: [0; 4],
            low_high: [0; 4],
            first: [NONE; POCKETS],
            last: [NONE; POCKETS],
        }
    }
}

impl RouletteEdges {
    /// The `u64` cells of one segment's edges.
    pub const CELLS: usize = 2 * MAX_LAG + 8 + 2 * POCKETS;

    /// The edges from their cells, in the struct's order.
    ///
    /// # Panics
    /// If `cells` does not hold [`RouletteEdges::CELLS`] cells.
    pub fn from_cells(cells: &[u64]) -> RouletteEdges {
        assert_eq!(cells.len(), Self::CELLS, "roulette edges are {} cells", Self::CELLS);
        let mut edges = RouletteEdges::default();
        let mut rest = cells;
        for table in [
            &mut edges.head[..],
            &mut edges.tail[..],
            &mut edges.colour[..],
            &mut edges.low_high[..],
            &mut edges.first[..],
            &mut edges.last[..],
        ] {
            let (taken, left) = rest.split_at(table.len());
            table.copy_from_slice(taken);
            rest = left;
        }
        edges
    }

    /// The tally of a segment of `len` spins on `wheel` that holds these edges and no
    /// count, or what about the cells no such segment has.
    fn tally(&self, wheel: Roulette, len: u64) -> Result<RouletteTally, String> {
        let n = wheel.pockets() as usize;
        let held = len.min(MAX_LAG as u64) as usize;
        let pockets = |cells: &[u64]| -> Option<Vec<u8>> {
            cells.iter().map(|&p| u8::try_from(p).ok().filter(|&p| usize::from(p) < n)).collect()
        };
        let (Some(head), Some(tail)) = (pockets(&self.head[..held]), pockets(&self.tail[..held])) else {
            return Err("pockets off the wheel".into());
        };
        let open = |[first, prefix, last, suffix]: [u64; 4]| -> Option<OpenRuns> {
            Some(OpenRuns {
                first: u8::try_from(first).ok()?,
                prefix,
                last: u8::try_from(last).ok()?,
                suffix,
                len,
            })
        };
        let (Some(colour), Some(low_high)) = (open(self.colour), open(self.low_high)) else {
            return Err("open runs of no symbol".into());
        };
        let position = |&p: &u64| (p != NONE).then_some(p);
        let mut tally = RouletteTally::new(wheel);
        tally.edges = Window { head, tail };
        tally.colour_runs.open = Some(colour);
        tally.low_high_runs.open = Some(low_high);
        tally.gaps.len = len;
        tally.gaps.first = self.first[..n].iter().map(position).collect();
        tally.gaps.last = self.last[..n].iter().map(position).collect();
        tally.stream.rounds = len;
        let unused = self.first[n..].iter().chain(&self.last[n..]).any(|&p| p != NONE);
        if !tally.edges.is_consistent(len) || unused {
            return Err("edges that are not those of its spins".into());
        }
        tally.colour_runs.validate("colour runs", len).map_err(|e| e.to_string())?;
        tally.low_high_runs.validate("low/high runs", len).map_err(|e| e.to_string())?;
        tally.gaps.validate(len).map_err(|e| e.to_string())?;
        Ok(tally)
    }
}

/// What one launch over `nonces` hands back, its edges in segments of `per_segment`.
#[derive(Clone, Debug)]
pub struct RouletteLaunch {
    /// The nonces covered.
    pub nonces: Range<u64>,
    /// Nonces per segment (the last may be shorter).
    pub per_segment: u64,
    /// The runs' counts, added up, with the runs and gaps closed within each segment.
    pub counts: Box<RouletteCounts>,
    /// The pairs of spins 1..=10 apart, [`PAIR_CELLS`] cells: `(L − 1) · P · P + a · P + b`
    /// counts spins `L` apart landing on `a` then `b` on a wheel of `P` pockets.
    pub pairs: Vec<u64>,
    /// Each segment's edges, in nonce order.
    pub edges: Vec<RouletteEdges>,
}

/// The tally segment of a launch on `wheel`. Each segment's edge state becomes a tally
/// of that segment that holds it and no count; `check` sees it first (the sweep checks it
/// against the seeds, [`crate::tally::anchor::check_segment`]); the segments are joined
/// in order with [`SequenceTally::append`], the CPU sweep's own join, which counts what
/// straddles each join; and the launch's counts are added. The segments are checked a
/// rayon thread's worth at a time, in parallel, so host memory holds that many segments'
/// tallies beside the joined one, whatever the launch's size.
///
/// Refused as faulty: edges for another number of segments, cells no segment of spins on
/// `wheel` has (a pocket off the wheel, a position past the segment, counts in the
/// 38th pocket's cells of a European wheel), and a result that fails
/// [`SequenceTally::validate`] (every count tied to the spins).
pub fn roulette_segment(
    launch: RouletteLaunch,
    wheel: Roulette,
    check: impl Fn(&Segment<RouletteTally>) -> Result<(), DeviceError> + Sync,
) -> Result<Segment<RouletteTally>, DeviceError> {
    let RouletteLaunch { nonces, per_segment, counts, pairs, edges } = launch;
    let faulty = |what: String| {
        DeviceError::Faulty(format!("its tally of nonces {}..{} {what}", nonces.start, nonces.end))
    };
    let segments = super::launch_segments(&nonces, per_segment, edges.len())?;
    let n = wheel.pockets() as usize;
    if pairs.len() != PAIR_CELLS {
        return Err(faulty(format!("has {} cells of pairs, not {PAIR_CELLS}", pairs.len())));
    }
    let off_wheel =
        counts.pockets[n..].iter().chain(&counts.gaps[n * (GAP_CAP + 1)..]).chain(&pairs[MAX_LAG * n * n..]);
    if off_wheel.copied().any(|count| count != 0) {
        return Err(faulty("counts spins off the wheel".into()));
    }
    let checked = |(range, edge): &(Range<u64>, &RouletteEdges)| {
        let tally = edge.tally(wheel, range.end - range.start).map_err(|what| {
            DeviceError::Faulty(format!(
                "the edges of its segment of nonces {}..{} hold {what}",
                range.start, range.end
            ))
        })?;
        let segment = Segment { start: range.start, end: range.end, tally };
        check(&segment)?;
        Ok(segment)
    };
    // Checked a thread's worth at a time on the current rayon pool (a check draws a few
    // hundred spins again), joined in order; the first fault in nonce order is named.
    let pieces: Vec<(Range<u64>, &RouletteEdges)> = segments.into_iter().zip(&edges).collect();
    let mut joined: Option<RouletteTally> = None;
    for group in pieces.chunks(rayon::current_num_threads().max(1)) {
        let group: Vec<Result<Segment<RouletteTally>, DeviceError>> = group.par_iter().map(checked).collect();
        for segment in group {
            let segment = segment?;
            match joined.as_mut() {
                Some(earlier) => earlier.append(segment.tally),
                None => joined = Some(segment.tally),
            }
        }
    }
    let mut tally = joined.unwrap_or_else(|| RouletteTally::new(wheel));
    use super::add_cells as add;
    add(&mut tally.pockets, &counts.pockets[..n]);
    add(&mut tally.pairs, &pairs[..n * n]);
    add(&mut tally.lag_pairs, &pairs[n * n..MAX_LAG * n * n]);
    add(&mut tally.colour_runs.hist, &counts.colour_runs);
    add(&mut tally.low_high_runs.hist, &counts.low_high_runs);
    add(&mut tally.gaps.hist, &counts.gaps[..n * (GAP_CAP + 1)]);
    tally.stream = StreamTally {
        rounds: counts.rounds,
        words: counts.words,
        rejections: vec![counts.rejections],
        beyond_reference_words: counts.beyond_reference_words,
        max_words_in_round: counts.max_words_in_round,
    };
    if tally.rounds() != nonces.end - nonces.start {
        return Err(faulty(format!(
            "counts {} spins of {} nonces",
            tally.rounds(),
            nonces.end - nonces.start
        )));
    }
    tally.validate().map_err(|error| faulty(format!("is inconsistent: {error}")))?;
    Ok(Segment { start: nonces.start, end: nonces.end, tally })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cells_are_the_structs_layout() {
        assert_eq!(std::mem::size_of::<RouletteCounts>(), RouletteCounts::CELLS * 8);
        assert_eq!(std::mem::size_of::<RouletteEdges>(), RouletteEdges::CELLS * 8);
        let cells: Vec<u64> = (0..RouletteCounts::CELLS as u64).collect();
        let counts = RouletteCounts::from_cells(&cells);
        assert_eq!((counts.pockets[0], counts.colour_runs[0], counts.low_high_runs[0]), (0, 38, 134));
        assert_eq!((counts.gaps[0], counts.rejections, counts.max_words_in_round), (230, 5132, 5136));
        let edges = RouletteEdges::from_cells(&cells[..RouletteEdges::CELLS]);
        assert_eq!((edges.tail[0], edges.colour[0], edges.low_high[3]), (10, 20, 27));
        assert_eq!((edges.first[0], edges.last[37]), (28, 103));
    }

    #[test]
    fn edges_no_segment_has_are_refused_by_name() {
        let wheel = Roulette::EUROPEAN;
        // The edges of three spins, and counts that fit them.
        let launch = |edges: RouletteEdges| {
            let mut counts = Box::<RouletteCounts>::default();
            (counts.pockets[1], counts.rounds, counts.words, counts.max_words_in_round) = (3, 3, 3, 1);
            counts.gaps[129] = 2;
            let mut pairs = vec![0; PAIR_CELLS];
            (pairs[38], pairs[37 * 37 + 38]) = (2, 1);
            RouletteLaunch { nonces: 0..3, per_segment: 3, counts, pairs, edges: vec![edges] }
        };
        let join = |launch: RouletteLaunch| roulette_segment(launch, wheel, |_| Ok(()));
        // Three spins of pocket 1 (red, low): one run each, pocket 1 at 0 and 2.
        let mut fair = RouletteEdges { colour: [0, 3, 0, 3], low_high: [0, 3, 0, 3], ..Default::default() };
        fair.head[..3].fill(1);
        fair.tail[..3].fill(1);
        (fair.first[1], fair.last[1]) = (0, 2);
        join(launch(fair)).unwrap();
        type Fault = fn(&mut RouletteEdges);
        let faults: [(&str, Fault); 5] = [
            ("pockets off the wheel", |e| e.tail[2] = 37),
            ("open runs of no symbol", |e| e.colour[2] = 300),
            ("colour runs", |e| e.colour[3] = 4),
            ("gaps", |e| e.last[1] = 3),
            ("not those of its spins", |e| e.first[37] = 0),
        ];
        for (named, fault) in faults {
            let mut edges = fair;
            fault(&mut edges);
            let error = join(launch(edges)).unwrap_err().to_string();
            assert!(error.contains(named), "{named}: {error}");
        }
        let mut two = launch(fair);
        two.edges.push(fair);
        assert!(join(two).unwrap_err().to_string().contains("2 segments' edges for the 1"));
    }
}
