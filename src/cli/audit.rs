//! `fairaudit audit`: an operator's bet history, checked row by row and tested.

use super::args::load_paytable;
use super::args::{AuditArgs, MAX_GAP_REPLAY};
use super::audit_output::{
    audit_stamp, claim_output, findings_row, gaps_row, judged_by_rows, print_nonces, staged_csv,
    written_inputs, FINDINGS_HEADER, FINDINGS_PRINTED, GAPS_HEADER,
};
use super::battery::print_battery;
use super::input::{self, install_stop_handler};
use super::Verdict;
use anyhow::{bail, Context, Result};
use fairaudit::audit::{
    audit_history, revealed_seeds, Audit, AuditObserver, AuditOptions, Finding, Gap, OutcomeTallies,
};
use fairaudit::fields::Shown;
use fairaudit::games::GameId;
use fairaudit::report::audit_html::{AuditReport, FINDINGS_SHOWN};
use fairaudit::report::results::{rtp_table, summary_json, tests_table};
use fairaudit::report::Table;
use fairaudit::rtp::empirical::{rtp_rows_of, GameTallies};
use fairaudit::stats::battery::Verdict as TestVerdict;
use fairaudit::verify::RoundsError;
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};

/// Prints the first findings, keeps the first for the report, and writes all of them and
/// every gap to their CSVs as they come.
struct Observer {
    findings: Option<csv::Writer<BufWriter<File>>>,
    gaps: Option<csv::Writer<BufWriter<File>>>,
    shown: Vec<Finding>,
    printed: usize,
    error: Option<std::io::Error>,
}

impl Observer {
    fn write(
        writer: &mut Option<csv::Writer<BufWriter<File>>>,
        error: &mut Option<std::io::Error>,
        row: &[String],
    ) {
        if let Some(w) = writer {
            if let Err(e) = w.write_record(row) {
                error.get_or_insert(e.into());
            }
        }
    }
}

impl AuditObserver for Observer {
    fn finding(&mut self, f: &Finding) {
        if self.printed < FINDINGS_PRINTED {
            outln!("{}", describe(f));
            self.printed += 1;
        }
        if self.shown.len() < FINDINGS_SHOWN {
            self.shown.push(f.clone());
        }
        Self::write(&mut self.findings, &mut self.error, &findings_row(f));
    }

    fn gap(&mut self, g: &Gap) {
        Self::write(&mut self.gaps, &mut self.error, &gaps_row(g));
    }
}

/// An observer that keeps the first `limit` findings and counts the rest (`certify`
/// shows the first on the page; all of them are in the audit's pinned findings.csv).
pub struct FirstFindings {
    /// How many to keep.
    pub limit: usize,
    /// The first findings.
    pub kept: Vec<Finding>,
}

impl AuditObserver for FirstFindings {
    fn finding(&mut self, finding: &Finding) {
        if self.kept.len() < self.limit {
            self.kept.push(finding.clone());
        }
    }
    fn gap(&mut self, _: &Gap) {}
}

/// One line per finding, as the terminal shows it.
/// A finding as one terminal line; the file's text in it is [`Shown`] (no control
/// characters acted on).
fn describe(f: &Finding) -> String {
    let (found, expected) = (Shown(&f.found), Shown(&f.expected));
    let who = if f.player.is_empty() { String::new() } else { format!(" (player {})", Shown(&f.player)) };
    let what = match f.check {
        "result" | "draw_order" => format!("file has '{}', the chain gives '{}'", found, expected),
        "payout" => format!("file has {}, the paytable gives {}", found, expected),
        "commitment" => {
            format!("file has {}, SHA3-256 of the revealed server seed is {}", found, expected)
        }
        "nonce_reused" => format!("nonce {} was already played with this seed pair", found),
        "nonce_order" => format!("nonce {} comes where {} was expected", found, expected),
        "commitment_reused" => format!("commitment {} used again: expected {}", found, expected),
        _ => format!("file has {}, expected {}", found, expected),
    };
    format!("line {}{who}: {}: {what}", f.line, f.check)
}

