//! Every roulette bet of SPEC §5, on each wheel, with exactly the pockets it covers.
//!
//! The layout is the standard one: numbers 1–36 in twelve rows of three (row `r` holds
//! `3r+1, 3r+2, 3r+3`; column 1 is `1, 4, …, 34`), with the zero (and, in American
//! roulette, the double zero) above the first row. Coverage:
//!
//! | bet | bets | which |
//! |---|---|---|
//! | straight | 37 / 38 | each pocket, 0 and 00 included |
//! | split | 60 / 62 | the 57 neighbours among 1–36 (24 side by side in a row, 33 one row apart) plus, European: 0-1, 0-2, 0-3; American: 0-1, 0-2, 00-2, 00-3, 0-00 |
//! | street | 12 | each row |
//! | corner | 22 | each 2×2 block of 1–36 |
//! | first four | 1 (European) | 0, 1, 2, 3 |
//! | top line | 1 (American) | 0, 00, 1, 2, 3 |
//! | six line | 11 | each pair of adjacent rows |
//! | column, dozen | 3 each | the three columns; 1–12, 13–24, 25–36 |
//! | red, black, odd, even, low, high | 1 each | 18 numbers (zeros excluded) |
//!
//! Zero splits follow the usual tables (the zeros' cells touch those numbers on the
//! felt). The three-number "trio" bets with a zero (0-1-2, 0-2-3, 0-00-2) are not
//! listed: SPEC §5's street is "three numbers in a row". Coverage choices cannot change
//! an RTP: every bet of one type covers as many pockets and pays the same.

use crate::games::roulette::{is_red, DOUBLE_ZERO};
use crate::games::{Roulette, Wheel};

/// A kind of roulette bet (SPEC §5), each paying a fixed `k:1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BetType {
    /// One pocket.
    Straight,
    /// Two adjacent pockets.
    Split,
    /// A row of three numbers.
    Street,
    /// Four numbers meeting at a corner.
    Corner,
    /// 0, 1, 2, 3 (European only).
    FirstFour,
    /// 0, 00, 1, 2, 3 (American only).
    TopLine,
    /// Two adjacent rows, six numbers.
    SixLine,
    /// One of three columns of twelve.
    Column,
    /// 1–12, 13–24 or 25–36.
    Dozen,
    /// The eighteen red numbers.
    Red,
    /// The eighteen black numbers.
    Black,
    /// The odd numbers 1–35 (zeros are neither odd nor even).
    Odd,
    /// The even numbers 2–36.
    Even,
    /// 1–18.
    Low,
    /// 19–36.
    High,
}

impl BetType {
    /// Every bet type, in the order reports list them.
    pub const ALL: [BetType; 15] = [
        BetType::Straight,
        BetType::Split,
        BetType::Street,
        BetType::Corner,
        BetType::FirstFour,
        BetType::TopLine,
        BetType::SixLine,
        BetType::Column,
        BetType::Dozen,
        BetType::Red,
        BetType::Black,
        BetType::Odd,
        BetType::Even,
        BetType::Low,
        BetType::High,
    ];

    /// The name used in reports.
    pub const fn name(self) -> &'static str {
        match self {
            BetType::Straight => "straight",
            BetType::Split => "split",
            BetType::Street => "street",
            BetType::Corner => "corner",
            BetType::FirstFour => "first_four",
            BetType::TopLine => "top_line",
            BetType::SixLine => "six_line",
            BetType::Column => "column",
            BetType::Dozen => "dozen",
            BetType::Red => "red",
            BetType::Black => "black",
            BetType::Odd => "odd",
            BetType::Even => "even",
            BetType::Low => "low",
            BetType::High => "high",
        }
    }

    /// `k` of the published payout `k:1`: a win returns the stake plus `k` times it.
    pub const fn pays(self) -> u32 {
        match self {
            BetType::Straight => 35,
            BetType::Split => 17,
            BetType::Street => 11,
            BetType::Corner | BetType::FirstFour => 8,
            BetType::TopLine => 6,
            BetType::SixLine => 5,
            BetType::Column | BetType::Dozen => 2,
            BetType::Red | BetType::Black | BetType::Odd | BetType::Even | BetType::Low | BetType::High => 1,
        }
    }

    /// Whether the bet is offered on `wheel` (first four is European, top line American).
    pub const fn offered_on(self, wheel: Wheel) -> bool {
        match self {
            BetType::FirstFour => matches!(wheel, Wheel::European),
            BetType::TopLine => matches!(wheel, Wheel::American),
            _ => true,
        }
    }

    /// The bet types offered on `wheel`, in report order.
    pub fn on(wheel: Wheel) -> Vec<BetType> {
        BetType::ALL.into_iter().filter(|kind| kind.offered_on(wheel)).collect()
    }
}

