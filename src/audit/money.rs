//! Exact amounts of money: stakes, payouts and paytable multipliers as decimal fixed-point
//! numbers, so that `stake × multiplier = payout` is checked exactly, without floating
//! point and without allocating per row (a bet history has millions of rows).
//!
//! Written by hand rather than with a decimal crate: the audit needs only parsing, one
//! multiplication and an exact comparison, over `u128`, with a clear error beyond it; the
//! paytable's exact rationals (`num-rational`) would allocate on every row.

use std::cmp::Ordering;
use std::fmt;

/// Digits after the point an amount may have.
pub const MAX_PLACES: u32 = 18;

/// A non-negative decimal amount: `mantissa / 10^places`, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Money {
    mantissa: u128,
    places: u32,
}

/// Why a text is not an amount.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    /// The text is empty.
    #[error("empty where an amount is needed")]
    Empty,
    /// A negative amount.
    #[error("'{}' is negative", crate::fields::Excerpt(.0))]
    Negative(String),
    /// Not plain decimal digits with an optional fractional part.
    #[error("'{}' is not a plain decimal amount (digits with an optional '.' part, e.g. 2.50)", crate::fields::Excerpt(.0))]
    NotANumber(String),
    /// More digits than an amount holds.
    #[error(
        "'{}' has more digits than fairaudit checks exactly (at most 18 after the point, 10^20 in all)", crate::fields::Excerpt(.0)
    )]
    TooLarge(String),
}

fn pow10(exponent: u32) -> u128 {
    10u128.pow(exponent)
}

impl Money {
    /// Zero.
    pub const ZERO: Money = Money { mantissa: 0, places: 0 };

    /// A whole amount.
    pub fn whole(value: u64) -> Money {
        Money { mantissa: u128::from(value), places: 0 }
    }

    /// Parses `digits[.digits]`; a leading `-` on a non-zero amount is reported as negative.
    pub fn parse(text: &str) -> Result<Money, MoneyError> {
        if text.is_empty() {
            return Err(MoneyError::Empty);
        }
        let (negative, unsigned) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
        let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(fraction) || unsigned.ends_with('.') {
            return Err(MoneyError::NotANumber(text.to_owned()));
        }
        let whole_digits = whole.trim_start_matches('0');
        if fraction.len() > MAX_PLACES as usize || whole_digits.len() > 20 {
            return Err(MoneyError::TooLarge(text.to_owned()));
        }
        let places = fraction.len() as u32;
        let mut mantissa: u128 = 0;
        for b in whole_digits.bytes().chain(fraction.bytes()) {
            mantissa = mantissa * 10 + u128::from(b - b'0');
        }
        if negative && mantissa != 0 {
            return Err(MoneyError::Negative(text.to_owned()));
        }
        Ok(Money { mantissa, places })
    }

    /// `self × other`, exactly, or `None` when it does not fit.
    pub fn times(self, other: Money) -> Option<Money> {
        Some(Money {
            mantissa: self.mantissa.checked_mul(other.mantissa)?,
            places: self.places + other.places,
        })
    }

    /// `self + other`, exactly, or `None` when it does not fit.
    pub fn plus(self, other: Money) -> Option<Money> {
        let places = self.places.max(other.places);
        let a = self.mantissa.checked_mul(pow10(places - self.places))?;
        let b = other.mantissa.checked_mul(pow10(places - other.places))?;
        Some(Money { mantissa: a.checked_add(b)?, places })
    }

    /// The absolute difference `|self − other|`, exactly, or `None` when it does not fit.
    pub fn distance(self, other: Money) -> Option<Money> {
        let places = self.places.max(other.places);
        let a = self.mantissa.checked_mul(pow10(places - self.places))?;
        let b = other.mantissa.checked_mul(pow10(places - other.places))?;
        Some(Money { mantissa: a.abs_diff(b), places })
    }

    /// Exact comparison (by value: `2.50 == 2.5`), or `None` when the values cannot be
    /// brought to one scale in 128 bits.
    pub fn compare(self, other: Money) -> Option<Ordering> {
        let places = self.places.max(other.places);
        let a = self.mantissa.checked_mul(pow10(places - self.places))?;
        let b = other.mantissa.checked_mul(pow10(places - other.places))?;
        Some(a.cmp(&b))
    }

    /// An exact rational as an amount, when it is a terminating decimal of at most
    /// [`MAX_PLACES`] places that fits (paytable multipliers always are).
    pub fn from_ratio(value: &num_rational::BigRational) -> Option<Money> {
        use num_traits::{Signed, ToPrimitive};
        if value.is_negative() {
            return None;
        }
        (0..=MAX_PLACES).find_map(|places| {
            let scaled = value * num_rational::BigRational::from_integer(pow10(places).into());
            scaled
                .is_integer()
                .then(|| scaled.to_integer().to_u128())
                .flatten()
                .map(|mantissa| Money { mantissa, places })
        })
    }

    /// The amount as a float, for statistics (sums of returns).
    pub fn to_f64(self) -> f64 {
        self.mantissa as f64 / 10f64.powi(self.places as i32)
    }
}

impl fmt::Display for Money {
    /// The shortest exact decimal: `2.5`, `1.3035`, `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scale = pow10(self.places);
        let (whole, fraction) = (self.mantissa / scale, self.mantissa % scale);
        if fraction == 0 {
            return write!(f, "{whole}");
        }
        let digits = format!("{fraction:0width$}", width = self.places as usize);
        write!(f, "{whole}.{}", digits.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str) -> Money {
        Money::parse(text).unwrap()
    }

    #[test]
    fn amounts_parse_exactly_and_compare_by_value() {
        assert_eq!(m("2.50").compare(m("2.5")), Some(Ordering::Equal));
        assert_eq!(m("0.33").times(m("3.95")).unwrap().to_string(), "1.3035");
        assert_eq!(m("10").times(Money::whole(36)).unwrap().to_string(), "360");
        assert_eq!(m("-0").to_string(), "0");
        assert_eq!(m("1.3").distance(m("1.3035")).unwrap().to_string(), "0.0035");
        assert_eq!(m("0.1").plus(m("0.25")).unwrap().to_string(), "0.35");
    }

    #[test]
    fn terminating_ratios_become_amounts() {
        let ratio = |n: i64, d: i64| num_rational::BigRational::new(n.into(), d.into());
        assert_eq!(Money::from_ratio(&ratio(395, 100)).unwrap().to_string(), "3.95");
        assert_eq!(Money::from_ratio(&ratio(1, 3)), None);
        assert_eq!(Money::from_ratio(&ratio(-1, 2)), None);
    }

    #[test]
    fn other_spellings_are_refused() {
        for text in ["1e3", "1,5", ".5", "5.", "+1", "1.2.3", "abc", " 1", "NaN"] {
            assert!(matches!(Money::parse(text), Err(MoneyError::NotANumber(_))), "{text}");
        }
        assert_eq!(Money::parse("-2"), Err(MoneyError::Negative("-2".into())));
        assert_eq!(Money::parse(""), Err(MoneyError::Empty));
        assert!(matches!(Money::parse("0.0000000000000000001"), Err(MoneyError::TooLarge(_))));
        assert!(matches!(Money::parse("123456789012345678901"), Err(MoneyError::TooLarge(_))));
    }
}
