//! The battery: every test on every game and seed pair, across seed pairs, adjusted for
//! multiplicity, with a verdict per test and for the run.
//!
//! Verdicts at level `α` (default 0.01, i.e. 99% confidence for the battery as a whole):
//! Holm-adjusted p below `α` is FAIL; an unadjusted p below `α` that does not survive the
//! adjustment is WEAK; otherwise PASS; a test that is not valid at this size (expected
//! counts too small) is INSUFFICIENT and takes no part in the adjustment. Holm's
//! procedure controls the family-wise error rate under any dependence between tests.

use super::across_pairs::across_pairs;
use super::multiple::holm;
use super::outcome::TestOutcome;
use super::power::detectable_bias;
use super::PValue;
use super::{frequency, gaps, keno_structure, rejections, runs, serial};
use crate::games::keno::choices_at_draw;
use crate::games::GameId;
use crate::report::{Cell, Table};
use crate::sweep::file::TallyFile;
use crate::tally::{KenoTally, RouletteTally};
use serde::Serialize;

/// A test's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// Consistent with fairness.
    Pass,
    /// Unadjusted p below α, not significant after adjustment: look again with more data.
    Weak,
    /// Significant after adjustment: a fairness finding.
    Fail,
    /// Not valid at this size.
    Insufficient,
}

impl Verdict {
    /// As written in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Weak => "WEAK",
            Verdict::Fail => "FAIL",
            Verdict::Insufficient => "INSUFFICIENT",
        }
    }
}

/// One row of `tests.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct TestResult {
    /// The game.
    pub game: GameId,
    /// `0`, `1`, … for one seed pair; `all` for their sum; `across` for tests across pairs.
    pub seed_pair: String,
    /// The raw outcome.
    pub outcome: TestOutcome,
    /// Holm-adjusted p-value.
    pub adjusted_p: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
    /// Smallest relative bias on one outcome detected with 80% power (frequency-type tests).
    pub detectable_bias: Option<f64>,
}

/// The battery's results.
#[derive(Clone, Debug, PartialEq)]
pub struct Battery {
    /// The level.
    pub alpha: f64,
    /// One result per test.
    pub results: Vec<TestResult>,
}

/// The tests on one closed Keno tally (see [`crate::tally::SequenceTally::close`]). `with_positions` is false when draw order is unknown
/// (audits of logs that record only the result); `with_rejections` when the stream is.
pub fn keno_tests(tally: &KenoTally, with_positions: bool, with_rejections: bool) -> Vec<TestOutcome> {
    let mut tests = vec![frequency::keno_numbers(tally)];
    if with_positions {
        tests.push(keno_structure::positions(tally));
    }
    tests.push(keno_structure::pairs(tally));
    tests.extend(frequency::keno_hits(tally));
    tests.push(serial::keno_overlap(tally));
    if with_rejections {
        for (draw, &rejected) in tally.stream.rejections.iter().enumerate() {
            tests.push(rejections::rejection_test(choices_at_draw(draw), tally.stream.rounds, rejected));
        }
    }
    tests
}

/// The tests on one closed roulette tally: runs are counted only once the sequence's first
/// and last runs are closed.
pub fn roulette_tests(tally: &RouletteTally, with_rejections: bool) -> Vec<TestOutcome> {
    let pockets = tally.pockets.len();
    let spins = tally.stream.rounds;
    let mut tests = vec![frequency::pocket_frequency(tally)];
    tests.extend(frequency::bet_groups(tally));
    tests.push(serial::serial_pairs(tally));
    // Both sequences have two symbols of 18 pockets (red/black, low/high) and the zeros.
    let probabilities = runs::eighteen_eighteen_zeros(pockets);
    tests.push(runs::runs_test("runs_colour", &tally.colour_runs, spins, &probabilities));
    tests.push(runs::runs_test("runs_low_high", &tally.low_high_runs, spins, &probabilities));
    tests.push(gaps::gap_test(&tally.gaps));
    if with_rejections {
        tests.push(rejections::rejection_test(pockets as u32, spins, tally.stream.rejections[0]));
    }
    tests
}

/// Runs the battery on a complete tally file.
pub fn run_battery(file: &TallyFile, alpha: f64) -> Battery {
    let mut rows = Vec::new();
    for &game in &file.plan.games {
        let per_pair: Vec<(String, Vec<TestOutcome>)> = match game {
            GameId::Keno => file
                .keno_totals()
                .rows
                .iter()
                .map(|(pair, t)| (pair.clone(), keno_tests(t, true, true)))
                .collect(),
            _ => file
                .roulette_totals(game)
                .rows
                .iter()
                .map(|(pair, t)| (pair.clone(), roulette_tests(t, true)))
                .collect(),
        };
        let across = across_pairs(&per_pair, alpha);
        for (pair, tests) in per_pair {
            rows.extend(tests.into_iter().map(|t| (game, pair.clone(), t)));
        }
        rows.extend(across.into_iter().map(|t| (game, "across".to_owned(), t)));
    }
    assess(rows, alpha)
}

