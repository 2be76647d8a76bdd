//! The battery: every test on every game and seed pair, across seed pairs, adjusted for
//! multiplicity, with a verdict per test and for the run.
//!
//! Verdicts at level `α` (default 0.01, i.e. 99% confidence for the battery as a whole):
//! Holm-adjusted p below `α` is FAIL; an unadjusted p below `α` that does not survive the
//! adjustment is WEAK; otherwise PASS; a test that is not valid at this size (expected
//! counts too small) is INSUFFICIENT and takes no part in the adjustment. An exact test
//! that cannot reach `α` at this size, whatever the data (its smallest possible p-value
//! is above `α`), is INSUFFICIENT too: it cannot fail, so its PASS would say nothing. It
//! still counts in the adjustment, so that no other verdict moves. Holm's
//! procedure controls the family-wise error rate under any dependence between tests.
//!
//! With several seed pairs (or players) the verdict is carried by the `all` rows (each
//! test on the pairs summed) and the `across` rows (each test across the pairs); the
//! per-pair rows are diagnostics: reported with their p-values, WEAK below `α`, never
//! adjusted and never FAIL. Why: with hundreds of pairs Holm's first threshold is
//! `α/m ≈ 1e-6`, far below where the asymptotic laws of the small per-pair tests are
//! accurate (a per-pair `hits_6_picks` at 300 rounds FAILed fair sweeps with p 3.5e-7,
//! and the battery's false-FAIL rate at Keno 300 × 300 was 1.8% instead of at most 1%).
//! A pair rigged alone is still caught: by its exact tests' smallest p-value across the
//! pairs (Šidák; [`super::across_pairs`]), and by the pooled dispersion of the others.
//! With one pair (or one player, or a log) its rows are the battery and carry the verdict.

use super::across_pairs::across_pairs;
use super::distributions::noncentrality_for_power;
use super::longest_run::longest_run_test;
use super::multiple::holm;
use super::outcome::TestOutcome;
use super::power::{LongestRunLaw, Power, POWER};
use super::PValue;
use super::{frequency, gaps, keno_structure, max_residual, rejections, runs, serial};
use crate::games::GameId;
use crate::tally::file::TallyFile;
use crate::tally::{Closed, KenoTally, RouletteTally};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// A test's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
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
    /// Whether the test was valid at its size (PASS, WEAK or FAIL): it judged something.
    pub fn is_valid(self) -> bool {
        self != Verdict::Insufficient
    }

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

/// One row of `tests.csv`. `G` names the game: [`GameId`] for the default scheme, the
/// scheme's own game type for another ([`crate::scheme`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TestResult<G = GameId> {
    /// The game.
    pub game: G,
    /// `0`, `1`, … for one seed pair; `all` for their sum; `across` for tests across pairs;
    /// `log` (or a player) for an audit.
    pub seed_pair: String,
    /// The raw outcome.
    pub outcome: TestOutcome,
    /// Holm-adjusted p-value; `None` for a test that is INSUFFICIENT and for a per-pair
    /// diagnostic row of a run with several pairs (see the module docs).
    pub adjusted_p: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
    /// Smallest relative bias the test detects with 80% power at this size (see
    /// [`crate::stats::power`]).
    pub detectable_bias: Option<f64>,
}

/// The lowest level a battery is run at. Holm divides the level by the number of tests,
/// and the power of each is found at that share: a level near the smallest `f64` (5e-324)
/// would give a share of zero, at which no test can fail and no power exists. No audit
/// asks for less than this, and the exact laws hold far below it.
pub const MIN_ALPHA: f64 = 1e-100;

/// The battery's results.
#[derive(Clone, Debug, PartialEq)]
pub struct Battery<G = GameId> {
    /// The level.
    pub alpha: f64,
    /// One result per test.
    pub results: Vec<TestResult<G>>,
}

