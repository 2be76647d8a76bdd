//! Roulette: one pocket drawn uniformly, European (37 pockets) or American (38, where
//! pocket 37 is shown as "00"), SPEC §5.

use super::{Game, GameId, OutcomeSpace};
use crate::chain::WordSource;
use crate::sampler::sample;

/// Which wheel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wheel {
    /// 0..=36.
    European,
    /// 0..=36 and 00 (pocket index 37).
    American,
}

/// Words the operator's published verifier generates per roulette round (SPEC §4).
pub const REFERENCE_WORDS: u64 = 2;

/// The pocket index that American roulette shows as "00".
pub const DOUBLE_ZERO: u8 = 37;

/// The red numbers (SPEC §5); the other non-zero numbers are black.
pub const RED: [u8; 18] = [1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36];

/// Whether a pocket is red (0 and 00 are neither red nor black).
pub fn is_red(pocket: u8) -> bool {
    RED.contains(&pocket)
}

/// The groups of pockets that the outside bets cover (SPEC §5), plus `green` (0, and 00
/// on a 38-pocket wheel), each with its pockets: the categories of the bet-group tests.
pub fn outside_groups(pockets: usize) -> Vec<(&'static str, Vec<u8>)> {
    let numbers = 1..=36u8;
    vec![
        ("red", numbers.clone().filter(|&n| is_red(n)).collect()),
        ("black", numbers.clone().filter(|&n| !is_red(n)).collect()),
        ("odd", numbers.clone().filter(|n| n % 2 == 1).collect()),
        ("even", numbers.clone().filter(|n| n % 2 == 0).collect()),
        ("low", (1..=18).collect()),
        ("high", (19..=36).collect()),
        ("dozen_1", (1..=12).collect()),
        ("dozen_2", (13..=24).collect()),
        ("dozen_3", (25..=36).collect()),
        ("column_1", numbers.clone().filter(|n| n % 3 == 1).collect()),
        ("column_2", numbers.clone().filter(|n| n % 3 == 2).collect()),
        ("column_3", numbers.filter(|n| n % 3 == 0).collect()),
        ("green", if pockets == 38 { vec![0, DOUBLE_ZERO] } else { vec![0] }),
    ]
}

/// The roulette game on one wheel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roulette {
    /// The wheel.
    pub wheel: Wheel,
}

impl Roulette {
    /// European roulette.
    pub const EUROPEAN: Roulette = Roulette { wheel: Wheel::European };
    /// American roulette.
    pub const AMERICAN: Roulette = Roulette { wheel: Wheel::American };

    /// Pockets on the wheel (37 or 38).
    pub const fn pockets(&self) -> u32 {
        match self.wheel {
            Wheel::European => 37,
            Wheel::American => 38,
        }
    }

    /// How the operator shows a pocket: "0".."36", or "00" for pocket 37.
    pub fn label(pocket: u8) -> String {
        if pocket == DOUBLE_ZERO {
            "00".to_owned()
        } else {
            pocket.to_string()
        }
    }
}

/// One roulette spin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spin {
    /// The pocket index, 0..=36, or 37 for "00".
    pub pocket: u8,
    /// Words rejected before the accepted one.
    pub rejected: u32,
}

impl Game for Roulette {
    type Outcome = Spin;

    fn id(&self) -> GameId {
        match self.wheel {
            Wheel::European => GameId::RouletteEuropean,
            Wheel::American => GameId::RouletteAmerican,
        }
    }

    fn space(&self) -> OutcomeSpace {
        OutcomeSpace {
            outcomes: self.pockets() as usize,
            draws_per_round: 1,
            reference_words: REFERENCE_WORDS,
        }
    }

    #[inline]
    fn draw<W: WordSource + ?Sized>(&self, words: &mut W, spin: &mut Spin) {
        // One arm per wheel so that P is a constant and `% P` a multiplication.
        let pick = match self.wheel {
            Wheel::European => sample(words, Roulette::EUROPEAN.pockets()),
            Wheel::American => sample(words, Roulette::AMERICAN.pockets()),
        };
        *spin = Spin { pocket: pick.index as u8, rejected: pick.rejected };
    }

    fn draw_order_text(&self, spin: &Spin) -> String {
        spin.pocket.to_string()
    }

    fn result_text(&self, spin: &Spin) -> String {
        Roulette::label(spin.pocket)
    }

    fn words_consumed(&self, spin: &Spin) -> u64 {
        1 + u64::from(spin.rejected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::FixedWords;

    #[test]
    fn american_pocket_37_is_double_zero_and_european_never_reaches_it() {
        let mut spin = Spin::default();
        Roulette::AMERICAN.draw(&mut FixedWords::new([37]), &mut spin);
        assert_eq!(Roulette::AMERICAN.result_text(&spin), "00");
        assert_eq!(Roulette::AMERICAN.draw_order_text(&spin), "37");
        Roulette::EUROPEAN.draw(&mut FixedWords::new([37]), &mut spin);
        assert_eq!(spin.pocket, 0);
    }

    #[test]
    fn eighteen_red_eighteen_black() {
        assert_eq!((1..=36).filter(|&p| is_red(p)).count(), 18);
        assert!(!is_red(0) && !is_red(DOUBLE_ZERO));
    }
}
