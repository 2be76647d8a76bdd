//! Sources of 32-bit words: the seam between the chain and everything that consumes it.
//!
//! The sampler and the games take any [`WordSource`], so production code reads the
//! SHAKE256 stream ([`ShakeWords`]) while tests feed crafted words ([`FixedWords`]) and the
//! calibration runs feed an independent generator, all through the same draw code.

use super::sponge::{permute, KeccakState, RATE_BYTES, RATE_LANES, SHAKE_DOMAIN};

/// A source of uniformly distributed `u32` words, read one at a time.
pub trait WordSource {
    /// The next word. Sources are unbounded: this never fails.
    fn next_word(&mut self) -> u32;

    /// Fills `out` with the next `out.len()` words: exactly what as many
    /// [`WordSource::next_word`] calls would give. Sources that keep their words in blocks
    /// override it to copy them without a check per word (a Keno round reads its first ten
    /// words this way).
    #[inline]
    fn fill_words(&mut self, out: &mut [u32]) {
        out.iter_mut().for_each(|word| *word = self.next_word());
    }
}

impl<W: WordSource + ?Sized> WordSource for &mut W {
    #[inline]
    fn next_word(&mut self) -> u32 {
        (**self).next_word()
    }

    #[inline]
    fn fill_words(&mut self, out: &mut [u32]) {
        (**self).fill_words(out);
    }
}

/// Words per squeezed block: 136 bytes make 34 big-endian `u32`.
pub const WORDS_PER_BLOCK: usize = RATE_BYTES / 4;

/// The round's random stream: SHAKE256 of the 64 hex characters of the round signature,
/// read as big-endian `u32`, lazily and without end (SPEC §2).
///
/// A block is permuted only when a word of it is actually read, so a round that needs at
/// most 34 words costs exactly one permutation here. It counts the words it has handed out.
#[derive(Clone, Debug)]
pub struct ShakeWords {
    state: KeccakState,
    /// Index of the next word within the current block (0..=WORDS_PER_BLOCK).
    next_in_block: usize,
    words_used: u64,
}

impl ShakeWords {
    /// The stream for a round whose signature, as 64 lowercase hex characters, is `hex`.
    pub fn from_signature_hex(hex: &[u8; 64]) -> Self {
        let mut lanes = [0u64; 8];
        for (lane, chunk) in lanes.iter_mut().zip(hex.chunks_exact(8)) {
            *lane = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
        }
        Self::from_hex_lanes(&lanes)
    }

    /// The stream for a round whose 64 hex characters are given as eight little-endian
    /// lanes (see [`crate::chain::hex_lanes`]).
    pub fn from_hex_lanes(lanes: &[u64; 8]) -> Self {
        let mut state: KeccakState = [0; 25];
        state[..8].copy_from_slice(lanes);
        // pad10*1 with the SHAKE suffix right after the 64 message bytes (lane 8, byte 0)
        // and the final bit on the last byte of the block (lane 16, byte 7).
        state[64 / 8] ^= u64::from(SHAKE_DOMAIN);
        state[RATE_LANES - 1] ^= 0x80 << 56;
        permute(&mut state);
        Self { state, next_in_block: 0, words_used: 0 }
    }

    /// The stream continued from `state`, the state whose first block (34 words) has
    /// already been read: the next word comes from the next permutation. This is how a
    /// round hashed in a batch continues on the scalar path when it needs more words.
    pub fn after_first_block(state: KeccakState) -> Self {
        Self { state, next_in_block: WORDS_PER_BLOCK, words_used: WORDS_PER_BLOCK as u64 }
    }

    /// How many words this stream has handed out so far.
    pub fn words_used(&self) -> u64 {
        self.words_used
    }

    /// Fills `out` with the next bytes of the stream, in stream order (for raw export and
    /// throughput benchmarks). Reads whole words: `out.len()` must be a multiple of 4.
    ///
    /// # Panics
    /// If `out.len()` is not a multiple of 4.
    pub fn fill_bytes(&mut self, out: &mut [u8]) {
        assert!(out.len().is_multiple_of(4), "fill_bytes takes whole words");
        for chunk in out.chunks_exact_mut(4) {
            chunk.copy_from_slice(&self.next_word().to_be_bytes());
        }
    }
}

impl WordSource for ShakeWords {
    #[inline]
    fn next_word(&mut self) -> u32 {
        if self.next_in_block == WORDS_PER_BLOCK {
            permute(&mut self.state);
            self.next_in_block = 0;
        }
        let lane = self.state[self.next_in_block / 2];
        // Stream bytes are the lane's bytes in little-endian order; a word is four of them
        // read big-endian, i.e. the byte-swapped low or high half of the lane.
        let half = if self.next_in_block.is_multiple_of(2) { lane as u32 } else { (lane >> 32) as u32 };
        self.next_in_block += 1;
        self.words_used += 1;
        half.swap_bytes()
    }
}

/// Crafted words for tests: hands out the given words in order, then repeats the last
/// one forever (or panics if none were given), counting what it hands out.
#[derive(Clone, Debug)]
pub struct FixedWords {
    words: Vec<u32>,
    next: usize,
}

impl FixedWords {
    /// A source that yields `words` in order.
    pub fn new(words: impl Into<Vec<u32>>) -> Self {
        Self { words: words.into(), next: 0 }
    }

    /// How many words have been handed out.
    pub fn words_used(&self) -> usize {
        self.next
    }
}

impl WordSource for FixedWords {
    fn next_word(&mut self) -> u32 {
        let word =
            *self.words.get(self.next).or(self.words.last()).expect("FixedWords needs at least one word");
        self.next += 1;
        word
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    use sha3::Shake256;

    fn reference_stream(input: &[u8], len: usize) -> Vec<u8> {
        let mut hasher = Shake256::default();
        hasher.update(input);
        let mut out = vec![0u8; len];
        hasher.finalize_xof().read(&mut out);
        out
    }

    #[test]
    fn stream_matches_sha3_crate_across_several_blocks() {
        let hex: [u8; 64] = *b"ff4a5a482caa19ce1ce33892da27c13f9716d4b63cd3697cb40449991cf384a7";
        let mut words = ShakeWords::from_signature_hex(&hex);
        let mut ours = vec![0u8; 4 * 1000];
        words.fill_bytes(&mut ours);
        assert_eq!(ours, reference_stream(&hex, 4000));
        assert_eq!(words.words_used(), 1000);
    }

    #[test]
    fn fixed_words_repeat_the_last_word() {
        let mut words = FixedWords::new([1, 2]);
        let got: Vec<u32> = (0..4).map(|_| words.next_word()).collect();
        assert_eq!(got, [1, 2, 2, 2]);
        assert_eq!(words.words_used(), 4);
    }
}
