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
        // Sampling depends only on the words, not on which numbers were drawn, so the ten
        // indices are sampled first, then turned into numbers all at once. Written out draw
        // by draw so that each draw's P is a constant: the sampler's limit and `% P` then
        // compile to multiplications, where a loop paid two divisions per draw (profiled:
        // a fifth of a sweep's time on the AVX-512 path).
        let mut indices = [0u8; LANES];
        macro_rules! samples {
            ($($k:literal)*) => {$(
                let pick = sample(words, choices_at_draw($k));
                indices[$k] = pick.index as u8;
                round.rejected[$k] = pick.rejected;
            )*};
        }
        samples!(0 1 2 3 4 5 6 7 8 9);
        const _: () = assert!(DRAWN == 10, "one sample per draw");
        let positions = positions_in_grid(indices);
        for (number, position) in round.order.iter_mut().zip(positions) {
            *number = position + 1;
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

/// Width of the index vector: the ten draws padded to a 16-byte vector.
const LANES: usize = 16;

/// Turns the draws' indices into positions in the full grid (0-based): `indices[k]` is the
/// index of draw `k` among the numbers left, ascending (SPEC §4), i.e. a Lehmer code.
///
/// Decoded from the last draw back: an earlier draw at position `p` was removed before the
/// later ones sampled, so each later position at or above `p` moves up one. The same
/// removal as SPEC §4's list, without a list: a short chain of vector compares and adds
/// (where removing from a list, one draw after the other, was a chain of dependent memory
/// moves or bit selects, about a quarter of a Keno sweep's time on the AVX-512 path).
#[inline(always)]
fn positions_in_grid(mut positions: [u8; LANES]) -> [u8; LANES] {
    for earlier in (0..DRAWN - 1).rev() {
        let removed = positions[earlier];
        for (later, position) in positions.iter_mut().enumerate() {
            *position += u8::from(later > earlier && *position >= removed);
        }
    }
    positions
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
    fn decoded_positions_equal_removal_from_an_ascending_list() {
        // Many draw sequences of a round's shape, with a simple generator for the indices,
        // and the extremes (always the first, always the last number left).
        let mut x = 7u64;
        let mut sequences: Vec<[u8; DRAWN]> = vec![[0; DRAWN], std::array::from_fn(|k| (GRID - 1 - k) as u8)];
        for _ in 0..20_000 {
            sequences.push(std::array::from_fn(|k| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                ((x >> 33) % (GRID - k) as u64) as u8
            }));
        }
        for indices in sequences {
            let mut list: Vec<u8> = (1..=40).collect();
            let expected: Vec<u8> = indices.iter().map(|&i| list.remove(usize::from(i))).collect();
            let mut padded = [0u8; LANES];
            padded[..DRAWN].copy_from_slice(&indices);
            let got: Vec<u8> = positions_in_grid(padded)[..DRAWN].iter().map(|p| p + 1).collect();
            assert_eq!(got, expected, "indices {indices:?}");
        }
    }

    #[test]
    fn mask_has_one_bit_per_drawn_number() {
        let mut round = KenoRound::default();
        Keno.draw(&mut FixedWords::new([17, 3, 29, 0]), &mut round);
        assert_eq!(round.mask().count_ones(), 10);
        assert_eq!(round.mask() & 1, 0, "bit 0 is never a Keno number");
    }
}
