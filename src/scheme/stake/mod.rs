//! The HMAC-SHA256 family: the scheme Stake published, copied by Shuffle and many others.
//!
//! The server seed is committed by its SHA-256 ([`stream::commitment`]); a round's bytes
//! are HMAC-SHA256 blocks keyed by the server seed over `client_seed:nonce:round`, read
//! four at a time as floats in [0, 1) ([`stream`]); the six games turn floats into
//! outcomes ([`games`]). A game is named as in a rounds file's `game` column, with its
//! parameters as compact JSON in the `params` column ([`StakeGame::new`]); a result is read
//! and written as the operator displays it ([`StakeGame::read_result`],
//! [`StakeGame::result_text`]). Sources and what is exact: docs/schemes.md.
//!
//! ```
//! use fairaudit::scheme::stake::{replay, StakeGame};
//! let dice = StakeGame::new("dice", "").unwrap();
//! let round = replay(&dice, "server seed", "client seed", 0);
//! assert_eq!(round.floats_used, 1);
//! assert!(dice.read_result(&round.result).is_ok());
//! ```

pub mod cells;
pub mod exact;
pub mod games;
pub mod stream;

pub use games::LimboFormula;
pub use stream::{commitment, FloatWords, FloorOfFloat, SeedPair, UnitFloat};

use crate::chain::WordSource;
use crate::sampler::PickRule;

use serde_json::{Map, Value};

/// Limbo's published formulas, by the names its parameters give them.
const LIMBO_VARIANTS: &str = "stake_page, verifierform, fair";

/// The games of the family, as named in files and on the command line.
pub const GAMES: [&str; 6] = ["dice", "limbo", "keno", "roulette", "plinko", "mines"];

/// Plinko's risk level: which multiplier table pays (the bucket does not depend on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Risk {
    /// Low risk.
    Low,
    /// Medium risk.
    Medium,
    /// High risk.
    High,
    /// Expert risk (added by Stake later; in its calculator's tables).
    Expert,
}

impl Risk {
    /// The name in a round's parameters.
    pub const fn name(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Expert => "expert",
        }
    }
}

/// A game of the family with its parameters: what a round is played as. Written (in
/// reports) as its name and its parameters, `plinko {"rows":16,"risk":"high"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StakeGame {
    /// Dice: a roll 0.00 to 100.00.
    Dice,
    /// Limbo: a multiplier, by one of its published formulas.
    Limbo(LimboFormula),
    /// Keno: 10 numbers of 1 to 40.
    Keno,
    /// Roulette: a pocket 0 to 36.
    Roulette,
    /// Plinko: a bucket 0 to `rows`.
    Plinko {
        /// Rows of pins, 8 to 16.
        rows: u8,
        /// The multiplier table.
        risk: Risk,
    },
    /// Mines: the tiles of the mines, 0 to 24.
    Mines {
        /// Mines on the board, 1 to 24.
        mines: u8,
    },
}

impl std::fmt::Display for StakeGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.params() {
            params if params.is_empty() => f.write_str(self.name()),
            params => write!(f, "{} {params}", self.name()),
        }
    }
}

impl serde::Serialize for StakeGame {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// What one round of a game shows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StakeOutcome {
    /// Dice's roll in hundredths (0 to 10,000).
    Roll(u32),
    /// Limbo's multiplier in hundredths, truncated; `None` where the formula divides by
    /// zero (shown as `Infinity`).
    Multiplier(Option<u64>),
    /// Keno's numbers or the mines' tiles, in draw order.
    Drawn(Vec<u8>),
    /// Roulette's pocket.
    Pocket(u8),
    /// Plinko's bucket, 0 = leftmost.
    Bucket(u8),
}

