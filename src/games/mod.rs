//! The games: Keno 10-of-40 and Roulette (European, American), behind one [`Game`] trait
//! that the sweep drives generically, and dice. Each game is written once over a pick rule
//! ([`crate::sampler::PickRule`]), so every scheme that plays it plays this code.

pub mod dice;
pub mod keno;
pub mod parse;
pub mod roulette;

use crate::chain::{RoundBatch, WordSource};
use std::fmt;
use std::str::FromStr;

pub use keno::{Keno, KenoColumns, KenoRound};
pub use roulette::{Roulette, Spin, SpinColumns, Wheel};

/// Which game a round belongs to, spelled as in the vectors and on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameId {
    /// Keno, 10 numbers drawn from 1..=40.
    Keno,
    /// European roulette, 37 pockets.
    RouletteEuropean,
    /// American roulette, 38 pockets (37 is shown as "00").
    RouletteAmerican,
}

impl GameId {
    /// Every game, in the order reports list them.
    pub const ALL: [GameId; 3] = [GameId::Keno, GameId::RouletteEuropean, GameId::RouletteAmerican];

    /// How many outcomes draw `draw` (0-based) of a round samples among: Keno 40, 39, …,
    /// 31; roulette 37 or 38.
    pub const fn outcomes_at_draw(self, draw: usize) -> u32 {
        match self {
            GameId::Keno => keno::choices_at_draw(draw),
            GameId::RouletteEuropean => 37,
            GameId::RouletteAmerican => 38,
        }
    }

    /// The name used in files and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            GameId::Keno => "keno",
            GameId::RouletteEuropean => "roulette-european",
            GameId::RouletteAmerican => "roulette-american",
        }
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a game name that is none of the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown game '{}' (expected keno, roulette-european or roulette-american)", crate::fields::Excerpt(.0))]
pub struct UnknownGame(pub String);

impl FromStr for GameId {
    type Err = UnknownGame;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        GameId::ALL.into_iter().find(|game| game.name() == text).ok_or_else(|| UnknownGame(text.to_owned()))
    }
}

/// What a game's outcomes look like, for tallies and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutcomeSpace {
    /// How many distinct values one draw can produce (Keno numbers, roulette pockets).
    pub outcomes: usize,
    /// How many values one round draws (10 for Keno, 1 for roulette).
    pub draws_per_round: usize,
    /// How many words the operator's published verifier generates per round; a round
    /// that needs more could not be verified by it (SPEC §4).
    pub reference_words: u64,
}

/// A game the sweep can drive: it draws one round from a word source into a buffer the
/// caller owns, so a sweep allocates nothing per round.
pub trait Game: Copy + Send + Sync {
    /// One round's outcome, including the rejections its draws met.
    type Outcome: Default + Clone + Send + fmt::Debug;

    /// The rounds of one hashed batch ([`RoundBatch`]), drawn all at once and kept side by
    /// side, a draw of every round together: the form in which the sweep draws and
    /// tallies, so that both work on whole rows in vector lanes.
    type Drawn: Default;

    /// Which game this is.
    fn id(&self) -> GameId;

    /// The shape of its outcomes.
    fn space(&self) -> OutcomeSpace;

    /// Draws one round from `words` into `round`, overwriting it.
    fn draw<W: WordSource + ?Sized>(&self, words: &mut W, round: &mut Self::Outcome);

    /// Draws every round of `batch` into `out`: round `r` exactly as [`Game::draw`] from
    /// `batch.words(r)` would draw it.
    fn draw_batch(&self, batch: &RoundBatch, out: &mut Self::Drawn);

    /// Up to [`ROUNDS_PER_BATCH`](crate::chain::ROUNDS_PER_BATCH) rounds drawn one by
    /// one, in the form of a drawn batch.
    ///
    /// # Panics
    /// If `rounds` is empty or longer than a batch.
    fn drawn_from(rounds: &[Self::Outcome]) -> Self::Drawn;

    /// The draw order as the vectors spell it (SPEC §7).
    fn draw_order_text(&self, round: &Self::Outcome) -> String;

    /// The result as the operator shows it (SPEC §7).
    fn result_text(&self, round: &Self::Outcome) -> String;

    /// Words the round's draws consumed, accepted and rejected.
    fn words_consumed(&self, round: &Self::Outcome) -> u64;
}
