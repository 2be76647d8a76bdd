//! The bets a history records: the Keno numbers a player picked and the roulette bet a
//! player placed, parsed and checked against the game, and what each returns for an
//! outcome.
//!
//! Roulette bets are written `TYPE` or `TYPE:SELECTION`, `TYPE` as `fairaudit rtp` lists
//! them: `straight:17` (`straight:00` on the American wheel), `split:1-4`,
//! `street:1-2-3`, `corner:1-2-4-5`, `six_line:1-2-3-4-5-6`, `first_four`, `top_line`,
//! `dozen:2`, `column:3`, `red`, `black`, `odd`, `even`, `low`, `high`. A selection must
//! be exactly one of the bets of that type on that wheel (`split:1-3` is not a split).
//! Keno picks are 1 to 10 distinct numbers of 1..=40, space-separated.

use super::money::Money;
use crate::fields::{parse_small, Excerpt};
use crate::games::keno::{DRAWN, GRID};
use crate::games::roulette::DOUBLE_ZERO;
use crate::games::GameId;
use crate::games::Wheel;
use crate::rtp::exact::exact_rtp;
use crate::rtp::paytable::Paytable;
use crate::rtp::roulette_bets::{bets, BetType};
use crate::stats::distributions::hypergeometric_pmf;
use crate::tally::bets::common_step;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive};

/// A bet as placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacedBet {
    /// Keno: the picked numbers as a bit set (bit `n` for number `n`).
    Keno {
        /// The picked numbers.
        picks: u64,
    },
    /// Roulette: the bet type and the pockets it covers (bit `p` for pocket `p`, 37 = 00).
    Roulette {
        /// The bet type.
        kind: BetType,
        /// The covered pockets.
        pockets: u64,
    },
}

impl PlacedBet {
    /// Keno picks from their text (`7 13 22`).
    pub fn parse_keno(text: &str) -> Result<PlacedBet, String> {
        let mut picks = 0u64;
        let mut count = 0;
        for token in text.split_whitespace() {
            let number = token
                .parse::<u8>()
                .ok()
                .filter(|n| {
                    (1..=GRID as u8).contains(n) && !token.starts_with('0') && !token.starts_with('+')
                })
                .ok_or_else(|| format!("pick '{}' is not a Keno number 1 to 40", Excerpt(token)))?;
            if picks & 1 << number != 0 {
                return Err(format!("pick {number} is repeated"));
            }
            picks |= 1 << number;
            count += 1;
        }
        if !(1..=DRAWN).contains(&count) {
            return Err(format!("{count} picks; a Keno bet picks 1 to {DRAWN} numbers"));
        }
        Ok(PlacedBet::Keno { picks })
    }

    /// A roulette bet from its text (`straight:17`, `red`, `dozen:2`) on `wheel`.
    pub fn parse_roulette(wheel: Wheel, text: &str) -> Result<PlacedBet, String> {
        let (name, selection) = match text.split_once(':') {
            Some((name, selection)) => (name, Some(selection)),
            None => (text, None),
        };
        let kind = BetType::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| format!("unknown bet type '{}'", Excerpt(name)))?;
        let offered = bets(wheel, kind);
        if offered.is_empty() {
            return Err(format!("{name} is not a bet on the {} wheel", wheel_name(wheel)));
        }
        let chosen = match (kind, selection) {
            (BetType::Dozen | BetType::Column, Some(which)) => {
                let index = match which {
                    "1" => 0,
                    "2" => 1,
                    "3" => 2,
                    _ => return Err(format!("{name} '{}' is not 1, 2 or 3", Excerpt(which))),
                };
                offered[index].pockets.clone()
            }
            (_, Some(selection)) => {
                let mut pockets: Vec<u8> = selection
                    .split('-')
                    .map(|t| {
                        pocket_of(wheel, t)
                            .ok_or_else(|| format!("'{}' is not a pocket of this wheel", Excerpt(t)))
                    })
                    .collect::<Result<_, _>>()?;
                pockets.sort_unstable();
                if !offered.iter().any(|bet| bet.pockets == pockets) {
                    return Err(format!(
                        "'{}' is not a {name} bet on the {} wheel",
                        Excerpt(selection),
                        wheel_name(wheel)
                    ));
                }
                pockets
            }
            (_, None) if offered.len() == 1 => offered[0].pockets.clone(),
            (_, None) => {
                return Err(format!("bet '{name}' needs a selection, e.g. {name}:{}", example(kind)))
            }
        };
        let pockets = chosen.iter().fold(0u64, |mask, &p| mask | 1 << p);
        Ok(PlacedBet::Roulette { kind, pockets })
    }

    /// Roulette: whether the bet wins on `pocket`.
    pub fn covers(&self, pocket: u8) -> bool {
        matches!(self, PlacedBet::Roulette { pockets, .. } if pockets & 1 << pocket != 0)
    }

    /// Keno: the hits on the drawn numbers `drawn` (a bit set).
    pub fn hits(&self, drawn: u64) -> u32 {
        match self {
            PlacedBet::Keno { picks } => (picks & drawn).count_ones(),
            PlacedBet::Roulette { .. } => 0,
        }
    }

    /// Keno: how many numbers were picked.
    pub fn pick_count(&self) -> usize {
        match self {
            PlacedBet::Keno { picks } => picks.count_ones() as usize,
            PlacedBet::Roulette { pockets, .. } => pockets.count_ones() as usize,
        }
    }
}