/// One bet: its type and the pockets it covers (pocket 37 is "00").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bet {
    /// The bet type.
    pub kind: BetType,
    /// The pockets covered, ascending by pocket index.
    pub pockets: Vec<u8>,
}

impl Bet {
    fn new(kind: BetType, mut pockets: Vec<u8>) -> Self {
        pockets.sort_unstable();
        Bet { kind, pockets }
    }

    /// Whether the bet wins when the ball lands in `pocket`.
    pub fn covers(&self, pocket: u8) -> bool {
        self.pockets.contains(&pocket)
    }

    /// The pockets as the operator shows them, in layout order (zeros first), e.g.
    /// `0 00 1 2 3` or `17 18 20 21`.
    pub fn label(&self) -> String {
        let mut shown: Vec<u8> = self.pockets.clone();
        // 00 sits beside 0, before the numbers.
        shown.sort_by_key(|&p| if p == DOUBLE_ZERO { (0, 1) } else { (u32::from(p), 0) });
        shown.into_iter().map(Roulette::label).collect::<Vec<_>>().join(" ")
    }
}

/// The row (0..12) and column (0..3) of a number 1–36 on the layout.
const fn cell(number: u8) -> (u8, u8) {
    ((number - 1) / 3, (number - 1) % 3)
}

/// Every bet of `kind` on `wheel`, in layout order; empty when the wheel does not offer it.
pub fn bets(wheel: Wheel, kind: BetType) -> Vec<Bet> {
    if !kind.offered_on(wheel) {
        return Vec::new();
    }
    let numbers = 1..=36u8;
    let pockets: Vec<Vec<u8>> = match kind {
        BetType::Straight => {
            let mut all: Vec<Vec<u8>> = (0..=36).map(|p| vec![p]).collect();
            if wheel == Wheel::American {
                all.push(vec![DOUBLE_ZERO]);
            }
            all
        }
        BetType::Split => {
            let zero_splits: &[[u8; 2]] = match wheel {
                Wheel::European => &[[0, 1], [0, 2], [0, 3]],
                Wheel::American => &[[0, 1], [0, 2], [DOUBLE_ZERO, 2], [DOUBLE_ZERO, 3], [0, DOUBLE_ZERO]],
            };
            let mut splits: Vec<Vec<u8>> = zero_splits.iter().map(|pair| pair.to_vec()).collect();
            for n in numbers {
                if cell(n).1 < 2 {
                    splits.push(vec![n, n + 1]);
                }
                if n <= 33 {
                    splits.push(vec![n, n + 3]);
                }
            }
            splits
        }
        BetType::Street => (0..12u8).map(|r| vec![3 * r + 1, 3 * r + 2, 3 * r + 3]).collect(),
        BetType::Corner => {
            numbers.filter(|&n| n <= 32 && cell(n).1 < 2).map(|n| vec![n, n + 1, n + 3, n + 4]).collect()
        }
        BetType::FirstFour => vec![vec![0, 1, 2, 3]],
        BetType::TopLine => vec![vec![0, DOUBLE_ZERO, 1, 2, 3]],
        BetType::SixLine => (0..11u8).map(|r| (3 * r + 1..=3 * r + 6).collect()).collect(),
        BetType::Column => (0..3u8).map(|c| numbers.clone().filter(|&n| cell(n).1 == c).collect()).collect(),
        BetType::Dozen => (0..3u8).map(|d| (12 * d + 1..=12 * d + 12).collect()).collect(),
        BetType::Red => vec![numbers.filter(|&n| is_red(n)).collect()],
        BetType::Black => vec![numbers.filter(|&n| !is_red(n)).collect()],
        BetType::Odd => vec![numbers.filter(|n| n % 2 == 1).collect()],
        BetType::Even => vec![numbers.filter(|n| n % 2 == 0).collect()],
        BetType::Low => vec![(1..=18).collect()],
        BetType::High => vec![(19..=36).collect()],
    };
    pockets.into_iter().map(|p| Bet::new(kind, p)).collect()
}

