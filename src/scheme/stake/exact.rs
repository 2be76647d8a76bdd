//! The exact laws of the family's outcomes, counted over the 2^32 equally likely floats.
//!
//! A float is k / 2^32 for k uniform on 0..2^32, so an outcome's probability is the
//! number of its preimages k over 2^32: not the advertised 1/n whenever n does not divide
//! 2^32 (dice's 10,001 rolls, roulette's 37 pockets, a Keno or mines draw among 39 or 23).
//! `floor(k * n / 2^32) = v` holds for `k` in `ceil(v * 2^32 / n) .. ceil((v + 1) * 2^32 / n)`,
//! so each outcome has ⌊2^32/n⌋ or ⌈2^32/n⌉ preimages ([`FloorOfFloat::preimages`], the
//! family's pick rule). Limbo's multiplier
//! falls as the float grows (every formula divides by an increasing function of it), so
//! the floats reaching a target are a prefix 0..K, found by bisection
//! ([`limbo_reaching`]); the exact chance of a limbo bet and its return follow.

use super::games::{limbo, LimboFormula};
use super::stream::UnitFloat;
use crate::scheme::keyed::KeyedScheme;

/// The number of floats: 2^32.
pub const FLOATS: u64 = 1 << 32;

/// The largest relative deviation of `floor(float * n)` from uniform: of the values with
/// the most preimages, or those with the fewest, over 2^32 / n, whichever is farther.
pub fn largest_deviation(n: u32) -> f64 {
    let expected = FLOATS as f64 / f64::from(n);
    let (fewest, most) = ((FLOATS / u64::from(n)) as f64, FLOATS.div_ceil(u64::from(n)) as f64);
    (most / expected - 1.0).max(1.0 - fewest / expected)
}

/// How far from uniform the outcomes of `game` are, as `scheme` plays it, for the games
/// advertised as uniform (dice's rolls, roulette's pockets): [`largest_deviation`] of the
/// floor of a float; `None` for the other games, and for a scheme whose pick is exactly
/// uniform for them (Duel's dice).
pub fn deviation_from_uniform(scheme: KeyedScheme, game: &super::StakeGame) -> Option<f64> {
    match (scheme, game) {
        (KeyedScheme::Stake, super::StakeGame::Dice) => Some(largest_deviation(crate::games::dice::ROLLS)),
        (KeyedScheme::Stake, super::StakeGame::Roulette) => Some(largest_deviation(37)),
        (KeyedScheme::Stake, _) => None,
        // 4,294,959,453 accepted words, a whole number of cycles of 10,001: exactly uniform.
        (KeyedScheme::Duel, _) => None,
    }
}

/// The number of words on which a dice bet of `scheme` wins, of the
/// [`KeyedScheme::words_of_law`] its roll's pick accepts: `over` a target (in hundredths)
/// wins on a roll above it, under one on a roll below it. (The HMAC family's roll is
/// `floor(k * 10001 / 2^32)`, so its rolls from `v` up have the floats from
/// `ceil(v * 2^32 / 10001)` up.)
pub fn dice_winning(scheme: KeyedScheme, target: u32, over: bool) -> u64 {
    let rolls = crate::games::dice::ROLLS;
    let below = |roll: u32| scheme.words_below(rolls, roll.min(rolls));
    if over {
        scheme.words_of_law(rolls) - below(target.saturating_add(1))
    } else {
        below(target)
    }
}

