//! Picks: how a round's 32-bit words become a choice among `n` outcomes.
//!
//! Every scheme reads its round as a stream of 32-bit words ([`WordSource`]) and turns words
//! into choices by its own *pick rule* ([`PickRule`]): the games are written once over the
//! rule, and the exact law of one pick is the rule's, computed in one place
//! ([`PickRule::law`]). The rule of `SPEC.md` is [`Rejection`] (§3):
//! `limit = floor(2^32 / P) * P`; words at or above `limit` are discarded (but consumed),
//! the first word below it gives `word mod P`. Each of the `P` results then has exactly
//! `floor(2^32 / P)` preimages, so the choice is exactly uniform if the words are.
//! The limit is computed in `u64`: for powers of two it equals 2^32, which a `u32`
//! cannot hold (Keno passes through P = 32 every round).

use crate::chain::WordSource;

/// A scheme's rule for choosing among `n` outcomes from its words: the words below
/// [`PickRule::limit`] are accepted and give [`PickRule::index`]; the others are consumed
/// and rejected, and the next word is read. A rule that never rejects has the limit 2^32
/// (the comparison then compiles away). Rules are types, so that every game is compiled
/// for each scheme's rule: no call through a pointer on any per-round path.
pub trait PickRule: Copy + Default + Send + Sync + 'static {
    /// The words accepted for a choice among `n` are `0..limit(n)` (at most 2^32).
    fn limit(n: u32) -> u64;

    /// The index in `0..n` an accepted word gives.
    fn index(word: u32, n: u32) -> u32;

    /// How many accepted words give `value` (`value < n`): the pick's exact law is these
    /// counts over `limit(n)`.
    fn preimages(n: u32, value: u32) -> u64;

    /// Chooses among `n` outcomes, consuming words from `words` until one is accepted.
    #[inline(always)]
    fn pick<W: WordSource + ?Sized>(words: &mut W, n: u32) -> Sampled {
        let limit = Self::limit(n);
        let mut rejected = 0;
        loop {
            let word = words.next_word();
            if u64::from(word) < limit {
                return Sampled { index: Self::index(word, n), rejected };
            }
            rejected += 1;
        }
    }

    /// How many accepted words give an index below `value` (`value <= n`): the law
    /// summed, which rules override with a closed form.
    fn words_below(n: u32, value: u32) -> u64 {
        (0..value).map(|v| Self::preimages(n, v)).sum()
    }

    /// The exact law of one pick among `n`: the preimages of `0..n`, summing to `limit(n)`.
    fn law(n: u32) -> Vec<u64> {
        (0..n).map(|value| Self::preimages(n, value)).collect()
    }
}

/// The accepted words below `limit` that are `value` modulo `n`: the preimages of a rule
/// whose index is `word mod n`.
pub const fn modulo_preimages(limit: u64, n: u32, value: u32) -> u64 {
    limit / n as u64 + ((value as u64) < limit % n as u64) as u64
}

/// The accepted words below `limit` whose value modulo `n` is below `value` (`value <= n`):
/// [`modulo_preimages`] summed.
pub const fn modulo_words_below(limit: u64, n: u32, value: u32) -> u64 {
    let (value, n) = (value as u64, n as u64);
    value * (limit / n) + if value < limit % n { value } else { limit % n }
}

/// The rule of `SPEC.md` §3: words below `floor(2^32 / P) * P` accepted, `word mod P`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rejection;

impl PickRule for Rejection {
    #[inline(always)]
    fn limit(n: u32) -> u64 {
        limit(n)
    }

    #[inline(always)]
    fn index(word: u32, n: u32) -> u32 {
        word % n
    }

    fn preimages(n: u32, value: u32) -> u64 {
        modulo_preimages(limit(n), n, value)
    }

    fn words_below(n: u32, value: u32) -> u64 {
        modulo_words_below(limit(n), n, value)
    }
}

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

/// Chooses uniformly among `outcomes` choices by the rule of `SPEC.md` ([`Rejection`]),
/// consuming words from `words` until one is accepted.
///
/// # Panics
/// If `outcomes` is zero.
#[inline(always)]
pub fn sample<W: WordSource + ?Sized>(words: &mut W, outcomes: u32) -> Sampled {
    Rejection::pick(words, outcomes)
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

    /// The law by the preimage formula is the law by counting, on a small word space:
    /// every word of a 2^32 space scaled down is out of reach, so the formula is checked
    /// where the counts can be listed (limits up to 1,000) and at the sizes games use.
    #[test]
    fn modulo_preimages_count_the_accepted_words_of_each_value() {
        for limit in [1u64, 7, 36, 37, 999, 1_000] {
            for n in [1u32, 2, 3, 10, 37] {
                let mut counts = vec![0u64; n as usize];
                (0..limit).for_each(|word| counts[(word % u64::from(n)) as usize] += 1);
                let formula: Vec<u64> = (0..n).map(|v| modulo_preimages(limit, n, v)).collect();
                assert_eq!(formula, counts, "limit {limit}, n {n}");
            }
        }
        for n in [37u32, 38, 40, 31, 10_001] {
            let law = Rejection::law(n);
            assert_eq!(law.iter().sum::<u64>(), limit(n), "P = {n}");
            assert!(law.iter().all(|&count| count == (1 << 32) / u64::from(n)), "P = {n}: uniform");
        }
    }

    #[test]
    #[should_panic(expected = "zero outcomes")]
    fn zero_outcomes_is_a_programming_error() {
        sample(&mut FixedWords::new([1]), 0);
    }
}
