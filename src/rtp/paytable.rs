//! Keno paytables: the multiplier paid for each (picks, hits), read exactly from CSV.
//!
//! # Format
//!
//! CSV (RFC 4180, UTF-8) with a header row naming the columns `picks`, `hits` and
//! `multiplier` (any order; other columns are ignored), one row per (picks, hits):
//!
//! ```text
//! picks,hits,multiplier
//! 1,0,0
//! 1,1,3.95
//! ...
//! ```
//!
//! - A **multiplier is the total return per unit stake, stake included**, as Keno
//!   paytables are conventionally printed: `3.95` means a 1-unit bet receives 3.95 units
//!   (a net win of 2.95); `0` means the stake is lost; `0.5` returns half the stake.
//! - Multipliers are plain non-negative decimals (`0`, `3.95`, `1000`), parsed exactly as
//!   rationals from their text: no floating point.
//! - **Every row is required**: for each picks 1..=10, one row for each hits 0..=picks
//!   (65 rows), zeros included. A missing row is an error rather than an implicit 0,
//!   because a dropped line would otherwise silently lower the RTP being certified.
//! - Each problem is reported with the line it is on ([`PaytableError`]): picks outside
//!   1..=10, hits outside 0..=picks, a non-numeric or negative multiplier, a duplicate
//!   (picks, hits), a row with the wrong number of fields; missing rows are reported at
//!   the file's last line.
//!
//! The crate ships one example, [`Paytable::example`] (`data/keno-paytable-example.csv`).
//! It is **illustrative, not the operator's**: the operator's paytable is not part of the
//! published material (SPEC §6), so certifying the operator's Keno needs theirs.

use super::decimal::{format_trimmed, parse_decimal, DecimalError};
use crate::games::keno::DRAWN;
use num_rational::BigRational;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;

/// Where the crate's example paytable lives in the repository.
pub const EXAMPLE_PAYTABLE_PATH: &str = "data/keno-paytable-example.csv";

/// The example paytable's text, built into the library.
pub const EXAMPLE_PAYTABLE_CSV: &str = include_str!("../../data/keno-paytable-example.csv");

/// What every mention of the example paytable says about it.
pub const ILLUSTRATIVE_LABEL: &str = "ILLUSTRATIVE example paytable, NOT THE OPERATOR'S";

/// Where a paytable came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaytableOrigin {
    /// The crate's illustrative example.
    Example,
    /// A file the user supplied, by the name they gave.
    File(String),
}

/// A complete, validated Keno paytable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paytable {
    /// `multipliers[picks - 1][hits]`: total return per unit stake.
    multipliers: Vec<Vec<BigRational>>,
    origin: PaytableOrigin,
}

/// A paytable problem, on the line where it was found (1 is the header).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct PaytableError {
    /// The 1-based line.
    pub line: u64,
    /// What is wrong there.
    pub problem: PaytableProblem,
}

/// What can be wrong with a paytable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaytableProblem {
    /// Not CSV, invalid UTF-8, a row with the wrong number of fields, or no header.
    #[error("{0}")]
    Csv(String),
    /// The header lacks a required column.
    #[error("no '{0}' column (the header must name picks, hits and multiplier)")]
    MissingColumn(&'static str),
    /// `picks` or `hits` is not a whole number.
    #[error("{column} '{}' is not a whole number", crate::fields::Excerpt(.text))]
    NotAnInteger {
        /// `picks` or `hits`.
        column: &'static str,
        /// The text found.
        text: String,
    },
    /// `picks` outside 1..=10.
    #[error("picks {0} is outside 1..10")]
    PicksOutOfRange(u64),
    /// `hits` outside 0..=picks.
    #[error("hits {hits} is outside 0..{picks} for picks {picks}")]
    HitsOutOfRange {
        /// The row's picks.
        picks: u64,
        /// The row's hits.
        hits: u64,
    },
    /// The multiplier is not a non-negative decimal.
    #[error("multiplier {0}")]
    Multiplier(DecimalError),
    /// A (picks, hits) given twice.
    #[error("picks {picks} hits {hits} is given again (first on line {first_line})")]
    Duplicate {
        /// The row's picks.
        picks: u64,
        /// The row's hits.
        hits: u64,
        /// Where it was first given.
        first_line: u64,
    },
    /// Rows absent at the end of the file.
    #[error(
        "missing rows: {0} (every picks 1..10 needs a row for each hits 0..picks; write 0 for no payout)"
    )]
    MissingRows(MissingRows),
}

