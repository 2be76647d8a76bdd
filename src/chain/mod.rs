//! The provably-fair chain (SPEC §1–2): commitment, round signature, and the round's
//! SHAKE256 word stream.
//!
//! [`RoundHasher`] is built once per seed pair: it absorbs `server:client:` once and copies
//! that mid-state for every nonce, formatting the nonce into a stack buffer, so a round
//! allocates nothing.

pub mod sponge;
pub mod words;

use sha3::{Digest, Sha3_256};
use sponge::{digest_of, Sponge, SHA3_DOMAIN};
pub use words::{FixedWords, ShakeWords, WordSource};

/// The largest nonce the operator's reference verifier can represent (2^53 − 1, the largest
/// integer a JavaScript number holds exactly). Above it fairaudit still computes the chain
/// with the plain decimal nonce, but no reference behaviour exists to check it against.
pub const REFERENCE_MAX_NONCE: u64 = (1 << 53) - 1;

/// Whether `nonce` lies beyond what the reference verifier can represent.
pub fn beyond_reference(nonce: u64) -> bool {
    nonce > REFERENCE_MAX_NONCE
}

/// The commitment published before play: lowercase hex of SHA3-256 of the server seed.
pub fn commitment(server_seed: &str) -> String {
    let digest: [u8; 32] = Sha3_256::digest(server_seed.as_bytes()).into();
    String::from_utf8(hex_lower(&digest).to_vec()).expect("hex is ASCII")
}

/// Lowercase hex of a 32-byte digest into a stack array. Written by hand because the hot
/// path needs the 64 characters as bytes in a fixed array, with no allocation.
#[inline]
pub fn hex_lower(digest: &[u8; 32]) -> [u8; 64] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 64];
    for (pair, byte) in out.chunks_exact_mut(2).zip(digest) {
        pair[0] = DIGITS[usize::from(byte >> 4)];
        pair[1] = DIGITS[usize::from(byte & 0x0f)];
    }
    out
}

/// Computes round signatures and streams for one seed pair.
#[derive(Clone, Debug)]
pub struct RoundHasher {
    /// The sponge after absorbing `server:client:`.
    prefix: Sponge,
}

impl RoundHasher {
    /// A hasher for the seed pair (`server_seed`, `client_seed`). Seeds are any strings.
    pub fn new(server_seed: &str, client_seed: &str) -> Self {
        let mut prefix = Sponge::new();
        prefix.absorb(server_seed.as_bytes());
        prefix.absorb(b":");
        prefix.absorb(client_seed.as_bytes());
        prefix.absorb(b":");
        Self { prefix }
    }

    /// The raw SHA3-256 digest of `server:client:nonce`.
    #[inline]
    pub fn signature(&self, nonce: u64) -> [u8; 32] {
        let mut digits = itoa::Buffer::new();
        let mut sponge = self.prefix.clone();
        sponge.absorb(digits.format(nonce).as_bytes());
        digest_of(&sponge.finish(SHA3_DOMAIN))
    }

    /// The round signature as the 64 lowercase hex characters the operator shows.
    #[inline]
    pub fn signature_hex(&self, nonce: u64) -> [u8; 64] {
        hex_lower(&self.signature(nonce))
    }

    /// The round signature as a `String` (for display; allocates).
    pub fn signature_string(&self, nonce: u64) -> String {
        String::from_utf8(self.signature_hex(nonce).to_vec()).expect("hex is ASCII")
    }

    /// The round's word stream: SHAKE256 of the hex signature.
    #[inline]
    pub fn words(&self, nonce: u64) -> ShakeWords {
        ShakeWords::from_signature_hex(&self.signature_hex(nonce))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_equals_sha3_of_the_joined_string() {
        let hasher = RoundHasher::new("server", "client:with:colons");
        for nonce in [0, 1, 9, 10, 99_999, 100_000, u64::MAX] {
            let text = format!("server:client:with:colons:{nonce}");
            let expected: [u8; 32] = Sha3_256::digest(text.as_bytes()).into();
            assert_eq!(hasher.signature(nonce), expected, "nonce {nonce}");
        }
    }

    #[test]
    fn commitment_of_empty_seed_is_sha3_of_nothing() {
        assert_eq!(commitment(""), "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
    }

    #[test]
    fn reference_limit_is_two_to_the_53_minus_one() {
        assert!(!beyond_reference(9_007_199_254_740_991));
        assert!(beyond_reference(9_007_199_254_740_992));
    }
}
