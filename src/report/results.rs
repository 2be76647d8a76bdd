//! The battery's and the RTP estimates' files: `tests.csv`, `summary.json`, `rtp.csv`.
//! The statistics compute plain results; this module only decides how they are written.

use super::table::{Cell, Table};
use crate::rtp::empirical::{Estimate, RtpBasis, RtpRow, RTP_TABLE};
use crate::rtp::paytable::{PaytableOrigin, EXAMPLE_PAYTABLE_PATH, ILLUSTRATIVE_LABEL};
use crate::stats::battery::{Battery, Verdict, VerdictCounts};
use crate::stats::PValue;
use crate::sweep::crash::ChainLink;
use crate::tally::shards::PartialOf;
use serde::Serialize;
use std::collections::BTreeMap;

/// The overall verdict as every file and the terminal write it: `FAIL` when a test fails;
/// otherwise `PARTIAL` for a merge that lacks some shards (a pass would speak for nonces
/// it never saw); otherwise the battery's verdict.
pub fn overall_label<G: PartialEq>(battery: &Battery<G>, partial: Option<&PartialOf>) -> &'static str {
    match battery.overall() {
        Verdict::Fail => Verdict::Fail.as_str(),
        _ if partial.is_some() => PARTIAL,
        verdict => verdict.as_str(),
    }
}

/// The word that marks a merge lacking some shards, wherever its verdicts appear.
pub const PARTIAL: &str = "PARTIAL";

/// One test's verdict as written: `PASS`, or `PASS (PARTIAL)` in a partial merge.
pub fn verdict_label(verdict: Verdict, partial: Option<&PartialOf>) -> String {
    match partial {
        Some(_) => format!("{} ({PARTIAL})", verdict.as_str()),
        None => verdict.as_str().to_owned(),
    }
}

/// `tests.csv`: one row per test. p-values are numbers; one that underflowed below
/// 1e-300 is written as 0 and its note starts with "p < 1e-300".
pub fn tests_table<G: std::fmt::Display>(battery: &Battery<G>) -> Table {
    tests_table_of(battery, None)
}

/// [`tests_table`] of a merge that may lack shards: then every verdict says `(PARTIAL)`.
pub fn tests_table_of<G: std::fmt::Display>(battery: &Battery<G>, partial: Option<&PartialOf>) -> Table {
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
    for r in &battery.results {
        let o = &r.outcome;
        let mut note = o.note.clone();
        if o.p_value.is_some_and(|p| p < PValue::FLOOR) {
            note = format!("p < 1e-300; {note}");
        }
        table.push(vec![
            r.game.to_string().into(),
            Cell::User(r.seed_pair.clone()),
            o.test.clone().into(),
            if o.statistic.is_nan() { Cell::Text(String::new()) } else { Cell::Num(o.statistic) },
            number(o.df),
            number(o.p_value),
            number(r.adjusted_p),
            verdict_label(r.verdict, partial).into(),
            number(r.detectable_bias),
            // Notes name players and seed pairs (user text).
            Cell::User(note),
        ]);
    }
    table
}

/// `summary.json`: the overall verdict, counts, every FAIL and WEAK test, and the run's
/// warnings (a seed holding `:`).
pub fn summary_json<G: Serialize + PartialEq>(battery: &Battery<G>, warnings: &[String]) -> Vec<u8> {
    summary_json_of(battery, warnings, None)
}

/// [`summary_json`] of a merge that may lack shards: then `verdict` is `PARTIAL` (unless a
/// test fails), `battery_verdict` holds what the battery found on the shards merged, and
/// `partial` names the missing ones. A complete run's summary has neither field.
pub fn summary_json_of<G: Serialize + PartialEq>(
    battery: &Battery<G>,
    warnings: &[String],
    partial: Option<&PartialOf>,
) -> Vec<u8> {
    summary_json_with(battery, warnings, partial, None, None)
}

/// An audit's row checks, as its summary states them.
#[derive(Clone, Copy, Debug)]
pub struct RowChecks<'a> {
    /// The findings per check.
    pub findings: &'a BTreeMap<&'static str, u64>,
    /// Whether any row was checked on its own (replayed, linked, a payout checked): then
    /// the audit is judged by its rows even where its battery is INSUFFICIENT.
    pub any: bool,
}

