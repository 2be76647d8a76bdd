//! Exact RTP of the HMAC-SHA256 family's bets ([`crate::scheme::stake`]), counted over the
//! 2^32 equally likely floats, beside the RTP the operator advertises (99% for a 1% edge;
//! 36/37 for European roulette), so that the deviation is stated rather than assumed away.
//!
//! - Roulette: every straight-up bet and the outside bets, each win probability the
//!   preimage count of its pockets over 2^32 (a pocket has 116,080,197 or 116,080,198).
//! - Limbo: a bet on a target multiplier pays the target when the multiplier reaches it;
//!   the floats reaching it are counted exactly ([`crate::scheme::stake::exact`]), for
//!   targets across Stake's range (1.01x to 1,000,000x) and the formula the game names.
//! - Plinko: the bucket is `Binomial(rows, 1/2)` exactly (each row's `floor(f * 2)` splits
//!   the floats in half); the multipliers are the published tables below.
//!
//! Dice, Keno and mines pay by rules (dice's multiplier for a chance, Keno's paytable per
//! risk, mines' multiplier per tile revealed) that fairaudit has not yet taken from a
//! primary source; they are refused by name, not guessed.

use super::decimal::parse_decimal;
use crate::games::roulette::outside_groups;
use crate::scheme::keyed::KeyedScheme;
use crate::scheme::stake::exact::{dice_winning, limbo_reaching, FLOATS};
use crate::scheme::stake::{Risk, StakeGame};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};

/// Plinko's multipliers per rows and risk, half a table from the centre bucket to the
/// edge (the table is symmetric), as Stake's calculator publishes them: the synced copy
/// `src/lib/paylines/plinko-paylines.json` of github.com/provably-fair-betting/verifierform-stake
/// (commit 855fd22c41e28982f5d0f1e9c1c1aca68e9c742a). Copies of one verifier differ at 16 rows,
/// high risk, two buckets from each edge: 26 here (Stake's calculator, the `fair` crate),
/// 27 in the verifier's hand-written copy, which would return 99.343% instead of 98.976%.
const PLINKO_HALF_TABLES: [(u8, [&str; 4]); 9] = [
    (8, ["0.5 1 1.1 2.1 5.6", "0.4 0.7 1.3 3 13", "0.2 0.3 1.5 4 29", "0.1 0.1 1.1 4.6 50"]),
    (9, ["0.7 1 1.6 2 5.6", "0.5 0.9 1.7 4 18", "0.2 0.6 2 7 43", "0.1 0.2 1.5 7.8 100"]),
    (10, ["0.5 1 1.1 1.4 3 8.9", "0.4 0.6 1.4 2 5 22", "0.2 0.3 0.9 3 10 76", "0.1 0.1 0.6 2 11 201"]),
    (11, ["0.7 1 1.3 1.9 3 8.4", "0.5 0.7 1.8 3 6 24", "0.2 0.4 1.4 5.2 14 120", "0.1 0.2 1.1 4 16 324"]),
    (
        12,
        [
            "0.5 1 1.1 1.4 1.6 3 10",
            "0.3 0.6 1.1 2 4 11 33",
            "0.2 0.2 0.7 2 8.1 24 170",
            "0.1 0.1 0.4 1.5 6 30 619",
        ],
    ),
    (
        13,
        [
            "0.7 0.9 1.2 1.9 3 4 8.1",
            "0.4 0.7 1.3 3 6 13 43",
            "0.2 0.2 1 4 11 37 260",
            "0.1 0.1 0.6 3 10 52 1012",
        ],
    ),
    (
        14,
        [
            "0.5 1 1.1 1.3 1.4 1.9 4 7.1",
            "0.2 0.5 1 1.9 4 7 15 58",
            "0.2 0.2 0.3 1.9 5 18 56 420",
            "0.1 0.1 0.2 1.2 3 16 80 2369",
        ],
    ),
    (
        15,
        [
            "0.7 1 1.1 1.5 2 3 8 15",
            "0.3 0.5 1.3 3 5 11 18 88",
            "0.2 0.2 0.5 3 8 27 83 620",
            "0.1 0.1 0.2 1.8 6 23 125 5000",
        ],
    ),
    (
        16,
        [
            "0.5 1 1.1 1.2 1.4 1.4 2 9 16",
            "0.3 0.5 1 1.5 3 5 10 41 110",
            "0.2 0.2 0.2 2 4 9 26 130 1000",
            "0.1 0.1 0.1 1.1 2.5 7 26 216 10000",
        ],
    ),
];

