//! The regulators' named tests, each mapped to the battery tests that cover it on
//! outcomes (the table of docs/statistics.md, "Regulatory coverage"), for the
//! certificate's coverage section: clause → tests → the verdict they reached in this
//! certificate, and what is not covered, said plainly.

use crate::stats::battery::{Battery, Verdict};

/// One named test of a regulation and the battery tests that cover it.
pub struct Clause {
    /// The regulation and clause, e.g. `58 Pa. Code § 810a.5(c)(3)`.
    pub clause: &'static str,
    /// The test the clause names.
    pub named: &'static str,
    /// Battery tests (names before any `:`) that cover it on outcomes; empty when none.
    pub tests: &'static [&'static str],
    /// Where it is covered otherwise, or why it is not.
    pub otherwise: &'static str,
}

const PA: &str = "58 Pa. Code § 810a.5(c)";

/// The clauses, in the regulations' order.
pub const CLAUSES: &[Clause] = &[
    Clause { clause: "(1)", named: "chi-square", tests: &["pocket_frequency", "dozens", "columns", "number_frequency", "hits_1_picks", "gaps", "run_lengths_colour", "serial_pairs", "pairs", "position_by_number"], otherwise: "" },
    Clause { clause: "(2)", named: "equi-distribution", tests: &["pocket_frequency", "zeros", "colour", "parity", "low_high", "number_frequency"], otherwise: "" },
    Clause { clause: "(3)", named: "gap", tests: &["gaps"], otherwise: "" },
    Clause { clause: "(4)", named: "overlaps", tests: &["serial_overlap", "overlap_lags"], otherwise: "" },
    Clause { clause: "(5)", named: "poker", tests: &[], otherwise: "not on outcomes: TestU01 SmallCrush sknuth_SimpPoker on the raw stream, in fairaudit's CI" },
    Clause { clause: "(6)", named: "coupon collector", tests: &[], otherwise: "not on outcomes: SmallCrush sknuth_CouponCollector on the raw stream, in fairaudit's CI" },
    Clause { clause: "(7)", named: "permutation", tests: &["position_by_number", "position_max"], otherwise: "" },
    Clause { clause: "(8)", named: "Kolmogorov–Smirnov", tests: &[], otherwise: "not on outcomes (lattice p-values); dieharder's KS of its p-values on the raw stream, in fairaudit's CI" },
    Clause { clause: "(9)", named: "adjacency criterion", tests: &["serial_pairs", "serial_max", "serial_overlap"], otherwise: "" },
    Clause { clause: "(10)", named: "order statistic", tests: &["longest_run_colour", "longest_run_low_high"], otherwise: "" },
    Clause { clause: "(11)", named: "runs", tests: &["runs_colour", "runs_low_high", "run_lengths_colour", "run_lengths_low_high"], otherwise: "" },
    Clause { clause: "(12)", named: "interplay correlation", tests: &[], otherwise: "NOT COVERED: no test correlates two games or two seed pairs played at once" },
    Clause { clause: "(13)", named: "serial correlation", tests: &["serial_pairs", "serial_lags", "serial_overlap", "overlap_lags"], otherwise: "" },
    Clause { clause: "(14)", named: "tests on subsequences", tests: &["pocket_frequency", "number_frequency"], otherwise: "every test per seed pair or player, and across them" },
    Clause { clause: "(15)", named: "Poisson distribution", tests: &["rejections"], otherwise: "" },
];

/// The clauses beyond Pennsylvania's list: combinations equally likely, outcomes
/// independent of the wager.
pub const OTHER_CLAUSES: &[(&str, &str, &[&str], &str)] = &[
    ("25 CFR 547.14", "every combination equally likely", &["pocket_frequency", "number_frequency", "pairs", "pairs_max", "position_by_number", "position_max"], "the exact sampler, pinned bit for bit by the reference vectors (§5), holds the 847,660,528 Keno combinations equal; no test can count each"),
    ("AGCO 21.1.5, GLI-19", "outcomes independent of the wager", &["bet_hits", "bet_wins", "bet_return", "skipped_wins"], "needs a bet history (an audit): a sweep has no wagers"),
    ("UKGC RTS 7", "outcomes random and the RTP as published", &["pocket_frequency", "number_frequency"], "and the exact RTP against each published claim (§3.2)"),
];

/// The regulation every [`CLAUSES`] entry belongs to.
pub const PENNSYLVANIA: &str = PA;

/// The verdict the tests named reached in `batteries`: the worst of FAIL, WEAK, PASS among
/// the rows that ran; `INSUFFICIENT` when every such row was; `None` when none ran.
pub fn verdict_of(tests: &[&str], batteries: &[&Battery]) -> Option<Verdict> {
    let rows: Vec<Verdict> = batteries
        .iter()
        .flat_map(|b| &b.results)
        .filter(|r| tests.contains(&r.outcome.test.split(':').next().unwrap_or_default()))
        .map(|r| r.verdict)
        .collect();
    [Verdict::Fail, Verdict::Weak, Verdict::Pass, Verdict::Insufficient]
        .into_iter()
        .find(|v| rows.contains(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every test a clause names is a test the battery runs: its name appears as a
    /// string in the statistics code (so no clause can cite a test that never runs).
    #[test]
    fn every_test_a_clause_names_is_one_the_battery_runs() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/stats");
        let code: String = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap_or_default())
            .collect();
        let named = CLAUSES.iter().flat_map(|c| c.tests).chain(OTHER_CLAUSES.iter().flat_map(|c| c.2));
        for test in named {
            let stem =
                test.trim_end_matches("_colour").trim_end_matches("_low_high").trim_end_matches("1_picks");
            assert!(
                code.contains(&format!("\"{test}")) || code.contains(&format!("\"{stem}")),
                "{test} is not a battery test"
            );
        }
    }
}
