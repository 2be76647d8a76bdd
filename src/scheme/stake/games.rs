//! The six games of the HMAC-SHA256 family, each a short function of the floats of one
//! round ([`super::stream`]). Where each algorithm comes from, with the lines quoted, is
//! in docs/schemes.md; what is exact here: every `floor(float * n)` is integer arithmetic
//! on the float's 32-bit numerator, and limbo's formulas run in `f64` in the sources' own
//! order of operations, which is the arithmetic of their JavaScript and Rust.

use super::stream::{FloorOfFloat, UnitFloat};
use crate::chain::WordSource;
use crate::games::keno::{draw_numbers, KenoRound};
use crate::games::roulette::{spin_wheel, Wheel};
use crate::sampler::PickRule;

/// Dice: `floor(float * 10001) / 100`, a roll 0.00 to 100.00, kept in hundredths
/// ([`crate::games::dice`] over the family's rule).
pub fn dice<W: WordSource + ?Sized>(words: &mut W) -> u32 {
    crate::games::dice::roll::<FloorOfFloat, W>(words)
}

/// Roulette (European, 37 pockets): `floor(float * 37)` by the family's rule, a pick among
/// 37 by another scheme's ([`crate::games::roulette`]).
pub fn roulette<R: PickRule, W: WordSource + ?Sized>(words: &mut W) -> u8 {
    spin_wheel::<R, W>(words, Wheel::European).pocket
}

/// Draws `take` of `pool` without replacement, the family's way: float i picks
/// `floor(float * remaining)` among what is left, which is taken out (`splice`), so the
/// rest keep their order. (The pool lives on the stack: a round allocates only its result.)
fn draw_without_replacement<R: PickRule, const N: usize, W: WordSource + ?Sized>(
    words: &mut W,
    mut pool: [u8; N],
    take: usize,
) -> Vec<u8> {
    let mut left = N;
    (0..take)
        .map(|_| {
            let at = R::pick(words, left as u32).index as usize;
            let drawn = pool[at];
            pool.copy_within(at + 1..left, at);
            left -= 1;
            drawn
        })
        .collect()
}

/// Keno: 10 numbers of 1..=40 in draw order (ten floats: the cursor crosses into the
/// round's second block), by [`crate::games::keno`]'s draw over the family's rule.
pub fn keno<R: PickRule, W: WordSource + ?Sized>(words: &mut W) -> Vec<u8> {
    let mut round = KenoRound::default();
    draw_numbers::<R, W>(words, &mut round);
    round.order.to_vec()
}

/// The most mines a board of 25 tiles holds (at least one tile is safe).
pub const MOST_MINES: u8 = 24;

/// Mines: the tiles (0..=24, row-major on the 5 x 5 board) of `mines` mines, in draw order.
pub fn mines<R: PickRule, W: WordSource + ?Sized>(words: &mut W, mines: u8) -> Vec<u8> {
    draw_without_replacement::<R, 25, W>(
        words,
        std::array::from_fn::<u8, 25, _>(|i| i as u8),
        usize::from(mines),
    )
}

/// Plinko: one float a row, `floor(float * 2)` (0 left, 1 right); the ball lands in the
/// bucket counting its rights (0 = leftmost, `rows` = rightmost).
pub fn plinko<R: PickRule, W: WordSource + ?Sized>(words: &mut W, rows: u8) -> u8 {
    (0..rows).map(|_| R::pick(words, 2).index as u8).sum()
}

/// The published formulas of limbo's multiplier, which disagree (docs/schemes.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LimboFormula {
    /// stake.com's game-events page: `max(floor(1e8 / (float * 1e8) * 0.99 * 100) / 100, 1)`.
    StakePage,
    /// The public verifier (verifierform-stake): `floor(16777216 / (floor(float * 16777216) + 1) * 0.99 * 100) / 100`.
    Verifierform,
    /// The `fair` crate: `n = floor(float * 1e8) + 1`, `floor(1e8 / n * 0.99 * 100) / 100`.
    Fair,
}

impl LimboFormula {
    /// Every formula, the operator's own page first.
    pub const ALL: [LimboFormula; 3] =
        [LimboFormula::StakePage, LimboFormula::Verifierform, LimboFormula::Fair];

