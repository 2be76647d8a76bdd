//! One parser per kind of value, used by every reader (bet histories, rounds files,
//! paytables, claims, command-line ranges), so that a value means the same wherever it is
//! written, and one way to quote what a user wrote back in an error.
//!
//! The rules, everywhere:
//!
//! * **nonces**: plain decimal digits, no sign, no spaces, no exponent, up to 2^64 − 1;
//!   leading zeros are read numerically (`007` is nonce 7), because some exports pad them;
//! * **small numbers** (counts, picks, hits, pockets, Keno numbers): plain decimal digits,
//!   no sign, no spaces, no leading zero (`07` and `+7` are refused: they are not how the
//!   operator writes a pocket, and accepting them in one reader but not another was a bug);
//! * **decimals** (multipliers, figures, stakes, payouts): `digits[.digits]`, no sign, no
//!   exponent, no thousands separator ([`crate::rtp::decimal`], [`crate::audit::money`]).
//!
//! * **digests** (commitments, round signatures): 64 hex digits, either case, nothing else
//!   (not `0x…`);
//! * **outcomes** (`result`, `draw_order`): [`crate::games::parse`].
//!
//! Cells are not trimmed before a value is read: `" 1"` is not a nonce, and a commitment
//! with a space after it is an input error in every command, not a different commitment.

use std::fmt;

/// Quotes user text in an error message: what [`Shown`] escapes escaped, the length
/// capped, so an error stays one readable line whatever the file held.
pub struct Excerpt<'a>(pub &'a str);

/// Characters of user text an error message quotes at most.
pub const EXCERPT_CHARS: usize = 60;

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0;
        let end = text.char_indices().nth(EXCERPT_CHARS).map_or(text.len(), |(at, _)| at);
        write!(f, "{}", Shown(&text[..end]))?;
        let chars = text.chars().count();
        if chars > EXCERPT_CHARS {
            write!(f, "... ({} more characters)", chars - EXCERPT_CHARS)?;
        }
        Ok(())
    }
}

/// Shows user text on a terminal as it is, except what a terminal would act on or hide:
/// control characters (ESC sequences, line breaks, carriage returns), invisible characters
/// and bidirectional overrides are escaped (`\u{1b}`, `\n`, `\u{202e}`), so a file cannot
/// redraw a line (a fake "0 mismatches") or reorder it. Unlike [`Excerpt`], not shortened:
/// a finding shows the whole value.
pub struct Shown<'a>(pub &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() || is_invisible(c) || is_reordering(c) {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// Bidirectional controls: they reorder the text around them as it is shown.
pub fn is_reordering(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Characters that show as nothing: zero-width spaces and joiners, the byte-order mark.
pub fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{00AD}')
}

/// Why a nonce could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NonceError {
    /// Not plain decimal digits.
    #[error("nonce '{}' is not a non-negative decimal integer", Excerpt(.0))]
    NotDecimal(String),
    /// More than 2^64 − 1.
    #[error("nonce '{}' is larger than 18446744073709551615", Excerpt(.0))]
    TooLarge(String),
}

/// Parses a nonce (see the module docs).
pub fn parse_nonce(text: &str) -> Result<u64, NonceError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NonceError::NotDecimal(text.to_owned()));
    }
    text.parse().map_err(|_| NonceError::TooLarge(text.to_owned()))
}

/// Parses a small number in `range` (see the module docs); the error names `what`.
pub fn parse_small(text: &str, range: std::ops::RangeInclusive<u64>, what: &str) -> Result<u64, String> {
    let plain = !text.is_empty()
        && text.len() <= 20
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    match text.parse::<u64>() {
        Ok(value) if plain && range.contains(&value) => Ok(value),
        _ => Err(format!(
            "'{}' is not {what} ({} to {}, plain digits)",
            Excerpt(text),
            range.start(),
            range.end()
        )),
    }
}

/// Parses a SHA3-256 digest written as 64 hex digits, either case (a commitment, a round
/// signature), into lowercase; the error names `what`. Nothing else is read as one: not
/// `0x…`, not with spaces around it, so that `audit` and `verify` give it one verdict.
pub fn parse_digest(text: &str, what: &str) -> Result<String, String> {
    if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(text.to_ascii_lowercase())
    } else {
        let hint = if text.starts_with("0x") || text.starts_with("0X") {
            " (write it without 0x)"
        } else if text.trim() != text {
            " (spaces around it)"
        } else {
            ""
        };
        Err(format!("'{}' is not {what}: 64 hex digits{hint}", Excerpt(text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_take_plain_decimal_only() {
        assert_eq!(parse_nonce("0"), Ok(0));
        assert_eq!(parse_nonce("007"), Ok(7));
        assert_eq!(parse_nonce("18446744073709551615"), Ok(u64::MAX));
        for bad in ["", "+1", "-1", " 1", "1 ", "1e3", "0x10", "1.0"] {
            assert!(matches!(parse_nonce(bad), Err(NonceError::NotDecimal(_))), "{bad:?}");
        }
        assert!(matches!(parse_nonce("18446744073709551616"), Err(NonceError::TooLarge(_))));
    }

    #[test]
    fn small_numbers_refuse_signs_spaces_and_leading_zeros() {
        assert_eq!(parse_small("7", 0..=36, "a pocket"), Ok(7));
        assert_eq!(parse_small("0", 0..=36, "a pocket"), Ok(0));
        for bad in ["07", "+7", " 7", "7 ", "37", "-1", "", "1e1"] {
            assert!(parse_small(bad, 0..=36, "a pocket").is_err(), "{bad:?}");
        }
    }

    #[test]
    fn digests_are_64_hex_digits_and_nothing_else() {
        let digest = "AB".repeat(32);
        assert_eq!(parse_digest(&digest, "a commitment").unwrap(), "ab".repeat(32));
        for bad in [
            format!("0x{digest}"),
            format!("{digest} "),
            format!(" {digest}"),
            digest[1..].to_owned(),
            "g".repeat(64),
        ] {
            assert!(parse_digest(&bad, "a commitment").is_err(), "{bad:?}");
        }
        assert!(parse_digest(&format!("0x{digest}"), "a commitment").unwrap_err().contains("without 0x"));
    }

    #[test]
    fn excerpts_are_one_short_line() {
        let nasty = format!("a\nb\u{1b}[31m\u{200b}{}", "x".repeat(1_000_000));
        let text = Excerpt(&nasty).to_string();
        assert!(!text.contains('\n') && !text.contains('\u{1b}') && !text.contains('\u{200b}'));
        assert!(text.len() < 200 && text.contains("more characters"), "{text}");
    }
}