/// Adjusts raw outcomes for multiplicity and gives verdicts and detectable biases.
pub fn assess(rows: Vec<(GameId, String, TestOutcome)>, alpha: f64) -> Battery {
    let tested: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].2.p_value.is_some()).collect();
    let raw: Vec<f64> = tested.iter().map(|&i| rows[i].2.p_value.expect("filtered")).collect();
    let adjusted = holm(&raw);
    let mut adjusted_by_row = vec![None; rows.len()];
    for (&i, &p) in tested.iter().zip(&adjusted) {
        adjusted_by_row[i] = Some(p);
    }
    let level_for_power = alpha / tested.len().max(1) as f64;
    let results = rows
        .into_iter()
        .zip(adjusted_by_row)
        .map(|((game, seed_pair, outcome), adjusted_p)| {
            let verdict = match (outcome.p_value, adjusted_p) {
                (Some(_), Some(adj)) if adj < alpha => Verdict::Fail,
                (Some(p), _) if p < alpha => Verdict::Weak,
                (Some(_), _) => Verdict::Pass,
                (None, _) => Verdict::Insufficient,
            };
            let detectable_bias = match (outcome.df, outcome.noncentrality_per_unit_bias) {
                (Some(df), Some(per_unit)) if outcome.p_value.is_some() => {
                    Some(detectable_bias(df, level_for_power, per_unit))
                }
                _ => None,
            };
            TestResult { game, seed_pair, outcome, adjusted_p, verdict, detectable_bias }
        })
        .collect();
    Battery { alpha, results }
}

/// p-values below this are reported as "< 1e-300": the far tail underflows there.
pub const P_FLOOR: f64 = PValue::FLOOR;

/// A p-value as people read it (3 significant digits; `< 1e-300` when it underflowed).
pub fn p_value_text(p: f64) -> String {
    PValue(p).to_string()
}

/// Counts of each verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VerdictCounts {
    /// PASS.
    pub pass: usize,
    /// WEAK.
    pub weak: usize,
    /// FAIL.
    pub fail: usize,
    /// INSUFFICIENT.
    pub insufficient: usize,
}

impl Battery {
    /// FAIL if any test failed, PASS otherwise.
    pub fn overall(&self) -> Verdict {
        if self.results.iter().any(|r| r.verdict == Verdict::Fail) {
            Verdict::Fail
        } else {
            Verdict::Pass
        }
    }

    /// How many tests got each verdict.
    pub fn counts(&self) -> VerdictCounts {
        let mut counts = VerdictCounts::default();
        for r in &self.results {
            match r.verdict {
                Verdict::Pass => counts.pass += 1,
                Verdict::Weak => counts.weak += 1,
                Verdict::Fail => counts.fail += 1,
                Verdict::Insufficient => counts.insufficient += 1,
            }
        }
        counts
    }

    /// `tests.csv`: one row per test. p-values are numbers; one that underflowed below
    /// 1e-300 is written as 0 and its note starts with "p < 1e-300".
    pub fn tests_table(&self) -> Table {
        let mut table = Table::new(
            "tests.csv",
            vec![
                "game",
                "seed_pair",
                "test",
                "statistic",
                "df",
                "p_value",
                "adjusted_p",
                "verdict",
                "detectable_bias",
                "note",
            ],
        );
        let number = |x: Option<f64>| x.map_or(Cell::Text(String::new()), Cell::Num);
        for r in &self.results {
            let o = &r.outcome;
            let mut note = o.note.clone();
            if o.p_value.is_some_and(|p| p < P_FLOOR) {
                note = format!("p < 1e-300; {note}");
            }
            table.push(vec![
                r.game.name().into(),
                r.seed_pair.clone().into(),
                o.test.clone().into(),
                if o.statistic.is_nan() { Cell::Text(String::new()) } else { Cell::Num(o.statistic) },
                number(o.df),
                number(o.p_value),
                number(r.adjusted_p),
                r.verdict.as_str().into(),
                number(r.detectable_bias),
                note.into(),
            ]);
        }
        table
    }

    /// `summary.json`: the overall verdict, counts, and every FAIL and WEAK test.
    pub fn summary_json(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Flagged<'a> {
            game: GameId,
            seed_pair: &'a str,
            test: &'a str,
            p_value: Option<f64>,
            p_value_text: Option<String>,
            adjusted_p: Option<f64>,
        }
        #[derive(Serialize)]
        struct Summary<'a> {
            format: &'static str,
            version: u32,
            verdict: Verdict,
            alpha: f64,
            tests: usize,
            counts: VerdictCounts,
            failed: Vec<Flagged<'a>>,
            weak: Vec<Flagged<'a>>,
        }
        let flagged = |verdict: Verdict| {
            self.results
                .iter()
                .filter(|r| r.verdict == verdict)
                .map(|r| Flagged {
                    game: r.game,
                    seed_pair: &r.seed_pair,
                    test: &r.outcome.test,
                    p_value: r.outcome.p_value,
                    p_value_text: r.outcome.p_value.map(p_value_text),
                    adjusted_p: r.adjusted_p,
                })
                .collect()
        };
        let summary = Summary {
            format: "fairaudit-summary",
            version: 1,
            verdict: self.overall(),
            alpha: self.alpha,
            tests: self.results.len(),
            counts: self.counts(),
            failed: flagged(Verdict::Fail),
            weak: flagged(Verdict::Weak),
        };
        let mut bytes = serde_json::to_vec_pretty(&summary).expect("summary serialises");
        bytes.push(b'\n');
        bytes
    }
}
