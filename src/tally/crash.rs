//! Counts of a crash chain's games, for the tests of [`crate::stats::crash`]: the crash
//! points in cells, non-overlapping pairs of consecutive games by a coarse class, and the
//! runs of instant crashes. Tallies of consecutive segments of a chain join exactly
//! ([`CrashTally::append`]), so a chain can be counted in parallel pieces.

use crate::scheme::crash::CrashPoint;

/// Where the crash-point cells are cut, in hundredths: [1.00, 1.01), [1.01, 1.05), ...,
/// [100x, ∞), after the instant-crash cell.
pub const EDGES: [u64; 12] = [100, 101, 105, 110, 120, 150, 200, 300, 500, 1_000, 2_000, 10_000];

/// The coarse classes of the pairs test: instant, below 2x, 2x or more.
pub const CLASSES: usize = 3;

/// Where the pairs test's classes 1 and 2 are cut, in hundredths (2.00x): one of
/// [`EDGES`], so that a class is a union of cells.
pub const CLASS_CUT: u64 = 200;

/// Counts of a chain's games: cells, pairs and runs of instant crashes. A pair is two
/// consecutive games, the first at an even offset from the chain's first game counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashTally {
    /// Games counted.
    pub games: u64,
    /// Per cell: the instant crashes, then the cells cut at [`EDGES`].
    pub cells: Vec<u64>,
    /// Pairs of consecutive games by class, `first * 3 + second`.
    pub pairs: Vec<u64>,
    /// Runs of instant crashes: maximal stretches of consecutive games that all crash at
    /// once.
    pub instant_runs: u64,
    /// Gaps in the games counted ([`CrashTally::gap`]): a bet history that skips games.
    /// Pairs are counted within the stretches between gaps; runs end at a gap, so their
    /// law (over one unbroken sequence) no longer holds.
    pub gaps: u64,
    /// The class of the game waiting for its partner.
    pending: Option<usize>,
    /// Whether the first game counted crashed at once (a run that may continue one of the
    /// segment before).
    first_instant: bool,
    /// Whether the last game counted crashed at once.
    last_instant: bool,
}

/// The cell of a crash point.
pub fn cell_of(point: CrashPoint) -> usize {
    match point {
        CrashPoint::Instant => 0,
        CrashPoint::Hundredths(h) => EDGES.iter().rposition(|&edge| h >= edge).map_or(1, |i| i + 1),
    }
}

fn class_of(point: CrashPoint) -> usize {
    match point {
        CrashPoint::Instant => 0,
        CrashPoint::Hundredths(h) if h < CLASS_CUT => 1,
        CrashPoint::Hundredths(_) => 2,
    }
}

impl CrashTally {
    /// An empty tally.
    pub fn new() -> Self {
        Self {
            games: 0,
            cells: vec![0; EDGES.len() + 1],
            pairs: vec![0; CLASSES * CLASSES],
            instant_runs: 0,
            gaps: 0,
            pending: None,
            first_instant: false,
            last_instant: false,
        }
    }

    /// Counts the next game of the chain.
    pub fn add(&mut self, point: CrashPoint) {
        let instant = point == CrashPoint::Instant;
        if instant && !(self.games > 0 && self.last_instant) {
            self.instant_runs += 1;
        }
        if self.games == 0 {
            self.first_instant = instant;
        }
        self.last_instant = instant;
        self.games += 1;
        self.cells[cell_of(point)] += 1;
        let class = class_of(point);
        match self.pending.take() {
            Some(first) => self.pairs[first * CLASSES + class] += 1,
            None => self.pending = Some(class),
        }
    }

    /// Marks games missing before the next one counted: no pair and no run spans them.
    pub fn gap(&mut self) {
        if self.games > 0 {
            self.gaps += 1;
            self.pending = None;
            self.last_instant = false;
        }
    }

