//! Exact RTP of a crash game's cash-outs ([`crate::scheme::crash`]): a bet cashing out at
//! target `T` pays `T` times the stake when the crash point is at least `T`, and nothing
//! otherwise (an instant crash loses every bet).
//!
//! The crash point is a function of the HMAC digest, 256 bits taken as uniform: the game
//! crashes at once when the digest is a multiple of the divisor `m`; otherwise the point
//! grows with the digest's top 52 bits `h`. So a cash-out at `T` wins exactly for the
//! digests whose `h` is at least the smallest `h_T` reaching `T` (the operators' double
//! arithmetic is monotone in `h`, and `h_T` is found by bisection on it) and that are not
//! multiples of `m`: `((2^52 - h_T) 2^204 - M) / 2^256`, with `M` the multiples of `m` among
//! them, counted exactly. Nothing here assumes that the two rules are independent, or that
//! the formula's 1% is the edge: the figures show what the rules really give.

use crate::scheme::crash::{formula_hundredths, CrashVariant};
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::One;

/// The cash-out targets `rtp` shows by default, in hundredths: 1.01x to 1,000,000x.
pub const TARGETS: [u64; 11] = [101, 110, 150, 200, 300, 500, 1_000, 10_000, 100_000, 1_000_000, 100_000_000];

/// `h` takes 2^52 values.
const TOP: u64 = 1 << 52;

/// One cash-out target's exact return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CashOutRtp {
    /// The target in hundredths (200 = 2.00x).
    pub target: u64,
    /// The smallest top-52-bit value whose crash point reaches the target (2^52: none).
    pub threshold: u64,
    /// The probability that the crash point reaches the target.
    pub win_probability: BigRational,
    /// The return per unit staked: target x win probability.
    pub rtp: BigRational,
}

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

/// The exact return of cashing out at `target` hundredths.
pub fn cash_out_rtp(variant: CrashVariant, target: u64) -> CashOutRtp {
    let threshold = threshold(target);
    let all = BigInt::one() << 256;
    let from = BigInt::from(threshold) << 204;
    let winning = (&all - &from) - multiples(&from, &all, variant.instant_divisor());
    let win_probability = BigRational::new(winning, all);
    let rtp = &win_probability * BigRational::new(target.into(), 100.into());
    CashOutRtp { target, threshold, win_probability, rtp }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::ToPrimitive;

    #[test]
    fn thresholds_sit_where_the_formula_reaches_the_target() {
        for target in TARGETS {
            let h = threshold(target);
            assert!(formula_hundredths(h) >= target, "{target}");
            assert!(h == 0 || formula_hundredths(h - 1) < target, "{target}");
        }
        // 100 e - h >= T (e - h) exactly where h >= (T - 100) e / (T - 1): 2.00x at e / 2
        // less a little (the 99 h / (e - h) form).
        assert_eq!(threshold(100), 0);
        assert_eq!(threshold(200), (TOP * 100).div_ceil(199));
    }

    #[test]
    fn the_returns_are_the_formula_times_the_instant_rule() {
        for variant in CrashVariant::ALL {
            let m = variant.instant_divisor() as f64;
            assert!((instant_probability(variant).to_f64().unwrap() - 1.0 / m).abs() < 1e-15);
            for target in TARGETS {
                let exact = cash_out_rtp(variant, target);
                // 99 / (T - 1) of the digests reach T by the formula, 1 - 1/m are not instant.
                let t = target as f64 / 100.0;
                let approx = t * 99.0 / (100.0 * t - 1.0) * (1.0 - 1.0 / m);
                let rtp = exact.rtp.to_f64().unwrap();
                assert!((rtp - approx).abs() < 1e-6, "{variant:?} {target}: {rtp} vs {approx}");
            }
        }
        // bustabit v1 at 2.00x: 2 x 99/199 x 100/101, about 98.51%.
        let two = cash_out_rtp(CrashVariant::BustabitV1, 200).rtp.to_f64().unwrap();
        assert!((two - 0.98513).abs() < 1e-4, "{two}");
    }
}
