//! Exact RTP of a crash game's cash-outs ([`crate::scheme::crash`]): a bet cashing out at
//! target `T` pays `T` times the stake when the crash point is at least `T`, and nothing
//! otherwise (an instant crash loses every bet).
//!
//! The probability of reaching the target is counted exactly over the 2^256 digests
//! ([`crate::scheme::crash::exact`]): nothing here assumes that the formula's 1% is the
//! edge; the figures show what the rules really give.

use crate::scheme::crash::exact::{reach_probability, threshold};
use crate::scheme::crash::CrashVariant;
use num_rational::BigRational;

/// The cash-out targets `rtp` shows by default, in hundredths: 1.01x to 1,000,000x.
pub const TARGETS: [u64; 11] = [101, 110, 150, 200, 300, 500, 1_000, 10_000, 100_000, 1_000_000, 100_000_000];

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

/// The exact return of cashing out at `target` hundredths.
pub fn cash_out_rtp(variant: CrashVariant, target: u64) -> CashOutRtp {
    let threshold = threshold(target);
    let win_probability = reach_probability(variant, target);
    let rtp = &win_probability * BigRational::new(target.into(), 100.into());
    CashOutRtp { target, threshold, win_probability, rtp }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::ToPrimitive;

    #[test]
    fn the_returns_are_the_formula_times_the_instant_rule() {
        for variant in CrashVariant::ALL {
            let m = variant.instant_divisor() as f64;
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