pub fn run(args: AuditArgs) -> Result<Verdict> {
    if let Some((scheme, variant)) = args.scheme.and_then(|s| Some((s, s.crash_variant()?))) {
        return super::audit_crash::run(args, scheme, variant);
    }
    if args.scheme.and_then(fairaudit::scheme::keyed::KeyedScheme::of).is_some() {
        return super::audit_stake::run(args);
    }
    let game = args.game_of_default_scheme()?;
    let started = super::clock::now();
    let name = args.outcomes.display().to_string();
    let paytable = args.paytable.as_deref().map(|path| load_paytable(Some(path))).transpose()?;
    let layout = args.layout.layout(&fairaudit::audit::fields(game))?;
    let mut observer = Observer { findings: None, gaps: None, shown: Vec::new(), printed: 0, error: None };
    // Claim the folder before reading a possibly huge file: a refusal writes nothing.
    let folder = match &args.out {
        Some(dir) => {
            let folder = claim_output(dir, args.force)?;
            observer.findings = Some(staged_csv(&folder, "findings.csv", &FINDINGS_HEADER)?);
            observer.gaps = Some(staged_csv(&folder, "nonce_gaps.csv", &GAPS_HEADER)?);
            Some(folder)
        }
        None => None,
    };
    let inputs = written_inputs(&args);
    install_stop_handler()?;
    // Two passes: the seeds the history reveals anywhere, then the audit, which replays
    // rows showing only a commitment with the seed revealed for it further down.
    let mut history = input::history(&args.outcomes)?;
    let revealed = revealed_seeds(game, history.first_pass()?, &layout).with_context(|| name.clone())?;
    let (input, bar) = history.second_pass(args.quiet).with_context(|| name.clone())?;
    let options = AuditOptions {
        paytable: paytable.clone(),
        payout_tolerance: args.payout_tolerance,
        max_gap_replay: args.max_gap_replay.unwrap_or(MAX_GAP_REPLAY),
        layout,
    };
    // Long runs of skipped nonces are replayed on every core, in rayon's global pool:
    // started here, so that a failure to start it is an error, not rayon's panic.
    rayon::ThreadPoolBuilder::new()
        .build_global()
        .map_err(|error| anyhow::anyhow!("cannot start the worker threads: {error}"))?;
    let audit = match audit_history(game, input, &revealed, &options, &mut observer) {
        Err(error @ RoundsError::PaytableRequired) => bail!("{name}: {error}: pass it with --paytable FILE"),
        result => result.with_context(|| name.clone())?,
    };
    drop(bar);
    for warning in &audit.warnings {
        errln!("warning: {}", fairaudit::fields::Shown(warning));
    }
    if let Some(error) = observer.error.take() {
        return Err(error).context("cannot write findings.csv or nonce_gaps.csv");
    }
    let battery = audit.battery(args.alpha);
    let findings: u64 = audit.findings.iter().map(|(_, n)| n).sum();
    if findings as usize > observer.printed {
        outln!(
            "... {} more findings{}",
            findings as usize - observer.printed,
            if args.out.is_some() { " in findings.csv" } else { " (pass --out DIR for findings.csv)" }
        );
    }
    outln!(
        "{} rounds read; {} replayed against the chain, {} mismatches",
        audit.rounds,
        audit.verified,
        audit.mismatches
    );
    if !audit.findings.is_empty() {
        let by_check: Vec<String> = audit.findings.iter().map(|(check, n)| format!("{check} {n}")).collect();
        outln!("findings: {findings} ({})", by_check.join(", "));
    }
    if audit.game == GameId::Keno && !audit.has_draw_order && audit.rows_with_draw_order > 0 {
        outln!(
            "draw order recorded on {} of {} rows: the position tests need it on every row and are not run",
            audit.rows_with_draw_order,
            audit.rounds
        );
    }
    let n = audit.nonce_integrity;
    print_nonces(n.seed_pairs, n.gaps, n.missing_nonces, n.replayed);
    if let Some(folder) = folder {
        let report_paytable = paytable.clone().unwrap_or_else(fairaudit::rtp::Paytable::example);
        let stamp = audit_stamp(started, inputs);
        let made_by = fairaudit::report::audit_html::made_by(
            stamp.fairaudit_version,
            stamp.fairaudit_revision,
            &stamp.finished_at,
        );
        for writer in [observer.findings.take(), observer.gaps.take()].into_iter().flatten() {
            writer.into_inner().map_err(|e| e.into_error())?.flush()?;
        }
        for (name, bytes) in audit_files(&audit, &battery, &observer.shown, &name, &report_paytable, &made_by)
        {
            folder.write(name, &bytes)?;
        }
        folder.write("run.json", &stamp.to_bytes())?;
        folder.commit()?;
    }
    print_battery(&battery, "players");
    Ok(judged_by_rows(findings, &battery, audit.has_row_checks()))
}

