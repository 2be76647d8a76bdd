//! The keyed schemes: a round is the word stream that a keyed hash makes of a seed pair and
//! a nonce, read by the scheme's pick rule; the games of [`super::stake`] are played from it.
//!
//! This is the seam a new scheme of this kind comes through: its stream and its rule
//! (a module of `scheme/`), one variant in [`KeyedScheme`] and [`KeyedPair`], and one arm
//! in [`on_stream!`]. Everything above (sweep, merge, audit, rtp, certify) takes a
//! [`KeyedScheme`] and a [`KeyedPair`], and plays rounds through [`KeyedStream`], matched
//! once per chunk of rounds: no call through a pointer on any per-round path.
//! docs/extending.md walks through adding one.

use super::duel::{self, DuelPair, DuelRule};
use super::stake::{self, FloorOfFloat, SeedPair, StakeGame, StakeOutcome};
use super::SchemeId;
use crate::chain::WordSource;
use crate::sampler::PickRule;

/// A keyed scheme: which stream and which pick rule a round is played by. Written in
/// files by its name ([`KeyedScheme::name`]).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum KeyedScheme {
    /// The HMAC-SHA256 family of Stake and its copies ([`super::stake`]); what files
    /// written before there were other keyed schemes hold.
    #[default]
    Stake,
    /// Duel's dice: an HMAC-SHA256 digest's eight words, a rejection pick ([`super::duel`]).
    Duel,
}

impl KeyedScheme {
    /// Every keyed scheme.
    pub const ALL: [KeyedScheme; 2] = [KeyedScheme::Stake, KeyedScheme::Duel];

    /// The keyed scheme `id` is, if it is one.
    pub const fn of(id: SchemeId) -> Option<KeyedScheme> {
        match id {
            SchemeId::Stake => Some(KeyedScheme::Stake),
            SchemeId::Duel => Some(KeyedScheme::Duel),
            _ => None,
        }
    }

    /// Whether this is the HMAC-SHA256 family, which files leave unnamed (they were
    /// written before the others, and keep their bytes).
    pub fn is_stake(&self) -> bool {
        *self == KeyedScheme::Stake
    }

    /// Every keyed scheme's name, as messages list them: `stake or duel`.
    pub fn names() -> String {
        let names: Vec<&str> = KeyedScheme::ALL.iter().map(|scheme| scheme.name()).collect();
        names.join(" or ")
    }

    /// The scheme's id.
    pub const fn id(self) -> SchemeId {
        match self {
            KeyedScheme::Stake => SchemeId::Stake,
            KeyedScheme::Duel => SchemeId::Duel,
        }
    }

