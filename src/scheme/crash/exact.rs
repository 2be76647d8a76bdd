//! The exact law of a crash game's point, counted over the 2^256 HMAC digests (uniform
//! under a fair chain): the game crashes at once for the multiples of the divisor `m`;
//! otherwise its point grows with the digest's top 52 bits `h`. So the point reaches a
//! target `T` exactly for the digests whose `h` is at least the smallest `h_T` reaching
//! `T` (the operators' double arithmetic is monotone in `h`, and `h_T` is found by
//! bisection on it) and that are not multiples of `m`: `((2^52 - h_T) 2^204 - M) / 2^256`,
//! with `M` the multiples of `m` among them, counted exactly. Nothing assumes that the two
//! rules are independent.

use super::{formula_hundredths, CrashVariant};
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::One;

/// `h` takes 2^52 values.
const TOP: u64 = 1 << 52;

/// The smallest `h` whose crash point (by the formula) is at least `target` hundredths;
/// 2^52 when none is.
pub fn threshold(target: u64) -> u64 {
    let (mut low, mut high) = (0u64, TOP);
    // Invariant: every h < low falls short; high reaches the target or is 2^52.
    while low < high {
        let middle = low + (high - low) / 2;
        if formula_hundredths(middle) >= target {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    low
}

/// Multiples of `m` in `[a, b)`, `0 <= a <= b`.
fn multiples(a: &BigInt, b: &BigInt, m: u64) -> BigInt {
    let m = BigInt::from(m);
    let below = |x: &BigInt| -> BigInt { (x - BigInt::one()).div_floor(&m) };
    below(b) - below(a)
}

/// The probability that a game crashes at once: the multiples of the divisor among the
/// 2^256 digests.
pub fn instant_probability(variant: CrashVariant) -> BigRational {
    let all = BigInt::one() << 256;
    BigRational::new(multiples(&BigInt::from(0), &all, variant.instant_divisor()), all)
}

/// The probability that a game's crash point reaches `target` hundredths (an instant
/// crash reaches nothing).
pub fn reach_probability(variant: CrashVariant, target: u64) -> BigRational {
    let all = BigInt::one() << 256;
    let from = BigInt::from(threshold(target)) << 204;
    let reaching = (&all - &from) - multiples(&from, &all, variant.instant_divisor());
    BigRational::new(reaching, all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::ToPrimitive;

    #[test]
    fn thresholds_sit_where_the_formula_reaches_the_target() {
        for target in [100, 101, 150, 200, 1_000, 1_000_000, 100_000_000] {
            let h = threshold(target);
            assert!(formula_hundredths(h) >= target, "{target}");
            assert!(h == 0 || formula_hundredths(h - 1) < target, "{target}");
        }
        // 100 e - h >= T (e - h) exactly where h >= (T - 100) e / (T - 1).
        assert_eq!(threshold(100), 0);
        assert_eq!(threshold(200), (TOP * 100).div_ceil(199));
        // The double arithmetic reaches 1.50x one h lower than integers would
        // (1511275042741778): JavaScript's, followed.
        assert_eq!(threshold(150), 1_511_275_042_741_777);
    }

    #[test]
    fn the_law_is_the_formula_times_the_instant_rule() {
        for variant in CrashVariant::ALL {
            let m = variant.instant_divisor() as f64;
            assert!((instant_probability(variant).to_f64().unwrap() - 1.0 / m).abs() < 1e-15);
            // Every game not instant reaches 1.00x.
            let all = reach_probability(variant, 100) + instant_probability(variant);
            assert_eq!(all, BigRational::one());
            for target in [101, 200, 10_000] {
                // 99 / (T - 1) of the digests reach T by the formula, 1 - 1/m are not instant.
                let approx = 99.0 / (target as f64 - 1.0) * (1.0 - 1.0 / m);
                let exact = reach_probability(variant, target).to_f64().unwrap();
                assert!((exact - approx).abs() < 1e-8, "{variant:?} {target}: {exact} vs {approx}");
            }
        }
    }
}
