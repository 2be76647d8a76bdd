//! Exact decimals: parsing the decimal text of paytables and claims into rationals
//! without passing through floating point, and writing rationals back as decimals.
//!
//! A multiplier of `1.1` is eleven tenths, exactly; read as `f64` it would be
//! 1.100000000000000088…, and an RTP computed from it would not be the paytable's.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{Signed, Zero};

/// Why a text is not a non-negative decimal number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecimalError {
    /// The text is empty (after trimming).
    #[error("empty where a number is needed")]
    Empty,
    /// A well-formed number below zero.
    #[error("'{}' is negative", crate::fields::Excerpt(.0))]
    Negative(String),
    /// More digits than any paytable or claim needs.
    #[error("'{}' has more than {MAX_DIGITS} digits", crate::fields::Excerpt(.0))]
    TooLong(String),
    /// Anything else: letters, exponents, thousands separators, several points.
    #[error("'{}' is not a plain decimal number (digits with an optional '.' part, e.g. 3.95)", crate::fields::Excerpt(.0))]
    NotANumber(String),
}

/// The most digits a decimal may have: a multiplier of 10^30 is already absurd, and a
/// 70-kilobyte number once took 20 seconds to read and then crashed the formatting.
pub const MAX_DIGITS: usize = 30;

/// A non-negative decimal written as digits with an optional fractional part (`3`,
/// `3.95`, `0.005`), exactly. Exponents, `+`, `,` and `_` are refused, so nothing is
/// guessed; a `-` in front of a non-zero number is reported as negative.
pub fn parse_decimal(text: &str) -> Result<BigRational, DecimalError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(DecimalError::Empty);
    }
    if text.bytes().filter(u8::is_ascii_digit).count() > MAX_DIGITS {
        return Err(DecimalError::TooLong(text.to_owned()));
    }
    let not_a_number = || DecimalError::NotANumber(text.to_owned());
    match text.strip_prefix('-') {
        Some(rest) => match parse_unsigned(rest) {
            Some(value) if value.is_zero() => Ok(value),
            Some(_) => Err(DecimalError::Negative(text.to_owned())),
            None => Err(not_a_number()),
        },
        None => parse_unsigned(text).ok_or_else(not_a_number),
    }
}

fn parse_unsigned(text: &str) -> Option<BigRational> {
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) => (whole, fraction),
        None => (text, ""),
    };
    let all_digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) || text.ends_with('.') {
        return None;
    }
    let numerator: BigInt = format!("{whole}{fraction}").parse().ok()?;
    Some(BigRational::new(numerator, pow10(fraction.len())))
}

/// An exact percentage, or a difference in percentage points: its own type, so that a
/// fraction is never printed as a percentage or scaled twice, and one function formats it
/// wherever it appears (terminal, CSV, HTML).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Percent(pub BigRational);

impl Percent {
    /// Decimals every percentage is printed with.
    pub const PLACES: usize = 6;

    /// A fraction (`36/37`) as a percentage (`97.297297…`).
    pub fn of_fraction(fraction: &BigRational) -> Percent {
        Percent(fraction * BigRational::from_integer(BigInt::from(100)))
    }

    /// The value with [`Percent::PLACES`] decimals, rounded half away from zero
    /// (`97.297297`).
    pub fn text(&self) -> String {
        format_fixed(&self.0, Self::PLACES)
    }

    /// The magnitude.
    pub fn abs(&self) -> Percent {
        Percent(self.0.abs())
    }

    /// Whether it is below zero.
    pub fn is_negative(&self) -> bool {
        self.0.is_negative()
    }

    /// Whether it is above zero.
    pub fn is_positive(&self) -> bool {
        self.0.is_positive()
    }
}

/// Digits after the decimal point in a decimal's text (`97.30` has 2): the precision a
/// published figure was given to.
pub fn decimal_places(text: &str) -> usize {
    text.trim().split_once('.').map_or(0, |(_, fraction)| fraction.len())
}