    /// Counts the games of `next`, the segment of the chain that follows this one, as if
    /// they had been added one by one: a run of instant crashes across the join is one
    /// run. No game of this tally may be waiting for its partner (an even number of games
    /// since the last gap), or `next` must be empty, so that `next`'s pairs are the
    /// chain's as its own count assumed.
    ///
    /// # Panics
    /// If a game of this tally waits for its partner and `next` holds games.
    pub fn append(&mut self, next: &CrashTally) {
        if next.games == 0 {
            return;
        }
        assert!(self.pending.is_none(), "a chain segment is appended after a game waiting for its partner");
        let joined = self.games > 0 && self.last_instant && next.first_instant;
        self.instant_runs += next.instant_runs - u64::from(joined);
        self.gaps += next.gaps;
        if self.games == 0 {
            self.first_instant = next.first_instant;
        }
        self.last_instant = next.last_instant;
        self.games += next.games;
        self.cells.iter_mut().zip(&next.cells).for_each(|(a, b)| *a += b);
        self.pairs.iter_mut().zip(&next.pairs).for_each(|(a, b)| *a += b);
        self.pending = next.pending;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cover_every_point() {
        assert_eq!(cell_of(CrashPoint::Instant), 0);
        assert_eq!(cell_of(CrashPoint::Hundredths(100)), 1);
        assert_eq!(cell_of(CrashPoint::Hundredths(101)), 2);
        assert_eq!(cell_of(CrashPoint::Hundredths(199)), 6);
        assert_eq!(cell_of(CrashPoint::Hundredths(200)), 7);
        assert_eq!(cell_of(CrashPoint::Hundredths(u64::MAX)), EDGES.len());
        let mut tally = CrashTally::new();
        for point in [CrashPoint::Instant, CrashPoint::Hundredths(250), CrashPoint::Hundredths(120)] {
            tally.add(point);
        }
        // One pair (instant, 2x or more); the third game waits for its partner.
        assert_eq!(tally.pairs.iter().sum::<u64>(), 1);
        assert_eq!(tally.pairs[2], 1);
        assert_eq!(tally.games, 3);
        assert_eq!(tally.instant_runs, 1);
        // A gap: the waiting game gets no partner across it, and a run does not span it.
        tally.add(CrashPoint::Instant);
        tally.gap();
        tally.add(CrashPoint::Instant);
        tally.add(CrashPoint::Hundredths(150));
        assert_eq!((tally.games, tally.gaps, tally.instant_runs), (6, 1, 3));
        assert_eq!(tally.pairs.iter().sum::<u64>(), 3);
        assert_eq!(tally.pairs[3], 1, "(below 2x, instant) before the gap");
        assert_eq!(tally.pairs[1], 1, "(instant, below 2x) after it");
    }

    #[test]
    fn segments_appended_count_as_the_whole_chain() {
        use CrashPoint::{Hundredths, Instant};
        // Runs across every join: instant at both ends of segments, and inside.
        let games = [
            Instant,
            Instant,
            Hundredths(150),
            Instant,
            Instant,
            Instant,
            Hundredths(300),
            Hundredths(101),
            Instant,
            Hundredths(100),
            Instant,
            Instant,
            Hundredths(250),
            Instant,
        ];
        let mut whole = CrashTally::new();
        games.iter().for_each(|&g| whole.add(g));
        assert_eq!(whole.instant_runs, 5);
        for cut in [2, 4, 6] {
            let mut joined = CrashTally::new();
            for segment in games.chunks(cut) {
                let mut part = CrashTally::new();
                segment.iter().for_each(|&g| part.add(g));
                joined.append(&part);
            }
            assert_eq!(joined, whole, "segments of {cut}");
        }
    }

    #[test]
    #[should_panic(expected = "a game waiting for its partner")]
    fn a_segment_after_an_odd_count_is_refused() {
        let mut first = CrashTally::new();
        first.add(CrashPoint::Instant);
        let mut next = CrashTally::new();
        next.add(CrashPoint::Instant);
        first.append(&next);
    }
}