impl StakeGame {
    /// A game from its name and its parameters (compact JSON, or empty where it has none):
    /// `{"variant":"fair"}` for limbo (required), `{"rows":16,"risk":"high"}` for
    /// plinko, `{"mines":3}` for mines. Unknown keys and values are refused.
    pub fn new(name: &str, params: &str) -> Result<Self, String> {
        let mut params = read_params(name, params)?;
        let game = match name {
            "dice" => StakeGame::Dice,
            "keno" => StakeGame::Keno,
            "roulette" => StakeGame::Roulette,
            "limbo" => StakeGame::Limbo(match params.remove("variant") {
                Some(Value::String(variant)) => LimboFormula::ALL
                    .into_iter()
                    .find(|formula| formula.name() == variant)
                    .ok_or_else(|| format!("limbo's variant '{}' is none of {LIMBO_VARIANTS}", crate::fields::Excerpt(&variant)))?,
                Some(other) => {
                    return Err(format!("limbo's variant is one of {LIMBO_VARIANTS}, not {}", excerpt_json(&other)))
                }
                // The published formulas disagree on 1.3% of floats and none is the
                // operator's by evidence: the audit names the one it holds the operator to.
                None => return Err(format!("limbo needs its variant, one of {LIMBO_VARIANTS} (docs/schemes.md says which source uses which): {{\"variant\":\"fair\"}}")),
            }),
            "plinko" => {
                let rows = whole(&mut params, "plinko", "rows", 8, 16)?;
                let risk = match params.remove("risk") {
                    Some(Value::String(risk)) => [Risk::Low, Risk::Medium, Risk::High, Risk::Expert]
                        .into_iter()
                        .find(|level| level.name() == risk)
                        .ok_or_else(|| format!("plinko's risk '{}' is none of low, medium, high, expert", crate::fields::Excerpt(&risk)))?,
                    Some(other) => {
                        return Err(format!(
                            "plinko's risk is a string (low, medium, high, expert), not {}",
                            excerpt_json(&other)
                        ))
                    }
                    None => return Err("plinko needs its risk: {\"rows\":R,\"risk\":\"low|medium|high|expert\"}".into()),
                };
                StakeGame::Plinko { rows, risk }
            }
            "mines" => StakeGame::Mines { mines: whole(&mut params, "mines", "mines", 1, games::MOST_MINES)? },
            other => {
                return Err(format!(
                    "unknown game '{}' of scheme stake (expected {})",
                    crate::fields::Excerpt(other),
                    GAMES.join(", ")
                ))
            }
        };
        match params.keys().next() {
            Some(key) => Err(format!("{name} has no parameter '{}'", crate::fields::Excerpt(key))),
            None => Ok(game),
        }
    }

