//! `fairaudit audit`: an operator's bet history, checked row by row and tested.

use super::args::{
    command_line, load_paytable, parse_alpha, parse_amount, parse_game, parse_scheme, LayoutArgs,
};
use super::battery::print_battery;
use super::folder::OutputFolder;
use super::input::{self, install_stop_handler};
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::audit::money::Money;
use fairaudit::audit::{
    audit_history, revealed_seeds, Audit, AuditObserver, AuditOptions, Finding, Gap, OutcomeTallies,
};
use fairaudit::fields::Shown;
use fairaudit::games::GameId;
use fairaudit::report::audit_html::{audit_verdict, AuditReport, FINDINGS_SHOWN};
use fairaudit::report::results::{rtp_table, summary_json, summary_json_with, tests_table, RowChecks};
use fairaudit::report::run_info::{InputHash, RunStamp, RUN_FORMAT};
use fairaudit::report::{csv_writer, spreadsheet_safe, Table};
use fairaudit::rtp::empirical::{rtp_rows_of, GameTallies};
use fairaudit::scheme::SchemeId;
use fairaudit::stats::battery::{Battery, Verdict as TestVerdict};
use fairaudit::verify::RoundsError;
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::SystemTime;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The provably-fair scheme: sha3 (SPEC.md, the default), stake (the HMAC-SHA256
    /// family: each row names its game) or bustabit-v1 and roobet (bets on crash games);
    /// docs/audit.md.
    #[arg(long, value_name = "NAME", value_parser = parse_scheme)]
    pub(super) scheme: Option<SchemeId>,
    /// The game the history belongs to (the default scheme's; required with it).
    #[arg(long, value_name = "G", value_parser = parse_game)]
    pub(super) game: Option<GameId>,
    /// CSV of rounds in play order (`result` required; bets, stakes, payouts, players and
    /// seeds optional; see docs/audit.md); `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    pub(super) outcomes: PathBuf,
    /// Write tests.csv, summary.json, rtp.csv, findings.csv, nonce_gaps.csv and
    /// report.html to this folder.
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// Replace those files in --out if they exist.
    #[arg(long, requires = "out")]
    pub(super) force: bool,
    /// Level of the battery (family-wise, Holm-adjusted).
    #[arg(long, value_name = "A", default_value_t = 0.01, value_parser = parse_alpha)]
    pub(super) alpha: f64,
    /// The operator's Keno paytable: payouts are judged against it (required for a Keno
    /// history with payouts), and rtp.csv uses it; with --scheme stake, Keno's payouts are
    /// judged only when it is given.
    #[arg(long, value_name = "FILE")]
    pub(super) paytable: Option<PathBuf>,
    /// A payout within this amount of stake x multiplier is not a finding (default 0:
    /// exact; e.g. 0.01 for payouts rounded to cents).
    #[arg(long, value_name = "AMOUNT", default_value = "0", value_parser = parse_amount)]
    pub(super) payout_tolerance: Money,
    /// Gaps of at most N nonces are replayed for the skipped-rounds test; longer ones are
    /// reported only [default: 10000].
    #[arg(long, value_name = "N")]
    pub(super) max_gap_replay: Option<u64>,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    #[command(flatten)]
    pub(super) layout: LayoutArgs,
}

/// Gaps replayed for the skipped-rounds test by default (`--max-gap-replay`).
const MAX_GAP_REPLAY: u64 = 10_000;

impl AuditArgs {
    /// The files the audit read: the bet history, the paytable and the `--columns`
    /// mapping file (the last two when given).
    pub(super) fn files(&self) -> (PathBuf, Option<PathBuf>, Option<PathBuf>) {
        (self.outcomes.clone(), self.paytable.clone(), self.layout.columns_file().map(PathBuf::from))
    }

    /// What `certify` needs to run this audit again from copies of its files: the game
    /// and the options, with the paytable given and the column mapping read from
    /// `columns` (the copy of its `--columns` file); the `--column` mappings and the
    /// delimiter are the audit's own.
    pub(super) fn replay_with(
        &self,
        paytable: Option<fairaudit::rtp::Paytable>,
        columns: Option<&std::path::Path>,
    ) -> Result<(GameId, AuditOptions)> {
        let game = self.game_of_default_scheme()?;
        let options = AuditOptions {
            paytable,
            payout_tolerance: self.payout_tolerance,
            max_gap_replay: self.max_gap_replay.unwrap_or(MAX_GAP_REPLAY),
            layout: self.layout.layout_from(&fairaudit::audit::fields(game), columns)?,
        };
        Ok((game, options))
    }

    /// How an audit of the HMAC-SHA256 family judges a history beside its rows, Keno's
    /// payouts by `keno_paytable` (the copy of the one given, when `certify` runs it).
    pub(super) fn stake_options<'a>(
        &self,
        keno_paytable: Option<&'a fairaudit::rtp::Paytable>,
    ) -> fairaudit::audit::stake::StakeAuditOptions<'a> {
        fairaudit::audit::stake::StakeAuditOptions {
            payout_tolerance: self.payout_tolerance,
            keno_paytable,
            max_gap_replay: self.max_gap_replay.unwrap_or(MAX_GAP_REPLAY),
        }
    }

    /// The game of an audit of the default scheme, or why there is none.
    fn game_of_default_scheme(&self) -> Result<GameId> {
        if let Some(scheme) = self.scheme.filter(|&scheme| scheme != SchemeId::Sha3) {
            bail!("an audit of scheme {scheme} cannot be certified yet (docs/schemes.md)");
        }
        self.game.context("--game is required: keno, roulette-european or roulette-american (or --scheme stake, whose rows name their games)")
    }
}

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
        folder.write("tests.csv", &tests_table(battery).to_csv())?;
        // The verdict FAIL on a finding too, the findings counted per check.
        folder.write(
            "summary.json",
            &summary_json_with(battery, &[], None, None, Some(RowChecks { findings, any: row_checks })),
        )?;
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
fn judged_by_rows<G: PartialEq>(findings: u64, battery: &Battery<G>, row_checks: bool) -> Verdict {
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

pub fn run(args: AuditArgs) -> Result<Verdict> {
    if let Some((scheme, variant)) = args.scheme.and_then(|s| Some((s, s.crash_variant()?))) {
        return super::audit_crash::run(args, scheme, variant);
    }
    if args.scheme == Some(SchemeId::Stake) {
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