fn wheel_name(wheel: Wheel) -> &'static str {
    match wheel {
        Wheel::European => "European",
        Wheel::American => "American",
    }
}

fn example(kind: BetType) -> &'static str {
    match kind {
        BetType::Straight => "17",
        BetType::Split => "1-4",
        BetType::Street => "1-2-3",
        BetType::Corner => "1-2-4-5",
        BetType::SixLine => "1-2-3-4-5-6",
        _ => "2",
    }
}

/// A pocket as the operator writes it: `0`..`36`, `00` on the American wheel.
fn pocket_of(wheel: Wheel, text: &str) -> Option<u8> {
    if text == "00" {
        return (wheel == Wheel::American).then_some(DOUBLE_ZERO);
    }
    parse_small(text, 0..=36, "a pocket").ok().map(|p| p as u8)
}

/// What bets return, per unit stake: exact multipliers as amounts (for the payout check)
/// and the exact mean and variance of each bet's return (for the statistics).
#[derive(Clone, Debug)]
pub struct Payouts {
    /// Keno: `keno[k − 1][h]`, the multiplier for `h` hits with `k` picks.
    keno: Vec<Vec<Money>>,
    /// Keno: mean and variance of the return per unit stake, per pick count.
    keno_moments: Vec<(f64, f64)>,
    /// Keno: the chance of being paid more than the stake, per pick count.
    keno_paying: Vec<f64>,
    /// Keno: the common divisor of the non-zero multipliers, per pick count.
    keno_step: Vec<f64>,
    /// Roulette: mean and variance per bet type, by [`BetType::ALL`] index.
    roulette_moments: Vec<(f64, f64)>,
    /// Pockets on the wheel (37 or 38), 0 for Keno.
    pockets: u32,
}

impl Payouts {
    /// The payouts of `game`, Keno from `paytable`.
    ///
    /// # Errors
    /// When a paytable multiplier has more than [`super::money::MAX_PLACES`] decimals.
    pub fn new(game: GameId, paytable: &Paytable) -> Result<Payouts, String> {
        let f = |x: &num_rational::BigRational| x.to_f64().unwrap_or(f64::NAN);
        let exact = exact_rtp(game, paytable);
        let moments: Vec<(f64, f64)> = exact.iter().map(|e| (f(&e.rtp), f(&e.variance))).collect();
        Ok(match game {
            GameId::Keno => Payouts {
                keno: (1..=DRAWN)
                    .map(|k| {
                        (0..=k)
                            .map(|h| {
                                Money::from_ratio(paytable.multiplier(k, h)).ok_or_else(|| {
                                    format!("paytable multiplier for {k} picks, {h} hits has too many digits")
                                })
                            })
                            .collect::<Result<_, _>>()
                    })
                    .collect::<Result<_, _>>()?,
                keno_moments: moments,
                keno_paying: (1..=DRAWN)
                    .map(|k| {
                        (0..=k)
                            .filter(|&h| *paytable.multiplier(k, h) > BigRational::one())
                            .map(|h| hypergeometric_pmf(h as u64, GRID as u64, DRAWN as u64, k as u64))
                            .sum()
                    })
                    .collect(),
                keno_step: (1..=DRAWN)
                    .map(|k| (0..=k).map(|h| f(paytable.multiplier(k, h))).fold(0.0, common_step))
                    .collect(),
                roulette_moments: Vec::new(),
                pockets: 0,
            },
            _ => {
                let wheel = if game == GameId::RouletteEuropean { Wheel::European } else { Wheel::American };
                let offered = BetType::on(wheel);
                let roulette_moments = BetType::ALL
                    .iter()
                    .map(|kind| offered.iter().position(|k| k == kind).map_or((0.0, 0.0), |i| moments[i]))
                    .collect();
                Payouts {
                    keno: Vec::new(),
                    keno_moments: Vec::new(),
                    keno_paying: Vec::new(),
                    keno_step: Vec::new(),
                    roulette_moments,
                    pockets: if wheel == Wheel::European { 37 } else { 38 },
                }
            }
        })
    }