/// The files an audit of the default scheme writes from its results, beside findings.csv,
/// nonce_gaps.csv (written as the rows come) and run.json: tests.csv, summary.json, rtp.csv
/// and report.html, made from the audit, its battery (at the audit's level), its first
/// findings (`shown`), the history's name as the command gave it (`source`), the paytable
/// it judged by (the example where none was given) and who made it when (`made_by`, from
/// its run.json: `certify --check` makes them again from the same).
pub(super) fn audit_files(
    audit: &Audit,
    battery: &fairaudit::stats::battery::Battery,
    shown: &[Finding],
    source: &str,
    paytable: &fairaudit::rtp::Paytable,
    made_by: &str,
) -> Vec<(&'static str, Vec<u8>)> {
    let report =
        AuditReport { audit, battery, findings: shown, source, paytable: &paytable.describe(), made_by };
    vec![
        ("tests.csv", tests_table(battery).to_csv()),
        ("summary.json", audit_summary(audit, battery, report.verdict())),
        ("rtp.csv", rtp_csv(audit, paytable, battery.alpha).to_csv()),
        ("report.html", report.render().into_bytes()),
    ]
}

/// `rtp.csv` of an audit: the realised RTP per player (and `all`) of the documented
/// representative bets, from the outcome tallies.
fn rtp_csv(audit: &Audit, paytable: &fairaudit::rtp::Paytable, alpha: f64) -> Table {
    let mut groups: Vec<(String, OutcomeTallies)> =
        audit.players.iter().map(|p| (p.player.clone(), p.outcomes.clone())).collect();
    if audit.players.len() > 1 {
        groups.push(("all".to_owned(), audit.total().0));
    }
    let keno: Vec<_> = groups
        .iter()
        .filter_map(|(label, t)| match t {
            OutcomeTallies::Keno(closed) => Some((label.clone(), closed.clone())),
            OutcomeTallies::Roulette(_) => None,
        })
        .collect();
    let roulette: Vec<_> = groups
        .iter()
        .filter_map(|(label, t)| match t {
            OutcomeTallies::Roulette(closed) => Some((label.clone(), closed.clone())),
            OutcomeTallies::Keno(_) => None,
        })
        .collect();
    let tallies = match audit.game {
        GameId::Keno => GameTallies::Keno(&keno),
        game => GameTallies::Roulette(game, &roulette),
    };
    rtp_table(&rtp_rows_of(&[tallies], paytable, alpha))
}

/// `summary.json` of an audit: the battery's summary, the overall verdict with the row
/// checks, nonce integrity, and a line per player.
fn audit_summary(
    audit: &Audit,
    battery: &fairaudit::stats::battery::Battery,
    verdict: TestVerdict,
) -> Vec<u8> {
    #[derive(Serialize)]
    struct Player<'a> {
        player: &'a str,
        rounds: u64,
        seed_pairs: u64,
        findings: u64,
        staked: f64,
        returned: f64,
        expected_return: f64,
    }
    #[derive(Serialize)]
    struct Summary<'a> {
        format: &'static str,
        version: u32,
        verdict: TestVerdict,
        game: GameId,
        rounds: u64,
        replayed: u64,
        mismatches: u64,
        findings: std::collections::BTreeMap<&'a str, u64>,
        seed_pairs: u64,
        nonce_gaps: u64,
        missing_nonces: u64,
        skipped_rounds_replayed: u64,
        battery: serde_json::Value,
        /// Cautions about the input (the same as in the battery's summary), at the top
        /// level where a reader of an audit's summary looks.
        warnings: &'a [String],
        players: Vec<Player<'a>>,
    }
    let summary = Summary {
        format: "fairaudit-audit-summary",
        version: 1,
        verdict,
        game: audit.game,
        rounds: audit.rounds,
        replayed: audit.verified,
        mismatches: audit.mismatches,
        findings: audit.findings.iter().copied().collect(),
        seed_pairs: audit.nonce_integrity.seed_pairs,
        nonce_gaps: audit.nonce_integrity.gaps,
        missing_nonces: audit.nonce_integrity.missing_nonces,
        skipped_rounds_replayed: audit.nonce_integrity.replayed,
        battery: serde_json::from_slice(&summary_json(battery, &audit.warnings))
            .expect("the battery summary is JSON"),
        warnings: &audit.warnings,
        players: audit
            .players
            .iter()
            .map(|p| Player {
                player: &p.player,
                rounds: p.rounds,
                seed_pairs: p.seed_pairs,
                findings: p.findings,
                staked: p.bets.staked,
                returned: p.bets.returned,
                expected_return: p.bets.expected_return,
            })
            .collect(),
    };
    let mut bytes = serde_json::to_vec_pretty(&summary).expect("summary serialises");
    bytes.push(b'\n');
    bytes
}
