//! Dice: a roll 0.00 to 100.00, one pick among the 10,001 rolls, kept in hundredths.
//!
//! Every scheme's dice is this function over its own pick rule: the HMAC family's
//! `floor(float * 10001)` ([`crate::scheme::stake`]) and, over a rejection rule, the
//! `v mod 10001` of the operators that reject the top of the word range.

use crate::chain::WordSource;
use crate::sampler::PickRule;

/// The rolls: 0.00 to 100.00 in hundredths.
pub const ROLLS: u32 = 10_001;

/// One roll, in hundredths (0 to 10,000), from `words` by the pick rule `R`.
#[inline]
pub fn roll<R: PickRule, W: WordSource + ?Sized>(words: &mut W) -> u32 {
    R::pick(words, ROLLS).index
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::FixedWords;
    use crate::sampler::Rejection;

    #[test]
    fn a_roll_is_one_pick_among_10001() {
        // 2^32 mod 10001 = 7,843: the top 7,843 words are rejected by the SPEC rule.
        let mut words = FixedWords::new([u32::MAX, 10_001 * 3 + 42]);
        assert_eq!(roll::<Rejection, _>(&mut words), 42);
        assert_eq!(words.words_used(), 2);
    }
}
