//! Reading a round's outcome as files write it (`result`, `draw_order`): one parser per
//! game, used by every command that reads outcomes (`audit`, `verify --rounds`,
//! conformance answers), so that a cell means the same everywhere and gets the same
//! verdict. A cell that is not an outcome of the game in the written form (a pocket
//! `05`, `+5`, `5.0` or `５`, a Keno result not in ascending order, a repeated number)
//! is an input error naming the column, never a mismatch: it states no round that could
//! be compared with the chain's.
//!
//! The written forms (the inverse of [`Game::result_text`] and [`Game::draw_order_text`]):
//! a Keno result is its ten numbers ascending, its draw order the same ten in the order
//! drawn, whitespace-separated; a roulette result is the pocket's label (`0`..`36`, `00`
//! on the American wheel), its draw order the pocket index (`0`..`37`, `37` for `00`).
//! Numbers are plain digits ([`crate::fields::parse_small`]).
//!
//! [`Game::result_text`]: super::Game::result_text
//! [`Game::draw_order_text`]: super::Game::draw_order_text

use super::keno::{DRAWN, GRID};
use super::roulette::DOUBLE_ZERO;
use super::{GameId, KenoRound, Roulette, Spin};
use crate::fields::{parse_small, Excerpt};

/// A cell that is not an outcome: the column and what is wrong.
pub type FieldError = (&'static str, String);

/// Ten distinct Keno numbers of 1..=40, whitespace-separated, in the order written.
pub fn keno_numbers(column: &'static str, text: &str) -> Result<Vec<u8>, FieldError> {
    let numbers: Vec<u8> = text
        .split_whitespace()
        .map(|t| parse_small(t, 1..=GRID as u64, "a Keno number").ok().map(|n| n as u8))
        .collect::<Option<_>>()
        .ok_or_else(|| (column, format!("'{}' is not Keno numbers 1 to 40", Excerpt(text))))?;
    if numbers.len() != DRAWN {
        return Err((column, format!("'{}' has {} numbers, not {DRAWN}", Excerpt(text), numbers.len())));
    }
    let mask = numbers.iter().fold(0u64, |m, &n| m | 1 << n);
    if mask.count_ones() as usize != DRAWN {
        return Err((column, format!("'{}' repeats a number", Excerpt(text))));
    }
    Ok(numbers)
}

/// A Keno `result`: ten distinct numbers, ascending.
pub fn keno_result(text: &str) -> Result<Vec<u8>, FieldError> {
    let sorted = keno_numbers("result", text)?;
    if sorted.windows(2).any(|w| w[0] > w[1]) {
        return Err((
            "result",
            format!("'{}' is not in ascending order (the draw order goes in draw_order)", Excerpt(text)),
        ));
    }
    Ok(sorted)
}

/// A Keno round from its `result` and, when given, its `draw_order` (the same numbers).
pub fn keno_round(result: &str, order: Option<&str>) -> Result<KenoRound, FieldError> {
    let sorted = keno_result(result)?;
    let order = match order {
        Some(text) => {
            let order = keno_numbers("draw_order", text)?;
            let mut check = order.clone();
            check.sort_unstable();
            if check != sorted {
                return Err((
                    "draw_order",
                    format!(
                        "'{}' is not the same numbers as the result '{}'",
                        Excerpt(text),
                        Excerpt(result)
                    ),
                ));
            }
            order
        }
        None => sorted,
    };
    Ok(KenoRound { order: order.try_into().expect("ten numbers"), rejected: [0; DRAWN] })
}

/// A roulette `result`: the pocket's label on `wheel`.
pub fn pocket(wheel: Roulette, text: &str) -> Result<u8, FieldError> {
    match text {
        "00" if wheel.pockets() == 38 => Ok(DOUBLE_ZERO),
        text => parse_small(text, 0..=36, "a pocket")
            .map(|p| p as u8)
            .map_err(|_| ("result", format!("'{}' is not a pocket of this wheel", Excerpt(text)))),
    }
}

/// A roulette `draw_order`: the pocket index on `wheel` (`37` for `00`).
pub fn pocket_index(wheel: Roulette, text: &str) -> Result<u8, FieldError> {
    parse_small(text, 0..=u64::from(wheel.pockets() - 1), "a pocket index").map(|p| p as u8).map_err(|_| {
        let last = wheel.pockets() - 1;
        let hint = if last == 37 { ", 37 for 00" } else { "" };
        ("draw_order", format!("'{}' is not a pocket index of this wheel (0 to {last}{hint})", Excerpt(text)))
    })
}

/// A spin from its `result` and, when given, its `draw_order` (the same pocket).
pub fn spin(wheel: Roulette, result: &str, order: Option<&str>) -> Result<Spin, FieldError> {
    let pocket = pocket(wheel, result)?;
    if let Some(order) = order {
        if pocket_index(wheel, order)? != pocket {
            return Err((
                "draw_order",
                format!("'{}' does not match the result '{}'", Excerpt(order), Excerpt(result)),
            ));
        }
    }
    Ok(Spin { pocket, rejected: 0 })
}

/// Reads one outcome column of `game` (`result` or `draw_order`) on its own, as `verify`
/// checks each column it finds: the value in its written form, for comparison with the
/// chain's.
pub fn outcome_column(game: GameId, column: &str, text: &str) -> Result<String, FieldError> {
    let join = |numbers: Vec<u8>| numbers.iter().map(u8::to_string).collect::<Vec<_>>().join(" ");
    let wheel = match game {
        GameId::Keno if column == "result" => return keno_result(text).map(join),
        GameId::Keno => return keno_numbers("draw_order", text).map(join),
        GameId::RouletteEuropean => Roulette::EUROPEAN,
        GameId::RouletteAmerican => Roulette::AMERICAN,
    };
    if column == "result" {
        pocket(wheel, text).map(Roulette::label)
    } else {
        pocket_index(wheel, text).map(|p| p.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keno_rows_are_validated() {
        assert!(keno_round("1 2 3 4 5 6 7 8 9 10", None).is_ok());
        assert_eq!(keno_round("1 2 3 4 5 6 7 8 9", None).unwrap_err().0, "result");
        assert!(keno_round("1 2 3 4 5 6 7 8 9 41", None).is_err());
        assert!(keno_round("2 1 3 4 5 6 7 8 9 10", None).is_err(), "not ascending");
        assert!(keno_round("1 1 3 4 5 6 7 8 9 10", None).is_err(), "repeat");
        let round = keno_round("1 2 3 4 5 6 7 8 9 10", Some("10 9 8 7 6 5 4 3 2 1")).unwrap();
        assert_eq!(round.order[0], 10);
        assert_eq!(
            keno_round("1 2 3 4 5 6 7 8 9 10", Some("11 9 8 7 6 5 4 3 2 1")).unwrap_err().0,
            "draw_order"
        );
    }

    #[test]
    fn spins_are_validated() {
        assert_eq!(spin(Roulette::AMERICAN, "00", None).unwrap().pocket, 37);
        assert_eq!(spin(Roulette::AMERICAN, "00", Some("37")).unwrap().pocket, 37);
        for bad in ["00", "37", "07", "+7", "7.0", "７", " 7", "7 "] {
            assert!(spin(Roulette::EUROPEAN, bad, None).is_err(), "{bad:?}");
        }
        assert_eq!(spin(Roulette::EUROPEAN, "0", Some("0")).unwrap().pocket, 0);
        assert!(spin(Roulette::EUROPEAN, "5", Some("6")).is_err());
        assert!(spin(Roulette::EUROPEAN, "5", Some("37")).is_err(), "no index 37 on a European wheel");
        // The label 00 where its index belongs: said so, not "'00' does not match '00'".
        let (column, problem) = spin(Roulette::AMERICAN, "00", Some("00")).unwrap_err();
        assert_eq!(column, "draw_order");
        assert!(problem.contains("not a pocket index") && problem.contains("37 for 00"), "{problem}");
    }

    #[test]
    fn single_columns_read_back_in_their_written_form() {
        assert_eq!(
            outcome_column(GameId::Keno, "result", " 1 2 3 4 5 6 7 8 9 10").unwrap(),
            "1 2 3 4 5 6 7 8 9 10"
        );
        assert_eq!(
            outcome_column(GameId::Keno, "draw_order", "10 2 3 4 5 6 7 8 9 1").unwrap(),
            "10 2 3 4 5 6 7 8 9 1"
        );
        assert!(outcome_column(GameId::Keno, "result", "10 2 3 4 5 6 7 8 9 1").is_err());
        assert_eq!(outcome_column(GameId::RouletteAmerican, "result", "00").unwrap(), "00");
        assert_eq!(outcome_column(GameId::RouletteAmerican, "draw_order", "37").unwrap(), "37");
        assert!(outcome_column(GameId::RouletteEuropean, "result", "05").is_err());
    }
}
