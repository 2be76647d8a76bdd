//! A round of a keyed scheme laid open: every digest it read and every word it took, so
//! that a certificate can work it through and a reader can redo each step with OpenSSL.
//! The scheme computes it; the certificate only renders it.

use super::keyed::KeyedScheme;
use super::stake::{SeedPair, StakeGame, StakeOutcome};

/// One digest a round read: the HMAC's message and the digest it gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digest {
    /// The message, as text (`client:nonce:r` for stake, `client:nonce` for duel).
    pub message: String,
    /// HMAC-SHA256 of the message under the scheme's key.
    pub bytes: [u8; 32],
}

/// A round of a keyed scheme, step by step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundSteps {
    /// The commitment the operator shows before play.
    pub commitment: String,
    /// The digests the round read, in order.
    pub digests: Vec<Digest>,
    /// The 32-bit words it took, in order (stake's floats are `k / 2^32` of these).
    pub words: Vec<u32>,
    /// The round's outcome.
    pub outcome: StakeOutcome,
}

impl KeyedScheme {
    /// Round `nonce` of `game` of the seed pair, laid open; an error where the server seed
    /// cannot key the scheme, or the round has no result.
    pub fn worked(
        self,
        server_seed: &str,
        client_seed: &str,
        game: &StakeGame,
        nonce: u64,
    ) -> Result<RoundSteps, String> {
        let commitment = self.commitment(server_seed)?;
        let (outcome, used) = self.pair(server_seed, client_seed)?.round(game, nonce)?;
        let (digests, words) = match self {
            KeyedScheme::Stake => {
                let pair = SeedPair::new(server_seed, client_seed);
                let digests = (0..used.div_ceil(8))
                    .map(|round| Digest {
                        message: format!("{client_seed}:{nonce}:{round}"),
                        bytes: pair.block(nonce, round),
                    })
                    .collect();
                (digests, pair.floats(nonce).take(used as usize).map(|float| float.0).collect())
            }
            KeyedScheme::Duel => {
                let bytes = super::duel::DuelPair::new(server_seed, client_seed)?.digest(nonce);
                let words = bytes
                    .chunks_exact(4)
                    .take(used as usize)
                    .map(|w| u32::from_be_bytes(w.try_into().unwrap()));
                (vec![Digest { message: format!("{client_seed}:{nonce}"), bytes }], words.collect())
            }
        };
        Ok(RoundSteps { commitment, digests, words, outcome })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worked_round_is_the_round_played() {
        let keno = StakeGame::Keno;
        let stake = KeyedScheme::Stake.worked("server", "client", &keno, 3).unwrap();
        let played = KeyedScheme::Stake.pair("server", "client").unwrap().play(&keno, 3);
        assert_eq!((stake.outcome.clone(), stake.words.len() as u64), played);
        // Ten floats of Keno take two blocks: `client:3:0` and `client:3:1`.
        let messages: Vec<&str> = stake.digests.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["client:3:0", "client:3:1"]);
        assert_eq!(stake.words[8], u32::from_be_bytes(stake.digests[1].bytes[..4].try_into().unwrap()));

        let seed = "00ff";
        let duel = KeyedScheme::Duel.worked(seed, "client", &StakeGame::Dice, 7).unwrap();
        assert_eq!(duel.commitment, KeyedScheme::Duel.commitment(seed).unwrap());
        assert_eq!(duel.digests.len(), 1);
        assert_eq!(duel.digests[0].message, "client:7");
        assert_eq!(duel.words[0], u32::from_be_bytes(duel.digests[0].bytes[..4].try_into().unwrap()));
        assert!(KeyedScheme::Duel.worked("0", "client", &StakeGame::Dice, 7).is_err());
    }
}
