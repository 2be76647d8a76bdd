//! SHA-256 block by block for the two shapes a chain sweep hashes millions of times: a
//! link (SHA-256 of a game hash's 64 hex characters: exactly one block, then a padding
//! block that never changes) and a crash point's HMAC (keyed by those 64 characters,
//! which fill exactly one block, so the key is never hashed; over a salt whose blocks and
//! padding are the same for every game of a chain, laid out once in [`GameHmac`]).
//!
//! Written here, over the `sha2` crate's compression function (`compress256`, SHA-NI
//! where the CPU has it), because the crates' general hashers spend the difference on
//! setting up and buffering: through `hmac` a crash point ran at 55% of the bare
//! compressions it needs, and a link through `Sha256::digest` at 79%
//! (`cargo bench --bench crash`, docs/performance.md). The results are tested equal to
//! those crates' for every salt length up to three blocks.

use sha2::digest::generic_array::GenericArray;

/// SHA-256's initial state (FIPS 180-4, 5.3.3).
const INITIAL: [u32; 8] =
    [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// The padding block of a 64-byte message: the 1 bit, zeros, the length (512 bits).
const PADDING_OF_ONE_BLOCK: [u8; 64] = padding_block(0, 64);

/// A block holding `filled` bytes yet to be written, then the 1 bit, zeros, and the
/// message's length in bits (`message_bytes * 8`) in its last eight bytes.
const fn padding_block(filled: usize, message_bytes: u64) -> [u8; 64] {
    let mut block = [0u8; 64];
    block[filled] = 0x80;
    let bits = (message_bytes * 8).to_be_bytes();
    let mut i = 0;
    while i < 8 {
        block[56 + i] = bits[i];
        i += 1;
    }
    block
}

fn compress(state: &mut [u32; 8], block: &[u8; 64]) {
    sha2::compress256(state, std::slice::from_ref(GenericArray::from_slice(block)));
}

fn digest_of(state: [u32; 8]) -> [u8; 32] {
    let mut digest = [0u8; 32];
    for (bytes, word) in digest.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
    digest
}

/// SHA-256 of the 64 bytes `text`: two compressions.
pub fn sha256_of_block(text: &[u8; 64]) -> [u8; 32] {
    let mut state = INITIAL;
    compress(&mut state, text);
    compress(&mut state, &PADDING_OF_ONE_BLOCK);
    digest_of(state)
}

/// HMAC-SHA256 over one salt, keyed by 64-byte keys: the salt's blocks, padded for an
/// inner message of 64 + salt bytes, laid out once. A digest costs three compressions and
/// one per block of the salt and its padding: five for a 64-character block hash, four for
/// a salt of up to 55 bytes.
#[derive(Clone, Debug)]
pub struct GameHmac {
    /// The salt and the inner hash's padding, in whole blocks.
    inner_tail: Vec<[u8; 64]>,
}

impl GameHmac {
    /// The salt's blocks.
    pub fn new(salt: &[u8]) -> Self {
        let mut bytes = salt.to_vec();
        bytes.push(0x80);
        while bytes.len() % 64 != 56 {
            bytes.push(0);
        }
        bytes.extend_from_slice(&((64 + salt.len() as u64) * 8).to_be_bytes());
        let inner_tail = bytes.chunks_exact(64).map(|block| block.try_into().expect("64 bytes")).collect();
        Self { inner_tail }
    }

    /// HMAC-SHA256(key, salt) for a key of exactly one block: the key is used as it is
    /// (RFC 2104: a key of the block's length is neither hashed nor padded).
    pub fn digest(&self, key: &[u8; 64]) -> [u8; 32] {
        let padded = |pad: u8| key.map(|byte| byte ^ pad);
        let mut inner = INITIAL;
        compress(&mut inner, &padded(0x36));
        for block in &self.inner_tail {
            compress(&mut inner, block);
        }
        let mut outer = INITIAL;
        compress(&mut outer, &padded(0x5c));
        // The inner digest (32 bytes) after the outer key's block: a message of 96 bytes.
        let mut last = padding_block(32, 96);
        last[..32].copy_from_slice(&digest_of(inner));
        compress(&mut outer, &last);
        digest_of(outer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hmac::{Hmac, Mac};
    use sha2::{Digest, Sha256};

    #[test]
    fn blocks_agree_with_the_crates_hashers_at_every_salt_length() {
        let mut key = [0u8; 64];
        for (i, byte) in key.iter_mut().enumerate() {
            *byte = b"0123456789abcdef"[(i * 7 + 3) % 16];
        }
        assert_eq!(sha256_of_block(&key).as_slice(), Sha256::digest(key).as_slice());
        let salt: Vec<u8> = (0..200u32).map(|i| (i * 31 + 7) as u8).collect();
        for length in 0..=salt.len() {
            let salt = &salt[..length];
            let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
            mac.update(salt);
            assert_eq!(
                GameHmac::new(salt).digest(&key).as_slice(),
                mac.finalize().into_bytes().as_slice(),
                "{length}"
            );
            key[length % 64] ^= 0x5a;
        }
    }
}