/// [`summary_json_of`] with, for a sweep of a crash chain, how the range reached the
/// operator's published game (`chain`), and for an audit, its row checks: a broken link
/// or a finding makes `verdict` FAIL whatever the battery found. An audit is judged by its
/// rows: an INSUFFICIENT battery (some game's outcomes not judged) leaves its `verdict`
/// PASS when some row was checked, INSUFFICIENT when none was. `battery_verdict` keeps the battery's own
/// verdict wherever `verdict` says something else.
pub fn summary_json_with<G: Serialize + PartialEq>(
    battery: &Battery<G>,
    warnings: &[String],
    partial: Option<&PartialOf>,
    chain: Option<&ChainLink>,
    rows: Option<RowChecks<'_>>,
) -> Vec<u8> {
    let findings = rows.map(|r| r.findings);
    #[derive(Serialize)]
    struct Flagged<'a, G> {
        game: &'a G,
        seed_pair: &'a str,
        test: &'a str,
        p_value: Option<f64>,
        p_value_text: Option<String>,
        adjusted_p: Option<f64>,
    }
    #[derive(Serialize)]
    struct Summary<'a, G> {
        format: &'static str,
        version: u32,
        verdict: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        battery_verdict: Option<Verdict>,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a PartialOf>,
        alpha: f64,
        tests: usize,
        counts: VerdictCounts,
        /// The games no test of whose outcomes was valid: why the battery is INSUFFICIENT.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        unjudged_games: Vec<&'a G>,
        failed: Vec<Flagged<'a, G>>,
        weak: Vec<Flagged<'a, G>>,
        warnings: &'a [String],
        #[serde(skip_serializing_if = "Option::is_none")]
        chain: Option<&'a ChainLink>,
        #[serde(skip_serializing_if = "Option::is_none")]
        findings: Option<&'a BTreeMap<&'static str, u64>>,
    }
    let found = findings.is_some_and(|findings| findings.values().any(|&n| n > 0));
    let broken = chain.is_some_and(ChainLink::is_broken) || found;
    let flagged = |verdict: Verdict| {
        battery
            .results
            .iter()
            .filter(|r| r.verdict == verdict)
            .map(|r| Flagged {
                game: &r.game,
                seed_pair: &r.seed_pair,
                test: &r.outcome.test,
                p_value: r.outcome.p_value,
                p_value_text: r.outcome.p_value.map(|p| PValue(p).to_string()),
                adjusted_p: r.adjusted_p,
            })
            .collect()
    };
    let judgement = battery.judgement();
    let overall = judgement.verdict;
    let verdict = match overall {
        _ if broken => "FAIL",
        Verdict::Insufficient if rows.is_some_and(|r| r.any) => Verdict::Pass.as_str(),
        _ => overall_label(battery, partial),
    };
    let summary = Summary {
        format: "fairaudit-summary",
        version: 1,
        verdict,
        battery_verdict: (partial.is_some() || broken || verdict != overall.as_str()).then_some(overall),
        partial,
        alpha: battery.alpha,
        tests: battery.results.len(),
        counts: battery.counts(),
        unjudged_games: if overall == Verdict::Insufficient { judgement.unjudged } else { Vec::new() },
        failed: flagged(Verdict::Fail),
        weak: flagged(Verdict::Weak),
        warnings,
        chain,
        findings,
    };
    let mut bytes = serde_json::to_vec_pretty(&summary).expect("summary serialises");
    bytes.push(b'\n');
    bytes
}

/// `rtp.csv`: the empirical RTP rows.
///
/// Columns: `game, seed_pair, bet_type, bet, rounds, exact_rtp_percent,
/// realised_rtp_percent, confidence, ci_low_percent, ci_high_percent, z, p_value,
/// sd_per_unit_stake, rounds_to_pin_0_1pp, note`; Keno rows name the paytable in the note
/// (the illustrative example says so).
pub fn rtp_table(rows: &[RtpRow]) -> Table {
    let mut table = Table::new(
        RTP_TABLE,
        vec![
            "game",
            "seed_pair",
            "bet_type",
            "bet",
            "rounds",
            "exact_rtp_percent",
            "realised_rtp_percent",
            "confidence",
            "ci_low_percent",
            "ci_high_percent",
            "z",
            "p_value",
            "sd_per_unit_stake",
            "rounds_to_pin_0_1pp",
            "note",
        ],
    );
    for row in rows {
        let e = &row.estimate;
        let note = match &row.basis {
            RtpBasis::Paytable(PaytableOrigin::Example) => {
                Cell::Text(format!("{ILLUSTRATIVE_LABEL} ({EXAMPLE_PAYTABLE_PATH})"))
            }
            RtpBasis::Paytable(PaytableOrigin::File(name)) => Cell::User(format!("paytable {name}")),
            RtpBasis::RepresentativeBet => {
                Cell::Text("representative bet; every bet of the type has the same exact RTP".into())
            }
        };
        let names = [
            row.game.name().into(),
            Cell::User(row.seed_pair.clone()),
            Cell::User(row.bet_type.clone()),
            Cell::User(row.bet.clone()),
        ];
        table.push(rtp_cells(names, e, row.confidence, note));
    }
    table
}

/// One row of `rtp.csv` ([`rtp_table`]): the game, group, bet type and bet named, then the
/// estimate's figures and the note.
pub fn rtp_cells(names: [Cell; 4], e: &Estimate, confidence: f64, note: Cell) -> Vec<Cell> {
    let mut cells = names.to_vec();
    cells.extend([
        e.rounds.into(),
        Cell::Num(e.exact_percent),
        Cell::Num(e.realised_percent),
        Cell::Num(confidence),
        Cell::Num(e.low_percent),
        Cell::Num(e.high_percent),
        Cell::Num(e.z),
        // A number, like every p-value in fairaudit's CSVs (0 where it underflowed).
        Cell::Num(e.p_value),
        Cell::Num(e.sd),
        e.rounds_to_pin.into(),
        note,
    ]);
    cells
}