/// The tests on closed Keno tallies (see [`crate::tally::Closed`]). `with_positions` is
/// false when draw order is unknown (audits of logs that record only the result);
/// `with_rejections` when the stream is.
pub fn keno_tests(
    closed: &Closed<KenoTally>,
    with_positions: bool,
    with_rejections: bool,
) -> Vec<TestOutcome> {
    let tally = &closed.tally;
    let mut tests = vec![frequency::keno_numbers(tally)];
    if with_positions {
        tests.push(keno_structure::positions(tally));
        tests.push(max_residual::keno_positions_max(tally));
    }
    tests.push(keno_structure::pairs(tally));
    tests.push(max_residual::keno_pairs_max(tally));
    tests.extend(frequency::keno_hits(tally));
    tests.push(serial::keno_overlap(tally));
    tests.push(serial::keno_overlap_lags(tally));
    if with_rejections {
        let outcomes: Vec<u32> =
            (0..tally.stream.rejections.len()).map(|d| GameId::Keno.outcomes_at_draw(d)).collect();
        tests.push(rejections::rejection_test(&outcomes, tally.stream.rounds, &tally.stream.rejections));
    }
    tests
}

/// The tests on closed roulette tallies: runs, run lengths and gaps use the exact laws of
/// the sequences summed.
pub fn roulette_tests(closed: &Closed<RouletteTally>, with_rejections: bool) -> Vec<TestOutcome> {
    let (tally, lengths) = (&closed.tally, &closed.lengths);
    let pockets = tally.pockets.len();
    let mut tests = vec![frequency::pocket_frequency(tally)];
    tests.extend(frequency::bet_groups(tally));
    tests.push(serial::serial_pairs(tally));
    tests.push(max_residual::roulette_serial_max(tally));
    tests.push(serial::roulette_lags(tally));
    // Both sequences have two symbols of 18 pockets (red/black, low/high) and the zeros.
    let probabilities = runs::eighteen_eighteen_zeros(pockets);
    for (name, sequence) in [("colour", &tally.colour_runs), ("low_high", &tally.low_high_runs)] {
        tests.push(runs::runs_test(&format!("runs_{name}"), sequence, lengths, &probabilities));
        tests.push(runs::run_lengths_test(&format!("run_lengths_{name}"), sequence, lengths, &probabilities));
        tests.push(longest_run_test(&format!("longest_run_{name}"), sequence, lengths, probabilities));
    }
    tests.push(gaps::gap_test(&tally.gaps, lengths));
    if with_rejections {
        tests.push(rejections::rejection_test(
            &[pockets as u32],
            tally.stream.rounds,
            &tally.stream.rejections,
        ));
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
        rows.extend(with_across(game, per_pair, alpha));
    }
    assess(rows, alpha)
}

/// Rows of one game: every group's tests, then the tests across the numbered groups (seed
/// pairs, or players).
pub fn with_across<G: Copy>(
    game: G,
    per_group: Vec<(String, Vec<TestOutcome>)>,
    alpha: f64,
) -> Vec<(G, String, TestOutcome)> {
    let across = across_pairs(&per_group, alpha);
    let mut rows = Vec::new();
    for (group, tests) in per_group {
        rows.extend(tests.into_iter().map(|t| (game, group.clone(), t)));
    }
    rows.extend(across.into_iter().map(|t| (game, "across".to_owned(), t)));
    rows
}