    /// The name in a round's parameters (`{"variant":"fair"}`).
    pub const fn name(self) -> &'static str {
        match self {
            LimboFormula::StakePage => "stake_page",
            LimboFormula::Verifierform => "verifierform",
            LimboFormula::Fair => "fair",
        }
    }
}

/// Limbo's multiplier in hundredths (truncated to two decimals, as players are shown it),
/// or `None` for the float 0 where a formula divides by zero (JavaScript's `Infinity`).
pub fn limbo(float: UnitFloat, formula: LimboFormula) -> Option<u64> {
    let f = float.value();
    let multiplier = match formula {
        LimboFormula::StakePage => (1e8 / (f * 1e8) * 0.99 * 100.0).floor() / 100.0,
        LimboFormula::Verifierform => {
            let scale = 16_777_216.0;
            ((scale / ((f * scale).floor() + 1.0)) * (1.0 - 0.01) * 100.0).floor() / 100.0
        }
        LimboFormula::Fair => {
            let n = (f * 1e8).floor() + 1.0;
            (1e8 / n * 0.99 * 100.0).floor() / 100.0
        }
    };
    let multiplier = match formula {
        LimboFormula::StakePage => multiplier.max(1.0),
        _ => multiplier,
    };
    // The hundredths are whole in the double: (floor(x) / 100) * 100 rounds back to floor(x).
    multiplier.is_finite().then(|| (multiplier * 100.0).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats_of(values: &[u32]) -> crate::chain::FixedWords {
        crate::chain::FixedWords::new(values.to_vec())
    }

    #[test]
    fn the_extremes_of_each_game() {
        assert_eq!((dice(&mut floats_of(&[0])), dice(&mut floats_of(&[u32::MAX]))), (0, 10_000));
        assert_eq!(
            (
                roulette::<FloorOfFloat, _>(&mut floats_of(&[0])),
                roulette::<FloorOfFloat, _>(&mut floats_of(&[u32::MAX]))
            ),
            (0, 36)
        );
        // Always the first of what is left, then always the last.
        assert_eq!(keno::<FloorOfFloat, _>(&mut floats_of(&[0; 10])), (1..=10).collect::<Vec<u8>>());
        assert_eq!(
            keno::<FloorOfFloat, _>(&mut floats_of(&[u32::MAX; 10])),
            (31..=40).rev().collect::<Vec<u8>>()
        );
        assert_eq!(
            mines::<FloorOfFloat, _>(&mut floats_of(&[u32::MAX; 24]), 24),
            (1..25).rev().collect::<Vec<u8>>()
        );
        assert_eq!(plinko::<FloorOfFloat, _>(&mut floats_of(&[0x8000_0000; 16]), 16), 16);
        assert_eq!(plinko::<FloorOfFloat, _>(&mut floats_of(&[0x7fff_ffff; 16]), 16), 0);
    }

    #[test]
    fn limbo_formulas_at_their_edges() {
        // The float 0: stake's page divides by zero; the others start at n = 1.
        assert_eq!(limbo(UnitFloat(0), LimboFormula::StakePage), None);
        assert_eq!(limbo(UnitFloat(0), LimboFormula::Verifierform), Some(1_660_944_384));
        assert_eq!(limbo(UnitFloat(0), LimboFormula::Fair), Some(9_900_000_000));
        // The largest float: 1.00 on the page (floored at 1), 0.99 in the other two.
        assert_eq!(limbo(UnitFloat(u32::MAX), LimboFormula::StakePage), Some(100));
        assert_eq!(limbo(UnitFloat(u32::MAX), LimboFormula::Verifierform), Some(99));
        assert_eq!(limbo(UnitFloat(u32::MAX), LimboFormula::Fair), Some(99));
        // A half: 1.98 on the page; 1.97 in the others, whose divisor is one more than
        // the float's multiple (2^23 + 1 of 2^24, 5e7 + 1 of 1e8).
        assert_eq!(limbo(UnitFloat(0x8000_0000), LimboFormula::StakePage), Some(198));
        assert_eq!(limbo(UnitFloat(0x8000_0000), LimboFormula::Verifierform), Some(197));
        assert_eq!(limbo(UnitFloat(0x8000_0000), LimboFormula::Fair), Some(197));
    }
}
