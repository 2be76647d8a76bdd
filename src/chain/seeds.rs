//! Seed pairs: given on the command line, the documented default, or derived from a
//! master seed so that many independent pairs are reproducible from one string.

use crate::chain::commitment;
use serde::{Deserialize, Serialize};
use sha3::{Digest, Sha3_256};

/// A server seed and a client seed, with the server seed's commitment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedPair {
    /// The revealed server seed.
    pub server_seed: String,
    /// The client seed.
    pub client_seed: String,
    /// Lowercase hex SHA3-256 of the server seed.
    pub commitment: String,
}

impl SeedPair {
    /// Whether a seed holds `:` (see [`AMBIGUOUS_SEEDS`]).
    pub fn is_ambiguous(&self) -> bool {
        seeds_are_ambiguous(&self.server_seed, &self.client_seed)
    }

    /// A pair from its two seeds.
    pub fn new(server_seed: impl Into<String>, client_seed: impl Into<String>) -> Self {
        let server_seed = server_seed.into();
        let commitment = commitment(&server_seed);
        Self { server_seed, client_seed: client_seed.into(), commitment }
    }
}

/// What is wrong with a seed that holds `:`. The signature hashes `server:client:nonce`,
/// joined with colons, so a colon inside a seed makes two seed pairs one message: server
/// `a:b` with client `c` and server `a` with client `b:c` give the same rounds. The chain
/// is the operator's and fairaudit reproduces it as it is; the reports say so.
pub const AMBIGUOUS_SEEDS: &str =
    "contains ':', so the message server:client:nonce is ambiguous: another split of the same text gives the same rounds";

/// Whether either seed holds `:` (see [`AMBIGUOUS_SEEDS`]).
pub fn seeds_are_ambiguous(server_seed: &str, client_seed: &str) -> bool {
    server_seed.contains(':') || client_seed.contains(':')
}

/// The master seed behind the default seed pair (pair 0 of [`derive_seed_pairs`]).
pub const DEFAULT_MASTER_SEED: &str = "fairaudit";

/// Derives `count` seed pairs from `master_seed`. Pair `i` is
///
/// - server seed = lowercase hex SHA3-256 of `fairaudit/seed-pair/v1/server/{master_seed}/{i}`
/// - client seed = lowercase hex SHA3-256 of `fairaudit/seed-pair/v1/client/{master_seed}/{i}`
///
/// with `i` in plain decimal from 0. Both are 64 hex characters, like real seeds, and the
/// last `/` separates the master seed from `i`, so different (master, i) never collide.
pub fn derive_seed_pairs(master_seed: &str, count: usize) -> Vec<SeedPair> {
    let hex = |role: &str, i: usize| {
        let digest: [u8; 32] =
            Sha3_256::digest(format!("fairaudit/seed-pair/v1/{role}/{master_seed}/{i}").as_bytes()).into();
        String::from_utf8(crate::chain::hex_lower(&digest).to_vec()).expect("hex is ASCII")
    };
    (0..count).map(|i| SeedPair::new(hex("server", i), hex("client", i))).collect()
}

/// The seed pair a sweep uses when none is given.
pub fn default_seed_pair() -> SeedPair {
    derive_seed_pairs(DEFAULT_MASTER_SEED, 1).remove(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivation_is_the_documented_formula() {
        let pairs = derive_seed_pairs("m", 2);
        let expected: [u8; 32] = Sha3_256::digest(b"fairaudit/seed-pair/v1/client/m/1").into();
        assert_eq!(pairs[1].client_seed.as_bytes(), crate::chain::hex_lower(&expected));
        assert_ne!(pairs[0], pairs[1]);
        assert_eq!(pairs[0].commitment, commitment(&pairs[0].server_seed));
    }
}