    /// The name on the command line and in files.
    pub const fn name(self) -> &'static str {
        self.id().name()
    }

    /// The exact law of one pick among `n`: the count of words giving each index, over
    /// [`KeyedScheme::words_of_law`].
    pub fn law(self, n: u32) -> Vec<u64> {
        match self {
            KeyedScheme::Stake => FloorOfFloat::law(n),
            KeyedScheme::Duel => DuelRule::law(n),
        }
    }

    /// The accepted words of a pick among `n`: what [`KeyedScheme::law`] counts sum to.
    pub fn words_of_law(self, n: u32) -> u64 {
        match self {
            KeyedScheme::Stake => FloorOfFloat::limit(n),
            KeyedScheme::Duel => DuelRule::limit(n),
        }
    }

    /// The accepted words of a pick among `n` that give an index below `value`
    /// (`value <= n`): a cumulative law, without listing it.
    pub fn words_below(self, n: u32, value: u32) -> u64 {
        match self {
            KeyedScheme::Stake => FloorOfFloat::words_below(n, value),
            KeyedScheme::Duel => DuelRule::words_below(n, value),
        }
    }

    /// The words a round's stream holds, where it is finite (one digest read once).
    pub const fn words_per_round(self) -> Option<u64> {
        match self {
            KeyedScheme::Stake => None,
            KeyedScheme::Duel => Some(duel::WORDS_PER_ROUND),
        }
    }

    /// What the scheme's 32-bit words are called where a round says how many it took.
    pub const fn word_name(self) -> &'static str {
        match self {
            KeyedScheme::Stake => "floats",
            KeyedScheme::Duel => "words",
        }
    }

    /// What a pick's exact law is counted over, as `rtp` says it.
    pub const fn law_words(self) -> &'static str {
        match self {
            KeyedScheme::Stake => "the 2^32 equally likely floats",
            KeyedScheme::Duel => "the 4,294,959,453 accepted words",
        }
    }

    /// The return of a dice bet the operator publishes, as a fraction (Duel: a win pays
    /// 0.999 / chance, the chance stated as `(10000 - target) / 10001`); `None` where no
    /// payout rule is taken from a primary source.
    pub const fn dice_returns(self) -> Option<(u64, u64)> {
        match self {
            KeyedScheme::Stake => None,
            KeyedScheme::Duel => Some((999, 1000)),
        }
    }

    /// The games whose exact RTP `rtp` shows (their payout rules sourced).
    pub const fn rtp_games(self) -> &'static str {
        match self {
            KeyedScheme::Stake => "roulette, limbo or plinko",
            KeyedScheme::Duel => "dice",
        }
    }

    /// What a row's commitment is, as errors name it.
    pub const fn commitment_text(self) -> &'static str {
        match self {
            KeyedScheme::Stake => "a commitment (SHA-256 of the server seed)",
            KeyedScheme::Duel => "a commitment (SHA-256 of the server seed's hex-decoded bytes)",
        }
    }

    /// Where the exact law of an outcome comes from, as test notes say it.
    pub const fn law_source(self) -> &'static str {
        match self {
            KeyedScheme::Stake => "preimages of 2^32 floats",
            KeyedScheme::Duel => "uniform over the accepted words",
        }
    }

    /// A draw step's pick among the values left, as test notes write it.
    pub const fn step_pick(self) -> &'static str {
        match self {
            KeyedScheme::Stake => "floor(float * left)",
            KeyedScheme::Duel => "word mod left, the top words rejected",
        }
    }

    /// The probabilities of one pick among `n`.
    pub fn probabilities(self, n: u32) -> Vec<f64> {
        let words = self.words_of_law(n) as f64;
        self.law(n).into_iter().map(|count| count as f64 / words).collect()
    }

    /// Whether the scheme plays `game` (its operators publish it).
    pub fn plays(self, game: &StakeGame) -> bool {
        self.games().contains(&game.name())
    }

    /// The games the scheme defines, by the names files and the command line use.
    pub const fn games(self) -> &'static [&'static str] {
        match self {
            KeyedScheme::Stake => &stake::GAMES,
            KeyedScheme::Duel => &["dice"],
        }
    }

    /// A game of the scheme from its name and parameters ([`StakeGame::new`]), refused
    /// where the scheme does not play it.
    pub fn game(self, name: &str, params: &str) -> Result<StakeGame, String> {
        let game = StakeGame::new(name, params)
            .map_err(|error| error.replace("of scheme stake", &format!("of scheme {}", self.name())))?;
        match self.plays(&game) {
            true => Ok(game),
            false => Err(format!(
                "unknown game '{name}' of scheme {} (expected {})",
                self.name(),
                self.games().join(", ")
            )),
        }
    }

    /// The commitment the operator shows before play, or what is wrong with the server
    /// seed (a scheme that decodes its seed refuses one it cannot decode).
    pub fn commitment(self, server_seed: &str) -> Result<String, String> {
        match self {
            KeyedScheme::Stake => Ok(stake::commitment(server_seed)),
            KeyedScheme::Duel => duel::commitment(server_seed),
        }
    }

    /// A seed pair of the scheme, prepared for play, or what is wrong with its seeds.
    pub fn pair(self, server_seed: &str, client_seed: &str) -> Result<KeyedPair, String> {
        match self {
            KeyedScheme::Stake => Ok(KeyedPair::Stake(SeedPair::new(server_seed, client_seed))),
            KeyedScheme::Duel => DuelPair::new(server_seed, client_seed).map(KeyedPair::Duel),
        }
    }
}

impl std::fmt::Display for KeyedScheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A seed pair of a keyed scheme, prepared for play (its key absorbed once).
#[derive(Clone)]
pub enum KeyedPair {
    /// A pair of the HMAC-SHA256 family.
    Stake(SeedPair),
    /// A pair of Duel's dice.
    Duel(DuelPair),
}

impl KeyedPair {
    /// The scheme the pair plays by.
    pub fn scheme(&self) -> KeyedScheme {
        match self {
            KeyedPair::Stake(_) => KeyedScheme::Stake,
            KeyedPair::Duel(_) => KeyedScheme::Duel,
        }
    }

