//! The keyed byte stream of the HMAC-SHA256 family and the floats made from it.
//!
//! Round `r` of nonce `n` is the 32 bytes HMAC-SHA256(key = the server seed's UTF-8
//! bytes, message = `client_seed:n:r`); a round's bytes are these blocks for r = 0, 1, 2, …
//! read through a cursor. Four bytes b0..b3 make one float, Σ b_i / 256^(i+1), so eight
//! floats come from each block and a game that needs more (Keno's 10, plinko's 16 rows,
//! mines beyond 8) crosses into block 1. (Stake's `byteGenerator` and `generateFloats`,
//! docs/schemes.md.)
//!
//! That float is exactly k / 2^32 for the big-endian 32-bit integer k of the four bytes,
//! so [`UnitFloat`] keeps k: every game's `floor(float * n)` is then `(k * n) >> 32`,
//! computed exactly (as the JavaScript double arithmetic computes it: k * n < 2^53).
//!
//! Speed: the HMAC key's inner and outer midstates, and the client seed's whole 64-byte
//! blocks, are absorbed once per seed pair ([`SeedPair`]); a block then costs the
//! compressions of the nonce's and round's few bytes: two for a client seed of up to 40 bytes.

use crate::chain::WordSource;
use crate::sampler::PickRule;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// A float in [0, 1) with 32 bits of resolution: `k / 2^32`, kept as `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitFloat(pub u32);

impl UnitFloat {
    /// Four bytes as the operators read them: Σ b_i / 256^(i+1), i.e. big-endian.
    pub fn from_bytes(bytes: [u8; 4]) -> Self {
        UnitFloat(u32::from_be_bytes(bytes))
    }

    /// `floor(float * n)`, exactly: `(k * n) >> 32`, in 0..n.
    pub fn scale(self, n: u32) -> u32 {
        ((u64::from(self.0) * u64::from(n)) >> 32) as u32
    }

    /// The float as the operators' JavaScript holds it (exact: 32 bits fit a double).
    pub fn value(self) -> f64 {
        f64::from(self.0) / 4_294_967_296.0
    }
}

/// The family's pick rule: `floor(float * n)`, i.e. `(k * n) >> 32` of the word `k`; no
/// word is rejected. Value `v` comes from the words `ceil(v * 2^32 / n) .. ceil((v + 1) *
/// 2^32 / n)`, so each has ⌊2^32/n⌋ or ⌈2^32/n⌉ of them: not exactly uniform unless `n`
/// divides 2^32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloorOfFloat;

impl PickRule for FloorOfFloat {
    #[inline(always)]
    fn limit(_: u32) -> u64 {
        1 << 32
    }

    #[inline(always)]
    fn index(word: u32, n: u32) -> u32 {
        UnitFloat(word).scale(n)
    }

    fn preimages(n: u32, value: u32) -> u64 {
        Self::words_below(n, value + 1) - Self::words_below(n, value)
    }

    /// The first word giving `value` or more is `ceil(value * 2^32 / n)`.
    fn words_below(n: u32, value: u32) -> u64 {
        (u64::from(value) << 32).div_ceil(u64::from(n))
    }
}

/// A seed pair with its HMAC state prepared: the key's midstates and `client_seed:`
/// absorbed, cloned for every block.
#[derive(Clone)]
pub struct SeedPair {
    prefix: Hmac<Sha256>,
}

impl SeedPair {
    /// The pair's state: HMAC-SHA256 keyed by the server seed, with `client_seed:` absorbed.
    pub fn new(server_seed: &str, client_seed: &str) -> Self {
        let mut prefix =
            Hmac::<Sha256>::new_from_slice(server_seed.as_bytes()).expect("HMAC takes keys of any length");
        prefix.update(client_seed.as_bytes());
        prefix.update(b":");
        Self { prefix }
    }

    /// Block `round` of nonce `nonce`: HMAC-SHA256(server seed, `client_seed:nonce:round`).
    pub fn block(&self, nonce: u64, round: u64) -> [u8; 32] {
        let mut mac = self.prefix.clone();
        let mut digits = itoa::Buffer::new();
        mac.update(digits.format(nonce).as_bytes());
        mac.update(b":");
        mac.update(digits.format(round).as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// The floats of nonce `nonce`, from block 0 on.
    pub fn floats(&self, nonce: u64) -> Floats<'_> {
        Floats { pair: self, nonce, round: 0, block: self.block(nonce, 0), cursor: 0, used: 0 }
    }
}

/// The endless floats of one nonce, four bytes each, moving into the next block after
/// every eight.
pub struct Floats<'a> {
    pair: &'a SeedPair,
    nonce: u64,
    round: u64,
    block: [u8; 32],
    cursor: usize,
    used: u64,
}

