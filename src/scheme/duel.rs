//! Duel's dice: an HMAC-SHA256 stream read by a rejection pick.
//!
//! As Duel publishes it and ProvablyFair.org's audit verifier reproduces it (audit
//! PF-2026-DL02, github.com/ProvablyFair-org/duel-dice, `src/rng.ts`; docs/schemes.md):
//!
//! - the server seed is hex text; its **decoded bytes** key the HMAC, and the commitment
//!   is the lowercase hex SHA-256 of those bytes;
//! - a round's digest is HMAC-SHA256(key, `client_seed:nonce`), the nonce in plain
//!   decimal; its 32 bytes are read as **eight big-endian 32-bit words** (the hex text's
//!   eight 8-character chunks);
//! - the pick among `n` accepts the first word below `0xFFFFFFFF - (0xFFFFFFFF mod n)` and
//!   gives `word mod n` ([`DuelRule`]); for dice `n = 10001`, a roll 0.00 to 100.00;
//! - a round whose eight words are all rejected has no result: the operator's code stops
//!   with an error (chance (7,843 / 2^32)^8, about 1.2e-46).
//!
//! Duel's verifier decodes any text (Node's `Buffer.from(seed, 'hex')` stops at the first
//! pair that is not hex and drops an odd last digit); fairaudit refuses such a seed with
//! the reason instead of auditing a key the operator may not have used.

use crate::chain::WordSource;
use crate::sampler::{modulo_preimages, modulo_words_below, PickRule};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// Words in a round: the digest's 32 bytes, four at a time.
pub const WORDS_PER_ROUND: u64 = 8;

/// Duel's pick: the first word below `0xFFFFFFFF - (0xFFFFFFFF mod n)`, modulo `n`. The
/// accepted words are a whole number of runs of `n` only when `n` does not divide 2^32
/// (dice's 10,001 does not: its limit is `2^32 - (2^32 mod n)`, the rule of `SPEC.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DuelRule;

impl PickRule for DuelRule {
    #[inline(always)]
    fn limit(n: u32) -> u64 {
        u64::from(u32::MAX - u32::MAX % n)
    }

    #[inline(always)]
    fn index(word: u32, n: u32) -> u32 {
        word % n
    }

    fn preimages(n: u32, value: u32) -> u64 {
        modulo_preimages(Self::limit(n), n, value)
    }

    fn words_below(n: u32, value: u32) -> u64 {
        modulo_words_below(Self::limit(n), n, value)
    }
}

/// The server seed's bytes: its hex text decoded (either case), or why it is not hex text.
pub fn seed_bytes(server_seed: &str) -> Result<Vec<u8>, String> {
    let shown = crate::fields::Excerpt(server_seed);
    if server_seed.len() % 2 == 1 {
        return Err(format!(
            "the server seed '{shown}' of scheme duel is hex text, which has an even number of digits"
        ));
    }
    server_seed
        .as_bytes()
        .chunks(2)
        .map(|pair| std::str::from_utf8(pair).ok().and_then(|pair| u8::from_str_radix(pair, 16).ok()))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| {
            format!(
                "the server seed '{shown}' of scheme duel is hex text (0-9, a-f), whose bytes key the HMAC"
            )
        })
}

/// The commitment Duel shows before play: the lowercase hex SHA-256 of the seed's bytes.
pub fn commitment(server_seed: &str) -> Result<String, String> {
    let digest: [u8; 32] = Sha256::digest(seed_bytes(server_seed)?).into();
    Ok(String::from_utf8(crate::chain::hex_lower(&digest).to_vec()).expect("hex is ASCII"))
}

/// A seed pair with its HMAC key absorbed and `client_seed:` after it, cloned per round.
#[derive(Clone)]
pub struct DuelPair {
    prefix: Hmac<Sha256>,
}

impl DuelPair {
    /// The pair's state, or why the server seed cannot key it.
    pub fn new(server_seed: &str, client_seed: &str) -> Result<Self, String> {
        let mut prefix =
            Hmac::<Sha256>::new_from_slice(&seed_bytes(server_seed)?).expect("HMAC takes keys of any length");
        prefix.update(client_seed.as_bytes());
        prefix.update(b":");
        Ok(DuelPair { prefix })
    }

    /// The digest of round `nonce`: HMAC-SHA256(seed bytes, `client_seed:nonce`).
    pub fn digest(&self, nonce: u64) -> [u8; 32] {
        let mut mac = self.prefix.clone();
        mac.update(itoa::Buffer::new().format(nonce).as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// The words of round `nonce`.
    pub fn words(&self, nonce: u64) -> DuelWords {
        DuelWords { digest: self.digest(nonce), next: 0 }
    }
}

/// A round's eight words, then zeros: a pick that reads past them has taken more than
/// [`WORDS_PER_ROUND`], which is how a round without a result is known
/// ([`crate::scheme::keyed::KeyedPair::round`]).
pub struct DuelWords {
    digest: [u8; 32],
    next: u64,
}

impl DuelWords {
    /// The words taken so far (more than eight: the round has no result).
    pub fn used(&self) -> u64 {
        self.next
    }
}

impl WordSource for DuelWords {
    #[inline]
    fn next_word(&mut self) -> u32 {
        let at = self.next as usize * 4;
        self.next += 1;
        match self.digest.get(at..at + 4) {
            Some(bytes) => u32::from_be_bytes(bytes.try_into().expect("four bytes")),
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_accepts_below_the_published_limit() {
        // 0xFFFFFFFF mod 10001 = 7,842: MAX_FAIR = 4,294,959,453 = 10,001 x 429,453.
        assert_eq!(DuelRule::limit(10_001), 4_294_959_453);
        assert_eq!(DuelRule::limit(10_001) % 10_001, 0);
        let law = DuelRule::law(10_001);
        assert!(law.iter().all(|&count| count == 429_453), "uniform over the accepted words");
        // Unlike SPEC's rule, a power of two loses its top run: 2^32 - 2 accepted of 2.
        assert_eq!(DuelRule::limit(2), u64::from(u32::MAX) - 1);
        assert_eq!(DuelRule::law(2), vec![(1 << 31) - 1, (1 << 31) - 1]);
    }

    #[test]
    fn words_are_the_digest_big_endian_then_zeros() {
        let pair = DuelPair::new("00ff", "client").unwrap();
        let digest = pair.digest(7);
        let mut words = pair.words(7);
        for i in 0..8 {
            assert_eq!(words.next_word(), u32::from_be_bytes(digest[i * 4..i * 4 + 4].try_into().unwrap()));
        }
        assert_eq!((words.next_word(), words.used()), (0, 9));
    }

    #[test]
    fn the_key_is_the_decoded_seed_and_the_message_client_colon_nonce() {
        let pair = DuelPair::new("4A6566", "what do ya want for nothing?").unwrap();
        let mut whole = Hmac::<Sha256>::new_from_slice(b"Jef").unwrap();
        whole.update(b"what do ya want for nothing?:12");
        assert_eq!(pair.digest(12), <[u8; 32]>::from(whole.finalize().into_bytes()));
    }

    #[test]
    fn a_seed_that_is_not_hex_text_is_refused_with_the_reason() {
        assert!(seed_bytes("abc").unwrap_err().contains("even number of digits"));
        assert!(seed_bytes("zz").unwrap_err().contains("hex text"));
        assert!(seed_bytes("é1").is_err());
        assert_eq!(seed_bytes("").unwrap(), Vec::<u8>::new());
        assert_eq!(commitment("00").unwrap(), commitment("00").unwrap().to_lowercase());
    }
}
