//! The operator's published claims (SPEC §6), read as data, and their verdicts against
//! the exact RTP of every bet type.
//!
//! # Format
//!
//! CSV (RFC 4180, UTF-8) with a header row; columns found by name, in any order:
//!
//! | column | |
//! |---|---|
//! | `game` | `keno`, `roulette-european` or `roulette-american` |
//! | `metric` | `rtp`: the return to player, in percent |
//! | `figure` | the published figure as a plain decimal percent, as published (`97.30`) |
//! | `tolerance` | optional: how far, in percentage points, the true value may lie from the figure; empty means half a unit in the figure's last digit (`97.30` → 0.005, `97` → 0.5), i.e. the claim holds when the figure is a correct rounding of the truth |
//! | `source` | optional: where the claim was published (free text, shown in verdicts) |
//!
//! The crate ships SPEC §6's RTP claims as `data/claims.csv` ([`BUILTIN_CLAIMS_CSV`]).
//!
//! # Verdict
//!
//! A claim applies to **every** bet type of its game: it holds when, for each one,
//! |exact RTP % − figure| ≤ tolerance, compared in exact rationals. A published RTP that
//! is true for some bets only is not true of the game.

use super::decimal::{half_last_digit, parse_decimal, DecimalError, Percent};
use super::exact::ExactRtp;
use crate::games::GameId;
use num_rational::BigRational;
use num_traits::Signed;
use std::io::Read;

/// Where the shipped claims file lives in the repository.
pub const BUILTIN_CLAIMS_PATH: &str = "data/claims.csv";

/// The shipped claims (SPEC §6), built into the library.
pub const BUILTIN_CLAIMS_CSV: &str = include_str!("../../data/claims.csv");

/// What a claim is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Return to player, in percent.
    Rtp,
}

/// One published claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The line of the claims file it is on.
    pub line: u64,
    /// The game it is about.
    pub game: GameId,
    /// What it is about.
    pub metric: Metric,
    /// The figure as published (`97.30`).
    pub figure_text: String,
    /// The figure, in percent.
    pub figure: Percent,
    /// The tolerance, in percentage points.
    pub tolerance: Percent,
    /// Where it was published.
    pub source: String,
}

/// A claims-file problem, on the line where it was found (1 is the header).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct ClaimsError {
    /// The 1-based line.
    pub line: u64,
    /// What is wrong there.
    pub problem: ClaimsProblem,
}

/// What can be wrong with a claims file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimsProblem {
    /// Not CSV, invalid UTF-8 or a row with the wrong number of fields.
    #[error("{0}")]
    Csv(String),
    /// The header lacks a required column.
    #[error("no '{0}' column (the header must name game, metric and figure)")]
    MissingColumn(&'static str),
    /// A game fairaudit does not know.
    #[error("{0}")]
    UnknownGame(#[from] crate::games::UnknownGame),
    /// A metric other than `rtp`.
    #[error("unknown metric '{}' (expected rtp)", crate::fields::Excerpt(.0))]
    UnknownMetric(String),
    /// The figure is not a non-negative decimal.
    #[error("figure {0}")]
    Figure(DecimalError),
    /// The tolerance is not a non-negative decimal.
    #[error("tolerance {0}")]
    Tolerance(DecimalError),
}

/// Reads a claims file (format in the module docs).
pub fn parse_claims(input: impl Read) -> Result<Vec<Claim>, ClaimsError> {
    let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::Headers).from_reader(input);
    let csv_error = |error: csv::Error| {
        let (line, message) = super::csv_error_parts(&error);
        ClaimsError { line, problem: ClaimsProblem::Csv(message) }
    };
    let header = reader.headers().map_err(csv_error)?.clone();
    let find = |name: &str| header.iter().position(|h| h == name);
    let required = |name: &'static str| {
        find(name).ok_or(ClaimsError { line: 1, problem: ClaimsProblem::MissingColumn(name) })
    };
    let (game_at, metric_at, figure_at) = (required("game")?, required("metric")?, required("figure")?);
    let (tolerance_at, source_at) = (find("tolerance"), find("source"));
    let mut claims = Vec::new();
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        let line = record.position().map_or(0, |p| p.line());
        let fail = |problem| ClaimsError { line, problem };
        let game: GameId = record[game_at].parse().map_err(|e| fail(ClaimsProblem::UnknownGame(e)))?;
        let metric = match &record[metric_at] {
            "rtp" => Metric::Rtp,
            other => return Err(fail(ClaimsProblem::UnknownMetric(other.to_owned()))),
        };
        let figure_text = record[figure_at].to_owned();
        let figure = parse_decimal(&figure_text).map_err(|e| fail(ClaimsProblem::Figure(e)))?;
        let tolerance = match tolerance_at.map(|at| &record[at]).filter(|t| !t.is_empty()) {
            Some(text) => parse_decimal(text).map_err(|e| fail(ClaimsProblem::Tolerance(e)))?,
            None => half_last_digit(&figure_text),
        };
        let source = source_at.map(|at| record[at].to_owned()).unwrap_or_default();
        claims.push(Claim {
            line,
            game,
            metric,
            figure_text,
            figure: Percent(figure),
            tolerance: Percent(tolerance),
            source,
        });
    }
    Ok(claims)
}