/// Limbo targets the RTP is shown for (hundredths): Stake's smallest and largest payout
/// and points between.
pub const LIMBO_TARGETS: [u64; 12] =
    [101, 110, 150, 200, 300, 500, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// One bet's exact return.
#[derive(Clone, Debug, PartialEq)]
pub struct StakeBetRtp {
    /// The bet, e.g. `straight 17`, `target 2.00x`, `drop`.
    pub bet: String,
    /// What a win returns per unit stake (plinko: the table's largest multiplier).
    pub pays: BigRational,
    /// The chance of a win (plinko: of a bucket returning at least the stake).
    pub win_probability: BigRational,
    /// The exact return per unit stake.
    pub rtp: BigRational,
    /// The return the operator advertises for it.
    pub advertised: BigRational,
}

impl StakeBetRtp {
    /// A bet that returns `pays` per unit stake with chance `win_probability`, else
    /// nothing: its RTP is their product.
    fn all_or_nothing(
        bet: String,
        pays: BigRational,
        win_probability: BigRational,
        advertised: BigRational,
    ) -> Self {
        StakeBetRtp { bet, rtp: &pays * &win_probability, pays, win_probability, advertised }
    }

    /// `rtp - advertised`, per unit stake.
    pub fn deviation(&self) -> BigRational {
        &self.rtp - &self.advertised
    }
}

fn ratio(numerator: u64, denominator: u64) -> BigRational {
    BigRational::new(BigInt::from(numerator), BigInt::from(denominator))
}

/// The multipliers of plinko's buckets 0 to `rows` at `risk`, left to right.
pub fn plinko_multipliers(rows: u8, risk: Risk) -> Vec<BigRational> {
    let (_, tables) = PLINKO_HALF_TABLES.iter().find(|(r, _)| *r == rows).expect("rows are 8 to 16");
    let column = match risk {
        Risk::Low => 0,
        Risk::Medium => 1,
        Risk::High => 2,
        Risk::Expert => 3,
    };
    let half: Vec<BigRational> = tables[column]
        .split(' ')
        .map(|m| parse_decimal(m).expect("the table's multipliers are decimals"))
        .collect();
    // Even rows have a centre bucket, which the mirrored half must not repeat.
    let mirrored = half.iter().rev().take(half.len() - usize::from(rows.is_multiple_of(2)));
    mirrored.chain(&half).cloned().collect()
}

/// The dice targets (hundredths) whose roll-over bets `rtp` shows, where the scheme's dice
/// payout rule is published: from the largest chance to the smallest the operators offer.
const DICE_TARGETS: [u32; 9] = [2, 100, 1_000, 2_500, 5_000, 7_500, 9_000, 9_900, 9_998];

/// The exact RTP of each bet of `game` as `scheme` plays it, or why there is none yet.
pub fn exact_rtp(scheme: KeyedScheme, game: &StakeGame) -> Result<Vec<StakeBetRtp>, String> {
    let ninety_nine = ratio(99, 100);
    match *game {
        StakeGame::Roulette => {
            let advertised = ratio(36, 37);
            let law = scheme.law(37);
            let bet = |name: String, pockets: &[u8]| {
                let pays = ratio(36, pockets.len() as u64);
                let words: u64 = pockets.iter().map(|&p| law[usize::from(p)]).sum();
                let win_probability = ratio(words, scheme.words_of_law(37));
                StakeBetRtp::all_or_nothing(name, pays, win_probability, advertised.clone())
            };
            let straight = (0..37u8).map(|pocket| bet(format!("straight {pocket}"), &[pocket]));
            // (`green` is the zero alone: the straight bet on 0.)
            let outside = outside_groups(37)
                .into_iter()
                .filter(|(name, _)| *name != "green")
                .map(|(name, pockets)| bet(name.to_owned(), &pockets));
            Ok(straight.chain(outside).collect())
        }
        StakeGame::Limbo(formula) => Ok(LIMBO_TARGETS
            .iter()
            .map(|&target| {
                let pays = ratio(target, 100);
                let win_probability = ratio(limbo_reaching(formula, target), FLOATS);
                let bet = format!("target {}.{:02}x", target / 100, target % 100);
                StakeBetRtp::all_or_nothing(bet, pays, win_probability, ninety_nine.clone())
            })
            .collect()),
        StakeGame::Plinko { rows, risk } => {
            let multipliers = plinko_multipliers(rows, risk);
            let mut coefficient = BigInt::one();
            let (mut rtp, mut win) = (BigRational::zero(), BigRational::zero());
            let all = BigInt::one() << u32::from(rows);
            for (bucket, multiplier) in multipliers.iter().enumerate() {
                if bucket > 0 {
                    coefficient = coefficient * BigInt::from(u32::from(rows) + 1 - bucket as u32)
                        / BigInt::from(bucket as u32);
                }
                let p = BigRational::new(coefficient.clone(), all.clone());
                if *multiplier >= BigRational::one() {
                    win += &p;
                }
                rtp += p * multiplier;
            }
            let pays = multipliers.iter().max().expect("a table has buckets").clone();
            Ok(vec![StakeBetRtp { bet: "drop".into(), pays, win_probability: win, rtp, advertised: ninety_nine }])
        }
        StakeGame::Dice if scheme.dice_returns().is_some() => {
            let (numerator, denominator) = scheme.dice_returns().expect("checked");
            let advertised = ratio(numerator, denominator);
            let rolls = crate::games::dice::ROLLS;
            Ok(DICE_TARGETS
                .iter()
                .map(|&target| {
                    // The operator's multiplier for its stated chance, (10000 - T) / 10001.
                    let pays = &advertised / ratio(u64::from(rolls - 1 - target), u64::from(rolls));
                    let winning = dice_winning(scheme, target, true);
                    let win_probability = ratio(winning, scheme.words_of_law(rolls));
                    let bet = format!("over {}.{:02}", target / 100, target % 100);
                    StakeBetRtp::all_or_nothing(bet, pays, win_probability, advertised.clone())
                })
                .collect())
        }
        StakeGame::Dice | StakeGame::Keno | StakeGame::Mines { .. } => Err(format!(
            "the exact RTP of {} needs its payout rule, which fairaudit has not taken from a primary source yet (roulette, limbo and plinko have theirs; docs/schemes.md)",
            game.name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::stake::LimboFormula;
    use num_traits::ToPrimitive;

    fn percent(x: &BigRational) -> f64 {
        x.to_f64().unwrap() * 100.0
    }

    #[test]
    fn plinko_tables_are_whole_and_return_about_99_percent() {
        for (rows, _) in PLINKO_HALF_TABLES {
            for risk in [Risk::Low, Risk::Medium, Risk::High, Risk::Expert] {
                let multipliers = plinko_multipliers(rows, risk);
                assert_eq!(multipliers.len(), usize::from(rows) + 1);
                let reversed: Vec<_> = multipliers.iter().rev().cloned().collect();
                assert_eq!(multipliers, reversed, "{rows} {risk:?} is symmetric");
                let bets = exact_rtp(KeyedScheme::Stake, &StakeGame::Plinko { rows, risk }).unwrap();
                let rtp = percent(&bets[0].rtp);
                assert!((98.9..99.25).contains(&rtp), "{rows} {risk:?}: {rtp}");
            }
        }
        // The 26 of 16 rows, high risk: 98.976% (27 would be 99.343%).
        let high = exact_rtp(KeyedScheme::Stake, &StakeGame::Plinko { rows: 16, risk: Risk::High }).unwrap();
        assert!((percent(&high[0].rtp) - 98.976).abs() < 5e-4, "{}", percent(&high[0].rtp));
        assert_eq!(plinko_multipliers(16, Risk::High)[2], parse_decimal("26").unwrap());
    }

    #[test]
    fn roulette_bets_deviate_from_36_over_37_by_the_preimages_only() {
        let bets = exact_rtp(KeyedScheme::Stake, &StakeGame::Roulette).unwrap();
        assert_eq!(bets.len(), 37 + 12);
        for bet in &bets {
            let deviation = bet.deviation().to_f64().unwrap().abs();
            assert!(deviation < 1e-8 && deviation > 0.0, "{}: {deviation}", bet.bet);
        }
        // The 37 straight-up bets' chances add up to one.
        let total: BigRational = bets[..37].iter().map(|b| b.win_probability.clone()).sum();
        assert_eq!(total, BigRational::one());
    }

    #[test]
    fn limbo_returns_are_the_reaching_floats() {
        let bets = exact_rtp(KeyedScheme::Stake, &StakeGame::Limbo(LimboFormula::Verifierform)).unwrap();
        let top = bets.iter().find(|b| b.bet == "target 1000000.00x").unwrap();
        assert_eq!(top.win_probability, ratio(4_096, FLOATS));
        assert!((percent(&top.rtp) - 95.3674).abs() < 1e-4);
        assert!(exact_rtp(KeyedScheme::Stake, &StakeGame::Dice).unwrap_err().contains("payout rule"));
    }
}
