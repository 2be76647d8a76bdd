//! Counts of a crash chain's games, for the tests of [`crate::stats::crash`]: the crash
//! points in cells, and non-overlapping pairs of consecutive games by a coarse class.

use crate::scheme::crash::CrashPoint;

/// Where the crash-point cells are cut, in hundredths: [1.00, 1.01), [1.01, 1.05), ...,
/// [100x, ∞), after the instant-crash cell.
pub const EDGES: [u64; 12] = [100, 101, 105, 110, 120, 150, 200, 300, 500, 1_000, 2_000, 10_000];

/// The coarse classes of the pairs test: instant, below 2x, 2x or more.
pub const CLASSES: usize = 3;

/// Counts of a chain's games: cells and pairs. Counts add up, so segments of a chain can
/// be counted apart (a pair is two consecutive games of one segment, the first at an
/// even offset from its start).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashTally {
    /// Games counted.
    pub games: u64,
    /// Per cell: the instant crashes, then the cells cut at [`EDGES`].
    pub cells: Vec<u64>,
    /// Pairs of consecutive games by class, `first * 3 + second`.
    pub pairs: Vec<u64>,
    /// The class of the game waiting for its partner.
    pending: Option<usize>,
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
        CrashPoint::Hundredths(h) if h < 200 => 1,
        CrashPoint::Hundredths(_) => 2,
    }
}

impl CrashTally {
    /// An empty tally.
    pub fn new() -> Self {
        Self { games: 0, cells: vec![0; EDGES.len() + 1], pairs: vec![0; CLASSES * CLASSES], pending: None }
    }

    /// Counts the next game of the chain.
    pub fn add(&mut self, point: CrashPoint) {
        self.games += 1;
        self.cells[cell_of(point)] += 1;
        let class = class_of(point);
        match self.pending.take() {
            Some(first) => self.pairs[first * CLASSES + class] += 1,
            None => self.pending = Some(class),
        }
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
    }
}