    /// The total return per unit stake of `bet` on an outcome: Keno drawn numbers (bit
    /// set), or a roulette pocket.
    pub fn multiplier(&self, bet: &PlacedBet, outcome: Outcome) -> Money {
        match (bet, outcome) {
            (PlacedBet::Keno { .. }, Outcome::Keno(drawn)) => {
                self.keno[bet.pick_count() - 1][bet.hits(drawn) as usize]
            }
            (PlacedBet::Roulette { kind, .. }, Outcome::Roulette(pocket)) => {
                if bet.covers(pocket) {
                    Money::whole(u64::from(kind.pays()) + 1)
                } else {
                    Money::ZERO
                }
            }
            _ => Money::ZERO,
        }
    }

    /// The common divisor of every multiplier `bet` can pay: times the stake, the step of
    /// the lattice its return lies on (computed once per pick count, not per round).
    pub fn multiplier_step(&self, bet: &PlacedBet) -> f64 {
        match bet {
            PlacedBet::Keno { .. } => self.keno_step[bet.pick_count() - 1],
            PlacedBet::Roulette { kind, .. } => f64::from(kind.pays()) + 1.0,
        }
    }

    /// The exact mean and variance of the return per unit stake of `bet` under fairness.
    pub fn moments(&self, bet: &PlacedBet) -> (f64, f64) {
        match bet {
            PlacedBet::Keno { .. } => self.keno_moments[bet.pick_count() - 1],
            PlacedBet::Roulette { kind, .. } => {
                self.roulette_moments[BetType::ALL.iter().position(|k| k == kind).expect("known bet type")]
            }
        }
    }

    /// Roulette: the probability that `bet` wins (pockets covered over pockets).
    pub fn win_probability(&self, bet: &PlacedBet) -> f64 {
        bet.pick_count() as f64 / f64::from(self.pockets)
    }

    /// The exact chance that `bet` pays more than its stake on a fair draw: every roulette
    /// bet that wins does; a Keno bet of `k` picks does on the hit counts whose paytable
    /// multiplier exceeds 1 (hypergeometric).
    pub fn paying_probability(&self, bet: &PlacedBet) -> f64 {
        match bet {
            PlacedBet::Keno { .. } => self.keno_paying_probability(bet.pick_count()),
            PlacedBet::Roulette { .. } => self.win_probability(bet),
        }
    }

    /// The exact chance that a Keno bet of `picks` numbers pays more than its stake (the
    /// hypergeometric mass of the hit counts whose multiplier exceeds 1).
    pub fn keno_paying_probability(&self, picks: usize) -> f64 {
        self.keno_paying[picks - 1]
    }
}

/// A round's outcome, as the bets read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Keno: the drawn numbers as a bit set.
    Keno(u64),
    /// Roulette: the pocket (37 = 00).
    Roulette(u8),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roulette_bets_parse_to_their_pockets() {
        let eu = Wheel::European;
        let pockets = |text: &str| match PlacedBet::parse_roulette(eu, text).unwrap() {
            PlacedBet::Roulette { pockets, .. } => pockets,
            PlacedBet::Keno { .. } => unreachable!(),
        };
        assert_eq!(pockets("straight:17"), 1 << 17);
        assert_eq!(pockets("split:4-1"), 1 << 1 | 1 << 4, "order does not matter");
        assert_eq!(pockets("dozen:2").count_ones(), 12);
        assert_eq!(pockets("red").count_ones(), 18);
        assert_eq!(pockets("first_four"), 0b1111);
        let am = PlacedBet::parse_roulette(Wheel::American, "straight:00").unwrap();
        assert!(am.covers(DOUBLE_ZERO));
        for bad in [
            "split:1-3",
            "straight:00",
            "top_line",
            "dozen:4",
            "corner:1-2-3-4",
            "martingale",
            "straight",
            "straight:07",
        ] {
            assert!(PlacedBet::parse_roulette(eu, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn keno_picks_are_checked() {
        assert_eq!(PlacedBet::parse_keno("7 13 22").unwrap().pick_count(), 3);
        for bad in ["", "0", "41", "7 7", "1 2 3 4 5 6 7 8 9 10 11", "x", "07"] {
            assert!(PlacedBet::parse_keno(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn multipliers_follow_the_paytable_and_the_published_payouts() {
        let paytable = Paytable::example();
        let keno = Payouts::new(GameId::Keno, &paytable).unwrap();
        let bet = PlacedBet::parse_keno("7").unwrap();
        assert_eq!(keno.multiplier(&bet, Outcome::Keno(1 << 7)).to_string(), "3.95");
        assert_eq!(keno.multiplier(&bet, Outcome::Keno(1 << 8)).to_string(), "0");
        let roulette = Payouts::new(GameId::RouletteEuropean, &paytable).unwrap();
        let straight = PlacedBet::parse_roulette(Wheel::European, "straight:17").unwrap();
        assert_eq!(roulette.multiplier(&straight, Outcome::Roulette(17)).to_string(), "36");
        assert!((roulette.moments(&straight).0 - 36.0 / 37.0).abs() < 1e-15);
        assert!((roulette.win_probability(&straight) - 1.0 / 37.0).abs() < 1e-15);
    }
}