/// Half a unit in the last digit of a published figure (`97.30` → 0.005, `97` → 0.5):
/// the figure is then a correct rounding of any value within that distance.
pub fn half_last_digit(text: &str) -> BigRational {
    BigRational::new(BigInt::from(5), pow10(decimal_places(text) + 1))
}

fn pow10(exponent: usize) -> BigInt {
    num_traits::pow(BigInt::from(10), exponent)
}

/// `value` with exactly `places` digits after the point, rounded half away from zero.
pub fn format_fixed(value: &BigRational, places: usize) -> String {
    let scaled = value.abs() * BigRational::from_integer(pow10(places));
    let (quotient, remainder) = scaled.numer().div_rem(scaled.denom());
    let rounded = if remainder * 2 >= *scaled.denom() { quotient + 1 } else { quotient };
    let digits = format!("{:0>width$}", rounded.to_string(), width = places + 1);
    let (whole, fraction) = digits.split_at(digits.len() - places);
    let sign = if value.is_negative() && !rounded_is_zero(whole, fraction) { "-" } else { "" };
    if places == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{fraction}")
    }
}

fn rounded_is_zero(whole: &str, fraction: &str) -> bool {
    whole.bytes().chain(fraction.bytes()).all(|b| b == b'0')
}

/// `value` with at most `places` digits after the point, trailing zeros dropped: exact
/// for the terminating decimals of a paytable (`3.95`, `1000`).
pub fn format_trimmed(value: &BigRational, places: usize) -> String {
    let fixed = format_fixed(value, places);
    if fixed.contains('.') {
        fixed.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        fixed
    }
}

/// `value` as a fraction in lowest terms (`36/37`), or an integer when it is one.
pub fn format_fraction(value: &BigRational) -> String {
    if value.is_integer() {
        value.numer().to_string()
    } else {
        format!("{}/{}", value.numer(), value.denom())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(n: i64, d: i64) -> BigRational {
        BigRational::new(n.into(), d.into())
    }

    #[test]
    fn decimals_parse_exactly() {
        assert_eq!(parse_decimal("1.1").unwrap(), ratio(11, 10));
        assert_eq!(parse_decimal(" 3.95 ").unwrap(), ratio(395, 100));
        assert_eq!(parse_decimal("0").unwrap(), ratio(0, 1));
        assert_eq!(parse_decimal("007.50").unwrap(), ratio(15, 2));
        assert_eq!(parse_decimal("-0").unwrap(), ratio(0, 1), "minus zero is zero, not negative");
    }

    #[test]
    fn other_spellings_are_refused() {
        for text in ["1e3", "1,5", ".5", "5.", "+1", "1.2.3", "abc", "1_000", "NaN", "inf", "--1"] {
            assert!(matches!(parse_decimal(text), Err(DecimalError::NotANumber(_))), "{text}");
        }
        assert_eq!(parse_decimal("-1.5"), Err(DecimalError::Negative("-1.5".into())));
        assert_eq!(parse_decimal("  "), Err(DecimalError::Empty));
    }

    #[test]
    fn formatting_rounds_half_away_from_zero() {
        assert_eq!(format_fixed(&ratio(3600, 37), 6), "97.297297");
        assert_eq!(format_fixed(&ratio(1, 8), 2), "0.13");
        assert_eq!(format_fixed(&ratio(-1, 8), 2), "-0.13");
        assert_eq!(format_fixed(&ratio(-1, 1000), 2), "0.00");
        assert_eq!(format_fixed(&ratio(7, 1), 0), "7");
        assert_eq!(format_fixed(&ratio(1, 3), 3), "0.333");
        assert_eq!(format_trimmed(&ratio(395, 100), 6), "3.95");
        assert_eq!(format_trimmed(&ratio(1000, 1), 6), "1000");
        assert_eq!(format_fraction(&ratio(72, 74)), "36/37");
    }

    #[test]
    fn published_precision_gives_the_default_tolerance() {
        assert_eq!(half_last_digit("97.30"), ratio(5, 1000));
        assert_eq!(half_last_digit("97"), ratio(1, 2));
        assert_eq!(decimal_places("99.125"), 3);
    }
}
