//! Provably-fair schemes: how an operator turns a seed pair and a nonce into outcomes.
//!
//! A scheme is a commitment to the server seed, a keyed byte stream per round, a way of
//! turning bytes into numbers, and each game's use of those numbers. Operators differ in
//! all four, so fairaudit names the scheme a round belongs to:
//!
//! - [`SchemeId::Sha3`], the default: the chain of `SPEC.md` (SHA3-256 commitment and round
//!   signature, a SHAKE256 stream of big-endian 32-bit words, rejection sampling), with
//!   Keno 10-of-40 and European and American roulette ([`crate::chain`], [`crate::games`]).
//! - [`SchemeId::Stake`]: the HMAC-SHA256 family that Stake published and many operators
//!   copy ([`stake`]), with dice, limbo, Keno, roulette, plinko and mines.
//! - [`SchemeId::BustabitV1`] and [`SchemeId::Roobet`]: crash games played from a hash
//!   chain ([`crash`]).
//! - [`SchemeId::Duel`]: Duel's dice, an HMAC-SHA256 digest read by a rejection pick
//!   ([`duel`]).
//!
//! Stake and Duel are *keyed* schemes ([`keyed`]): a stream and a pick rule under the games
//! of [`stake`], played by one pipeline per command. docs/extending.md says what adding a
//! game or a scheme takes.

pub mod crash;
pub mod duel;
pub mod keyed;
pub mod stake;
pub mod worked;

use std::fmt;
use std::str::FromStr;

/// A provably-fair scheme, spelled as on the command line and in a rounds file's
/// `scheme` column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SchemeId {
    /// The SHA3-256/SHAKE256 chain of `SPEC.md` (the default).
    #[default]
    Sha3,
    /// The HMAC-SHA256 family of Stake and its copies.
    Stake,
    /// bustabit v1's crash game: a SHA-256 hash chain, 1 game in 101 crashing at once.
    BustabitV1,
    /// Roobet's crash game: bustabit v1's chain and formula, 1 game in 25 crashing at once.
    Roobet,
    /// Duel's dice: HMAC-SHA256 keyed by the hex-decoded server seed, a rejection pick.
    Duel,
}

impl SchemeId {
    /// Every scheme, the default first.
    pub const ALL: [SchemeId; 5] =
        [SchemeId::Sha3, SchemeId::Stake, SchemeId::BustabitV1, SchemeId::Roobet, SchemeId::Duel];

    /// The name used on the command line and in files.
    pub const fn name(self) -> &'static str {
        match self {
            SchemeId::Sha3 => "sha3",
            SchemeId::Stake => "stake",
            SchemeId::BustabitV1 => "bustabit-v1",
            SchemeId::Roobet => "roobet",
            SchemeId::Duel => "duel",
        }
    }

    /// The games the scheme defines, by the names files and the command line use.
    pub const fn games(self) -> &'static [&'static str] {
        match self {
            SchemeId::Sha3 => &["keno", "roulette-european", "roulette-american"],
            SchemeId::Stake => &stake::GAMES,
            SchemeId::Duel => &["dice"],
            SchemeId::BustabitV1 | SchemeId::Roobet => &crash::GAMES,
        }
    }

    /// The scheme, in one line: what the commitment, the stream and the numbers are.
    pub const fn summary(self) -> &'static str {
        match self {
            SchemeId::Sha3 => {
                "SHA3-256 commitment and round signature, SHAKE256 stream of big-endian u32, rejection sampling (SPEC.md)"
            }
            SchemeId::Stake => {
                "SHA-256 commitment, HMAC-SHA256(server seed, client:nonce:round) bytes, 4 bytes to a float in [0, 1)"
            }
            SchemeId::BustabitV1 => {
                "SHA-256 hash chain of hex text, HMAC-SHA256(game hash, salt), instant crash 1 in 101 (0.00), 52-bit formula"
            }
            SchemeId::Roobet => {
                "SHA-256 hash chain of hex text, HMAC-SHA256(game hash, salt), instant crash 1 in 25 (1.00), 52-bit formula"
            }
            SchemeId::Duel => {
                "SHA-256 of the hex-decoded seed, HMAC-SHA256(seed bytes, client:nonce) words, rejection below 0xFFFFFFFF - (0xFFFFFFFF mod n)"
            }
        }
    }

    /// The crash variant of a crash scheme.
    pub const fn crash_variant(self) -> Option<crash::CrashVariant> {
        match self {
            SchemeId::BustabitV1 => Some(crash::CrashVariant::BustabitV1),
            SchemeId::Roobet => Some(crash::CrashVariant::Roobet),
            _ => None,
        }
    }
}

impl fmt::Display for SchemeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a scheme name that is none of the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scheme '{}' (expected sha3, stake, bustabit-v1, roobet or duel)", crate::fields::Excerpt(.0))]
pub struct UnknownScheme(pub String);

impl FromStr for SchemeId {
    type Err = UnknownScheme;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        SchemeId::ALL
            .into_iter()
            .find(|scheme| scheme.name() == text)
            .ok_or_else(|| UnknownScheme(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for scheme in SchemeId::ALL {
            assert_eq!(scheme.name().parse::<SchemeId>(), Ok(scheme));
        }
        assert_eq!(SchemeId::default(), SchemeId::Sha3);
        assert_eq!(
            "Stake".parse::<SchemeId>().unwrap_err().to_string(),
            "unknown scheme 'Stake' (expected sha3, stake, bustabit-v1, roobet or duel)"
        );
    }
}