impl Floats<'_> {
    /// How many floats were taken so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// The next float's numerator: four bytes at the cursor, the next block first where
    /// this one is used up.
    #[inline]
    fn next_numerator(&mut self) -> u32 {
        if self.cursor == 32 {
            self.next_block();
        }
        let bytes: [u8; 4] = self.block[self.cursor..self.cursor + 4].try_into().expect("four bytes");
        self.cursor += 4;
        self.used += 1;
        u32::from_be_bytes(bytes)
    }

    /// Moves to the round's next block. Kept out of line: a sweep's loop over the words
    /// stays small (Keno and plinko lost 5% of their rate when it was inlined with them).
    #[inline(never)]
    fn next_block(&mut self) {
        self.round += 1;
        self.block = self.pair.block(self.nonce, self.round);
        self.cursor = 0;
    }
}

/// Any floats as the words games are played from (a test's or a mutant's floats).
pub struct FloatWords<I>(pub I);

impl<I: Iterator<Item = UnitFloat>> WordSource for FloatWords<I> {
    fn next_word(&mut self) -> u32 {
        self.0.next().expect("the floats given are enough for the round").0
    }
}

/// The floats' 32-bit numerators, for the games written over pick rules.
impl WordSource for Floats<'_> {
    #[inline]
    fn next_word(&mut self) -> u32 {
        self.next_numerator()
    }
}

impl Iterator for Floats<'_> {
    type Item = UnitFloat;

    #[inline]
    fn next(&mut self) -> Option<UnitFloat> {
        Some(UnitFloat(self.next_numerator()))
    }
}

/// The commitment the family shows before play: lowercase hex SHA-256 of the server seed.
pub fn commitment(server_seed: &str) -> String {
    use sha2::Digest;
    let digest: [u8; 32] = Sha256::digest(server_seed.as_bytes()).into();
    String::from_utf8(crate::chain::hex_lower(&digest).to_vec()).expect("hex is ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prepared prefix (the key's midstates and `client_seed:` absorbed once per pair)
    /// gives the bytes of an HMAC of the whole message computed in one piece, whatever the
    /// seeds' lengths (a client seed of several 64-byte blocks included).
    #[test]
    fn a_block_is_the_hmac_of_the_whole_message() {
        for (server, client) in
            [("Jefe", "what do ya want for nothing?"), ("", ""), ("s", &"c".repeat(130)[..])]
        {
            let pair = SeedPair::new(server, client);
            for (nonce, round) in [(0, 0), (7, 1), (u64::MAX, 12)] {
                let mut whole = Hmac::<Sha256>::new_from_slice(server.as_bytes()).unwrap();
                whole.update(format!("{client}:{nonce}:{round}").as_bytes());
                let expected: [u8; 32] = whole.finalize().into_bytes().into();
                assert_eq!(pair.block(nonce, round), expected, "{server:?} {client:?} {nonce} {round}");
            }
        }
    }

    /// RFC 4231 test case 2 itself, through the same HMAC the prefix is built on.
    #[test]
    fn the_hmac_is_rfc_4231() {
        let mut mac = Hmac::<Sha256>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        let hex: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    #[test]
    fn floats_take_four_bytes_each_and_cross_into_the_next_block() {
        let pair = SeedPair::new("server", "client");
        let (first, second) = (pair.block(3, 0), pair.block(3, 1));
        let floats: Vec<UnitFloat> = pair.floats(3).take(10).collect();
        for (i, float) in floats.iter().enumerate() {
            let block = if i < 8 { &first } else { &second };
            let at = (i % 8) * 4;
            let bytes = &block[at..at + 4];
            let sum: f64 =
                bytes.iter().enumerate().map(|(j, &b)| f64::from(b) / 256f64.powi(j as i32 + 1)).sum();
            assert_eq!(float.value(), sum, "float {i}");
        }
    }

    #[test]
    fn scale_is_floor_of_the_product() {
        for k in [0u32, 1, 0x7fff_ffff, 0x8000_0000, u32::MAX, 2_863_311_530] {
            for n in [2u32, 37, 40, 10001] {
                assert_eq!(
                    UnitFloat(k).scale(n) as f64,
                    (UnitFloat(k).value() * f64::from(n)).floor(),
                    "{k} {n}"
                );
            }
        }
    }

    #[test]
    fn the_commitment_is_sha256_hex() {
        assert_eq!(commitment("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