/// The number of floats whose limbo multiplier (in hundredths) reaches `target`: a bet
/// on `target` wins with probability this / 2^32. `Infinity` reaches every target.
pub fn limbo_reaching(formula: LimboFormula, target: u64) -> u64 {
    let reaches = |k: u64| limbo(UnitFloat(k as u32), formula).is_none_or(|m| m >= target);
    // Invariant: every float below `low` reaches the target, none from `high` on.
    let (mut low, mut high) = (0u64, FLOATS);
    while low < high {
        let middle = low + (high - low) / 2;
        if reaches(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// The exact return to player of a limbo bet on `target` (hundredths) paying `target`
/// times the stake: target/100 x reaching/2^32.
pub fn limbo_return(formula: LimboFormula, target: u64) -> f64 {
    target as f64 / 100.0 * limbo_reaching(formula, target) as f64 / FLOATS as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampler::PickRule;
    use crate::scheme::stake::FloorOfFloat;

    #[test]
    fn a_dice_bet_wins_on_the_floats_of_the_rolls_beyond_its_target() {
        let rolls = FloorOfFloat::law(10_001);
        for target in [0u32, 1, 4_950, 5_050, 9_999, 10_000] {
            let above: u64 = rolls[target as usize + 1..].iter().sum();
            let below: u64 = rolls[..target as usize].iter().sum();
            assert_eq!(dice_winning(KeyedScheme::Stake, target, true), above, "over {target}");
            assert_eq!(dice_winning(KeyedScheme::Stake, target, false), below, "under {target}");
        }
        // Over 50.50 and under 49.50 each win on 4,950 of the 10,001 rolls.
        assert_eq!(dice_winning(KeyedScheme::Stake, 5_050, true) / 1_000, (4_950 * FLOATS / 10_001) / 1_000);
    }

    #[test]
    fn a_law_is_the_preimages_of_floor_scaling() {
        for n in [2u32, 23, 37, 39, 40, 10_001] {
            let counts = FloorOfFloat::law(n);
            assert_eq!(counts.iter().sum::<u64>(), FLOATS, "{n}");
            let mut first = 0u64;
            for (value, &count) in counts.iter().enumerate() {
                // The first preimage maps to the value, the one before it to the value before.
                assert_eq!(UnitFloat(first as u32).scale(n), value as u32, "{n} {value}");
                if first > 0 {
                    assert_eq!(UnitFloat((first - 1) as u32).scale(n), value as u32 - 1);
                }
                assert!(count == FLOATS / u64::from(n) || count == FLOATS.div_ceil(u64::from(n)));
                first += count;
            }
        }
        assert_eq!(FloorOfFloat::law(2), vec![1 << 31, 1 << 31]);
    }

    #[test]
    fn dice_and_roulette_deviate_from_uniform_by_parts_per_million() {
        // 2^32 / 10001 = 429,453.78...: each roll has 429,453 or 429,454 preimages, the
        // less likely ones 1.83e-6 below 1/10001 (relative), the others 5.0e-7 above.
        let dice = FloorOfFloat::law(10_001);
        assert_eq!((*dice.iter().min().unwrap(), *dice.iter().max().unwrap()), (429_453, 429_454));
        assert!((largest_deviation(10_001) - 1.826e-6).abs() < 1e-9, "{}", largest_deviation(10_001));
        let roulette = FloorOfFloat::law(37);
        assert_eq!(
            (*roulette.iter().min().unwrap(), *roulette.iter().max().unwrap()),
            (116_080_197, 116_080_198)
        );
        assert!((largest_deviation(37) - 6.98e-9).abs() < 1e-11, "{}", largest_deviation(37));
        assert_eq!(largest_deviation(2), 0.0);
    }

    #[test]
    fn limbo_reaching_is_the_prefix_of_floats_that_reach_the_target() {
        for formula in LimboFormula::ALL {
            for target in [100u64, 101, 198, 200, 1_000, 100_000_000] {
                let reaching = limbo_reaching(formula, target);
                let value = |k: u64| limbo(UnitFloat(k as u32), formula);
                assert!(reaching > 0, "{formula:?} {target}");
                assert!(value(reaching - 1).is_none_or(|m| m >= target), "{formula:?} {target}");
                if reaching < FLOATS {
                    assert!(value(reaching).is_some_and(|m| m < target), "{formula:?} {target}");
                }
            }
        }
        // Every float reaches 1.00 on the page (its clamp); 1% of them do not in the others.
        assert_eq!(limbo_reaching(LimboFormula::StakePage, 100), FLOATS);
        assert!(limbo_reaching(LimboFormula::Fair, 100) < FLOATS * 99 / 100 + FLOATS / 10_000);
        // The multiplier never rises with the float (what the bisection rests on), checked
        // on a spread of floats.
        for formula in LimboFormula::ALL {
            let mut last = None::<u64>;
            for k in (0..FLOATS).step_by(9_973) {
                let m = limbo(UnitFloat(k as u32), formula).unwrap_or(u64::MAX);
                assert!(last.is_none_or(|last| m <= last), "{formula:?} at {k}");
                last = Some(m);
            }
        }
    }

    #[test]
    fn limbo_returns_near_99_percent_and_where_they_differ() {
        for formula in LimboFormula::ALL {
            for target in [101u64, 200, 1_000, 10_000, 100_000] {
                let rtp = limbo_return(formula, target);
                assert!((0.985..=0.991).contains(&rtp), "{formula:?} {target}: {rtp}");
            }
        }
        // At 1,000.00x (docs/schemes.md's table): 98.9974% and 98.9990% against 99.0000%.
        assert_eq!(limbo_reaching(LimboFormula::Verifierform, 100_000), 4_251_904);
        assert_eq!(limbo_reaching(LimboFormula::Fair, 100_000), 4_251_975);
        assert_eq!(limbo_reaching(LimboFormula::StakePage, 100_000), 4_252_018);
        // At 1,000,000.00x the verifier's formula, which reads 24 bits, returns 95.4%
        // (4096 of 2^32 floats reach it); the others 99.02% (4253).
        assert_eq!(limbo_reaching(LimboFormula::Verifierform, 100_000_000), 4096);
        assert_eq!(limbo_reaching(LimboFormula::Fair, 100_000_000), 4253);
        assert_eq!(limbo_reaching(LimboFormula::StakePage, 100_000_000), 4253);
        // Target 1.01: the floats at 1.00 or below lose; the page's clamp makes 1.00 what
        // the other two show as 0.99, and all three lose there alike.
        let page = limbo_reaching(LimboFormula::StakePage, 101);
        let fair = limbo_reaching(LimboFormula::Fair, 101);
        assert!(page.abs_diff(fair) < FLOATS / 100_000, "{page} {fair}");
    }
}
