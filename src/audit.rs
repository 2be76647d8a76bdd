//! Auditing recorded outcomes: an operator's logs or another implementation's output,
//! streamed row by row into the same tallies the sweep uses, so the same battery runs on
//! them. Rows that carry a nonce and both seeds are also replayed against the chain.

use crate::chain::RoundHasher;
use crate::games::keno::{DRAWN, GRID};
use crate::games::roulette::DOUBLE_ZERO;
use crate::games::{GameId, KenoRound, Roulette, Spin};
use crate::tally::{Closed, KenoTally, RouletteTally, SequenceTally};
use crate::verify::{parse_nonce, replay_outcome, Mismatch, RoundsError};
use std::io::Read;

/// The tallies of an audited log.
#[derive(Clone, Debug)]
pub enum AuditTallies {
    /// Keno rounds; `has_draw_order` says whether positions are known.
    Keno {
        /// The counters.
        tally: Box<Closed<KenoTally>>,
        /// Whether the log recorded the draw order (enables the position test).
        has_draw_order: bool,
    },
    /// Roulette spins.
    Roulette(Box<Closed<RouletteTally>>),
}

/// What an audit found.
#[derive(Clone, Debug)]
pub struct Audit {
    /// The game.
    pub game: GameId,
    /// The tallies, for the battery.
    pub tallies: AuditTallies,
    /// Rounds read.
    pub rounds: u64,
    /// Rounds replayed against the chain (those with nonce and seeds).
    pub verified: u64,
    /// Rounds whose recorded outcome differs from the chain's.
    pub mismatches: u64,
}

struct Columns {
    result: usize,
    draw_order: Option<usize>,
    game: Option<usize>,
    chain: Option<(usize, usize, usize)>,
}

/// Reads an outcomes CSV (header row; `result` required; `draw_order`, `game`, `nonce`,
/// `server_seed`, `client_seed` optional) and tallies it, calling `on_mismatch` for each
/// row the chain contradicts.
pub fn audit_outcomes<R: Read>(
    game: GameId,
    input: R,
    mut on_mismatch: impl FnMut(&Mismatch),
) -> Result<Audit, RoundsError> {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(input);
    let headers = reader.headers()?.clone();
    let find = |name: &str| headers.iter().position(|h| h.trim() == name);
    let result = find("result").ok_or(RoundsError::MissingColumn("result"))?;
    let chain = match (find("nonce"), find("server_seed"), find("client_seed")) {
        (Some(n), Some(s), Some(c)) => Some((n, s, c)),
        _ => None,
    };
    let columns = Columns { result, draw_order: find("draw_order"), game: find("game"), chain };

    let mut keno = KenoTally::new(crate::games::Keno);
    let wheel = if game == GameId::RouletteAmerican { Roulette::AMERICAN } else { Roulette::EUROPEAN };
    let mut roulette = RouletteTally::new(wheel);
    let (mut rounds, mut verified, mut mismatches) = (0, 0, 0);
    let mut record = csv::StringRecord::new();
    let mut cached: Option<(String, String, RoundHasher)> = None;
    while reader.read_record(&mut record)? {
        let line = record.position().map_or(0, csv::Position::line);
        let bad = |column: &'static str, problem: String| RoundsError::BadField { line, column, problem };
        let cell = |i: usize| record.get(i).unwrap_or("").trim();
        if let Some(g) = columns.game {
            if cell(g) != game.name() {
                return Err(bad("game", format!("'{}' in a {} audit", cell(g), game.name())));
            }
        }
        let result_text = cell(columns.result);
        let order_text = columns.draw_order.map(cell).filter(|t| !t.is_empty());
        match game {
            GameId::Keno => {
                let round = parse_keno(result_text, order_text).map_err(|(c, p)| bad(c, p))?;
                keno.record(&round);
            }
            _ => {
                let spin = parse_spin(wheel, result_text, order_text).map_err(|(c, p)| bad(c, p))?;
                roulette.record(&spin);
            }
        }
        rounds += 1;
        if let Some((n, s, c)) = columns.chain {
            let nonce = parse_nonce(cell(n)).map_err(|e| bad("nonce", e.to_string()))?;
            let (server, client) = (record.get(s).unwrap_or(""), record.get(c).unwrap_or(""));
            if !matches!(&cached, Some((cs, cc, _)) if cs == server && cc == client) {
                cached = Some((server.to_owned(), client.to_owned(), RoundHasher::new(server, client)));
            }
            let hasher = &cached.as_ref().expect("filled above").2;
            let (replayed_order, replayed_result, _) = replay_outcome(game, hasher, nonce);
            verified += 1;
            let mut row_mismatch = false;
            let mut check = |field: &'static str, given: &str, computed: &str| {
                if !given.split_whitespace().eq(computed.split_whitespace()) {
                    row_mismatch = true;
                    on_mismatch(&Mismatch {
                        line,
                        field,
                        file_value: given.to_owned(),
                        computed_value: computed.to_owned(),
                    });
                }
            };
            check("result", result_text, &replayed_result);
            if let Some(order) = order_text {
                check("draw_order", order, &replayed_order);
            }
            mismatches += u64::from(row_mismatch);
        }
    }
    // The log is a whole sequence: count its first and last runs.
    let tallies = match game {
        GameId::Keno => AuditTallies::Keno {
            tally: Box::new(Closed::sequence(keno)),
            has_draw_order: columns.draw_order.is_some(),
        },
        _ => AuditTallies::Roulette(Box::new(Closed::sequence(roulette))),
    };
    Ok(Audit { game, tallies, rounds, verified, mismatches })
}