/// Adjusts raw outcomes for multiplicity and gives verdicts and detectable biases.
pub fn assess<G: Copy + PartialEq>(rows: Vec<(G, String, TestOutcome)>, alpha: f64) -> Battery<G> {
    // Games with an `all` row have several pairs: their per-pair rows are diagnostics.
    let several: Vec<G> = rows.iter().filter(|(_, label, _)| label == "all").map(|r| r.0).collect();
    let carries_verdict = |(game, label, _): &(G, String, TestOutcome)| {
        !several.contains(game) || label == "all" || label == "across"
    };
    let tested: Vec<usize> =
        (0..rows.len()).filter(|&i| rows[i].2.p_value.is_some() && carries_verdict(&rows[i])).collect();
    let raw: Vec<f64> = tested.iter().map(|&i| rows[i].2.p_value.expect("filtered")).collect();
    let adjusted = holm(&raw);
    let mut adjusted_by_row = vec![None; rows.len()];
    for (&i, &p) in tested.iter().zip(&adjusted) {
        adjusted_by_row[i] = Some(p);
    }
    let level_for_power = alpha / tested.len().max(1) as f64;
    // Seed pairs of one sweep share their shape, so the exact longest-run power is
    // computed once per distinct law.
    let mut longest_run_cache: Vec<(LongestRunLaw, f64)> = Vec::new();
    let mut noncentrality_cache: HashMap<(u64, u64), f64> = HashMap::new();
    let mut noncentrality = |df: f64, level: f64| {
        *noncentrality_cache
            .entry((df.to_bits(), level.to_bits()))
            .or_insert_with(|| noncentrality_for_power(df, level, POWER))
    };
    let results = rows
        .into_iter()
        .zip(adjusted_by_row)
        .map(|((game, seed_pair, outcome), adjusted_p)| {
            if let Some(result) = cannot_fail(game, &seed_pair, &outcome, alpha) {
                return result;
            }
            let verdict = match (outcome.p_value, adjusted_p) {
                (Some(_), Some(adj)) if adj < alpha => Verdict::Fail,
                (Some(p), _) if p < alpha => Verdict::Weak,
                (Some(_), _) => Verdict::Pass,
                (None, _) => Verdict::Insufficient,
            };
            let detectable_bias = match (&outcome.power, outcome.p_value) {
                (Some(Power::LongestRun(law)), Some(_)) => {
                    Some(match longest_run_cache.iter().find(|(known, _)| known == law) {
                        Some((_, bias)) => *bias,
                        None => {
                            let bias = law.detectable_bias(level_for_power);
                            longest_run_cache.push((law.clone(), bias));
                            bias
                        }
                    })
                }
                (Some(power), Some(_)) => power.detectable_bias_with(level_for_power, &mut noncentrality),
                _ => None,
            }
            .filter(|b| b.is_finite());
            TestResult { game, seed_pair, outcome, adjusted_p, verdict, detectable_bias }
        })
        .collect();
    Battery { alpha, results }
}

/// A test whose smallest possible p-value at this size is above `alpha` cannot FAIL (nor
/// be WEAK), whatever the data: three spins cannot make a colour test reach 0.01 (its
/// smallest p-value is 0.25). Its PASS would say nothing, so it is INSUFFICIENT, saying
/// why. It keeps its place in Holm's adjustment of the others (counted before this), so
/// that no other verdict moves: only PASSes that could not have been anything else
/// become INSUFFICIENT.
fn cannot_fail<G>(game: G, seed_pair: &str, outcome: &TestOutcome, alpha: f64) -> Option<TestResult<G>> {
    let p = outcome.p_value?;
    // Both bounds: a smallest p-value stated wrong can then never hide a FAIL or a WEAK.
    let smallest = outcome.smallest_p.filter(|&s| s > alpha && p > alpha)?;
    let reason = format!(
        "{}; p {}, but it cannot fail at this size: its smallest possible p-value is {}, above alpha {alpha}",
        outcome.note,
        PValue(p),
        PValue(smallest)
    );
    Some(TestResult {
        game,
        seed_pair: seed_pair.to_owned(),
        outcome: outcome.clone().make_insufficient(reason),
        adjusted_p: None,
        verdict: Verdict::Insufficient,
        detectable_bias: None,
    })
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

impl VerdictCounts {
    /// Counts one more verdict.
    pub fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Pass => self.pass += 1,
            Verdict::Weak => self.weak += 1,
            Verdict::Fail => self.fail += 1,
            Verdict::Insufficient => self.insufficient += 1,
        }
    }
}

impl<G> Battery<G> {
    /// How many tests got each verdict.
    pub fn counts(&self) -> VerdictCounts {
        let mut counts = VerdictCounts::default();
        self.results.iter().for_each(|r| counts.add(r.verdict));
        counts
    }
}

impl<G: PartialEq> Battery<G> {
    /// FAIL if any test failed; otherwise PASS if every game of the battery has a test of
    /// its outcomes valid at this size (PASS or WEAK); otherwise INSUFFICIENT. A battery
    /// that cannot judge some game's outcomes (a sweep of a few rounds, or no test at all)
    /// has not judged that game, and must not read as a pass for it: the count of rejected
    /// words, valid at one round, says nothing about the outcomes
    /// ([`TestOutcome::judges_outcomes`]). INSUFFICIENT is no finding either: what it
    /// decides, such as an exit status, treats it as no FAIL.
    pub fn overall(&self) -> Verdict {
        self.judgement().verdict
    }

