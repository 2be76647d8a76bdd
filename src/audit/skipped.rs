//! Skipped nonces in a bet history of the HMAC-SHA256 family: the nonces each seed pair
//! played, and the gaps between them, found once the whole history is read.
//!
//! An operator who burns the nonce whenever a large bet would win shows every round it
//! lets through honestly: each replays, and the outcomes keep their law. What gives it
//! away is the rounds it withheld. As in the default scheme's audit (`nonce_gaps.csv`
//! and the `skipped_wins` test of [`crate::stats::bets`]), each gap is named, and where the
//! server seed is revealed its rounds are replayed with the bet of the round played right
//! after it: under fairness they pay more than the stake with that bet's chance, and the
//! count of those that would have is Poisson-binomial.
//!
//! The gaps are the holes between the nonces played, in nonce order, whatever the order
//! of the rows: an export sorted by game, or newest first, lists a seed pair's rounds out
//! of play order, and a gap read row by row would be a false one. Nonces below a seed
//! pair's lowest are not a gap (a history may start anywhere). Memory is bounded by the
//! gaps, not the rows: a pair keeps its played nonces as ranges, each with the bet of the
//! round at its start (the round played right after the hole below it).

use super::insert_nonce;
use crate::scheme::stake::StakeGame;
use std::ops::Range;

/// The round at the start of a range of played nonces: its game and bet, and where the
/// history shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RoundAfter {
    /// The game and its parameters.
    pub game: StakeGame,
    /// The bet as the row wrote it.
    pub bet: String,
    /// The row's line.
    pub line: u64,
    /// The row's player.
    pub player: String,
}

/// The nonces one seed pair played, as sorted disjoint ranges, each with the round at
/// its start.
#[derive(Clone, Debug, Default)]
pub(super) struct PlayedNonces {
    ranges: Vec<Range<u64>>,
    starts: Vec<RoundAfter>,
}

/// A gap between two ranges of played nonces, and the round played right after it.
pub(super) struct SkippedGap<'a> {
    /// The nonces not played.
    pub nonces: Range<u64>,
    /// The round at the first nonce played after them.
    pub after: &'a RoundAfter,
}

impl PlayedNonces {
    /// Whether `nonce` was played already.
    pub fn contains(&self, nonce: u64) -> bool {
        let at = self.ranges.partition_point(|r| r.end <= nonce);
        self.ranges.get(at).is_some_and(|r| r.contains(&nonce))
    }

    /// Records `nonce` (not played before) and its round. `nonce` is below `u64::MAX`.
    pub fn insert(&mut self, nonce: u64, round: impl FnOnce() -> RoundAfter) {
        let at = self.ranges.partition_point(|r| r.end <= nonce);
        let joins_left = at > 0 && self.ranges[at - 1].end == nonce;
        let joins_right = at < self.ranges.len() && self.ranges[at].start == nonce + 1;
        insert_nonce(&mut self.ranges, nonce);
        match (joins_left, joins_right) {
            // The range on the right now starts one nonce lower, in this round.
            (false, true) => self.starts[at] = round(),
            // Two ranges joined: the right one's start is no longer after a hole.
            (true, true) => {
                self.starts.remove(at);
            }
            (true, false) => {}
            (false, false) => self.starts.insert(at, round()),
        }
        debug_assert_eq!(self.ranges.len(), self.starts.len());
    }

    /// The holes between the nonces played, lowest first.
    pub fn gaps(&self) -> impl Iterator<Item = SkippedGap<'_>> {
        self.ranges
            .windows(2)
            .zip(&self.starts[1..])
            .map(|(pair, after)| SkippedGap { nonces: pair[0].end..pair[1].start, after })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(line: u64) -> RoundAfter {
        RoundAfter { game: StakeGame::Dice, bet: String::new(), line, player: String::new() }
    }

    fn gaps(played: &PlayedNonces) -> Vec<(Range<u64>, u64)> {
        played.gaps().map(|g| (g.nonces, g.after.line)).collect()
    }

    #[test]
    fn gaps_are_the_holes_in_nonce_order_whatever_the_row_order() {
        // Rows sorted by game: nonces 0, 2, 5 then 1, 6; newest first would be the same.
        let mut played = PlayedNonces::default();
        for (line, nonce) in [(2, 0), (3, 2), (4, 5), (5, 1), (6, 6)] {
            assert!(!played.contains(nonce));
            played.insert(nonce, || round(line));
        }
        assert!(played.contains(6) && !played.contains(3));
        // 3..5 is the only hole; the round after it is nonce 5's, on line 4.
        assert_eq!(gaps(&played), [(3..5, 4)]);
        // Filling the hole from its top moves the round after it; from both sides joins.
        played.insert(4, || round(7));
        assert_eq!(gaps(&played), [(3..4, 7)]);
        played.insert(3, || round(8));
        assert_eq!(gaps(&played), []);
    }

    #[test]
    fn nonces_below_the_lowest_played_are_no_gap() {
        let mut played = PlayedNonces::default();
        played.insert(1_000, || round(2));
        played.insert(1_003, || round(3));
        assert_eq!(gaps(&played), [(1_001..1_003, 3)]);
    }
}
