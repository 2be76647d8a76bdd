//! Keno: 10 numbers drawn one by one, without repetition, from 1..=40 (SPEC §4).
//!
//! The not-yet-drawn numbers are kept ascending; each draw samples an index among the
//! `P` that remain (P = 40, 39, …, 31) and removes that element, keeping the order.

use super::{Game, GameId, OutcomeSpace};
use crate::chain::WordSource;
use crate::sampler::sample;

/// Numbers on the Keno grid.
pub const GRID: usize = 40;
/// Numbers drawn per round.
pub const DRAWN: usize = 10;
/// Words the operator's published verifier generates per Keno round (SPEC §4).
pub const REFERENCE_WORDS: u64 = 80;

/// The Keno game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Keno;

/// One Keno round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KenoRound {
    /// The drawn numbers (1..=40) in draw order.
    pub order: [u8; DRAWN],
    /// Words rejected at each draw; draw `k` sampled among `40 - k` numbers.
    pub rejected: [u32; DRAWN],
}

impl KenoRound {
    /// The drawn numbers as a bit set: bit `n` is set when number `n` was drawn.
    #[inline]
    pub fn mask(&self) -> u64 {
        self.order.iter().fold(0, |mask, &n| mask | 1 << n)
    }

    /// The drawn numbers ascending, as the operator shows the result.
    pub fn sorted(&self) -> [u8; DRAWN] {
        let mut sorted = self.order;
        sorted.sort_unstable();
        sorted
    }
}

/// Numbers a Keno draw samples among at draw `k` (0-based).
pub const fn choices_at_draw(k: usize) -> u32 {
    (GRID - k) as u32
}

impl Game for Keno {
    type Outcome = KenoRound;

    fn id(&self) -> GameId {
        GameId::Keno
    }

    fn space(&self) -> OutcomeSpace {
        OutcomeSpace { outcomes: GRID, draws_per_round: DRAWN, reference_words: REFERENCE_WORDS }
    }

    #[inline]
    fn draw<W: WordSource + ?Sized>(&self, words: &mut W, round: &mut KenoRound) {
        let mut remaining: [u8; GRID] = std::array::from_fn(|i| i as u8 + 1);
        for k in 0..DRAWN {
            let left = GRID - k;
            let pick = sample(words, choices_at_draw(k));
            let index = pick.index as usize;
            round.order[k] = remaining[index];
            round.rejected[k] = pick.rejected;
            remaining.copy_within(index + 1..left, index);
        }
    }

    fn draw_order_text(&self, round: &KenoRound) -> String {
        join_numbers(&round.order)
    }

    fn result_text(&self, round: &KenoRound) -> String {
        join_numbers(&round.sorted())
    }

    fn words_consumed(&self, round: &KenoRound) -> u64 {
        DRAWN as u64 + round.rejected.iter().map(|&r| u64::from(r)).sum::<u64>()
    }
}

fn join_numbers(numbers: &[u8]) -> String {
    numbers.iter().map(u8::to_string).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::FixedWords;

    #[test]
    fn zero_words_draw_the_lowest_remaining_number_each_time() {
        let mut round = KenoRound::default();
        Keno.draw(&mut FixedWords::new([0]), &mut round);
        assert_eq!(round.order, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    }

    #[test]
    fn index_is_into_the_remaining_list_not_the_grid() {
        // 39 % 40 = 39 -> 40; then 38 % 39 = 38 -> 39 (the last remaining); then 0 -> 1.
        let mut round = KenoRound::default();
        Keno.draw(&mut FixedWords::new([39, 38, 0]), &mut round);
        assert_eq!(&round.order[..3], &[40, 39, 1]);
        assert_eq!(round.sorted()[..3], [1, 2, 3]);
    }

    #[test]
    fn a_rejected_word_is_recorded_at_its_draw() {
        // 2^32 - 1 is rejected at P = 40 (limit 4_294_967_280).
        let mut round = KenoRound::default();
        let mut words = FixedWords::new([u32::MAX, 5, 0]);
        Keno.draw(&mut words, &mut round);
        assert_eq!(round.rejected[0], 1);
        assert_eq!(round.order[0], 6);
        assert_eq!(Keno.words_consumed(&round), 11);
        assert_eq!(words.words_used(), 11);
    }

    #[test]
    fn mask_has_one_bit_per_drawn_number() {
        let mut round = KenoRound::default();
        Keno.draw(&mut FixedWords::new([17, 3, 29, 0]), &mut round);
        assert_eq!(round.mask().count_ones(), 10);
        assert_eq!(round.mask() & 1, 0, "bit 0 is never a Keno number");
    }
}
