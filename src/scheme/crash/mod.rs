//! Crash games played from a hash chain: bustabit v1 and Roobet.
//!
//! The operator commits to a whole sequence of games at once: a chain of SHA-256 hashes in
//! which each game's hash is the SHA-256 of the next game's hash (as its 64-character
//! lowercase hex text: both operators hash text, not bytes), played in reverse, the last
//! hash of the chain published before play. A game's crash point comes from
//! HMAC-SHA256(key = the game hash as hex text, message = a public salt, the hash of a
//! Bitcoin block chosen before it was mined): when the digest, as a 256-bit number, is a
//! multiple of the instant-crash divisor (101 for bustabit v1, 25 for Roobet) the game
//! crashes at once; otherwise, with `h` the digest's top 52 bits and `e = 2^52`, the crash
//! point in hundredths is `floor((100 e - h) / (e - h))`, computed in 64-bit floats as the
//! operators' JavaScript computes it. Where each line comes from: docs/schemes.md.
//!
//! ```
//! use fairaudit::scheme::crash::{crash_point, previous_hash, CrashVariant};
//! let game = "45c7aac99b649ed50b255430e66e63e0c581e199702d3cd25f94284be3a10b29";
//! let point = crash_point(CrashVariant::BustabitV1, game, CrashVariant::BustabitV1.salt());
//! assert_eq!(CrashVariant::BustabitV1.shown(point), "1.56");
//! assert_eq!(previous_hash(game).len(), 64);
//! ```

pub mod blocks;
pub mod exact;

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// The game a crash scheme plays.
pub const GAMES: [&str; 1] = ["crash"];

/// A crash scheme: the instant-crash rule, how an instant crash is shown, the salt of its
/// published seeding event, and how games are numbered along the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CrashVariant {
    /// bustabit v1 (2015 to 2018, the moneypot code): 1 game in 101 crashes at once,
    /// shown 0.00.
    BustabitV1,
    /// Roobet (from December 2019): 1 game in 25 crashes at once, shown 1.00.
    Roobet,
}

/// A game's crash point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CrashPoint {
    /// The digest is a multiple of the instant-crash divisor: every bet loses.
    Instant,
    /// The multiplier in hundredths (100 = 1.00x), truncated.
    Hundredths(u64),
}

impl CrashVariant {
    /// Every variant.
    pub const ALL: [CrashVariant; 2] = [CrashVariant::BustabitV1, CrashVariant::Roobet];

    /// One game in this many crashes at once: the digest is a multiple of it.
    pub const fn instant_divisor(self) -> u64 {
        match self {
            CrashVariant::BustabitV1 => 101,
            CrashVariant::Roobet => 25,
        }
    }

    /// The salt of the operator's seeding event: the hash of the Bitcoin block announced
    /// before it was mined (bustabit v1: block 339300; Roobet: block 610546).
    pub const fn salt(self) -> &'static str {
        match self {
            CrashVariant::BustabitV1 => "000000000000000007a9a31ff7f07463d91af6b5454241d5faf282e5e0fe1b3a",
            CrashVariant::Roobet => "0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c",
        }
    }

    /// The salts of the operator's published seeding events: bustabit v1's block 339300;
    /// Roobet's block 610546 (December 2019) and, as a third-party copy of its verifier
    /// gives it (not checked against Roobet), the 2023 reseed's Ethereum block 17985520,
    /// written with its `0x`.
    pub const fn published_salts(self) -> &'static [&'static str] {
        match self {
            CrashVariant::BustabitV1 => &["000000000000000007a9a31ff7f07463d91af6b5454241d5faf282e5e0fe1b3a"],
            CrashVariant::Roobet => &[
                "0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c",
                "0xd2867566759e9158bda9bf93b343bbd9aa02ce1e0c5bc2b37a2d70d391b04f14",
            ],
        }
    }

    /// How the operator shows an instant crash, in hundredths: bustabit stores and shows
    /// 0 (0.00x), Roobet's verifier returns 1 (1.00x).
    pub const fn instant_shown(self) -> u64 {
        match self {
            CrashVariant::BustabitV1 => 0,
            CrashVariant::Roobet => 100,
        }
    }

    /// The crash point as the operator shows it, in hundredths (an instant crash as
    /// [`CrashVariant::instant_shown`]).
    pub fn shown_hundredths(self, point: CrashPoint) -> u64 {
        match point {
            CrashPoint::Instant => self.instant_shown(),
            CrashPoint::Hundredths(h) => h,
        }
    }

    /// The crash point as the operator shows it: two decimals, truncated.
    pub fn shown(self, point: CrashPoint) -> String {
        hundredths_text(self.shown_hundredths(point))
    }
}

/// Hundredths written with two decimals (`156` as `1.56`).
pub fn hundredths_text(hundredths: u64) -> String {
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

/// A game of an operator's chain whose hash the operator published when it seeded the
/// chain: every game's hash, hashed once per game between them, must lead to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublishedGame {
    /// Its game number.
    pub game: u64,
    /// Its hash.
    pub hash: &'static str,
    /// The first game played on the chain: no game below it exists.
    pub first_played: u64,
}

