//! `challenge.csv`, the conformance kit's challenge as a table (the cases themselves come
//! from [`crate::conformance`]).

use super::{Cell, Table};
use crate::conformance::stake::{StakeCase, COLUMNS as STAKE_COLUMNS};
use crate::conformance::{Case, CHALLENGE_COLUMNS, CHALLENGE_FILE};

/// The challenge as a table: [`CHALLENGE_COLUMNS`], the outcome columns empty. Seeds are
/// written exactly (not neutralised against spreadsheet formulas: they are inputs that
/// must survive unchanged, and none of them starts like a formula).
pub fn challenge_table(cases: &[Case]) -> Table {
    let mut table = Table::new(CHALLENGE_FILE, CHALLENGE_COLUMNS.to_vec());
    for case in cases {
        let empty = || Cell::Text(String::new());
        table.push(vec![
            Cell::Text(case.game.name().to_owned()),
            Cell::Text(case.server_seed.clone()),
            Cell::Text(case.client_seed.clone()),
            Cell::Int(case.nonce),
            empty(),
            empty(),
            empty(),
            empty(),
            empty(),
            Cell::Text(case.label.clone()),
        ]);
    }
    table
}

/// The stake challenge as a table ([`STAKE_COLUMNS`], the scheme rounds format of
/// `verify --rounds` with the case label): `commitment` and `result` empty. Seeds are
/// written exactly, as in [`challenge_table`].
pub fn stake_challenge_table(cases: &[StakeCase]) -> Table {
    let mut table = Table::new(CHALLENGE_FILE, STAKE_COLUMNS.to_vec());
    for case in cases {
        table.push(vec![
            Cell::Text("stake".to_owned()),
            Cell::Text(case.game.name().to_owned()),
            Cell::Text(case.server_seed.clone()),
            Cell::Text(case.client_seed.clone()),
            Cell::Int(case.nonce),
            Cell::Text(case.game.params()),
            Cell::Text(String::new()),
            Cell::Text(String::new()),
            Cell::Text(case.label.clone()),
        ]);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::challenge;
    use crate::games::GameId;
    use crate::report::spreadsheet_safe;

    // A seed that a spreadsheet-safe writer would alter could not be written exactly.
    #[test]
    fn no_seed_starts_like_a_formula() {
        let stake = crate::conformance::stake::challenge(&crate::conformance::stake::GROUPS);
        let seeds = challenge(&GameId::ALL)
            .into_iter()
            .map(|case| (case.label, case.server_seed, case.client_seed))
            .chain(stake.into_iter().map(|case| (case.label, case.server_seed, case.client_seed)));
        for (label, server, client) in seeds {
            assert_eq!(spreadsheet_safe(&server), server.as_str(), "{label}");
            assert_eq!(spreadsheet_safe(&client), client.as_str(), "{label}");
        }
    }

    #[test]
    fn the_table_reads_back_to_the_cases() {
        let cases = challenge(&GameId::ALL);
        let bytes = challenge_table(&cases).to_csv();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        assert_eq!(reader.headers().unwrap(), CHALLENGE_COLUMNS.as_slice());
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), cases.len());
        for (row, case) in rows.iter().zip(&cases) {
            assert_eq!(
                (&row[0], &row[1], &row[2], &row[3], &row[9]),
                (
                    case.game.name(),
                    case.server_seed.as_str(),
                    case.client_seed.as_str(),
                    case.nonce.to_string().as_str(),
                    case.label.as_str()
                )
            );
            assert!((4..9).all(|i| row[i].is_empty()));
        }
    }
}