/// The (picks, hits) rows a paytable lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingRows(pub Vec<(usize, usize)>);

impl fmt::Display for MissingRows {
    /// `picks 7 (all), picks 10 hits 0, 3` — whole pick counts named once.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut by_picks: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &(picks, hits) in &self.0 {
            by_picks.entry(picks).or_default().push(hits);
        }
        let parts: Vec<String> = by_picks
            .into_iter()
            .map(|(picks, hits)| {
                if hits.len() == picks + 1 {
                    format!("picks {picks} (all)")
                } else {
                    let list: Vec<String> = hits.iter().map(usize::to_string).collect();
                    format!("picks {picks} hits {}", list.join(", "))
                }
            })
            .collect();
        f.write_str(&parts.join("; "))
    }
}

impl Paytable {
    /// Reads and validates a paytable (format in the module docs).
    pub fn parse(input: impl Read, origin: PaytableOrigin) -> Result<Paytable, PaytableError> {
        let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::Headers).from_reader(input);
        let csv_error = |error: csv::Error| {
            let (line, message) = super::csv_error_parts(&error);
            PaytableError { line, problem: PaytableProblem::Csv(message) }
        };
        let header = reader.headers().map_err(csv_error)?.clone();
        let column = |name: &'static str| {
            header
                .iter()
                .position(|h| h == name)
                .ok_or(PaytableError { line: 1, problem: PaytableProblem::MissingColumn(name) })
        };
        let (picks_at, hits_at, multiplier_at) = (column("picks")?, column("hits")?, column("multiplier")?);

        let mut found: Vec<Vec<Option<(BigRational, u64)>>> =
            (1..=DRAWN).map(|k| vec![None; k + 1]).collect();
        let mut last_line = 1;
        for record in reader.records() {
            let record = record.map_err(csv_error)?;
            let line = record.position().map_or(last_line + 1, |p| p.line());
            last_line = line;
            let fail = |problem| PaytableError { line, problem };
            let whole = |at: usize, column: &'static str| {
                let text = &record[at];
                crate::fields::parse_small(text, 0..=u64::from(u32::MAX), "a whole number")
                    .map_err(|_| fail(PaytableProblem::NotAnInteger { column, text: text.to_owned() }))
            };
            let (picks, hits) = (whole(picks_at, "picks")?, whole(hits_at, "hits")?);
            if !(1..=DRAWN as u64).contains(&picks) {
                return Err(fail(PaytableProblem::PicksOutOfRange(picks)));
            }
            if hits > picks {
                return Err(fail(PaytableProblem::HitsOutOfRange { picks, hits }));
            }
            let multiplier =
                parse_decimal(&record[multiplier_at]).map_err(|e| fail(PaytableProblem::Multiplier(e)))?;
            let slot = &mut found[picks as usize - 1][hits as usize];
            if let Some((_, first_line)) = slot {
                return Err(fail(PaytableProblem::Duplicate { picks, hits, first_line: *first_line }));
            }
            *slot = Some((multiplier, line));
        }
        let missing: Vec<(usize, usize)> = found
            .iter()
            .enumerate()
            .flat_map(|(k, row)| {
                row.iter().enumerate().filter(|(_, m)| m.is_none()).map(move |(h, _)| (k + 1, h))
            })
            .collect();
        if !missing.is_empty() {
            return Err(PaytableError {
                line: last_line,
                problem: PaytableProblem::MissingRows(MissingRows(missing)),
            });
        }
        let multipliers = found
            .into_iter()
            .map(|row| row.into_iter().map(|m| m.expect("checked above").0).collect())
            .collect();
        Ok(Paytable { multipliers, origin })
    }

    /// The crate's ILLUSTRATIVE example paytable (`data/keno-paytable-example.csv`),
    /// which is NOT the operator's: RTP between 98.75% and 99.05% for each pick count.
    pub fn example() -> Paytable {
        Paytable::parse(EXAMPLE_PAYTABLE_CSV.as_bytes(), PaytableOrigin::Example)
            .expect("the example paytable is valid (tested)")
    }

    /// The total return per unit stake for `hits` hits with `picks` numbers picked.
    ///
    /// # Panics
    /// When `picks` is outside 1..=10 or `hits` outside 0..=picks.
    pub fn multiplier(&self, picks: usize, hits: usize) -> &BigRational {
        &self.multipliers[picks - 1][hits]
    }

    /// Where the paytable came from.
    pub fn origin(&self) -> &PaytableOrigin {
        &self.origin
    }

    /// Whether this is the crate's illustrative example rather than a supplied paytable.
    pub fn is_illustrative(&self) -> bool {
        self.origin == PaytableOrigin::Example
    }

    /// One line naming the paytable: the file's name, or the example's with its label.
    pub fn describe(&self) -> String {
        match &self.origin {
            PaytableOrigin::Example => format!("{EXAMPLE_PAYTABLE_PATH} ({ILLUSTRATIVE_LABEL})"),
            PaytableOrigin::File(name) => name.clone(),
        }
    }

    /// The multipliers of one pick count as text, hits 0 first (`0 0 1 3.1 10.4`).
    pub fn row_text(&self, picks: usize) -> String {
        self.multipliers[picks - 1].iter().map(|m| format_trimmed(m, 12)).collect::<Vec<_>>().join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Paytable, PaytableError> {
        Paytable::parse(text.as_bytes(), PaytableOrigin::File("t.csv".into()))
    }

    /// The example's text with line `line` (1-based) replaced.
    fn example_with(line: usize, replacement: &str) -> String {
        let mut lines: Vec<&str> = EXAMPLE_PAYTABLE_CSV.lines().collect();
        lines[line - 1] = replacement;
        lines.join("\n") + "\n"
    }

    #[test]
    fn the_example_is_complete_and_labelled() {
        let example = Paytable::example();
        assert!(example.is_illustrative());
        assert_eq!(example.row_text(1), "0 3.95");
        assert!(example.describe().contains("NOT THE OPERATOR'S"));
    }

    #[test]
    fn each_problem_names_its_line() {
        let problem = |text: &str| parse(text).unwrap_err();
        assert_eq!(problem(&example_with(3, "11,1,3")).line, 3);
        assert_eq!(problem(&example_with(3, "11,1,3")).problem, PaytableProblem::PicksOutOfRange(11));
        assert_eq!(
            problem(&example_with(4, "2,3,1")).problem,
            PaytableProblem::HitsOutOfRange { picks: 2, hits: 3 }
        );
        assert!(matches!(
            problem(&example_with(5, "2,1,-1.9")).problem,
            PaytableProblem::Multiplier(DecimalError::Negative(_))
        ));
        assert!(matches!(
            problem(&example_with(5, "2,1,lots")).problem,
            PaytableProblem::Multiplier(DecimalError::NotANumber(_))
        ));
        assert!(matches!(problem(&example_with(5, "2,x,1")).problem, PaytableProblem::NotAnInteger { .. }));
        assert_eq!(
            problem(&example_with(5, "1,1,3")),
            PaytableError {
                line: 5,
                problem: PaytableProblem::Duplicate { picks: 1, hits: 1, first_line: 3 }
            }
        );
        assert_eq!(problem(&example_with(5, "2,1")).line, 5);
        assert_eq!(problem("picks,hit,multiplier\n").problem, PaytableProblem::MissingColumn("hits"));
    }

    #[test]
    fn missing_rows_are_listed_at_the_last_line() {
        let text: String = EXAMPLE_PAYTABLE_CSV
            .lines()
            .filter(|l| !l.starts_with("7,") && *l != "10,3,1.4")
            .map(|l| l.to_owned() + "\n")
            .collect();
        let error = parse(&text).unwrap_err();
        assert_eq!(error.line, text.lines().count() as u64);
        let expected = format!("line {}: missing rows: picks 7 (all); picks 10 hits 3 (every", error.line);
        assert!(error.to_string().starts_with(&expected), "{error}");
    }

    #[test]
    fn decimal_multipliers_are_exact() {
        let table = parse(&example_with(3, "1,1,0.1")).unwrap();
        assert_eq!(*table.multiplier(1, 1), BigRational::new(1.into(), 10.into()));
    }
}