    /// The game's name.
    pub const fn name(&self) -> &'static str {
        match self {
            StakeGame::Dice => "dice",
            StakeGame::Limbo(_) => "limbo",
            StakeGame::Keno => "keno",
            StakeGame::Roulette => "roulette",
            StakeGame::Plinko { .. } => "plinko",
            StakeGame::Mines { .. } => "mines",
        }
    }

    /// The parameters as compact JSON, empty where there are none.
    pub fn params(&self) -> String {
        match self {
            StakeGame::Limbo(formula) => format!("{{\"variant\":\"{}\"}}", formula.name()),
            StakeGame::Plinko { rows, risk } => format!("{{\"rows\":{rows},\"risk\":\"{}\"}}", risk.name()),
            StakeGame::Mines { mines } => format!("{{\"mines\":{mines}}}"),
            _ => String::new(),
        }
    }

    /// Plays one round from its floats' words: a round's [`stream::Floats`], or any floats
    /// through [`stream::FloatWords`].
    pub fn play<W: WordSource + ?Sized>(&self, words: &mut W) -> StakeOutcome {
        self.play_by::<FloorOfFloat, W>(words)
    }

    /// Plays one round from a scheme's words by its pick rule `R` (the family's own rule is
    /// [`FloorOfFloat`]; [`super::keyed`] names the others). Limbo's formulas read the
    /// word as a float whatever the rule.
    pub fn play_by<R: PickRule, W: WordSource + ?Sized>(&self, words: &mut W) -> StakeOutcome {
        match *self {
            StakeGame::Dice => StakeOutcome::Roll(crate::games::dice::roll::<R, W>(words)),
            StakeGame::Limbo(formula) => {
                StakeOutcome::Multiplier(games::limbo(UnitFloat(words.next_word()), formula))
            }
            StakeGame::Roulette => StakeOutcome::Pocket(games::roulette::<R, W>(words)),
            StakeGame::Keno => StakeOutcome::Drawn(games::keno::<R, W>(words)),
            StakeGame::Mines { mines } => StakeOutcome::Drawn(games::mines::<R, W>(words, mines)),
            StakeGame::Plinko { rows, .. } => StakeOutcome::Bucket(games::plinko::<R, W>(words, rows)),
        }
    }

    /// An outcome as the operator displays it: dice and limbo with two decimals (limbo's
    /// division by zero as `Infinity`), numbers and tiles space-separated in draw order.
    pub fn result_text(&self, outcome: &StakeOutcome) -> String {
        let hundredths = |h: u64| format!("{}.{:02}", h / 100, h % 100);
        match outcome {
            StakeOutcome::Roll(roll) => hundredths(u64::from(*roll)),
            StakeOutcome::Multiplier(Some(multiplier)) => hundredths(*multiplier),
            StakeOutcome::Multiplier(None) => "Infinity".into(),
            StakeOutcome::Drawn(drawn) => drawn.iter().map(u8::to_string).collect::<Vec<_>>().join(" "),
            StakeOutcome::Pocket(value) | StakeOutcome::Bucket(value) => value.to_string(),
        }
    }

    /// A result in the form [`StakeGame::result_text`] writes, or what is wrong with it:
    /// another form (`50.5`, `07`, two spaces, a number out of range, a repeated number,
    /// too few) is not read.
    pub fn read_result(&self, text: &str) -> Result<StakeOutcome, String> {
        let shown = crate::fields::Excerpt(text);
        let two_decimals = |most: u64| -> Option<u64> {
            let (whole, cents) = text.split_once('.')?;
            (cents.len() == 2 && cents.bytes().all(|b| b.is_ascii_digit()))
                .then(|| plain(whole, most / 100))
                .flatten()
                .map(|whole| whole * 100 + cents.parse::<u64>().expect("two digits"))
                .filter(|&value| value <= most)
        };
        let drawn = |count: usize, low: u8, high: u8| {
            read_numbers(text, low, high).filter(|values| values.len() == count)
        };
        let read = match *self {
            StakeGame::Dice => two_decimals(10_000).map(|roll| StakeOutcome::Roll(roll as u32)),
            StakeGame::Limbo(_) if text == "Infinity" => Some(StakeOutcome::Multiplier(None)),
            StakeGame::Limbo(_) => two_decimals(u64::MAX / 1000).map(|m| StakeOutcome::Multiplier(Some(m))),
            StakeGame::Roulette => plain(text, 36).map(|pocket| StakeOutcome::Pocket(pocket as u8)),
            StakeGame::Plinko { rows, .. } => {
                plain(text, u64::from(rows)).map(|b| StakeOutcome::Bucket(b as u8))
            }
            StakeGame::Keno => drawn(10, 1, 40).map(StakeOutcome::Drawn),
            StakeGame::Mines { mines } => drawn(usize::from(mines), 0, 24).map(StakeOutcome::Drawn),
        };
        read.ok_or_else(|| {
            let form = match *self {
                StakeGame::Dice => "a roll with two decimals, 0.00 to 100.00".to_owned(),
                StakeGame::Limbo(_) => "a multiplier with two decimals (1.98), or Infinity".to_owned(),
                StakeGame::Roulette => "a pocket, 0 to 36".to_owned(),
                StakeGame::Plinko { rows, .. } => format!("a bucket, 0 to {rows}"),
                StakeGame::Keno => {
                    "10 different numbers of 1 to 40, in draw order, one space apart".to_owned()
                }
                StakeGame::Mines { mines } => {
                    format!("{mines} different tiles of 0 to 24, in draw order, one space apart")
                }
            };
            format!("'{shown}' is not a {} result: {form}", self.name())
        })
    }
}

/// A number as results write it (digits, no leading zero), if at most `most`.
fn plain(text: &str, most: u64) -> Option<u64> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    canonical.then(|| text.parse::<u64>().ok()).flatten().filter(|&value| value <= most)
}

/// Different numbers of `low..=high`, one space apart, written as results write them
/// (Keno's numbers, mines' tiles, a Keno bet's picks); `None` for any other text.
pub fn read_numbers(text: &str, low: u8, high: u8) -> Option<Vec<u8>> {
    let values: Vec<u8> = text
        .split(' ')
        .map(|part| plain(part, u64::from(high)).filter(|&v| v >= u64::from(low)).map(|v| v as u8))
        .collect::<Option<_>>()?;
    let distinct = values.iter().collect::<std::collections::HashSet<_>>().len() == values.len();
    distinct.then_some(values)
}

/// The parameters as a JSON object: empty or `{}` for none.
fn read_params(game: &str, params: &str) -> Result<Map<String, Value>, String> {
    if params.is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(params) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(format!(
            "the parameters of {game} are a JSON object (e.g. {{\"mines\":3}}) or empty, not '{}'",
            crate::fields::Excerpt(params)
        )),
    }
}

/// A JSON value as an error shows it: cut short, controls escaped.
fn excerpt_json(value: &Value) -> String {
    crate::fields::Excerpt(&value.to_string()).to_string()
}

