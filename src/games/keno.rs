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
        let mut remaining = Remaining::ALL;
        // Written out draw by draw so that each draw's P is a constant: the sampler's limit
        // and `% P` then compile to multiplications, where a loop paid two divisions per
        // draw (profiled: a fifth of a sweep's time on the AVX-512 path).
        macro_rules! draws {
            ($($k:literal)*) => { $(draw_at::<$k, W>(words, &mut remaining, round);)* };
        }
        draws!(0 1 2 3 4 5 6 7 8 9);
        const _: () = assert!(DRAWN == 10, "one draw_at per draw");
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

/// Draw `K` (0-based): samples an index among the `40 − K` numbers left, records the
/// number and the rejections, and removes it.
#[inline(always)]
fn draw_at<const K: usize, W: WordSource + ?Sized>(
    words: &mut W,
    remaining: &mut Remaining,
    round: &mut KenoRound,
) {
    let pick = sample(words, choices_at_draw(K));
    round.order[K] = remaining.take(pick.index);
    round.rejected[K] = pick.rejected;
}

/// The numbers not yet drawn, as a bit set (bit `n` for number `n`). The list "ascending,
/// element `i`" of SPEC §4 is the `i`-th set bit, found without a loop or a memmove (which
/// a `Vec`-like removal costs per draw).
#[derive(Clone, Copy, Debug)]
struct Remaining(u64);

impl Remaining {
    /// Numbers 1..=40.
    const ALL: Remaining = Remaining(((1 << GRID) - 1) << 1);

    /// Removes and returns the `index`-th smallest number left (0-based).
    #[inline(always)]
    fn take(&mut self, index: u32) -> u8 {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let set = self.0;
        // Bits set per byte, then (multiplying by ONES) the running total up to each byte.
        let pairs = set - ((set >> 1) & 0x5555_5555_5555_5555);
        let nibbles = (pairs & 0x3333_3333_3333_3333) + ((pairs >> 2) & 0x3333_3333_3333_3333);
        let per_byte = (nibbles + (nibbles >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
        let running = per_byte.wrapping_mul(ONES);
        // The first byte whose running total exceeds `index` holds the bit: bytewise
        // `running >= index + 1` (totals are at most 40, so no byte borrows from the next).
        let reached = ((running | HIGH) - u64::from(index + 1) * ONES) & HIGH;
        let byte = reached.trailing_zeros() / 8;
        let before = ((running << 8) >> (8 * byte)) as u8;
        let bits = (set >> (8 * byte)) as u8;
        let position =
            8 * byte + u32::from(NTH_SET_BIT[usize::from(bits)][usize::from(index as u8 - before)]);
        self.0 &= !(1 << position);
        position as u8
    }
}

/// `NTH_SET_BIT[b][j]`: the position of the `j`-th set bit (0-based, from the lowest) of
/// the byte `b`; 8 where `b` has fewer than `j + 1` bits set.
const NTH_SET_BIT: [[u8; 8]; 256] = {
    let mut table = [[8u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut bit, mut found) = (0, 0);
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][found] = bit as u8;
                found += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

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
    fn taking_the_ith_remaining_number_equals_removal_from_an_ascending_list() {
        // Every draw sequence of a round's shape, with a simple generator for the indices.
        let mut x = 7u64;
        for _ in 0..20_000 {
            let (mut fast, mut list) = (Remaining::ALL, (1..=40u8).collect::<Vec<_>>());
            for k in 0..DRAWN {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let index = ((x >> 33) % (GRID - k) as u64) as u32;
                assert_eq!(fast.take(index), list.remove(index as usize));
            }
        }
        let mut first_and_last = Remaining::ALL;
        assert_eq!(first_and_last.take(39), 40);
        assert_eq!(first_and_last.take(0), 1);
        assert_eq!(first_and_last.take(37), 39);
    }

    #[test]
    fn mask_has_one_bit_per_drawn_number() {
        let mut round = KenoRound::default();
        Keno.draw(&mut FixedWords::new([17, 3, 29, 0]), &mut round);
        assert_eq!(round.mask().count_ones(), 10);
        assert_eq!(round.mask() & 1, 0, "bit 0 is never a Keno number");
    }
}