/// The one bet of each type whose realised return the empirical report follows: the bet
/// of the type around 17, mid-layout (straight 17, split 17-18, street 16-17-18, corner
/// 17-18-20-21, six line 16–21, column 2, dozen 2); first four and top line, the
/// even-money bets are the only bet of their type.
///
/// One fixed bet, rather than the average over all bets of the type: the average over
/// all 37 straights returns exactly 36/37 of the stake whatever the wheel does, so it
/// could never show anything; a single bet is what a player actually experiences.
pub fn representative(wheel: Wheel, kind: BetType) -> Option<Bet> {
    let pockets: Vec<u8> = match kind {
        BetType::Straight => vec![17],
        BetType::Split => vec![17, 18],
        BetType::Street => vec![16, 17, 18],
        BetType::Corner => vec![17, 18, 20, 21],
        BetType::SixLine => (16..=21).collect(),
        BetType::Column => (1..=36).filter(|n| n % 3 == 2).collect(),
        BetType::Dozen => (13..=24).collect(),
        _ => return bets(wheel, kind).into_iter().next(),
    };
    let bet = Bet::new(kind, pockets);
    debug_assert!(bets(wheel, kind).contains(&bet), "{bet:?} is a bet of its type");
    Some(bet)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn bet_counts_are_those_of_the_layout() {
        let count = |wheel, kind| bets(wheel, kind).len();
        for (kind, european, american) in [
            (BetType::Straight, 37, 38),
            (BetType::Split, 60, 62),
            (BetType::Street, 12, 12),
            (BetType::Corner, 22, 22),
            (BetType::FirstFour, 1, 0),
            (BetType::TopLine, 0, 1),
            (BetType::SixLine, 11, 11),
            (BetType::Column, 3, 3),
            (BetType::Dozen, 3, 3),
            (BetType::Red, 1, 1),
        ] {
            assert_eq!(count(Wheel::European, kind), european, "{kind:?}");
            assert_eq!(count(Wheel::American, kind), american, "{kind:?}");
        }
    }

    #[test]
    fn every_bet_of_a_type_covers_distinct_pockets_of_the_same_number() {
        for wheel in [Wheel::European, Wheel::American] {
            let pockets = Roulette { wheel }.pockets() as u8;
            for kind in BetType::on(wheel) {
                let all = bets(wheel, kind);
                let sizes: BTreeSet<usize> = all.iter().map(|b| b.pockets.len()).collect();
                assert_eq!(sizes.len(), 1, "{kind:?}");
                let distinct: BTreeSet<&Vec<u8>> = all.iter().map(|b| &b.pockets).collect();
                assert_eq!(distinct.len(), all.len(), "{kind:?}: a bet listed twice");
                for bet in &all {
                    assert!(bet.pockets.iter().all(|&p| p < pockets), "{bet:?}");
                    assert!(bet.pockets.windows(2).all(|w| w[0] < w[1]), "{bet:?}");
                }
            }
        }
    }

    #[test]
    fn splits_corners_and_lines_are_adjacent_on_the_felt() {
        for bet in bets(Wheel::European, BetType::Split).iter().filter(|b| b.pockets[0] > 0) {
            let ((r0, c0), (r1, c1)) = (cell(bet.pockets[0]), cell(bet.pockets[1]));
            assert_eq!(r0.abs_diff(r1) + c0.abs_diff(c1), 1, "{bet:?}");
        }
        for bet in bets(Wheel::European, BetType::Corner) {
            let rows: BTreeSet<u8> = bet.pockets.iter().map(|&n| cell(n).0).collect();
            let columns: BTreeSet<u8> = bet.pockets.iter().map(|&n| cell(n).1).collect();
            assert!(rows.len() == 2 && columns.len() == 2, "{bet:?}");
        }
        for bet in bets(Wheel::European, BetType::SixLine) {
            let rows: BTreeSet<u8> = bet.pockets.iter().map(|&n| cell(n).0).collect();
            assert_eq!(rows.len(), 2, "{bet:?}");
        }
    }

    #[test]
    fn columns_dozens_and_colours_partition_the_numbers() {
        for kind in [BetType::Column, BetType::Dozen] {
            let mut covered: Vec<u8> =
                bets(Wheel::European, kind).into_iter().flat_map(|b| b.pockets).collect();
            covered.sort_unstable();
            assert_eq!(covered, (1..=36).collect::<Vec<_>>(), "{kind:?}");
        }
        for (a, b) in
            [(BetType::Red, BetType::Black), (BetType::Odd, BetType::Even), (BetType::Low, BetType::High)]
        {
            let (a, b) = (&bets(Wheel::American, a)[0], &bets(Wheel::American, b)[0]);
            assert_eq!(a.pockets.len() + b.pockets.len(), 36);
            assert!(a.pockets.iter().all(|p| !b.covers(*p)));
        }
    }

    #[test]
    fn representatives_are_bets_of_their_type() {
        for wheel in [Wheel::European, Wheel::American] {
            for kind in BetType::on(wheel) {
                let bet = representative(wheel, kind).unwrap();
                assert!(bets(wheel, kind).contains(&bet), "{bet:?}");
            }
        }
        assert_eq!(representative(Wheel::American, BetType::TopLine).unwrap().label(), "0 00 1 2 3");
        assert_eq!(representative(Wheel::European, BetType::Corner).unwrap().label(), "17 18 20 21");
    }
}
