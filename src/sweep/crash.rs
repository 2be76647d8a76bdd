//! Playing a crash chain: from a game's hash down the chain (each game's hash hashes to
//! the one before it), every crash point computed and counted ([`CrashTally`]). One
//! thread: each link needs the one after it (parallel segments between checkpoints are
//! not built yet).

use crate::scheme::crash::{game_digest, point_of_digest, previous_hash, CrashPoint, CrashVariant};
use crate::tally::crash::CrashTally;

/// What playing a chain found: the tally of its games, and the hash the walk ended on
/// (the hash of the game before the last one played).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedChain {
    /// The games' counts.
    pub tally: CrashTally,
    /// SHA-256 of the last game's hash: the next link down the chain.
    pub end: String,
}

/// Plays `games` games of a chain, from the game whose hash is `top` down, with `salt`,
/// each crash point from `point` (the scheme's own is [`play_chain`]; tests pass a rigged
/// one).
pub fn play_chain_with(
    top: &str,
    salt: &str,
    games: u64,
    point: impl Fn(&[u8; 32]) -> CrashPoint,
) -> PlayedChain {
    let mut tally = CrashTally::new();
    let mut hash = top.to_owned();
    for _ in 0..games {
        tally.add(point(&game_digest(&hash, salt)));
        hash = previous_hash(&hash);
    }
    PlayedChain { tally, end: hash }
}

/// Plays `games` games of a chain of `variant` from `top` down.
pub fn play_chain(variant: CrashVariant, top: &str, salt: &str, games: u64) -> PlayedChain {
    play_chain_with(top, salt, games, |digest| point_of_digest(variant, digest))
}