type FieldError = (&'static str, String);

fn parse_numbers(column: &'static str, text: &str) -> Result<Vec<u8>, FieldError> {
    let numbers: Vec<u8> = text
        .split_whitespace()
        .map(|t| t.parse::<u8>().ok().filter(|n| (1..=GRID as u8).contains(n)))
        .collect::<Option<_>>()
        .ok_or_else(|| (column, format!("'{text}' is not Keno numbers 1 to 40")))?;
    if numbers.len() != DRAWN {
        return Err((column, format!("'{text}' has {} numbers, not {DRAWN}", numbers.len())));
    }
    let mask = numbers.iter().fold(0u64, |m, &n| m | 1 << n);
    if mask.count_ones() as usize != DRAWN {
        return Err((column, format!("'{text}' repeats a number")));
    }
    Ok(numbers)
}

fn parse_keno(result: &str, order: Option<&str>) -> Result<KenoRound, FieldError> {
    let sorted = parse_numbers("result", result)?;
    if sorted.windows(2).any(|w| w[0] > w[1]) {
        return Err(("result", format!("'{result}' is not in ascending order")));
    }
    let order = match order {
        Some(text) => {
            let order = parse_numbers("draw_order", text)?;
            let mut check = order.clone();
            check.sort_unstable();
            if check != sorted {
                return Err((
                    "draw_order",
                    format!("'{text}' is not the same numbers as the result '{result}'"),
                ));
            }
            order
        }
        None => sorted,
    };
    Ok(KenoRound { order: order.try_into().expect("ten numbers"), rejected: [0; DRAWN] })
}

fn parse_spin(wheel: Roulette, result: &str, order: Option<&str>) -> Result<Spin, FieldError> {
    let pocket = match result {
        "00" if wheel.pockets() == 38 => DOUBLE_ZERO,
        text => text
            .parse::<u8>()
            .ok()
            .filter(|&p| p <= 36 && (text == "0" || !text.starts_with('0')))
            .ok_or_else(|| ("result", format!("'{text}' is not a pocket of this wheel")))?,
    };
    if let Some(order) = order {
        if order.parse::<u8>().ok() != Some(pocket) {
            return Err(("draw_order", format!("'{order}' does not match the result '{result}'")));
        }
    }
    Ok(Spin { pocket, rejected: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keno_rows_are_validated() {
        assert!(parse_keno("1 2 3 4 5 6 7 8 9 10", None).is_ok());
        assert_eq!(parse_keno("1 2 3 4 5 6 7 8 9", None).unwrap_err().0, "result");
        assert!(parse_keno("1 2 3 4 5 6 7 8 9 41", None).is_err());
        assert!(parse_keno("2 1 3 4 5 6 7 8 9 10", None).is_err(), "not ascending");
        assert!(parse_keno("1 1 3 4 5 6 7 8 9 10", None).is_err(), "repeat");
        let round = parse_keno("1 2 3 4 5 6 7 8 9 10", Some("10 9 8 7 6 5 4 3 2 1")).unwrap();
        assert_eq!(round.order[0], 10);
        assert_eq!(
            parse_keno("1 2 3 4 5 6 7 8 9 10", Some("11 9 8 7 6 5 4 3 2 1")).unwrap_err().0,
            "draw_order"
        );
    }

    #[test]
    fn roulette_rows_are_validated() {
        assert_eq!(parse_spin(Roulette::AMERICAN, "00", None).unwrap().pocket, 37);
        assert!(parse_spin(Roulette::EUROPEAN, "00", None).is_err());
        assert!(parse_spin(Roulette::EUROPEAN, "37", None).is_err());
        assert!(parse_spin(Roulette::EUROPEAN, "07", None).is_err());
        assert!(parse_spin(Roulette::EUROPEAN, "00", None).is_err(), "00 is not 0 on a European wheel");
        assert_eq!(parse_spin(Roulette::EUROPEAN, "0", Some("0")).unwrap().pocket, 0);
        assert!(parse_spin(Roulette::EUROPEAN, "5", Some("6")).is_err());
    }
}