    /// Plays round `nonce` of `game`: its outcome and the words it took. (A round whose
    /// stream ran out, which [`KeyedPair::round`] refuses, is played on zero words.)
    pub fn play(&self, game: &StakeGame, nonce: u64) -> (StakeOutcome, u64) {
        on_stream!(self, stream => play_on(stream, game, nonce))
    }

    /// Round `nonce` of `game` as the operator plays it, with the words it took, or why it
    /// has none: a scheme
    /// whose round stream is finite (a digest's few words) fails a round that rejects all
    /// of them, as its operator's code does.
    pub fn round(&self, game: &StakeGame, nonce: u64) -> Result<(StakeOutcome, u64), String> {
        let (outcome, used) = self.play(game, nonce);
        match self.scheme().words_per_round() {
            Some(words) if used > words => Err(format!(
                "nonce {nonce} has no result in scheme {}: its {words} words were all rejected (the operator's code stops with an error)",
                self.scheme()
            )),
            _ => Ok((outcome, used)),
        }
    }
}

/// A keyed scheme's stream: the words of each round of one seed pair, and its rule.
pub trait KeyedStream: Sync {
    /// The scheme's pick rule.
    type Rule: PickRule;

    /// The words of one round.
    type Words<'a>: WordSource
    where
        Self: 'a;

    /// The words of round `nonce`.
    fn words(&self, nonce: u64) -> Self::Words<'_>;

    /// The words a round has taken so far.
    fn used(&self, words: &Self::Words<'_>) -> u64;
}

/// Plays round `nonce` of `game` from `stream`: its outcome and the words it took.
pub fn play_on<S: KeyedStream>(stream: &S, game: &StakeGame, nonce: u64) -> (StakeOutcome, u64) {
    let mut words = stream.words(nonce);
    let outcome = game.play_by::<S::Rule, _>(&mut words);
    (outcome, stream.used(&words))
}

impl KeyedStream for SeedPair {
    type Rule = FloorOfFloat;
    type Words<'a> = stake::stream::Floats<'a>;

    #[inline]
    fn words(&self, nonce: u64) -> Self::Words<'_> {
        self.floats(nonce)
    }

    fn used(&self, words: &Self::Words<'_>) -> u64 {
        words.used()
    }
}

impl KeyedStream for DuelPair {
    type Rule = DuelRule;
    type Words<'a> = duel::DuelWords;

    #[inline]
    fn words(&self, nonce: u64) -> Self::Words<'_> {
        DuelPair::words(self, nonce)
    }

    fn used(&self, words: &Self::Words<'_>) -> u64 {
        words.used()
    }
}

/// Runs `$body` with `$stream` bound to the stream of `$pair` (a [`KeyedPair`]), one arm
/// per scheme: the body is compiled for each scheme's stream and rule, so it is matched
/// once and generic below.
macro_rules! on_stream {
    ($pair:expr, $stream:ident => $body:expr) => {
        match $pair {
            $crate::scheme::keyed::KeyedPair::Stake($stream) => $body,
            $crate::scheme::keyed::KeyedPair::Duel($stream) => $body,
        }
    };
}
pub(crate) use on_stream;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stake_pair_plays_what_the_family_plays() {
        let pair = KeyedScheme::Stake.pair("server", "client").unwrap();
        let direct = SeedPair::new("server", "client");
        for game in [StakeGame::Dice, StakeGame::Keno, StakeGame::Mines { mines: 5 }] {
            for nonce in 0..50 {
                let round = stake::replay_with(&game, &direct, String::new(), nonce);
                assert_eq!(pair.play(&game, nonce), (round.outcome, round.floats_used), "{game:?} {nonce}");
            }
        }
    }

    #[test]
    fn the_cumulative_law_is_the_sum_of_the_law() {
        for scheme in KeyedScheme::ALL {
            for n in [2u32, 37, 40, 10_001] {
                let law = scheme.law(n);
                assert_eq!(law.iter().sum::<u64>(), scheme.words_of_law(n));
                for value in [0, 1, n / 2, n - 1, n] {
                    let sum: u64 = law[..value as usize].iter().sum();
                    assert_eq!(scheme.words_below(n, value), sum, "{scheme:?} {n} {value}");
                }
            }
        }
    }
}
