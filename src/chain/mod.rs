//! The provably-fair chain (SPEC §1–2): commitment, round signature, and the round's
//! SHAKE256 word stream.
//!
//! [`RoundHasher`] is built once per seed pair: it absorbs `server:client:` once and copies
//! that mid-state for every nonce, formatting the nonce into a stack buffer, so a round
//! allocates nothing. It hashes one round at a time, for `verify` and `audit`.
//!
//! The sweep and the stream hash consecutive nonces in batches instead ([`batch`]): the
//! block their messages share is absorbed once, and the remaining permutations run on
//! several states at once through the batch seam [`kernel::Kernel`] (AVX-512, AVX2 or
//! scalar, chosen at run time). Every path gives the same words.

pub mod batch;
pub mod kernel;
pub mod seeds;
pub mod sponge;
pub mod words;

pub use batch::{BatchHasher, BlockWords, RoundBatch, ROUNDS_PER_BATCH};
pub use kernel::{KeccakPath, KeccakRequest, Kernel, KernelError};
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

/// Lowercase hex of a 32-byte digest into a stack array.
#[inline]
pub fn hex_lower(digest: &[u8; 32]) -> [u8; 64] {
    let mut lanes = [0u64; 4];
    for (lane, chunk) in lanes.iter_mut().zip(digest.chunks_exact(8)) {
        *lane = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
    }
    let mut out = [0u8; 64];
    for (chunk, lane) in out.chunks_exact_mut(8).zip(hex_lanes(&lanes)) {
        chunk.copy_from_slice(&lane.to_le_bytes());
    }
    out
}

/// Lowercase hex of a digest held as four little-endian lanes, produced directly as the
/// eight little-endian lanes of its 64 ASCII characters: the SHAKE256 input block of the
/// round stream, with no byte array in between.
///
/// Written by hand (SWAR: eight characters per 64-bit word) because this runs once per
/// round on the sweep's hot path, where a byte-by-byte table lookup cost a measurable
/// share of the round.
#[inline]
pub fn hex_lanes(digest: &[u64; 4]) -> [u64; 8] {
    let mut out = [0u64; 8];
    for (pair, &lane) in out.chunks_exact_mut(2).zip(digest) {
        pair[0] = hex_word(lane as u32);
        pair[1] = hex_word((lane >> 32) as u32);
    }
    out
}

/// The eight lowercase hex characters of four bytes (`bytes` holds them little-endian), as
/// one little-endian lane: the SWAR step of [`hex_lanes`]. Shifts and adds only, so that
/// the batch hasher's loops over lanes vectorise.
#[inline(always)]
pub(crate) fn hex_word(bytes: u32) -> u64 {
    // Spread byte j to bits 16j..16j+8, then put its high nibble in byte 2j and its
    // low nibble in byte 2j+1 (the order the characters are written).
    let mut spread = u64::from(bytes);
    spread = (spread | (spread << 16)) & 0x0000_FFFF_0000_FFFF;
    spread = (spread | (spread << 8)) & 0x00FF_00FF_00FF_00FF;
    let nibbles = ((spread >> 4) & 0x000F_000F_000F_000F) | ((spread & 0x000F_000F_000F_000F) << 8);
    // '0' + n, plus ('a' - '0' - 10) = 39 where n >= 10 (n + 6 carries into bit 4); 39 as
    // 32 + 8 − 1 because a vector multiply of 64-bit lanes needs AVX-512.
    let letters = ((nibbles + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    nibbles + 0x3030_3030_3030_3030 + (letters << 5) + (letters << 3) - letters
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

    /// The sponge after `server:client:`, the start of every round's message.
    pub(crate) fn prefix(&self) -> &Sponge {
        &self.prefix
    }

    /// The raw SHA3-256 digest of `server:client:nonce`.
    #[inline]
    pub fn signature(&self, nonce: u64) -> [u8; 32] {
        digest_of(&self.signature_state(nonce))
    }

    /// The finished SHA3-256 state of `server:client:nonce`; its first four lanes are the
    /// digest.
    #[inline]
    fn signature_state(&self, nonce: u64) -> sponge::KeccakState {
        let mut digits = itoa::Buffer::new();
        let mut sponge = self.prefix.clone();
        sponge.absorb(digits.format(nonce).as_bytes());
        sponge.finish(SHA3_DOMAIN)
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
        let state = self.signature_state(nonce);
        ShakeWords::from_hex_lanes(&hex_lanes(&[state[0], state[1], state[2], state[3]]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::words::WordSource;

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
    fn hex_lanes_equal_plain_hex_for_every_byte_value() {
        let mut digest = [0u8; 32];
        for start in (0..256).step_by(32) {
            for (i, byte) in digest.iter_mut().enumerate() {
                *byte = (start + i) as u8;
            }
            let expected: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(hex_lower(&digest).to_vec(), expected.into_bytes());
        }
    }

    #[test]
    fn words_equal_shake_of_the_hex_signature() {
        let hasher = RoundHasher::new("s", "c");
        for nonce in [0, 1_234_567, u64::MAX] {
            let mut fast = hasher.words(nonce);
            let mut plain = ShakeWords::from_signature_hex(&hasher.signature_hex(nonce));
            for _ in 0..100 {
                assert_eq!(fast.next_word(), plain.next_word());
            }
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