    /// The games of the battery none of whose outcome tests is valid at this size, in the
    /// order they first appear.
    pub fn unjudged_games(&self) -> Vec<&G> {
        let mut games: Vec<&G> = Vec::new();
        for r in &self.results {
            if !games.contains(&&r.game) {
                games.push(&r.game);
            }
        }
        games.retain(|game| {
            !self
                .results
                .iter()
                .any(|r| r.game == **game && r.outcome.judges_outcomes && r.verdict.is_valid())
        });
        games
    }

    /// The overall verdict with the games left unjudged, worked out in one reading: for
    /// callers that show both, such as a verdict line and its reason.
    pub fn judgement(&self) -> Judgement<'_, G> {
        let unjudged = self.unjudged_games();
        let verdict = if self.results.iter().any(|r| r.verdict == Verdict::Fail) {
            Verdict::Fail
        } else if self.results.is_empty() || !unjudged.is_empty() {
            Verdict::Insufficient
        } else {
            Verdict::Pass
        };
        let judges_anything = self.results.iter().any(|r| r.verdict.is_valid());
        Judgement { verdict, unjudged, judges_anything }
    }

    /// Why the battery is INSUFFICIENT, in one sentence without a final stop: that it judges
    /// nothing, or which games it does not judge. `None` when it is not INSUFFICIENT.
    pub fn insufficient_reason(&self) -> Option<String>
    where
        G: std::fmt::Display,
    {
        self.judgement().insufficient_reason()
    }
}

/// A battery's overall verdict ([`Battery::overall`]) and the games none of whose outcome
/// tests is valid ([`Battery::unjudged_games`]), from one reading of its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement<'a, G> {
    /// FAIL, PASS or INSUFFICIENT, as [`Battery::overall`].
    pub verdict: Verdict,
    /// The games not judged, as [`Battery::unjudged_games`]; some may be listed when the
    /// verdict is FAIL.
    pub unjudged: Vec<&'a G>,
    /// Whether any test, of the outcomes or of the stream, is valid at this size.
    judges_anything: bool,
}

impl<G: std::fmt::Display> Judgement<'_, G> {
    /// See [`Battery::insufficient_reason`].
    pub fn insufficient_reason(&self) -> Option<String> {
        if self.verdict != Verdict::Insufficient {
            return None;
        }
        Some(if !self.judges_anything {
            "no test is valid at this size, so the battery judges nothing".to_owned()
        } else {
            let names: Vec<String> = self.unjudged.iter().map(|g| g.to_string()).collect();
            format!(
                "no test of the outcomes of {} is valid at this size, so {} not judged",
                names.join(", "),
                if names.len() == 1 { "it is" } else { "they are" }
            )
        })
    }
}