impl CrashVariant {
    /// The published game of the chain that `salt` seeds, where the operator's seeding
    /// event gives one: bustabit's terminating hash (game 999,999, never played; the first
    /// game is 1,000,000) and Roobet's game 1, with the salts of those events.
    pub fn published_game(self, salt: &str) -> Option<PublishedGame> {
        if salt != self.salt() {
            return None;
        }
        Some(match self {
            CrashVariant::BustabitV1 => PublishedGame {
                game: 999_999,
                hash: "c1cfa8e28fc38999eaa888487e443bad50a65e0b710f649affa6718cfbfada4d",
                first_played: 1_000_000,
            },
            CrashVariant::Roobet => PublishedGame {
                game: 1,
                hash: "77b271fe12fca03c618f63dfb79d4105726ba9d4a25bb3f1964e435ccf9cb209",
                first_played: 1,
            },
        })
    }
}

/// HMAC-SHA256 keyed by the game hash (its text) over the salt (its text).
pub fn game_digest(game_hash: &str, salt: &str) -> [u8; 32] {
    hmac_of_key(game_hash.as_bytes(), salt.as_bytes())
}

fn hmac_of_key(key: &[u8], salt: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(salt);
    mac.finalize().into_bytes().into()
}

/// [`previous_hash`] of a game hash held as its 32 bytes: SHA-256 of its hex text (two
/// compressions).
pub fn previous_digest(game_hash: &[u8; 32]) -> [u8; 32] {
    blocks::sha256_of_block(&crate::chain::hex_lower(game_hash))
}

/// The 32 bytes of a game hash written as 64 lowercase hex digits; `None` for any other
/// text.
pub fn hash_bytes(text: &str) -> Option<[u8; 32]> {
    if !is_game_hash(text) {
        return None;
    }
    let mut bytes = [0u8; 32];
    for (byte, pair) in bytes.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
        let digit = |c: u8| if c.is_ascii_digit() { c - b'0' } else { c - b'a' + 10 };
        *byte = digit(pair[0]) << 4 | digit(pair[1]);
    }
    Some(bytes)
}

/// A game hash's 32 bytes as its text.
pub fn hash_text(bytes: &[u8; 32]) -> String {
    String::from_utf8(crate::chain::hex_lower(bytes).to_vec()).expect("hex is ASCII")
}

/// The digest as a 256-bit big-endian number, modulo `m`: what the operators' `divisible`
/// computes four hex digits at a time.
///
/// # Panics
/// If `m` is 0 or above 2^32 − 1.
#[inline]
pub fn digest_mod(digest: &[u8; 32], m: u64) -> u64 {
    assert!(m > 0 && m <= u64::from(u32::MAX), "a divisor of 1 to 2^32 - 1");
    // Four bytes at a time: the rest stays below m < 2^32, so rest · 2^32 + word < 2^64.
    digest.chunks_exact(4).fold(0, |rest, word| {
        (rest << 32 | u64::from(u32::from_be_bytes(word.try_into().expect("four bytes")))) % m
    })
}

/// The top 52 bits of the digest (its first 13 hex digits).
pub fn top_bits(digest: &[u8; 32]) -> u64 {
    u64::from_be_bytes(digest[..8].try_into().expect("eight bytes")) >> 12
}

/// The crash point of a digest's top 52 bits when the game does not crash at once:
/// `floor((100 e - h) / (e - h))` hundredths in 64-bit floats, the operators' arithmetic
/// (`100 e - h` is rounded to a double before the division, as in JavaScript).
pub fn formula_hundredths(h: u64) -> u64 {
    let e = (1u64 << 52) as f64;
    let h = h as f64;
    ((100.0 * e - h) / (e - h)).floor() as u64
}

/// A game's crash point from its digest.
#[inline]
pub fn point_of_digest(variant: CrashVariant, digest: &[u8; 32]) -> CrashPoint {
    // Each variant's divisor a constant where the remainder is taken, so that it compiles
    // to multiplications (a sweep takes one per game).
    let instant = match variant {
        CrashVariant::BustabitV1 => digest_mod(digest, CrashVariant::BustabitV1.instant_divisor()) == 0,
        CrashVariant::Roobet => digest_mod(digest, CrashVariant::Roobet.instant_divisor()) == 0,
    };
    if instant {
        CrashPoint::Instant
    } else {
        CrashPoint::Hundredths(formula_hundredths(top_bits(digest)))
    }
}

/// A game's crash point from its hash (hex text) and the salt.
pub fn crash_point(variant: CrashVariant, game_hash: &str, salt: &str) -> CrashPoint {
    point_of_digest(variant, &game_digest(game_hash, salt))
}

