//! What every audit writes and says, whatever its scheme: its findings as they are made
//! (the terminal's first lines, findings.csv, nonce_gaps.csv), its output folder and
//! run.json, and its end (the files committed as a unit, the battery, the exit verdict).

use super::args::{command_line, AuditArgs};
use super::battery::print_battery;
use super::folder::OutputFolder;
use super::Verdict;
use anyhow::{Context, Result};
use fairaudit::app::scheme_audit::verdict_files;
use fairaudit::audit::{AuditObserver, Finding, Gap};
use fairaudit::fields::Shown;
use fairaudit::report::audit_html::{audit_verdict, FINDINGS_SHOWN};
use fairaudit::report::results::RowChecks;
use fairaudit::report::run_info::{InputHash, RunStamp, RUN_FORMAT};
use fairaudit::report::{csv_writer, spreadsheet_safe};
use fairaudit::stats::battery::{Battery, Verdict as TestVerdict};
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::SystemTime;

/// Findings printed on the terminal; findings.csv holds them all.
pub(super) const FINDINGS_PRINTED: usize = 50;

/// The columns of findings.csv.
pub(super) const FINDINGS_HEADER: [&str; 5] = ["line", "player", "check", "expected", "found"];

/// A finding as a row of findings.csv; the file's text in it neutralised for spreadsheets.
pub(super) fn findings_row(f: &Finding) -> [String; 5] {
    [
        f.line.to_string(),
        spreadsheet_safe(&f.player).into_owned(),
        f.check.to_owned(),
        spreadsheet_safe(&f.expected).into_owned(),
        spreadsheet_safe(&f.found).into_owned(),
    ]
}

/// The columns of nonce_gaps.csv.
pub(super) const GAPS_HEADER: [&str; 9] = [
    "line",
    "player",
    "commitment",
    "client_seed",
    "first_missing_nonce",
    "last_missing_nonce",
    "missing_nonces",
    "replayed",
    "would_have_won",
];

/// A gap as a row of nonce_gaps.csv; the file's text in it neutralised for spreadsheets.
pub(super) fn gaps_row(g: &Gap) -> [String; 9] {
    [
        g.line.to_string(),
        spreadsheet_safe(&g.player).into_owned(),
        spreadsheet_safe(&g.commitment).into_owned(),
        spreadsheet_safe(&g.client_seed).into_owned(),
        g.nonces.start.to_string(),
        (g.nonces.end - 1).to_string(),
        (g.nonces.end - g.nonces.start).to_string(),
        if g.replayed { "yes" } else { "no" }.to_owned(),
        if g.replayed { g.would_have_won.to_string() } else { String::new() },
    ]
}

/// Claims an audit's output folder: one holding another run's files needs `--force`.
pub(super) fn claim_output(dir: &std::path::Path, force: bool) -> Result<OutputFolder> {
    let (folder, existing) = OutputFolder::claim(dir)?;
    folder.refuse_earlier(&existing, force)?;
    Ok(folder)
}

/// The SHA-256 of the files an audit's arguments name (its history, paytable and
/// `--columns` file), hashed before the audit reads them, for its run.json; none without
/// `--out`, which writes no run.json (hashing reads the history once more).
pub(super) fn written_inputs(args: &AuditArgs) -> Vec<InputHash> {
    if args.out.is_none() {
        return Vec::new();
    }
    let (history, paytable, columns) = args.files();
    super::args::input_hashes(&[Some(&history), paytable.as_deref(), columns.as_deref()])
}

/// `run.json` of an audit that started at `started` and ends now, with the SHA-256 of the
/// files it read ([`written_inputs`]).
pub(super) fn audit_stamp(started: SystemTime, inputs: Vec<InputHash>) -> RunStamp {
    RunStamp {
        format: RUN_FORMAT,
        kind: "audit",
        fairaudit_version: fairaudit::VERSION,
        fairaudit_revision: fairaudit::REVISION,
        command_line: command_line(),
        working_dir: super::args::working_dir(),
        inputs,
        started_at: super::clock::rfc3339(started),
        finished_at: super::clock::rfc3339(super::clock::now()),
    }
}

/// Where the findings of an audit of a scheme other than the default go as they are
/// made: the terminal (the first [`FINDINGS_PRINTED`], each line from `describe`) and,
/// with `--out`, findings.csv.
pub(super) struct FindingSink {
    describe: fn(&Finding) -> String,
    printed: usize,
    /// The first [`FINDINGS_SHOWN`] findings, for report.html.
    pub(super) shown: Vec<Finding>,
    csv: Option<csv::Writer<BufWriter<File>>>,
    /// nonce_gaps.csv, for a scheme whose audit reports gaps ([`FindingSink::with_gaps`]).
    gaps: Option<csv::Writer<BufWriter<File>>>,
    error: Option<csv::Error>,
}

impl FindingSink {
    /// A sink writing findings.csv into `folder` when there is one.
    pub(super) fn new(folder: Option<&OutputFolder>, describe: fn(&Finding) -> String) -> Result<Self> {
        let csv = folder.map(|folder| staged_csv(folder, "findings.csv", &FINDINGS_HEADER)).transpose()?;
        Ok(Self { describe, printed: 0, shown: Vec::new(), csv, gaps: None, error: None })
    }

    /// The same sink writing every gap to nonce_gaps.csv in `folder` too.
    pub(super) fn with_gaps(mut self, folder: Option<&OutputFolder>) -> Result<Self> {
        self.gaps = folder.map(|folder| staged_csv(folder, "nonce_gaps.csv", &GAPS_HEADER)).transpose()?;
        Ok(self)
    }

