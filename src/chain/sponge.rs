//! The Keccak sponge, driven directly over `keccak::f1600`.
//!
//! Why by hand: the chain needs SHA3-256 and SHAKE256, and the `sha3` crate computes both
//! correctly, but its XOF reader permutes again after every block it hands out, so a Keno
//! round would cost four Keccak-f\[1600\] permutations instead of the three it needs
//! (two for a signature of a 136-byte-or-longer message, one for the stream). The sweep
//! runs billions of rounds, so we drive the sponge ourselves: absorb, pad, permute only
//! when more output is actually read. The `sha3` crate stays the reference: the tests
//! below compare this sponge with it on many message lengths around the block size.
//!
//! [`permute`] is the single seam through which every Keccak permutation goes, so a
//! faster permutation can replace it in one place.

/// Bytes absorbed or squeezed per permutation by SHA3-256 and SHAKE256 (both have a
/// 512-bit capacity, so both have this 1088-bit rate).
pub const RATE_BYTES: usize = 136;

/// Lanes (64-bit words) of the state that hold the rate part.
pub const RATE_LANES: usize = RATE_BYTES / 8;

/// Domain-separation suffix of SHA3-256 (bits `01`, then the first pad bit), FIPS 202 §6.1.
pub const SHA3_DOMAIN: u8 = 0x06;

/// Domain-separation suffix of SHAKE256 (bits `1111`, then the first pad bit), FIPS 202 §6.2.
pub const SHAKE_DOMAIN: u8 = 0x1F;

/// The Keccak-f\[1600\] state: 25 lanes, byte `i` of the sponge is byte `i % 8`
/// (little-endian) of lane `i / 8`.
pub type KeccakState = [u64; 25];

/// Applies one Keccak-f\[1600\] permutation. Every permutation in fairaudit goes through here.
#[inline]
pub fn permute(state: &mut KeccakState) {
    keccak::f1600(state);
}

/// A sponge in its absorbing phase with rate [`RATE_BYTES`].
///
/// It is `Clone` and small (208 bytes) so a caller can absorb a common prefix once and
/// copy the resulting mid-state for every message that shares it.
#[derive(Clone, Debug, Default)]
pub struct Sponge {
    state: KeccakState,
    /// How many bytes of the current block have been absorbed (0..RATE_BYTES).
    filled: usize,
}

impl Sponge {
    /// A fresh sponge (all-zero state).
    pub fn new() -> Self {
        Self::default()
    }

    /// Absorbs `data`, permuting after each full block.
    pub fn absorb(&mut self, data: &[u8]) {
        for &byte in data {
            xor_byte(&mut self.state, self.filled, byte);
            self.filled += 1;
            if self.filled == RATE_BYTES {
                permute(&mut self.state);
                self.filled = 0;
            }
        }
    }

    /// The state and how many bytes of its current block are absorbed (`0..RATE_BYTES`):
    /// what a batch hasher starts each round's message from.
    pub(crate) fn parts(&self) -> (&KeccakState, usize) {
        (&self.state, self.filled)
    }

    /// Pads with `domain` and the final bit (pad10*1), permutes, and returns the state,
    /// whose first [`RATE_BYTES`] bytes are the first output block.
    pub fn finish(mut self, domain: u8) -> KeccakState {
        xor_byte(&mut self.state, self.filled, domain);
        xor_byte(&mut self.state, RATE_BYTES - 1, 0x80);
        permute(&mut self.state);
        self.state
    }
}

/// XORs `byte` into sponge byte `index` of `state`.
#[inline(always)]
pub(crate) fn xor_byte(state: &mut KeccakState, index: usize, byte: u8) {
    state[index / 8] ^= u64::from(byte) << (8 * (index % 8));
}

/// Byte `index` of the state (little-endian lanes), used to read output.
#[inline(always)]
pub fn state_byte(state: &KeccakState, index: usize) -> u8 {
    (state[index / 8] >> (8 * (index % 8))) as u8
}

/// SHA3-256 of `data` through this sponge (used by tests and by the signature code).
pub fn sha3_256(data: &[u8]) -> [u8; 32] {
    let mut sponge = Sponge::new();
    sponge.absorb(data);
    digest_of(&sponge.finish(SHA3_DOMAIN))
}

/// The 32-byte digest held in the first four lanes of a finished SHA3-256 state.
#[inline]
pub fn digest_of(state: &KeccakState) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, lane) in out.chunks_exact_mut(8).zip(state.iter()) {
        chunk.copy_from_slice(&lane.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    use sha3::{Digest, Sha3_256, Shake256};

    fn message(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 31 + 7) as u8).collect()
    }

    #[test]
    fn sha3_256_matches_the_sha3_crate_around_block_boundaries() {
        for len in (0..=300).chain([407, 408, 409, 1000]) {
            let data = message(len);
            let expected: [u8; 32] = Sha3_256::digest(&data).into();
            assert_eq!(sha3_256(&data), expected, "length {len}");
        }
    }

    #[test]
    fn split_absorption_equals_one_shot() {
        let data = message(290);
        for split in [0, 1, 135, 136, 137, 200, 290] {
            let mut sponge = Sponge::new();
            sponge.absorb(&data[..split]);
            sponge.absorb(&data[split..]);
            assert_eq!(digest_of(&sponge.finish(SHA3_DOMAIN)), sha3_256(&data));
        }
    }

    #[test]
    fn shake256_first_block_matches_the_sha3_crate() {
        for len in [0, 64, 135, 136, 137] {
            let data = message(len);
            let mut sponge = Sponge::new();
            sponge.absorb(&data);
            let state = sponge.finish(SHAKE_DOMAIN);
            let ours: Vec<u8> = (0..RATE_BYTES).map(|i| state_byte(&state, i)).collect();

            let mut hasher = Shake256::default();
            hasher.update(&data);
            let mut theirs = vec![0u8; RATE_BYTES];
            hasher.finalize_xof().read(&mut theirs);
            assert_eq!(ours, theirs, "length {len}");
        }
    }
}