/// The hash of the game before this one: SHA-256 of this game's hash as text, in
/// lowercase hex.
pub fn previous_hash(game_hash: &str) -> String {
    hash_text(&Sha256::digest(game_hash.as_bytes()).into())
}

/// Whether `text` is a game hash as the chain writes it: 64 lowercase hex digits.
pub fn is_game_hash(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A crash point as the operator shows it (`1.56`, `0.00`), or what is wrong with it.
pub fn read_shown(text: &str) -> Result<u64, String> {
    let bad =
        || format!("'{}' is not a crash point: two decimals, as 1.56 or 0.00", crate::fields::Excerpt(text));
    let (whole, cents) = text.split_once('.').ok_or_else(bad)?;
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || cents.len() != 2 || !digits(cents) || (whole.len() > 1 && whole.starts_with('0')) {
        return Err(bad());
    }
    let whole: u64 = whole.parse().map_err(|_| bad())?;
    whole
        .checked_mul(100)
        .and_then(|w| w.checked_add(cents.parse::<u64>().expect("two digits")))
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisibility_is_the_whole_digest_modulo() {
        // 2^255 mod 101 and mod 25, by repeated doubling.
        let mut digest = [0u8; 32];
        digest[0] = 0x80;
        let pow = |m: u64| (0..255).fold(1u64, |x, _| x * 2 % m);
        assert_eq!(digest_mod(&digest, 101), pow(101));
        assert_eq!(digest_mod(&digest, 25), pow(25));
        assert_eq!(digest_mod(&[0; 32], 101), 0);
        assert_eq!(top_bits(&[0xff; 32]), (1 << 52) - 1);
        // Four bytes at a time is byte by byte, for any divisor up to 2^32 - 1.
        let by_bytes =
            |d: &[u8; 32], m: u64| d.iter().fold(0u128, |r, &b| (r * 256 + u128::from(b)) % u128::from(m));
        let mut digest = [0u8; 32];
        for round in 0..200u64 {
            digest = previous_digest(&digest);
            for m in [1, 25, 33, 101, 65_537, u64::from(u32::MAX), round + 1] {
                assert_eq!(u128::from(digest_mod(&digest, m)), by_bytes(&digest, m), "{m}");
            }
        }
    }

    #[test]
    fn the_formula_at_its_edges() {
        // h = 0 is 1.00x; the formula is 100 + 99 h / (e - h), floored.
        assert_eq!(formula_hundredths(0), 100);
        assert_eq!(formula_hundredths(1 << 51), 199);
        let e = 1u64 << 52;
        // Against exact integer arithmetic where the double is exact enough.
        for h in [1, 12_345, 1 << 40, e / 3, e - 1_000_000] {
            let exact = (100 * u128::from(e) - u128::from(h)) / (u128::from(e) - u128::from(h));
            assert_eq!(u128::from(formula_hundredths(h)), exact, "h = {h}");
        }
        // Near the top the double rounds 100 e - h to a multiple of 64 first, as
        // JavaScript does: (99 e + 2) / 2 floors to 99 e / 2, not 99 e / 2 + 1.
        assert_eq!(formula_hundredths(e - 2), 99 * e / 2);
    }

    #[test]
    fn byte_paths_agree_with_the_text_paths() {
        let game = "45c7aac99b649ed50b255430e66e63e0c581e199702d3cd25f94284be3a10b29";
        let bytes = hash_bytes(game).unwrap();
        assert_eq!(hash_text(&bytes), game);
        assert_eq!(hash_text(&previous_digest(&bytes)), previous_hash(game));
        let salt = CrashVariant::Roobet.salt();
        let hmac = blocks::GameHmac::new(salt.as_bytes());
        assert_eq!(hmac.digest(&crate::chain::hex_lower(&bytes)), game_digest(game, salt));
        for bad in ["45C7aac99b649ed50b255430e66e63e0c581e199702d3cd25f94284be3a10b29", "45c7", ""] {
            assert_eq!(hash_bytes(bad), None, "{bad}");
        }
        // The published games are given with the salts of their seeding events only.
        for variant in CrashVariant::ALL {
            assert!(variant.published_game(variant.salt()).is_some_and(|p| is_game_hash(p.hash)));
            assert_eq!(variant.published_game("a clone's salt"), None);
        }
    }

    #[test]
    fn shown_and_read_back() {
        let v1 = CrashVariant::BustabitV1;
        assert_eq!(v1.shown(CrashPoint::Instant), "0.00");
        assert_eq!(CrashVariant::Roobet.shown(CrashPoint::Instant), "1.00");
        assert_eq!(v1.shown(CrashPoint::Hundredths(123_456)), "1234.56");
        assert_eq!(read_shown("1234.56"), Ok(123_456));
        assert_eq!(read_shown("0.00"), Ok(0));
        for bad in ["1.5", "01.50", "1,234.56", "", "1.", ".50", "x.00", "1.500"] {
            assert!(read_shown(bad).is_err(), "{bad}");
        }
    }
}