    /// Takes one finding.
    pub(super) fn take(&mut self, finding: &Finding) {
        if self.printed < FINDINGS_PRINTED {
            outln!("{}", (self.describe)(finding));
            self.printed += 1;
        }
        if self.shown.len() < FINDINGS_SHOWN {
            self.shown.push(finding.clone());
        }
        if let Some(writer) = self.csv.as_mut() {
            if let Err(error) = writer.write_record(findings_row(finding)) {
                self.error.get_or_insert(error);
            }
        }
    }

    /// After the last of `findings`: says how many were not printed, and hands back
    /// findings.csv (for [`write_scheme_audit`]) or the error that stopped writing it.
    pub(super) fn finish(&mut self, findings: u64) -> Result<Vec<csv::Writer<BufWriter<File>>>> {
        if let Some(error) = self.error.take() {
            return Err(error).context("cannot write findings.csv or nonce_gaps.csv");
        }
        if findings as usize > self.printed {
            outln!(
                "... {} more findings{}",
                findings as usize - self.printed,
                if self.csv.is_some() { " in findings.csv" } else { " (pass --out DIR for findings.csv)" }
            );
        }
        Ok(self.csv.take().into_iter().chain(self.gaps.take()).collect())
    }
}

impl AuditObserver for FindingSink {
    fn finding(&mut self, finding: &Finding) {
        self.take(finding);
    }

    fn gap(&mut self, gap: &Gap) {
        if let Some(writer) = self.gaps.as_mut() {
            if let Err(error) = writer.write_record(gaps_row(gap)) {
                self.error.get_or_insert(error);
            }
        }
    }
}

/// The end of an audit of a scheme other than the default: the findings per check, the
/// folder (findings.csv, and nonce_gaps.csv where the scheme has one, staged as the audit
/// went, then tests.csv, summary.json, the
/// scheme's `more_files` and run.json (`stamp`), committed as a unit) and the battery; a
/// finding or a failed test is exit 1. `row_checks`: whether any row was judged on its own
/// (replayed, linked, a payout checked): see [`judged_by_rows`].
pub(super) fn conclude_scheme_audit<G: Serialize + Copy + Ord + std::fmt::Display>(
    row_checks: bool,
    findings: &std::collections::BTreeMap<&'static str, u64>,
    folder: Option<(OutputFolder, Vec<csv::Writer<BufWriter<File>>>)>,
    battery: &fairaudit::stats::battery::Battery<G>,
    groups: &str,
    stamp: &RunStamp,
    more_files: Vec<(&str, Vec<u8>)>,
) -> Result<Verdict> {
    let total: u64 = findings.values().sum();
    if total > 0 {
        let by_check: Vec<String> = findings.iter().map(|(check, n)| format!("{check} {n}")).collect();
        outln!("findings: {total} ({})", by_check.join(", "));
    }
    if let Some((folder, staged)) = folder {
        for writer in staged {
            writer.into_inner().map_err(|e| e.into_error())?.flush()?;
        }
        // The verdict FAIL on a finding too, the findings counted per check.
        for (name, bytes) in verdict_files(battery, RowChecks { findings, any: row_checks }) {
            folder.write(name, &bytes)?;
        }
        for (name, bytes) in more_files {
            folder.write(name, &bytes)?;
        }
        folder.write("run.json", &stamp.to_bytes())?;
        folder.commit()?;
    }
    print_battery(battery, groups);
    Ok(judged_by_rows(total, battery, row_checks))
}

/// An audit's exit verdict: its summary's ([`audit_verdict`]). An audit is judged by its
/// rows: a battery too short for any test leaves it clean when some row was checked
/// against the chain or the paytable, and insufficient (exit 3) when none was.
pub(super) fn judged_by_rows<G: PartialEq>(findings: u64, battery: &Battery<G>, row_checks: bool) -> Verdict {
    match audit_verdict(findings, battery, row_checks) {
        TestVerdict::Fail => Verdict::Finding,
        TestVerdict::Insufficient => Verdict::Insufficient,
        TestVerdict::Pass | TestVerdict::Weak => Verdict::Clean,
    }
}

/// The seed pairs' nonces as the terminal says them, when a seed pair was seen: their gaps,
/// the nonces missing in them and the rounds at skipped nonces replayed.
pub(super) fn print_nonces(seed_pairs: u64, gaps: u64, missing: u64, replayed: u64) {
    if seed_pairs > 0 {
        outln!(
            "nonces: {seed_pairs} seed pairs, {gaps} gaps ({missing} nonces missing), {replayed} rounds at skipped nonces replayed"
        );
    }
}

/// A finding as one terminal line, `what` saying what was found; the player's name is
/// [`Shown`], not acted on.
pub(super) fn finding_line(f: &Finding, what: &str) -> String {
    let who = if f.player.is_empty() { String::new() } else { format!(" (player {})", Shown(&f.player)) };
    format!("line {}{who}: {}: {what}", f.line, f.check)
}

/// A CSV file of the run, written into the staging folder as rows come.
pub(super) fn staged_csv(
    folder: &OutputFolder,
    name: &str,
    header: &[&str],
) -> Result<csv::Writer<BufWriter<File>>> {
    let file = File::create(folder.staged(name)).with_context(|| format!("cannot write {name}"))?;
    let mut writer = csv_writer(BufWriter::new(file));
    writer.write_record(header)?;
    Ok(writer)
}