/// A whole-number parameter in `low..=high`, required.
fn whole(params: &mut Map<String, Value>, game: &str, key: &str, low: u8, high: u8) -> Result<u8, String> {
    match params.remove(key) {
        Some(Value::Number(number)) => number
            .as_u64()
            .filter(|value| (u64::from(low)..=u64::from(high)).contains(value))
            .map(|value| value as u8)
            .ok_or_else(|| format!("{game}'s {key} is a whole number {low} to {high}, not {number}")),
        Some(other) => {
            Err(format!("{game}'s {key} is a whole number {low} to {high}, not {}", excerpt_json(&other)))
        }
        None => Err(format!("{game} needs its {key} ({low} to {high}) in its parameters")),
    }
}

/// One round replayed: what the operator shows, and what it rests on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StakeRound {
    /// Lowercase hex SHA-256 of the server seed.
    pub commitment: String,
    /// The outcome.
    pub outcome: StakeOutcome,
    /// The outcome as the operator displays it.
    pub result: String,
    /// Floats the round took (4 bytes each; 8 per HMAC block).
    pub floats_used: u64,
}

/// Replays one round of `game` from its seeds and nonce.
pub fn replay(game: &StakeGame, server_seed: &str, client_seed: &str, nonce: u64) -> StakeRound {
    let pair = SeedPair::new(server_seed, client_seed);
    replay_with(game, &pair, commitment(server_seed), nonce)
}

/// [`replay`] from a seed pair already prepared (bet histories repeat seed pairs).
pub fn replay_with(game: &StakeGame, pair: &SeedPair, commitment: String, nonce: u64) -> StakeRound {
    let mut floats = pair.floats(nonce);
    let outcome = game.play(&mut floats);
    StakeRound { commitment, result: game.result_text(&outcome), outcome, floats_used: floats.used() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_read_strictly_and_written_back() {
        for (name, params) in [
            ("dice", ""),
            ("limbo", "{\"variant\":\"fair\"}"),
            ("plinko", "{\"rows\":16,\"risk\":\"high\"}"),
            ("mines", "{\"mines\":24}"),
        ] {
            let game = StakeGame::new(name, params).unwrap();
            assert_eq!((game.name(), game.params().as_str()), (name, params));
        }
        assert_eq!(StakeGame::new("keno", "{}"), Ok(StakeGame::Keno));
        for (name, params, says) in [
            ("mines", "", "mines needs its mines"),
            ("mines", "{\"mines\":25}", "whole number 1 to 24, not 25"),
            ("mines", "{\"mines\":3.0}", "not 3.0"),
            ("plinko", "{\"rows\":16}", "needs its risk"),
            ("plinko", "{\"rows\":7,\"risk\":\"low\"}", "8 to 16, not 7"),
            ("dice", "{\"target\":50}", "dice has no parameter 'target'"),
            ("limbo", "{\"variant\":\"page\"}", "none of stake_page, verifierform, fair"),
            ("limbo", "", "limbo needs its variant"),
            ("dice", "mines=3", "a JSON object"),
            ("crash", "", "unknown game 'crash' of scheme stake"),
        ] {
            let error = StakeGame::new(name, params).unwrap_err();
            assert!(error.contains(says), "{name} {params}: {error}");
        }
    }

    #[test]
    fn results_are_read_in_their_written_form_only() {
        let mines = StakeGame::Mines { mines: 3 };
        assert_eq!(mines.read_result("4 11 0"), Ok(StakeOutcome::Drawn(vec![4, 11, 0])));
        for bad in ["4 11", "4 11 11", "4  11 0", "4 11 25", "04 11 0", " 4 11 0"] {
            assert!(mines.read_result(bad).is_err(), "{bad:?}");
        }
        assert_eq!(StakeGame::Dice.read_result("100.00"), Ok(StakeOutcome::Roll(10_000)));
        for bad in ["100.01", "50.5", "50", "050.00", "-1.00", "50.00 "] {
            assert!(StakeGame::Dice.read_result(bad).is_err(), "{bad:?}");
        }
        let limbo = StakeGame::Limbo(LimboFormula::StakePage);
        assert_eq!(limbo.read_result("1.98"), Ok(StakeOutcome::Multiplier(Some(198))));
        assert_eq!(limbo.read_result("Infinity"), Ok(StakeOutcome::Multiplier(None)));
        assert!(StakeGame::Roulette.read_result("37").is_err());
        assert!(StakeGame::Plinko { rows: 8, risk: Risk::Low }.read_result("9").is_err());
        // What is written reads back.
        for game in [StakeGame::Dice, StakeGame::Keno, StakeGame::Roulette, mines, limbo] {
            for nonce in 0..50 {
                let round = replay(&game, "s", "c", nonce);
                assert_eq!(game.read_result(&round.result), Ok(round.outcome), "{game:?} {nonce}");
            }
        }
    }
}