/// The shipped claims of SPEC §6.
pub fn builtin_claims() -> Vec<Claim> {
    parse_claims(BUILTIN_CLAIMS_CSV.as_bytes()).expect("the shipped claims file is valid (tested)")
}

/// A claim against one bet type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BetCheck {
    /// The bet type.
    pub bet_type: String,
    /// Its exact RTP, in percent.
    pub rtp_percent: Percent,
    /// RTP % − figure, in percentage points (negative: the bet returns less than claimed).
    pub deviation: Percent,
    /// How far beyond the tolerance the deviation lies (0 when within it).
    pub beyond_tolerance: Percent,
}

impl BetCheck {
    /// Whether the claim holds for this bet type.
    pub fn holds(&self) -> bool {
        !self.beyond_tolerance.is_positive()
    }
}

/// A claim against every bet type of its game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimVerdict {
    /// The claim.
    pub claim: Claim,
    /// One check per bet type of the game, in report order.
    pub checks: Vec<BetCheck>,
}

impl ClaimVerdict {
    /// Whether the claim holds: it was checked against at least one bet type, and holds
    /// for every one.
    pub fn holds(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(BetCheck::holds)
    }

    /// The bet types the claim does not hold for.
    pub fn failures(&self) -> impl Iterator<Item = &BetCheck> {
        self.checks.iter().filter(|check| !check.holds())
    }

    /// The check with the largest |deviation| (the bet type closest to failing; the first
    /// in report order among equals).
    pub fn furthest(&self) -> Option<&BetCheck> {
        self.checks
            .iter()
            .reduce(|best, check| if check.deviation.abs() > best.deviation.abs() { check } else { best })
    }
}

/// Checks `claim` against the bet types in `exact` that belong to its game.
pub fn check_claim(claim: &Claim, exact: &[ExactRtp]) -> ClaimVerdict {
    let checks = exact
        .iter()
        .filter(|bet| bet.game == claim.game)
        .map(|bet| {
            let rtp_percent = bet.rtp_percent();
            let deviation = &rtp_percent.0 - &claim.figure.0;
            let excess = deviation.abs() - &claim.tolerance.0;
            let beyond_tolerance =
                if excess.is_positive() { excess } else { BigRational::from_integer(0.into()) };
            BetCheck {
                bet_type: bet.bet_type.clone(),
                rtp_percent,
                deviation: Percent(deviation),
                beyond_tolerance: Percent(beyond_tolerance),
            }
        })
        .collect();
    ClaimVerdict { claim: claim.clone(), checks }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<Claim>, ClaimsError> {
        parse_claims(text.as_bytes())
    }

    #[test]
    fn the_shipped_claims_are_spec_section_6() {
        let claims = builtin_claims();
        let figures: Vec<(GameId, &str)> = claims.iter().map(|c| (c.game, c.figure_text.as_str())).collect();
        assert_eq!(
            figures,
            [(GameId::Keno, "99"), (GameId::RouletteEuropean, "97.30"), (GameId::RouletteAmerican, "97")]
        );
    }

    #[test]
    fn an_empty_tolerance_is_half_the_last_published_digit() {
        let claims = parse("game,metric,figure,tolerance\nkeno,rtp,98.5,\nkeno,rtp,98.5,0.2\n").unwrap();
        assert_eq!(claims[0].tolerance.0, BigRational::new(5.into(), 100.into()));
        assert_eq!(claims[1].tolerance.0, BigRational::new(1.into(), 5.into()));
        assert_eq!(claims[1].line, 3);
    }

    #[test]
    fn bad_rows_name_their_line() {
        let bad = |row: &str| parse(&format!("game,metric,figure\nkeno,rtp,99\n{row}\n")).unwrap_err();
        assert!(matches!(
            bad("poker,rtp,99"),
            ClaimsError { line: 3, problem: ClaimsProblem::UnknownGame(_) }
        ));
        assert!(matches!(
            bad("keno,edge,1"),
            ClaimsError { line: 3, problem: ClaimsProblem::UnknownMetric(_) }
        ));
        assert!(matches!(bad("keno,rtp,99%"), ClaimsError { line: 3, problem: ClaimsProblem::Figure(_) }));
        assert!(matches!(bad("keno,rtp"), ClaimsError { line: 3, problem: ClaimsProblem::Csv(_) }));
        assert_eq!(parse("game,figure\n").unwrap_err().problem, ClaimsProblem::MissingColumn("metric"));
    }
}
