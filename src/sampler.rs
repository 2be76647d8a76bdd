//! Fair choice among `P` outcomes by rejection sampling (SPEC §3).
//!
//! `limit = floor(2^32 / P) * P`; words at or above `limit` are discarded (but consumed),
//! the first word below it gives `word mod P`. Each of the `P` results then has exactly
//! `floor(2^32 / P)` preimages, so the choice is exactly uniform if the words are.
//! The limit is computed in `u64`: for powers of two it equals 2^32, which a `u32`
//! cannot hold (Keno passes through P = 32 every round).

use crate::chain::WordSource;

/// One sampled index and how many words were rejected before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampled {
    /// The chosen index, in `0..P`.
    pub index: u32,
    /// Words discarded because they were at or above the limit.
    pub rejected: u32,
}

/// The acceptance limit for `outcomes` choices: `floor(2^32 / P) * P`.
///
/// # Panics
/// If `outcomes` is zero.
#[inline]
pub const fn limit(outcomes: u32) -> u64 {
    assert!(outcomes > 0, "cannot choose among zero outcomes");
    (1u64 << 32) / outcomes as u64 * outcomes as u64
}

/// How many of the 2^32 word values are rejected for `outcomes` choices: `2^32 mod P`.
/// The per-draw rejection probability is this divided by 2^32.
pub const fn rejected_values(outcomes: u32) -> u64 {
    (1u64 << 32) - limit(outcomes)
}

/// The expected number of rejected words over `draws` draws among `outcomes` choices:
/// each word is rejected with probability `q = (2³² mod P)/2³²`, so a draw rejects a
/// geometric number of words with mean `q/(1 − q)`.
pub fn expected_rejections(outcomes: u32, draws: u64) -> f64 {
    let q = rejected_values(outcomes) as f64 / (1u64 << 32) as f64;
    draws as f64 * q / (1.0 - q)
}

/// Chooses uniformly among `outcomes` choices, consuming words from `words` until one is
/// accepted.
///
/// # Panics
/// If `outcomes` is zero.
#[inline(always)]
pub fn sample<W: WordSource + ?Sized>(words: &mut W, outcomes: u32) -> Sampled {
    let limit = limit(outcomes);
    let mut rejected = 0;
    loop {
        let word = words.next_word();
        if u64::from(word) < limit {
            return Sampled { index: word % outcomes, rejected };
        }
        rejected += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::FixedWords;

    #[test]
    fn one_outcome_always_gives_zero_and_never_rejects() {
        let mut words = FixedWords::new([u32::MAX, 0, 12345]);
        for _ in 0..3 {
            assert_eq!(sample(&mut words, 1), Sampled { index: 0, rejected: 0 });
        }
        assert_eq!(words.words_used(), 3);
    }

    #[test]
    fn powers_of_two_never_reject_even_the_largest_word() {
        for shift in 0..=31 {
            let p = 1u32 << shift;
            assert_eq!(limit(p), 1 << 32, "P = {p}");
            let mut words = FixedWords::new([u32::MAX]);
            let got = sample(&mut words, p);
            assert_eq!(got, Sampled { index: u32::MAX % p, rejected: 0 });
            assert_eq!(words.words_used(), 1);
        }
    }

    #[test]
    fn limits_for_roulette_and_keno_sizes() {
        // 2^32 = 4_294_967_296; 2^32 mod 37 = 7, 2^32 mod 40 = 16.
        assert_eq!(limit(37), 4_294_967_289);
        assert_eq!(limit(40), 4_294_967_280);
        let published = [4, 0, 4, 18, 11, 4, 7, 6, 22, 16]; // SPEC §3, P = 31..40
        for (p, expected) in (31..=40).zip(published) {
            assert_eq!(rejected_values(p), expected, "P = {p}");
        }
    }

    #[test]
    fn rejected_words_are_consumed_and_counted() {
        // For P = 37 the words 4_294_967_289..=u32::MAX are rejected.
        let mut words = FixedWords::new([u32::MAX, 4_294_967_289, 4_294_967_288, 7]);
        let got = sample(&mut words, 37);
        assert_eq!(got, Sampled { index: 4_294_967_288 % 37, rejected: 2 });
        assert_eq!(words.words_used(), 3);
        assert_eq!(sample(&mut words, 37), Sampled { index: 7, rejected: 0 });
    }

    #[test]
    fn the_word_just_below_the_limit_is_accepted() {
        let mut words = FixedWords::new([4_294_967_279]);
        assert_eq!(sample(&mut words, 40), Sampled { index: 4_294_967_279 % 40, rejected: 0 });
        let mut words = FixedWords::new([4_294_967_280, 0]);
        assert_eq!(sample(&mut words, 40), Sampled { index: 0, rejected: 1 });
    }

    #[test]
    #[should_panic(expected = "zero outcomes")]
    fn zero_outcomes_is_a_programming_error() {
        sample(&mut FixedWords::new([1]), 0);
    }
}