impl<G: Copy + Ord> Battery<G> {
    /// Per test name and game, how many rows got each verdict: what the terminal prints
    /// when there are too many rows to list (every FAIL and WEAK is still listed).
    pub fn counts_by_test(&self) -> BTreeMap<(G, String), VerdictCounts> {
        let mut by_test: BTreeMap<(G, String), VerdictCounts> = BTreeMap::new();
        for r in &self.results {
            let counts = by_test.entry((r.game, r.outcome.test.clone())).or_default();
            counts.add(r.verdict);
        }
        by_test
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn battery(verdicts: &[Verdict]) -> Battery<GameId> {
        let results = verdicts
            .iter()
            .map(|&verdict| TestResult {
                game: GameId::Keno,
                seed_pair: "0".into(),
                outcome: TestOutcome::insufficient("t", "too few rounds".into()),
                adjusted_p: None,
                verdict,
                detectable_bias: None,
            })
            .collect();
        Battery { alpha: 0.01, results }
    }

    /// A test that cannot reach alpha at this size is INSUFFICIENT, saying why, and still
    /// counts in Holm's adjustment: the other verdicts are those the battery gave without
    /// the relabelling. One that can reach it keeps its PASS however large its p-value.
    #[test]
    fn a_test_that_cannot_fail_at_this_size_is_insufficient_and_moves_no_other_verdict() {
        let row = |test: &str, p: f64, smallest: Option<f64>| {
            let outcome = TestOutcome::valid(test, 0.0, None, p, format!("{test} note"));
            let outcome = match smallest {
                Some(s) => outcome.with_smallest_p(s),
                None => outcome,
            };
            (GameId::Keno, "0".to_owned(), outcome)
        };
        let battery = assess(
            vec![
                row("three_spins", 0.25, Some(0.25)),
                row("reachable", 0.8, Some(0.001)),
                row("strong", 0.006, None),
            ],
            0.01,
        );
        let verdicts: Vec<Verdict> = battery.results.iter().map(|r| r.verdict).collect();
        assert_eq!(verdicts, [Verdict::Insufficient, Verdict::Pass, Verdict::Weak]);
        let cannot = &battery.results[0];
        assert_eq!((cannot.outcome.p_value, cannot.adjusted_p, cannot.detectable_bias), (None, None, None));
        assert_eq!(
            cannot.outcome.note,
            "three_spins note; p 0.25, but it cannot fail at this size: its smallest possible p-value is 0.25, above alpha 0.01"
        );
        // A smallest p-value stated wrong (above the row's own p) never hides a FAIL.
        let wrong = assess(vec![row("misstated", 0.005, Some(0.5))], 0.01);
        assert_eq!(wrong.results[0].verdict, Verdict::Fail);
        // Holm over all three: 0.006 × 3 = 0.018, not 0.006 × 2.
        assert!((battery.results[2].adjusted_p.unwrap() - 0.018).abs() < 1e-12);
    }

    #[test]
    fn a_battery_that_judged_nothing_is_insufficient_not_a_pass() {
        use Verdict::*;
        assert_eq!(battery(&[]).overall(), Insufficient);
        assert_eq!(battery(&[Insufficient, Insufficient]).overall(), Insufficient);
        assert_eq!(battery(&[Insufficient, Weak]).overall(), Pass);
        assert_eq!(battery(&[Pass, Insufficient]).overall(), Pass);
        assert_eq!(battery(&[Insufficient, Fail, Pass]).overall(), Fail);
        assert_eq!(
            battery(&[Insufficient]).insufficient_reason().as_deref(),
            Some("no test is valid at this size, so the battery judges nothing")
        );
        assert_eq!(battery(&[Pass]).insufficient_reason(), None);
    }

    /// A game none of whose outcome tests is valid is not judged, whatever the other games
    /// or the count of rejected words (valid at one round) say: the battery is INSUFFICIENT,
    /// naming it. A FAIL anywhere is still a FAIL.
    #[test]
    fn a_game_whose_outcomes_no_test_judged_makes_the_battery_insufficient() {
        use Verdict::*;
        let row = |game: GameId, verdict: Verdict, stream: bool| {
            let outcome = TestOutcome::valid("t", 0.0, None, 0.5, String::new());
            TestResult {
                game,
                seed_pair: "0".into(),
                outcome: if stream { outcome.of_the_stream() } else { outcome },
                adjusted_p: None,
                verdict,
                detectable_bias: None,
            }
        };
        let of = |results: Vec<TestResult>| Battery { alpha: 0.01, results };
        let one_round = of(vec![row(GameId::Keno, Insufficient, false), row(GameId::Keno, Pass, true)]);
        assert_eq!(one_round.overall(), Insufficient);
        assert_eq!(
            one_round.insufficient_reason().as_deref(),
            Some("no test of the outcomes of keno is valid at this size, so it is not judged")
        );
        let keno_unjudged = of(vec![
            row(GameId::Keno, Pass, true),
            row(GameId::RouletteEuropean, Pass, false),
            row(GameId::RouletteAmerican, Insufficient, false),
        ]);
        assert_eq!(keno_unjudged.overall(), Insufficient);
        assert_eq!(keno_unjudged.unjudged_games(), [&GameId::Keno, &GameId::RouletteAmerican]);
        assert!(keno_unjudged
            .insufficient_reason()
            .unwrap()
            .ends_with("keno, roulette-american is valid at this size, so they are not judged"));
        let judged = of(vec![row(GameId::Keno, Weak, false), row(GameId::RouletteEuropean, Pass, false)]);
        assert_eq!(judged.overall(), Pass);
        let failed =
            of(vec![row(GameId::Keno, Fail, true), row(GameId::RouletteEuropean, Insufficient, false)]);
        assert_eq!(failed.overall(), Fail);
    }
}
